// SPDX-License-Identifier: GPL-2.0
/*
 * Comm pools: per (nec_dev, ctx, stream) hash tables of comm nodes keyed by
 * the byte image of bootstrap_participants, as the seed's nccl_comm_pool.
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
#include "pool.h"

static u32 key_hash(u32 stream_id, const u32 *key, u32 n)
{
	return jhash2(key, n, stream_id);
}

void *enc_kvmemdup(const void *src, size_t len)
{
	void *p = kvmalloc(len, GFP_KERNEL);

	if (p)
		memcpy(p, src, len);
	return p;
}

void enc_pool_init(struct enc_pool *pool)
{
	hash_init(pool->table);
}

bool enc_pool_empty(struct enc_pool *pool)
{
	return hash_empty(pool->table);
}

struct enc_node *enc_pool_find(struct enc_pool *pool, u32 stream_id, const u32 *key, u32 n)
{
	u32 hash = key_hash(stream_id, key, n);
	struct enc_node *node;

	hash_for_each_possible(pool->table, node, hnode, hash) {
		if (node->hash == hash && node->rank_n == n &&
		    !memcmp(node->key, key, n * sizeof(*key)))
			return enc_node_get(node);
	}
	return NULL;
}

struct enc_node *enc_pool_add(struct enc_pool *pool, struct enc_world *w, u32 stream_id,
			      const u32 *key, u32 n)
{
	struct enc_node *node;

	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node)
		return NULL;
	node->key = enc_kvmemdup(key, n * sizeof(*key));
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
	hash_add(pool->table, &node->hnode, node->hash);
	return node;
}

struct enc_node *enc_node_get(struct enc_node *node)
{
	if (node)
		kref_get(&node->ref);
	return node;
}

static void node_release(struct kref *ref)
{
	struct enc_node *node = container_of(ref, struct enc_node, ref);

	hash_del(&node->hnode);
	enc_lbarrier_put(node->lb);
	memzero_explicit(node->uid, sizeof(node->uid));
	kvfree(node->key);
	kfree(node);
}

void enc_node_put(struct enc_node *node)
{
	if (node)
		kref_put(&node->ref, node_release);
}
