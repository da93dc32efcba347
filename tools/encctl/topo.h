/* SPDX-License-Identifier: GPL-2.0 */
/* The host topology as the device broker has it (`encctl topo`). */
#ifndef _ENCCTL_TOPO_H
#define _ENCCTL_TOPO_H

#include <stdint.h>

#include "nl.h"

struct encctl_topo {
	uint32_t num_vcores;
	uint32_t pod_type;
	uint32_t pod_node_id;
	uint32_t pod_sz;
	uint64_t reservation_id;
	uint32_t virtual_server_size;
};

/* 0, or -1 after saying why. */
int encctl_topo_read(struct encctl_nl *nl, struct encctl_topo *topo);

#endif /* _ENCCTL_TOPO_H */
