/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Neuron driver shows of this host (`encctl topo sync`): its
 * devices from sysfs, its pod and routing ids from the pod ioctls of
 * /dev/neuronN, the class attributes where those are missing. Each fact
 * remembers where it came from, so that the sync can say it.
 */
#ifndef _ENCCTL_NEURON_H
#define _ENCCTL_NEURON_H

#include <stdbool.h>
#include <stdint.h>

#include "neuron_abi.h"

struct encctl_neuron_device {
	uint32_t index;		/* N of neuronN */
	uint32_t core_count;
	uint32_t routing_id;
};

struct encctl_neuron {
	struct encctl_neuron_device dev[NEURON_MAX_DEVICES];
	unsigned int n;		/* in index order */
	uint32_t pod_type;	/* NEURON_POD_TYPE_* */
	uint32_t pod_sz;
	int32_t node_id;	/* -1: off a pod */
	bool election;		/* the pod election is running */
	bool has_reservation;
	uint64_t reservation_id;
	/* Where each fact came from, in words. */
	char cores_from[160];
	char rid_from[160];
	char pod_from[160];
	char reservation_from[160];
};

/*
 * Reads the driver's facts: the class directory @sysfs
 * (/sys/class/neuron_device) and the device nodes in @devdir (/dev).
 * 0, or -1 after saying why (no driver, an attribute that cannot be read
 * or makes no sense).
 */
int encctl_neuron_read(const char *sysfs, const char *devdir, struct encctl_neuron *nr);

#endif /* _ENCCTL_NEURON_H */
