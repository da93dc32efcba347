/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/encd.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_ENCD_GEN_H
#define _LINUX_ENCD_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/encd_netlink.h>
#include <linux/encd.h>
#include <linux/encd.h>
#include <linux/encd.h>
#include <linux/encd.h>

/* Common nested types */
extern const struct nla_policy encd_neuron_device_nl_policy[ENCD_A_NEURON_DEVICE_ROUTING_ID + 1];

/* Ops table for encd */
extern const struct genl_split_ops encd_nl_ops[10];

int encd_nl_gcomm_get_start(struct netlink_callback *cb);
int encd_nl_node_get_start(struct netlink_callback *cb);
int encd_nl_world_host_get_start(struct netlink_callback *cb);

int encd_nl_gcomm_get_doit(struct sk_buff *skb, struct genl_info *info);
int encd_nl_gcomm_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int encd_nl_node_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int encd_nl_topo_get_doit(struct sk_buff *skb, struct genl_info *info);
int encd_nl_topo_set_doit(struct sk_buff *skb, struct genl_info *info);
int encd_nl_vcore_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int encd_nl_module_get_doit(struct sk_buff *skb, struct genl_info *info);
int encd_nl_topo_sync_doit(struct sk_buff *skb, struct genl_info *info);
int encd_nl_world_host_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb);
int encd_nl_news_host_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);

enum {
	ENCD_NLGRP_EVENTS,
};

#endif /* _LINUX_ENCD_GEN_H */
