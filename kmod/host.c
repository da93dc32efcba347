// SPDX-License-Identifier: GPL-2.0
/*
 * The host agent: this kernel's member of a world, its registration and
 * its lifetime.
 *
 * Ranks of one world that share this kernel and a network namespace (and a
 * world key) are gathered by one host agent, made by the first of them to
 * set the world up; it speaks for all of them, so the root serves one
 * connection per host, not per rank. A host that is not the root's opens a
 * control link to the root host, says who it is (JOIN, frames.c) and
 * registers its ranks as they arrive (REGISTER, batched). The root host
 * (the one whose rank 0 is local, root.c) answers with the table of the
 * world (table.c). The module parameter local_delivery=0, or a world's
 * ENCD_SETUP_FORCE_TCP, gives each rank a host agent of its own, so that
 * every message crosses a socket.
 *
 * Failure reaches every rank at once: a rank that leaves, a host whose
 * links go, a peer that breaks the protocol, fail the world on this host
 * and are told to the root (DEATH), which tells every other host. A rank
 * that leaves a formed world departs instead (departure.c, news.c). The
 * last rank to leave shuts the host down, once it has no news to pass on.
 *
 * Locking: hosts_lock (the list of hosts) before a host's lock. Nothing
 * under a host's lock waits for the network: sends are queued on links.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/memcontrol.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "encd_private.h"


static DEFINE_MUTEX(hosts_lock);
static LIST_HEAD(hosts);

/*
 * Hosts whose ranks all left and that pass news on (forwarding): no file
 * holds them, and the core's slot their ranks had is free, so they are
 * bounded here instead. Each has a deadline (forwarding_timeout_ms); at
 * most forwarding_hosts_max pass news on at once, and
 * forwarding_hosts_per_user of one user's: past a bound, the oldest ends.
 * It has waited longest, so the news it passes on is the likeliest to
 * have all come, while the newest is passing on the end of a job now;
 * either way, what its subtree would have heard of at once it hears at
 * its deadline. Oldest first, under hosts_lock.
 */
static LIST_HEAD(forwarders);
static u32 n_forwarders;
/* Every host made and not yet freed: the module's exit waits for none to be left. */
static atomic_t hosts_alive = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(hosts_gone);

static void host_release(struct kref *ref)
{
	struct encd_host *h = container_of(ref, struct encd_host, ref);
	struct encd_msg *m, *tmp;

	WARN_ON(!list_empty(&h->links));
	WARN_ON(h->n_ranks);
	list_for_each_entry_safe(m, tmp, &h->local_q, node)
		kfree(m);
	/* Their links were closed, which took them: nothing is left here. */
	WARN_ON(!list_empty(&h->pre_table));
	xa_destroy(&h->ranks);
	/* Their links were closed, which took them out. */
	WARN_ON(!xa_empty(&h->outs));
	xa_destroy(&h->outs);
	encd_departures_destroy(&h->dep);
	encd_news_destroy(h);
	encd_root_free(h->root);
	kvfree(h->hosts);
	kvfree(h->rank_host);
	kvfree(h->held_table);
	kvfree(h->table_in);
	if (h->world)
		crypto_free_shash(h->world);
	memzero_explicit(&h->wk.key, sizeof(h->wk.key));
	mem_cgroup_put(h->memcg);
	put_net(h->wk.net);
	mutex_destroy(&h->lock);
	kfree(h);
	if (atomic_dec_and_test(&hosts_alive))
		wake_up(&hosts_gone);
}

/**
 * encd_host_get() - takes a reference to a host
 * @h: the host
 *
 * Return: @h.
 */
struct encd_host *encd_host_get(struct encd_host *h)
{
	kref_get(&h->ref);
	return h;
}

/**
 * encd_host_put() - drops a reference to a host
 * @h: the host, or NULL
 */
void encd_host_put(struct encd_host *h)
{
	if (h)
		kref_put(&h->ref, host_release);
}


/**
 * encd_host_describe() - names the ranks of a host, for a sentence
 * @h: this host; the caller holds its lock
 * @index: a host index of the table, or U32_MAX
 * @l: the link to that host (to find its ranks before the table), or NULL
 * @buf: out: e.g. "host 2 (10.0.0.3:4711, ranks 8-15)"
 * @size: its size
 */
void encd_host_describe(struct encd_host *h, u32 index, struct encd_link *l, char *buf,
			size_t size)
{
	u32 first = U32_MAX, last = 0, n = 0, r;
	struct sockaddr_storage addr;

	if (h->has_table && index < h->n_hosts) {
		for (r = 0; r < h->wk.world_size; r++) {
			if (h->rank_host[r] != index)
				continue;
			first = min(first, r);
			last = r;
			n++;
		}
		encd_host_peer_addr(h, index, &addr);
		scnprintf(buf, size, "host %u (%pISpc, %u rank%s %u-%u)", index, &addr, n,
			  n == 1 ? "" : "s", first, last);
		return;
	}
	if (l && h->root && encd_root_ranks_of(h, l, &first, &last, &n)) {
		scnprintf(buf, size, "the host at %pISpc (%u rank%s %u-%u)", encd_link_addr(l), n,
			  n == 1 ? "" : "s", first, last);
		return;
	}
	/* A data link's caller, before the table: by the index its LINK gave. */
	if (l && encd_link_is_data(l) && encd_link_peer(l) != U32_MAX)
		scnprintf(buf, size, "host %u (by its LINK; it called from %pISpc)",
			  encd_link_peer(l), encd_link_addr(l));
	else if (l)
		scnprintf(buf, size, "the host at %pISpc", encd_link_addr(l));
	else
		scnprintf(buf, size, "a host");
}

/* Sends a DEATH on its way to every host: to the root, which tells every host that joined. */
static void host_tell_death(struct encd_host *h, const struct encd_wire_death *d, const void *rest,
			    u32 len)
{
	lockdep_assert_held(&h->lock);
	if (h->root)
		encd_root_broadcast(h, ENCD_WIRE_DEATH, d, sizeof(*d), rest, len);
	else if (h->uplink)
		encd_link_send(h->uplink, ENCD_WIRE_DEATH, d, sizeof(*d), rest, len);
}

/* Tells the world that it failed, as @why says, because of @rank (or ENCD_WIRE_NO_RANK). */
static void host_tell_failure(struct encd_host *h, const struct encd_why *why, u32 rank)
{
	struct encd_wire_death d = {
		.err = cpu_to_be32(-why->err),
		.reason = cpu_to_be32(why->reason),
		.rank = cpu_to_be32(rank),
		.host = cpu_to_be32(h->has_table ? h->index : ENCD_WIRE_NO_RANK),
	};
	u32 len = min_t(size_t, strlen(why->msg), ENCD_TEXT_MAX);
	struct encd_link *out;
	unsigned long i;

	d.text_len = cpu_to_be16(len);
	host_tell_death(h, &d, why->msg, len);
	/*
	 * And on every data link this host sends on, before the link closes:
	 * its peer would otherwise see the close before the root's word came
	 * and take it for this host's own failure. Without the rank, which a
	 * data link is believed about only for its own host's ranks, and
	 * which only the root passes on.
	 */
	d.rank = cpu_to_be32(ENCD_WIRE_NO_RANK);
	xa_for_each(&h->outs, i, out)
		encd_link_send(out, ENCD_WIRE_DEATH, &d, sizeof(d), why->msg, len);
}

/**
 * encd_host_fail_world() - the world failed: every local rank fails
 * @h: this host; the caller holds its lock
 * @err: the negative errno every rank's operation fails with
 * @reason: why, enum encd_reason
 * @rank: the rank whose leaving caused it, or ENCD_WIRE_NO_RANK
 * @tell: pass it on: to the root, or (at the root) to every host
 * @fmt: the sentence, naming who and why
 *
 * The first failure of a world is the one every rank reports; later ones
 * change nothing.
 */
void encd_host_fail_world(struct encd_host *h, int err, u32 reason, u32 rank, bool tell,
			  const char *fmt, ...)
{
	struct encd_rank *r;
	unsigned long id;
	va_list args;

	lockdep_assert_held(&h->lock);
	if (h->state == ENCD_HOST_FAILED || h->state == ENCD_HOST_DEAD)
		return;
	va_start(args, fmt);
	encd_why_set(&h->failure, err, reason, fmt, args);
	va_end(args);
	h->state = ENCD_HOST_FAILED;
	/* Its ranks say it to their callers; the log only tells who caused it. */
	pr_debug("world of %u ranks: %s\n", h->wk.world_size, h->failure.msg);

	xa_for_each(&h->ranks, id, r)
		encd_engine_world_failed(r);
	if (tell)
		host_tell_failure(h, &h->failure, rank);
	encd_host_forwarded(h);
}

/* Registration */

/* Sends the root every rank of this host it has not heard of, batched. */
/**
 * encd_host_send_registrations() - sends the root every rank of this host it has not heard of
 * @h: this host; the caller holds its lock
 *
 * Batched, once the control link to the root is up.
 */
void encd_host_send_registrations(struct encd_host *h)
{
	struct encd_wire_rank batch[32];
	struct encd_wire_register reg;
	struct encd_rank *r, *tmp;
	u32 n = 0;

	lockdep_assert_held(&h->lock);
	if (!h->uplink || !h->uplink_up || h->state != ENCD_HOST_GATHERING)
		return;
	list_for_each_entry_safe(r, tmp, &h->unsent, unsent) {
		batch[n].g_device_id = cpu_to_be32(r->id);
		batch[n].nec_dev = cpu_to_be32(r->g->nec_dev_id);
		batch[n].settings = cpu_to_be32(r->settings);
		list_del_init(&r->unsent);
		if (++n < ARRAY_SIZE(batch))
			continue;
		reg.n = cpu_to_be32(n);
		encd_link_send(h->uplink, ENCD_WIRE_REGISTER, &reg, sizeof(reg), batch,
			       n * sizeof(batch[0]));
		n = 0;
	}
	if (n) {
		reg.n = cpu_to_be32(n);
		encd_link_send(h->uplink, ENCD_WIRE_REGISTER, &reg, sizeof(reg), batch,
			       n * sizeof(batch[0]));
	}
}

static void host_register_work(struct work_struct *w)
{
	struct encd_host *h = container_of(w, struct encd_host, register_work);

	mutex_lock(&h->lock);
	encd_host_send_registrations(h);
	mutex_unlock(&h->lock);
	encd_host_put(h);
}

/* This host has rank 0: it becomes the world's root host. */
static int host_become_root(struct encd_host *h, struct encd_rank *r0,
			    struct encd_listener **stale)
{
	struct encd_rank *r;
	unsigned long id;
	int err;

	lockdep_assert_held(&h->lock);
	if (h->uplink) {
		encd_link_close(h->uplink);
		h->uplink = NULL;
		h->uplink_up = false;
	}
	*stale = h->listener;
	h->listener = NULL;
	/* A world of one has nobody to listen for. */
	err = h->wk.world_size > 1 ? encd_listener_start(h, &h->wk.root) : 0;
	if (err)
		return encd_rank_fail(r0, err, encd_reason_of(err), "rank 0: cannot listen on %pISpc for the world's root (%s)",
				      &h->wk.root, encd_errno_name(err));
	h->root = encd_root_alloc(h, r0);
	if (!h->root)
		return encd_rank_fail(r0, -ENOMEM, ENCD_REASON_NO_MEMORY, "rank 0: out of memory for the world's root");
	/* The ranks that came before rank 0 register now, rank 0 first. */
	encd_root_register_local(h, r0);
	xa_for_each(&h->ranks, id, r) {
		if (r != r0 && !list_empty(&r->unsent)) {
			list_del_init(&r->unsent);
			encd_root_register_local(h, r);
		}
	}
	return 0;
}

/**
 * encd_host_register() - a local rank joins its world through this host
 * @h: the host
 * @r: the rank, not yet registered
 *
 * Return: 0 (the rank waits for the table), or a negative errno with the
 * sentence in the rank.
 */
int encd_host_register(struct encd_host *h, struct encd_rank *r)
{
	struct encd_listener *stale = NULL;
	int err = 0;

	mutex_lock(&h->lock);
	switch (h->state) {
	case ENCD_HOST_FAILED:
		err = encd_rank_fail(r, h->failure.err, h->failure.reason, "%s", h->failure.msg);
		goto out;
	case ENCD_HOST_FORMED:
		err = encd_rank_fail(r, -EBUSY, ENCD_REASON_BUSY,
				     "rank %u: the world of root %pISpc has already formed on this host without it",
				     r->id, &h->wk.root);
		goto out;
	case ENCD_HOST_DEAD:
		err = -EAGAIN;
		goto out;
	default:
		break;
	}
	if (xa_insert(&h->ranks, r->id, r, GFP_KERNEL_ACCOUNT)) {
		err = encd_rank_fail(r, -EINVAL, ENCD_REASON_ARGUMENT,
				     "rank %u: a second rank with global device id %u on this host",
				     r->id, r->id);
		goto out;
	}
	h->n_ranks++;
	WRITE_ONCE(r->host, encd_host_get(h));
	/* Pairs with encd_world_release(): one of us sees the other. */
	smp_mb();
	if (READ_ONCE(r->released)) {
		xa_erase(&h->ranks, r->id);
		h->n_ranks--;
		err = -ECONNABORTED;
		goto out;
	}
	r->state = ENCD_RANK_REGISTERED;
	r->rendezvous_start = ktime_get_boottime_ns();

	if (h->root) {
		encd_root_register_local(h, r);
	} else if (r->id == 0) {
		err = host_become_root(h, r, &stale);
	} else {
		list_add_tail(&r->unsent, &h->unsent);
		if (!h->uplink)
			h->uplink = encd_link_connect(h, &h->wk.root, ENCD_LINK_CONTROL, true);
		if (!h->uplink)
			err = encd_rank_fail(r, -ENOMEM, ENCD_REASON_NO_MEMORY, "rank %u: out of memory",
					     r->id);
		else if (h->uplink_up && !work_pending(&h->register_work)) {
			encd_host_get(h);
			encd_link_queue_work(&h->register_work);
		}
	}
	encd_host_run(h);
out:
	mutex_unlock(&h->lock);
	encd_listener_stop(stale);
	return err;
}

/* The world key of a host and of a rank joining it must match exactly. */
static bool same_world(const struct encd_world_key *a, const struct encd_world_key *b)
{
	return net_eq(a->net, b->net) && a->world_size == b->world_size && a->solo == b->solo &&
	       a->root.ss_family == b->root.ss_family &&
	       !memcmp(&a->root, &b->root, sizeof(a->root)) &&
	       !crypto_memneq(a->key, b->key, sizeof(a->key));
}

/* A host passing news on reached its deadline, or a bound ended it: it ends. */
static void host_fwd_work(struct work_struct *w)
{
	struct encd_host *h = container_of(to_delayed_work(w), struct encd_host, fwd_work);
	struct mem_cgroup *old = set_active_memcg(h->memcg);

	mutex_lock(&h->lock);
	if (h->forwarding) {
		pr_debug("host %u of a world of %u ranks: passed news on for %llu ms, ends\n",
			 h->index, h->wk.world_size,
			 div_u64(ktime_get_boottime_ns() - h->fwd_since, NSEC_PER_MSEC));
		h->fwd_over = true;
		encd_host_forwarded(h);
	}
	mutex_unlock(&h->lock);
	set_active_memcg(old);
}

/* Ends @h, a forwarder, before its deadline. */
static void fwd_end(struct encd_host *h)
{
	lockdep_assert_held(&hosts_lock);
	list_del_init(&h->fwd_node);
	n_forwarders--;
	/* Not pending: it is running, and ends the host. */
	if (cancel_delayed_work(&h->fwd_work))
		encd_link_queue_delayed(&h->fwd_work, 0);
}

/* @h begins to pass news on: it counts, and its deadline runs. */
static void fwd_begin(struct encd_host *h)
{
	u32 max = encd_forwarding_hosts_max(), per_user = encd_forwarding_hosts_per_user();
	u32 timeout = encd_forwarding_timeout_ms();
	struct encd_host *o, *oldest = NULL;
	u32 mine = 0;

	lockdep_assert_held(&hosts_lock);
	h->fwd_since = ktime_get_boottime_ns();
	h->fwd_until = h->fwd_since + (u64)timeout * NSEC_PER_MSEC;
	list_add_tail(&h->fwd_node, &forwarders);
	n_forwarders++;
	encd_link_queue_delayed(&h->fwd_work, msecs_to_jiffies(timeout));
	list_for_each_entry(o, &forwarders, fwd_node) {
		if (!uid_eq(o->uid, h->uid))
			continue;
		oldest = oldest ?: o;
		mine++;
	}
	if (mine > per_user)
		fwd_end(oldest);
	while (n_forwarders > max)
		fwd_end(list_first_entry(&forwarders, struct encd_host, fwd_node));
}

/**
 * encd_host_news_report() - a host of @net that passes news on with no ranks
 * @net: the network namespace of the hosts shown
 * @pos: which of them, from 0, oldest first
 * @out: out: what it is
 *
 * Return: 0, or -ENOENT past the last.
 */
int encd_host_news_report(struct net *net, u32 pos, struct encd_news_host_report *out)
{
	u64 now = ktime_get_boottime_ns();
	struct encd_link *l;
	struct encd_host *h;
	int err = -ENOENT;

	mutex_lock(&hosts_lock);
	list_for_each_entry(h, &forwarders, fwd_node) {
		if (!net_eq(h->wk.net, net) || pos--)
			continue;
		memset(out, 0, sizeof(*out));
		mutex_lock(&h->lock);
		out->root = h->wk.root;
		out->world_size = h->wk.world_size;
		out->index = h->index;
		out->uid = h->uid;
		out->age_ns = now - h->fwd_since;
		out->left_ns = h->forwarding && !h->fwd_over && h->fwd_until > now ?
			       h->fwd_until - now : 0;
		list_for_each_entry(l, &h->links, node)
			out->links++;
		if (h->has_table && h->state == ENCD_HOST_FORMED) {
			out->children = encd_news_children(h);
			out->parent = h->index && !h->news.parent_gone;
			out->staying = h->subtree_staying - h->hosts[h->index].staying;
		}
		mutex_unlock(&h->lock);
		err = 0;
		break;
	}
	mutex_unlock(&hosts_lock);
	return err;
}

/**
 * encd_hosts_exit() - the module goes: every host ends, and is freed
 *
 * Every file is closed, so only hosts passing news on are left, and hosts
 * shutting down. They end now, whatever their peers hold open: their
 * links' sockets call the module's code until the links are freed, so
 * this waits until every host (whose links count it) is.
 */
void encd_hosts_exit(void)
{
	struct encd_host *h, *tmp;
	int tries = 3;

	mutex_lock(&hosts_lock);
	list_for_each_entry_safe(h, tmp, &forwarders, fwd_node)
		fwd_end(h);
	mutex_unlock(&hosts_lock);
	/* Their links linger for ENCD_LINGER_MS at most, then close. */
	while (!wait_event_timeout(hosts_gone, !atomic_read(&hosts_alive), 10 * HZ)) {
		pr_warn("unloading: waiting for %d host agents to close their links\n",
			atomic_read(&hosts_alive));
		/* By now only a leak can keep a host: rmmod must not hang on it. */
		if (WARN_ON(!--tries))
			break;
	}
}

static struct encd_host *host_create(const struct encd_world_key *wk)
{
	struct encd_host *h;

	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h)
		return ERR_PTR(-ENOMEM);
	kref_init(&h->ref);
	mutex_init(&h->lock);
	h->wk = *wk;
	get_net(h->wk.net);
	get_random_bytes(h->id, sizeof(h->id));
	xa_init(&h->ranks);
	xa_init(&h->outs);
	encd_departures_init(&h->dep);
	encd_news_init(h);
	INIT_LIST_HEAD(&h->unsent);
	INIT_LIST_HEAD(&h->links);
	INIT_LIST_HEAD(&h->pending);
	INIT_LIST_HEAD(&h->local_q);
	INIT_LIST_HEAD(&h->pre_table);
	INIT_WORK(&h->shutdown_work, encd_host_shutdown_work);
	INIT_WORK(&h->register_work, host_register_work);
	INIT_LIST_HEAD(&h->fwd_node);
	INIT_DELAYED_WORK(&h->fwd_work, host_fwd_work);
	h->uid = current_uid();
	h->memcg = get_mem_cgroup_from_mm(current->mm);
	atomic_inc(&hosts_alive);
	h->world = encd_auth_world_tfm(wk->key, &wk->root);
	if (IS_ERR(h->world)) {
		long err = PTR_ERR(h->world);

		h->world = NULL;
		encd_host_put(h);
		return ERR_PTR(err);
	}
	return h;
}

/**
 * encd_host_find() - the host agent of a world on this kernel, made if need be
 * @wk: the world key (its net is not taken over: the host takes its own)
 *
 * Return: a counted reference, or an ERR_PTR() (-ENOMEM, the crypto API's).
 */
struct encd_host *encd_host_find(const struct encd_world_key *wk)
{
	struct encd_host *h;

	mutex_lock(&hosts_lock);
	list_for_each_entry(h, &hosts, node) {
		if (same_world(&h->wk, wk)) {
			encd_host_get(h);
			goto out;
		}
	}
	h = host_create(wk);
	if (!IS_ERR(h)) {
		/* The list's reference; the caller gets another. */
		list_add(&h->node, &hosts);
		encd_host_get(h);
	}
out:
	mutex_unlock(&hosts_lock);
	return h;
}

/*
 * A host whose ranks all departed a formed world: their last messages
 * may still be queued, on a data link perhaps still shaking hands, or
 * unacknowledged in a socket a close with unread input would reset. They
 * go before the links close, for ENCD_LINGER_MS at most.
 */
static void host_linger(struct encd_host *h)
{
	unsigned long end = jiffies + msecs_to_jiffies(ENCD_LINGER_MS);
	struct encd_link *l;
	bool delivered;

	for (;;) {
		delivered = true;
		mutex_lock(&h->lock);
		list_for_each_entry(l, &h->links, node)
			if (!encd_link_is_data(l) || encd_link_initiator(l))
				delivered &= encd_link_delivered(l);
		mutex_unlock(&h->lock);
		if (delivered || time_after_eq(jiffies, end))
			return;
		msleep(20);
	}
}

/**
 * encd_host_shutdown_work() - a host without ranks closes everything
 * @w: the host's shutdown work
 */
void encd_host_shutdown_work(struct work_struct *w)
{
	struct encd_host *h = container_of(w, struct encd_host, shutdown_work);
	struct encd_link *l, *tmp;
	struct encd_listener *ls;

	/* Nobody new: a world formed again may want the port at once. */
	mutex_lock(&h->lock);
	ls = h->listener;
	h->listener = NULL;
	mutex_unlock(&h->lock);
	encd_listener_stop(ls);
	/* Off the list first: nothing queues its deadline again. */
	mutex_lock(&hosts_lock);
	if (!list_empty(&h->fwd_node)) {
		list_del_init(&h->fwd_node);
		n_forwarders--;
	}
	mutex_unlock(&hosts_lock);
	cancel_delayed_work_sync(&h->fwd_work);
	/* Its news went as it shut down (encd_host_forwarded()); no more comes. */
	cancel_delayed_work_sync(&h->news.work);
	if (READ_ONCE(h->linger))
		host_linger(h);
	mutex_lock(&h->lock);
	list_for_each_entry_safe(l, tmp, &h->links, node)
		encd_link_close(l);
	h->uplink = NULL;
	mutex_unlock(&h->lock);
	/* The list's reference. */
	encd_host_put(h);
}

/*
 * A rank of the world left. One whose world formed departs (departure.c):
 * what it completed stands. So does one of the table's that failed on its
 * own in a formed world (out of memory for its comm): every host counts
 * the ranks staying, and a host passing news on waits for its news.
 * Otherwise it fails the world for everyone.
 * Before the table, only the root knows whether a rank it heard of was one
 * of the world's (it may have refused it): a host names the rank to the
 * root, which decides. A rank the root has not heard of yet fails this
 * host's world, and the root's through a DEATH that names no rank: the
 * world it was to be part of cannot form without it.
 */
static void host_rank_left(struct encd_host *h, struct encd_rank *r, bool unsent, u32 barriers,
			   const struct encd_departure_list *formed)
{
	struct encd_why left = { .err = -ECONNABORTED, .reason = ENCD_REASON_DEPARTED };
	char *text = left.msg;

	if (h->state == ENCD_HOST_FORMED && h->rank_host[r->id] == h->index &&
	    (r->state == ENCD_RANK_FORMED || r->state == ENCD_RANK_FAILED)) {
		encd_departure_local(h, r->id, barriers, formed);
		return;
	}
	if (r->state != ENCD_RANK_REGISTERED && r->state != ENCD_RANK_FORMED)
		return;
	encd_departure_text(text, sizeof(left.msg), r->id, ENCD_WIRE_NO_RANK);
	if (h->root ? encd_root_has(h, NULL, r->id) : h->has_table)
		encd_host_fail_world(h, -ECONNABORTED, ENCD_REASON_DEPARTED, r->id, true, "%s",
				     text);
	else if (unsent)
		encd_host_fail_world(h, -ECONNABORTED, ENCD_REASON_DEPARTED, ENCD_WIRE_NO_RANK,
				     true, "%s", text);
	else if (h->state == ENCD_HOST_GATHERING)
		host_tell_failure(h, &left, r->id);
}

/**
 * encd_host_leave() - a local rank leaves its host, for good
 * @h: its host
 * @r: the rank: released, or failed before it registered
 *
 * A registered rank that leaves fails the world for everyone. The last
 * rank to leave shuts the host down, in the background.
 */
void encd_host_leave(struct encd_host *h, struct encd_rank *r)
{
	struct encd_listener *ls = NULL;
	bool last;

	mutex_lock(&h->lock);
	if (xa_load(&h->ranks, r->id) == r) {
		bool unsent = !list_empty(&r->unsent);
		struct encd_departure_list formed;
		u32 barriers = encd_departure_collect(r, &formed);

		xa_erase(&h->ranks, r->id);
		h->n_ranks--;
		list_del_init(&r->unsent);
		encd_engine_rank_gone(h, r);
		host_rank_left(h, r, unsent, barriers, &formed);
		encd_departure_list_free(&formed);
		encd_host_run(h);
	}
	last = !h->n_ranks;
	mutex_unlock(&h->lock);
	if (!last)
		return;

	mutex_lock(&hosts_lock);
	mutex_lock(&h->lock);
	if (!h->n_ranks && h->state != ENCD_HOST_DEAD && !h->forwarding) {
		/*
		 * No new rank finds it, nor does a new connection: a world
		 * formed again gets a host and the port of its own.
		 */
		list_del_init(&h->node);
		ls = h->listener;
		h->listener = NULL;
		h->forwarding = true;
		encd_host_forwarded(h);
		/* No file holds it now: its deadline and the bounds do. */
		if (h->forwarding)
			fwd_begin(h);
	}
	mutex_unlock(&h->lock);
	mutex_unlock(&hosts_lock);
	encd_listener_stop(ls);
}

/**
 * encd_host_forwarded() - shuts a host without ranks down once it owes nothing
 * @h: this host; the caller holds its lock
 *
 * A host whose ranks all left a formed world passes the news of departures
 * on to its subtree of the host tree (news.c) while ranks of it are left;
 * the root's subtree is the world. Then, once its world failed, or once no
 * news can come to it or go from it (its parent, or its last child, went),
 * or at its deadline or when a bound ends it (as if no news could come),
 * it sends what news waits, and closes everything in the background. It
 * holds no module reference: the module's exit ends it
 * (encd_hosts_exit()).
 */
void encd_host_forwarded(struct encd_host *h)
{
	lockdep_assert_held(&h->lock);
	/* Not for its own ranks, which are all gone. */
	if (!h->forwarding || (h->state == ENCD_HOST_FORMED && !h->fwd_over &&
			       h->subtree_staying > h->hosts[h->index].staying &&
			       encd_news_passes_on(h)))
		return;
	h->forwarding = false;
	pr_debug("host %u of a world of %u ranks: no ranks, nothing more to pass on (%s)\n",
		 h->index, h->wk.world_size, h->state == ENCD_HOST_FORMED ? "formed" : "failed");
	encd_news_flush(h);
	WRITE_ONCE(h->linger, h->state == ENCD_HOST_FORMED);
	h->state = ENCD_HOST_DEAD;
	encd_link_queue_work(&h->shutdown_work);
}
