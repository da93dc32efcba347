// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection at the bootstrap's socket and crypto calls and at the
 * world table's allocations, for test builds (make ENCD_FAULT_INJECTION=y;
 * the debug lane builds so), through the kernel's fault-injection
 * framework: one attribute per point under /sys/kernel/debug/encd/
 * (fail_sock_create, fail_bind, fail_listen, fail_connect, fail_accept,
 * fail_send, fail_recv, fail_crypto, fail_table_alloc), each set like
 * failslab's (probability, interval, times, ...). The calls run in
 * workers as well as in the callers' ioctls, so per-task fail-nth cannot
 * reach them all; "interval" and "times" pick the Nth call instead.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include "encd_private.h"

static struct fault_attr attrs[ENCD_FAULT_N];
static const char *const names[ENCD_FAULT_N] = {
	[ENCD_FAULT_SOCK_CREATE] = "fail_sock_create",
	[ENCD_FAULT_BIND] = "fail_bind",
	[ENCD_FAULT_LISTEN] = "fail_listen",
	[ENCD_FAULT_CONNECT] = "fail_connect",
	[ENCD_FAULT_ACCEPT] = "fail_accept",
	[ENCD_FAULT_SEND] = "fail_send",
	[ENCD_FAULT_RECV] = "fail_recv",
	[ENCD_FAULT_CRYPTO] = "fail_crypto",
	[ENCD_FAULT_TABLE_ALLOC] = "fail_table_alloc",
};
static struct dentry *dir;

/**
 * encd_fault() - whether to fail at a point, as configured
 * @point: enum encd_fault_point
 *
 * Return: 0, or the errno to fail with (-EIO; -ENOMEM for crypto and the
 * table's allocations).
 */
int encd_fault(enum encd_fault_point point)
{
	if (!should_fail(&attrs[point], 1))
		return 0;
	return point == ENCD_FAULT_CRYPTO || point == ENCD_FAULT_TABLE_ALLOC ? -ENOMEM : -EIO;
}

/**
 * encd_fault_init() - makes the debugfs attributes
 */
void encd_fault_init(void)
{
	static const struct fault_attr init = FAULT_ATTR_INITIALIZER;
	unsigned int i;

	dir = debugfs_create_dir("encd", NULL);
	for (i = 0; i < ENCD_FAULT_N; i++) {
		attrs[i] = init;
		fault_create_debugfs_attr(names[i], dir, &attrs[i]);
	}
}

/**
 * encd_fault_exit() - removes them
 */
void encd_fault_exit(void)
{
	debugfs_remove_recursive(dir);
}
