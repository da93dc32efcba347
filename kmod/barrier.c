// SPDX-License-Identifier: GPL-2.0
/*
 * Barriers over a formed comm.
 *
 * The local barrier is one object per comm unique id on a host, shared by
 * the group's ranks on that host: they share this kernel, so a count and a
 * generation under the host's lock do what libnrt's shared-memory rings
 * did. The last rank to arrive completes it and moves every waiter on, the
 * bootstrap's own (which then finishes its node) and the ioctls'. A rank
 * that gives up (deadline, signal) takes its arrival back, so the barrier
 * stays usable; a rank that leaves breaks it: every waiter fails, and so
 * does every later arrival.
 *
 * The group barrier is a dissemination barrier over the comm: in round k
 * rank r signals r + 2^k and waits for r - 2^k (mod n), ceil(log2 n)
 * rounds. Its messages carry the barrier's epoch in place of an attempt,
 * and it moves on as messages arrive, like the bootstrap.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/slab.h>

#include "encd_private.h"
#include "schedule.h"

struct encd_lbarrier {
	struct hlist_node hnode;	/* in its host's table, by unique id */
	struct list_head nodes;		/* the nodes that use it */
	u8 uid[ENCD_UID_LEN];
	u32 n;				/* the group's ranks on this host */
	u32 arrived;
	u64 gen;			/* completions so far */
};

static u32 uid_hash(const u8 *uid)
{
	return jhash(uid, ENCD_UID_LEN, 0);
}

/**
 * encd_lbarrier_join() - a node takes its comm's local barrier
 * @h: the node's host; the caller holds its lock
 * @node: the node, whose unique id and local_n are known
 *
 * Return: 0, -ENOMEM, or -EINVAL when the local ranks disagree on how many
 * of them there are.
 */
int encd_lbarrier_join(struct encd_host *h, struct encd_node *node)
{
	u32 hash = uid_hash(node->uid);
	struct encd_lbarrier *lb;

	lockdep_assert_held(&h->lock);
	hash_for_each_possible(h->lbarriers, lb, hnode, hash) {
		if (memcmp(lb->uid, node->uid, ENCD_UID_LEN))
			continue;
		if (lb->n != node->local_n)
			return -EINVAL;
		goto found;
	}
	lb = kzalloc(sizeof(*lb), GFP_KERNEL_ACCOUNT);
	if (!lb)
		return -ENOMEM;
	memcpy(lb->uid, node->uid, ENCD_UID_LEN);
	lb->n = node->local_n;
	INIT_LIST_HEAD(&lb->nodes);
	hash_add(h->lbarriers, &lb->hnode, hash);
found:
	list_add_tail(&node->lb_node, &lb->nodes);
	node->lb = lb;
	return 0;
}

/**
 * encd_lbarrier_withdraw() - a waiting node takes its arrival back
 * @node: the node; the caller holds its host's lock
 *
 * Return: true when the barrier completed before it could (it counts).
 */
bool encd_lbarrier_withdraw(struct encd_node *node)
{
	struct encd_lbarrier *lb = node->lb;

	lockdep_assert_held(&node->rank->host->lock);
	if (!lb || !node->lb_waiting)
		return false;
	node->lb_waiting = false;
	if (lb->gen != node->lb_gen)
		return true;
	lb->arrived--;
	return false;
}

/**
 * encd_lbarrier_leave() - a node lets go of its local barrier
 * @node: the node; the caller holds its host's lock
 */
void encd_lbarrier_leave(struct encd_node *node)
{
	struct encd_lbarrier *lb = node->lb;
	struct encd_node *n;

	lockdep_assert_held(&node->rank->host->lock);
	if (!lb)
		return;
	encd_lbarrier_withdraw(node);
	list_del_init(&node->lb_node);
	node->lb = NULL;
	if (list_empty(&lb->nodes)) {
		hash_del(&lb->hnode);
		memzero_explicit(lb->uid, sizeof(lb->uid));
		kfree(lb);
		return;
	}
	/* It can never complete again: its waiters hear it now. */
	list_for_each_entry(n, &lb->nodes, lb_node) {
		WRITE_ONCE(n->lb_broken, true);
		if (n->lb_waiting)
			wake_up_all(&n->rank->wq);
	}
}

/**
 * encd_lbarrier_broken() - whether a rank of a node's local barrier left
 * @node: the node; read without its host's lock by a waiter (its own
 *	memory, which the wait keeps)
 *
 * Return: true when the barrier can never complete.
 */
bool encd_lbarrier_broken(struct encd_node *node)
{
	return READ_ONCE(node->lb_broken);
}

/**
 * encd_lbarrier_arrive() - a node arrives at its local barrier
 * @node: the node; the caller holds its host's lock
 *
 * The last arrival completes the barrier: every waiting node moves on
 * (encd_engine_lbarrier_done()).
 */
void encd_lbarrier_arrive(struct encd_node *node)
{
	struct encd_lbarrier *lb = node->lb;
	struct encd_node *n, *tmp;

	lockdep_assert_held(&node->rank->host->lock);
	if (WARN_ON_ONCE(!lb || node->lb_waiting))
		return;
	node->lb_gen = lb->gen;
	node->lb_waiting = true;
	if (++lb->arrived < lb->n)
		return;
	lb->arrived = 0;
	lb->gen++;
	list_for_each_entry_safe(n, tmp, &lb->nodes, lb_node) {
		if (!n->lb_waiting)
			continue;
		n->lb_waiting = false;
		encd_engine_lbarrier_done(n);
	}
}

/**
 * encd_lbarrier_counts() - how many have arrived, for sentences
 * @node: a node that holds a local barrier
 * @arrived: out: arrivals in the barrier's current round
 * @n: out: ranks it waits for
 */
void encd_lbarrier_counts(struct encd_node *node, u32 *arrived, u32 *n)
{
	*arrived = node->lb ? node->lb->arrived : 0;
	*n = node->lb ? node->lb->n : node->local_n;
}

/* The group barrier */

static void gbarrier_advance(struct encd_host *h, struct encd_node *node)
{
	struct encd_gbarrier *b = &node->bar;
	u32 rounds = encd_ceil_log2(node->rank_n), k;
	__be32 round;

	while (b->active) {
		k = b->round;
		if (k == rounds) {
			b->active = false;
			wake_up_all(&node->rank->wq);
			return;
		}
		if (!(b->sent & BIT_ULL(k))) {
			b->sent |= BIT_ULL(k);
			round = cpu_to_be32(k);
			encd_node_count(node, ENCD_WIRE_BARRIER, sizeof(round), true);
			encd_host_send(h, node->rank->id,
				       encd_node_member(node, encd_dissem_to(node->brank, node->rank_n, k)),
				       ENCD_WIRE_BARRIER, node->tag, b->epoch, &round, sizeof(round));
		}
		if (!(b->got & BIT_ULL(k)))
			return;
		b->round++;
	}
}

/**
 * encd_gbarrier_start() - a rank enters its comm's group barrier
 * @h: the node's host; the caller holds its lock
 * @node: the node, ready
 *
 * Messages of this barrier that came early are taken now.
 */
void encd_gbarrier_start(struct encd_host *h, struct encd_node *node)
{
	struct encd_gbarrier *b = &node->bar;

	lockdep_assert_held(&h->lock);
	b->epoch++;
	b->round = 0;
	b->sent = 0;
	b->got = 0;
	b->err = 0;
	b->active = true;
	encd_engine_take_early(h, node->rank, node, ENCD_WIRE_BARRIER, b->epoch);
	gbarrier_advance(h, node);
}

/**
 * encd_gbarrier_stop() - a rank gives up its group barrier
 * @node: the node; the caller holds its host's lock
 * @err: why, as a negative errno
 *
 * Messages of this epoch that arrive later are dropped.
 */
void encd_gbarrier_stop(struct encd_node *node, int err)
{
	lockdep_assert_held(&node->rank->host->lock);
	if (!node->bar.active)
		return;
	node->bar.active = false;
	node->bar.err = err;
	wake_up_all(&node->rank->wq);
}

/**
 * encd_node_completed() - the barriers of a formed comm a rank completed
 * @node: the rank's node; the caller holds its host's lock
 * @barriers: out: those it started, less one it is in or gave up
 *
 * Return: whether the node's comm formed; @barriers is 0 when not.
 */
bool encd_node_completed(struct encd_node *node, u32 *barriers)
{
	lockdep_assert_held(&node->rank->host->lock);
	*barriers = 0;
	if (node->state != ENCD_NODE_READY)
		return false;
	*barriers = encd_barriers_completed(node->bar.epoch, node->bar.active || node->bar.err);
	return true;
}

/**
 * encd_gbarrier_deliver() - a round's message of the current epoch
 * @h: the node's host; the caller holds its lock
 * @node: the node
 * @src: the sender's global device id
 * @body: the round, __be32
 * @why: out: what the sender did wrong
 * @why_len: size of @why
 *
 * Return: 0, or -EPROTO when the sender has no business sending it.
 */
int encd_gbarrier_deliver(struct encd_host *h, struct encd_node *node, u32 src, const void *body,
			  char *why, size_t why_len)
{
	struct encd_gbarrier *b = &node->bar;
	u32 k = be32_to_cpup(body);

	lockdep_assert_held(&h->lock);
	if (k >= encd_ceil_log2(node->rank_n) ||
	    src != encd_node_member(node, encd_dissem_from(node->brank, node->rank_n, k)) ||
	    (b->got & BIT_ULL(k))) {
		scnprintf(why, why_len, "global device %u sent a barrier round it does not owe", src);
		return -EPROTO;
	}
	b->got |= BIT_ULL(k);
	encd_node_count(node, ENCD_WIRE_BARRIER, ENCD_WIRE_BARRIER_LEN, false);
	gbarrier_advance(h, node);
	return 0;
}

/**
 * encd_gbarrier_awaited() - what a group barrier waits for, for sentences
 * @node: the node; the caller holds its host's lock
 * @buf: out: e.g. "round 2 from global device 5"
 * @size: its size
 */
void encd_gbarrier_awaited(struct encd_node *node, char *buf, size_t size)
{
	u32 k = node->bar.round;

	lockdep_assert_held(&node->rank->host->lock);
	scnprintf(buf, size, "barrier %u round %u from global device %u", node->bar.epoch, k,
		  encd_node_member(node, encd_dissem_from(node->brank, node->rank_n, k)));
}
