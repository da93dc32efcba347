// SPDX-License-Identifier: GPL-2.0
/*
 * Early messages: what a rank is sent for a node, or an attempt, it has not
 * started yet. They wait on the rank's early list until the node starts
 * (encd_engine_take_early()) or the world's timeout passes, and each takes
 * its sending link's budget (ENCD_EARLY_MAX messages, ENCD_EARLY_BYTES
 * bytes): a host sends on one data link to this one, so a link's budget is
 * its sender's, and a sender past it broke the protocol. As WireGuard keeps
 * its ratelimiter, the budget is kept apart from the protocol it bounds.
 *
 * Locking: everything here runs under the rank's host's lock.
 */
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "encd_private.h"

/* Local messages nobody asked for yet, per rank. */
#define LOCAL_EARLY_MAX	(4 * ENCD_EARLY_MAX)

/**
 * encd_early_charge() - charges a message nobody asked for yet to its link
 * @e: the message, not charged yet
 * @l: the link it came on
 * @why: out: what the peer did wrong, on error
 * @why_len: size of @why
 *
 * A host sends on one data link to this one (encd_host_frame() refuses a
 * second), so the link's budget is its sender's.
 *
 * Return: 0, or -ENOBUFS when the budget is spent: the peer broke the
 * protocol.
 */
int encd_early_charge(struct encd_msg *e, struct encd_link *l, char *why, size_t why_len)
{
	if (l->early_n >= ENCD_EARLY_MAX || l->early_bytes + e->len > ENCD_EARLY_BYTES) {
		scnprintf(why, why_len, "it sent more than %u messages nobody asked for",
			  ENCD_EARLY_MAX);
		return -ENOBUFS;
	}
	e->charged = l;
	l->early_n++;
	l->early_bytes += e->len;
	return 0;
}

/**
 * encd_early_uncharge() - gives a message's budget back to its link
 * @e: the message, charged or not
 */
void encd_early_uncharge(struct encd_msg *e)
{
	if (!e->charged)
		return;
	e->charged->early_n--;
	e->charged->early_bytes -= e->len;
	e->charged = NULL;
}

/**
 * encd_early_store() - keeps a message until its node starts
 * @r: the rank it is for; the caller holds its host's lock
 * @from: the link it came on, whose budget it takes; NULL: from this host
 * @type: ENCD_WIRE_SIG, _UID, _RING or _BARRIER
 * @src: the sender's global device id
 * @tag: the node's tag
 * @attempt: the bootstrap's attempt (the barrier's epoch)
 * @body: the message
 * @len: its length
 * @why: out: what the peer did wrong, on error
 * @why_len: size of @why
 *
 * What nobody took within the world's timeout goes first. A local message
 * beyond the rank's own bound is dropped: a local sender is this kernel.
 *
 * Return: 0, -ENOMEM, or -ENOBUFS when the sender's budget is spent.
 */
int encd_early_store(struct encd_rank *r, struct encd_link *from, u8 type, u32 src, u32 tag,
		     u32 attempt, const void *body, u32 len, char *why, size_t why_len)
{
	struct encd_msg *e, *tmp;
	unsigned long now = jiffies;
	int err;

	lockdep_assert_held(&r->host->lock);
	/* What nobody took within the world's timeout is nobody's. */
	list_for_each_entry_safe(e, tmp, &r->early, node) {
		if (time_before(now, e->expires))
			break;
		encd_early_drop(r, e);
	}
	if (!from && r->n_early >= LOCAL_EARLY_MAX) {
		net_dbg_ratelimited("rank %u: dropping a local message nobody asked for\n",
				    r->id);
		return 0;
	}
	e = encd_msg_new(type, src, r->id, tag, attempt, body, len);
	if (!e)
		return -ENOMEM;
	if (from) {
		err = encd_early_charge(e, from, why, why_len);
		if (err) {
			kfree(e);
			return err;
		}
	}
	e->expires = now + msecs_to_jiffies(r->timeout_ms);
	list_add_tail(&e->node, &r->early);
	r->n_early++;
	return 0;
}

/**
 * encd_early_drop() - frees an early message and gives its budget back
 * @r: its rank; the caller holds the host's lock
 * @e: the message
 */
void encd_early_drop(struct encd_rank *r, struct encd_msg *e)
{
	lockdep_assert_held(&r->host->lock);
	list_del(&e->node);
	r->n_early--;
	encd_early_uncharge(e);
	memzero_explicit(e->body, sizeof(e->body));
	kfree(e);
}
