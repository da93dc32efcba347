/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_REGISTRY_H
#define _ENCD_REGISTRY_H

#include <linux/mutex.h>
#include <linux/encd.h>

struct enc_glb_comm;

/*
 * The encd registry: one global-comm slot per (nec_dev, ctx_id). Lookups
 * return a counted reference (put it with enc_glb_comm_put()) or NULL.
 */
struct enc_glb_comm *encd_get_global_comm(u32 nec_dev, u32 ctx_id);
/* The comm in a slot, without a reference: under encd_init_mutex(nec_dev). */
struct enc_glb_comm *encd_peek_global_comm(u32 nec_dev, u32 ctx_id);
void encd_set_global_comm(u32 nec_dev, u32 ctx_id, struct enc_glb_comm *g);
void encd_clear_global_comm(u32 nec_dev, u32 ctx_id, struct enc_glb_comm *g);

/*
 * Per nec_dev: the init mutex serialises creating, attaching and destroying
 * the global comms of that core; the setup mutex serialises bootstrapping
 * them. Lock order: setup before init. No two cores' mutexes nest.
 */
struct mutex *encd_init_mutex(u32 nec_dev);
u32 encd_registry_generation(void);
struct mutex *encd_setup_mutex(u32 nec_dev);

int enc_registry_init(void);
void enc_registry_exit(void);

#endif /* _ENCD_REGISTRY_H */
