// SPDX-License-Identifier: GPL-2.0
/*
 * The device broker: which NeuronCores exist and where they sit.
 *
 * Two sources supply the facts, one in force at a time:
 *
 * - the module parameters (the default, and what stays on a host with no
 *   Neuron driver), whose per-core facts are derived from the core's index
 *   in a fixed, documented way (Documentation/module-parameters.rst);
 * - the Neuron driver. It has no in-kernel API, so `encctl topo sync` reads
 *   its sysfs tree and pod ioctls and hands the result over netlink
 *   (encd_topology_sync()). Per core: vnc = index * core_count + core, its
 *   device's index is mla_idx and host_device_id, its routing id is the
 *   driver's. Documentation/assumptions.rst says what encd makes of each
 *   driver fact.
 *
 * The per-host facts of the parameters may be changed by root at run time
 * through /sys/module/encd/parameters or topo-set, so that tests can walk
 * the pod table. Everything is read and written under the module's
 * parameter lock, so a comm never sees half of a change or of a sync. The
 * pod facts are deliberately not range-checked here: rejecting a bad pod
 * is encd_gcomm_build()'s job, with libnrt's messages.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>

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

/*
 * The source in force, the neuron one's facts, and when they were filled;
 * like the parameters, under kernel_param_lock() (the functions named
 * *_locked() are called with it held).
 */
static u32 source = ENCD_TOPO_SOURCE_PARAMS;
static struct encd_neuron_topology neuron;
static time64_t synced_at;

static void lock(void)
{
	kernel_param_lock(THIS_MODULE);
}

static void unlock(void)
{
	kernel_param_unlock(THIS_MODULE);
}

static u32 vcores_locked(void)
{
	if (source == ENCD_TOPO_SOURCE_NEURON)
		return neuron.n_slots * neuron.core_count;
	return num_vcores;
}

/* The core's facts from the source in force; false: there is no such core. */
static bool vcore_locked(u32 vnc, struct encd_vcore *vcore)
{
	u32 mla;

	if (vnc >= vcores_locked())
		return false;
	if (source == ENCD_TOPO_SOURCE_NEURON) {
		mla = vnc / neuron.core_count;
		if (!(neuron.present & BIT_ULL(mla)))
			return false;
		vcore->routing_id = neuron.routing_id[mla];
	} else {
		mla = vnc / vcores_per_device;
		vcore->routing_id = num_vcores / vcores_per_device - 1 - mla;
	}
	vcore->vnc = vnc;
	vcore->nec_dev_id = vnc;
	vcore->vtpb_idx = vnc;
	vcore->mla_idx = mla;
	vcore->host_device_id = mla;
	return true;
}

static void host_locked(struct encd_host_topology *host)
{
	host->source = source;
	host->virtual_server_size = virtual_server_size;
	if (source == ENCD_TOPO_SOURCE_NEURON) {
		/* Off a pod the driver says node -1 whatever its pod type. */
		host->election = neuron.election;
		host->pod_type = neuron.node_id < 0 ? ENCD_POD_TYPE_NONE : neuron.pod_type;
		host->pod_node_id = neuron.node_id < 0 ? 0 : neuron.node_id;
		host->pod_sz = neuron.pod_sz;
		host->reservation_id = neuron.reservation_id;
		return;
	}
	host->election = false;
	host->pod_type = pod_type;
	host->pod_node_id = pod_node_id;
	host->pod_sz = pod_sz;
	host->reservation_id = reservation_id;
}

/**
 * encd_topology_num_vcores() - how many virtual NeuronCores there are
 *
 * Return: the cores of the source in force: the num_vcores parameter, or
 * every core of the Neuron driver's highest device and those below it.
 */
u32 encd_topology_num_vcores(void)
{
	u32 n;

	lock();
	n = vcores_locked();
	unlock();
	return n;
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
	bool found;

	lock();
	found = vcore_locked(vnc, vcore);
	unlock();
	return found ? 0 : -ENODEV;
}

/**
 * encd_topology_get() - a core's and its host's facts, as one snapshot
 * @vnc: the virtual NeuronCore
 * @vcore: out: its facts
 * @host: out: the host's
 *
 * A global comm is made from both: taken together, a sync between them
 * cannot give it one source's core and the other's pod.
 *
 * Return: 0, or -ENODEV when there is no such core (@host is filled then too).
 */
int encd_topology_get(u32 vnc, struct encd_vcore *vcore, struct encd_host_topology *host)
{
	bool found;

	lock();
	found = vcore_locked(vnc, vcore);
	host_locked(host);
	unlock();
	return found ? 0 : -ENODEV;
}

/**
 * encd_topology_snapshot() - everything the device broker knows, at once
 * @host: out: this host's facts, from the source in force
 * @facts: out: the neuron source's, in force or not (all 0 before a sync)
 * @num_vcores: out: the cores of the source in force
 *
 * What topo-get shows: taken together, a sync cannot come between the
 * source it names and the devices it lists.
 *
 * Return: when the neuron source was filled, in seconds since the epoch;
 * 0: never.
 */
time64_t encd_topology_snapshot(struct encd_host_topology *host,
				struct encd_neuron_topology *facts, u32 *num_vcores)
{
	time64_t at;

	lock();
	host_locked(host);
	*facts = neuron;
	*num_vcores = vcores_locked();
	at = synced_at;
	unlock();
	return at;
}

/**
 * encd_topology_set_host() - the admin's change of this host's facts
 * @host: the new values
 * @which: ENCD_TOPO_* bits: the fields of @host to write
 *
 * The fields change together, under the same lock as the parameters'
 * sysfs files, so a comm being built sees all of a change or none of it.
 * While the Neuron driver's facts are in force only the virtual server
 * size, a runtime setting in either source, may change: the pod is the
 * driver's.
 *
 * Return: 0, or -EBUSY when @which names a pod fact and the neuron source
 * is in force (nothing changes then).
 */
int encd_topology_set_host(const struct encd_host_topology *host, unsigned int which)
{
	lock();
	if (source == ENCD_TOPO_SOURCE_NEURON && (which & ~ENCD_TOPO_VIRTUAL_SERVER_SIZE)) {
		unlock();
		return -EBUSY;
	}
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
	unlock();
	return 0;
}

/**
 * encd_topology_sync() - puts a source in force
 * @facts: the Neuron driver's facts, checked by the caller
 *	(encd_neuron_topology_check()); NULL: the parameters again
 * @gone: out: the cores that existed before and no longer do, as the
 *	source that was in force saw them (their devices are named from it)
 *
 * Comms already built keep the facts they were built with; the caller
 * fails the worlds of @gone's cores.
 *
 * Return: how many cores @gone has.
 */
unsigned int encd_topology_sync(const struct encd_neuron_topology *facts,
				struct encd_topology_gone *gone)
{
	DECLARE_BITMAP(had, ENCD_NEC_MAX_DEVICES) = {};
	struct encd_vcore vc;
	unsigned int n = 0;
	u32 vnc;

	lock();
	for (vnc = 0; vnc < vcores_locked(); vnc++) {
		if (vcore_locked(vnc, &vc)) {
			__set_bit(vnc, had);
			gone->mla_idx[vnc] = vc.mla_idx;
		}
	}
	if (facts) {
		neuron = *facts;
		synced_at = ktime_get_real_seconds();
		source = ENCD_TOPO_SOURCE_NEURON;
	} else {
		source = ENCD_TOPO_SOURCE_PARAMS;
	}
	for_each_set_bit(vnc, had, ENCD_NEC_MAX_DEVICES) {
		if (!vcore_locked(vnc, &vc)) {
			__set_bit(vnc, gone->cores);
			n++;
		}
	}
	unlock();
	return n;
}

/**
 * encd_neuron_topology_check() - whether a sync's facts make a topology
 * @facts: the facts
 * @extack: where to say why not
 *
 * Return: 0, or -EINVAL.
 */
int encd_neuron_topology_check(const struct encd_neuron_topology *facts,
			       struct netlink_ext_ack *extack)
{
	if (!facts->present) {
		NL_SET_ERR_MSG(extack, "a Neuron topology needs at least one device");
		return -EINVAL;
	}
	if (facts->n_slots > ENCD_NEURON_MAX_DEVICES ||
	    facts->n_slots * facts->core_count > ENCD_NEC_MAX_DEVICES) {
		NL_SET_ERR_MSG(extack, "the Neuron devices have more cores than encd has (256)");
		return -EINVAL;
	}
	if (facts->node_id < -1 || facts->node_id > S8_MAX) {
		NL_SET_ERR_MSG(extack, "a Neuron node id is -1 (off a pod) to 127");
		return -EINVAL;
	}
	return 0;
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
