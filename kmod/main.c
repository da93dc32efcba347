// SPDX-License-Identifier: GPL-2.0
/*
 * encd: collective-communication worlds for Neuron hosts.
 *
 * This file only brings the parts up in order and down in reverse; each part
 * lives in its own file. /dev/encd comes last, so nothing can reach the
 * module before the rest is ready.
 */
#include <linux/module.h>

#include "bootstrap.h"
#include "cdev.h"
#include "netlink.h"
#include "registry.h"
#include "signature.h"
#include "topology.h"

static int __init encd_init(void)
{
	int err;

	err = enc_topology_init();
	if (err)
		return err;
	err = enc_registry_init();
	if (err)
		return err;
	err = enc_signature_init();
	if (err)
		goto err_registry;
	/*
	 * Before /dev/encd: building a comm multicasts an event, which needs
	 * the family registered; a dump that comes first finds no comm.
	 */
	err = enc_netlink_init();
	if (err)
		goto err_signature;
	err = enc_bootstrap_init();
	if (err)
		goto err_netlink;
	err = enc_cdev_init();
	if (err)
		goto err_bootstrap;

	pr_info("loaded, %u virtual NeuronCores\n", enc_topology_num_vcores());
	return 0;

err_bootstrap:
	enc_bootstrap_exit();
err_netlink:
	enc_netlink_exit();
err_signature:
	enc_signature_exit();
err_registry:
	enc_registry_exit();
	return err;
}

static void __exit encd_exit(void)
{
	enc_cdev_exit();
	enc_bootstrap_exit();
	enc_netlink_exit();
	enc_signature_exit();
	/* Comms are freed after an RCU grace period: wait for them. */
	rcu_barrier();
	enc_registry_exit();
}

module_init(encd_init);
module_exit(encd_exit);

MODULE_DESCRIPTION("Collective-communication worlds for Neuron hosts");
MODULE_AUTHOR("The encd developers");
MODULE_LICENSE("GPL");
