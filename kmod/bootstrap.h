/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_BOOTSTRAP_H
#define _ENCD_BOOTSTRAP_H

#include <linux/types.h>
#include <linux/encd.h>

#include "encd_private.h"
#include "pool.h"
#include "rendezvous.h"
#include "transport.h"

struct encd_gcomm;
struct encd_file;
struct encd_ucmd;

/* What the rank that saw a differing child recorded. */
struct encd_mismatch_rec {
	bool valid;
	u32 group_id;		/* U32_MAX: the world's own group */
	u32 child_rank;		/* bootstrap rank */
	u32 child_g_device_id;
	u8 local_sig[ENCD_SIG_LEN];
	u8 child_sig[ENCD_SIG_LEN];
};

/*
 * One rank's membership of a formed world: its peer links, the peer table,
 * the comm pools of its core and context and the nodes its groups use. It
 * belongs to the global comm (encd_gcomm.world) and to the file that
 * formed it; it is used and torn down only under the core's setup mutex.
 */
struct encd_world {
	struct encd_gcomm *g;		/* counted */
	struct encd_file *owner;
	struct encd_xport x;
	struct encd_peer_info *peers;	/* by global device id */
	u32 timeout_ms;			/* given at setup: the default of its operations */
	struct encd_pool pools[ENCD_MAX_STREAM_N];
	struct encd_node *global_node;
	struct encd_node *groups[ENCD_MAX_COMM_N];
	bool bound[ENCD_MAX_COMM_N];	/* the group has ops: its op target */
	u64 rendezvous_start;		/* CLOCK_BOOTTIME */
	u64 rendezvous_ns;
	struct encd_mismatch_rec mismatch;
	char err[ENCD_MSG_MAX];
};

/* enum encd_msg_type of an enum encd_wire_type, 0 for the world's own. */
u32 encd_wire_type_uapi(u16 type);

/* The module parameter: the default deadline of a bootstrap operation. */
u32 encd_bootstrap_timeout_ms(void);

/*
 * get_nccl_comm (libnrt's section 5): the node of @key in the pool of
 * @stream_id, from the pool or bootstrapped: unique id by bootstrap rank 0,
 * signature validation up the binary tree (when the world checks
 * signatures), the id and the verdict down the hypercube, ring proof, local
 * barrier. Returns a counted reference, or NULL with *@err and w->err set.
 */
struct encd_node *encd_get_nccl_comm(struct encd_world *w, const u32 *key, u32 rank_n,
				   u32 rank, u32 stream_id, u32 group_id, const u8 *signature,
				   bool *hit, int *err);


/* This host's identity in peer tables: the same for every rank on it. */
extern u8 encd_host_id[ENCD_HOST_ID_LEN];

#endif /* _ENCD_BOOTSTRAP_H */
