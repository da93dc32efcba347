// SPDX-License-Identifier: GPL-2.0
/*
 * Comm pools: per (rank, stream) hash tables of comm nodes keyed by the
 * byte image of bootstrap_participants, as libnrt's nccl_comm_pool. The
 * hash is jhash over the key and the stream; a lookup compares full keys.
 * Replica groups with identical bootstrap participants share a node.
 *
 * The world's own node is kept out of the pools (Documentation/
 * assumptions.rst): a replica group whose participants are the whole world
 * in order, on stream 0, gets a node of its own, whose bootstrap validates
 * the group's signature like any other.
 *
 * Locking: pools and nodes change under their host's lock; a node's
 * references are the pool's (until it fails or its rank goes), its groups'
 * and the world's, and those of the operations waiting on it.
 */
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "encd_private.h"

/**
 * encd_node_tag() - a node's tag: the hash of its key and stream
 * @stream_id: its stream
 * @key: its bootstrap_participants (the world's: NULL, every rank in order)
 * @n: their number
 * @global: the world's own node, which hashes apart from a group's
 *
 * Return: the tag its messages carry.
 */
u32 encd_node_tag(u32 stream_id, const u32 *key, u32 n, bool global)
{
	/* The world's participants are every rank in order: its size says them. */
	if (global)
		return jhash2(&n, 1, stream_id + 0x100);
	return jhash2(key, n, stream_id);
}

/**
 * encd_kvmemdup() - a kvmalloc()'ed copy (6.1 has no kvmemdup())
 * @src: what to copy
 * @len: its length
 *
 * Return: the copy, or NULL.
 */
void *encd_kvmemdup(const void *src, size_t len)
{
	void *p = kvmalloc(len, GFP_KERNEL_ACCOUNT);

	if (p)
		memcpy(p, src, len);
	return p;
}

/**
 * encd_pool_find() - the node a key has in a rank's pool
 * @r: the rank; the caller holds its host's lock
 * @stream_id: the pool's stream
 * @key: bootstrap_participants
 * @n: their number
 *
 * Return: a counted reference, or NULL.
 */
struct encd_node *encd_pool_find(struct encd_rank *r, u32 stream_id, const u32 *key, u32 n)
{
	u32 tag = encd_node_tag(stream_id, key, n, false);
	struct encd_node *node;

	lockdep_assert_held(&r->host->lock);
	hash_for_each_possible(r->pools[stream_id].table, node, hnode, tag) {
		if (node->tag == tag && node->rank_n == n && node->in_pool &&
		    !memcmp(node->key, key, n * sizeof(*key)))
			return encd_node_get(node);
	}
	return NULL;
}

/**
 * encd_node_by_tag() - the node of a rank that a message is for
 * @r: the rank; the caller holds its host's lock
 * @tag: the tag the message carries
 *
 * Return: the node (not counted), or NULL when the rank has none by now.
 */
struct encd_node *encd_node_by_tag(struct encd_rank *r, u32 tag)
{
	struct encd_node *node;
	unsigned int s;

	lockdep_assert_held(&r->host->lock);
	if (r->global_node && r->global_node->tag == tag)
		return r->global_node;
	for (s = 0; s < ENCD_MAX_STREAM_N; s++)
		hash_for_each_possible(r->pools[s].table, node, hnode, tag)
			if (node->tag == tag && node->in_pool)
				return node;
	return NULL;
}

/**
 * encd_node_alloc() - a new node, not yet bootstrapped
 * @r: its rank; the caller holds its host's lock
 * @stream_id: its stream
 * @key: bootstrap_participants
 * @n: their number
 * @brank: this rank's place among them
 * @group_id: the replica group it is made for, or ENCD_GROUP_GLOBAL
 *
 * A group's node goes into the rank's pool of @stream_id (which holds a
 * reference); the world's does not. The caller gets a reference.
 *
 * Return: the node, or NULL when out of memory.
 */
struct encd_node *encd_node_alloc(struct encd_rank *r, u32 stream_id, const u32 *key, u32 n,
				  u32 brank, u32 group_id)
{
	bool global = group_id == ENCD_GROUP_GLOBAL;
	struct encd_node *node;

	lockdep_assert_held(&r->host->lock);
	node = kzalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return NULL;
	node->key = global ? NULL : encd_kvmemdup(key, n * sizeof(*key));
	if (!global && !node->key) {
		kfree(node);
		return NULL;
	}
	kref_init(&node->ref);
	node->rank = r;
	node->rank_n = n;
	node->brank = brank;
	node->stream_id = stream_id;
	node->group_id = group_id;
	node->global = global;
	node->tag = encd_node_tag(stream_id, key, n, global);
	node->state = ENCD_NODE_PENDING;
	INIT_LIST_HEAD(&node->lb_node);
	if (!global) {
		node->in_pool = true;
		hash_add(r->pools[stream_id].table, &node->hnode, node->tag);
		encd_node_get(node);
	}
	return node;
}

/**
 * encd_node_get() - takes a reference to a node
 * @node: the node, or NULL
 *
 * Return: @node.
 */
struct encd_node *encd_node_get(struct encd_node *node)
{
	if (node)
		kref_get(&node->ref);
	return node;
}

static void node_release(struct kref *ref)
{
	struct encd_node *node = container_of(ref, struct encd_node, ref);

	WARN_ON(node->in_pool);
	WARN_ON(node->lb);
	memzero_explicit(node->uid, sizeof(node->uid));
	memzero_explicit(node->ring_uid, sizeof(node->ring_uid));
	kvfree(node->key);
	kfree(node);
}

/**
 * encd_node_put() - drops a reference to a node
 * @node: the node, or NULL
 *
 * The last one frees it; by then it is out of its pool and its local
 * barrier (encd_node_unpool(), encd_lbarrier_leave()).
 */
void encd_node_put(struct encd_node *node)
{
	if (node)
		kref_put(&node->ref, node_release);
}

/**
 * encd_node_users() - who uses a node: its groups, the world, waiters
 * @node: the node
 *
 * Return: its references but the pool's.
 */
u32 encd_node_users(struct encd_node *node)
{
	return kref_read(&node->ref) - node->in_pool;
}

/**
 * encd_node_unpool() - takes a node out of its rank's pool
 * @node: the node; the caller holds its host's lock
 *
 * A failed node goes, so that the next attempt makes a new one; every node
 * goes with its rank. Drops the pool's reference.
 */
void encd_node_unpool(struct encd_node *node)
{
	lockdep_assert_held(&node->rank->host->lock);
	if (!node->in_pool)
		return;
	node->in_pool = false;
	hash_del(&node->hnode);
	encd_node_put(node);
}

/**
 * encd_pool_init() - empty pools for a new rank
 * @r: the rank
 */
void encd_pool_init(struct encd_rank *r)
{
	unsigned int s;

	for (s = 0; s < ENCD_MAX_STREAM_N; s++)
		hash_init(r->pools[s].table);
}

/**
 * encd_pool_for_each() - calls @fn for each node of a rank, the world's first
 * @r: the rank; the caller holds its host's lock
 * @fn: the callback; stops the walk when it returns non-zero
 * @arg: for @fn
 *
 * Return: the first non-zero @fn returned, or 0.
 */
int encd_pool_for_each(struct encd_rank *r, int (*fn)(struct encd_node *node, void *arg),
		       void *arg)
{
	struct encd_node *node;
	struct hlist_node *tmp;
	unsigned int s, bkt;
	int err;

	lockdep_assert_held(&r->host->lock);
	if (r->global_node) {
		err = fn(r->global_node, arg);
		if (err)
			return err;
	}
	for (s = 0; s < ENCD_MAX_STREAM_N; s++) {
		hash_for_each_safe(r->pools[s].table, bkt, tmp, node, hnode) {
			err = fn(node, arg);
			if (err)
				return err;
		}
	}
	return 0;
}
