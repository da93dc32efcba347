/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_TOPOLOGY_H
#define _ENCD_TOPOLOGY_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/encd.h>

/* What the device broker knows of one virtual NeuronCore. */
struct enc_vcore {
	u32 vnc;
	u32 nec_dev_id;
	u32 mla_idx;
	u32 host_device_id;
	u32 routing_id;
	u32 vtpb_idx;
};

/* What the device broker knows of this host ("tdrv"), read as one snapshot. */
struct enc_host_topology {
	u32 pod_type;
	u32 pod_node_id;
	u32 pod_sz;
	u64 reservation_id;
	u32 virtual_server_size;
};

u32 enc_topology_num_vcores(void);
int enc_topology_get_vcore(u32 vnc, struct enc_vcore *vcore);
void enc_topology_get_host(struct enc_host_topology *host);

/* Which fields of a host topology enc_topology_set_host() writes. */
#define ENC_TOPO_POD_TYPE		BIT(0)
#define ENC_TOPO_POD_NODE_ID		BIT(1)
#define ENC_TOPO_POD_SZ			BIT(2)
#define ENC_TOPO_RESERVATION_ID		BIT(3)
#define ENC_TOPO_VIRTUAL_SERVER_SIZE	BIT(4)

/* The admin's way to change the simulated host (netlink topo-set). */
void enc_topology_set_host(const struct enc_host_topology *host, unsigned int which);

/* Checks the load-time parameters. */
int enc_topology_init(void);

#endif /* _ENCD_TOPOLOGY_H */
