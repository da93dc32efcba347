/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_BOOTSTRAP_H
#define _ENCD_BOOTSTRAP_H

#include <linux/types.h>
#include <linux/encd.h>

#include "cdev.h"
#include "pool.h"
#include "rendezvous.h"
#include "transport.h"

struct enc_glb_comm;
struct encd_file;
struct encd_ucmd;

/* What the rank that saw a differing child recorded. */
struct enc_mismatch {
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
 * belongs to the global comm (enc_glb_comm.world) and to the file that
 * formed it; it is used and torn down only under the core's setup mutex.
 */
struct enc_world {
	struct enc_glb_comm *g;		/* counted */
	struct encd_file *owner;
	struct enc_xport x;
	struct enc_peer_info *peers;	/* by global device id */
	u32 timeout_ms;			/* given at setup: the default of its operations */
	struct enc_pool pools[ENCD_MAX_STREAM_N];
	struct enc_node *global_node;
	struct enc_node *groups[ENCD_MAX_COMM_N];
	bool bound[ENCD_MAX_COMM_N];	/* the group has ops: its op target */
	u64 rendezvous_start;		/* CLOCK_BOOTTIME */
	u64 rendezvous_ns;
	struct enc_mismatch mismatch;
	char err[ENCD_MSG_MAX];
};

/* enum encd_msg_type of an enum enc_msg_type, 0 for the world's own. */
u32 enc_msg_type_uapi(u16 type);

/* The module parameter: the default deadline of a bootstrap operation. */
u32 enc_bootstrap_timeout_ms(void);

/*
 * get_nccl_comm (the seed's section 5): the node of @key in the pool of
 * @stream_id, from the pool or bootstrapped: unique id by bootstrap rank 0,
 * signature validation up the binary tree (when the world checks
 * signatures), the id and the verdict down the hypercube, ring proof, local
 * barrier. Returns a counted reference, or NULL with *@err and w->err set.
 */
struct enc_node *enc_get_nccl_comm(struct enc_world *w, const u32 *key, u32 rank_n,
				   u32 rank, u32 stream_id, u32 group_id, const u8 *signature,
				   bool *hit, int *err);

int enc_bootstrap_ioctl_setup(struct encd_ucmd *ucmd);
int enc_bootstrap_ioctl_init_groups(struct encd_ucmd *ucmd);
int enc_bootstrap_ioctl_barrier(struct encd_ucmd *ucmd);
int enc_bootstrap_ioctl_node_info(struct encd_ucmd *ucmd);

/* The file lets go of the comm in a slot: tear its world down if it formed it. */
void enc_bootstrap_release(struct encd_file *file, u32 nec_dev, u32 ctx_id);

int enc_bootstrap_init(void);
void enc_bootstrap_exit(void);

#endif /* _ENCD_BOOTSTRAP_H */
