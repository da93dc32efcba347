/* SPDX-License-Identifier: GPL-2.0 */
/* The host topology as the device broker has it (`encctl topo`). */
#ifndef _ENCCTL_TOPO_H
#define _ENCCTL_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/encd_netlink.h>

#include "nl.h"

struct encctl_topo_device {
	uint32_t index;
	uint32_t core_count;
	uint32_t routing_id;
};

struct encctl_topo {
	uint32_t num_vcores;
	uint32_t pod_type;
	uint32_t pod_node_id;
	uint32_t pod_sz;
	uint64_t reservation_id;
	uint32_t virtual_server_size;
	uint32_t source;		/* enum encd_topo_source */
	uint64_t synced_at;		/* seconds since the epoch; 0: never */
	bool election;
	int32_t neuron_node_id;
	struct encctl_topo_device dev[ENCD_NEURON_MAX_DEVICES];
	unsigned int n_dev;
};

/* "params" or "neuron" */
const char *encctl_topo_source_name(uint32_t source);
/*
 * The source in force, in words and as JSON keys: "source", "synced_at"
 * (null: never), "pod_election".
 */
void encctl_topo_source_print(const struct encctl_topo *topo);

/* 0, or -1 after saying why. */
int encctl_topo_read(struct encctl_nl *nl, struct encctl_topo *topo);

#endif /* _ENCCTL_TOPO_H */
