// SPDX-License-Identifier: GPL-2.0
/*
 * The global communicator: libnrt's enc_init_global_comm and
 * encd_gcomm_validate, one object per (nec_dev, ctx_id).
 *
 * Creation is double-checked, as in libnrt: a lock-free lookup serves the
 * common case (the world already exists: attach to it), and the lookup is
 * repeated under the core's init mutex before anything is allocated, so two
 * racing builders make exactly one object.
 *
 * A comm is its builder's: the user (euid, in the initial user namespace)
 * and, when the administrator set encd's loopback_group and the builder is
 * in it, that group. Nobody else attaches to it, sets it up or keeps it,
 * root included: a core is never shared without its owner saying so. The
 * administrator may cap how many comms one user holds (max_comms_per_user).
 */
#include <linux/cred.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>

#include "encd_private.h"

static atomic64_t gcomm_serial = ATOMIC64_INIT(0);

/* Counting a user's comms and publishing one more, against the cap. */
static DEFINE_MUTEX(owners_lock);

static void gcomm_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct encd_gcomm, rcu));
}

static void gcomm_release(struct kref *ref)
{
	struct encd_gcomm *g = container_of(ref, struct encd_gcomm, ref);

	encd_sembuf_free(g->sem_page);
	put_net(g->net);
	call_rcu(&g->rcu, gcomm_free_rcu);
}

/**
 * encd_gcomm_get() - takes a reference to a comm
 * @g: the comm, or NULL
 *
 * Return: @g.
 */
struct encd_gcomm *encd_gcomm_get(struct encd_gcomm *g)
{
	if (g)
		kref_get(&g->ref);
	return g;
}

/**
 * encd_gcomm_put() - drops a reference to a comm
 * @g: the comm, or NULL
 *
 * The last one frees it after an RCU grace period (lookups are lock-free).
 */
void encd_gcomm_put(struct encd_gcomm *g)
{
	if (g)
		kref_put(&g->ref, gcomm_release);
}

/* One more holder, unless the comm is already on its way out. */
static bool gcomm_try_hold(struct encd_gcomm *g)
{
	return atomic_inc_not_zero(&g->holders);
}

/**
 * encd_gcomm_unhold() - a file lets go of the comm in a slot
 * @nec_dev: the core
 * @ctx_id: the context
 *
 * The last holder unpublishes the comm (and the slot's reference with it).
 * Takes the core's init mutex.
 */
void encd_gcomm_unhold(u32 nec_dev, u32 ctx_id)
{
	struct mutex *lock = encd_init_mutex(nec_dev);
	struct encd_gcomm *g;

	mutex_lock(lock);
	g = encd_peek_global_comm(nec_dev, ctx_id);
	if (!WARN_ON(!g) && atomic_dec_and_test(&g->holders)) {
		encd_nl_notify_gcomm(ENCD_NL_CMD_GCOMM_DEL_NTF, g);
		encd_clear_global_comm(nec_dev, ctx_id, g);
	}
	mutex_unlock(lock);
}

static int check_args(struct encd_ucmd *ucmd, const struct encd_gcomm_args *a,
		      struct encd_vcore *vcore, struct encd_host_topology *host)
{
	if (encd_topology_get(a->vnc, vcore, host))
		return encd_fail(ucmd, -ENODEV, "Failed to find core %u", a->vnc);
	if (a->ctx_id >= ENCD_MAX_CONTEXTS)
		return encd_fail(ucmd, -EINVAL, "Invalid context id %u (there are %u)",
				 a->ctx_id, ENCD_MAX_CONTEXTS);
	if (!a->g_device_cnt)
		return encd_fail(ucmd, -EINVAL, "Invalid world size 0");
	if (a->g_device_id >= a->g_device_cnt)
		return encd_fail(ucmd, -EINVAL, "Invalid global device id %u for a world of %u",
				 a->g_device_id, a->g_device_cnt);
	return 0;
}

/*
 * The builder's user, or a member of the group the comm was built for while
 * that group is still encd's loopback_group.
 */
static bool gcomm_user_may(const struct encd_gcomm *g)
{
	kgid_t gid;

	if (uid_eq(current_euid(), g->owner))
		return true;
	gid = encd_loopback_group();
	return gid_valid(g->group) && gid_eq(g->group, gid) && in_egroup_p(gid);
}

/**
 * encd_gcomm_check_user() - whether the caller may attach to or set up a comm
 * @ucmd: the command, for the failure sentence
 * @g: the comm
 *
 * Return: 0, or -EACCES with a sentence naming the comm's owner.
 */
int encd_gcomm_check_user(struct encd_ucmd *ucmd, const struct encd_gcomm *g)
{
	if (gcomm_user_may(g))
		return 0;
	return encd_fail_why(ucmd, -EACCES, ENCD_REASON_NOT_OWNER,
			     "Core %d context %u has a global comm of user %u: user %u may neither attach to it nor set it up (only its owner may, or encd's loopback_group if its owner built it as a member)",
			     g->nec_dev_id, g->ctx_id, from_kuid(&init_user_ns, g->owner),
			     from_kuid(&init_user_ns, current_euid()));
}

/*
 * The administrator's cap on the comms of one user; the caller holds
 * owners_lock until it has published the new comm (or given up).
 */
static int check_cap(struct encd_ucmd *ucmd)
{
	unsigned int cap = encd_max_comms_per_user(), n;
	kuid_t uid = current_euid();

	lockdep_assert_held(&owners_lock);
	if (!cap)
		return 0;
	n = encd_registry_count_owned(uid);
	if (n < cap)
		return 0;
	return encd_fail_why(ucmd, -EDQUOT, ENCD_REASON_USER_CAP,
			     "user %u holds %u global comms, the most max_comms_per_user=%u allows",
			     from_kuid(&init_user_ns, uid), n, cap);
}

/*
 * The world size and this rank's place in it are immutable once set: asking
 * for the same world attaches, asking for another one is an error.
 */
static int attach_same_world(struct encd_ucmd *ucmd, struct encd_gcomm *g,
			     const struct encd_gcomm_args *a)
{
	if (!net_eq(g->net, current->nsproxy->net_ns))
		return encd_fail(ucmd, -EBUSY,
				 "Core %u context %u has a global comm of another network namespace",
				 a->vnc, a->ctx_id);
	/* Before the world is compared: another user learns nothing of it. */
	if (encd_gcomm_check_user(ucmd, g))
		return -EACCES;
	if (g->g_device_id != a->g_device_id || g->g_device_cnt != a->g_device_cnt)
		return encd_fail_why(ucmd, -EINVAL, ENCD_REASON_WORLD_DIFFERS,
				     "NRT has already been setup with a collectives world size of %u (global device id %u), cannot set it up with world size %u (global device id %u) on core %u context %u",
				 g->g_device_cnt, g->g_device_id, a->g_device_cnt,
				 a->g_device_id, a->vnc, a->ctx_id);
	return gcomm_try_hold(g) ? 0 : -EAGAIN;
}

/*
 * libnrt's pod-topology validation, with its asymmetric node bound; and
 * no comm while the Neuron driver elects the pod, whose facts are not
 * known yet (Documentation/assumptions.rst).
 */
static int check_pod(struct encd_ucmd *ucmd, const struct encd_host_topology *host)
{
	u32 limit;

	if (host->election)
		return encd_fail_why(ucmd, -EAGAIN, ENCD_REASON_TOPOLOGY,
				     "the Neuron driver is electing this host's pod: no global comm is built until the election ends and encctl topo sync has run");
	if (host->pod_type > ENCD_POD_TYPE_SWITCH)
		return encd_fail_why(ucmd, -EINVAL, ENCD_REASON_TOPOLOGY, "Invalid pod_type: %u",
				     host->pod_type);
	if (host->pod_type == ENCD_POD_TYPE_NONE)
		return 0;

	limit = host->pod_type == ENCD_POD_TYPE_P2P ? host->pod_sz : ENCD_POD_SWITCH_MAX_NODES;
	if (host->pod_node_id >= limit)
		return encd_fail_why(ucmd, -EINVAL, ENCD_REASON_TOPOLOGY,
				     "Invalid pod_node_id: %u (pod_size: %u) pod_type:%d",
				     host->pod_node_id, host->pod_sz, host->pod_type);
	return 0;
}

static struct encd_gcomm *gcomm_create(struct encd_ucmd *ucmd, const struct encd_gcomm_args *a,
					const struct encd_vcore *vcore,
					const struct encd_host_topology *host)
{
	struct encd_gcomm *g;
	kgid_t gid;
	int err;

	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return ERR_PTR(encd_fail(ucmd, -ENOMEM, "Failed to allocate the global comm"));
	kref_init(&g->ref);
	spin_lock_init(&g->rank_lock);
	atomic_set(&g->holders, 1);
	g->net = get_net(current->nsproxy->net_ns);
	g->created_ns = ktime_get_boottime_ns();
	g->owner = current_euid();
	gid = encd_loopback_group();
	g->group = gid_valid(gid) && in_egroup_p(gid) ? gid : INVALID_GID;

	if (host->virtual_server_size) {
		if (a->g_device_cnt % host->virtual_server_size) {
			err = encd_fail_why(ucmd, -EINVAL, ENCD_REASON_TOPOLOGY,
					    "virtual server size %u is not a divisor of world size %u",
					host->virtual_server_size, a->g_device_cnt);
			goto fail;
		}
		g->virtual_server_id = a->g_device_id / host->virtual_server_size;
	}
	g->g_device_id = a->g_device_id;
	g->g_device_cnt = a->g_device_cnt;
	g->vtpb_idx = vcore->vtpb_idx;
	g->reservation_id = host->reservation_id;
	g->pod_sz = host->pod_sz;
	g->nec_dev_id = vcore->nec_dev_id;
	g->mla_idx = vcore->mla_idx;
	g->host_device_id = vcore->host_device_id;
	g->routing_id = vcore->routing_id;
	strscpy(g->root_comm_id, a->root_comm_id, sizeof(g->root_comm_id));
	g->pod_type = host->pod_type;
	g->pod_node_id = host->pod_node_id;
	g->check_sigs = a->check_sigs;
	g->ctx_id = a->ctx_id;
	g->state = ENCD_GCOMM_BUILT;

	g->sem_page = encd_sembuf_alloc();
	if (!g->sem_page) {
		err = encd_fail(ucmd, -ENOMEM,
				"global comm failed to mmap memory for the semaphore increment value buffer");
		goto fail;
	}

	err = check_pod(ucmd, host);
	if (err)
		goto fail;

	g->serial = atomic64_inc_return(&gcomm_serial);
	return g;

fail:
	encd_gcomm_put(g);
	return ERR_PTR(err);
}

/**
 * encd_gcomm_build() - libnrt's enc_init_global_comm
 * @ucmd: the command, for the failure sentence
 * @a: what the caller asked for
 * @created: out: whether this call made the comm
 *
 * Attaches to the core's comm when it has the same world, else makes one
 * after libnrt's checks, double-checked under the core's init mutex.
 *
 * Return: a counted reference to the comm, with one more holder on it, or
 * an ERR_PTR() with the reason in @ucmd.
 */
struct encd_gcomm *encd_gcomm_build(struct encd_ucmd *ucmd, const struct encd_gcomm_args *a,
				    bool *created)
{
	struct encd_host_topology host;
	struct encd_vcore vcore;
	struct encd_gcomm *g;
	struct mutex *lock;
	int err;

	*created = false;
	err = check_args(ucmd, a, &vcore, &host);
	if (err)
		return ERR_PTR(err);

	/* The idempotent fast path: the same world is already set up. */
	g = encd_get_global_comm(vcore.nec_dev_id, a->ctx_id);
	if (g) {
		err = attach_same_world(ucmd, g, a);
		if (!err)
			return g;
		encd_gcomm_put(g);
		if (err != -EAGAIN)
			return ERR_PTR(err);
		/* It is being destroyed: go the slow way. */
	}

	lock = encd_init_mutex(vcore.nec_dev_id);
	mutex_lock(lock);

	/* Another caller may have set it up while we waited for the lock. */
	g = encd_get_global_comm(vcore.nec_dev_id, a->ctx_id);
	if (g) {
		err = attach_same_world(ucmd, g, a);
		/* Under the lock a published comm always has holders. */
		WARN_ON(err == -EAGAIN);
		if (err) {
			encd_gcomm_put(g);
			g = ERR_PTR(err);
		}
		goto out;
	}

	mutex_lock(&owners_lock);
	err = check_cap(ucmd);
	g = err ? ERR_PTR(err) : gcomm_create(ucmd, a, &vcore, &host);
	if (IS_ERR(g)) {
		mutex_unlock(&owners_lock);
		goto out;
	}

	/* The slot takes the first reference, the caller a second one. */
	encd_set_global_comm(vcore.nec_dev_id, a->ctx_id, g);
	mutex_unlock(&owners_lock);
	encd_gcomm_get(g);
	*created = true;
	encd_nl_notify_gcomm(ENCD_NL_CMD_GCOMM_ADD_NTF, g);
	pr_debug("global comm %llu: core %u ctx %u rank %u of %u\n", g->serial,
		 vcore.nec_dev_id, a->ctx_id, g->g_device_id, g->g_device_cnt);
out:
	mutex_unlock(lock);
	return g;
}

/**
 * encd_gcomm_validate() - libnrt's enc_validate_global_comm
 * @ucmd: the command, for the failure sentence
 * @a: what the caller asked for; @a->g_device_cnt is the NEFF's world size
 * @created: out: whether this call made the comm
 *
 * With no comm on the core this is encd_gcomm_build(). Otherwise a NEFF
 * world larger than the comm's fails; a smaller one passes only once the
 * comm is bootstrapped.
 *
 * Return: as encd_gcomm_build().
 */
struct encd_gcomm *encd_gcomm_validate(struct encd_ucmd *ucmd, const struct encd_gcomm_args *a,
				       bool *created)
{
	struct encd_vcore vcore;
	struct encd_gcomm *g;
	int err = 0;

	*created = false;
	if (encd_topology_get_vcore(a->vnc, &vcore))
		return ERR_PTR(encd_fail(ucmd, -ENODEV, "Failed to find core %u", a->vnc));
	if (a->ctx_id >= ENCD_MAX_CONTEXTS)
		return ERR_PTR(encd_fail(ucmd, -EINVAL, "Invalid context id %u (there are %u)",
					 a->ctx_id, ENCD_MAX_CONTEXTS));

	g = encd_get_global_comm(vcore.nec_dev_id, a->ctx_id);
	if (!g)
		return encd_gcomm_build(ucmd, a, created);
	if (!net_eq(g->net, current->nsproxy->net_ns)) {
		encd_gcomm_put(g);
		return ERR_PTR(encd_fail(ucmd, -EBUSY,
					 "Core %u context %u has a global comm of another network namespace",
					 a->vnc, a->ctx_id));
	}
	err = encd_gcomm_check_user(ucmd, g);
	if (err) {
		encd_gcomm_put(g);
		return ERR_PTR(err);
	}

	/*
	 * A NEFF may use a subset of the world, but only once the full world
	 * has been bootstrapped: a sub-world NEFF cannot bootstrap it itself.
	 */
	if (g->g_device_cnt < a->g_device_cnt)
		err = encd_fail_why(ucmd, -EINVAL, ENCD_REASON_WORLD_DIFFERS,
				    "World size of neff %u is greater than world size of global communicator %u",
				a->g_device_cnt, g->g_device_cnt);
	else if (g->g_device_cnt != a->g_device_cnt &&
		 READ_ONCE(g->state) != ENCD_GCOMM_BOOTSTRAPPED)
		err = encd_fail_why(ucmd, -EINVAL, ENCD_REASON_WORLD_DIFFERS,
				    "World size of neff != global communicator. Recommend nrt_build_global_comm first.");
	else if (!gcomm_try_hold(g)) {
		encd_gcomm_put(g);
		return encd_gcomm_build(ucmd, a, created);
	}

	if (err) {
		encd_gcomm_put(g);
		return ERR_PTR(err);
	}
	return g;
}

/**
 * encd_gcomm_fill_header() - the comm's read-only view for user space
 * @g: the comm
 * @h: out: the header, with libnrt's offsets
 */
void encd_gcomm_fill_header(struct encd_gcomm *g, struct encd_glb_comm_header *h)
{
	memset(h, 0, sizeof(*h));
	h->g_device_id = g->g_device_id;
	h->g_device_cnt = g->g_device_cnt;
	h->vtpb_idx = g->vtpb_idx;
	h->nec_dev_id = g->nec_dev_id;
	h->mla_idx = g->mla_idx;
	h->host_device_id = g->host_device_id;
	h->routing_id = g->routing_id;
	h->virtual_server_id = g->virtual_server_id;
	h->pod_type = g->pod_type;
	h->pod_node_id = g->pod_node_id;
	h->pod_sz = g->pod_sz;
	h->reservation_id = g->reservation_id;
	h->check_sigs = g->check_sigs;
	h->inc_recv_sem_values_buffer = ENCD_SEM_MMAP_OFFSET(g->nec_dev_id, g->ctx_id, PAGE_SIZE);
	h->inc_recv_sem_values_buffer_size = ENCD_SEM_VALUES_SIZE;
	h->serial = g->serial;
	h->holders = atomic_read(&g->holders);
	h->state = READ_ONCE(g->state);
	h->ctx_id = g->ctx_id;
	strscpy(h->root_comm_id, g->root_comm_id, sizeof(h->root_comm_id));
}

/* The header keeps the original encd_gcomm's offsets; see the uapi. */
#define ASSERT_OFFSET(field, off) \
	static_assert(offsetof(struct encd_glb_comm_header, field) == (off))
ASSERT_OFFSET(g_device_id, 0);
ASSERT_OFFSET(g_device_cnt, 4);
ASSERT_OFFSET(vtpb_idx, 8);
ASSERT_OFFSET(nec_dev_id, 12);
ASSERT_OFFSET(mla_idx, 16);
ASSERT_OFFSET(host_device_id, 20);
ASSERT_OFFSET(routing_id, 24);
ASSERT_OFFSET(virtual_server_id, 28);
ASSERT_OFFSET(pod_type, 32);
ASSERT_OFFSET(pod_node_id, 36);
ASSERT_OFFSET(pod_sz, 40);
ASSERT_OFFSET(reservation_id, 48);
ASSERT_OFFSET(__root_comm_id_ptr, 56);
ASSERT_OFFSET(check_sigs, 64);
ASSERT_OFFSET(inc_recv_sem_values_buffer, 192);
ASSERT_OFFSET(inc_recv_sem_values_buffer_size, 200);
