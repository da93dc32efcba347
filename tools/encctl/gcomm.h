/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Global comms and their comm nodes as encctl reads them from the kernel,
 * and how `comm show` and `status` print them.
 */
#ifndef _ENCCTL_GCOMM_H
#define _ENCCTL_GCOMM_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/encd.h>

#include "nl.h"
#include "state.h"

struct encctl_node {
	uint32_t nec_dev, ctx, stream;
	uint64_t gcomm_serial;
	uint32_t *participants;		/* rank_n of them, or NULL */
	uint32_t n_participants;
	uint32_t rank, rank_n, refcnt, state, groups;
	bool global;
	struct encctl_phases phases;
	struct encctl_counters counters;
	struct encctl_error error;
};

struct encctl_gcomm {
	uint32_t nec_dev, ctx;
	uint64_t serial;
	uint32_t g_device_id, g_device_cnt, vtpb_idx;
	int32_t mla_idx, host_device_id, routing_id;
	uint32_t virtual_server_id, pod_type, pod_node_id, pod_sz;
	uint64_t reservation_id;
	char root_comm_id[ENCD_ROOT_COMM_ID_MAX];
	bool check_sigs;
	uint32_t holders, state, netns_ino;
	uint64_t created_ns;
	bool has_host_tx;		/* the comm's rank has a host agent */
	uint64_t host_tx_bytes;		/* what that host sent on its links */
	bool has_owner;			/* the kernel told us (root, or the owner) */
	uint32_t owner_uid;		/* who built it, and alone may use it */
	struct encctl_phases phases;
	struct encctl_error error;
	struct encctl_node *nodes;
	unsigned int n_nodes;
};

struct encctl_gcomms {
	struct encctl_gcomm *comms;
	unsigned int n;
};

/* Fill from a GCOMM_GET reply or a GCOMM_*_NTF event. */
void encctl_gcomm_parse(const struct nlmsghdr *nlh, struct encctl_gcomm *g);
/*
 * Fill from a node event, or from a node's first NODE_GET message (a node
 * of more than ENCD_PARTICIPANTS_PER_MSG participants takes several: then
 * there is room for all, and encctl_gcomms_read() adds the others). Free
 * with encctl_node_free().
 */
int encctl_node_parse(const struct nlmsghdr *nlh, struct encctl_node *n);
void encctl_node_free(struct encctl_node *n);

/*
 * Every global comm (or those of one core and/or context: -1 for any) with
 * its nodes, read as one consistent picture: dumps that the kernel marks
 * interrupted are read again. 0, or -1 after saying why.
 */
int encctl_gcomms_read(struct encctl_nl *nl, int nec_dev, int ctx, struct encctl_gcomms *out);
void encctl_gcomms_free(struct encctl_gcomms *comms);

/*
 * The whole comm, for `comm show` and `monitor` (nodes too when @nodes), as
 * a JSON object under @key (NULL in an array).
 */
void encctl_gcomm_print(const char *key, const struct encctl_gcomm *g, bool nodes);
/* The whole node, likewise; @indent starts its text lines. */
void encctl_node_print(const char *key, const struct encctl_node *n, const char *indent);

/*
 * host_tx_bytes for JSON (null without a host agent) and, when there is a
 * host agent, for text: @fmt with the count.
 */
void encctl_host_tx_print(const struct encctl_gcomm *g, const char *fmt);

/*
 * owner_uid for JSON (null when the kernel did not say: it tells only root
 * and the owner) and for text: @fmt with the uid, or with "-".
 */
void encctl_owner_print(const struct encctl_gcomm *g, const char *fmt);

/* Nanoseconds since @boottime_ns, CLOCK_BOOTTIME; 0 if that is the future. */
uint64_t encctl_age_ns(uint64_t boottime_ns);

/* The request attribute names the kernel's errors may blame. */
const char *encctl_gcomm_attr_name(uint16_t type);

#endif /* _ENCCTL_GCOMM_H */
