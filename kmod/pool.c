// SPDX-License-Identifier: GPL-2.0
/*
 * Comm pools: per (nec_dev, ctx, stream) hash tables of comm nodes keyed by
 * the byte image of bootstrap_participants, as libnrt's nccl_comm_pool.
 * The hash is jhash over the key (and the stream); a lookup compares full
 * keys. Replica groups with identical bootstrap participants share a node.
 *
 * Locking: every pool and node belongs to one world, and the world is only
 * used under its core's setup mutex (encd_setup_mutex()); so no lock here.
 */
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "barrier.h"
#include "bootstrap.h"
#include "encd_private.h"
#include "pool.h"

DEFINE_MUTEX(encd_pool_view_lock);

static u32 key_hash(u32 stream_id, const u32 *key, u32 n)
{
	return jhash2(key, n, stream_id);
}

void *encd_kvmemdup(const void *src, size_t len)
{
	void *p = kvmalloc(len, GFP_KERNEL);

	if (p)
		memcpy(p, src, len);
	return p;
}

void encd_pool_init(struct encd_pool *pool)
{
	hash_init(pool->table);
}

bool encd_pool_empty(struct encd_pool *pool)
{
	return hash_empty(pool->table);
}

struct encd_node *encd_pool_find(struct encd_pool *pool, u32 stream_id, const u32 *key, u32 n)
{
	u32 hash = key_hash(stream_id, key, n);
	struct encd_node *node;

	hash_for_each_possible(pool->table, node, hnode, hash) {
		if (node->hash == hash && node->rank_n == n &&
		    !memcmp(node->key, key, n * sizeof(*key)))
			return encd_node_get(node);
	}
	return NULL;
}

struct encd_node *encd_pool_add(struct encd_pool *pool, struct encd_world *w, u32 stream_id,
			      const u32 *key, u32 n)
{
	struct encd_node *node;

	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node)
		return NULL;
	node->key = encd_kvmemdup(key, n * sizeof(*key));
	if (!node->key) {
		kfree(node);
		return NULL;
	}
	kref_init(&node->ref);
	node->w = w;
	node->rank_n = n;
	node->stream_id = stream_id;
	node->hash = key_hash(stream_id, key, n);
	node->state = ENCD_NODE_PENDING;
	mutex_lock(&encd_pool_view_lock);
	hash_add(pool->table, &node->hnode, node->hash);
	mutex_unlock(&encd_pool_view_lock);
	return node;
}

struct encd_node *encd_node_get(struct encd_node *node)
{
	if (node)
		kref_get(&node->ref);
	return node;
}

static void node_release(struct kref *ref)
{
	struct encd_node *node = container_of(ref, struct encd_node, ref);

	if (node->state == ENCD_NODE_READY)
		encd_node_notify(node, ENCD_NL_CMD_NODE_DEL_NTF, NULL);
	mutex_lock(&encd_pool_view_lock);
	hash_del(&node->hnode);
	mutex_unlock(&encd_pool_view_lock);
	encd_lbarrier_put(node->lb);
	memzero_explicit(node->uid, sizeof(node->uid));
	kvfree(node->key);
	kfree(node);
}

void encd_node_put(struct encd_node *node)
{
	if (node)
		kref_put(&node->ref, node_release);
}

struct snapshot {
	struct encd_nl_node n;
	struct encd_nl_phase phases[ENCD_PHASE_N];
	struct encd_nl_counter counters[ENCD_COUNTERS_MAX];
};

static void snapshot(struct encd_node *node, struct snapshot *s)
{
	struct encd_world *w = node->w;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->n.nec_dev = w->g->nec_dev_id;
	s->n.ctx_id = w->g->ctx_id;
	s->n.stream_id = node->stream_id;
	s->n.gcomm_serial = w->g->serial;
	s->n.participants = node->key;
	s->n.rank = node->rank;
	s->n.rank_n = node->rank_n;
	s->n.refcnt = kref_read(&node->ref);
	s->n.state = READ_ONCE(node->state);
	s->n.global = node->global;
	s->n.groups = node->groups;
	s->n.phases = s->phases;
	if (node->global && w->rendezvous_ns) {
		s->phases[0].id = ENCD_PHASE_RENDEZVOUS;
		s->phases[0].start_ns = w->rendezvous_start;
		s->phases[0].duration_ns = w->rendezvous_ns;
		s->n.n_phases = 1;
	}
	for (i = ENCD_PHASE_VALIDATE; i < ENCD_PHASE_N; i++) {
		if (!node->phase_start[i])
			continue;
		s->phases[s->n.n_phases].id = i;
		s->phases[s->n.n_phases].start_ns = node->phase_start[i];
		s->phases[s->n.n_phases].duration_ns = node->phase_ns[i];
		s->n.n_phases++;
	}
	s->n.counters = s->counters;
	for (i = 0; i < node->stats.n && i < ENCD_COUNTERS_MAX; i++) {
		s->counters[i].type = encd_wire_type_uapi(node->stats.c[i].type);
		s->counters[i].size = node->stats.c[i].size;
		s->counters[i].tx = node->stats.c[i].tx;
		s->counters[i].rx = node->stats.c[i].rx;
	}
	s->n.n_counters = i;
}

void encd_node_notify(struct encd_node *node, u8 cmd, const struct encd_nl_error *e)
{
	struct snapshot *s = kmalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return;
	snapshot(node, s);
	s->n.error = e;
	encd_nl_notify_node(cmd, node->w->g->net, &s->n);
	kfree(s);
}

int encd_pool_walk(struct encd_gcomm *g, unsigned long *pos,
		  int (*fn)(void *arg, const struct encd_nl_node *node), void *arg)
{
	unsigned long idx = 0;
	struct encd_node *node;
	struct encd_world *w;
	struct snapshot *s;
	unsigned int i, bkt;
	int err = 0;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_lock(&encd_pool_view_lock);
	w = g->world;
	for (i = 0; w && i < ENCD_MAX_STREAM_N; i++) {
		hash_for_each(w->pools[i].table, bkt, node, hnode) {
			if (idx++ < *pos)
				continue;
			snapshot(node, s);
			err = fn(arg, &s->n);
			if (err)
				goto out;
			(*pos)++;
		}
	}
out:
	mutex_unlock(&encd_pool_view_lock);
	kfree(s);
	return err;
}
