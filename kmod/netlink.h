/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "encd" generic netlink family (netlink.c): what other files call to
 * tell user space what happened. The protocol is in the uapi header and in
 * Documentation/netlink/specs/encd.yaml.
 */
#ifndef _ENCD_NETLINK_H
#define _ENCD_NETLINK_H

#include <linux/types.h>
#include <linux/encd.h>

struct enc_glb_comm;
struct net;
struct netlink_callback;
struct sk_buff;

/*
 * A global comm was built (ENCD_NL_CMD_GCOMM_ADD_NTF) or is being torn down
 * (ENCD_NL_CMD_GCOMM_DEL_NTF: call it before the comm is unpublished, while
 * @g is still whole). Process context; never fails the caller.
 */
void enc_nl_notify_gcomm(u8 cmd, struct enc_glb_comm *g);

/* One timed step (enum encd_phase); @duration_ns 0 while it runs. */
struct enc_nl_phase {
	u32 id;
	u64 start_ns;		/* CLOCK_BOOTTIME */
	u64 duration_ns;
};

/* Messages of one type and size a node sent and received. */
struct enc_nl_counter {
	u32 type;		/* enum encd_msg_type */
	u32 size;
	u64 tx;
	u64 rx;
};

/* Why a bootstrap failed; a field that does not apply is -1 (or NULL). */
struct enc_nl_error {
	int err;		/* the negative errno the callers got */
	const char *msg;
	s32 phase;		/* enum encd_phase */
	s32 peer_rank;
	s32 peer_g_device_id;
	s32 group_id;
	const u8 *local_sig;	/* ENCD_SIG_LEN bytes */
	const u8 *peer_sig;
};

/*
 * A consistent snapshot of one comm node, taken by its owner (pool.c) under
 * the node's lock, for a dump or an event. Arrays may be empty.
 */
struct enc_nl_node {
	u32 nec_dev;
	u32 ctx_id;
	u32 stream_id;
	u64 gcomm_serial;
	const u32 *participants;	/* rank_n global device ids: the key */
	u32 rank;
	u32 rank_n;
	u32 refcnt;
	u32 state;			/* enum encd_node_state */
	bool global;
	u32 groups;			/* bit mask of replica group ids */
	const struct enc_nl_phase *phases;
	unsigned int n_phases;
	const struct enc_nl_counter *counters;
	unsigned int n_counters;
	const struct enc_nl_error *error;	/* NULL: none */
};

/*
 * Puts one node into a NODE_GET dump (pool.c, from the hook in netlink.c):
 * 0, or -EMSGSIZE when this part of the dump is full and the node must be
 * put again in the next one.
 */
int enc_nl_dump_node(struct sk_buff *skb, struct netlink_callback *cb,
		     const struct enc_nl_node *node);

/*
 * A comm node formed (ENCD_NL_CMD_WORLD_FORMED_NTF), failed
 * (..._WORLD_FAILED_NTF), saw a signature mismatch (..._SIG_MISMATCH_NTF) or
 * went away (..._NODE_DEL_NTF), in network namespace @net (the global
 * comm's). Process context; never fails the caller.
 */
void enc_nl_notify_node(u8 cmd, struct net *net, const struct enc_nl_node *node);

int enc_netlink_init(void);
void enc_netlink_exit(void);

#endif /* _ENCD_NETLINK_H */
