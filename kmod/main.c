// SPDX-License-Identifier: GPL-2.0
/*
 * encd: collective-communication worlds for Neuron hosts.
 *
 * This file only brings the parts up in order and down in reverse; each part
 * lives in its own file. /dev/encd comes last, so nothing can reach the
 * module before the rest is ready.
 */
#include <linux/module.h>

#include "encd_private.h"

static int __init encd_init(void)
{
	int err;

	err = encd_topology_init();
	if (err)
		return err;
	err = encd_registry_init();
	if (err)
		return err;
	err = encd_signature_init();
	if (err)
		goto err_registry;
	/*
	 * Before /dev/encd: building a comm multicasts an event, which needs
	 * the family registered; a dump that comes first finds no comm.
	 */
	err = encd_netlink_init();
	if (err)
		goto err_signature;
	encd_auth_init();
	err = encd_link_init();
	if (err)
		goto err_netlink;
	encd_fault_init();
	err = encd_cdev_init();
	if (err)
		goto err_link;

	pr_info("loaded, %u virtual NeuronCores\n", encd_topology_num_vcores());
	return 0;

err_link:
	encd_fault_exit();
	encd_link_exit();
	encd_auth_exit();
err_netlink:
	encd_netlink_exit();
	encd_failure_exit();
err_signature:
	encd_signature_exit();
err_registry:
	encd_registry_exit();
	return err;
}

static void __exit encd_exit(void)
{
	encd_cdev_exit();
	/* Every file is closed: end the hosts passing news on, wait for every host. */
	encd_hosts_exit();
	encd_link_exit();
	encd_fault_exit();
	encd_auth_exit();
	encd_netlink_exit();
	encd_failure_exit();
	encd_signature_exit();
	/* Comms are freed after an RCU grace period: wait for them. */
	rcu_barrier();
	encd_registry_exit();
}

module_init(encd_init);
module_exit(encd_exit);

MODULE_DESCRIPTION("Collective-communication worlds for Neuron hosts");
MODULE_AUTHOR("The encd developers");
MODULE_LICENSE("GPL");
