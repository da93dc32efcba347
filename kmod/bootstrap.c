// SPDX-License-Identifier: GPL-2.0
/*
 * The bootstrap protocol: libnrt's get_nccl_comm over the in-kernel
 * transport. world.c calls it for the world's own replica group and for
 * every replica group of a loaded program.
 *
 * get_nccl_comm, on a pool miss: bootstrap rank 0 makes the unique id;
 * signatures are AND-reduced up the binary tree in 17-byte messages (only
 * when the world checks signatures); the id and the root's verdict go down
 * the hypercube in 129-byte messages, so no rank goes on before it knows the
 * global verdict; a false one fails every rank with "mismatched collectives
 * between the peers". Then each rank proves the id to its ring neighbours and
 * the group's ranks on this host meet at the local barrier.
 *
 * Locking: called under the core's setup mutex (see encd_private.h).
 */
#include <crypto/algapi.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <net/net_namespace.h>

#include "barrier.h"
#include "bootstrap.h"
#include "encd_private.h"
#include "schedule.h"

/* The unique id, big-endian, ENCD_UID_LEN bytes. */
struct encd_uid {
	__be64 magic;
	struct encd_wire_addr root;
	__be32 rank_n;
	__be32 root_g_device_id;
	__be32 stream_id;
	__be32 key_hash;
	__be64 world_token;
	u8 __reserved[ENCD_UID_LEN - 52];
} __packed;
static_assert(sizeof(struct encd_uid) == ENCD_UID_LEN);

/* The signature validation message: 17 bytes. */
struct encd_sig_msg {
	u8 sig[ENCD_SIG_LEN];
	u8 ok;
} __packed;
static_assert(sizeof(struct encd_sig_msg) == 17);

static void make_uid(struct encd_world *w, struct encd_node *node)
{
	struct encd_uid *uid = (struct encd_uid *)node->uid;

	memset(uid, 0, sizeof(*uid));
	do {
		node->uid_magic = get_random_u64();
	} while (!node->uid_magic);
	uid->magic = cpu_to_be64(node->uid_magic);
	encd_addr_to_wire(&w->x.peer_addr[node->key[0]], &uid->root);
	uid->rank_n = htonl(node->rank_n);
	uid->root_g_device_id = htonl(node->key[0]);
	uid->stream_id = htonl(node->stream_id);
	uid->key_hash = htonl(node->hash);
	uid->world_token = cpu_to_be64(w->x.token);
}

static bool uid_is_ours(struct encd_world *w, struct encd_node *node)
{
	struct encd_uid *uid = (struct encd_uid *)node->uid;

	node->uid_magic = be64_to_cpu(uid->magic);
	return node->uid_magic && ntohl(uid->rank_n) == node->rank_n &&
	       ntohl(uid->key_hash) == node->hash && ntohl(uid->stream_id) == node->stream_id &&
	       be64_to_cpu(uid->world_token) == w->x.token;
}

static void record_mismatch(struct encd_world *w, struct encd_node *node, u32 child,
			    const u8 *mine, const u8 *theirs)
{
	struct encd_mismatch_rec *m = &w->mismatch;

	m->valid = true;
	m->group_id = node->group_id;
	m->child_rank = child;
	m->child_g_device_id = node->key[child];
	memcpy(m->local_sig, mine, ENCD_SIG_LEN);
	memcpy(m->child_sig, theirs, ENCD_SIG_LEN);
	node->mismatch_seen = true;
	pr_info("rank %u: group %d: bootstrap rank %u (global device %u) has signature %*phN, this rank %*phN\n",
		w->x.rank, (int)node->group_id, child, node->key[child], ENCD_SIG_LEN, theirs,
		ENCD_SIG_LEN, mine);
}

/* The binary-tree AND-reduce; returns this subtree's verdict in *@match. */
static int validate_signature(struct encd_world *w, struct encd_node *node, const u8 *sig,
			      bool *match)
{
	struct encd_sig_msg m;
	unsigned int i;
	int err;

	*match = true;
	for (i = 0; i < 2; i++) {
		u32 c = encd_tree_child(node->rank, node->rank_n, i);

		if (c == node->rank_n)
			continue;
		err = encd_xport_recv(&w->x, node->key[c], ENCD_WIRE_SIG, node->hash, &m, sizeof(m),
				     &node->stats);
		if (err)
			return err;
		/*
		 * A child whose own signature differs is named here; one that
		 * only reports a disagreement below it was named by its own
		 * rank, one level down.
		 */
		if (memcmp(m.sig, sig, ENCD_SIG_LEN)) {
			if (!node->mismatch_seen)
				record_mismatch(w, node, c, sig, m.sig);
			*match = false;
		}
		if (!m.ok)
			*match = false;
	}
	if (!node->rank)
		return 0;
	memcpy(m.sig, sig, ENCD_SIG_LEN);
	m.ok = *match;
	return encd_xport_send(&w->x, node->key[encd_tree_parent(node->rank)], ENCD_WIRE_SIG,
			      node->hash, &m, sizeof(m), &node->stats);
}

/* The hypercube fan-out of the unique id and the root's verdict. */
static int broadcast_uid(struct encd_world *w, struct encd_node *node, bool *valid)
{
	u8 msg[ENCD_UID_LEN + 1];
	u32 rank = node->rank, n = node->rank_n;
	u64 mask = encd_cube_mask(rank, n), step;
	int err;

	if (mask & rank) {
		err = encd_xport_recv(&w->x, node->key[rank & ~mask], ENCD_WIRE_UID, node->hash, msg,
				     sizeof(msg), &node->stats);
		if (err)
			return err;
		memcpy(node->uid, msg, ENCD_UID_LEN);
		if (!uid_is_ours(w, node))
			return encd_xport_fail(&w->x, -EPROTO,
					      "rank %u: the unique id from bootstrap rank %u is not this group's",
					      w->x.rank, (u32)(rank & ~mask));
	} else {
		memcpy(msg, node->uid, ENCD_UID_LEN);
		msg[ENCD_UID_LEN] = *valid;
	}
	for (step = mask >> 1; step; step >>= 1) {
		if (!encd_cube_send_ok(rank, n, step))
			continue;
		err = encd_xport_send(&w->x, node->key[rank + step], ENCD_WIRE_UID, node->hash, msg,
				     sizeof(msg), &node->stats);
		if (err)
			return err;
	}
	*valid = msg[ENCD_UID_LEN] == 1;
	return 0;
}

/* Comm init: both ring neighbours hold the same unique id. */
static int ring_prove(struct encd_world *w, struct encd_node *node)
{
	u32 n = node->rank_n, r = node->rank;
	u32 next = node->key[(r + 1) % n], prev = node->key[(r + n - 1) % n];
	u8 got[ENCD_UID_LEN];
	int err;

	if (n == 1)
		return 0;
	err = encd_xport_send(&w->x, next, ENCD_WIRE_RING, node->hash, node->uid, ENCD_UID_LEN,
			     &node->stats);
	if (!err)
		err = encd_xport_recv(&w->x, prev, ENCD_WIRE_RING, node->hash, got, ENCD_UID_LEN,
				     &node->stats);
	if (!err && crypto_memneq(got, node->uid, ENCD_UID_LEN))
		err = encd_xport_fail(&w->x, -EPROTO,
				     "rank %u: its ring neighbour (global device %u) holds another unique id",
				     w->x.rank, prev);
	memzero_explicit(got, sizeof(got));
	return err;
}

static int local_barrier(struct encd_world *w, struct encd_node *node)
{
	u32 i;
	int err = 0;

	node->local_n = 0;
	for (i = 0; i < node->rank_n; i++)
		if (!memcmp(w->peers[node->key[i]].host_id, encd_host_id, ENCD_HOST_ID_LEN))
			node->local_n++;
	node->lb = encd_lbarrier_get(node->uid, node->local_n, &err);
	if (!node->lb)
		return encd_xport_fail(&w->x, err,
				      "rank %u: failed to setup local barrier (%d local ranks)",
				      w->x.rank, node->local_n);
	err = encd_lbarrier_wait(node->lb, w->x.deadline);
	if (err)
		return encd_xport_fail(&w->x, err, "rank %u: local barrier: %s", w->x.rank,
				      err == -ETIMEDOUT ? "timed out" : "interrupted");
	return 0;
}

/* Starts phase @ph of @node's bootstrap, ending the one before. */
static void phase(struct encd_node *node, int ph, u32 state)
{
	u64 now = ktime_get_boottime_ns();

	if (ph > ENCD_PHASE_VALIDATE)
		node->phase_ns[ph - 1] = now - node->phase_start[ph - 1];
	if (ph < ENCD_PHASE_N) {
		node->phase_start[ph] = now;
		WRITE_ONCE(node->state, state);
	}
}

/* The event of a failed bootstrap, with who and what when it is known. */
static void notify_failure(struct encd_world *w, struct encd_node *node, int err, int ph)
{
	struct encd_mismatch_rec *m = &w->mismatch;
	struct encd_nl_error e = {
		.err = err,
		.msg = w->err,
		.phase = ph < ENCD_PHASE_N ? ph : -1,
		.peer_rank = -1,
		.peer_g_device_id = -1,
		.group_id = node->global ? -1 : (s32)node->group_id,
	};

	if (node->mismatch_seen) {
		e.peer_rank = m->child_rank;
		e.peer_g_device_id = m->child_g_device_id;
		e.local_sig = m->local_sig;
		e.peer_sig = m->child_sig;
	}
	encd_node_notify(node, err == -EBADE ? ENCD_NL_CMD_SIG_MISMATCH_NTF :
			ENCD_NL_CMD_WORLD_FAILED_NTF, &e);
}

struct encd_node *encd_get_nccl_comm(struct encd_world *w, const u32 *key, u32 rank_n,
				   u32 rank, u32 stream_id, u32 group_id, const u8 *signature,
				   bool *hit, int *errp)
{
	struct encd_pool *pool = &w->pools[stream_id];
	struct encd_node *node;
	bool match = true;
	int err, ph;

	lockdep_assert_held(encd_setup_mutex(w->g->nec_dev_id));
	*hit = false;
	node = encd_pool_find(pool, stream_id, key, rank_n);
	if (node) {
		node->hits++;
		*hit = true;
		return node;
	}

	node = encd_pool_add(pool, w, stream_id, key, rank_n);
	if (!node) {
		*errp = encd_xport_fail(&w->x, -ENOMEM, "failed to allocate a comm node");
		return NULL;
	}
	node->rank = rank;
	node->ctx_id = w->g->ctx_id;
	node->group_id = group_id;
	node->global = group_id == U32_MAX;
	if (!rank)
		make_uid(w, node);

	phase(node, ph = ENCD_PHASE_VALIDATE, ENCD_NODE_VALIDATING);
	if (w->g->check_sigs) {
		err = validate_signature(w, node, signature, &match);
		if (err)
			goto fail;
	}

	phase(node, ph = ENCD_PHASE_BROADCAST, ENCD_NODE_BROADCASTING);
	err = broadcast_uid(w, node, &match);
	if (err)
		goto fail;
	if (!match && node->mismatch_seen) {
		struct encd_mismatch_rec *m = &w->mismatch;

		err = encd_xport_fail(&w->x, -EBADE,
				     "[gid: %u] failed signature validation: mismatched collectives between the peers: bootstrap rank %u (global device %u): %*phN, this rank: %*phN",
				     w->x.rank, m->child_rank, m->child_g_device_id,
				     ENCD_SIG_LEN, m->child_sig, ENCD_SIG_LEN, m->local_sig);
		goto fail;
	}
	if (!match) {
		err = encd_xport_fail(&w->x, -EBADE,
				     "[gid: %u] failed signature validation: mismatched collectives between the peers",
				     w->x.rank);
		goto fail;
	}

	phase(node, ph = ENCD_PHASE_COMM_INIT, ENCD_NODE_CONNECTING);
	err = ring_prove(w, node);
	if (err)
		goto fail;

	phase(node, ph = ENCD_PHASE_LOCAL_BARRIER, ENCD_NODE_BARRIER);
	err = local_barrier(w, node);
	if (err)
		goto fail;
	phase(node, ENCD_PHASE_N, ENCD_NODE_READY);
	WRITE_ONCE(node->state, ENCD_NODE_READY);
	encd_node_notify(node, ENCD_NL_CMD_WORLD_FORMED_NTF, NULL);
	return node;

fail:
	node->phase_ns[ph] = ktime_get_boottime_ns() - node->phase_start[ph];
	WRITE_ONCE(node->state, ENCD_NODE_FAILED);
	notify_failure(w, node, err, ph);
	encd_node_put(node);
	*errp = err;
	return NULL;
}

