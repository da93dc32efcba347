/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_POOL_H
#define _ENCD_POOL_H

#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/types.h>
#include <linux/encd.h>

#include "transport.h"

struct encd_gcomm;
struct encd_world;
struct encd_lbarrier;

/* The unique id: 128 bytes made by bootstrap rank 0; 129 on the wire. */
#define ENCD_UID_LEN	128

/*
 * A comm node (libnrt's enc_nccl_comm_node): one per distinct
 * bootstrap_participants in a (nec_dev, ctx, stream) pool, shared by every
 * replica group with that key. Nodes are only touched under the core's setup
 * mutex, which also guards the pools; the counted references are the pool's
 * users (the world's own group, replica groups), not lock-free readers.
 */
struct encd_node {
	struct kref ref;
	struct hlist_node hnode;
	struct encd_world *w;
	u32 *key;		/* bootstrap_participants: global device ids */
	u32 rank_n;
	u32 rank;		/* bootstrap rank */
	u32 hash;		/* of the key and stream: the node's message tag */
	u32 stream_id;
	u32 ctx_id;
	u32 group_id;		/* the group that made it; U32_MAX: the world's */
	u32 groups;		/* bit mask of the groups bound to it */
	bool global;
	bool mismatch_seen;	/* its validation recorded the world's mismatch */
	u32 state;		/* enum encd_node_state */
	u64 hits;		/* pool lookups that found it */
	u64 uid_magic;
	u8 uid[ENCD_UID_LEN];
	struct encd_lbarrier *lb;
	u32 local_n;		/* ranks of the group on this host */
	u32 barrier_epoch;
	/* By enum encd_phase; a node's own start at ENCD_PHASE_VALIDATE. */
	u64 phase_start[ENCD_PHASE_N];	/* CLOCK_BOOTTIME */
	u64 phase_ns[ENCD_PHASE_N];
	struct encd_msg_stats stats;
};

struct encd_pool {
	DECLARE_HASHTABLE(table, 6);
};

struct encd_nl_error;
struct encd_nl_node;

/*
 * Taken (inside the setup mutex) to change which nodes a pool holds and
 * which world a global comm has, so that netlink dumps can walk them
 * without waiting for a bootstrap that holds the setup mutex.
 */
extern struct mutex encd_pool_view_lock;

/* kvmalloc'ed copy of @len bytes (6.1 has no kvmemdup()). */
void *encd_kvmemdup(const void *src, size_t len);

void encd_pool_init(struct encd_pool *pool);
bool encd_pool_empty(struct encd_pool *pool);
/* A counted reference to the node keyed by @key, or NULL. */
struct encd_node *encd_pool_find(struct encd_pool *pool, u32 stream_id, const u32 *key, u32 n);
/* A new node (one reference) in @pool, not yet bootstrapped. */
struct encd_node *encd_pool_add(struct encd_pool *pool, struct encd_world *w, u32 stream_id,
			      const u32 *key, u32 n);
struct encd_node *encd_node_get(struct encd_node *node);
/* The last reference unlinks the node and closes what it holds. */
void encd_node_put(struct encd_node *node);

/* Multicasts a node event (ENCD_NL_CMD_*_NTF), with @e when it failed. */
void encd_node_notify(struct encd_node *node, u8 cmd, const struct encd_nl_error *e);

/*
 * Calls @fn with a snapshot of each node of the world on @g, from the
 * *@pos'th on, advancing *@pos past each; stops at @fn's first error. For
 * netlink dumps.
 */
int encd_pool_walk(struct encd_gcomm *g, unsigned long *pos,
		  int (*fn)(void *arg, const struct encd_nl_node *node), void *arg);

#endif /* _ENCD_POOL_H */
