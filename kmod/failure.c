// SPDX-License-Identifier: GPL-2.0
/*
 * The last failure of each comm's bootstrap, kept from the failure events
 * so that a comm can say in words what went wrong after its failed node is
 * gone (netlink shows it with the comm). A record belongs to the comm with
 * its serial (a comm built later in the slot ignores it), and a world that
 * forms again clears it.
 *
 * Locking: records_lock, a spinlock, is the innermost lock of the module:
 * nothing is taken under it and nothing sleeps.
 */
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "encd_private.h"

static struct encd_failure *records[ENCD_SLOTS];
static DEFINE_SPINLOCK(records_lock);

/**
 * encd_failure_record() - keeps what a node event says of a failure
 * @cmd: the event, ENCD_NL_CMD_*_NTF
 * @node: the node's snapshot; its error, when the event is a failure
 *
 * A failure (WORLD_FAILED or SIG_MISMATCH) becomes the comm's last one; the
 * world's own node forming clears it. Process context.
 */
void encd_failure_record(u8 cmd, const struct encd_nl_node *node)
{
	const struct encd_nl_error *e = node->error;
	struct encd_failure *rec, *fresh = NULL;
	unsigned int slot;

	if (WARN_ON_ONCE(node->nec_dev >= ENCD_NEC_MAX_DEVICES || node->ctx_id >= ENCD_MAX_CONTEXTS))
		return;
	slot = encd_slot(node->nec_dev, node->ctx_id);
	if (cmd == ENCD_NL_CMD_WORLD_FORMED_NTF && node->global) {
		spin_lock(&records_lock);
		rec = records[slot];
		if (rec && rec->serial == node->gcomm_serial)
			rec->serial = 0;
		spin_unlock(&records_lock);
		return;
	}
	if (!e || (cmd != ENCD_NL_CMD_WORLD_FAILED_NTF && cmd != ENCD_NL_CMD_SIG_MISMATCH_NTF))
		return;

	if (!READ_ONCE(records[slot])) {
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh)
			return;
	}
	spin_lock(&records_lock);
	if (!records[slot]) {
		records[slot] = fresh;
		fresh = NULL;
	}
	rec = records[slot];
	rec->serial = node->gcomm_serial;
	rec->err = e->err;
	rec->reason = e->reason;
	rec->phase = e->phase;
	rec->peer_rank = e->peer_rank;
	rec->peer_g_device_id = e->peer_g_device_id;
	rec->group_id = e->group_id;
	rec->has_local_sig = e->local_sig;
	if (e->local_sig)
		memcpy(rec->local_sig, e->local_sig, ENCD_SIG_LEN);
	rec->has_peer_sig = e->peer_sig;
	if (e->peer_sig)
		memcpy(rec->peer_sig, e->peer_sig, ENCD_SIG_LEN);
	strscpy(rec->msg, e->msg ? e->msg : "", sizeof(rec->msg));
	spin_unlock(&records_lock);
	kfree(fresh);
}

/**
 * encd_failure_get() - the last failure of a comm's bootstrap
 * @g: the comm
 * @rec: out: a copy of the record
 *
 * Return: whether @g has one.
 */
bool encd_failure_get(const struct encd_gcomm *g, struct encd_failure *rec)
{
	unsigned int slot = encd_slot(g->nec_dev_id, g->ctx_id);
	bool have;

	spin_lock(&records_lock);
	have = records[slot] && records[slot]->serial == g->serial;
	if (have)
		*rec = *records[slot];
	spin_unlock(&records_lock);
	return have;
}

/* The module is going: every comm is gone, and so is every event. */
void encd_failure_exit(void)
{
	unsigned int slot;

	for (slot = 0; slot < ENCD_SLOTS; slot++)
		kfree(records[slot]);
}
