// SPDX-License-Identifier: GPL-2.0
/*
 * The device broker, simulated: which NeuronCores exist and where they sit.
 *
 * There is no Neuron hardware behind encd yet, so the topology comes from
 * module parameters. The per-core facts are derived from the core's index in
 * a fixed, documented way (Documentation/module-parameters.rst):
 *
 *   nec_dev_id     = vnc
 *   vtpb_idx       = vnc
 *   mla_idx        = vnc / vcores_per_device
 *   host_device_id = mla_idx
 *   routing_id     = (num_vcores / vcores_per_device) - 1 - mla_idx
 *
 * The per-host ("tdrv") facts may be changed by root at run time through
 * /sys/module/encd/parameters, so that tests can walk the pod table. They are
 * read under the module's parameter lock, so a comm never sees half of a
 * change. They are deliberately not range-checked here: rejecting a bad pod
 * is encd_gcomm_build()'s job, with libnrt's messages.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "encd_private.h"

static unsigned int num_vcores = 32;
module_param(num_vcores, uint, 0444);
MODULE_PARM_DESC(num_vcores, "Number of simulated virtual NeuronCores (1-256, default 32)");

static unsigned int vcores_per_device = 2;
module_param(vcores_per_device, uint, 0444);
MODULE_PARM_DESC(vcores_per_device, "NeuronCores per Neuron device (MLA) (default 2)");

static unsigned int pod_type;
module_param(pod_type, uint, 0644);
MODULE_PARM_DESC(pod_type, "Pod type of this host: 0 none, 1 P2P, 2 switch");

static unsigned int pod_node_id;
module_param(pod_node_id, uint, 0644);
MODULE_PARM_DESC(pod_node_id, "This host's node id in its pod");

static unsigned int pod_sz;
module_param(pod_sz, uint, 0644);
MODULE_PARM_DESC(pod_sz, "Number of nodes in the pod");

static unsigned long long reservation_id;
module_param(reservation_id, ullong, 0644);
MODULE_PARM_DESC(reservation_id, "This host's reservation id");

static unsigned int virtual_server_size;
module_param(virtual_server_size, uint, 0644);
MODULE_PARM_DESC(virtual_server_size, "Ranks per virtual server (0: no virtual servers)");

/**
 * encd_topology_num_vcores() - how many virtual NeuronCores there are
 *
 * Return: the num_vcores parameter, fixed at load.
 */
u32 encd_topology_num_vcores(void)
{
	return num_vcores;
}

/**
 * encd_topology_get_vcore() - what the device broker knows of a core
 * @vnc: the virtual NeuronCore
 * @vcore: out: its facts
 *
 * Return: 0, or -ENODEV when there is no such core.
 */
int encd_topology_get_vcore(u32 vnc, struct encd_vcore *vcore)
{
	u32 n_devices = num_vcores / vcores_per_device;

	if (vnc >= num_vcores)
		return -ENODEV;

	vcore->vnc = vnc;
	vcore->nec_dev_id = vnc;
	vcore->vtpb_idx = vnc;
	vcore->mla_idx = vnc / vcores_per_device;
	vcore->host_device_id = vcore->mla_idx;
	vcore->routing_id = n_devices - 1 - vcore->mla_idx;
	return 0;
}

/**
 * encd_topology_get_host() - this host's facts, as one snapshot
 * @host: out: the facts
 */
void encd_topology_get_host(struct encd_host_topology *host)
{
	kernel_param_lock(THIS_MODULE);
	host->pod_type = pod_type;
	host->pod_node_id = pod_node_id;
	host->pod_sz = pod_sz;
	host->reservation_id = reservation_id;
	host->virtual_server_size = virtual_server_size;
	kernel_param_unlock(THIS_MODULE);
}

/**
 * encd_topology_set_host() - the admin's change of this host's facts
 * @host: the new values
 * @which: ENCD_TOPO_* bits: the fields of @host to write
 *
 * The fields change together, under the same lock as the parameters'
 * sysfs files, so a comm being built sees all of a change or none of it.
 */
void encd_topology_set_host(const struct encd_host_topology *host, unsigned int which)
{
	kernel_param_lock(THIS_MODULE);
	if (which & ENCD_TOPO_POD_TYPE)
		pod_type = host->pod_type;
	if (which & ENCD_TOPO_POD_NODE_ID)
		pod_node_id = host->pod_node_id;
	if (which & ENCD_TOPO_POD_SZ)
		pod_sz = host->pod_sz;
	if (which & ENCD_TOPO_RESERVATION_ID)
		reservation_id = host->reservation_id;
	if (which & ENCD_TOPO_VIRTUAL_SERVER_SIZE)
		virtual_server_size = host->virtual_server_size;
	kernel_param_unlock(THIS_MODULE);
}

/**
 * encd_topology_init() - checks the load-time parameters
 *
 * Return: 0, or -EINVAL with the reason in the kernel log.
 */
int encd_topology_init(void)
{
	if (num_vcores < 1 || num_vcores > ENCD_NEC_MAX_DEVICES) {
		pr_err("num_vcores must be 1-%d, not %u\n", ENCD_NEC_MAX_DEVICES, num_vcores);
		return -EINVAL;
	}
	if (vcores_per_device < 1 || num_vcores % vcores_per_device) {
		pr_err("vcores_per_device (%u) must divide num_vcores (%u)\n",
		       vcores_per_device, num_vcores);
		return -EINVAL;
	}
	return 0;
}
