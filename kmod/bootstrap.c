// SPDX-License-Identifier: GPL-2.0
/*
 * The bootstrap protocol: libnrt's get_nccl_comm, as a state machine per
 * comm node that moves whenever a message for it arrives, in whatever
 * context delivers it. A rank's process starts its node and waits; the
 * module does the rest, so a signature folds into its parent's AND and a
 * unique id goes down the hypercube without waiting for any process to be
 * scheduled.
 *
 * A node's bootstrap, after a pool miss (Documentation/bootstrap.rst):
 *   VALIDATING	   (with check_sigs) the 17-byte signatures of its binary-tree
 *		   children come in, are compared with its own and ANDed, and
 *		   the result goes to its parent;
 *   BROADCASTING  the 129-byte unique id and the root's verdict come down
 *		   the hypercube and go on; bootstrap rank 0 made the id, and
 *		   only it knew the verdict, so no rank goes on before it knows
 *		   the world's: a false one fails every rank with "mismatched
 *		   collectives between the peers";
 *   CONNECTING	   the ring proof: each rank sends the id to its successor
 *		   and checks its predecessor's;
 *   BARRIER	   the group's ranks on this host meet at the local barrier;
 *   READY.
 *
 * Every message carries its node's tag and its bootstrap's attempt: the
 * attempt is how many of this rank's bootstraps of the node failed before,
 * so a retry never takes a message of an earlier one. A message for a node
 * or an attempt this rank has not started yet waits in the rank's early
 * list, within the sending host's budget (ENCD_EARLY_MAX), until the node
 * starts or the world's timeout passes; a message of an earlier attempt is
 * dropped.
 *
 * Locking: everything here runs under the node's host's lock.
 */
#include <crypto/algapi.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "encd_private.h"
#include "schedule.h"

/**
 * encd_node_count() - counts a message a node sent or received
 * @node: the node
 * @type: ENCD_WIRE_SIG, _UID, _RING or _BARRIER
 * @len: the message's size, without its route
 * @sent: sent, else received
 */
void encd_node_count(struct encd_node *node, u8 type, u32 len, bool sent)
{
	struct encd_msg_stats *st = &node->stats;
	struct encd_msg_tally *c;
	unsigned int i;

	for (i = 0; i < st->n; i++)
		if (st->c[i].type == type && st->c[i].size == len)
			break;
	if (i == st->n) {
		/* The bootstrap uses far fewer kinds than there is room for. */
		if (WARN_ON_ONCE(st->n == ENCD_COUNTERS_MAX))
			return;
		st->n++;
		st->c[i].type = type;
		st->c[i].size = len;
	}
	c = &st->c[i];
	if (sent)
		c->tx++;
	else
		c->rx++;
}

static int node_send(struct encd_host *h, struct encd_node *node, u32 to, u8 type,
		     const void *body, u32 len)
{
	encd_node_count(node, type, len, true);
	return encd_host_send(h, node->rank->id, encd_node_member(node, to), type, node->tag, node->attempt,
			      body, len);
}

/* Starts phase @ph of @node's bootstrap, ending the one before. */
static void phase(struct encd_node *node, int ph, u32 state)
{
	u64 now = ktime_get_boottime_ns();

	if (ph > ENCD_PHASE_VALIDATE)
		node->phase_ns[ph - 1] = now - node->phase_start[ph - 1];
	if (ph < ENCD_PHASE_N) {
		node->phase_start[ph] = now;
		node->ph = ph;
	}
	WRITE_ONCE(node->state, state);
}

static u32 attempts_of(struct encd_rank *r, u32 tag)
{
	void *v = xa_load(&r->attempts, tag);

	return v ? xa_to_value(v) : 0;
}

/* The event of a failed bootstrap, with who and what when it is known. */
static void notify_failure(struct encd_node *node)
{
	struct encd_mismatch_rec *m = &node->rank->mismatch;
	struct encd_nl_error e = {
		.err = node->why.err,
		.reason = node->why.reason,
		.msg = node->why.msg,
		.phase = node->ph,
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
	encd_node_notify(node, node->why.reason == ENCD_REASON_SIGNATURE_MISMATCH ?
			 ENCD_NL_CMD_SIG_MISMATCH_NTF : ENCD_NL_CMD_WORLD_FAILED_NTF, &e);
}

/*
 * A node's bootstrap failed: its rank hears why, the next attempt is a new
 * one. @names_comm: the sentence already says which comm failed to init.
 */
static __printf(5, 0) void node_vfail(struct encd_node *node, int err, u32 reason,
				      bool names_comm, const char *fmt, va_list args)
{
	struct encd_rank *r = node->rank;

	if (node->state == ENCD_NODE_READY || node->state == ENCD_NODE_FAILED)
		return;
	encd_why_set(&node->why, err, reason, fmt, args);
	node->msg_names_comm = names_comm;
	node->phase_ns[node->ph] = ktime_get_boottime_ns() - node->phase_start[node->ph];
	WRITE_ONCE(node->state, ENCD_NODE_FAILED);
	xa_store(&r->attempts, node->tag, xa_mk_value(node->attempt + 1), GFP_KERNEL);
	encd_lbarrier_leave(node);
	encd_node_unpool(node);
	notify_failure(node);
	if (node->global)
		encd_rank_fail(r, err, node->why.reason, "%s", node->why.msg);
	wake_up_all(&r->wq);
}

static __printf(4, 5) void node_fail(struct encd_node *node, int err, u32 reason,
				     const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	node_vfail(node, err, reason, false, fmt, args);
	va_end(args);
}

/* A failure of the comm's ring, in a sentence that names the comm, as libnrt's do. */
static __printf(4, 5) void ring_fail(struct encd_node *node, int err, u32 reason,
				     const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	node_vfail(node, err, reason, true, fmt, args);
	va_end(args);
}

static void node_ready(struct encd_node *node)
{
	struct encd_rank *r = node->rank;

	phase(node, ENCD_PHASE_N, ENCD_NODE_READY);
	encd_node_notify(node, ENCD_NL_CMD_WORLD_FORMED_NTF, NULL);
	if (node->global && r->state == ENCD_RANK_REGISTERED) {
		r->state = ENCD_RANK_FORMED;
		r->formed = true;
	}
	wake_up_all(&r->wq);
}

static void make_uid(struct encd_host *h, struct encd_node *node)
{
	struct encd_uid *uid = (struct encd_uid *)node->uid;

	memset(uid, 0, sizeof(*uid));
	do {
		node->uid_magic = get_random_u64();
	} while (!node->uid_magic);
	uid->magic = cpu_to_be64(node->uid_magic);
	uid->root = h->hosts[h->rank_host[encd_node_member(node, 0)]].addr;
	uid->rank_n = cpu_to_be32(node->rank_n);
	uid->root_g_device_id = cpu_to_be32(encd_node_member(node, 0));
	uid->stream_id = cpu_to_be32(node->stream_id);
	uid->key_hash = cpu_to_be32(node->tag);
	uid->world_token = cpu_to_be64(h->token);
}

static bool uid_is_ours(struct encd_host *h, struct encd_node *node, const u8 *buf)
{
	const struct encd_uid *uid = (const void *)buf;

	return uid->magic && be32_to_cpu(uid->rank_n) == node->rank_n &&
	       be32_to_cpu(uid->key_hash) == node->tag &&
	       be32_to_cpu(uid->stream_id) == node->stream_id &&
	       be64_to_cpu(uid->world_token) == h->token;
}

static void record_mismatch(struct encd_node *node, u32 child, const u8 *theirs)
{
	struct encd_mismatch_rec *m = &node->rank->mismatch;

	m->valid = true;
	m->group_id = node->group_id;
	m->child_rank = child;
	m->child_g_device_id = encd_node_member(node, child);
	memcpy(m->local_sig, node->sig, ENCD_SIG_LEN);
	memcpy(m->child_sig, theirs, ENCD_SIG_LEN);
	node->mismatch_seen = true;
	pr_info("rank %u: group %d: bootstrap rank %u (global device %u) has signature %*phN, this rank %*phN\n",
		node->rank->id, (int)node->group_id, child, encd_node_member(node, child), ENCD_SIG_LEN, theirs,
		ENCD_SIG_LEN, node->sig);
}

static void fail_mismatch(struct encd_node *node)
{
	struct encd_mismatch_rec *m = &node->rank->mismatch;

	if (node->mismatch_seen)
		node_fail(node, -EBADE, ENCD_REASON_SIGNATURE_MISMATCH,
			  "[gid: %u] failed signature validation: mismatched collectives between the peers: bootstrap rank %u (global device %u): %*phN, this rank: %*phN",
			  node->rank->id, m->child_rank, m->child_g_device_id, ENCD_SIG_LEN,
			  m->child_sig, ENCD_SIG_LEN, m->local_sig);
	else
		node_fail(node, -EBADE, ENCD_REASON_SIGNATURE_MISMATCH,
			  "[gid: %u] failed signature validation: mismatched collectives between the peers",
			  node->rank->id);
}

/* The hypercube: the id and the verdict go on to this rank's children. */
static void broadcast(struct encd_host *h, struct encd_node *node, const u8 *msg)
{
	u64 step;

	for (step = encd_cube_mask(node->brank, node->rank_n) >> 1; step; step >>= 1)
		if (encd_cube_send_ok(node->brank, node->rank_n, step))
			node_send(h, node, node->brank + (u32)step, ENCD_WIRE_UID, msg,
				  ENCD_WIRE_UID_LEN);
}

/* How many of the node's ranks are on this host: they share its local barrier. */
static u32 local_ranks(struct encd_host *h, struct encd_node *node)
{
	u32 i, n = 0;

	for (i = 0; i < node->rank_n; i++)
		n += h->rank_host[encd_node_member(node, i)] == h->index;
	return n;
}

/* Moves a node's bootstrap as far as what it has received lets it. */
static void node_advance(struct encd_host *h, struct encd_node *node)
{
	u8 msg[ENCD_WIRE_UID_LEN];
	struct encd_wire_sig sm;
	unsigned int i;
	u32 c;
	int err;

	for (;;) {
		switch (node->state) {
		case ENCD_NODE_VALIDATING:
			if (node->check) {
				for (i = 0; i < 2; i++) {
					c = encd_tree_child(node->brank, node->rank_n, i);
					if (c < node->rank_n && !(node->children_got & BIT(i)))
						return;
				}
				if (node->brank && !node->sig_sent) {
					node->sig_sent = true;
					memcpy(sm.sig, node->sig, ENCD_SIG_LEN);
					sm.ok = node->match;
					node_send(h, node, encd_tree_parent(node->brank),
						  ENCD_WIRE_SIG, &sm, sizeof(sm));
				}
			}
			phase(node, ENCD_PHASE_BROADCAST, ENCD_NODE_BROADCASTING);
			break;
		case ENCD_NODE_BROADCASTING:
			if (node->brank) {
				if (!node->uid_got)
					return;
				memcpy(msg, node->uid, ENCD_UID_LEN);
				msg[ENCD_UID_LEN] = node->valid;
			} else {
				memcpy(msg, node->uid, ENCD_UID_LEN);
				msg[ENCD_UID_LEN] = node->match;
				node->valid = node->match;
			}
			broadcast(h, node, msg);
			memzero_explicit(msg, sizeof(msg));
			if (!node->valid) {
				fail_mismatch(node);
				return;
			}
			phase(node, ENCD_PHASE_COMM_INIT, ENCD_NODE_CONNECTING);
			break;
		case ENCD_NODE_CONNECTING:
			if (node->rank_n > 1) {
				if (!node->ring_sent) {
					node->ring_sent = true;
					node_send(h, node, (node->brank + 1) % node->rank_n,
						  ENCD_WIRE_RING, node->uid, ENCD_UID_LEN);
				}
				if (!node->ring_got)
					return;
				if (crypto_memneq(node->ring_uid, node->uid, ENCD_UID_LEN)) {
					ring_fail(node, -EPROTO, ENCD_REASON_PROTOCOL,
						  "failed to init NCCL comm stream_id:%u group_id:%d: its ring predecessor (global device %u) holds another unique id",
						  node->stream_id, node->global ? -1 : (int)node->group_id,
						  encd_node_member(node, (node->brank + node->rank_n - 1) % node->rank_n));
					return;
				}
			}
			phase(node, ENCD_PHASE_LOCAL_BARRIER, ENCD_NODE_BARRIER);
			break;
		case ENCD_NODE_BARRIER:
			if (!node->lb) {
				node->local_n = local_ranks(h, node);
				err = encd_lbarrier_join(h, node);
				if (err) {
					node_fail(node, err, err == -ENOMEM ? ENCD_REASON_NO_MEMORY :
						  ENCD_REASON_WORLD_DIFFERS,
						  "failed to setup local barrier: %s (%u local ranks)",
						  err == -ENOMEM ? "out of memory" :
						  "the group's ranks on this host disagree on their number",
						  node->local_n);
					return;
				}
			}
			if (!node->lb_arrived) {
				node->lb_arrived = true;
				encd_lbarrier_arrive(node);
				continue;
			}
			if (node->lb_waiting)
				return;
			node_ready(node);
			return;
		default:
			return;
		}
	}
}

/**
 * encd_engine_lbarrier_done() - a node's local barrier completed
 * @node: a node that was waiting at it; the caller holds its host's lock
 */
void encd_engine_lbarrier_done(struct encd_node *node)
{
	lockdep_assert_held(&node->rank->host->lock);
	if (node->state == ENCD_NODE_BARRIER)
		node_advance(node->rank->host, node);
	wake_up_all(&node->rank->wq);
}

/* A bootstrap message for a node in its current attempt. */
static int node_deliver(struct encd_host *h, struct encd_node *node, u8 type, u32 src,
			const u8 *body, u32 len, char *why, size_t why_len)
{
	const struct encd_wire_sig *sm;
	unsigned int i;
	u32 c;

	switch (type) {
	case ENCD_WIRE_SIG:
		for (i = 0; i < 2 && node->check; i++) {
			c = encd_tree_child(node->brank, node->rank_n, i);
			if (c < node->rank_n && encd_node_member(node, c) == src &&
			    !(node->children_got & BIT(i)))
				break;
		}
		if (!node->check || i == 2)
			goto stray;
		node->children_got |= BIT(i);
		sm = (const void *)body;
		/*
		 * A child whose own signature differs is named here; one that
		 * only reports a disagreement below it was named by its own
		 * rank, one level down.
		 */
		if (crypto_memneq(sm->sig, node->sig, ENCD_SIG_LEN)) {
			if (!node->mismatch_seen)
				record_mismatch(node, c, sm->sig);
			node->match = false;
		}
		if (sm->ok != 1)
			node->match = false;
		break;
	case ENCD_WIRE_UID:
		c = encd_cube_parent(node->brank, node->rank_n);
		if (c == ENCD_TREE_NO_PARENT || encd_node_member(node, c) != src || node->uid_got)
			goto stray;
		/*
		 * Its own group's id is all a faithful peer can send: one of
		 * another group or world is a lie, and fails the world naming
		 * the liar's host, as any message it does not owe.
		 */
		if (!uid_is_ours(h, node, body)) {
			scnprintf(why, why_len,
				  "global device %u sent bootstrap rank %u a unique id that is not this group's",
				  src, node->brank);
			return -EPROTO;
		}
		node->uid_got = true;
		memcpy(node->uid, body, ENCD_UID_LEN);
		node->valid = body[ENCD_UID_LEN] == 1;
		break;
	case ENCD_WIRE_RING:
		c = (node->brank + node->rank_n - 1) % node->rank_n;
		if (node->rank_n < 2 || encd_node_member(node, c) != src || node->ring_got)
			goto stray;
		node->ring_got = true;
		memcpy(node->ring_uid, body, ENCD_UID_LEN);
		break;
	default:
		goto stray;
	}
	encd_node_count(node, type, len, false);
	node_advance(h, node);
	return 0;
stray:
	scnprintf(why, why_len, "global device %u sent %s it does not owe bootstrap rank %u",
		  src, encd_wire_type_name(type), node->brank);
	return -EPROTO;
}

/**
 * encd_msg_new() - a message between ranks, to queue
 * @type: ENCD_WIRE_SIG, _UID, _RING or _BARRIER
 * @src: the sender's global device id
 * @dst: the receiver's
 * @tag: the node's tag
 * @attempt: the bootstrap's attempt (the barrier's epoch)
 * @body: the message
 * @len: its length, at most ENCD_WIRE_UID_LEN
 *
 * Return: the message, or NULL when out of memory.
 */
struct encd_msg *encd_msg_new(u8 type, u32 src, u32 dst, u32 tag, u32 attempt, const void *body,
			      u32 len)
{
	struct encd_msg *m;

	if (WARN_ON_ONCE(len > sizeof(m->body)))
		return NULL;
	m = kmalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return NULL;
	m->charged = NULL;
	m->type = type;
	m->src = src;
	m->dst = dst;
	m->tag = tag;
	m->attempt = attempt;
	m->len = len;
	memcpy(m->body, body, len);
	return m;
}

/**
 * encd_engine_deliver() - a message for a local rank
 * @h: the rank's host; the caller holds its lock
 * @r: the rank it is for
 * @from: the link it came on, or NULL from a rank of this host
 * @type: ENCD_WIRE_SIG, _UID, _RING or _BARRIER
 * @src: the sender's global device id
 * @tag: the node's tag
 * @attempt: its bootstrap's attempt (the barrier's epoch)
 * @body: the message, the right size for its type
 * @len: its length
 * @why: out: what the sender did wrong, on error
 * @why_len: size of @why
 *
 * Return: 0, or a negative errno when the sender broke the protocol (a
 * message it does not owe, or more of them than its budget).
 */
int encd_engine_deliver(struct encd_host *h, struct encd_rank *r, struct encd_link *from,
			u8 type, u32 src, u32 tag, u32 attempt, const void *body, u32 len,
			char *why, size_t why_len)
{
	struct encd_node *node = encd_node_by_tag(r, tag);
	int err;

	lockdep_assert_held(&h->lock);
	if (r->state == ENCD_RANK_FAILED || h->state == ENCD_HOST_FAILED)
		return 0;
	if (type == ENCD_WIRE_BARRIER) {
		if (node && node->state == ENCD_NODE_READY) {
			if (attempt == node->bar.epoch && node->bar.active) {
				err = encd_gbarrier_deliver(h, node, src, body, why, why_len);
				goto out;
			}
			if (attempt <= node->bar.epoch)
				return 0;
		}
	} else if (node && node->state != ENCD_NODE_PENDING) {
		if (attempt == node->attempt) {
			err = node_deliver(h, node, type, src, body, len, why, why_len);
			goto out;
		}
		if (attempt < node->attempt)
			return 0;
	} else if (attempt < attempts_of(r, tag)) {
		return 0;
	}
	err = encd_early_store(r, from, type, src, tag, attempt, body, len, why, why_len);
out:
	/* A rank of this host: only a bug of ours can get here. */
	WARN_ONCE(err == -EPROTO && !from, "encd: rank %u: %s\n", r->id, why);
	return err;
}

/**
 * encd_engine_take_early() - a node (or its barrier) started: its messages
 * @h: the host; the caller holds its lock
 * @r: the node's rank
 * @node: the node
 * @type: ENCD_WIRE_BARRIER for the barrier's, 0 for the bootstrap's
 * @attempt: the attempt (epoch) that started
 *
 * A message that turns out to be one its sender did not owe fails that
 * sender's link now.
 */
void encd_engine_take_early(struct encd_host *h, struct encd_rank *r, struct encd_node *node,
			    u8 type, u32 attempt)
{
	struct encd_msg *e, *tmp, *x;
	struct encd_link *l;
	char why[ENCD_MSG_MAX];
	LIST_HEAD(mine);
	int err;

	lockdep_assert_held(&h->lock);
	list_for_each_entry_safe(e, tmp, &r->early, node)
		if (e->tag == node->tag && e->attempt == attempt &&
		    (type == ENCD_WIRE_BARRIER) == (e->type == ENCD_WIRE_BARRIER))
			list_move_tail(&e->node, &mine);
	list_for_each_entry_safe(e, tmp, &mine, node) {
		if (type == ENCD_WIRE_BARRIER)
			err = node->bar.active ?
			      encd_gbarrier_deliver(h, node, e->src, e->body, why, sizeof(why)) : 0;
		else
			err = node_deliver(h, node, e->type, e->src, e->body, e->len, why,
					   sizeof(why));
		l = e->charged;
		if (err && l) {
			/*
			 * Its link goes, and is freed behind our back: what of
			 * its budget is on this list (off the rank's, which
			 * encd_link_close() clears) is given back first.
			 */
			list_for_each_entry(x, &mine, node)
				if (x->charged == l)
					encd_early_uncharge(x);
			encd_host_violation(h, l, why);
		}
		encd_early_drop(r, e);
	}
}

/**
 * encd_engine_node_start() - starts a node's bootstrap
 * @h: the node's host; the caller holds its lock
 * @node: a new node
 * @sig: this rank's signature of the node's group
 * @check: whether the world validates signatures
 */
void encd_engine_node_start(struct encd_host *h, struct encd_node *node, const u8 *sig,
			    bool check)
{
	struct encd_rank *r = node->rank;

	lockdep_assert_held(&h->lock);
	node->attempt = attempts_of(r, node->tag);
	node->check = check;
	node->match = true;
	memcpy(node->sig, sig, ENCD_SIG_LEN);
	if (!node->brank)
		make_uid(h, node);
	phase(node, ENCD_PHASE_VALIDATE, ENCD_NODE_VALIDATING);
	if (h->state == ENCD_HOST_FAILED) {
		node_fail(node, h->failure.err, h->failure.reason, "%s", h->failure.msg);
		return;
	}
	encd_engine_take_early(h, r, node, 0, node->attempt);
	node_advance(h, node);
	encd_engine_check_departed(h, node);
}

/**
 * encd_engine_world_start() - the table is here: a rank's world node starts
 * @r: the rank; the caller holds its host's lock
 *
 * The world's own replica group is every rank in order; its signature is
 * the empty one (all ranks agree on it by construction).
 */
void encd_engine_world_start(struct encd_rank *r)
{
	static const u8 zero_sig[ENCD_SIG_LEN];
	struct encd_host *h = r->host;
	struct encd_node *node;

	lockdep_assert_held(&h->lock);
	if (r->state != ENCD_RANK_REGISTERED || r->global_node)
		return;
	r->rendezvous_ns = ktime_get_boottime_ns() - r->rendezvous_start;
	/* Its participants are every rank in order: no key (encd_node_member()). */
	node = encd_node_alloc(r, 0, NULL, h->wk.world_size, r->id, ENCD_GROUP_GLOBAL);
	if (!node) {
		encd_rank_fail(r, -ENOMEM, ENCD_REASON_NO_MEMORY,
			       "rank %u: out of memory for the world's comm", r->id);
		return;
	}
	r->global_node = node;
	encd_engine_node_start(h, node, zero_sig, r->settings & ENCD_WIRE_CHECK_SIGS);
}

static int fail_in_progress(struct encd_node *node, void *arg)
{
	struct encd_host *h = node->rank->host;

	if (node->state != ENCD_NODE_READY && node->state != ENCD_NODE_FAILED &&
	    node->state != ENCD_NODE_PENDING)
		node_fail(node, h->failure.err, h->failure.reason, "%s", h->failure.msg);
	encd_gbarrier_stop(node, h->failure.err);
	return 0;
}

/**
 * encd_engine_world_failed() - the world failed: so does all a rank was doing
 * @r: the rank; the caller holds its host's lock
 */
void encd_engine_world_failed(struct encd_rank *r)
{
	struct encd_host *h = r->host;

	lockdep_assert_held(&h->lock);
	encd_pool_for_each(r, fail_in_progress, NULL);
	if (r->state == ENCD_RANK_JOINING || r->state == ENCD_RANK_REGISTERED)
		encd_rank_fail(r, h->failure.err, h->failure.reason, "%s", h->failure.msg);
	wake_up_all(&r->wq);
}

/*
 * Fails what @node waits for that a departure blocks (departure.c
 * decides): its comm still forming, or the barrier under way.
 */
static int depart_node(struct encd_node *node, void *arg)
{
	struct encd_host *h = node->rank->host;
	struct encd_why why;

	if (node->state >= ENCD_NODE_VALIDATING && node->state <= ENCD_NODE_BARRIER &&
	    encd_departure_blocker(h, node, ENCD_WAIT_FORMING, 0, &why))
		node_fail(node, why.err, why.reason, "%s", why.msg);
	if (node->bar.active &&
	    encd_departure_blocker(h, node, ENCD_WAIT_BARRIER, node->bar.epoch, &why))
		encd_gbarrier_stop(node, why.err);
	return 0;
}

/**
 * encd_engine_check_departed() - fails what of a node waits for a rank that left
 * @h: the node's host; the caller holds its lock
 * @node: the node
 *
 * Called when the node starts and when its barrier does (the messages that
 * came early taken first); encd_engine_departure() when news comes.
 */
void encd_engine_check_departed(struct encd_host *h, struct encd_node *node)
{
	lockdep_assert_held(&h->lock);
	depart_node(node, NULL);
}

/**
 * encd_engine_departure() - news of a departure: what it blocks fails
 * @r: a rank of this host; the caller holds its host's lock
 *
 * Its nodes ask departure.c; local barriers fail when a rank of theirs
 * leaves (encd_lbarrier_leave()).
 */
void encd_engine_departure(struct encd_rank *r)
{
	lockdep_assert_held(&r->host->lock);
	encd_pool_for_each(r, depart_node, NULL);
	wake_up_all(&r->wq);
}

static int rank_gone(struct encd_node *node, void *arg)
{
	if (node->state == ENCD_NODE_READY)
		encd_node_notify(node, ENCD_NL_CMD_NODE_DEL_NTF, NULL);
	encd_lbarrier_leave(node);
	encd_gbarrier_stop(node, -ECONNABORTED);
	encd_node_unpool(node);
	return 0;
}

/**
 * encd_engine_rank_gone() - a rank leaves its host: its nodes let go
 * @h: the host; the caller holds its lock
 * @r: the rank
 *
 * Its nodes leave the pools and the local barriers; its early messages go.
 */
void encd_engine_rank_gone(struct encd_host *h, struct encd_rank *r)
{
	struct encd_msg *e, *tmp;

	lockdep_assert_held(&h->lock);
	encd_pool_for_each(r, rank_gone, NULL);
	list_for_each_entry_safe(e, tmp, &r->early, node)
		encd_early_drop(r, e);
	xa_destroy(&r->attempts);
}

/**
 * encd_engine_link_gone() - a link goes: messages it brought early go too
 * @h: the host; the caller holds its lock
 * @l: the link, closing: nothing may point at it once it is freed
 */
void encd_engine_link_gone(struct encd_host *h, struct encd_link *l)
{
	struct encd_msg *e, *tmp;
	struct encd_rank *r;
	unsigned long id;

	lockdep_assert_held(&h->lock);
	if (!l->early_n)
		return;
	xa_for_each(&h->ranks, id, r)
		list_for_each_entry_safe(e, tmp, &r->early, node)
			if (e->charged == l)
				encd_early_drop(r, e);
	encd_host_drop_pre_table(h, l);
	WARN_ON_ONCE(l->early_n);
}

/**
 * encd_engine_awaited() - what a node's bootstrap waits for, in words
 * @node: the node; the caller holds its host's lock
 * @buf: out: a sentence that starts with libnrt's words where it has some
 * @size: its size
 */
void encd_engine_awaited(struct encd_node *node, char *buf, size_t size)
{
	u32 c, arrived, n;
	unsigned int i;

	lockdep_assert_held(&node->rank->host->lock);
	switch (node->state) {
	case ENCD_NODE_VALIDATING:
		for (i = 0; i < 2; i++) {
			c = encd_tree_child(node->brank, node->rank_n, i);
			if (c < node->rank_n && !(node->children_got & BIT(i)))
				break;
		}
		scnprintf(buf, size,
			  "failed to receive signature validation result from %u (bootstrap rank %u)",
			  i < 2 ? encd_node_member(node, c) : 0, i < 2 ? c : 0);
		return;
	case ENCD_NODE_BROADCASTING:
		c = encd_cube_parent(node->brank, node->rank_n);
		scnprintf(buf, size,
			  "failed to receive the unique id from %u (bootstrap rank %u)",
			  encd_node_member(node, c), c);
		return;
	case ENCD_NODE_CONNECTING:
		c = (node->brank + node->rank_n - 1) % node->rank_n;
		scnprintf(buf, size,
			  "failed to init NCCL comm stream_id:%u group_id:%d: no ring proof from its predecessor, global device %u",
			  node->stream_id, node->global ? -1 : (int)node->group_id, encd_node_member(node, c));
		return;
	case ENCD_NODE_BARRIER:
		encd_lbarrier_counts(node, &arrived, &n);
		scnprintf(buf, size,
			  "failed to setup local barrier: %u of the group's %u ranks on this host arrived",
			  arrived, n);
		return;
	default:
		scnprintf(buf, size, "%s", node->why.msg[0] ? node->why.msg : "nothing");
		return;
	}
}
