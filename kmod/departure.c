// SPDX-License-Identifier: GPL-2.0
/*
 * Departures: ranks that left their formed world, and what they completed.
 *
 * A rank that leaves its formed world departs rather than fails it: what it
 * completed stands (rules.h has the rules, and why). This file is their one
 * owner: it records who departed, which departures are settled here, what
 * each departed rank formed and how many barriers of each comm it completed;
 * it writes and reads the trailer of a departure's DEATH (wire.h); and it
 * answers the one question every waiter asks, through
 * encd_departure_blocks(): does a departure block what I wait for? The
 * waiters ask encd_departure_blocker(): the bootstrap when news comes or a
 * node starts (a comm still forming, a barrier under way), world.c when a
 * barrier is about to start or a local one waits. frames.c hands it the
 * DEATHs that come, host.c the ranks that leave.
 *
 * Locking: everything here is its host's, under the host's lock.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "encd_private.h"
#include "rules.h"

/* What this host knows of one departed rank. */
struct encd_departed {
	int err;
	u32 reason;			/* enum encd_reason */
	u32 seq;			/* in the order the news came */
	bool settled;			/* all it sent here has come */
	u32 barriers;			/* of the world's comm */
	u32 n_comms;
	struct encd_departed_comm {
		u32 tag;
		u32 barriers;
	} comms[];			/* the replica groups' comms it had formed */
};

/**
 * encd_departures_init() - a host's departures, none yet
 * @d: the host's
 */
void encd_departures_init(struct encd_departures *d)
{
	xa_init(&d->ranks);
	d->n = 0;
	d->world_rank = ENCD_WIRE_NO_RANK;
}

/**
 * encd_departures_destroy() - frees a host's departures
 * @d: the host's, which is going
 */
void encd_departures_destroy(struct encd_departures *d)
{
	struct encd_departed *dr;
	unsigned long id;

	xa_for_each(&d->ranks, id, dr)
		kvfree(dr);
	xa_destroy(&d->ranks);
}

/**
 * encd_departure_text() - the sentence of a departure
 * @text: out
 * @size: of @text
 * @rank: the rank that left its formed world
 */
void encd_departure_text(char *text, size_t size, u32 rank)
{
	scnprintf(text, size,
		  "rank %u (global device %u) left the world: its comm was released or its process closed /dev/encd",
		  rank, rank);
}

static struct encd_departed *departed(struct encd_host *h, u32 rank)
{
	return rank < h->wk.world_size ? xa_load(&h->dep.ranks, rank) : NULL;
}

/* What @dr means for @node's comm: rules.h decides with it. */
static void view_of(const struct encd_departed *dr, const struct encd_node *node,
		    struct encd_departed_view *v)
{
	u32 i;

	v->settled = dr->settled;
	/* A departed rank had formed the world: it was in it. */
	v->formed = node->global;
	v->barriers = dr->barriers;
	for (i = 0; !node->global && i < dr->n_comms; i++) {
		if (dr->comms[i].tag == node->tag) {
			v->formed = true;
			v->barriers = dr->comms[i].barriers;
			break;
		}
	}
}

/*
 * The departed rank of @node's comm that blocks @what, or ENCD_WIRE_NO_RANK.
 * The world's barrier asks only the departed rank that completed the fewest
 * (every rank is in the world's comm); a group's asks each of its ranks,
 * and names the one heard of first: the others may have left because of it.
 */
static u32 blocker(struct encd_host *h, struct encd_node *node, enum encd_wait what, u32 barrier)
{
	u32 i, first = ENCD_WIRE_NO_RANK, first_seq = U32_MAX;
	struct encd_departed_view v;
	struct encd_departed *dr;

	if (!h->dep.n)
		return ENCD_WIRE_NO_RANK;
	if (node->global) {
		dr = departed(h, h->dep.world_rank);
		if (!dr)
			return ENCD_WIRE_NO_RANK;
		view_of(dr, node, &v);
		return encd_departure_blocks(&v, what, barrier) ? h->dep.world_rank :
								  ENCD_WIRE_NO_RANK;
	}
	for (i = 0; i < node->rank_n; i++) {
		dr = departed(h, encd_node_member(node, i));
		if (!dr || dr->seq >= first_seq)
			continue;
		view_of(dr, node, &v);
		if (encd_departure_blocks(&v, what, barrier)) {
			first = encd_node_member(node, i);
			first_seq = dr->seq;
		}
	}
	return first;
}

/**
 * encd_departure_blocker() - whether a departure blocks what a node waits for
 * @h: the node's host; the caller holds its lock
 * @node: the node
 * @what: its comm forming, or one of its barriers
 * @barrier: that barrier's number, counted from 1 (ENCD_WAIT_BARRIER)
 * @why: out, when blocked: the failure, naming the rank
 *
 * A local barrier (ENCD_WAIT_LOCAL_BARRIER) is blocked when one of its ranks
 * left this host (barrier.c marks it broken): it is gone for every round
 * to come.
 *
 * Return: true when blocked: what it waits for never comes.
 */
bool encd_departure_blocker(struct encd_host *h, struct encd_node *node, enum encd_wait what,
			    u32 barrier, struct encd_why *why)
{
	struct encd_departed *dr;
	u32 rank;

	lockdep_assert_held(&h->lock);
	if (what == ENCD_WAIT_LOCAL_BARRIER) {
		if (!encd_lbarrier_broken(node))
			return false;
		dr = departed(h, h->dep.first_rank);
		why->err = dr ? dr->err : -ECONNABORTED;
		why->reason = dr ? dr->reason : ENCD_REASON_DEPARTED;
		if (dr)
			encd_departure_text(why->msg, sizeof(why->msg), h->dep.first_rank);
		else
			scnprintf(why->msg, sizeof(why->msg),
				  "a rank of this local barrier left its comm");
		return true;
	}
	rank = blocker(h, node, what, barrier);
	if (rank == ENCD_WIRE_NO_RANK)
		return false;
	dr = departed(h, rank);
	why->err = dr->err;
	why->reason = dr->reason;
	encd_departure_text(why->msg, sizeof(why->msg), rank);
	return true;
}

/**
 * encd_departure_host_left() - whether every rank of a host left the formed world
 * @h: this host; the caller holds its lock
 * @index: a host index of the table
 *
 * Such a host closing its links is no failure: it had nothing more to say.
 *
 * Return: true when it did.
 */
bool encd_departure_host_left(struct encd_host *h, u32 index)
{
	lockdep_assert_held(&h->lock);
	return h->dep.n && h->state == ENCD_HOST_FORMED && index < h->n_hosts &&
	       !h->hosts[index].staying;
}

/*
 * Records a departure (the first news of it) or settles it (later news
 * that settles), then lets every local rank's waiters ask again. Return:
 * whether this was its first news, or a negative errno.
 */
static int note(struct encd_host *h, u32 rank, u32 barriers, const struct encd_wire_departed_comm *comms,
		u32 n_comms, int err, u32 reason, bool settles)
{
	struct encd_departed *dr = departed(h, rank), *world;
	struct encd_rank *r;
	unsigned long id;
	bool first = !dr;
	u32 i;

	if (first) {
		dr = kvmalloc(struct_size(dr, comms, n_comms), GFP_KERNEL_ACCOUNT);
		if (!dr)
			return -ENOMEM;
		dr->err = err;
		dr->reason = reason;
		dr->seq = h->dep.n;
		dr->settled = false;
		dr->barriers = barriers;
		dr->n_comms = n_comms;
		for (i = 0; i < n_comms; i++) {
			dr->comms[i].tag = be32_to_cpu(comms[i].tag);
			dr->comms[i].barriers = be32_to_cpu(comms[i].barriers);
		}
		if (xa_err(xa_store(&h->dep.ranks, rank, dr, GFP_KERNEL_ACCOUNT))) {
			kvfree(dr);
			return -ENOMEM;
		}
		if (!h->dep.n++)
			h->dep.first_rank = rank;
		h->hosts[h->rank_host[rank]].staying--;
		world = departed(h, h->dep.world_rank);
		if (!world || barriers < world->barriers)
			h->dep.world_rank = rank;
		pr_debug("world of %u ranks: rank %u departed (%u barriers, %u comms)\n",
			 h->wk.world_size, rank, barriers, n_comms);
	}
	if (!first && (dr->settled || !settles))
		return 0;
	dr->settled |= settles;
	xa_for_each(&h->ranks, id, r)
		encd_engine_departure(r);
	return first;
}

/*
 * A departure's DEATH: the head, the text, then the trailer (wire.h).
 * Sent to the root (which passes it on to every host) and, behind what the
 * rank sent there, on every data link this host sends on: the hosts the
 * trailer names.
 */
static void tell(struct encd_host *h, u32 rank, u32 barriers,
		 const struct encd_wire_departed_comm *comms, u32 n_comms, const char *text)
{
	struct encd_wire_death d = {
		.err = cpu_to_be32(ECONNABORTED),
		.reason = cpu_to_be32(ENCD_REASON_DEPARTED),
		.rank = cpu_to_be32(rank),
		.host = cpu_to_be32(h->index),
		.barriers = cpu_to_be32(barriers),
	};
	u32 tlen = min_t(size_t, strlen(text), ENCD_TEXT_MAX), n_news = 0, i, len;
	struct encd_wire_departure *dep;
	__be32 *news;
	u8 *b;

	for (i = 0; i < h->n_hosts; i++)
		n_news += !!h->hosts[i].out;
	if (n_news > ENCD_DEPARTURE_NEWS_MAX)
		n_news = ENCD_DEPARTURE_NEWS_EVERY;
	len = tlen + encd_wire_departure_len(n_comms, n_news);
	b = kvmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!b) {
		encd_host_fail_world(h, -ENOMEM, ENCD_REASON_NO_MEMORY, rank, true, "%s", text);
		return;
	}
	d.text_len = cpu_to_be16(tlen);
	memcpy(b, text, tlen);
	dep = (struct encd_wire_departure *)(b + tlen);
	dep->n_comms = cpu_to_be32(n_comms);
	dep->n_news = cpu_to_be32(n_news);
	memcpy(dep->comms, comms, n_comms * sizeof(*comms));
	news = (__be32 *)&dep->comms[n_comms];
	for (i = 0; n_news != ENCD_DEPARTURE_NEWS_EVERY && i < h->n_hosts; i++)
		if (h->hosts[i].out)
			*news++ = cpu_to_be32(i);

	encd_host_tell_death(h, &d, b, len);
	for (i = 0; i < h->n_hosts; i++)
		if (h->hosts[i].out)
			encd_link_send_news(h->hosts[i].out, &d, sizeof(d), b, len);
	kvfree(b);
}

static int count_formed(struct encd_node *node, void *arg)
{
	u32 *n = arg, barriers;

	*n += !node->global && encd_node_completed(node, &barriers);
	return 0;
}

static int list_formed(struct encd_node *node, void *arg)
{
	struct encd_departure_list *l = arg;
	u32 barriers;

	if (node->global || !encd_node_completed(node, &barriers))
		return 0;
	if (l->n == l->size)
		return 1;
	l->comms[l->n].tag = cpu_to_be32(node->tag);
	l->comms[l->n].barriers = cpu_to_be32(barriers);
	l->n++;
	return 0;
}

/**
 * encd_departure_collect() - what a leaving rank completed, before its nodes go
 * @r: the rank, still on its host; the caller holds the host's lock
 * @l: out: the replica groups' comms it formed, and their barriers it
 *	completed; free with encd_departure_list_free()
 *
 * Return: the barriers of the world's comm it completed.
 */
u32 encd_departure_collect(struct encd_rank *r, struct encd_departure_list *l)
{
	u32 barriers = 0, n = 0;

	lockdep_assert_held(&r->host->lock);
	memset(l, 0, sizeof(*l));
	encd_pool_for_each(r, count_formed, &n);
	/*
	 * A rank that formed more comms than a DEATH lists, program after
	 * program, lists some: a comm left out fails elsewhere as one it had
	 * not formed would.
	 */
	l->size = min_t(u32, n, ENCD_DEPARTURE_COMMS_MAX);
	if (l->size) {
		l->comms = kvmalloc_array(l->size, sizeof(*l->comms), GFP_KERNEL_ACCOUNT);
		if (l->comms)
			encd_pool_for_each(r, list_formed, l);
		else
			l->err = -ENOMEM;
	}
	if (r->global_node)
		encd_node_completed(r->global_node, &barriers);
	return barriers;
}

/**
 * encd_departure_list_free() - frees what encd_departure_collect() made
 * @l: the list
 */
void encd_departure_list_free(struct encd_departure_list *l)
{
	kvfree(l->comms);
}

/**
 * encd_departure_local() - a rank of this host left its formed world
 * @h: this host, formed; the caller holds its lock
 * @rank: the rank, gone from the host
 * @barriers: the world barriers it completed
 * @l: the comms it had formed (encd_departure_collect())
 *
 * Local messages are handed over at once: the departure is settled here.
 * The world hears of it (tell()).
 */
void encd_departure_local(struct encd_host *h, u32 rank, u32 barriers,
			  const struct encd_departure_list *l)
{
	char text[ENCD_MSG_MAX];
	int ret;

	lockdep_assert_held(&h->lock);
	encd_departure_text(text, sizeof(text), rank);
	ret = l->err ?: note(h, rank, barriers, l->comms, l->n, -ECONNABORTED,
			     ENCD_REASON_DEPARTED, encd_news_settles(ENCD_NEWS_LOCAL, false));
	if (ret < 0)
		encd_host_fail_world(h, -ECONNABORTED, ENCD_REASON_DEPARTED, rank, true, "%s",
				     text);
	else if (ret)
		tell(h, rank, barriers, l->comms, l->n, text);
}

/**
 * encd_departure_receive() - a departure's DEATH came from another host
 * @h: this host, formed; the caller holds its lock
 * @via: ENCD_NEWS_DATA (on the data link from the rank's host) or
 *	ENCD_NEWS_ROOT (from the root, or at the root from the rank's host)
 * @d: the DEATH, whose sender may speak of its rank (frames.c checked)
 * @err: its errno, negative, made one (frames.c)
 * @reason: its reason (encd_reason_from_wire())
 * @len: its length
 * @tlen: its text's length, within @len
 * @text: its text, made printable
 * @why: out: what the sender did wrong
 * @why_len: size of @why
 *
 * At the root, the news goes on to every host, as it came. A departure
 * from a world not formed here, or of a rank not in it, fails the world.
 *
 * Return: 0, or -EPROTO for a trailer that is not one.
 */
int encd_departure_receive(struct encd_host *h, enum encd_news_via via,
			   const struct encd_wire_death *d, int err, u32 reason, u32 len, u32 tlen,
			   const char *text, char *why, size_t why_len)
{
	const struct encd_wire_departure *dep = (const void *)(d->text + tlen);
	u32 rest = len - sizeof(*d) - tlen, n_comms, n_news, i, rank = be32_to_cpu(d->rank);
	bool news_here = false;
	const __be32 *news;
	int ret;

	lockdep_assert_held(&h->lock);
	n_comms = rest >= sizeof(*dep) ? be32_to_cpu(dep->n_comms) : 0;
	n_news = rest >= sizeof(*dep) ? be32_to_cpu(dep->n_news) : 0;
	if (rest < sizeof(*dep) || n_comms > ENCD_DEPARTURE_COMMS_MAX ||
	    (n_news > ENCD_DEPARTURE_NEWS_MAX && n_news != ENCD_DEPARTURE_NEWS_EVERY) ||
	    rest != encd_wire_departure_len(n_comms, n_news)) {
		scnprintf(why, why_len, "it sent a DEATH with %u bytes after its text", rest);
		return -EPROTO;
	}
	news = (const __be32 *)&dep->comms[n_comms];
	news_here = n_news == ENCD_DEPARTURE_NEWS_EVERY;
	for (i = 0; !news_here && i < n_news; i++)
		news_here |= be32_to_cpu(news[i]) == h->index;
	if (h->state != ENCD_HOST_FORMED || rank >= h->wk.world_size) {
		encd_host_fail_world(h, err, reason, rank, !!h->root, "%s", text);
		return 0;
	}
	ret = note(h, rank, be32_to_cpu(d->barriers), dep->comms, n_comms, err, reason,
		   encd_news_settles(via, news_here));
	if (ret < 0)
		encd_host_fail_world(h, ret, encd_reason_of(ret), rank, !!h->root, "%s", text);
	else if (ret && h->root)
		encd_root_broadcast(h, ENCD_WIRE_DEATH, d, len, NULL, 0);
	return 0;
}
