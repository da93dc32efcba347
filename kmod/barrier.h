/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_BARRIER_H
#define _ENCD_BARRIER_H

#include <linux/types.h>

struct encd_lbarrier;
struct encd_node;

/*
 * The local barrier of a comm: one object per unique id, shared by the
 * group's ranks on this host (they share this kernel, so no IPC is needed).
 * @n is how many of them there are; every rank that joins must agree.
 */
struct encd_lbarrier *encd_lbarrier_get(const u8 *uid, u32 n, int *err);
void encd_lbarrier_put(struct encd_lbarrier *lb);
/* Waits until all @n have arrived, a signal, or @deadline (jiffies). */
int encd_lbarrier_wait(struct encd_lbarrier *lb, unsigned long deadline);

/* A dissemination barrier over the node's group: ceil(log2 n) rounds. */
int encd_group_barrier(struct encd_node *node);

void encd_barrier_exit(void);

#endif /* _ENCD_BARRIER_H */
