/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_BARRIER_H
#define _ENCD_BARRIER_H

#include <linux/types.h>

struct enc_lbarrier;
struct enc_node;

/*
 * The local barrier of a comm: one object per unique id, shared by the
 * group's ranks on this host (they share this kernel, so no IPC is needed).
 * @n is how many of them there are; every rank that joins must agree.
 */
struct enc_lbarrier *enc_lbarrier_get(const u8 *uid, u32 n, int *err);
void enc_lbarrier_put(struct enc_lbarrier *lb);
/* Waits until all @n have arrived, a signal, or @deadline (jiffies). */
int enc_lbarrier_wait(struct enc_lbarrier *lb, unsigned long deadline);

/* A dissemination barrier over the node's group: ceil(log2 n) rounds. */
int enc_group_barrier(struct enc_node *node);

void enc_barrier_exit(void);

#endif /* _ENCD_BARRIER_H */
