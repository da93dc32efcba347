// SPDX-License-Identifier: GPL-2.0
/*
 * A world's lifetime and the bootstrap ioctls: libnrt's enc_setup_global_comm
 * (rendezvous, then get_nccl_comm for the global replica group, then its
 * invariants), enc_init_replica_groups, the barriers and what a rank may
 * know of its comms. The protocol itself is in bootstrap.c.
 *
 * A world is formed once per global comm, by the file that asks for it, and
 * belongs to that file. Everything in it is used under its core's setup
 * mutex (encd_setup_mutex()), taken interruptibly by the ioctls.
 */
#include <crypto/algapi.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/mm.h>
#include <net/net_namespace.h>

#include "barrier.h"
#include "bootstrap.h"
#include "encd_private.h"
#include "schedule.h"

static unsigned int bootstrap_timeout_ms = 60000;
module_param(bootstrap_timeout_ms, uint, 0644);
MODULE_PARM_DESC(bootstrap_timeout_ms,
		 "Deadline of one bootstrap operation in milliseconds (default 60000)");

/* This host's identity in peer tables: the same for every rank on it. */
u8 encd_host_id[ENCD_HOST_ID_LEN];

u32 encd_bootstrap_timeout_ms(void)
{
	return clamp_t(u32, READ_ONCE(bootstrap_timeout_ms), 1, 24 * 3600 * 1000);
}

/* World lifetime */

static void world_destroy(struct encd_world *w)
{
	unsigned int i;

	for (i = 0; i < ENCD_MAX_COMM_N; i++)
		encd_node_put(w->groups[i]);
	encd_node_put(w->global_node);
	for (i = 0; i < ENCD_MAX_STREAM_N; i++)
		WARN_ON(!encd_pool_empty(&w->pools[i]));
	encd_xport_destroy(&w->x);
	kvfree(w->peers);
	encd_gcomm_put(w->g);
	kfree(w);
}

static void world_publish(struct encd_gcomm *g, struct encd_world *w)
{
	mutex_lock(&encd_pool_view_lock);
	g->world = w;
	mutex_unlock(&encd_pool_view_lock);
}

static struct encd_world *world_alloc(struct encd_gcomm *g, struct encd_file *owner,
				     u32 timeout_ms)
{
	struct encd_world *w;
	unsigned int i;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return NULL;
	w->g = encd_gcomm_get(g);
	w->owner = owner;
	w->timeout_ms = timeout_ms;
	for (i = 0; i < ENCD_MAX_STREAM_N; i++)
		encd_pool_init(&w->pools[i]);
	w->x.err = w->err;
	w->x.err_len = sizeof(w->err);
	w->x.net = get_net(current->nsproxy->net_ns);
	return w;
}

/*
 * Opens, before the world's bootstrap starts, every link the rank will send
 * on in it (its tree parent, hypercube children, ring successor, barrier
 * partners), so that the connects of all ranks overlap instead of adding a
 * round trip to each level of the trees.
 */
static int open_world_links(struct encd_world *w)
{
	u32 r = w->x.rank, n = w->x.nranks, k;
	u64 step;
	int err = 0;

	if (n == 1)
		return 0;
	if (r && w->g->check_sigs)
		err = encd_xport_link(&w->x, encd_tree_parent(r));
	for (step = encd_cube_mask(r, n) >> 1; step && !err; step >>= 1)
		if (encd_cube_send_ok(r, n, step))
			err = encd_xport_link(&w->x, r + (u32)step);
	for (k = 0; k < encd_ceil_log2(n) && !err; k++)
		err = encd_xport_link(&w->x, encd_dissem_to(r, n, k));
	return err;
}

/*
 * libnrt's enc_setup_global_comm_internal and its invariants: rendezvous,
 * then get_nccl_comm for the global replica group.
 */
static int world_form(struct encd_world *w)
{
	struct encd_gcomm *g = w->g;
	struct encd_host_topology host;
	struct sockaddr_storage root = {};
	struct encd_peer_info self = {};
	u8 zero_sig[ENCD_SIG_LEN] = {};
	struct encd_node *node;
	u32 n = g->g_device_cnt, i, *key;
	bool hit;
	int err;

	encd_xport_begin(&w->x, w->timeout_ms);
	if (n > ENCD_WORLD_MAX)
		return encd_xport_fail(&w->x, -EINVAL, "A world of %u ranks is larger than %u",
				      n, ENCD_WORLD_MAX);
	if (encd_xport_parse_addr(g->root_comm_id, &root) && n > 1)
		return encd_xport_fail(&w->x, -EINVAL,
				      "root_comm_id \"%s\" is not host:port (a numeric IPv4 address, [IPv6] or localhost)",
				      g->root_comm_id);

	encd_topology_get_host(&host);
	memcpy(self.host_id, encd_host_id, sizeof(self.host_id));
	self.pod_type = g->pod_type;
	self.pod_node_id = g->pod_node_id;
	self.pod_sz = g->pod_sz;
	self.nec_dev = g->nec_dev_id;

	w->rendezvous_start = ktime_get_boottime_ns();
	err = encd_rendezvous(&w->x, &root, n, g->g_device_id, &self, &w->peers);
	if (err)
		return encd_xport_fail(&w->x, err, "rendezvous failed (%d)", err);
	w->rendezvous_ns = ktime_get_boottime_ns() - w->rendezvous_start;

	err = open_world_links(w);
	if (err)
		return err;

	key = kvmalloc_array(n, sizeof(*key), GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		key[i] = i;
	node = encd_get_nccl_comm(w, key, n, g->g_device_id, 0, U32_MAX, zero_sig, &hit, &err);
	kvfree(key);
	if (!node)
		return err;
	w->global_node = node;

	/* enc_setup_global_comm's invariants: the identity and the comm agree. */
	if (WARN_ON(node->rank != g->g_device_id || node->rank_n != g->g_device_cnt))
		return encd_xport_fail(&w->x, -EPROTO,
				      "the global comm's rank %u of %u differs from its identity %u of %u",
				      node->rank, node->rank_n, g->g_device_id, g->g_device_cnt);
	return 0;
}

/* ioctls */

/*
 * Resolves (vnc, ctx_id), checks the file holds that comm and takes the
 * core's setup mutex; on success *@gp is a counted reference.
 */
static int enter(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, struct encd_gcomm **gp)
{
	struct encd_gcomm *g;

	g = encd_ucmd_get_gcomm(ucmd, vnc, ctx_id, ENCD_UCMD_HELD);
	if (IS_ERR(g))
		return PTR_ERR(g);
	if (mutex_lock_interruptible(encd_setup_mutex(g->nec_dev_id))) {
		encd_gcomm_put(g);
		return -EINTR;
	}
	*gp = g;
	return 0;
}

static void leave(struct encd_gcomm *g)
{
	mutex_unlock(encd_setup_mutex(g->nec_dev_id));
	encd_gcomm_put(g);
}

static u32 timeout_of(u32 asked)
{
	return asked ?: encd_bootstrap_timeout_ms();
}

/* The world this file formed on @g, for the commands that use it; or an errno. */
static int owned_world(struct encd_ucmd *ucmd, struct encd_gcomm *g, struct encd_world **wp)
{
	struct encd_world *w = g->world;

	if (!w)
		return encd_fail(ucmd, -ENOENT,
				 "The global comm of core %d context %u has not been set up: call enc_setup_global_comm first",
				 g->nec_dev_id, g->ctx_id);
	if (w->owner != ucmd->file)
		return encd_fail(ucmd, -EBUSY,
				 "The world of core %d context %u belongs to another process",
				 g->nec_dev_id, g->ctx_id);
	*wp = w;
	return 0;
}

static int world_secret(struct encd_ucmd *ucmd, struct encd_world *w,
			const struct encd_setup_global_comm *cmd)
{
	u8 key[ENCD_WORLD_SECRET_MAX];
	int err;

	BUILD_BUG_ON(ENCD_WORLD_SECRET_MAX != ENCD_SECRET_MAX);
	if (!cmd->secret_len)
		return 0;
	if (cmd->secret_len > sizeof(key))
		return encd_fail(ucmd, -EINVAL, "A world secret is at most %u bytes, not %u",
				 ENCD_WORLD_SECRET_MAX, cmd->secret_len);
	if (copy_from_user(key, u64_to_user_ptr(cmd->secret_uptr), cmd->secret_len))
		return -EFAULT;
	err = encd_xport_set_secret(&w->x, key, cmd->secret_len);
	memzero_explicit(key, sizeof(key));
	if (err)
		return encd_fail(ucmd, err, "Cannot key HMAC-SHA256 with the world secret (%d)",
				 err);
	return 0;
}

int encd_world_ioctl_setup(struct encd_ucmd *ucmd)
{
	struct encd_setup_global_comm *cmd = ucmd->cmd;
	struct encd_gcomm *g;
	struct encd_world *w;
	int err;

	if (cmd->__reserved || cmd->__reserved2)
		return encd_fail(ucmd, -EINVAL, "reserved fields must be 0");
	err = enter(ucmd, cmd->vnc, cmd->ctx_id, &g);
	if (err)
		return err;

	w = g->world;
	cmd->out_flags = 0;
	if (!w) {
		w = world_alloc(g, ucmd->file, timeout_of(cmd->timeout_ms));
		if (!w) {
			err = encd_fail(ucmd, -ENOMEM, "Failed to allocate the world");
			goto out;
		}
		err = world_secret(ucmd, w, cmd);
		if (err) {
			world_destroy(w);
			goto out;
		}
		/* Published while it forms, so that netlink shows its nodes. */
		world_publish(g, w);
		err = world_form(w);
		if (err) {
			encd_fail(ucmd, err, "%s", w->err[0] ? w->err : "world formation failed");
			world_publish(g, NULL);
			world_destroy(w);
			goto out;
		}
		WRITE_ONCE(g->state, ENCD_GCOMM_BOOTSTRAPPED);
		cmd->out_flags = ENCD_SETUP_OUT_FORMED;
		pr_debug("rank %u of %u: world formed\n", g->g_device_id, g->g_device_cnt);
	}
	cmd->rank = w->global_node->rank;
	cmd->rank_n = w->global_node->rank_n;
	memcpy(cmd->phase_ns, w->global_node->phase_ns, sizeof(cmd->phase_ns));
	cmd->phase_ns[ENCD_PHASE_RENDEZVOUS] = w->rendezvous_ns;
out:
	leave(g);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

/* What get_nccl_comm needs of a group, copied out from under the file lock. */
struct encd_group_req {
	u32 group_id, rank_n, rank, stream_id, num_ops;
	u8 sig[ENCD_SIG_LEN];
	u32 *key;
};

static int copy_groups(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, struct encd_group_req *req,
		       u32 *n)
{
	struct encd_file *file = ucmd->file;
	struct encd_program *prog;
	u32 i;
	int err;

	*n = 0;
	mutex_lock(&file->lock);
	prog = encd_program_find(ucmd, vnc, ctx_id);
	err = PTR_ERR_OR_ZERO(prog);
	if (err)
		goto out;
	if (prog->state == ENCD_PROGRAM_PARSE) {
		if (!prog->is_signed)
			err = encd_program_sign(ucmd, prog, 0);
		if (!err)
			err = encd_program_seal(ucmd, prog);
		if (err)
			goto out;
	}
	for (i = 0; i < prog->n_groups; i++) {
		const struct encd_replica_group *rg = &prog->groups[i];
		struct encd_group_req *r = &req[i];

		r->group_id = rg->group_id;
		r->rank_n = rg->rank_n;
		r->rank = rg->bootstrap_rank;
		r->stream_id = rg->stream_id;
		r->num_ops = rg->num_ops;
		memcpy(r->sig, rg->signature, ENCD_SIG_LEN);
		r->key = encd_kvmemdup(rg->bootstrap_participants.id, rg->rank_n * sizeof(u32));
		if (!r->key) {
			err = encd_fail(ucmd, -ENOMEM, "out of memory");
			goto out;
		}
		*n = i + 1;
	}
out:
	mutex_unlock(&file->lock);
	return err;
}

int encd_world_ioctl_init_groups(struct encd_ucmd *ucmd)
{
	struct encd_init_replica_groups *cmd = ucmd->cmd;
	struct encd_group_req *req;
	struct encd_gcomm *g;
	struct encd_world *w;
	u32 n = 0, i;
	int err;

	if (cmd->__reserved)
		return encd_fail(ucmd, -EINVAL, "encd_init_replica_groups: reserved fields must be 0");
	req = kcalloc(ENCD_MAX_COMM_N, sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	err = enter(ucmd, cmd->vnc, cmd->ctx_id, &g);
	if (err)
		goto out_free;
	err = owned_world(ucmd, g, &w);
	if (err)
		goto out;
	err = copy_groups(ucmd, cmd->vnc, cmd->ctx_id, req, &n);
	if (err)
		goto out;

	cmd->n_groups = n;
	cmd->n_new = 0;
	cmd->n_hits = 0;
	for (i = 0; i < n; i++) {
		struct encd_group_req *r = &req[i];
		struct encd_node *node;
		bool hit;

		/* program.c validated these; the pools and tables rely on it. */
		if (WARN_ON_ONCE(r->group_id >= ENCD_MAX_COMM_N ||
				 r->stream_id >= ENCD_MAX_STREAM_N || r->rank >= r->rank_n)) {
			err = encd_fail(ucmd, -EINVAL, "group %u is malformed", r->group_id);
			goto out;
		}
		if (r->key[r->rank] != g->g_device_id) {
			err = encd_fail(ucmd, -EINVAL,
					"group %u: bootstrap participant %u is global device %u, not this rank (%u)",
					r->group_id, r->rank, r->key[r->rank], g->g_device_id);
			goto out;
		}
		encd_xport_begin(&w->x, cmd->timeout_ms ?: w->timeout_ms);
		node = encd_get_nccl_comm(w, r->key, r->rank_n, r->rank, r->stream_id,
					 r->group_id, r->sig, &hit, &err);
		if (!node) {
			encd_fail(ucmd, err, "failed to init NCCL comm stream_id:%u group_id:%u: %s",
				  r->stream_id, r->group_id, w->err);
			goto out;
		}
		if (hit)
			cmd->n_hits++;
		else
			cmd->n_new++;
		if (w->groups[r->group_id]) {
			w->groups[r->group_id]->groups &= ~BIT(r->group_id);
			encd_node_put(w->groups[r->group_id]);
		}
		w->groups[r->group_id] = node;
		node->groups |= BIT(r->group_id);
		/* As libnrt: only a group with ops is its comm's op target. */
		w->bound[r->group_id] = r->num_ops > 0;
	}
out:
	leave(g);
out_free:
	for (i = 0; i < n; i++)
		kvfree(req[i].key);
	kfree(req);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

static struct encd_node *group_node(struct encd_ucmd *ucmd, struct encd_world *w, u32 group_id)
{
	if (group_id == ENCD_GROUP_GLOBAL)
		return w->global_node;
	if (group_id < ENCD_MAX_COMM_N && w->groups[group_id])
		return w->groups[group_id];
	encd_fail(ucmd, -ENOENT, "Replica group %u has no comm: call enc_init_replica_groups",
		  group_id);
	return NULL;
}

int encd_world_ioctl_barrier(struct encd_ucmd *ucmd)
{
	struct encd_comm_barrier *cmd = ucmd->cmd;
	struct encd_gcomm *g;
	struct encd_node *node;
	struct encd_world *w;
	u64 t;
	int err;

	err = enter(ucmd, cmd->vnc, cmd->ctx_id, &g);
	if (err)
		return err;
	err = owned_world(ucmd, g, &w);
	if (err)
		goto out;
	node = group_node(ucmd, w, cmd->group_id);
	if (!node) {
		err = -ENOENT;
		goto out;
	}
	t = ktime_get_ns();
	encd_xport_begin(&w->x, cmd->timeout_ms ?: w->timeout_ms);
	if (cmd->head.flags & ENCD_BARRIER_LOCAL) {
		err = encd_lbarrier_wait(node->lb, w->x.deadline);
		if (err)
			encd_fail(ucmd, err, "local barrier of group %d: %s", (int)cmd->group_id,
				  err == -ETIMEDOUT ? "timed out" : "interrupted");
	} else {
		err = encd_group_barrier(node);
		if (err)
			encd_fail(ucmd, err, "barrier of group %d: %s", (int)cmd->group_id, w->err);
	}
	cmd->duration_ns = ktime_get_ns() - t;
out:
	leave(g);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

u32 encd_wire_type_uapi(u16 type)
{
	switch (type) {
	case ENCD_WIRE_SIG:
		return ENCD_MSG_SIGNATURE;
	case ENCD_WIRE_UID:
		return ENCD_MSG_UNIQUE_ID;
	case ENCD_WIRE_RING:
		return ENCD_MSG_RING;
	case ENCD_WIRE_BARRIER:
		return ENCD_MSG_BARRIER;
	default:
		return 0;
	}
}

int encd_world_ioctl_node_info(struct encd_ucmd *ucmd)
{
	struct encd_node_info *cmd = ucmd->cmd;
	struct encd_gcomm *g;
	struct encd_node *node;
	struct encd_world *w;
	unsigned int i;
	int err;

	err = enter(ucmd, cmd->vnc, cmd->ctx_id, &g);
	if (err)
		return err;
	err = owned_world(ucmd, g, &w);
	if (err)
		goto out;
	node = group_node(ucmd, w, cmd->group_id);
	if (!node) {
		err = -ENOENT;
		goto out;
	}
	cmd->rank = node->rank;
	cmd->rank_n = node->rank_n;
	cmd->stream_id = node->stream_id;
	cmd->refcnt = kref_read(&node->ref);
	cmd->state = node->state;
	cmd->local_n = node->local_n;
	cmd->groups = node->groups;
	cmd->out_flags = (node->global ? ENCD_NODE_OUT_GLOBAL : 0) |
			 (cmd->group_id < ENCD_MAX_COMM_N && w->bound[cmd->group_id] ?
			  ENCD_NODE_OUT_BOUND : 0);
	cmd->hits = node->hits;
	memcpy(cmd->phase_ns, node->phase_ns, sizeof(cmd->phase_ns));
	cmd->phase_ns[ENCD_PHASE_RENDEZVOUS] = w->rendezvous_ns;
	cmd->n_counters = node->stats.n;
	for (i = 0; i < node->stats.n; i++) {
		cmd->counters[i].type = encd_wire_type_uapi(node->stats.c[i].type);
		cmd->counters[i].size = node->stats.c[i].size;
		cmd->counters[i].tx = node->stats.c[i].tx;
		cmd->counters[i].rx = node->stats.c[i].rx;
	}
	if (w->mismatch.valid) {
		cmd->mismatch.valid = 1;
		cmd->mismatch.group_id = w->mismatch.group_id;
		cmd->mismatch.child_rank = w->mismatch.child_rank;
		cmd->mismatch.child_g_device_id = w->mismatch.child_g_device_id;
		memcpy(cmd->mismatch.local_sig, w->mismatch.local_sig, ENCD_SIG_LEN);
		memcpy(cmd->mismatch.child_sig, w->mismatch.child_sig, ENCD_SIG_LEN);
	}
out:
	leave(g);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

void encd_world_release(struct encd_file *file, u32 nec_dev, u32 ctx_id)
{
	struct encd_gcomm *g;
	struct encd_world *w = NULL;

	/* Not interruptible: the file is going, its world must go with it. */
	mutex_lock(encd_setup_mutex(nec_dev));
	g = encd_get_global_comm(nec_dev, ctx_id);
	if (g && g->world && g->world->owner == file) {
		w = g->world;
		world_publish(g, NULL);
		WRITE_ONCE(g->state, ENCD_GCOMM_BUILT);
	}
	if (w)
		world_destroy(w);
	mutex_unlock(encd_setup_mutex(nec_dev));
	encd_gcomm_put(g);
}

int encd_world_init(void)
{
	get_random_bytes(encd_host_id, sizeof(encd_host_id));
	return 0;
}

void encd_world_exit(void)
{
	encd_barrier_exit();
}
