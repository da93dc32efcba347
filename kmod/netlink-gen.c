// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/encd.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink-gen.h"

#include <uapi/linux/encd_netlink.h>
#include <linux/encd.h>
#include <linux/encd.h>
#include <linux/encd.h>
#include <linux/encd.h>

/* Common nested types */
const struct nla_policy encd_neuron_device_nl_policy[ENCD_A_NEURON_DEVICE_ROUTING_ID + 1] = {
	[ENCD_A_NEURON_DEVICE_INDEX] = { .type = NLA_U32, },
	[ENCD_A_NEURON_DEVICE_CORE_COUNT] = NLA_POLICY_RANGE(NLA_U32, 1, 256),
	[ENCD_A_NEURON_DEVICE_ROUTING_ID] = { .type = NLA_U32, },
};

/* ENCD_NL_CMD_GCOMM_GET - do */
static const struct nla_policy encd_gcomm_get_do_nl_policy[ENCD_A_GCOMM_CTX + 1] = {
	[ENCD_A_GCOMM_NEC_DEV] = NLA_POLICY_MAX(NLA_U32, 255),
	[ENCD_A_GCOMM_CTX] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* ENCD_NL_CMD_GCOMM_GET - dump */
static const struct nla_policy encd_gcomm_get_dump_nl_policy[ENCD_A_GCOMM_CTX + 1] = {
	[ENCD_A_GCOMM_NEC_DEV] = NLA_POLICY_MAX(NLA_U32, 255),
	[ENCD_A_GCOMM_CTX] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* ENCD_NL_CMD_NODE_GET - dump */
static const struct nla_policy encd_node_get_nl_policy[ENCD_A_NODE_STREAM + 1] = {
	[ENCD_A_NODE_NEC_DEV] = NLA_POLICY_MAX(NLA_U32, 255),
	[ENCD_A_NODE_CTX] = NLA_POLICY_MAX(NLA_U32, 1),
	[ENCD_A_NODE_STREAM] = NLA_POLICY_MAX(NLA_U32, 3),
};

/* ENCD_NL_CMD_TOPO_SET - do */
static const struct nla_policy encd_topo_set_nl_policy[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE + 1] = {
	[ENCD_A_TOPO_POD_TYPE] = NLA_POLICY_MAX(NLA_U32, 3),
	[ENCD_A_TOPO_POD_NODE_ID] = { .type = NLA_U32, },
	[ENCD_A_TOPO_POD_SZ] = { .type = NLA_U32, },
	[ENCD_A_TOPO_RESERVATION_ID] = { .type = NLA_U64, },
	[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE] = { .type = NLA_U32, },
};

/* ENCD_NL_CMD_TOPO_SYNC - do */
static const struct nla_policy encd_topo_sync_nl_policy[ENCD_A_TOPO_DEVICE + 1] = {
	[ENCD_A_TOPO_SOURCE] = NLA_POLICY_MAX(NLA_U32, 1),
	[ENCD_A_TOPO_POD_TYPE] = NLA_POLICY_MAX(NLA_U32, 3),
	[ENCD_A_TOPO_POD_SZ] = { .type = NLA_U32, },
	[ENCD_A_TOPO_NEURON_NODE_ID] = { .type = NLA_S32, },
	[ENCD_A_TOPO_POD_ELECTION] = NLA_POLICY_MAX(NLA_U8, 1),
	[ENCD_A_TOPO_RESERVATION_ID] = { .type = NLA_U64, },
	[ENCD_A_TOPO_DEVICE] = NLA_POLICY_NESTED(encd_neuron_device_nl_policy),
};

/* ENCD_NL_CMD_WORLD_HOST_GET - dump */
static const struct nla_policy encd_world_host_get_nl_policy[ENCD_A_WORLD_HOST_CTX + 1] = {
	[ENCD_A_WORLD_HOST_NEC_DEV] = NLA_POLICY_MAX(NLA_U32, 255),
	[ENCD_A_WORLD_HOST_CTX] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* Ops table for encd */
const struct genl_split_ops encd_nl_ops[10] = {
	{
		.cmd		= ENCD_NL_CMD_GCOMM_GET,
		.doit		= encd_nl_gcomm_get_doit,
		.policy		= encd_gcomm_get_do_nl_policy,
		.maxattr	= ENCD_A_GCOMM_CTX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ENCD_NL_CMD_GCOMM_GET,
		.start		= encd_nl_gcomm_get_start,
		.dumpit		= encd_nl_gcomm_get_dumpit,
		.policy		= encd_gcomm_get_dump_nl_policy,
		.maxattr	= ENCD_A_GCOMM_CTX,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= ENCD_NL_CMD_NODE_GET,
		.start		= encd_nl_node_get_start,
		.dumpit		= encd_nl_node_get_dumpit,
		.policy		= encd_node_get_nl_policy,
		.maxattr	= ENCD_A_NODE_STREAM,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= ENCD_NL_CMD_TOPO_GET,
		.doit	= encd_nl_topo_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ENCD_NL_CMD_TOPO_SET,
		.doit		= encd_nl_topo_set_doit,
		.policy		= encd_topo_set_nl_policy,
		.maxattr	= ENCD_A_TOPO_VIRTUAL_SERVER_SIZE,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= ENCD_NL_CMD_VCORE_GET,
		.dumpit	= encd_nl_vcore_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= ENCD_NL_CMD_MODULE_GET,
		.doit	= encd_nl_module_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ENCD_NL_CMD_TOPO_SYNC,
		.doit		= encd_nl_topo_sync_doit,
		.policy		= encd_topo_sync_nl_policy,
		.maxattr	= ENCD_A_TOPO_DEVICE,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= ENCD_NL_CMD_WORLD_HOST_GET,
		.start		= encd_nl_world_host_get_start,
		.dumpit		= encd_nl_world_host_get_dumpit,
		.policy		= encd_world_host_get_nl_policy,
		.maxattr	= ENCD_A_WORLD_HOST_CTX,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= ENCD_NL_CMD_NEWS_HOST_GET,
		.dumpit	= encd_nl_news_host_get_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group encd_nl_mcgrps[] = {
	[ENCD_NLGRP_EVENTS] = { "events", },
};
