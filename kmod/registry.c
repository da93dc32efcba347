// SPDX-License-Identifier: GPL-2.0
/*
 * The encd registry: libnrt's two-slot-per-core table of global comms.
 *
 * Each slot is an RCU-protected pointer that owns one reference to the comm
 * it points at. Publishing and unpublishing happen under the core's init
 * mutex; lookups are lock-free and hand back their own reference, taken with
 * kref_get_unless_zero() so that a comm on its way out is never revived.
 *
 * Locking: see encd_private.h.
 */
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "encd_private.h"

static struct encd_gcomm __rcu *slots[ENCD_NEC_MAX_DEVICES][ENCD_MAX_CONTEXTS];
static struct mutex init_mutexes[ENCD_NEC_MAX_DEVICES];
static atomic_t generation = ATOMIC_INIT(1);

/**
 * encd_registry_generation() - the registry's generation
 *
 * Return: a number that changes whenever a comm is published or
 * unpublished; netlink dumps compare it between their parts.
 */
u32 encd_registry_generation(void)
{
	return atomic_read(&generation);
}

/**
 * encd_init_mutex() - the init mutex of a core
 * @nec_dev: the core, below ENCD_NEC_MAX_DEVICES
 *
 * It serialises creating, attaching and destroying the core's comms.
 *
 * Return: the mutex.
 */
struct mutex *encd_init_mutex(u32 nec_dev)
{
	return &init_mutexes[nec_dev];
}

/**
 * encd_get_global_comm() - libnrt's encd_get_global_comm, counted
 * @nec_dev: the core
 * @ctx_id: the context
 *
 * Lock-free; a comm on its way out is not revived.
 *
 * Return: a counted reference (encd_gcomm_put() it), or NULL.
 */
struct encd_gcomm *encd_get_global_comm(u32 nec_dev, u32 ctx_id)
{
	struct encd_gcomm *g;

	if (WARN_ON_ONCE(nec_dev >= ENCD_NEC_MAX_DEVICES || ctx_id >= ENCD_MAX_CONTEXTS))
		return NULL;

	rcu_read_lock();
	g = rcu_dereference(slots[nec_dev][ctx_id]);
	if (g && !kref_get_unless_zero(&g->ref))
		g = NULL;
	rcu_read_unlock();
	return g;
}

/**
 * encd_peek_global_comm() - the comm in a slot, without a reference
 * @nec_dev: the core, whose init mutex the caller holds
 * @ctx_id: the context
 *
 * Return: the comm or NULL; valid while the init mutex is held.
 */
struct encd_gcomm *encd_peek_global_comm(u32 nec_dev, u32 ctx_id)
{
	lockdep_assert_held(encd_init_mutex(nec_dev));
	return rcu_dereference_protected(slots[nec_dev][ctx_id],
					 lockdep_is_held(encd_init_mutex(nec_dev)));
}

/**
 * encd_set_global_comm() - libnrt's encd_set_global_comm: publishes a comm
 * @nec_dev: the core, whose init mutex the caller holds
 * @ctx_id: the context; its slot must be empty
 * @g: the comm; the slot takes the caller's reference
 */
void encd_set_global_comm(u32 nec_dev, u32 ctx_id, struct encd_gcomm *g)
{
	lockdep_assert_held(encd_init_mutex(nec_dev));
	WARN_ON(rcu_access_pointer(slots[nec_dev][ctx_id]));
	rcu_assign_pointer(slots[nec_dev][ctx_id], g);
	atomic_inc(&generation);
}

/**
 * encd_clear_global_comm() - unpublishes a comm
 * @nec_dev: the core, whose init mutex the caller holds
 * @ctx_id: the context
 * @g: the comm in the slot; the slot's reference is dropped
 */
void encd_clear_global_comm(u32 nec_dev, u32 ctx_id, struct encd_gcomm *g)
{
	lockdep_assert_held(encd_init_mutex(nec_dev));
	if (WARN_ON(rcu_access_pointer(slots[nec_dev][ctx_id]) != g))
		return;
	RCU_INIT_POINTER(slots[nec_dev][ctx_id], NULL);
	atomic_inc(&generation);
	encd_gcomm_put(g);
}

/**
 * encd_registry_count_owned() - how many published comms a user owns
 * @uid: the user
 *
 * Lock-free; exact only while every publisher is excluded (gcomm.c
 * publishes under its owners' lock). A comm on its way out (no holders
 * left) is not counted.
 *
 * Return: the count.
 */
unsigned int encd_registry_count_owned(kuid_t uid)
{
	struct encd_gcomm *g;
	unsigned int n = 0;
	int dev, ctx;

	rcu_read_lock();
	for (dev = 0; dev < ENCD_NEC_MAX_DEVICES; dev++) {
		for (ctx = 0; ctx < ENCD_MAX_CONTEXTS; ctx++) {
			g = rcu_dereference(slots[dev][ctx]);
			if (g && uid_eq(g->owner, uid) && atomic_read(&g->holders))
				n++;
		}
	}
	rcu_read_unlock();
	return n;
}

int encd_registry_init(void)
{
	int i;

	for (i = 0; i < ENCD_NEC_MAX_DEVICES; i++)
		mutex_init(&init_mutexes[i]);
	return 0;
}

/* Every fd is closed by now, so every slot is empty. */
void encd_registry_exit(void)
{
	int dev, ctx;

	for (dev = 0; dev < ENCD_NEC_MAX_DEVICES; dev++) {
		for (ctx = 0; ctx < ENCD_MAX_CONTEXTS; ctx++)
			WARN_ON(rcu_access_pointer(slots[dev][ctx]));
		mutex_destroy(&init_mutexes[dev]);
	}
}
