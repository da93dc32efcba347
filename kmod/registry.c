// SPDX-License-Identifier: GPL-2.0
/*
 * The encd registry: the seed's two-slot-per-core table of global comms.
 *
 * Each slot is an RCU-protected pointer that owns one reference to the comm
 * it points at. Publishing and unpublishing happen under the core's init
 * mutex; lookups are lock-free and hand back their own reference, taken with
 * kref_get_unless_zero() so that a comm on its way out is never revived.
 *
 * Lock order: encd_setup_mutex(dev) -> encd_init_mutex(dev) -> encd_file.lock.
 * Mutexes of two different cores never nest.
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "gcomm.h"
#include "registry.h"

static struct enc_glb_comm __rcu *slots[ENCD_NEC_MAX_DEVICES][ENCD_MAX_CONTEXTS];
static struct mutex init_mutexes[ENCD_NEC_MAX_DEVICES];
static struct mutex setup_mutexes[ENCD_NEC_MAX_DEVICES];
static atomic_t generation = ATOMIC_INIT(1);

/* Changes whenever a comm is published or unpublished: dumps check it. */
u32 encd_registry_generation(void)
{
	return atomic_read(&generation);
}

struct mutex *encd_init_mutex(u32 nec_dev)
{
	return &init_mutexes[nec_dev];
}

struct mutex *encd_setup_mutex(u32 nec_dev)
{
	return &setup_mutexes[nec_dev];
}

struct enc_glb_comm *encd_get_global_comm(u32 nec_dev, u32 ctx_id)
{
	struct enc_glb_comm *g;

	if (WARN_ON_ONCE(nec_dev >= ENCD_NEC_MAX_DEVICES || ctx_id >= ENCD_MAX_CONTEXTS))
		return NULL;

	rcu_read_lock();
	g = rcu_dereference(slots[nec_dev][ctx_id]);
	if (g && !kref_get_unless_zero(&g->ref))
		g = NULL;
	rcu_read_unlock();
	return g;
}

struct enc_glb_comm *encd_peek_global_comm(u32 nec_dev, u32 ctx_id)
{
	return rcu_dereference_protected(slots[nec_dev][ctx_id],
					 lockdep_is_held(encd_init_mutex(nec_dev)));
}

/* Publishes @g, handing the slot the caller's reference. */
void encd_set_global_comm(u32 nec_dev, u32 ctx_id, struct enc_glb_comm *g)
{
	lockdep_assert_held(encd_init_mutex(nec_dev));
	WARN_ON(rcu_access_pointer(slots[nec_dev][ctx_id]));
	rcu_assign_pointer(slots[nec_dev][ctx_id], g);
	atomic_inc(&generation);
}

/* Unpublishes @g and drops the slot's reference. */
void encd_clear_global_comm(u32 nec_dev, u32 ctx_id, struct enc_glb_comm *g)
{
	lockdep_assert_held(encd_init_mutex(nec_dev));
	if (WARN_ON(rcu_access_pointer(slots[nec_dev][ctx_id]) != g))
		return;
	RCU_INIT_POINTER(slots[nec_dev][ctx_id], NULL);
	atomic_inc(&generation);
	enc_glb_comm_put(g);
}

int enc_registry_init(void)
{
	int i;

	for (i = 0; i < ENCD_NEC_MAX_DEVICES; i++) {
		mutex_init(&init_mutexes[i]);
		mutex_init(&setup_mutexes[i]);
	}
	return 0;
}

/* Every fd is closed by now, so every slot is empty. */
void enc_registry_exit(void)
{
	int dev, ctx;

	for (dev = 0; dev < ENCD_NEC_MAX_DEVICES; dev++) {
		for (ctx = 0; ctx < ENCD_MAX_CONTEXTS; ctx++)
			WARN_ON(rcu_access_pointer(slots[dev][ctx]));
		mutex_destroy(&init_mutexes[dev]);
		mutex_destroy(&setup_mutexes[dev]);
	}
}
