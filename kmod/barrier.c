// SPDX-License-Identifier: GPL-2.0
/*
 * Barriers over a formed comm.
 *
 * The local barrier is one object per comm unique id, shared by the ranks of
 * the group that run on this host: they share this kernel, so a counter and
 * a wait queue do what the original's shared-memory rings did. A rank that
 * gives up (deadline, signal) takes its arrival back, so the barrier stays
 * usable. The group barrier is a dissemination barrier over the world's peer
 * links: in round k rank r signals r + 2^k and waits for r - 2^k (mod n),
 * ceil(log2 n) rounds, all within the operation's deadline.
 *
 * Lock order: lb_lock (the table) before an object's lock.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "barrier.h"
#include "bootstrap.h"
#include "encd_private.h"
#include "schedule.h"

struct encd_lbarrier {
	struct kref ref;
	struct hlist_node hnode;
	u8 uid[ENCD_UID_LEN];
	u32 n;
	spinlock_t lock;	/* guards arrived and gen */
	u32 arrived;
	u64 gen;
	wait_queue_head_t wq;
};

static DEFINE_MUTEX(lb_lock);
static DEFINE_HASHTABLE(lb_table, 6);

struct encd_lbarrier *encd_lbarrier_get(const u8 *uid, u32 n, int *err)
{
	u32 hash = jhash(uid, ENCD_UID_LEN, 0);
	struct encd_lbarrier *lb;

	mutex_lock(&lb_lock);
	hash_for_each_possible(lb_table, lb, hnode, hash) {
		if (memcmp(lb->uid, uid, ENCD_UID_LEN))
			continue;
		if (lb->n != n) {
			*err = -EINVAL;
			lb = NULL;
		} else {
			kref_get(&lb->ref);
		}
		goto out;
	}
	lb = kzalloc(sizeof(*lb), GFP_KERNEL);
	if (!lb) {
		*err = -ENOMEM;
		goto out;
	}
	kref_init(&lb->ref);
	memcpy(lb->uid, uid, ENCD_UID_LEN);
	lb->n = n;
	spin_lock_init(&lb->lock);
	init_waitqueue_head(&lb->wq);
	hash_add(lb_table, &lb->hnode, hash);
out:
	mutex_unlock(&lb_lock);
	return lb;
}

static void lb_release(struct kref *ref)
{
	struct encd_lbarrier *lb = container_of(ref, struct encd_lbarrier, ref);

	/* kref_put_mutex() calls this with lb_lock held, for us to drop. */
	hash_del(&lb->hnode);
	mutex_unlock(&lb_lock);
	memzero_explicit(lb->uid, sizeof(lb->uid));
	kfree(lb);
}

void encd_lbarrier_put(struct encd_lbarrier *lb)
{
	if (lb)
		kref_put_mutex(&lb->ref, lb_release, &lb_lock);
}

int encd_lbarrier_wait(struct encd_lbarrier *lb, unsigned long deadline)
{
	long left, ret;
	u64 gen;

	spin_lock(&lb->lock);
	gen = lb->gen;
	if (++lb->arrived == lb->n) {
		lb->arrived = 0;
		lb->gen++;
		spin_unlock(&lb->lock);
		wake_up_all(&lb->wq);
		return 0;
	}
	spin_unlock(&lb->lock);

	left = (long)(deadline - jiffies);
	ret = left > 0 ? wait_event_interruptible_timeout(lb->wq, READ_ONCE(lb->gen) != gen, left)
		       : 0;
	if (ret > 0)
		return 0;

	spin_lock(&lb->lock);
	if (lb->gen != gen) {
		/* Everyone arrived just as we gave up: it counts. */
		spin_unlock(&lb->lock);
		return 0;
	}
	lb->arrived--;
	spin_unlock(&lb->lock);
	return ret < 0 ? -EINTR : -ETIMEDOUT;
}

int encd_group_barrier(struct encd_node *node)
{
	struct encd_xport *x = &node->w->x;
	u32 n = node->rank_n, r = node->rank, k, epoch;
	__be32 msg, got;
	int err;

	epoch = ++node->barrier_epoch;
	msg = htonl(epoch);
	for (k = 0; k < encd_ceil_log2(n); k++) {
		/* Tags differ per node, barrier and round; the payload double-checks. */
		u32 tag = node->hash + (epoch << 5) + k;

		err = encd_xport_send(x, node->key[encd_dissem_to(r, n, k)], ENCD_WIRE_BARRIER, tag,
				     &msg, sizeof(msg), &node->stats);
		if (err)
			return err;
		err = encd_xport_recv(x, node->key[encd_dissem_from(r, n, k)], ENCD_WIRE_BARRIER, tag,
				     &got, sizeof(got), &node->stats);
		if (err)
			return err;
		if (got != msg)
			return encd_xport_fail(x, -EPROTO,
					      "rank %u: barrier %u round %u: a peer is in barrier %u",
					      x->rank, epoch, k, ntohl(got));
	}
	return 0;
}

void encd_barrier_exit(void)
{
	WARN_ON(!hash_empty(lb_table));
}
