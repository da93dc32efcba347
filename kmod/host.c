// SPDX-License-Identifier: GPL-2.0
/*
 * The host agent: this kernel's member of a world.
 *
 * Ranks of one world that share this kernel and a network namespace (and a
 * world key) are gathered by one host agent, made by the first of them to
 * set the world up; it speaks for all of them, so the root serves one
 * connection per host, not per rank. A host that is not the root's opens a
 * control link to the root host, says who it is (JOIN) and registers its
 * ranks as they arrive (REGISTER, batched). The root host (the one whose
 * rank 0 is local, root.c) answers with the table of the world: every host's
 * address and every rank's host. The table goes down a binary tree of
 * hosts, each host receiving it once from its parent and passing it to its
 * two children, so the root sends it twice, whatever the size of the world.
 *
 * Then messages between ranks move: to a rank of this host, handed over in
 * the module (the local queue, run by whoever delivered the message that
 * caused it, so that a signature folds into its parent's and a unique id
 * goes down the hypercube without waiting for any process to run); to a
 * rank of another host, on this host's data link to it, opened on first use.
 * The module parameter local_delivery=0, or a world's ENCD_SETUP_FORCE_TCP,
 * gives each rank a host agent of its own, so that every message crosses a
 * socket.
 *
 * Failure reaches every rank at once: a rank that leaves, a host whose
 * links go, a peer that breaks the protocol, fail the world on this host
 * and are told to the root (DEATH), which tells every other host.
 *
 * Locking: hosts_lock (the list of hosts) before a host's lock. Nothing
 * under a host's lock waits for the network: sends are queued on links.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/memcontrol.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "encd_private.h"
#include "schedule.h"

static DEFINE_MUTEX(hosts_lock);
static LIST_HEAD(hosts);

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
	encd_departures_destroy(&h->dep);
	encd_root_free(h->root);
	kvfree(h->hosts);
	kvfree(h->rank_host);
	if (h->world)
		crypto_free_shash(h->world);
	memzero_explicit(&h->wk.key, sizeof(h->wk.key));
	mem_cgroup_put(h->memcg);
	put_net(h->wk.net);
	mutex_destroy(&h->lock);
	kfree(h);
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

/* Text from a peer, made fit for a sentence: printable ASCII, bounded. */
static void sanitize(char *dst, size_t size, const char *src, size_t len)
{
	size_t i;

	len = min(len, size - 1);
	for (i = 0; i < len; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[len] = '\0';
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

	if (h->rank_host && index < h->n_hosts) {
		for (r = 0; r < h->wk.world_size; r++) {
			if (h->rank_host[r] != index)
				continue;
			first = min(first, r);
			last = r;
			n++;
		}
		scnprintf(buf, size, "host %u (%pISpc, %u rank%s %u-%u)", index,
			  &h->hosts[index].addr, n, n == 1 ? "" : "s", first, last);
		return;
	}
	if (l && h->root && encd_root_ranks_of(h, l, &first, &last, &n)) {
		scnprintf(buf, size, "the host at %pISpc (%u rank%s %u-%u)", &l->addr, n,
			  n == 1 ? "" : "s", first, last);
		return;
	}
	if (l)
		scnprintf(buf, size, "the host at %pISpc", &l->addr);
	else
		scnprintf(buf, size, "a host");
}

/*
 * Tells the rest of the world that it failed, as @err, because of @rank
 * (or ENCD_WIRE_NO_RANK): a host tells the root; the root tells every host
 * that joined.
 */
static void host_tell_failure(struct encd_host *h, int err, u32 rank, const char *text)
{
	struct encd_wire_death d = {
		.err = cpu_to_be32(-err),
		.rank = cpu_to_be32(rank),
		.host = cpu_to_be32(h->rank_host ? h->index : ENCD_WIRE_NO_RANK),
		.barriers = cpu_to_be32(ENCD_WIRE_NO_RANK),
	};
	u32 len = min_t(size_t, strlen(text), ENCD_TEXT_MAX);

	d.text_len = cpu_to_be16(len);
	if (h->root)
		encd_root_broadcast(h, ENCD_WIRE_DEATH, &d, sizeof(d), text, len);
	else if (h->uplink)
		encd_link_send(h->uplink, ENCD_WIRE_DEATH, &d, sizeof(d), text, len);
}

/**
 * encd_host_fail_world() - the world failed: every local rank fails
 * @h: this host; the caller holds its lock
 * @err: the negative errno every rank's operation fails with
 * @rank: the rank whose leaving caused it, or ENCD_WIRE_NO_RANK
 * @tell: pass it on: to the root, or (at the root) to every host
 * @fmt: the sentence, naming who and why
 *
 * The first failure of a world is the one every rank reports; later ones
 * change nothing.
 */
void encd_host_fail_world(struct encd_host *h, int err, u32 rank, bool tell, const char *fmt, ...)
{
	struct encd_rank *r;
	unsigned long id;
	va_list args;

	lockdep_assert_held(&h->lock);
	if (h->state == ENCD_HOST_FAILED || h->state == ENCD_HOST_DEAD)
		return;
	va_start(args, fmt);
	vscnprintf(h->failure, sizeof(h->failure), fmt, args);
	va_end(args);
	h->failure_err = err;
	h->state = ENCD_HOST_FAILED;
	/* Its ranks say it to their callers; the log only tells who caused it. */
	pr_debug("world of %u ranks: %s\n", h->wk.world_size, h->failure);

	xa_for_each(&h->ranks, id, r)
		encd_engine_world_failed(r);
	if (tell)
		host_tell_failure(h, err, rank, h->failure);
}

/* Registration */

/* Sends the root every rank of this host it has not heard of, batched. */
static void host_send_registrations(struct encd_host *h)
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
	host_send_registrations(h);
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
		return encd_rank_fail(r0, err, "rank 0: cannot listen on %pISpc for the world's root (%s)",
				      &h->wk.root, encd_errno_name(err));
	h->root = encd_root_alloc(h, r0);
	if (!h->root)
		return encd_rank_fail(r0, -ENOMEM, "rank 0: out of memory for the world's root");
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
		err = encd_rank_fail(r, h->failure_err, "%s", h->failure);
		goto out;
	case ENCD_HOST_FORMED:
		err = encd_rank_fail(r, -EBUSY,
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
		err = encd_rank_fail(r, -EINVAL,
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
			err = encd_rank_fail(r, -ENOMEM, "rank %u: out of memory", r->id);
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
	encd_departures_init(&h->dep);
	INIT_LIST_HEAD(&h->unsent);
	INIT_LIST_HEAD(&h->links);
	INIT_LIST_HEAD(&h->pending);
	INIT_LIST_HEAD(&h->local_q);
	INIT_LIST_HEAD(&h->pre_table);
	INIT_WORK(&h->shutdown_work, encd_host_shutdown_work);
	INIT_WORK(&h->register_work, host_register_work);
	h->memcg = get_mem_cgroup_from_mm(current->mm);
	h->world = encd_auth_tfm(wk->key, sizeof(wk->key));
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
			if (l->purpose == ENCD_LINK_CONTROL || l->initiator)
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
 * what it completed stands. Otherwise it fails the world for everyone.
 * Before the table, only the root knows whether a rank it heard of was one
 * of the world's (it may have refused it): a host names the rank to the
 * root, which decides. A rank the root has not heard of yet fails this
 * host's world, and the root's through a DEATH that names no rank: the
 * world it was to be part of cannot form without it.
 */
static void host_rank_left(struct encd_host *h, struct encd_rank *r, bool unsent, u32 barriers,
			   const struct encd_departure_list *formed)
{
	char text[ENCD_MSG_MAX];

	if (r->state != ENCD_RANK_REGISTERED && r->state != ENCD_RANK_FORMED)
		return;
	encd_departure_text(text, sizeof(text), r->id);
	if (r->state == ENCD_RANK_FORMED && h->state == ENCD_HOST_FORMED)
		encd_departure_local(h, r->id, barriers, formed);
	else if (h->root ? encd_root_has(h, NULL, r->id) : !!h->rank_host)
		encd_host_fail_world(h, -ECONNABORTED, r->id, true, "%s", text);
	else if (unsent)
		encd_host_fail_world(h, -ECONNABORTED, ENCD_WIRE_NO_RANK, true, "%s", text);
	else if (h->state == ENCD_HOST_GATHERING)
		host_tell_failure(h, -ECONNABORTED, r->id, text);
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
	if (!h->n_ranks && h->state != ENCD_HOST_DEAD) {
		WRITE_ONCE(h->linger, h->state == ENCD_HOST_FORMED);
		h->state = ENCD_HOST_DEAD;
		list_del_init(&h->node);
		encd_link_queue_work(&h->shutdown_work);
	}
	mutex_unlock(&h->lock);
	mutex_unlock(&hosts_lock);
}

/* The table */

/* Opens (or finds) the data link this host sends to host @index on. */
static struct encd_link *host_out_link(struct encd_host *h, u32 index)
{
	struct encd_peer_host *p = &h->hosts[index];

	if (!p->out) {
		p->out = encd_link_connect(h, &p->addr, ENCD_LINK_DATA, false);
		if (p->out)
			p->out->peer = index;
	}
	return p->out;
}

static int host_parse_table(struct encd_host *h, const void *buf, u32 len, char *why,
			    size_t why_len)
{
	const struct encd_wire_table *t = buf;
	const struct encd_wire_table_host *wh;
	const __be32 *wr;
	u32 n_ranks = be32_to_cpu(t->n_ranks), n_hosts = be32_to_cpu(t->n_hosts), i, self;
	struct encd_rank *r;
	unsigned long id;
	u32 *seen;

	if (n_ranks != h->wk.world_size || !n_hosts || n_hosts > n_ranks ||
	    len != encd_wire_table_len(n_ranks, n_hosts)) {
		scnprintf(why, why_len, "its table is not one of a world of %u ranks",
			  h->wk.world_size);
		return -EPROTO;
	}
	h->hosts = kvcalloc(n_hosts, sizeof(*h->hosts), GFP_KERNEL_ACCOUNT);
	h->rank_host = kvmalloc_array(n_ranks, sizeof(u32), GFP_KERNEL_ACCOUNT);
	seen = kvcalloc(n_hosts, sizeof(u32), GFP_KERNEL);
	if (!h->hosts || !h->rank_host || !seen) {
		kvfree(seen);
		scnprintf(why, why_len, "out of memory for a table of %u hosts", n_hosts);
		return -ENOMEM;
	}
	wh = buf + sizeof(*t);
	wr = (const __be32 *)(wh + n_hosts);
	self = U32_MAX;
	for (i = 0; i < n_hosts; i++) {
		memcpy(h->hosts[i].id, wh[i].host_id, ENCD_HOST_ID_LEN);
		/* This host needs no address of its own (a world of one has none). */
		if (encd_addr_from_wire(&wh[i].listen, &h->hosts[i].addr) &&
		    memcmp(wh[i].host_id, h->id, ENCD_HOST_ID_LEN))
			goto bad;
		if (!memcmp(wh[i].host_id, h->id, ENCD_HOST_ID_LEN)) {
			if (self != U32_MAX)
				goto bad;
			self = i;
		}
	}
	for (i = 0; i < n_ranks; i++) {
		h->rank_host[i] = be32_to_cpu(wr[i]);
		if (h->rank_host[i] >= n_hosts)
			goto bad;
		seen[h->rank_host[i]]++;
	}
	for (i = 0; i < n_hosts; i++)
		if (!seen[i])
			goto bad;
	if (self == U32_MAX)
		goto bad;
	xa_for_each(&h->ranks, id, r)
		if (h->rank_host[id] != self)
			goto bad;
	kvfree(seen);
	h->token = be64_to_cpu(t->token);
	h->n_hosts = n_hosts;
	h->index = self;
	return 0;
bad:
	kvfree(seen);
	kvfree(h->hosts);
	kvfree(h->rank_host);
	h->hosts = NULL;
	h->rank_host = NULL;
	scnprintf(why, why_len, "its table of the world does not add up");
	return -EPROTO;
}

/*
 * A data link whose LINK came before the table was taken on trust: now its
 * LINK must name another host of this world, by the world's token. One
 * that does not is another world's (two worlds may share a secret): it is
 * closed as a stranger's would be, and what it sent goes with it. A link
 * that has not said LINK yet (still shaking hands, or up and awaiting it)
 * is judged by host_on_link(), with the table, when it does: a host that
 * got its table at the same time as this one may be calling already.
 */
static void host_judge_trusted_links(struct encd_host *h)
{
	struct encd_link *l, *tmp;

	list_for_each_entry_safe(l, tmp, &h->links, node) {
		if (l->purpose != ENCD_LINK_DATA || l->initiator || !l->up || l->awaiting_first)
			continue;
		if (l->peer < h->n_hosts && l->peer != h->index && l->link_token == h->token)
			continue;
		net_dbg_ratelimited("link from %pISpc: its LINK names no other host of this world\n",
				    &l->addr);
		encd_link_close(l);
	}
}

/* Whether a message's route is one its link's host may send. */
static int host_route_ok(struct encd_host *h, struct encd_link *l, u8 type, u32 src, u32 dst,
			 char *why, size_t why_len)
{
	if (src >= h->wk.world_size || dst >= h->wk.world_size || h->rank_host[src] != l->peer ||
	    h->rank_host[dst] != h->index) {
		scnprintf(why, why_len, "it sent %s for a rank that is not its to send for",
			  encd_wire_type_name(type));
		return -EPROTO;
	}
	return 0;
}

/*
 * The messages that came before the table, in the order they came, taken
 * now as if they had come after it: one its link could not have carried
 * then fails the link, and the world, as it would have then.
 */
static void host_take_pre_table(struct encd_host *h)
{
	char why[ENCD_MSG_MAX];
	struct encd_link *l;
	struct encd_msg *m;
	struct encd_rank *r;
	int err;

	while ((m = list_first_entry_or_null(&h->pre_table, struct encd_msg, node))) {
		list_del(&m->node);
		l = m->charged;
		encd_early_uncharge(m);
		why[0] = '\0';
		err = host_route_ok(h, l, m->type, m->src, m->dst, why, sizeof(why));
		r = err ? NULL : xa_load(&h->ranks, m->dst);
		if (r)
			err = encd_engine_deliver(h, r, l, m->type, m->src, m->tag, m->attempt,
						  m->body, m->len, why, sizeof(why));
		if (err) {
			if (!why[0])
				scnprintf(why, sizeof(why), "%s", encd_errno_name(err));
			encd_host_link_down(h, l, err, why);
			/* ... which drops the rest of what it sent. */
			encd_link_close(l);
		}
		memzero_explicit(m->body, sizeof(m->body));
		kfree(m);
	}
}

/**
 * encd_host_drop_pre_table() - a link goes: what it sent before the table too
 * @h: this host; the caller holds its lock
 * @l: the link
 */
void encd_host_drop_pre_table(struct encd_host *h, struct encd_link *l)
{
	struct encd_msg *m, *tmp;

	lockdep_assert_held(&h->lock);
	list_for_each_entry_safe(m, tmp, &h->pre_table, node) {
		if (m->charged != l)
			continue;
		list_del(&m->node);
		encd_early_uncharge(m);
		memzero_explicit(m->body, sizeof(m->body));
		kfree(m);
	}
}

/**
 * encd_host_take_table() - the world's table arrived: the world forms
 * @h: this host; the caller holds its lock
 * @buf: the TABLE payload (the root's own, at the root)
 * @len: its length
 * @from: the link it came on (NULL at the root): the root's control link,
 *	or the data link of this host's parent in the host tree
 * @why: out: what is wrong with it
 * @why_len: size of @why
 *
 * The table goes on to this host's two children in the host tree, then
 * every local rank's world node starts.
 *
 * Return: 0, or a negative errno (a table that does not add up: -EPROTO).
 */
int encd_host_take_table(struct encd_host *h, const void *buf, u32 len, struct encd_link *from,
			 char *why, size_t why_len)
{
	struct encd_rank *r;
	unsigned long id;
	u32 i, c;
	int err;

	lockdep_assert_held(&h->lock);
	if (h->rank_host) {
		scnprintf(why, why_len, "it sent the table twice");
		return -EPROTO;
	}
	err = host_parse_table(h, buf, len, why, why_len);
	if (err)
		return err;
	if (from && from != h->uplink &&
	    (from->link_token != h->token || from->peer != encd_tree_parent(h->index))) {
		scnprintf(why, why_len, "it is not this host's parent in the host tree");
		return -EPROTO;
	}
	if (from && from != h->uplink && h->index == 0) {
		scnprintf(why, why_len, "it sent the table to the root");
		return -EPROTO;
	}
	if (h->state != ENCD_HOST_GATHERING)
		return 0;
	h->state = ENCD_HOST_FORMED;

	/* Down the host tree: the root's children hear it on their control links. */
	for (i = 0; i < 2; i++) {
		c = encd_tree_child(h->index, h->n_hosts, i);
		if (c == h->n_hosts)
			continue;
		if (h->root)
			encd_root_send_table(h, c, buf, len);
		else if (host_out_link(h, c))
			encd_link_send(h->hosts[c].out, ENCD_WIRE_TABLE, buf, len, NULL, 0);
	}
	host_judge_trusted_links(h);
	xa_for_each(&h->ranks, id, r)
		encd_engine_world_start(r);
	host_take_pre_table(h);
	return 0;
}

/* Messages */

/**
 * encd_host_send() - sends a message from a local rank to any rank
 * @h: this host; the caller holds its lock
 * @src: the sender, a local rank
 * @dst: the receiver
 * @type: ENCD_WIRE_SIG, _UID, _RING or _BARRIER
 * @tag: the node's tag
 * @attempt: the node bootstrap's attempt (the barrier's epoch)
 * @body: the message
 * @len: its length
 *
 * To a local rank it is handed over when the host next runs its local
 * queue (encd_host_run()); to another host's rank, it is queued on the data
 * link to that host.
 *
 * Return: 0 or -ENOMEM; a link that cannot take it fails on its own.
 */
int encd_host_send(struct encd_host *h, u32 src, u32 dst, u8 type, u32 tag, u32 attempt,
		   const void *body, u32 len)
{
	struct encd_wire_route route = {
		.src = cpu_to_be32(src),
		.dst = cpu_to_be32(dst),
		.tag = cpu_to_be32(tag),
		.attempt = cpu_to_be32(attempt),
	};
	struct encd_msg *m;
	struct encd_link *l;
	u32 to;

	lockdep_assert_held(&h->lock);
	if (WARN_ON_ONCE(!h->rank_host || dst >= h->wk.world_size || len > sizeof(m->body)))
		return -EINVAL;
	to = h->rank_host[dst];
	if (to != h->index) {
		l = host_out_link(h, to);
		if (!l)
			return -ENOMEM;
		return encd_link_send(l, type, &route, sizeof(route), body, len);
	}
	m = encd_msg_new(type, src, dst, tag, attempt, body, len);
	if (!m)
		return -ENOMEM;
	list_add_tail(&m->node, &h->local_q);
	return 0;
}

/**
 * encd_host_run() - hands over every local message, and what they cause
 * @h: this host; the caller holds its lock
 *
 * Run at the end of every entry into the host that may have sent one.
 */
void encd_host_run(struct encd_host *h)
{
	struct encd_msg *m;
	struct encd_rank *r;

	lockdep_assert_held(&h->lock);
	while ((m = list_first_entry_or_null(&h->local_q, struct encd_msg, node))) {
		list_del(&m->node);
		r = xa_load(&h->ranks, m->dst);
		if (r) {
			char why[ENCD_MSG_MAX];

			encd_engine_deliver(h, r, NULL, m->type, m->src, m->tag, m->attempt,
					    m->body, m->len, why, sizeof(why));
		}
		kfree(m);
	}
}

/* Links */

/**
 * encd_host_accepts() - the frame types a link may carry once it is up
 * @l: the link
 * @type: enum encd_wire_type
 *
 * A control link carries JOIN, REGISTER and DEATH to the root, REJECT,
 * TABLE and DEATH back; a data link carries LINK, then the table (from the
 * parent in the host tree), the rank messages and DEATH, one way only.
 *
 * Return: whether the type is allowed.
 */
bool encd_host_accepts(const struct encd_link *l, u8 type)
{
	if (l->purpose == ENCD_LINK_CONTROL && !l->initiator)
		return type == ENCD_WIRE_JOIN || type == ENCD_WIRE_REGISTER ||
		       type == ENCD_WIRE_DEATH;
	if (l->purpose == ENCD_LINK_CONTROL)
		return type == ENCD_WIRE_REJECT || type == ENCD_WIRE_TABLE ||
		       type == ENCD_WIRE_DEATH;
	if (l->initiator)
		return false;
	return type == ENCD_WIRE_LINK || type == ENCD_WIRE_TABLE || type == ENCD_WIRE_SIG ||
	       type == ENCD_WIRE_UID || type == ENCD_WIRE_RING || type == ENCD_WIRE_BARRIER ||
	       type == ENCD_WIRE_DEATH;
}

/**
 * encd_host_link_up() - a link's handshake finished
 * @h: this host; the caller holds its lock
 * @l: the link
 *
 * An initiator says who it is first: JOIN on the control link (with the
 * address this host listens on, made now where the root can reach it),
 * LINK on a data link. A responder waits for that frame, within the
 * handshake's deadline.
 *
 * Return: 0, or a negative errno that fails the link.
 */
int encd_host_link_up(struct encd_host *h, struct encd_link *l)
{
	struct sockaddr_storage local;
	int err;

	lockdep_assert_held(&h->lock);
	l->up = true;
	if (!l->initiator) {
		l->awaiting_first = true;
		return 0;
	}
	if (l->purpose == ENCD_LINK_DATA) {
		struct encd_wire_link lk = {
			.token = cpu_to_be64(h->token),
			.host = cpu_to_be32(h->index),
		};

		return encd_link_send_first(l, ENCD_WIRE_LINK, &lk, sizeof(lk));
	}
	if (l != h->uplink)
		return -ECONNABORTED;
	if (!h->listener) {
		if (kernel_getsockname(l->sock, (struct sockaddr *)&local) < 0)
			return -ENOTCONN;
		encd_addr_set_port(&local, 0);
		err = encd_listener_start(h, &local);
		if (err) {
			encd_host_fail_world(h, err, ENCD_WIRE_NO_RANK, false,
					     "this host cannot listen on %pISc for its peers (%s)",
					     &local, encd_errno_name(err));
			return err;
		}
	}
	{
		struct encd_wire_join join = {
			.world_size = cpu_to_be32(h->wk.world_size),
		};

		memcpy(join.host_id, h->id, sizeof(join.host_id));
		encd_addr_to_wire(&h->listen_addr, &join.listen);
		err = encd_link_send_first(l, ENCD_WIRE_JOIN, &join, sizeof(join));
	}
	if (err)
		return err;
	h->uplink_up = true;
	host_send_registrations(h);
	return 0;
}

/**
 * encd_host_link_down() - a link failed or its peer closed it
 * @h: this host; the caller holds its lock
 * @l: the link, still on the host's list (the caller closes it next)
 * @err: why, as a negative errno
 * @why: why, in words
 *
 * A stranger's connection going means nothing. A link of the world going
 * means its peer host is gone or misbehaved: the world fails, naming it.
 */
void encd_host_link_down(struct encd_host *h, struct encd_link *l, int err, const char *why)
{
	char who[96];

	lockdep_assert_held(&h->lock);
	if (err > 0 || !err)
		err = -ECONNRESET;
	if (l == h->uplink) {
		h->uplink = NULL;
		h->uplink_up = false;
		/* The root host's ranks all left (it said so on this link first). */
		if (encd_departure_host_left(h, 0))
			return;
		if (err == -EACCES)
			encd_host_fail_world(h, -EACCES, ENCD_WIRE_NO_RANK, false,
					     "the root at %pISpc does not hold the world secret of this rank: every rank of a world needs the same secret (or, on loopback, none)",
					     &h->wk.root);
		else
			encd_host_fail_world(h, err, ENCD_WIRE_NO_RANK, false,
					     "lost the root host at %pISpc: %s", &h->wk.root, why);
		return;
	}
	if (l->purpose == ENCD_LINK_DATA && l->initiator) {
		if (l->peer < h->n_hosts && h->hosts[l->peer].out == l)
			h->hosts[l->peer].out = NULL;
		/*
		 * Closed by its peer with everything sent, in a formed world
		 * (but the news of this host's departures, which its peer may
		 * be too late for): a host whose ranks all left (the news may
		 * still be on its way here), or one that tells the root why.
		 * A message for it later opens a new link, which fails if it
		 * is gone.
		 */
		if (l->up && h->state == ENCD_HOST_FORMED && encd_link_idle(l))
			return;
		encd_host_describe(h, l->peer, l, who, sizeof(who));
		encd_host_fail_world(h, err, ENCD_WIRE_NO_RANK, true, "%s %s: %s", who,
				     l->up ? "went away" : "cannot be reached", why);
		return;
	}
	/* A stranger, or a host that never said who it is, means nothing. */
	if (!l->up || l->awaiting_first)
		return;
	if (l->purpose == ENCD_LINK_CONTROL) {
		if (h->root)
			encd_root_link_down(h, l, err, why);
		return;
	}
	/* Its ranks all left, and said so on this link before it closed. */
	if (encd_departure_host_left(h, l->peer))
		return;
	encd_host_describe(h, l->peer, l, who, sizeof(who));
	encd_host_fail_world(h, err, ENCD_WIRE_NO_RANK, true, "%s went away: %s", who, why);
}

/**
 * encd_host_violation() - a peer broke the protocol, found after the fact
 * @h: this host; the caller holds its lock
 * @l: the link the offending frame came on
 * @why: what it did
 *
 * As when a frame is refused on arrival: the world fails, naming the peer
 * host, and the link goes.
 */
void encd_host_violation(struct encd_host *h, struct encd_link *l, const char *why)
{
	char who[96];

	lockdep_assert_held(&h->lock);
	encd_host_describe(h, l->peer, l, who, sizeof(who));
	encd_host_fail_world(h, -EPROTO, ENCD_WIRE_NO_RANK, true, "%s broke the protocol: %s",
			     who, why);
	encd_link_close(l);
}

/* A data link's opening frame: which host is calling. */
static int host_on_link(struct encd_host *h, struct encd_link *l, const struct encd_wire_link *lk,
			char *why, size_t why_len)
{
	u32 index = be32_to_cpu(lk->host);
	struct encd_link *o;

	if (!l->awaiting_first || index >= h->wk.world_size ||
	    (h->rank_host && (index >= h->n_hosts || index == h->index ||
			      be64_to_cpu(lk->token) != h->token))) {
		scnprintf(why, why_len, "its LINK names no other host of this world");
		return -EPROTO;
	}
	/*
	 * A host sends to this one on one data link: a second would double
	 * what it may make this host hold (its budget of early messages is
	 * its link's). It stays a stranger, and is closed.
	 */
	list_for_each_entry(o, &h->links, node) {
		if (o->purpose == ENCD_LINK_DATA && !o->initiator && !o->awaiting_first &&
		    o->peer == index) {
			scnprintf(why, why_len, "its LINK names a host that has a data link here already");
			return -EPROTO;
		}
	}
	l->awaiting_first = false;
	l->peer = index;
	l->link_token = be64_to_cpu(lk->token);
	return 0;
}

static int host_on_reject(struct encd_host *h, const struct encd_wire_reject *rj, u32 len)
{
	u32 rank = be32_to_cpu(rj->rank), err = be32_to_cpu(rj->err);
	u32 tlen = min_t(u32, be16_to_cpu(rj->text_len), len - sizeof(*rj));
	char text[ENCD_TEXT_MAX + 1];
	struct encd_rank *r;

	sanitize(text, sizeof(text), rj->text, tlen);
	if (err == 0 || err > MAX_ERRNO)
		err = EINVAL;
	if (rank == ENCD_WIRE_NO_RANK) {
		encd_host_fail_world(h, -err, ENCD_WIRE_NO_RANK, false, "the root refused this host: %s",
				     text);
		return 0;
	}
	r = rank < h->wk.world_size ? xa_load(&h->ranks, rank) : NULL;
	if (r)
		encd_rank_fail(r, -err, "rank %u: the root refused it: %s", rank, text);
	return 0;
}

static int host_on_death(struct encd_host *h, struct encd_link *l,
			 const struct encd_wire_death *d, u32 len, char *why, size_t why_len)
{
	u32 tlen = min_t(u32, be16_to_cpu(d->text_len), len - sizeof(*d));
	u32 err = be32_to_cpu(d->err), rank = be32_to_cpu(d->rank);
	u32 barriers = be32_to_cpu(d->barriers);
	char text[ENCD_TEXT_MAX + 1];

	if (barriers == ENCD_WIRE_NO_RANK && len != sizeof(*d) + tlen) {
		scnprintf(why, why_len, "it sent a DEATH with %u bytes after its text",
			  len - (u32)sizeof(*d) - tlen);
		return -EPROTO;
	}

	/*
	 * The root believes a host only about the ranks it registered: one it
	 * refused, or another host's, may come and go without harm; nor does
	 * a host believe a data link about another host's ranks.
	 */
	if (h->root && l->purpose == ENCD_LINK_CONTROL && rank != ENCD_WIRE_NO_RANK &&
	    !encd_root_has(h, l, rank))
		return 0;
	if (l->purpose == ENCD_LINK_DATA && rank != ENCD_WIRE_NO_RANK &&
	    (!h->rank_host || rank >= h->wk.world_size || h->rank_host[rank] != l->peer))
		return 0;
	sanitize(text, sizeof(text), d->text, tlen);
	if (barriers != ENCD_WIRE_NO_RANK)
		return encd_departure_receive(h, l->purpose == ENCD_LINK_DATA ? ENCD_NEWS_DATA :
										ENCD_NEWS_ROOT,
					      d, len, tlen, text, why, why_len);
	if (err == 0 || err > MAX_ERRNO)
		err = ECONNABORTED;
	encd_host_fail_world(h, -(int)err, rank, h->root, "%s", text);
	return 0;
}

/*
 * A message that came before this host's table: a host that has it may
 * send to this one at once, overtaking the table on its way down the host
 * tree. It waits for the table within its link's budget; the table says
 * whether its link and route were right.
 */
static int host_hold_for_table(struct encd_host *h, struct encd_link *l, u8 type, u32 src,
			       u32 dst, const struct encd_wire_route *route, const void *body,
			       u32 len, char *why, size_t why_len)
{
	struct encd_msg *m;
	int err;

	if (h->state != ENCD_HOST_GATHERING)
		return 0;
	m = encd_msg_new(type, src, dst, be32_to_cpu(route->tag), be32_to_cpu(route->attempt),
			 body, len);
	if (!m)
		return -ENOMEM;
	err = encd_early_charge(m, l, why, why_len);
	if (err) {
		kfree(m);
		return err;
	}
	list_add_tail(&m->node, &h->pre_table);
	return 0;
}

/* A message for a rank of this host, from a rank of the link's host. */
static int host_on_message(struct encd_host *h, struct encd_link *l, u8 type, const void *buf,
			   u32 len, char *why, size_t why_len)
{
	const struct encd_wire_route *route = buf;
	u32 src = be32_to_cpu(route->src), dst = be32_to_cpu(route->dst);
	struct encd_rank *r;
	int err;

	if (!h->rank_host)
		return host_hold_for_table(h, l, type, src, dst, route, buf + sizeof(*route),
					   len - sizeof(*route), why, why_len);
	err = host_route_ok(h, l, type, src, dst, why, why_len);
	if (err)
		return err;
	r = xa_load(&h->ranks, dst);
	if (!r)
		return 0;
	return encd_engine_deliver(h, r, l, type, src, be32_to_cpu(route->tag),
				   be32_to_cpu(route->attempt), buf + sizeof(*route),
				   len - sizeof(*route), why, why_len);
}

/**
 * encd_host_frame() - acts on an authenticated frame
 * @h: this host; the caller holds its lock
 * @l: the link it came on
 * @type: its type, one encd_host_accepts() allows on @l
 * @buf: its payload
 * @len: its length, one the type allows
 * @why: out: what the peer did wrong, on error
 * @why_len: size of @why
 *
 * Return: 0, or a negative errno: the peer broke the protocol (@why says
 * how) and the link fails.
 */
int encd_host_frame(struct encd_host *h, struct encd_link *l, u8 type, const void *buf, u32 len,
		    char *why, size_t why_len)
{
	int err = 0;

	lockdep_assert_held(&h->lock);
	if (l->awaiting_first && type != ENCD_WIRE_JOIN && type != ENCD_WIRE_LINK) {
		scnprintf(why, why_len, "it sent %s before saying who it is",
			  encd_wire_type_name(type));
		return -EPROTO;
	}
	switch (type) {
	case ENCD_WIRE_JOIN:
	case ENCD_WIRE_REGISTER:
		if (!h->root) {
			scnprintf(why, why_len, "it took this host for the world's root");
			return -EPROTO;
		}
		err = encd_root_frame(h, l, type, buf, len, why, why_len);
		break;
	case ENCD_WIRE_REJECT:
		err = host_on_reject(h, buf, len);
		break;
	case ENCD_WIRE_TABLE:
		err = encd_host_take_table(h, buf, len, l, why, why_len);
		break;
	case ENCD_WIRE_DEATH:
		err = host_on_death(h, l, buf, len, why, why_len);
		break;
	case ENCD_WIRE_LINK:
		err = host_on_link(h, l, buf, why, why_len);
		break;
	default:
		err = host_on_message(h, l, type, buf, len, why, why_len);
		break;
	}
	encd_host_run(h);
	return err;
}
