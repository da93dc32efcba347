/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_GCOMM_H
#define _ENCD_GCOMM_H

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/encd.h>

struct encd_ucmd;
struct enc_world;
struct net;
struct page;

/*
 * The global communicator of one (nec_dev, ctx_id): the seed's enc_glb_comm.
 * Its identity is written once, before it is published in the registry, and
 * never changes; readers need no lock for it.
 */
struct enc_glb_comm {
	struct kref ref;
	struct rcu_head rcu;

	u32 g_device_id;
	u32 g_device_cnt;
	u32 vtpb_idx;
	s32 nec_dev_id;
	s32 mla_idx;
	s32 host_device_id;
	s32 routing_id;
	u32 virtual_server_id;
	u32 pod_type;
	u32 pod_node_id;
	u32 pod_sz;
	u64 reservation_id;
	u32 ctx_id;
	bool check_sigs;
	char root_comm_id[ENCD_ROOT_COMM_ID_MAX];
	u64 serial;
	struct net *net;	/* the builder's, counted: netlink shows the comm there */
	u64 created_ns;		/* CLOCK_BOOTTIME */

	/* The semaphore-increment value buffer: one page, see sembuf.c. */
	struct page *sem_page;

	/*
	 * How many fds hold the comm. It only rises from non-zero without
	 * the init mutex; it falls, and the comm is unpublished at zero,
	 * under it.
	 */
	atomic_t holders;
	u32 state;		/* enum encd_gcomm_state, READ_ONCE */
	/* The world formed on it (bootstrap.c), under encd_setup_mutex() */
	struct enc_world *world;
};

/* What BUILD and VALIDATE are asked for. */
struct enc_gcomm_args {
	u32 vnc;
	u32 g_device_id;
	u32 g_device_cnt;
	u32 ctx_id;
	const char *root_comm_id;
	bool check_sigs;
};

/*
 * Both return 0 with *gp holding a new counted reference and one more holder
 * on the comm (*created says whether this call made it), or a negative errno
 * with the reason written to ucmd.
 */
int enc_init_global_comm(struct encd_ucmd *ucmd, const struct enc_gcomm_args *a,
			 struct enc_glb_comm **gp, bool *created);
int enc_validate_global_comm(struct encd_ucmd *ucmd, const struct enc_gcomm_args *a,
			     struct enc_glb_comm **gp, bool *created);

/* Drops one holder of the comm in a slot; the last one unpublishes it. */
void enc_glb_comm_unhold(u32 nec_dev, u32 ctx_id);

struct enc_glb_comm *enc_glb_comm_get(struct enc_glb_comm *g);
void enc_glb_comm_put(struct enc_glb_comm *g);

void enc_glb_comm_fill_header(struct enc_glb_comm *g, struct encd_glb_comm_header *h);

#endif /* _ENCD_GCOMM_H */
