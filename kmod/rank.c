// SPDX-License-Identifier: GPL-2.0
/*
 * A rank's lifetime: made on a global comm by SETUP (world.c), counted by
 * the comm, by the operations in progress and by whoever else holds it,
 * and freed with the last reference; and its failure, which the engine and
 * the host agent report (bootstrap.c, host.c, root.c) and its operations
 * wake to. The rank's fields are described with struct encd_rank.
 */
#include <linux/slab.h>

#include "encd_private.h"

/**
 * encd_rank_fail() - a rank's world failed for it
 * @r: the rank; the caller holds its host's lock, if it has one
 * @err: the negative errno its operations fail with
 * @reason: why, enum encd_reason
 * @fmt: the sentence
 *
 * The first failure is the one kept.
 *
 * Return: the errno of the failure kept.
 */
int encd_rank_fail(struct encd_rank *r, int err, u32 reason, const char *fmt, ...)
{
	va_list args;

	if (r->host)
		lockdep_assert_held(&r->host->lock);
	if (r->state != ENCD_RANK_FAILED) {
		va_start(args, fmt);
		encd_why_set(&r->why, err, reason, fmt, args);
		va_end(args);
		WRITE_ONCE(r->state, ENCD_RANK_FAILED);
		list_del_init(&r->unsent);
		wake_up_all(&r->wq);
	}
	return r->why.err;
}

static void rank_release(struct kref *ref)
{
	struct encd_rank *r = container_of(ref, struct encd_rank, ref);
	unsigned int i;

	for (i = 0; i < ENCD_MAX_COMM_N; i++)
		encd_node_put(r->groups[i]);
	encd_node_put(r->global_node);
	encd_host_put(r->host);
	encd_gcomm_put(r->g);
	mutex_destroy(&r->op_lock);
	kfree(r);
}

/**
 * encd_rank_put() - drops a reference to a rank
 * @r: the rank, or NULL
 */
void encd_rank_put(struct encd_rank *r)
{
	if (r)
		kref_put(&r->ref, rank_release);
}

/**
 * encd_gcomm_rank() - the rank set up on a comm
 * @g: the comm
 *
 * Return: the rank, counted (encd_rank_put() it), or NULL.
 */
struct encd_rank *encd_gcomm_rank(struct encd_gcomm *g)
{
	struct encd_rank *r;

	spin_lock(&g->rank_lock);
	r = g->rank;
	if (r)
		kref_get(&r->ref);
	spin_unlock(&g->rank_lock);
	return r;
}

/**
 * encd_rank_alloc() - a new rank on a comm, not yet registered anywhere
 * @g: the comm; the rank counts it
 * @owner: the file that sets the world up
 * @timeout_ms: the default deadline of its operations
 * @settings: ENCD_WIRE_CHECK_SIGS, ...
 *
 * Return: the rank, with one reference, or NULL.
 */
struct encd_rank *encd_rank_alloc(struct encd_gcomm *g, struct encd_file *owner,
				  u32 timeout_ms, u32 settings)
{
	struct encd_rank *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return NULL;
	kref_init(&r->ref);
	r->g = encd_gcomm_get(g);
	r->owner = owner;
	r->id = g->g_device_id;
	r->settings = settings;
	r->timeout_ms = timeout_ms;
	mutex_init(&r->op_lock);
	init_waitqueue_head(&r->wq);
	INIT_LIST_HEAD(&r->unsent);
	INIT_LIST_HEAD(&r->early);
	xa_init(&r->attempts);
	encd_pool_init(r);
	r->state = ENCD_RANK_JOINING;
	return r;
}

/* The world of @g's rank fails: the Neuron device of its core went away. */
static void gcomm_device_lost(struct encd_gcomm *g, u32 mla_idx)
{
	struct encd_rank *r = encd_gcomm_rank(g);
	struct encd_host *h;

	if (!r)
		return;
	/*
	 * A rank with no host agent yet has no world to fail; it makes one
	 * with the facts its comm was built with, as comms built before any
	 * change of the topology do.
	 */
	h = READ_ONCE(r->host);
	if (h) {
		mutex_lock(&h->lock);
		encd_host_fail_world(h, -ENODEV, ENCD_REASON_DEVICE_LOST, r->id, true,
				     "neuron%u, the Neuron device of core %d (rank %u), went away",
				     mla_idx, g->nec_dev_id, r->id);
		mutex_unlock(&h->lock);
	}
	encd_rank_put(r);
}

/**
 * encd_world_cores_gone() - fails the worlds of cores a topology sync took away
 * @gone: the cores, with the device each was on
 *
 * Every context of each core: a comm built there keeps its facts, but the
 * hardware under it is gone, and the world learns it from the sentence.
 */
void encd_world_cores_gone(const struct encd_topology_gone *gone)
{
	struct encd_gcomm *g;
	unsigned int vnc;
	u32 ctx;

	for_each_set_bit(vnc, gone->cores, ENCD_NEC_MAX_DEVICES) {
		for (ctx = 0; ctx < ENCD_MAX_CONTEXTS; ctx++) {
			g = encd_get_global_comm(vnc, ctx);
			if (!g)
				continue;
			gcomm_device_lost(g, gone->mla_idx[vnc]);
			encd_gcomm_put(g);
		}
	}
}
