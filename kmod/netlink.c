// SPDX-License-Identifier: GPL-2.0
/*
 * The "encd" generic netlink family: status, events and admin commands.
 *
 * The protocol is written down in Documentation/netlink/specs/encd.yaml and
 * in the uapi header. The request policies and the operations table are
 * generated from the spec (netlink-gen.c, by the kernel's YNL generator);
 * this file has the handlers that table names and the family, and gives an
 * operation without request attributes a policy that refuses them all.
 * Before 6.2, which has no split operations, the table's do and dump entries
 * of a command are merged into one struct genl_ops at registration.
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
 * A node's participants grow with its world (16384 ranks are 64 KiB, more
 * than an attribute can hold), so a node-get message carries at most
 * ENCD_PARTICIPANTS_PER_MSG of them and a bigger node takes several
 * messages, which may straddle two parts: the cursor then also says how
 * many participants went out and of which node (a hash of its key), and a
 * part that finds another node there starts that one whole and marks the
 * dump interrupted. Every other attribute is bounded whatever the world's
 * size; the sizes below prove at build time that the largest message fits
 * the smallest part, and every event its buffer.
 *
 * Events are sent by the code that changes a comm or a node, under the
 * lock that serialises those changes, so they leave in the order things
 * happened. A comm's last failure is kept in failure.c.
 */
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/jhash.h>
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
#include "netlink-gen.h"

static struct genl_family encd_family;

static const struct genl_multicast_group encd_nl_mcgrps[] = {
	[ENCD_NLGRP_EVENTS] = { .name = ENCD_MCGRP_EVENTS },
};

/*
 * The most a message can take, attribute by attribute (a u64 may need a
 * pad attribute before it), for the build-time checks of its size.
 */
#define NL_ATTR(len)		NLA_ALIGN(NLA_HDRLEN + (len))
#define NL_ATTR_U64		(NL_ATTR(0) + NL_ATTR(8))
#define NL_PHASE_MAX		(NL_ATTR(0) + NL_ATTR(4) + 2 * NL_ATTR_U64)
#define NL_COUNTER_MAX		(NL_ATTR(0) + 2 * NL_ATTR(4) + 2 * NL_ATTR_U64)
#define NL_ERROR_MAX		(NL_ATTR(0) + 5 * NL_ATTR(4) + NL_ATTR(ENCD_MSG_MAX) + \
				 2 * NL_ATTR(ENCD_SIG_LEN))
#define NL_PARTICIPANTS_MAX	NL_ATTR(ENCD_PARTICIPANTS_PER_MSG * sizeof(u32))
/* A node event: nec-dev, ctx, stream, rank, rank-n, state, groups, global, ... */
#define NL_NODE_EVENT_MAX	(GENL_HDRLEN + 7 * NL_ATTR(4) + NL_ATTR(0) + NL_ATTR_U64 + \
				 ENCD_PHASE_N * NL_PHASE_MAX + NL_ERROR_MAX)
/* A node's first node-get message: the event's and refcnt, offset, counters */
#define NL_NODE_DUMP_MAX	(NLMSG_HDRLEN + NL_NODE_EVENT_MAX + 2 * NL_ATTR(4) + \
				 NL_PARTICIPANTS_MAX + ENCD_COUNTERS_MAX * NL_COUNTER_MAX)
/* A comm: 16 u32s and s32s, 4 u64s, the root, check-sigs, the error */
#define NL_GCOMM_MAX		(GENL_HDRLEN + 16 * NL_ATTR(4) + 4 * NL_ATTR_U64 + \
				 NL_ATTR(ENCD_ROOT_COMM_ID_MAX) + NL_ATTR(0) + NL_ERROR_MAX)

/* Where a dump is, and what it was asked for; lives in cb->ctx. */
struct nl_dump_ctx {
	u32 slot;		/* registry slot: nec_dev * ENCD_MAX_CONTEXTS + ctx */
	s32 nec_dev;		/* the filters, -1 for any */
	s32 ctx_id;
	s32 stream;
	unsigned long pos;	/* the next node under the slot's comm */
	u32 part_off;		/* participants of the node at pos already sent, or 0 */
	u32 part_key;		/* nl_node_key() of that node */
	u32 torn;		/* nodes that went away half sent, for cb->seq */
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
	    nla_put_u32(skb, ENCD_A_ERROR_REASON, e->reason) ||
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
		.reason = rec.reason,
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

/*
 * What the host agent of @g's rank sent on its links, whole frames; false
 * when the comm has no rank registered with a host agent.
 */
static bool gcomm_host_tx_bytes(struct encd_gcomm *g, u64 *bytes)
{
	struct encd_host *h = NULL;

	/*
	 * No reference taken: while rank_lock is held the comm's rank keeps
	 * its counted reference, and the rank holds its host's until it goes.
	 */
	spin_lock(&g->rank_lock);
	if (g->rank)
		h = READ_ONCE(g->rank->host);
	if (h)
		*bytes = atomic64_read(&h->sent_bytes);
	spin_unlock(&g->rank_lock);
	return h;
}

/* Only a comm whose rank has a host agent has the host's count. */
static int nl_put_host_tx_bytes(struct sk_buff *skb, struct encd_gcomm *g)
{
	u64 bytes;

	if (!gcomm_host_tx_bytes(g, &bytes))
		return 0;
	return nla_put_u64_64bit(skb, ENCD_A_GCOMM_HOST_TX_BYTES, bytes, ENCD_A_GCOMM_PAD);
}

/*
 * Whether the sender of @req may learn whose @g is: an administrator
 * (CAP_NET_ADMIN), or the owner, by the euid of whoever opened the socket
 * (as netlink_capable() looks at its opener). Nobody else learns who holds
 * a core; a notification (@req NULL), which any listener gets, never says.
 */
static bool nl_may_see_owner(const struct sk_buff *req, const struct encd_gcomm *g)
{
	const struct socket *sock;

	if (!req)
		return false;
	if (netlink_capable(req, CAP_NET_ADMIN))
		return true;
	sock = NETLINK_CB(req).sk ? NETLINK_CB(req).sk->sk_socket : NULL;
	return sock && sock->file && uid_eq(sock->file->f_cred->euid, g->owner);
}

static int nl_put_gcomm(struct sk_buff *skb, struct encd_gcomm *g, bool owner)
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
	    nl_put_host_tx_bytes(skb, g) ||
	    nl_put_last_error(skb, g) ||
	    (owner && nla_put_u32(skb, ENCD_A_GCOMM_OWNER_UID,
				  from_kuid(&init_user_ns, g->owner))))
		return -EMSGSIZE;
	return 0;
}

/*
 * One message about @g, for the sender of @req (NULL: a notification); the
 * caller ends or cancels nothing.
 */
static int nl_gcomm_msg(struct sk_buff *skb, u32 portid, u32 seq, int flags, u8 cmd,
			struct encd_gcomm *g, struct netlink_callback *cb,
			const struct sk_buff *req)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &encd_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nl_put_gcomm(skb, g, nl_may_see_owner(req, g))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * encd_nl_gcomm_get_doit() - ENCD_NL_CMD_GCOMM_GET do: the comm of one core and context
 * @skb: the request
 * @info: its attributes
 *
 * Return: 0 once the reply is sent, -ENOENT when no comm there is visible
 * from the caller's network namespace, or another negative errno.
 */
int encd_nl_gcomm_get_doit(struct sk_buff *skb, struct genl_info *info)
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
			   NULL, skb);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = genlmsg_reply(msg, info);
out:
	encd_gcomm_put(g);
	return err;
}

/**
 * encd_nl_gcomm_get_start() - ENCD_NL_CMD_GCOMM_GET dump: takes its filters
 * @cb: the dump
 *
 * Return: 0.
 */
int encd_nl_gcomm_get_start(struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);

	nl_dump_filter(ctx, encd_genl_dump_attrs(cb), ENCD_A_GCOMM_NEC_DEV, ENCD_A_GCOMM_CTX, 0);
	return 0;
}

/**
 * encd_nl_gcomm_get_dumpit() - ENCD_NL_CMD_GCOMM_GET dump: one part of it
 * @skb: the part
 * @cb: the dump
 *
 * Return: the part's length (0: the dump is over), or a negative errno.
 */
int encd_nl_gcomm_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct encd_gcomm *g;
	int err;

	cb->seq = encd_registry_generation();
	while ((g = nl_dump_next_gcomm(net, ctx))) {
		err = nl_gcomm_msg(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				   NLM_F_MULTI, ENCD_NL_CMD_GCOMM_GET, g, cb, cb->skb);
		encd_gcomm_put(g);
		if (err)
			return nl_dump_stop(skb, err);
		ctx->slot++;
	}
	return skb->len;
}

/* What every message about a node starts with: where it is. */
static int nl_put_node_place(struct sk_buff *skb, const struct encd_nl_node *n)
{
	if (nla_put_u32(skb, ENCD_A_NODE_NEC_DEV, n->nec_dev) ||
	    nla_put_u32(skb, ENCD_A_NODE_CTX, n->ctx_id) ||
	    nla_put_u32(skb, ENCD_A_NODE_STREAM, n->stream_id) ||
	    nla_put_u64_64bit(skb, ENCD_A_NODE_GCOMM_SERIAL, n->gcomm_serial, ENCD_A_NODE_PAD))
		return -EMSGSIZE;
	return 0;
}

/* The node's state: an event's whole payload, a dump's with the counters. */
static int nl_put_node_state(struct sk_buff *skb, const struct encd_nl_node *n, bool event)
{
	if (nla_put_u32(skb, ENCD_A_NODE_RANK, n->rank) ||
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

/* Participants @off to @off + @count of @n: the world's are every rank in order. */
static int nl_put_participants(struct sk_buff *skb, const struct encd_nl_node *n, u32 off,
			       u32 count)
{
	struct nlattr *a;
	u32 *p, i;

	if (n->participants)
		return nla_put(skb, ENCD_A_NODE_PARTICIPANTS, count * sizeof(u32),
			       n->participants + off);
	a = nla_reserve(skb, ENCD_A_NODE_PARTICIPANTS, count * sizeof(u32));
	if (!a)
		return -EMSGSIZE;
	p = nla_data(a);
	for (i = 0; i < count; i++)
		p[i] = off + i;
	return 0;
}

/*
 * One node-get message: participants @off to @off + ENCD_PARTICIPANTS_PER_MSG
 * (or rank_n) of @n; the first one (@off 0) with everything else about it.
 */
static int nl_node_msg(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct encd_nl_node *n, u32 off)
{
	u32 count = min_t(u32, n->rank_n - off, ENCD_PARTICIPANTS_PER_MSG);
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, &encd_family,
			  NLM_F_MULTI, ENCD_NL_CMD_NODE_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nl_put_node_place(skb, n) ||
	    nla_put_u32(skb, ENCD_A_NODE_PARTICIPANTS_OFFSET, off) ||
	    nl_put_participants(skb, n, off, count) ||
	    (off && nla_put_u32(skb, ENCD_A_NODE_RANK_N, n->rank_n)) ||
	    (!off && nl_put_node_state(skb, n, false))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * Which node a dump was half way through: in its comm (the serial) and its
 * stream, its participants are its key.
 */
static u32 nl_node_key(const struct encd_nl_node *n)
{
	u32 seed = n->stream_id ^ (u32)n->gcomm_serial;

	return n->participants ? jhash2(n->participants, n->rank_n, seed) :
				 jhash2(&n->rank_n, 1, seed ^ 0x100);
}

/*
 * The node a part left half sent is not where the next part looked: what
 * went out of it is all there will be, and the dump is marked interrupted
 * from the next message on (cb->seq changes).
 */
static void nl_dump_node_gone(struct netlink_callback *cb, struct nl_dump_ctx *ctx)
{
	if (!ctx->part_off)
		return;
	ctx->part_off = 0;
	ctx->torn++;
	cb->seq++;
}

/**
 * encd_nl_dump_node() - puts one node into a NODE_GET dump
 * @skb: the dump's message
 * @cb: the dump
 * @node: the node's snapshot
 *
 * The node takes one message per ENCD_PARTICIPANTS_PER_MSG participants.
 * When the part fills up after some of them, the cursor keeps how many went
 * out, and the next part (called with the node at the same position) goes on
 * from there, unless another node is there now: then that one starts whole
 * and the dump is marked interrupted.
 *
 * Return: 0, or -EMSGSIZE when this part of the dump is full and the node
 * must be put again (or finished) in the next one.
 */
int encd_nl_dump_node(struct sk_buff *skb, struct netlink_callback *cb,
		      const struct encd_nl_node *node)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	u32 off = 0;
	int err;

	if (ctx->stream >= 0 && ctx->stream != node->stream_id)
		return 0;
	if (ctx->part_off) {
		if (ctx->part_off < node->rank_n && ctx->part_key == nl_node_key(node)) {
			off = ctx->part_off;
			ctx->part_off = 0;
		} else {
			nl_dump_node_gone(cb, ctx);
		}
	}
	do {
		err = nl_node_msg(skb, cb, node, off);
		if (err) {
			if (off) {
				ctx->part_off = off;
				ctx->part_key = nl_node_key(node);
			}
			return err;
		}
		off += ENCD_PARTICIPANTS_PER_MSG;
	} while (off < node->rank_n);
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

/**
 * encd_nl_node_get_start() - ENCD_NL_CMD_NODE_GET dump: takes its filters
 * @cb: the dump
 *
 * Return: 0.
 */
int encd_nl_node_get_start(struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);

	nl_dump_filter(ctx, encd_genl_dump_attrs(cb), ENCD_A_NODE_NEC_DEV, ENCD_A_NODE_CTX,
		       ENCD_A_NODE_STREAM);
	return 0;
}

/**
 * encd_nl_node_get_dumpit() - ENCD_NL_CMD_NODE_GET dump: one part of it
 * @skb: the part
 * @cb: the dump
 *
 * Return: the part's length (0: the dump is over), or a negative errno.
 */
int encd_nl_node_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct encd_gcomm *g;
	int err;

	/* Both only grow: a change of either changes their sum. */
	cb->seq = encd_registry_generation() + ctx->torn;
	while ((g = nl_dump_next_gcomm(net, ctx))) {
		err = nl_dump_gcomm_nodes(skb, cb, g, &ctx->pos);
		encd_gcomm_put(g);
		if (err)
			return nl_dump_stop(skb, err);
		nl_dump_node_gone(cb, ctx);
		ctx->slot++;
		ctx->pos = 0;
	}
	nl_dump_node_gone(cb, ctx);
	return skb->len;
}

/* World hosts */

/*
 * The host agent of @g's rank, counted, when the comm is a world's rank 0:
 * that host is the world's root, and the one to report its hosts.
 */
static struct encd_host *gcomm_root_host(struct encd_gcomm *g)
{
	struct encd_host *h = NULL;

	if (g->g_device_id)
		return NULL;
	spin_lock(&g->rank_lock);
	if (g->rank)
		h = READ_ONCE(g->rank->host);
	if (h)
		encd_host_get(h);
	spin_unlock(&g->rank_lock);
	return h;
}

static int nl_world_host_msg(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct encd_gcomm *g, const struct encd_root_host_report *rep)
{
	char addr[ENCD_ROOT_COMM_ID_MAX];
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, &encd_family,
			  NLM_F_MULTI, ENCD_NL_CMD_WORLD_HOST_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	snprintf(addr, sizeof(addr), "%pISpc", &rep->addr);
	if (nla_put_u32(skb, ENCD_A_WORLD_HOST_NEC_DEV, g->nec_dev_id) ||
	    nla_put_u32(skb, ENCD_A_WORLD_HOST_CTX, g->ctx_id) ||
	    nla_put_u32(skb, ENCD_A_WORLD_HOST_INDEX, rep->index) ||
	    nla_put_string(skb, ENCD_A_WORLD_HOST_ADDR, addr) ||
	    nla_put_u32(skb, ENCD_A_WORLD_HOST_WORLD_SIZE, rep->world_size) ||
	    nla_put_u32(skb, ENCD_A_WORLD_HOST_RANKS, rep->ranks) ||
	    nla_put_u64_64bit(skb, ENCD_A_WORLD_HOST_JOINED, rep->joined_ns,
			      ENCD_A_WORLD_HOST_PAD))
		goto cancel;
	if (rep->ranks &&
	    (nla_put_u32(skb, ENCD_A_WORLD_HOST_FIRST_RANK, rep->first_rank) ||
	     nla_put_u64_64bit(skb, ENCD_A_WORLD_HOST_REGISTERED, rep->registered_ns,
			       ENCD_A_WORLD_HOST_PAD)))
		goto cancel;
	if (rep->index &&
	    nla_put_u64_64bit(skb, ENCD_A_WORLD_HOST_HANDSHAKE, rep->handshake_ns,
			      ENCD_A_WORLD_HOST_PAD))
		goto cancel;
	if (rep->connected && nla_put_u32(skb, ENCD_A_WORLD_HOST_RTT, rep->rtt_us))
		goto cancel;
	if (!rep->index) {
		if (nla_put_u32(skb, ENCD_A_WORLD_HOST_MISSING_N, rep->missing_n))
			goto cancel;
		for (i = 0; i < rep->n_missing; i++)
			if (nla_put_u32(skb, ENCD_A_WORLD_HOST_MISSING, rep->missing[i]))
				goto cancel;
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/**
 * encd_nl_world_host_get_start() - ENCD_NL_CMD_WORLD_HOST_GET dump: its filters
 * @cb: the dump
 *
 * Return: 0.
 */
int encd_nl_world_host_get_start(struct netlink_callback *cb)
{
	nl_dump_filter(nl_dump_ctx(cb), encd_genl_dump_attrs(cb), ENCD_A_WORLD_HOST_NEC_DEV,
		       ENCD_A_WORLD_HOST_CTX, 0);
	return 0;
}

/**
 * encd_nl_world_host_get_dumpit() - ENCD_NL_CMD_WORLD_HOST_GET dump: one part
 * @skb: the part
 * @cb: the dump
 *
 * The hosts of each world rooted here, through its rank 0's comm: the
 * cursor is the comm's slot and the next host's index.
 *
 * Return: the part's length (0: the dump is over), or a negative errno.
 */
int encd_nl_world_host_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct encd_root_host_report *rep;
	struct encd_gcomm *g;
	struct encd_host *h;
	int err = 0;

	/* Its missing ranks make it too big for the stack. */
	rep = kmalloc(sizeof(*rep), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	cb->seq = encd_registry_generation();
	while (!err && (g = nl_dump_next_gcomm(net, ctx))) {
		h = gcomm_root_host(g);
		if (h) {
			mutex_lock(&h->lock);
			while (!encd_root_report(h, ctx->pos, rep)) {
				err = nl_world_host_msg(skb, cb, g, rep);
				if (err)
					break;
				ctx->pos++;
			}
			mutex_unlock(&h->lock);
			encd_host_put(h);
		}
		encd_gcomm_put(g);
		if (!err) {
			ctx->slot++;
			ctx->pos = 0;
		}
	}
	kfree(rep);
	return err ? nl_dump_stop(skb, err) : skb->len;
}

/* Hosts passing news on */

static int nl_news_host_msg(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct encd_news_host_report *rep)
{
	char root[ENCD_ROOT_COMM_ID_MAX];
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq, &encd_family,
			  NLM_F_MULTI, ENCD_NL_CMD_NEWS_HOST_GET);
	if (!hdr)
		return -EMSGSIZE;
	snprintf(root, sizeof(root), "%pISpc", &rep->root);
	if (nla_put_string(skb, ENCD_A_NEWS_HOST_ROOT, root) ||
	    nla_put_u32(skb, ENCD_A_NEWS_HOST_WORLD_SIZE, rep->world_size) ||
	    nla_put_u32(skb, ENCD_A_NEWS_HOST_INDEX, rep->index) ||
	    nla_put_u32(skb, ENCD_A_NEWS_HOST_UID,
			from_kuid_munged(current_user_ns(), rep->uid)) ||
	    nla_put_u64_64bit(skb, ENCD_A_NEWS_HOST_AGE, rep->age_ns, ENCD_A_NEWS_HOST_PAD) ||
	    nla_put_u64_64bit(skb, ENCD_A_NEWS_HOST_LEFT, rep->left_ns, ENCD_A_NEWS_HOST_PAD) ||
	    nla_put_u32(skb, ENCD_A_NEWS_HOST_LINKS, rep->links) ||
	    nla_put_u8(skb, ENCD_A_NEWS_HOST_PARENT, rep->parent) ||
	    nla_put_u32(skb, ENCD_A_NEWS_HOST_CHILDREN, rep->children) ||
	    nla_put_u32(skb, ENCD_A_NEWS_HOST_STAYING, rep->staying)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * encd_nl_news_host_get_dumpit() - ENCD_NL_CMD_NEWS_HOST_GET dump: one part
 * @skb: the part
 * @cb: the dump
 *
 * The hosts of the caller's network namespace that pass news on with no
 * ranks, oldest first: the cursor is the next one's place. One that ends
 * while the dump goes on moves the rest up, and one may be missed: the
 * dump is a look, not a record.
 *
 * Return: the part's length (0: the dump is over), or a negative errno.
 */
int encd_nl_news_host_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nl_dump_ctx *ctx = nl_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct encd_news_host_report rep;
	int err = 0;

	while (!encd_host_news_report(net, ctx->pos, &rep)) {
		err = nl_news_host_msg(skb, cb, &rep);
		if (err)
			break;
		ctx->pos++;
	}
	return err ? nl_dump_stop(skb, err) : skb->len;
}

/* The neuron source's devices, one nest each, and its node id. */
static int nl_put_neuron(struct sk_buff *msg, const struct encd_neuron_topology *facts)
{
	struct nlattr *nest;
	u32 i;

	if (nla_put_s32(msg, ENCD_A_TOPO_NEURON_NODE_ID, facts->node_id))
		return -EMSGSIZE;
	for (i = 0; i < facts->n_slots; i++) {
		if (!(facts->present & BIT_ULL(i)))
			continue;
		nest = nla_nest_start(msg, ENCD_A_TOPO_DEVICE);
		if (!nest ||
		    nla_put_u32(msg, ENCD_A_NEURON_DEVICE_INDEX, i) ||
		    nla_put_u32(msg, ENCD_A_NEURON_DEVICE_CORE_COUNT, facts->core_count) ||
		    nla_put_u32(msg, ENCD_A_NEURON_DEVICE_ROUTING_ID, facts->routing_id[i]))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/**
 * encd_nl_topo_get_doit() - ENCD_NL_CMD_TOPO_GET: the host's topology
 * @skb: the request
 * @info: its attributes (none)
 *
 * Return: 0 once the reply is sent, or a negative errno.
 */
int encd_nl_topo_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct encd_neuron_topology facts;
	struct encd_host_topology host;
	struct sk_buff *msg;
	time64_t synced;
	u32 num_vcores;
	void *hdr;

	synced = encd_topology_snapshot(&host, &facts, &num_vcores);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &encd_family, 0, ENCD_NL_CMD_TOPO_GET);
	if (!hdr ||
	    nla_put_u32(msg, ENCD_A_TOPO_NUM_VCORES, num_vcores) ||
	    nla_put_u32(msg, ENCD_A_TOPO_POD_TYPE, host.pod_type) ||
	    nla_put_u32(msg, ENCD_A_TOPO_POD_NODE_ID, host.pod_node_id) ||
	    nla_put_u32(msg, ENCD_A_TOPO_POD_SZ, host.pod_sz) ||
	    nla_put_u64_64bit(msg, ENCD_A_TOPO_RESERVATION_ID, host.reservation_id,
			      ENCD_A_TOPO_PAD) ||
	    nla_put_u32(msg, ENCD_A_TOPO_VIRTUAL_SERVER_SIZE, host.virtual_server_size) ||
	    nla_put_u32(msg, ENCD_A_TOPO_SOURCE, host.source) ||
	    nla_put_u8(msg, ENCD_A_TOPO_POD_ELECTION, host.election) ||
	    nla_put_u64_64bit(msg, ENCD_A_TOPO_SYNCED_AT, synced, ENCD_A_TOPO_PAD) ||
	    (synced && nl_put_neuron(msg, &facts))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/**
 * encd_nl_topo_set_doit() - ENCD_NL_CMD_TOPO_SET: changes the host's topology
 * @skb: the request
 * @info: its attributes, at least one
 *
 * Return: 0, or -EINVAL when no attribute is given.
 */
int encd_nl_topo_set_doit(struct sk_buff *skb, struct genl_info *info)
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
	if (encd_topology_set_host(&host, which)) {
		NL_SET_ERR_MSG(info->extack,
			       "the pod is the Neuron driver's (encctl topo sync): 'encctl topo sync --params' puts the parameters back in force first");
		return -EBUSY;
	}
	return 0;
}

/* One device nest of a sync into @facts, after the ones before it. */
static int nl_sync_device(const struct nlattr *nest, struct encd_neuron_topology *facts,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[ENCD_A_NEURON_DEVICE_MAX + 1];
	u32 index, cores;
	int err;

	err = nla_parse_nested(tb, ENCD_A_NEURON_DEVICE_MAX, nest, encd_neuron_device_nl_policy,
			       extack);
	if (err)
		return err;
	if (!tb[ENCD_A_NEURON_DEVICE_INDEX] || !tb[ENCD_A_NEURON_DEVICE_CORE_COUNT] ||
	    !tb[ENCD_A_NEURON_DEVICE_ROUTING_ID]) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a Neuron device needs its index, core count and routing id");
		return -EINVAL;
	}
	index = nla_get_u32(tb[ENCD_A_NEURON_DEVICE_INDEX]);
	cores = nla_get_u32(tb[ENCD_A_NEURON_DEVICE_CORE_COUNT]);
	if (index >= ENCD_NEURON_MAX_DEVICES || index < facts->n_slots) {
		NL_SET_ERR_MSG_ATTR(extack, tb[ENCD_A_NEURON_DEVICE_INDEX],
				    "Neuron devices come in increasing index order, below 64");
		return -EINVAL;
	}
	if (facts->core_count && cores != facts->core_count) {
		NL_SET_ERR_MSG_ATTR(extack, tb[ENCD_A_NEURON_DEVICE_CORE_COUNT],
				    "every Neuron device of a host has the same core count");
		return -EINVAL;
	}
	facts->core_count = cores;
	facts->present |= BIT_ULL(index);
	facts->n_slots = index + 1;
	facts->routing_id[index] = nla_get_u32(tb[ENCD_A_NEURON_DEVICE_ROUTING_ID]);
	return 0;
}

/* The neuron source a sync describes, checked whole. */
static int nl_sync_facts(struct genl_info *info, struct encd_neuron_topology *facts)
{
	struct nlattr **attrs = info->attrs;
	const struct nlattr *attr;
	int rem, err;

	if (GENL_REQ_ATTR_CHECK(info, ENCD_A_TOPO_POD_TYPE) ||
	    GENL_REQ_ATTR_CHECK(info, ENCD_A_TOPO_POD_SZ) ||
	    GENL_REQ_ATTR_CHECK(info, ENCD_A_TOPO_NEURON_NODE_ID))
		return -EINVAL;
	facts->pod_type = nla_get_u32(attrs[ENCD_A_TOPO_POD_TYPE]);
	facts->pod_sz = nla_get_u32(attrs[ENCD_A_TOPO_POD_SZ]);
	facts->node_id = nla_get_s32(attrs[ENCD_A_TOPO_NEURON_NODE_ID]);
	if (attrs[ENCD_A_TOPO_POD_ELECTION])
		facts->election = nla_get_u8(attrs[ENCD_A_TOPO_POD_ELECTION]);
	if (attrs[ENCD_A_TOPO_RESERVATION_ID])
		facts->reservation_id = nla_get_u64(attrs[ENCD_A_TOPO_RESERVATION_ID]);
	nla_for_each_attr(attr, nlmsg_attrdata(info->nlhdr, GENL_HDRLEN),
			  nlmsg_attrlen(info->nlhdr, GENL_HDRLEN), rem) {
		if (nla_type(attr) != ENCD_A_TOPO_DEVICE)
			continue;
		err = nl_sync_device(attr, facts, info->extack);
		if (err)
			return err;
	}
	return encd_neuron_topology_check(facts, info->extack);
}

/**
 * encd_nl_topo_sync_doit() - ENCD_NL_CMD_TOPO_SYNC: puts a topology source in force
 * @skb: the request
 * @info: its attributes: source neuron and the driver's facts, or source params alone
 *
 * The worlds of cores that were there before and are not after fail,
 * naming the device that went away.
 *
 * Return: 0, -EINVAL for facts that make no topology (nothing changes
 * then), or -ENOMEM.
 */
int encd_nl_topo_sync_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct encd_neuron_topology *facts = NULL;
	struct encd_topology_gone *gone;
	int err = -ENOMEM;
	u32 src;

	if (GENL_REQ_ATTR_CHECK(info, ENCD_A_TOPO_SOURCE))
		return -EINVAL;
	src = nla_get_u32(info->attrs[ENCD_A_TOPO_SOURCE]);
	gone = kzalloc(sizeof(*gone), GFP_KERNEL);
	if (!gone)
		return -ENOMEM;
	if (src == ENCD_TOPO_SOURCE_NEURON) {
		facts = kzalloc(sizeof(*facts), GFP_KERNEL);
		if (!facts)
			goto out;
		err = nl_sync_facts(info, facts);
		if (err)
			goto out;
	} else if (nlmsg_attrlen(info->nlhdr, GENL_HDRLEN) !=
		   nla_total_size(sizeof(u32))) {
		NL_SET_ERR_MSG(info->extack, "source params takes no other attribute");
		err = -EINVAL;
		goto out;
	}
	if (encd_topology_sync(facts, gone))
		encd_world_cores_gone(gone);
	err = 0;
out:
	kfree(facts);
	kfree(gone);
	return err;
}

/**
 * encd_nl_vcore_get_dumpit() - ENCD_NL_CMD_VCORE_GET: one part of the dump
 * @skb: the part
 * @cb: the dump
 *
 * Return: the part's length (0: the dump is over).
 */
int encd_nl_vcore_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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

/**
 * encd_nl_module_get_doit() - ENCD_NL_CMD_MODULE_GET: the settings of every world
 * @skb: the request
 * @info: its attributes (none)
 *
 * Return: 0 once the reply is sent, or a negative errno.
 */
int encd_nl_module_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	char *nets;
	void *hdr;

	nets = encd_networks_dup();
	msg = nets ? genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL) : NULL;
	if (!msg) {
		kfree(nets);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &encd_family, 0, ENCD_NL_CMD_MODULE_GET);
	if (!hdr ||
	    nla_put_u8(msg, ENCD_A_MODULE_ALLOW_INSECURE_WORLDS, encd_allow_insecure_worlds()) ||
	    nla_put_string(msg, ENCD_A_MODULE_NETWORKS, nets)) {
		kfree(nets);
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	kfree(nets);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
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
	if (nl_gcomm_msg(skb, 0, 0, 0, cmd, g, NULL, NULL)) {
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
	if (!hdr || nl_put_node_place(skb, node) || nl_put_node_state(skb, node, true)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	nl_multicast(skb, net);
}

static struct genl_family encd_family __ro_after_init = {
	.name = ENCD_GENL_NAME,
	.version = ENCD_GENL_VERSION,
	.netnsok = true,
	/* Every command is new: strict validation, no legacy leniency. */
	.resv_start_op = 0,
	/* The operations: nl_prepare_ops() */
	.mcgrps = encd_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(encd_nl_mcgrps),
	.module = THIS_MODULE,
};

/*
 * An operation the spec gives no request attributes refuses every attribute.
 * The kernel fills such a policy in for a struct genl_ops of a command past
 * resv_start_op, but not for a split operation (6.2 on), which would take
 * any attribute and ignore it.
 */
static const struct nla_policy nl_reject_all[] = {
	{ .type = NLA_REJECT },
	{ .type = NLA_REJECT },
};

#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
static struct genl_split_ops encd_nl_checked_ops[ARRAY_SIZE(encd_nl_ops)] __ro_after_init;

/* The generated table, with nl_reject_all where it has no policy. */
static int nl_prepare_ops(void)
{
	struct genl_split_ops *op;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(encd_nl_ops); i++) {
		op = &encd_nl_checked_ops[i];
		*op = encd_nl_ops[i];
		if (!op->policy) {
			op->policy = nl_reject_all;
			op->maxattr = ARRAY_SIZE(nl_reject_all) - 1;
		}
	}
	encd_family.split_ops = encd_nl_checked_ops;
	encd_family.n_split_ops = ARRAY_SIZE(encd_nl_checked_ops);
	return 0;
}
#else
static struct genl_ops encd_nl_merged_ops[ARRAY_SIZE(encd_nl_ops)] __ro_after_init;

static bool nl_same_policy(const struct genl_ops *op, const struct genl_split_ops *split)
{
	if (op->maxattr != split->maxattr)
		return false;
	return op->policy == split->policy || (op->policy && split->policy &&
		!memcmp(op->policy, split->policy, (op->maxattr + 1) * sizeof(*op->policy)));
}

/*
 * One struct genl_ops per command from the generated table, whose entries
 * of a command are adjacent, do first. A struct genl_ops has one policy for
 * both: the spec must give a command's do and dump the same requests.
 */
static int nl_prepare_ops(void)
{
	const struct genl_split_ops *split;
	struct genl_ops *op = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(encd_nl_ops); i++) {
		split = &encd_nl_ops[i];
		if (!op || op->cmd != split->cmd) {
			op = &encd_nl_merged_ops[n++];
			op->cmd = split->cmd;
			op->flags = split->flags & ~(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP);
			op->policy = split->policy;
			op->maxattr = split->maxattr;
		} else if (!nl_same_policy(op, split)) {
			pr_err("netlink command %u has different do and dump policies\n", op->cmd);
			return -EINVAL;
		}
		if (split->flags & GENL_CMD_CAP_DO) {
			op->doit = split->doit;
		} else {
			op->start = split->start;
			op->dumpit = split->dumpit;
			op->done = split->done;
		}
	}
	for (i = 0; i < n; i++) {
		if (!encd_nl_merged_ops[i].policy) {
			encd_nl_merged_ops[i].policy = nl_reject_all;
			encd_nl_merged_ops[i].maxattr = ARRAY_SIZE(nl_reject_all) - 1;
		}
	}
	encd_family.ops = encd_nl_merged_ops;
	encd_family.n_ops = n;
	return 0;
}
#endif

/**
 * encd_netlink_init() - registers the "encd" family
 *
 * Return: 0 or genl_register_family()'s error.
 */
int __init encd_netlink_init(void)
{
	int err;

	BUILD_BUG_ON(NL_NODE_DUMP_MAX > NLMSG_GOODSIZE);
	BUILD_BUG_ON(NL_NODE_EVENT_MAX > NLMSG_DEFAULT_SIZE);
	BUILD_BUG_ON(NL_GCOMM_MAX > NLMSG_DEFAULT_SIZE);

	err = nl_prepare_ops();
	if (err)
		return err;
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
