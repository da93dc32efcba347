// SPDX-License-Identifier: GPL-2.0
/*
 * The "encd" generic netlink family: status, events and admin commands.
 *
 * The protocol is written down in Documentation/netlink/specs/encd.yaml and
 * in the uapi header; the policies below follow the spec, one per operation
 * (tools/netlink/spec-check.py compares them with it through nlctrl).
 *
 * Reading is open to everyone: what it shows is what the comms' own ranks
 * were told, never a unique id or a world secret. Changing the topology
 * needs GENL_ADMIN_PERM, CAP_NET_ADMIN in the initial user namespace, and
 * not GENL_UNS_ADMIN_PERM: the topology is the host's, shared by every
 * namespace, so being root in a container must not be enough.
 *
 * The family is netnsok. A global comm belongs to the network namespace
 * of the process that built it (its world's sockets live there), and only
 * requests and listeners in that namespace see it: one namespace's worlds
 * are none of another's business, the initial one's included (an operator
 * looks into a namespace with nsenter -n).
 *
 * Dumps keep a cursor (a registry slot and a position under it), never a
 * reference, between their parts: each part looks the comms up again, so a
 * comm torn down between parts is simply not there, and nothing is left to
 * release when a dump is abandoned (no .done). Every entry is built from one
 * counted reference to a comm whose identity does not change, so none is
 * torn; the registry's generation tells user space when the set changed
 * (NLM_F_DUMP_INTR).
 *
 * Events are sent by the code that changes a comm or a node, under the
 * lock that serialises those changes, so they leave in the order things
 * happened. A comm's last failure is kept in failure.c.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "encd_private.h"
#include "compat.h"

static struct genl_family encd_family;

enum encd_nl_mcgrp {
	ENCD_NLGRP_EVENTS,
};

static const struct genl_multicast_group encd_nl_mcgrps[] = {
	[ENCD_NLGRP_EVENTS] = { .name = ENCD_MCGRP_EVENTS },
};

/* The request policies, one per operation, as the spec has them. */
static const struct nla_policy encd_gcomm_get_nl_policy[ENCD_A_GCOMM_CTX + 1] = {
	[ENCD_A_GCOMM_NEC_DEV] = NLA_POLICY_MAX(NLA_U32, ENCD_NEC_MAX_DEVICES - 1),
	[ENCD_A_GCOMM_CTX] = NLA_POLICY_MAX(NLA_U32, ENCD_MAX_CONTEXTS - 1),
};

static const struct nla_policy encd_node_get_nl_policy[ENCD_A_NODE_STREAM + 1] = {
	[ENCD_A_NODE_NEC_DEV] = NLA_POLICY_MAX(NLA_U32, ENCD_NEC_MAX_DEVICES - 1),
	[ENCD_A_NODE_CTX] = NLA_POLICY_MAX(NLA_U32, ENCD_MAX_CONTEXTS - 1),
	[ENCD_A_NODE_STREAM] = NLA_POLICY_MAX(NLA_U32, ENCD_MAX_STREAM_N - 1),
};

static const struct nla_policy encd_topo_set_nl_policy[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE + 1] = {
	[ENCD_A_TOPO_POD_TYPE] = NLA_POLICY_MAX(NLA_U32, ENCD_POD_TYPE_INVALID),
	[ENCD_A_TOPO_POD_NODE_ID] = { .type = NLA_U32 },
	[ENCD_A_TOPO_POD_SZ] = { .type = NLA_U32 },
	[ENCD_A_TOPO_RESERVATION_ID] = { .type = NLA_U64 },
	[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE] = { .type = NLA_U32 },
};

/* Where a dump is, and what it was asked for; lives in cb->ctx. */
struct nl_dump_ctx {
	u32 slot;		/* registry slot: nec_dev * ENCD_MAX_CONTEXTS + ctx */
	s32 nec_dev;		/* the filters, -1 for any */
	s32 ctx_id;
	s32 stream;
	unsigned long pos;	/* the next node under the slot's comm */
};

static struct nl_dump_ctx *nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct nl_dump_ctx) > sizeof(cb->ctx));
	return (struct nl_dump_ctx *)cb->ctx;
}

static void nl_dump_filter(struct nl_dump_ctx *ctx, struct nlattr **attrs,
			   int nec_dev_attr, int ctx_attr, int stream_attr)
{
	ctx->nec_dev = attrs[nec_dev_attr] ? nla_get_u32(attrs[nec_dev_attr]) : -1;
	ctx->ctx_id = attrs[ctx_attr] ? nla_get_u32(attrs[ctx_attr]) : -1;
	ctx->stream = stream_attr && attrs[stream_attr] ? nla_get_u32(attrs[stream_attr]) : -1;
}

/*
 * A part of a dump is full: what is in it goes out, and the dump goes on
 * from the entry that did not fit. An entry that fits in no part at all
 * (an empty one) ends the dump with the error, rather than silently.
 */
static int nl_dump_stop(struct sk_buff *skb, int err)
{
	return skb->len ? skb->len : err;
}

static bool nl_visible(const struct net *net, const struct encd_gcomm *g)
{
	return net_eq(net, g->net);
}

/*
 * The first comm at or after ctx->slot that @net may see and the filter
 * lets through, with a reference; ctx->slot is left at it.
 */
static struct encd_gcomm *nl_dump_next_gcomm(struct net *net, struct nl_dump_ctx *ctx)
{
	struct encd_gcomm *g;
	u32 nec_dev, ctx_id;

	for (; ctx->slot < ENCD_SLOTS; ctx->slot++, ctx->pos = 0) {
		nec_dev = ctx->slot / ENCD_MAX_CONTEXTS;
		ctx_id = ctx->slot % ENCD_MAX_CONTEXTS;
		if ((ctx->nec_dev >= 0 && ctx->nec_dev != nec_dev) ||
		    (ctx->ctx_id >= 0 && ctx->ctx_id != ctx_id))
			continue;
		g = encd_get_global_comm(nec_dev, ctx_id);
		if (!g)
			continue;
		if (nl_visible(net, g))
			return g;
		encd_gcomm_put(g);
	}
	return NULL;
}

static int nl_put_phases(struct sk_buff *skb, int type, const struct encd_nl_phase *phases,
			 unsigned int n)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < n; i++) {
		nest = nla_nest_start(skb, type);
		if (!nest ||
		    nla_put_u32(skb, ENCD_A_PHASE_ID, phases[i].id) ||
		    nla_put_u64_64bit(skb, ENCD_A_PHASE_START, phases[i].start_ns,
				      ENCD_A_PHASE_PAD) ||
		    (phases[i].duration_ns &&
		     nla_put_u64_64bit(skb, ENCD_A_PHASE_DURATION, phases[i].duration_ns,
				       ENCD_A_PHASE_PAD)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int nl_put_counters(struct sk_buff *skb, const struct encd_nl_counter *counters,
			   unsigned int n)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < n; i++) {
		nest = nla_nest_start(skb, ENCD_A_NODE_COUNTER);
		if (!nest ||
		    nla_put_u32(skb, ENCD_A_COUNTER_TYPE, counters[i].type) ||
		    nla_put_u32(skb, ENCD_A_COUNTER_SIZE, counters[i].size) ||
		    nla_put_u64_64bit(skb, ENCD_A_COUNTER_TX, counters[i].tx, ENCD_A_COUNTER_PAD) ||
		    nla_put_u64_64bit(skb, ENCD_A_COUNTER_RX, counters[i].rx, ENCD_A_COUNTER_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* An optional field: -1 means the error has none. */
static int nl_put_opt_u32(struct sk_buff *skb, int type, s32 value)
{
	return value < 0 ? 0 : nla_put_u32(skb, type, value);
}

static int nl_put_error(struct sk_buff *skb, int type, const struct encd_nl_error *e)
{
	struct nlattr *nest;

	if (!e)
		return 0;
	nest = nla_nest_start(skb, type);
	if (!nest ||
	    nla_put_u32(skb, ENCD_A_ERROR_ERRNO, -e->err) ||
	    (e->msg && nla_put_string(skb, ENCD_A_ERROR_MSG, e->msg)) ||
	    nl_put_opt_u32(skb, ENCD_A_ERROR_PHASE, e->phase) ||
	    nl_put_opt_u32(skb, ENCD_A_ERROR_PEER_RANK, e->peer_rank) ||
	    nl_put_opt_u32(skb, ENCD_A_ERROR_PEER_G_DEVICE_ID, e->peer_g_device_id) ||
	    nl_put_opt_u32(skb, ENCD_A_ERROR_GROUP_ID, e->group_id) ||
	    (e->local_sig && nla_put(skb, ENCD_A_ERROR_LOCAL_SIG, ENCD_SIG_LEN, e->local_sig)) ||
	    (e->peer_sig && nla_put(skb, ENCD_A_ERROR_PEER_SIG, ENCD_SIG_LEN, e->peer_sig)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int nl_put_last_error(struct sk_buff *skb, const struct encd_gcomm *g)
{
	struct encd_failure rec;
	struct encd_nl_error e;

	if (!encd_failure_get(g, &rec))
		return 0;
	e = (struct encd_nl_error) {
		.err = rec.err,
		.msg = rec.msg,
		.phase = rec.phase,
		.peer_rank = rec.peer_rank,
		.peer_g_device_id = rec.peer_g_device_id,
		.group_id = rec.group_id,
		.local_sig = rec.has_local_sig ? rec.local_sig : NULL,
		.peer_sig = rec.has_peer_sig ? rec.peer_sig : NULL,
	};
	return nl_put_error(skb, ENCD_A_GCOMM_ERROR, &e);
}

static int nl_put_gcomm(struct sk_buff *skb, struct encd_gcomm *g)
{
	if (nla_put_u32(skb, ENCD_A_GCOMM_NEC_DEV, g->nec_dev_id) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_CTX, g->ctx_id) ||
	    nla_put_u64_64bit(skb, ENCD_A_GCOMM_SERIAL, g->serial, ENCD_A_GCOMM_PAD) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_G_DEVICE_ID, g->g_device_id) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_G_DEVICE_CNT, g->g_device_cnt) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_VTPB_IDX, g->vtpb_idx) ||
	    nla_put_s32(skb, ENCD_A_GCOMM_MLA_IDX, g->mla_idx) ||
	    nla_put_s32(skb, ENCD_A_GCOMM_HOST_DEVICE_ID, g->host_device_id) ||
	    nla_put_s32(skb, ENCD_A_GCOMM_ROUTING_ID, g->routing_id) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_VIRTUAL_SERVER_ID, g->virtual_server_id) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_POD_TYPE, g->pod_type) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_POD_NODE_ID, g->pod_node_id) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_POD_SZ, g->pod_sz) ||
	    nla_put_u64_64bit(skb, ENCD_A_GCOMM_RESERVATION_ID, g->reservation_id,
			      ENCD_A_GCOMM_PAD) ||
	    nla_put_string(skb, ENCD_A_GCOMM_ROOT_COMM_ID, g->root_comm_id) ||
	    (g->check_sigs && nla_put_flag(skb, ENCD_A_GCOMM_CHECK_SIGS)) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_HOLDERS, atomic_read(&g->holders)) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_STATE, READ_ONCE(g->state)) ||
	    nla_put_u64_64bit(skb, ENCD_A_GCOMM_CREATED, g->created_ns, ENCD_A_GCOMM_PAD) ||
	    nla_put_u32(skb, ENCD_A_GCOMM_NETNS_INO, g->net->ns.inum) ||
	    nl_put_last_error(skb, g))
		return -EMSGSIZE;
	return 0;
}

/* One message about @g; the caller ends or cancels nothing. */
static int nl_gcomm_msg(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd,
			struct encd_gcomm *g, struct netlink_callback *cb)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &encd_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nl_put_gcomm(skb, g)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int nl_gcomm_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct encd_gcomm *g;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, ENCD_A_GCOMM_NEC_DEV) ||
	    GENL_REQ_ATTR_CHECK(info, ENCD_A_GCOMM_CTX)) {
		NL_SET_ERR_MSG(info->extack, "both the core (nec-dev) and the context are needed");
		return -EINVAL;
	}

	g = encd_get_global_comm(nla_get_u32(info->attrs[ENCD_A_GCOMM_NEC_DEV]),
				 nla_get_u32(info->attrs[ENCD_A_GCOMM_CTX]));
	if (g && !nl_visible(genl_info_net(info), g)) {
		encd_gcomm_put(g);
		g = NULL;
	}
	if (!g) {
		NL_SET_ERR_MSG(info->extack, "no global comm on that core and context");
		return -ENOENT;
	}

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	err = nl_gcomm_msg(msg, info->snd_portid, info->snd_seq, 0, ENCD_NL_CMD_GCOMM_GET, g,
			   NULL);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = genlmsg_reply(msg, info);
out:
	encd_gcomm_put(g);
	return err;
}

static int nl_gcomm_get_start(struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);

	nl_dump_filter(ctx, encd_genl_dump_attrs(cb), ENCD_A_GCOMM_NEC_DEV, ENCD_A_GCOMM_CTX, 0);
	return 0;
}

static int nl_gcomm_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct encd_gcomm *g;
	int err;

	cb->seq = encd_registry_generation();
	while ((g = nl_dump_next_gcomm(net, ctx))) {
		err = nl_gcomm_msg(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				   NLM_F_MULTI, ENCD_NL_CMD_GCOMM_GET, g, cb);
		encd_gcomm_put(g);
		if (err)
			return nl_dump_stop(skb, err);
		ctx->slot++;
	}
	return skb->len;
}

static int nl_put_node(struct sk_buff *skb, const struct encd_nl_node *n, bool event)
{
	if (nla_put_u32(skb, ENCD_A_NODE_NEC_DEV, n->nec_dev) ||
	    nla_put_u32(skb, ENCD_A_NODE_CTX, n->ctx_id) ||
	    nla_put_u32(skb, ENCD_A_NODE_STREAM, n->stream_id) ||
	    nla_put_u64_64bit(skb, ENCD_A_NODE_GCOMM_SERIAL, n->gcomm_serial, ENCD_A_NODE_PAD) ||
	    (!event && nla_put(skb, ENCD_A_NODE_PARTICIPANTS,
			       n->rank_n * sizeof(*n->participants), n->participants)) ||
	    nla_put_u32(skb, ENCD_A_NODE_RANK, n->rank) ||
	    nla_put_u32(skb, ENCD_A_NODE_RANK_N, n->rank_n) ||
	    (!event && nla_put_u32(skb, ENCD_A_NODE_REFCNT, n->refcnt)) ||
	    nla_put_u32(skb, ENCD_A_NODE_STATE, n->state) ||
	    (n->global && nla_put_flag(skb, ENCD_A_NODE_GLOBAL)) ||
	    nla_put_u32(skb, ENCD_A_NODE_GROUPS, n->groups) ||
	    nl_put_phases(skb, ENCD_A_NODE_PHASE, n->phases, n->n_phases) ||
	    (!event && nl_put_counters(skb, n->counters, n->n_counters)) ||
	    nl_put_error(skb, ENCD_A_NODE_ERROR, n->error))
		return -EMSGSIZE;
	return 0;
}

/**
 * encd_nl_dump_node() - puts one node into a NODE_GET dump
 * @skb: the dump's message
 * @cb: the dump
 * @node: the node's snapshot
 *
 * Return: 0, or -EMSGSIZE when this part of the dump is full and the node
 * must be put again in the next one.
 */
int encd_nl_dump_node(struct sk_buff *skb, struct netlink_callback *cb,
		     const struct encd_nl_node *node)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	void *hdr;

	if (ctx->stream >= 0 && ctx->stream != node->stream_id)
		return 0;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, &encd_family,
			  NLM_F_MULTI, ENCD_NL_CMD_NODE_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nl_put_node(skb, node, false)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The comm nodes of @g from the *pos'th on: pool.c walks the pools of its
 * world and hands each node's snapshot to encd_nl_dump_node(), advancing
 * *pos past each node put and returning the first error.
 */
struct nl_walk {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

static int nl_walk_node(void *arg, const struct encd_nl_node *node)
{
	struct nl_walk *walk = arg;

	return encd_nl_dump_node(walk->skb, walk->cb, node);
}

static int nl_dump_gcomm_nodes(struct sk_buff *skb, struct netlink_callback *cb,
			       struct encd_gcomm *g, unsigned long *pos)
{
	struct nl_walk walk = { .skb = skb, .cb = cb };

	return encd_nodeview_walk(g, pos, nl_walk_node, &walk);
}

static int nl_node_get_start(struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);

	nl_dump_filter(ctx, encd_genl_dump_attrs(cb), ENCD_A_NODE_NEC_DEV, ENCD_A_NODE_CTX,
		       ENCD_A_NODE_STREAM);
	return 0;
}

static int nl_node_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct encd_gcomm *g;
	int err;

	cb->seq = encd_registry_generation();
	while ((g = nl_dump_next_gcomm(net, ctx))) {
		err = nl_dump_gcomm_nodes(skb, cb, g, &ctx->pos);
		encd_gcomm_put(g);
		if (err)
			return nl_dump_stop(skb, err);
		ctx->slot++;
		ctx->pos = 0;
	}
	return skb->len;
}

static int nl_topo_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct encd_host_topology host;
	struct sk_buff *msg;
	void *hdr;

	encd_topology_get_host(&host);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &encd_family, 0, ENCD_NL_CMD_TOPO_GET);
	if (!hdr ||
	    nla_put_u32(msg, ENCD_A_TOPO_NUM_VCORES, encd_topology_num_vcores()) ||
	    nla_put_u32(msg, ENCD_A_TOPO_POD_TYPE, host.pod_type) ||
	    nla_put_u32(msg, ENCD_A_TOPO_POD_NODE_ID, host.pod_node_id) ||
	    nla_put_u32(msg, ENCD_A_TOPO_POD_SZ, host.pod_sz) ||
	    nla_put_u64_64bit(msg, ENCD_A_TOPO_RESERVATION_ID, host.reservation_id,
			      ENCD_A_TOPO_PAD) ||
	    nla_put_u32(msg, ENCD_A_TOPO_VIRTUAL_SERVER_SIZE, host.virtual_server_size)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int nl_topo_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct encd_host_topology host = {};
	unsigned int which = 0;

	if (attrs[ENCD_A_TOPO_POD_TYPE]) {
		host.pod_type = nla_get_u32(attrs[ENCD_A_TOPO_POD_TYPE]);
		which |= ENCD_TOPO_POD_TYPE;
	}
	if (attrs[ENCD_A_TOPO_POD_NODE_ID]) {
		host.pod_node_id = nla_get_u32(attrs[ENCD_A_TOPO_POD_NODE_ID]);
		which |= ENCD_TOPO_POD_NODE_ID;
	}
	if (attrs[ENCD_A_TOPO_POD_SZ]) {
		host.pod_sz = nla_get_u32(attrs[ENCD_A_TOPO_POD_SZ]);
		which |= ENCD_TOPO_POD_SZ;
	}
	if (attrs[ENCD_A_TOPO_RESERVATION_ID]) {
		host.reservation_id = nla_get_u64(attrs[ENCD_A_TOPO_RESERVATION_ID]);
		which |= ENCD_TOPO_RESERVATION_ID;
	}
	if (attrs[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE]) {
		host.virtual_server_size = nla_get_u32(attrs[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE]);
		which |= ENCD_TOPO_VIRTUAL_SERVER_SIZE;
	}
	if (!which) {
		NL_SET_ERR_MSG(info->extack, "nothing to set: give at least one topology attribute");
		return -EINVAL;
	}
	encd_topology_set_host(&host, which);
	return 0;
}

static int nl_vcore_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct encd_vcore vc;
	u32 vnc;
	void *hdr;

	for (vnc = cb->args[0]; !encd_topology_get_vcore(vnc, &vc); vnc++) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				  &encd_family, NLM_F_MULTI, ENCD_NL_CMD_VCORE_GET);
		if (!hdr)
			break;
		if (nla_put_u32(skb, ENCD_A_VCORE_VNC, vc.vnc) ||
		    nla_put_u32(skb, ENCD_A_VCORE_NEC_DEV, vc.nec_dev_id) ||
		    nla_put_u32(skb, ENCD_A_VCORE_MLA_IDX, vc.mla_idx) ||
		    nla_put_u32(skb, ENCD_A_VCORE_HOST_DEVICE_ID, vc.host_device_id) ||
		    nla_put_u32(skb, ENCD_A_VCORE_ROUTING_ID, vc.routing_id) ||
		    nla_put_u32(skb, ENCD_A_VCORE_VTPB_IDX, vc.vtpb_idx)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = vnc;
	return skb->len;
}

/* Multicasts @skb to the listeners of @net, the comm's namespace. */
static void nl_multicast(struct sk_buff *skb, struct net *net)
{
	genlmsg_multicast_netns(&encd_family, net, skb, 0, ENCD_NLGRP_EVENTS, GFP_KERNEL);
}

static bool nl_has_listeners(struct net *net)
{
	return genl_has_listeners(&encd_family, net, ENCD_NLGRP_EVENTS);
}

/**
 * encd_nl_notify_gcomm() - multicasts a global comm event
 * @cmd: ENCD_NL_CMD_GCOMM_ADD_NTF, or ENCD_NL_CMD_GCOMM_DEL_NTF before the
 *	comm is unpublished, while it is still whole
 * @g: the comm
 *
 * Process context; never fails the caller.
 */
void encd_nl_notify_gcomm(u8 cmd, struct encd_gcomm *g)
{
	struct sk_buff *skb;

	if (!nl_has_listeners(g->net))
		return;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (nl_gcomm_msg(skb, 0, 0, 0, cmd, g, NULL)) {
		nlmsg_free(skb);
		return;
	}
	nl_multicast(skb, g->net);
}

/**
 * encd_nl_notify_node() - multicasts a comm node event
 * @cmd: ENCD_NL_CMD_WORLD_FORMED_NTF, _WORLD_FAILED_NTF, _SIG_MISMATCH_NTF
 *	or _NODE_DEL_NTF
 * @net: the network namespace of the node's global comm
 * @node: the node's snapshot (its error, for a failure)
 *
 * The comm's last failure is kept too (failure.c). Process context; never
 * fails the caller.
 */
void encd_nl_notify_node(u8 cmd, struct net *net, const struct encd_nl_node *node)
{
	struct sk_buff *skb;
	void *hdr;

	encd_failure_record(cmd, node);
	if (!nl_has_listeners(net))
		return;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &encd_family, 0, cmd);
	if (!hdr || nl_put_node(skb, node, true)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	nl_multicast(skb, net);
}

static const struct genl_ops encd_nl_ops[] = {
	{
		.cmd = ENCD_NL_CMD_GCOMM_GET,
		.doit = nl_gcomm_get_doit,
		.start = nl_gcomm_get_start,
		.dumpit = nl_gcomm_get_dumpit,
		.policy = encd_gcomm_get_nl_policy,
		.maxattr = ARRAY_SIZE(encd_gcomm_get_nl_policy) - 1,
	},
	{
		.cmd = ENCD_NL_CMD_NODE_GET,
		.start = nl_node_get_start,
		.dumpit = nl_node_get_dumpit,
		.policy = encd_node_get_nl_policy,
		.maxattr = ARRAY_SIZE(encd_node_get_nl_policy) - 1,
	},
	{
		/* No policy: with resv_start_op 0 any attribute is refused. */
		.cmd = ENCD_NL_CMD_TOPO_GET,
		.doit = nl_topo_get_doit,
	},
	{
		.cmd = ENCD_NL_CMD_TOPO_SET,
		.doit = nl_topo_set_doit,
		.policy = encd_topo_set_nl_policy,
		.maxattr = ARRAY_SIZE(encd_topo_set_nl_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = ENCD_NL_CMD_VCORE_GET,
		.dumpit = nl_vcore_get_dumpit,
	},
};

static struct genl_family encd_family __ro_after_init = {
	.name = ENCD_GENL_NAME,
	.version = ENCD_GENL_VERSION,
	.netnsok = true,
	/* Every command is new: strict validation, no legacy leniency. */
	.resv_start_op = 0,
	.ops = encd_nl_ops,
	.n_ops = ARRAY_SIZE(encd_nl_ops),
	.mcgrps = encd_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(encd_nl_mcgrps),
	.module = THIS_MODULE,
};

/**
 * encd_netlink_init() - registers the "encd" family
 *
 * Return: 0 or genl_register_family()'s error.
 */
int __init encd_netlink_init(void)
{
	return genl_register_family(&encd_family);
}

/**
 * encd_netlink_exit() - unregisters the "encd" family
 */
void encd_netlink_exit(void)
{
	genl_unregister_family(&encd_family);
}

MODULE_ALIAS_GENL_FAMILY(ENCD_GENL_NAME);
