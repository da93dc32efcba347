// SPDX-License-Identifier: GPL-2.0
/*
 * The world ioctls: libnrt's enc_setup_global_comm (rendezvous through the
 * host agent, then the world's own comm node), enc_init_replica_groups, the
 * barriers, what a rank may know of its comms (NODE_INFO, from the
 * snapshot nodeview.c also gives netlink), and what releasing a comm does
 * to its rank. A rank's lifetime is in rank.c, the world key in
 * worldkey.c, the module parameters in params.c; the protocol is in
 * bootstrap.c, the hosts' part in host.c, table.c, frames.c and root.c.
 *
 * A rank is made on a global comm by the file that sets the world up, and
 * belongs to it. Its operations start the protocol and wait for it on the
 * rank's wait queue, holding no lock that anyone else needs: the module
 * moves the protocol on as messages arrive. A deadline or a signal ends the
 * wait, not the protocol: a later call finds it where it got to. Releasing
 * the comm (or closing the file) never waits: the rank leaves its host at
 * once, which fails the world for its peers, and its waiters wake.
 *
 * Locking (see encd_private.h): an operation takes the rank's op_lock to
 * have the rank to itself, and the host's lock only for moments; the file's
 * lock and the comm's rank_lock guard which rank a comm has. SETUP takes
 * op_lock with mutex_lock(), only while it registers the rank, and waits
 * for the world with it dropped; the operations of a formed rank take it
 * in enter() with mutex_lock_interruptible(), as they hold it while they
 * wait, so that a signal ends another operation's wait for it.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "encd_private.h"

/*
 * The rank this file has on @g, made if need be (SETUP). Made under the
 * file's lock, after checking again that the file still holds the comm, so
 * that a RELEASE racing with it either comes first (and this fails) or
 * finds the rank and takes it down.
 */
static struct encd_rank *rank_for_setup(struct encd_ucmd *ucmd, struct encd_gcomm *g,
					u32 timeout_ms, u32 settings)
{
	struct encd_file *file = ucmd->file;
	struct encd_rank *r, *fresh;
	int err;

	/*
	 * The world key binds the caller's user: a rank of another user's
	 * comm (its fd handed over, or its holder's euid changed since)
	 * would put the owner's core in someone else's world.
	 */
	err = encd_gcomm_check_user(ucmd, g);
	if (err)
		return ERR_PTR(err);
	r = encd_gcomm_rank(g);
	if (r)
		goto check;
	fresh = encd_rank_alloc(g, file, timeout_ms, settings);
	if (!fresh)
		return ERR_PTR(encd_fail(ucmd, -ENOMEM, "Failed to allocate the world"));
	mutex_lock(&file->lock);
	if (!test_bit(encd_slot(g->nec_dev_id, g->ctx_id), file->held)) {
		mutex_unlock(&file->lock);
		encd_rank_put(fresh);
		return ERR_PTR(encd_fail(ucmd, -ENOENT,
					 "This file does not hold the global comm of core %d context %u",
					 g->nec_dev_id, g->ctx_id));
	}
	spin_lock(&g->rank_lock);
	r = g->rank;
	if (!r) {
		/* The comm's reference; the caller gets another. */
		g->rank = fresh;
		r = fresh;
		fresh = NULL;
	}
	kref_get(&r->ref);
	spin_unlock(&g->rank_lock);
	mutex_unlock(&file->lock);
	encd_rank_put(fresh);
check:
	/* Another file may only hear that the world formed, as libnrt's idempotent setup. */
	if (r->owner != file && READ_ONCE(r->state) != ENCD_RANK_FORMED) {
		encd_rank_put(r);
		return ERR_PTR(encd_fail(ucmd, -EBUSY,
					 "The world of core %d context %u belongs to another process",
					 g->nec_dev_id, g->ctx_id));
	}
	return r;
}

/* The rank of this file on a comm, formed or not yet; or why not. */
static struct encd_rank *owned_rank(struct encd_ucmd *ucmd, struct encd_gcomm *g)
{
	struct encd_rank *r = encd_gcomm_rank(g);

	if (!r)
		return ERR_PTR(encd_fail(ucmd, -ENOENT,
					 "The global comm of core %d context %u has not been set up: call enc_setup_global_comm first",
					 g->nec_dev_id, g->ctx_id));
	if (r->owner != ucmd->file) {
		encd_rank_put(r);
		return ERR_PTR(encd_fail(ucmd, -EBUSY,
					 "The world of core %d context %u belongs to another process",
					 g->nec_dev_id, g->ctx_id));
	}
	return r;
}

/* Waiting */

/*
 * Waits until @done, the rank's world fails or the rank is released, by
 * the deadline; a signal ends the wait too.
 *
 * Return: 0, -ETIMEDOUT or -EINTR.
 */
#define rank_wait(r, deadline, done)						\
({										\
	long __left = (long)((deadline) - jiffies);				\
	long __ret = __left <= 0 ? 0 :						\
		wait_event_interruptible_timeout((r)->wq,			\
			(done) || READ_ONCE((r)->released) ||			\
			READ_ONCE((r)->state) == ENCD_RANK_FAILED, __left);	\
	__ret > 0 || (done) ? 0 : __ret < 0 ? -EINTR : -ETIMEDOUT;		\
})

/* Why an operation of @r cannot go on; 0 when it can. */
static int rank_broken(struct encd_ucmd *ucmd, struct encd_rank *r)
{
	if (r->released)
		return encd_fail_why(ucmd, -ECONNABORTED, ENCD_REASON_RELEASED,
				     "rank %u: its global comm was released while the operation ran",
				 r->id);
	if (r->state == ENCD_RANK_FAILED)
		return encd_fail_kept(ucmd, &r->why);
	return 0;
}

/* Why SETUP ended by its deadline or a signal, naming what was missing. */
static int setup_gave_up(struct encd_ucmd *ucmd, struct encd_rank *r, int err)
{
	struct encd_host *h = r->host;
	char missing[64], awaited[ENCD_MSG_MAX];

	if (h->root && !h->has_table) {
		u32 got = encd_root_missing(h, missing, sizeof(missing));

		return encd_fail(ucmd, err,
				 "root: %u of %u ranks arrived before the wait ended (%s); missing: %s",
				 got, h->wk.world_size,
				 err == -ETIMEDOUT ? "timed out" : "interrupted", missing);
	}
	if (!h->has_table)
		return encd_fail(ucmd, err, "rank %u: no table of the world from the root at %pISpc: %s",
				 r->id, &h->wk.root, err == -ETIMEDOUT ? "timed out" : "interrupted");
	/* A rank whose node could not start has failed, and said why: this is the backstop. */
	if (!r->global_node)
		return encd_fail(ucmd, err, "rank %u: the table came, but its world's comm never started: %s",
				 r->id, err == -ETIMEDOUT ? "timed out" : "interrupted");
	encd_engine_awaited(r->global_node, awaited, sizeof(awaited));
	return encd_fail(ucmd, err, "%s: %s (rank %u, forming the world)", awaited,
			 err == -ETIMEDOUT ? "timed out" : "interrupted", r->id);
}

/* ioctls */

/**
 * encd_world_ioctl_setup() - ENCD_IOC_SETUP_GLOBAL_COMM
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_world_ioctl_setup(struct encd_ucmd *ucmd)
{
	struct encd_setup_global_comm *cmd = ucmd->cmd;
	struct encd_world_key wk;
	unsigned long deadline;
	struct encd_gcomm *g;
	struct encd_rank *r;
	struct encd_host *h;
	bool was_failed;
	u32 settings;
	int err;

	if (cmd->__reserved || cmd->__reserved2)
		return encd_fail(ucmd, -EINVAL, "reserved fields must be 0");
	g = encd_ucmd_get_gcomm(ucmd, cmd->vnc, cmd->ctx_id, ENCD_UCMD_HELD);
	if (IS_ERR(g))
		return PTR_ERR(g);
	settings = (g->check_sigs ? ENCD_WIRE_CHECK_SIGS : 0) |
		   (cmd->head.flags & ENCD_SETUP_SIG_ALL_GROUPS ? ENCD_WIRE_SIG_ALL_GROUPS : 0);
	r = rank_for_setup(ucmd, g, encd_timeout_ms(cmd->timeout_ms, 0), settings);
	if (IS_ERR(r)) {
		err = PTR_ERR(r);
		goto out_g;
	}
	deadline = jiffies + msecs_to_jiffies(encd_timeout_ms(cmd->timeout_ms, r->timeout_ms));
	cmd->out_flags = 0;

	if (READ_ONCE(r->state) == ENCD_RANK_JOINING) {
		err = encd_world_key_setup(ucmd, g, cmd, &wk);
		if (err) {
			/* Nothing of the world exists yet: the next SETUP may do better. */
			goto out_r;
		}
		mutex_lock(&r->op_lock);
		while (READ_ONCE(r->state) == ENCD_RANK_JOINING && !READ_ONCE(r->released)) {
			h = encd_host_find(&wk);
			if (IS_ERR(h)) {
				err = encd_fail(ucmd, PTR_ERR(h), "Cannot make this host's agent (%ld)",
						PTR_ERR(h));
				break;
			}
			err = encd_host_register(h, r);
			/* Released meanwhile: a host made for it alone must go too. */
			if (err == -ECONNABORTED)
				encd_host_leave(h, r);
			encd_host_put(h);
			if (err != -EAGAIN)
				break;
		}
		mutex_unlock(&r->op_lock);
		memzero_explicit(&wk, sizeof(wk));
		if (READ_ONCE(r->released)) {
			err = rank_broken(ucmd, r);
			goto out_r;
		}
		if (err && err != -EAGAIN && r->state != ENCD_RANK_FAILED)
			goto out_r;
		cmd->out_flags = ENCD_SETUP_OUT_FORMED;
	}

	was_failed = READ_ONCE(r->state) == ENCD_RANK_FAILED;
	err = rank_wait(r, deadline, READ_ONCE(r->state) != ENCD_RANK_REGISTERED);
	h = r->host;
	if (h)
		mutex_lock(&h->lock);
	/*
	 * A world that formed while this call waited is reported formed, even
	 * if it failed before the call woke: a peer that finished first and
	 * left at once closes its links right after its last frame, and this
	 * host may read both in one go. The rank's next operation reports the
	 * failure.
	 */
	if (err) {
		if (!rank_broken(ucmd, r) && h)
			setup_gave_up(ucmd, r, err);
	} else if (!r->formed || was_failed || r->released) {
		err = rank_broken(ucmd, r);
	}
	if (!err) {
		WRITE_ONCE(g->state, ENCD_GCOMM_BOOTSTRAPPED);
		cmd->rank = r->global_node->brank;
		cmd->rank_n = r->global_node->rank_n;
		memcpy(cmd->phase_ns, r->global_node->phase_ns, sizeof(cmd->phase_ns));
		cmd->phase_ns[ENCD_PHASE_RENDEZVOUS] = r->rendezvous_ns;
	} else {
		cmd->out_flags = 0;
	}
	if (h)
		mutex_unlock(&h->lock);
	if (!err && WARN_ON(cmd->rank != g->g_device_id || cmd->rank_n != g->g_device_cnt))
		err = encd_fail_why(ucmd, -EPROTO, ENCD_REASON_INTERNAL,
				    "the global comm's rank %u of %u differs from its identity %u of %u",
				cmd->rank, cmd->rank_n, g->g_device_id, g->g_device_cnt);
out_r:
	encd_rank_put(r);
out_g:
	encd_gcomm_put(g);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

/* What get_nccl_comm needs of a group, copied out from under the file lock. */
struct encd_group_req {
	u32 group_id, rank_n, rank, stream_id, num_ops;
	u8 sig[ENCD_SIG_LEN];
	u32 *key;
};

/*
 * The program's groups, signed with the world's flags (signing it now if
 * it never was, or was signed otherwise), and sealed: PARSE -> LOADED.
 */
static int copy_groups(struct encd_ucmd *ucmd, struct encd_rank *r, u32 vnc, u32 ctx_id,
		       struct encd_group_req *req, u32 *n)
{
	u32 flags = r->settings & ENCD_WIRE_SIG_ALL_GROUPS ? ENCD_SIG_ALL_GROUPS : 0;
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
		if (!prog->is_signed || prog->sig_flags != flags)
			err = encd_program_sign(ucmd, prog, flags);
		if (!err)
			err = encd_program_seal(ucmd, prog);
		if (err)
			goto out;
	} else if (prog->sig_flags != flags) {
		err = encd_fail_why(ucmd, -EINVAL, ENCD_REASON_WORLD_DIFFERS,
				    "The program on core %u context %u was signed with flags 0x%x, its world validates signatures made with 0x%x",
				vnc, ctx_id, prog->sig_flags, flags);
		goto out;
	}
	for (i = 0; i < prog->n_groups; i++) {
		const struct encd_replica_group *rg = &prog->groups[i];
		struct encd_group_req *q = &req[i];

		q->group_id = rg->group_id;
		q->rank_n = rg->rank_n;
		q->rank = rg->bootstrap_rank;
		q->stream_id = rg->stream_id;
		q->num_ops = rg->num_ops;
		memcpy(q->sig, rg->signature, ENCD_SIG_LEN);
		q->key = encd_kvmemdup(rg->bootstrap_participants.id, rg->rank_n * sizeof(u32));
		if (!q->key) {
			err = encd_fail(ucmd, -ENOMEM, "out of memory");
			goto out;
		}
		*n = i + 1;
	}
out:
	mutex_unlock(&file->lock);
	return err;
}

/* get_nccl_comm for one group: from the pool, or a bootstrap to wait for. */
static int init_group(struct encd_ucmd *ucmd, struct encd_rank *r, struct encd_group_req *q,
		      unsigned long deadline, bool *hit)
{
	struct encd_host *h = r->host;
	char awaited[ENCD_MSG_MAX];
	struct encd_node *node;
	int err;

	mutex_lock(&h->lock);
	err = rank_broken(ucmd, r);
	if (err)
		goto unlock;
	node = encd_pool_find(r, q->stream_id, q->key, q->rank_n);
	*hit = node;
	if (!node) {
		node = encd_node_alloc(r, q->stream_id, q->key, q->rank_n, q->rank, q->group_id);
		if (!node) {
			err = encd_fail(ucmd, -ENOMEM, "failed to allocate a comm node");
			goto unlock;
		}
		encd_engine_node_start(h, node, q->sig, r->settings & ENCD_WIRE_CHECK_SIGS);
		encd_host_run(h);
	} else {
		node->hits++;
	}
	mutex_unlock(&h->lock);

	err = rank_wait(r, deadline, READ_ONCE(node->state) == ENCD_NODE_READY ||
			READ_ONCE(node->state) == ENCD_NODE_FAILED);

	mutex_lock(&h->lock);
	if (node->state == ENCD_NODE_FAILED && node->msg_names_comm) {
		/* The ring's own sentences already name the comm, as libnrt's do. */
		err = encd_fail_kept(ucmd, &node->why);
	} else if (node->state == ENCD_NODE_FAILED) {
		err = encd_fail_why(ucmd, node->why.err, node->why.reason,
				    "failed to init NCCL comm stream_id:%u group_id:%u: %s",
				    q->stream_id, q->group_id, node->why.msg);
	} else if ((node->state != ENCD_NODE_READY || r->released) && rank_broken(ucmd, r)) {
		/* A comm that became ready is reported ready, as SETUP does. */
		err = encd_fail_why(ucmd, r->released ? -ECONNABORTED : r->why.err,
				    r->released ? ENCD_REASON_RELEASED : r->why.reason,
				    "failed to init NCCL comm stream_id:%u group_id:%u: %s",
				    q->stream_id, q->group_id,
				    r->released ? "the comm was released" : r->why.msg);
	} else if (err) {
		encd_engine_awaited(node, awaited, sizeof(awaited));
		encd_fail(ucmd, err, "failed to init NCCL comm stream_id:%u group_id:%u: %s: %s",
			  q->stream_id, q->group_id, awaited,
			  err == -ETIMEDOUT ? "timed out" : "interrupted");
	} else {
		if (r->groups[q->group_id]) {
			r->groups[q->group_id]->groups &= ~BIT(q->group_id);
			encd_node_put(r->groups[q->group_id]);
		}
		r->groups[q->group_id] = encd_node_get(node);
		node->groups |= BIT(q->group_id);
		/* As libnrt: only a group with ops is its comm's op target. */
		r->bound[q->group_id] = q->num_ops > 0;
	}
	mutex_unlock(&h->lock);
	encd_node_put(node);
	return err;
unlock:
	mutex_unlock(&h->lock);
	return err;
}

/* The rank of a formed world this file owns on (vnc, ctx), op_lock taken. */
static struct encd_rank *enter(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id,
			       struct encd_gcomm **gp)
{
	struct encd_gcomm *g;
	struct encd_rank *r;

	g = encd_ucmd_get_gcomm(ucmd, vnc, ctx_id, ENCD_UCMD_HELD);
	if (IS_ERR(g))
		return ERR_CAST(g);
	r = owned_rank(ucmd, g);
	if (IS_ERR(r))
		goto fail;
	if (READ_ONCE(r->state) != ENCD_RANK_FORMED || !r->host) {
		encd_rank_put(r);
		r = ERR_PTR(encd_fail(ucmd, -ENOENT,
				      "The global comm of core %d context %u has not been set up: call enc_setup_global_comm first",
				      g->nec_dev_id, g->ctx_id));
		goto fail;
	}
	if (mutex_lock_interruptible(&r->op_lock)) {
		encd_rank_put(r);
		r = ERR_PTR(-EINTR);
		goto fail;
	}
	*gp = g;
	return r;
fail:
	encd_gcomm_put(g);
	return r;
}

static void leave(struct encd_gcomm *g, struct encd_rank *r)
{
	mutex_unlock(&r->op_lock);
	encd_rank_put(r);
	encd_gcomm_put(g);
}

/**
 * encd_world_ioctl_init_groups() - ENCD_IOC_INIT_REPLICA_GROUPS
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_world_ioctl_init_groups(struct encd_ucmd *ucmd)
{
	struct encd_init_replica_groups *cmd = ucmd->cmd;
	struct encd_group_req *req;
	unsigned long deadline;
	struct encd_gcomm *g;
	struct encd_rank *r;
	u32 n = 0, i;
	bool hit;
	int err;

	if (cmd->__reserved)
		return encd_fail(ucmd, -EINVAL, "encd_init_replica_groups: reserved fields must be 0");
	req = kcalloc(ENCD_MAX_COMM_N, sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	r = enter(ucmd, cmd->vnc, cmd->ctx_id, &g);
	if (IS_ERR(r)) {
		err = PTR_ERR(r);
		goto out_free;
	}
	err = copy_groups(ucmd, r, cmd->vnc, cmd->ctx_id, req, &n);
	if (err)
		goto out;

	cmd->n_groups = n;
	cmd->n_new = 0;
	cmd->n_hits = 0;
	for (i = 0; i < n; i++) {
		struct encd_group_req *q = &req[i];

		/* program.c validated these; the pools and tables rely on it. */
		if (WARN_ON_ONCE(q->group_id >= ENCD_MAX_COMM_N ||
				 q->stream_id >= ENCD_MAX_STREAM_N || q->rank >= q->rank_n)) {
			err = encd_fail(ucmd, -EINVAL, "group %u is malformed", q->group_id);
			goto out;
		}
		if (q->key[q->rank] != g->g_device_id) {
			err = encd_fail(ucmd, -EINVAL,
					"group %u: bootstrap participant %u is global device %u, not this rank (%u)",
					q->group_id, q->rank, q->key[q->rank], g->g_device_id);
			goto out;
		}
		deadline = jiffies + msecs_to_jiffies(encd_timeout_ms(cmd->timeout_ms,
								      r->timeout_ms));
		err = init_group(ucmd, r, q, deadline, &hit);
		if (err)
			goto out;
		if (hit)
			cmd->n_hits++;
		else
			cmd->n_new++;
	}
out:
	leave(g, r);
out_free:
	for (i = 0; i < n; i++)
		kvfree(req[i].key);
	kfree(req);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

static struct encd_node *group_node(struct encd_ucmd *ucmd, struct encd_rank *r, u32 group_id)
{
	if (group_id == ENCD_GROUP_GLOBAL)
		return r->global_node;
	if (group_id < ENCD_MAX_COMM_N && r->groups[group_id])
		return r->groups[group_id];
	encd_fail(ucmd, -ENOENT, "Replica group %u has no comm: call enc_init_replica_groups",
		  group_id);
	return NULL;
}

/*
 * Why a formed rank's barrier cannot go on: it left, its world failed after
 * it formed (a formed rank keeps its state; its host has the world's
 * sentence), or a rank it needs left. The caller holds the host's lock.
 */
static int barrier_broken(struct encd_ucmd *ucmd, struct encd_rank *r, struct encd_node *node,
			  bool group, bool next)
{
	struct encd_host *h = r->host;
	struct encd_why why;

	lockdep_assert_held(&h->lock);
	if (h->state == ENCD_HOST_FAILED)
		return rank_broken(ucmd, r) ?: encd_fail_kept(ucmd, &h->failure);
	/* The barrier about to start (@next) is the one after those started. */
	if (encd_departure_blocker(h, node, group ? ENCD_WAIT_BARRIER : ENCD_WAIT_LOCAL_BARRIER,
				   node->bar.epoch + next, &why))
		return rank_broken(ucmd, r) ?: encd_fail_kept(ucmd, &why);
	return rank_broken(ucmd, r);
}

/*
 * Arrives at @node's local barrier, or starts its group barrier, unless the
 * world is already broken; then lets the host move the protocol on.
 */
static int barrier_enter(struct encd_ucmd *ucmd, struct encd_rank *r, struct encd_node *node,
			 bool group)
{
	struct encd_host *h = r->host;
	int err;

	mutex_lock(&h->lock);
	err = barrier_broken(ucmd, r, node, group, true);
	if (!err && group) {
		encd_gbarrier_start(h, node);
		encd_engine_check_departed(h, node);
	} else if (!err) {
		encd_lbarrier_arrive(node);
	}
	encd_host_run(h);
	mutex_unlock(&h->lock);
	return err;
}

/* The local barrier: arrive, wait for the rest of the group's local ranks. */
static int local_barrier(struct encd_ucmd *ucmd, struct encd_rank *r, struct encd_node *node,
			 unsigned long deadline)
{
	struct encd_host *h = r->host;
	u32 arrived, n;
	int err, broken;

	err = barrier_enter(ucmd, r, node, false);
	if (err)
		return err;
	err = rank_wait(r, deadline, !READ_ONCE(node->lb_waiting) ||
			READ_ONCE(h->state) == ENCD_HOST_FAILED || encd_lbarrier_broken(node));
	mutex_lock(&h->lock);
	if (!node->lb_waiting || encd_lbarrier_withdraw(node)) {
		err = 0;
	} else {
		broken = barrier_broken(ucmd, r, node, false, false);
		if (broken) {
			err = broken;
		} else {
			encd_lbarrier_counts(node, &arrived, &n);
			encd_fail(ucmd, err, "local barrier of group %d: %u of %u local ranks arrived: %s",
				  node->global ? -1 : (int)node->group_id, arrived + 1, n,
				  err == -ETIMEDOUT ? "timed out" : "interrupted");
		}
	}
	mutex_unlock(&h->lock);
	return err;
}

/* The group barrier: dissemination over the comm, moved on by the module. */
static int group_barrier(struct encd_ucmd *ucmd, struct encd_rank *r, struct encd_node *node,
			 unsigned long deadline)
{
	struct encd_host *h = r->host;
	char awaited[96];
	int err, broken;

	err = barrier_enter(ucmd, r, node, true);
	if (err)
		return err;
	err = rank_wait(r, deadline, !READ_ONCE(node->bar.active) ||
			READ_ONCE(h->state) == ENCD_HOST_FAILED);
	mutex_lock(&h->lock);
	if (!node->bar.active && !node->bar.err) {
		err = 0;
	} else {
		broken = barrier_broken(ucmd, r, node, true, false);
		if (broken) {
			err = broken;
		} else {
			err = err ?: node->bar.err;
			encd_gbarrier_awaited(node, awaited, sizeof(awaited));
			encd_gbarrier_stop(node, err);
			encd_fail(ucmd, err, "barrier of group %d: waiting for %s: %s",
				  node->global ? -1 : (int)node->group_id, awaited,
				  err == -ETIMEDOUT ? "timed out" : "interrupted");
		}
	}
	mutex_unlock(&h->lock);
	return err;
}

/**
 * encd_world_ioctl_barrier() - ENCD_IOC_COMM_BARRIER
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_world_ioctl_barrier(struct encd_ucmd *ucmd)
{
	struct encd_comm_barrier *cmd = ucmd->cmd;
	unsigned long deadline;
	struct encd_node *node;
	struct encd_gcomm *g;
	struct encd_rank *r;
	u64 t;
	int err;

	r = enter(ucmd, cmd->vnc, cmd->ctx_id, &g);
	if (IS_ERR(r))
		return PTR_ERR(r);
	node = group_node(ucmd, r, cmd->group_id);
	if (!node) {
		err = -ENOENT;
		goto out;
	}
	t = ktime_get_ns();
	deadline = jiffies + msecs_to_jiffies(encd_timeout_ms(cmd->timeout_ms, r->timeout_ms));
	if (cmd->head.flags & ENCD_BARRIER_LOCAL)
		err = local_barrier(ucmd, r, node, deadline);
	else
		err = group_barrier(ucmd, r, node, deadline);
	cmd->duration_ns = ktime_get_ns() - t;
out:
	leave(g, r);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * encd_world_ioctl_node_info() - ENCD_IOC_NODE_INFO
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_world_ioctl_node_info(struct encd_ucmd *ucmd)
{
	struct encd_node_info *cmd = ucmd->cmd;
	struct encd_node_snapshot s;
	struct encd_node *node;
	struct encd_gcomm *g;
	struct encd_rank *r;
	struct encd_host *h;
	unsigned int i;
	int err = 0;

	r = enter(ucmd, cmd->vnc, cmd->ctx_id, &g);
	if (IS_ERR(r))
		return PTR_ERR(r);
	h = r->host;
	mutex_lock(&h->lock);
	node = group_node(ucmd, r, cmd->group_id);
	if (!node) {
		err = -ENOENT;
		goto out;
	}
	encd_node_snapshot(node, &s);
	cmd->rank = s.n.rank;
	cmd->rank_n = s.n.rank_n;
	cmd->stream_id = s.n.stream_id;
	cmd->refcnt = s.n.refcnt;
	cmd->state = s.n.state;
	cmd->local_n = s.local_n;
	cmd->groups = s.n.groups;
	cmd->out_flags = (s.n.global ? ENCD_NODE_OUT_GLOBAL : 0) |
			 (cmd->group_id < ENCD_MAX_COMM_N && r->bound[cmd->group_id] ?
			  ENCD_NODE_OUT_BOUND : 0);
	cmd->hits = s.hits;
	memset(cmd->phase_ns, 0, sizeof(cmd->phase_ns));
	for (i = 0; i < s.n.n_phases; i++)
		cmd->phase_ns[s.phases[i].id] = s.phases[i].duration_ns;
	/* Every comm of the rank reports the world's rendezvous, as SETUP does. */
	cmd->phase_ns[ENCD_PHASE_RENDEZVOUS] = r->rendezvous_ns;
	BUILD_BUG_ON(ARRAY_SIZE(cmd->counters) < ARRAY_SIZE(s.counters));
	cmd->n_counters = s.n.n_counters;
	for (i = 0; i < s.n.n_counters; i++) {
		cmd->counters[i].type = s.counters[i].type;
		cmd->counters[i].size = s.counters[i].size;
		cmd->counters[i].tx = s.counters[i].tx;
		cmd->counters[i].rx = s.counters[i].rx;
	}
	if (r->mismatch.valid) {
		cmd->mismatch.valid = 1;
		cmd->mismatch.group_id = r->mismatch.group_id;
		cmd->mismatch.child_rank = r->mismatch.child_rank;
		cmd->mismatch.child_g_device_id = r->mismatch.child_g_device_id;
		memcpy(cmd->mismatch.local_sig, r->mismatch.local_sig, ENCD_SIG_LEN);
		memcpy(cmd->mismatch.child_sig, r->mismatch.child_sig, ENCD_SIG_LEN);
	}
out:
	mutex_unlock(&h->lock);
	leave(g, r);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

/**
 * encd_world_release() - a file lets go of a comm: its rank leaves, now
 * @file: the file
 * @nec_dev: the comm's core
 * @ctx_id: its context
 *
 * Never waits for the network or for an operation in progress: the rank
 * leaves its host (which fails the world for its peers and wakes every
 * waiter) and the rank is freed by whoever holds it last.
 */
void encd_world_release(struct encd_file *file, u32 nec_dev, u32 ctx_id)
{
	struct encd_gcomm *g = encd_get_global_comm(nec_dev, ctx_id);
	struct encd_rank *r = NULL;

	if (!g)
		return;
	spin_lock(&g->rank_lock);
	if (g->rank && g->rank->owner == file) {
		r = g->rank;
		g->rank = NULL;
	}
	spin_unlock(&g->rank_lock);
	if (r) {
		WRITE_ONCE(r->released, true);
		WRITE_ONCE(g->state, ENCD_GCOMM_BUILT);
		/* Pairs with encd_host_register(): one of us sees the other. */
		smp_mb();
		if (READ_ONCE(r->host))
			encd_host_leave(r->host, r);
		wake_up_all(&r->wq);
		encd_rank_put(r);
	}
	encd_gcomm_put(g);
}
