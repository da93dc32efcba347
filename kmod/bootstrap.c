// SPDX-License-Identifier: GPL-2.0
/*
 * The bootstrap: enc_setup_global_comm and get_nccl_comm, as the seed's
 * sections 5 and 6 describe them, over the in-kernel transport.
 *
 * A world is formed once per global comm, by the file that asks for it
 * (ENCD_IOC_SETUP_GLOBAL_COMM): rendezvous through root_comm_id, then
 * get_nccl_comm for the global replica group (all ranks, in order), then the
 * seed's post-bootstrap invariants. Replica groups of a loaded program get
 * their comms the same way (ENCD_IOC_INIT_REPLICA_GROUPS), from the pools.
 *
 * get_nccl_comm, on a pool miss: bootstrap rank 0 makes the unique id;
 * signatures are AND-reduced up the binary tree in 17-byte messages (only
 * when the world checks signatures); the id and the root's verdict go down
 * the hypercube in 129-byte messages, so no rank goes on before it knows the
 * global verdict; a false one fails every rank with "mismatched collectives
 * between the peers". Then each rank proves the id to its ring neighbours and
 * the group's ranks on this host meet at the local barrier.
 *
 * Locking: a world and everything in it is used under its core's setup mutex
 * (encd_setup_mutex()), taken interruptibly by the ioctls. The owning file's
 * lock is taken inside it, briefly, to copy a program's groups out. Lock
 * order: setup mutex, file lock, init mutex.
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
#include "gcomm.h"
#include "netlink.h"
#include "program.h"
#include "registry.h"
#include "schedule.h"
#include "signature.h"
#include "topology.h"

static unsigned int bootstrap_timeout_ms = 60000;
module_param(bootstrap_timeout_ms, uint, 0644);
MODULE_PARM_DESC(bootstrap_timeout_ms,
		 "Deadline of one bootstrap operation in milliseconds (default 60000)");

/* This host's identity in peer tables: the same for every rank on it. */
static u8 host_id[ENC_HOST_ID_LEN];

u32 enc_bootstrap_timeout_ms(void)
{
	return clamp_t(u32, READ_ONCE(bootstrap_timeout_ms), 1, 24 * 3600 * 1000);
}

/* The unique id, big-endian, ENC_UID_LEN bytes. */
struct enc_uid {
	__be64 magic;
	struct enc_wire_addr root;
	__be32 rank_n;
	__be32 root_g_device_id;
	__be32 stream_id;
	__be32 key_hash;
	__be64 world_token;
	u8 __reserved[ENC_UID_LEN - 52];
} __packed;
static_assert(sizeof(struct enc_uid) == ENC_UID_LEN);

/* The signature validation message: 17 bytes. */
struct enc_sig_msg {
	u8 sig[ENCD_SIG_LEN];
	u8 ok;
} __packed;
static_assert(sizeof(struct enc_sig_msg) == 17);

static void make_uid(struct enc_world *w, struct enc_node *node)
{
	struct enc_uid *uid = (struct enc_uid *)node->uid;

	memset(uid, 0, sizeof(*uid));
	do {
		node->uid_magic = get_random_u64();
	} while (!node->uid_magic);
	uid->magic = cpu_to_be64(node->uid_magic);
	enc_addr_to_wire(&w->x.peer_addr[node->key[0]], &uid->root);
	uid->rank_n = htonl(node->rank_n);
	uid->root_g_device_id = htonl(node->key[0]);
	uid->stream_id = htonl(node->stream_id);
	uid->key_hash = htonl(node->hash);
	uid->world_token = cpu_to_be64(w->x.token);
}

static bool uid_is_ours(struct enc_world *w, struct enc_node *node)
{
	struct enc_uid *uid = (struct enc_uid *)node->uid;

	node->uid_magic = be64_to_cpu(uid->magic);
	return node->uid_magic && ntohl(uid->rank_n) == node->rank_n &&
	       ntohl(uid->key_hash) == node->hash && ntohl(uid->stream_id) == node->stream_id &&
	       be64_to_cpu(uid->world_token) == w->x.token;
}

static void record_mismatch(struct enc_world *w, struct enc_node *node, u32 child,
			    const u8 *mine, const u8 *theirs)
{
	struct enc_mismatch *m = &w->mismatch;

	m->valid = true;
	m->group_id = node->group_id;
	m->child_rank = child;
	m->child_g_device_id = node->key[child];
	memcpy(m->local_sig, mine, ENCD_SIG_LEN);
	memcpy(m->child_sig, theirs, ENCD_SIG_LEN);
	node->mismatch_seen = true;
	pr_info("rank %u: group %d: bootstrap rank %u (global device %u) has signature %*phN, this rank %*phN\n",
		w->x.rank, (int)node->group_id, child, node->key[child], ENCD_SIG_LEN, theirs,
		ENCD_SIG_LEN, mine);
}

/* The binary-tree AND-reduce; returns this subtree's verdict in *@match. */
static int validate_signature(struct enc_world *w, struct enc_node *node, const u8 *sig,
			      bool *match)
{
	struct enc_sig_msg m;
	unsigned int i;
	int err;

	*match = true;
	for (i = 0; i < 2; i++) {
		u32 c = enc_tree_child(node->rank, node->rank_n, i);

		if (c == node->rank_n)
			continue;
		err = enc_xport_recv(&w->x, node->key[c], ENC_MSG_SIG, node->hash, &m, sizeof(m),
				     &node->stats);
		if (err)
			return err;
		/*
		 * A child whose own signature differs is named here; one that
		 * only reports a disagreement below it was named by its own
		 * rank, one level down.
		 */
		if (memcmp(m.sig, sig, ENCD_SIG_LEN)) {
			if (!node->mismatch_seen)
				record_mismatch(w, node, c, sig, m.sig);
			*match = false;
		}
		if (!m.ok)
			*match = false;
	}
	if (!node->rank)
		return 0;
	memcpy(m.sig, sig, ENCD_SIG_LEN);
	m.ok = *match;
	return enc_xport_send(&w->x, node->key[enc_tree_parent(node->rank)], ENC_MSG_SIG,
			      node->hash, &m, sizeof(m), &node->stats);
}

/* The hypercube fan-out of the unique id and the root's verdict. */
static int broadcast_uid(struct enc_world *w, struct enc_node *node, bool *valid)
{
	u8 msg[ENC_UID_LEN + 1];
	u32 rank = node->rank, n = node->rank_n;
	u64 mask = enc_cube_mask(rank, n), step;
	int err;

	if (mask & rank) {
		err = enc_xport_recv(&w->x, node->key[rank & ~mask], ENC_MSG_UID, node->hash, msg,
				     sizeof(msg), &node->stats);
		if (err)
			return err;
		memcpy(node->uid, msg, ENC_UID_LEN);
		if (!uid_is_ours(w, node))
			return enc_xport_fail(&w->x, -EPROTO,
					      "rank %u: the unique id from bootstrap rank %u is not this group's",
					      w->x.rank, (u32)(rank & ~mask));
	} else {
		memcpy(msg, node->uid, ENC_UID_LEN);
		msg[ENC_UID_LEN] = *valid;
	}
	for (step = mask >> 1; step; step >>= 1) {
		if (!enc_cube_send_ok(rank, n, step))
			continue;
		err = enc_xport_send(&w->x, node->key[rank + step], ENC_MSG_UID, node->hash, msg,
				     sizeof(msg), &node->stats);
		if (err)
			return err;
	}
	*valid = msg[ENC_UID_LEN] == 1;
	return 0;
}

/* Comm init: both ring neighbours hold the same unique id. */
static int ring_prove(struct enc_world *w, struct enc_node *node)
{
	u32 n = node->rank_n, r = node->rank;
	u32 next = node->key[(r + 1) % n], prev = node->key[(r + n - 1) % n];
	u8 got[ENC_UID_LEN];
	int err;

	if (n == 1)
		return 0;
	err = enc_xport_send(&w->x, next, ENC_MSG_RING, node->hash, node->uid, ENC_UID_LEN,
			     &node->stats);
	if (!err)
		err = enc_xport_recv(&w->x, prev, ENC_MSG_RING, node->hash, got, ENC_UID_LEN,
				     &node->stats);
	if (!err && crypto_memneq(got, node->uid, ENC_UID_LEN))
		err = enc_xport_fail(&w->x, -EPROTO,
				     "rank %u: its ring neighbour (global device %u) holds another unique id",
				     w->x.rank, prev);
	memzero_explicit(got, sizeof(got));
	return err;
}

static int local_barrier(struct enc_world *w, struct enc_node *node)
{
	u32 i;
	int err = 0;

	node->local_n = 0;
	for (i = 0; i < node->rank_n; i++)
		if (!memcmp(w->peers[node->key[i]].host_id, host_id, ENC_HOST_ID_LEN))
			node->local_n++;
	node->lb = enc_lbarrier_get(node->uid, node->local_n, &err);
	if (!node->lb)
		return enc_xport_fail(&w->x, err,
				      "rank %u: failed to setup local barrier (%d local ranks)",
				      w->x.rank, node->local_n);
	err = enc_lbarrier_wait(node->lb, w->x.deadline);
	if (err)
		return enc_xport_fail(&w->x, err, "rank %u: local barrier: %s", w->x.rank,
				      err == -ETIMEDOUT ? "timed out" : "interrupted");
	return 0;
}

/* Starts phase @ph of @node's bootstrap, ending the one before. */
static void phase(struct enc_node *node, int ph, u32 state)
{
	u64 now = ktime_get_boottime_ns();

	if (ph > ENCD_PHASE_VALIDATE)
		node->phase_ns[ph - 1] = now - node->phase_start[ph - 1];
	if (ph < ENCD_PHASE_N) {
		node->phase_start[ph] = now;
		WRITE_ONCE(node->state, state);
	}
}

/* The event of a failed bootstrap, with who and what when it is known. */
static void notify_failure(struct enc_world *w, struct enc_node *node, int err, int ph)
{
	struct enc_mismatch *m = &w->mismatch;
	struct enc_nl_error e = {
		.err = err,
		.msg = w->err,
		.phase = ph < ENCD_PHASE_N ? ph : -1,
		.peer_rank = -1,
		.peer_g_device_id = -1,
		.group_id = node->global ? -1 : (s32)node->group_id,
	};

	if (node->mismatch_seen) {
		e.peer_rank = m->child_rank;
		e.peer_g_device_id = m->child_g_device_id;
		e.local_sig = m->local_sig;
		e.peer_sig = m->child_sig;
	}
	enc_node_notify(node, err == -EBADE ? ENCD_NL_CMD_SIG_MISMATCH_NTF :
			ENCD_NL_CMD_WORLD_FAILED_NTF, &e);
}

struct enc_node *enc_get_nccl_comm(struct enc_world *w, const u32 *key, u32 rank_n,
				   u32 rank, u32 stream_id, u32 group_id, const u8 *signature,
				   bool *hit, int *errp)
{
	struct enc_pool *pool = &w->pools[stream_id];
	struct enc_node *node;
	bool match = true;
	int err, ph;

	lockdep_assert_held(encd_setup_mutex(w->g->nec_dev_id));
	*hit = false;
	node = enc_pool_find(pool, stream_id, key, rank_n);
	if (node) {
		node->hits++;
		*hit = true;
		return node;
	}

	node = enc_pool_add(pool, w, stream_id, key, rank_n);
	if (!node) {
		*errp = enc_xport_fail(&w->x, -ENOMEM, "failed to allocate a comm node");
		return NULL;
	}
	node->rank = rank;
	node->ctx_id = w->g->ctx_id;
	node->group_id = group_id;
	node->global = group_id == U32_MAX;
	if (!rank)
		make_uid(w, node);

	phase(node, ph = ENCD_PHASE_VALIDATE, ENCD_NODE_VALIDATING);
	if (w->g->check_sigs) {
		err = validate_signature(w, node, signature, &match);
		if (err)
			goto fail;
	}

	phase(node, ph = ENCD_PHASE_BROADCAST, ENCD_NODE_BROADCASTING);
	err = broadcast_uid(w, node, &match);
	if (err)
		goto fail;
	if (!match && node->mismatch_seen) {
		struct enc_mismatch *m = &w->mismatch;

		err = enc_xport_fail(&w->x, -EBADE,
				     "[gid: %u] failed signature validation: mismatched collectives between the peers: bootstrap rank %u (global device %u): %*phN, this rank: %*phN",
				     w->x.rank, m->child_rank, m->child_g_device_id,
				     ENCD_SIG_LEN, m->child_sig, ENCD_SIG_LEN, m->local_sig);
		goto fail;
	}
	if (!match) {
		err = enc_xport_fail(&w->x, -EBADE,
				     "[gid: %u] failed signature validation: mismatched collectives between the peers",
				     w->x.rank);
		goto fail;
	}

	phase(node, ph = ENCD_PHASE_COMM_INIT, ENCD_NODE_CONNECTING);
	err = ring_prove(w, node);
	if (err)
		goto fail;

	phase(node, ph = ENCD_PHASE_LOCAL_BARRIER, ENCD_NODE_BARRIER);
	err = local_barrier(w, node);
	if (err)
		goto fail;
	phase(node, ENCD_PHASE_N, ENCD_NODE_READY);
	WRITE_ONCE(node->state, ENCD_NODE_READY);
	enc_node_notify(node, ENCD_NL_CMD_WORLD_FORMED_NTF, NULL);
	return node;

fail:
	node->phase_ns[ph] = ktime_get_boottime_ns() - node->phase_start[ph];
	WRITE_ONCE(node->state, ENCD_NODE_FAILED);
	notify_failure(w, node, err, ph);
	enc_node_put(node);
	*errp = err;
	return NULL;
}

/* World lifetime */

static void world_destroy(struct enc_world *w)
{
	unsigned int i;

	for (i = 0; i < ENCD_MAX_COMM_N; i++)
		enc_node_put(w->groups[i]);
	enc_node_put(w->global_node);
	for (i = 0; i < ENCD_MAX_STREAM_N; i++)
		WARN_ON(!enc_pool_empty(&w->pools[i]));
	enc_xport_destroy(&w->x);
	kvfree(w->peers);
	enc_glb_comm_put(w->g);
	kfree(w);
}

static void world_publish(struct enc_glb_comm *g, struct enc_world *w)
{
	mutex_lock(&enc_pool_view_lock);
	g->world = w;
	mutex_unlock(&enc_pool_view_lock);
}

static struct enc_world *world_alloc(struct enc_glb_comm *g, struct encd_file *owner,
				     u32 timeout_ms)
{
	struct enc_world *w;
	unsigned int i;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return NULL;
	w->g = enc_glb_comm_get(g);
	w->owner = owner;
	w->timeout_ms = timeout_ms;
	for (i = 0; i < ENCD_MAX_STREAM_N; i++)
		enc_pool_init(&w->pools[i]);
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
static int open_world_links(struct enc_world *w)
{
	u32 r = w->x.rank, n = w->x.nranks, k;
	u64 step;
	int err = 0;

	if (n == 1)
		return 0;
	if (r && w->g->check_sigs)
		err = enc_xport_link(&w->x, enc_tree_parent(r));
	for (step = enc_cube_mask(r, n) >> 1; step && !err; step >>= 1)
		if (enc_cube_send_ok(r, n, step))
			err = enc_xport_link(&w->x, r + (u32)step);
	for (k = 0; k < enc_ceil_log2(n) && !err; k++)
		err = enc_xport_link(&w->x, enc_dissem_to(r, n, k));
	return err;
}

/*
 * The seed's enc_setup_global_comm_internal and its invariants: rendezvous,
 * then get_nccl_comm for the global replica group.
 */
static int world_form(struct enc_world *w)
{
	struct enc_glb_comm *g = w->g;
	struct enc_host_topology host;
	struct sockaddr_storage root = {};
	struct enc_peer_info self = {};
	u8 zero_sig[ENCD_SIG_LEN] = {};
	struct enc_node *node;
	u32 n = g->g_device_cnt, i, *key;
	bool hit;
	int err;

	enc_xport_begin(&w->x, w->timeout_ms);
	if (n > ENC_WORLD_MAX)
		return enc_xport_fail(&w->x, -EINVAL, "A world of %u ranks is larger than %u",
				      n, ENC_WORLD_MAX);
	if (enc_xport_parse_addr(g->root_comm_id, &root) && n > 1)
		return enc_xport_fail(&w->x, -EINVAL,
				      "root_comm_id \"%s\" is not host:port (a numeric IPv4 address, [IPv6] or localhost)",
				      g->root_comm_id);

	enc_topology_get_host(&host);
	memcpy(self.host_id, host_id, sizeof(self.host_id));
	self.pod_type = g->pod_type;
	self.pod_node_id = g->pod_node_id;
	self.pod_sz = g->pod_sz;
	self.nec_dev = g->nec_dev_id;

	w->rendezvous_start = ktime_get_boottime_ns();
	err = enc_rendezvous(&w->x, &root, n, g->g_device_id, &self, &w->peers);
	if (err)
		return enc_xport_fail(&w->x, err, "rendezvous failed (%d)", err);
	w->rendezvous_ns = ktime_get_boottime_ns() - w->rendezvous_start;

	err = open_world_links(w);
	if (err)
		return err;

	key = kvmalloc_array(n, sizeof(*key), GFP_KERNEL);
	if (!key)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		key[i] = i;
	node = enc_get_nccl_comm(w, key, n, g->g_device_id, 0, U32_MAX, zero_sig, &hit, &err);
	kvfree(key);
	if (!node)
		return err;
	w->global_node = node;

	/* enc_setup_global_comm's invariants: the identity and the comm agree. */
	if (WARN_ON(node->rank != g->g_device_id || node->rank_n != g->g_device_cnt))
		return enc_xport_fail(&w->x, -EPROTO,
				      "the global comm's rank %u of %u differs from its identity %u of %u",
				      node->rank, node->rank_n, g->g_device_id, g->g_device_cnt);
	return 0;
}

/* ioctls */

static bool file_holds(struct encd_file *file, u32 nec_dev, u32 ctx_id)
{
	bool held;

	mutex_lock(&file->lock);
	held = test_bit(encd_slot(nec_dev, ctx_id), file->held);
	mutex_unlock(&file->lock);
	return held;
}

/*
 * Resolves (vnc, ctx_id), checks the file holds that comm and takes the
 * core's setup mutex; on success *@gp is a counted reference.
 */
static int enter(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, struct enc_glb_comm **gp)
{
	struct enc_vcore vcore;
	struct enc_glb_comm *g;

	if (enc_topology_get_vcore(vnc, &vcore))
		return encd_fail(ucmd, -ENODEV, "Failed to find core %u", vnc);
	if (ctx_id >= ENCD_MAX_CONTEXTS)
		return encd_fail(ucmd, -EINVAL, "Invalid context id %u (there are %u)", ctx_id,
				 ENCD_MAX_CONTEXTS);
	if (!file_holds(ucmd->file, vcore.nec_dev_id, ctx_id))
		return encd_fail(ucmd, -ENOENT,
				 "This file does not hold the global comm of core %u context %u",
				 vnc, ctx_id);
	if (mutex_lock_interruptible(encd_setup_mutex(vcore.nec_dev_id)))
		return -EINTR;
	g = encd_get_global_comm(vcore.nec_dev_id, ctx_id);
	if (!g) {
		mutex_unlock(encd_setup_mutex(vcore.nec_dev_id));
		return encd_fail(ucmd, -ENOENT, "No global comm on core %u context %u", vnc,
				 ctx_id);
	}
	*gp = g;
	return 0;
}

static void leave(struct enc_glb_comm *g)
{
	mutex_unlock(encd_setup_mutex(g->nec_dev_id));
	enc_glb_comm_put(g);
}

static u32 timeout_of(u32 asked)
{
	return asked ?: enc_bootstrap_timeout_ms();
}

/* The world this file formed on @g, for the commands that use it; or an errno. */
static int owned_world(struct encd_ucmd *ucmd, struct enc_glb_comm *g, struct enc_world **wp)
{
	struct enc_world *w = g->world;

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

static int world_secret(struct encd_ucmd *ucmd, struct enc_world *w,
			const struct encd_setup_global_comm *cmd)
{
	u8 key[ENCD_WORLD_SECRET_MAX];
	int err;

	BUILD_BUG_ON(ENCD_WORLD_SECRET_MAX != ENC_SECRET_MAX);
	if (!cmd->secret_len)
		return 0;
	if (cmd->secret_len > sizeof(key))
		return encd_fail(ucmd, -EINVAL, "A world secret is at most %u bytes, not %u",
				 ENCD_WORLD_SECRET_MAX, cmd->secret_len);
	if (copy_from_user(key, u64_to_user_ptr(cmd->secret_uptr), cmd->secret_len))
		return -EFAULT;
	err = enc_xport_set_secret(&w->x, key, cmd->secret_len);
	memzero_explicit(key, sizeof(key));
	if (err)
		return encd_fail(ucmd, err, "Cannot key HMAC-SHA256 with the world secret (%d)",
				 err);
	return 0;
}

int enc_bootstrap_ioctl_setup(struct encd_ucmd *ucmd)
{
	struct encd_setup_global_comm *cmd = ucmd->cmd;
	struct enc_glb_comm *g;
	struct enc_world *w;
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
struct enc_group_req {
	u32 group_id, rank_n, rank, stream_id, num_ops;
	u8 sig[ENCD_SIG_LEN];
	u32 *key;
};

static int copy_groups(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, struct enc_group_req *req,
		       u32 *n)
{
	struct encd_file *file = ucmd->file;
	struct enc_program *prog;
	u32 i;
	int err;

	*n = 0;
	mutex_lock(&file->lock);
	err = enc_program_find(ucmd, vnc, ctx_id, &prog);
	if (err)
		goto out;
	if (prog->state == ENCD_PROGRAM_PARSE) {
		if (!prog->is_signed)
			err = enc_calculate_signature(ucmd, prog, 0);
		if (!err)
			err = enc_program_seal(ucmd, prog);
		if (err)
			goto out;
	}
	for (i = 0; i < prog->n_groups; i++) {
		const struct enc_replica_group *rg = &prog->groups[i];
		struct enc_group_req *r = &req[i];

		r->group_id = rg->group_id;
		r->rank_n = rg->rank_n;
		r->rank = rg->bootstrap_rank;
		r->stream_id = rg->stream_id;
		r->num_ops = rg->num_ops;
		memcpy(r->sig, rg->signature, ENCD_SIG_LEN);
		r->key = enc_kvmemdup(rg->bootstrap_participants.id, rg->rank_n * sizeof(u32));
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

int enc_bootstrap_ioctl_init_groups(struct encd_ucmd *ucmd)
{
	struct encd_init_replica_groups *cmd = ucmd->cmd;
	struct enc_group_req *req;
	struct enc_glb_comm *g;
	struct enc_world *w;
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
		struct enc_group_req *r = &req[i];
		struct enc_node *node;
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
		enc_xport_begin(&w->x, cmd->timeout_ms ?: w->timeout_ms);
		node = enc_get_nccl_comm(w, r->key, r->rank_n, r->rank, r->stream_id,
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
			enc_node_put(w->groups[r->group_id]);
		}
		w->groups[r->group_id] = node;
		node->groups |= BIT(r->group_id);
		/* As the seed: only a group with ops is its comm's op target. */
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

static struct enc_node *group_node(struct encd_ucmd *ucmd, struct enc_world *w, u32 group_id)
{
	if (group_id == ENCD_GROUP_GLOBAL)
		return w->global_node;
	if (group_id < ENCD_MAX_COMM_N && w->groups[group_id])
		return w->groups[group_id];
	encd_fail(ucmd, -ENOENT, "Replica group %u has no comm: call enc_init_replica_groups",
		  group_id);
	return NULL;
}

int enc_bootstrap_ioctl_barrier(struct encd_ucmd *ucmd)
{
	struct encd_comm_barrier *cmd = ucmd->cmd;
	struct enc_glb_comm *g;
	struct enc_node *node;
	struct enc_world *w;
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
	enc_xport_begin(&w->x, cmd->timeout_ms ?: w->timeout_ms);
	if (cmd->head.flags & ENCD_BARRIER_LOCAL) {
		err = enc_lbarrier_wait(node->lb, w->x.deadline);
		if (err)
			encd_fail(ucmd, err, "local barrier of group %d: %s", (int)cmd->group_id,
				  err == -ETIMEDOUT ? "timed out" : "interrupted");
	} else {
		err = enc_group_barrier(node);
		if (err)
			encd_fail(ucmd, err, "barrier of group %d: %s", (int)cmd->group_id, w->err);
	}
	cmd->duration_ns = ktime_get_ns() - t;
out:
	leave(g);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

u32 enc_msg_type_uapi(u16 type)
{
	switch (type) {
	case ENC_MSG_SIG:
		return ENCD_MSG_SIGNATURE;
	case ENC_MSG_UID:
		return ENCD_MSG_UNIQUE_ID;
	case ENC_MSG_RING:
		return ENCD_MSG_RING;
	case ENC_MSG_BARRIER:
		return ENCD_MSG_BARRIER;
	default:
		return 0;
	}
}

int enc_bootstrap_ioctl_node_info(struct encd_ucmd *ucmd)
{
	struct encd_node_info *cmd = ucmd->cmd;
	struct enc_glb_comm *g;
	struct enc_node *node;
	struct enc_world *w;
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
		cmd->counters[i].type = enc_msg_type_uapi(node->stats.c[i].type);
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

void enc_bootstrap_release(struct encd_file *file, u32 nec_dev, u32 ctx_id)
{
	struct enc_glb_comm *g;
	struct enc_world *w = NULL;

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
	enc_glb_comm_put(g);
}

int enc_bootstrap_init(void)
{
	get_random_bytes(host_id, sizeof(host_id));
	return 0;
}

void enc_bootstrap_exit(void)
{
	enc_barrier_exit();
}
