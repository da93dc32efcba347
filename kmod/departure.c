// SPDX-License-Identifier: GPL-2.0
/*
 * Departures: ranks that left their formed world, and what they completed.
 *
 * A rank that leaves its formed world departs rather than fails it: what it
 * completed stands (rules.h has the rules, and why). This file is their one
 * owner: it records who departed (in runs of consecutive ranks, as the news
 * names them), which departures are settled here, what each departed rank
 * formed and how many barriers of each comm it completed;
 * it counts the ranks still staying on each host and in this host's
 * subtree of the host tree; and it answers the one question every waiter
 * asks, through encd_departure_blocks(): does a departure block what I wait
 * for? The waiters ask encd_departure_blocker(): the bootstrap when news
 * comes or a node starts (a comm still forming, a barrier under way),
 * world.c when a barrier is about to start or a local one waits. news.c
 * hands it the departures other hosts tell of, host.c the ranks that leave.
 *
 * Locking: everything here is its host's, under the host's lock.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "encd_private.h"
#include "rules.h"
#include "schedule.h"

/*
 * What this host knows of a run of departed ranks: consecutive ranks that
 * one piece of news named together, having completed the same. At a job's
 * end that is a run or a few a host, not a record a rank. Runs never
 * overlap; the xarray has each under its last rank.
 */
struct encd_departed {
	u32 first, count;		/* its ranks */
	u32 seq;			/* in the order the news came */
	bool settled;			/* all they sent here has come */
	u8 heard;			/* BIT(enum encd_news_via): the ways it came by */
	u32 told_by;			/* the member that passed the news on, or none */
	u32 barriers;			/* of the world's comm */
	u32 n_comms;
	struct encd_departed_comm {
		u32 tag;
		u32 barriers;
	} comms[];			/* the replica groups' comms they had formed */
};

static u32 last_of(const struct encd_departed *dr)
{
	return dr->first + dr->count - 1;
}

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
 * @told_by: the host that passed the news on down the host tree, or
 *	ENCD_WIRE_NO_RANK (the rank's own host, or the root, said so): a
 *	member could pass on news that is not true, so it is named
 */
void encd_departure_text(char *text, size_t size, u32 rank, u32 told_by)
{
	int n;

	n = scnprintf(text, size,
		      "rank %u (global device %u) left the world: its comm was released or its process closed /dev/encd",
		      rank, rank);
	if (told_by != ENCD_WIRE_NO_RANK)
		scnprintf(text + n, size - n, " (news passed on by host %u)", told_by);
}

/* The run at or after @rank, within the world, or NULL. */
static struct encd_departed *run_from(struct encd_host *h, u32 rank)
{
	unsigned long i = rank;

	if (rank >= h->wk.world_size)
		return NULL;
	return xa_find(&h->dep.ranks, &i, h->wk.world_size - 1, XA_PRESENT);
}

/* The run @rank departed in, or NULL. */
static struct encd_departed *departed(struct encd_host *h, u32 rank)
{
	struct encd_departed *dr = run_from(h, rank);

	return dr && dr->first <= rank ? dr : NULL;
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
		why->err = -ECONNABORTED;
		why->reason = ENCD_REASON_DEPARTED;
		if (dr)
			encd_departure_text(why->msg, sizeof(why->msg), h->dep.first_rank,
					    dr->told_by);
		else
			scnprintf(why->msg, sizeof(why->msg),
				  "a rank of this local barrier left its comm");
		return true;
	}
	rank = blocker(h, node, what, barrier);
	if (rank == ENCD_WIRE_NO_RANK)
		return false;
	dr = departed(h, rank);
	why->err = -ECONNABORTED;
	why->reason = ENCD_REASON_DEPARTED;
	encd_departure_text(why->msg, sizeof(why->msg), rank, dr->told_by);
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
 * Cuts @dr before @at, one of its ranks but the first: the ranks from @at
 * on get a record of their own, a copy of @dr's but for its ranks.
 * Return: that record, or ERR_PTR(-ENOMEM) with @dr as it was.
 */
static struct encd_departed *run_split(struct encd_host *h, struct encd_departed *dr, u32 at)
{
	size_t size = struct_size(dr, comms, dr->n_comms);
	struct encd_departed *tail = kvmalloc(size, GFP_KERNEL_ACCOUNT);

	if (!tail)
		return ERR_PTR(-ENOMEM);
	memcpy(tail, dr, size);
	tail->first = at;
	tail->count = last_of(dr) - at + 1;
	/* The head's new slot first: only a new slot needs memory. */
	if (xa_err(xa_store(&h->dep.ranks, at - 1, dr, GFP_KERNEL_ACCOUNT))) {
		kvfree(tail);
		return ERR_PTR(-ENOMEM);
	}
	xa_store(&h->dep.ranks, last_of(dr), tail, GFP_KERNEL_ACCOUNT);
	dr->count = at - dr->first;
	return tail;
}

/**
 * encd_departure_heard() - whether news repeats what came the same way before
 * @h: this host; the caller holds its lock
 * @first: the first rank the news names, of the world
 * @count: how many, within the world
 * @via: the way it came (rules.h)
 *
 * Each way tells a host of a rank once: its host's word on its data link,
 * and the root's or the parent's (news.c). A copy is a member's doing, and
 * costs: refused before any pass over its ranks, it cannot make a host
 * work a pass over the world a copy, nor make it pass on more than the
 * world has. Each record is passed over here at most once a way before
 * that way's news of it is refused, as encd_departure_note() marks it.
 *
 * Return: the first rank named that came this way before, or
 * ENCD_WIRE_NO_RANK.
 */
u32 encd_departure_heard(struct encd_host *h, u32 first, u32 count, enum encd_news_via via)
{
	u32 end = first + count;
	struct encd_departed *dr;

	lockdep_assert_held(&h->lock);
	if (!h->dep.n)
		return ENCD_WIRE_NO_RANK;
	for (dr = run_from(h, first); dr && dr->first < end; dr = run_from(h, last_of(dr) + 1))
		if (dr->heard & BIT(via))
			return max(dr->first, first);
	return ENCD_WIRE_NO_RANK;
}

/* The first news of ranks @first .. @first + @count - 1, all one host's. */
static int run_record(struct encd_host *h, u32 first, u32 count, u32 barriers,
		      const struct encd_wire_departed_comm *comms, u32 n_comms, bool settles,
		      u32 told_by, enum encd_news_via via)
{
	struct encd_departed *dr = kvmalloc(struct_size(dr, comms, n_comms), GFP_KERNEL_ACCOUNT);
	u32 i, host = h->rank_host[first];
	struct encd_departed *world;

	if (!dr)
		return -ENOMEM;
	dr->first = first;
	dr->count = count;
	dr->n_comms = n_comms;
	dr->seq = h->dep.n;
	dr->settled = settles;
	dr->heard = BIT(via);
	dr->told_by = told_by;
	dr->barriers = barriers;
	for (i = 0; i < n_comms; i++) {
		dr->comms[i].tag = be32_to_cpu(comms[i].tag);
		dr->comms[i].barriers = be32_to_cpu(comms[i].barriers);
	}
	if (xa_err(xa_store(&h->dep.ranks, last_of(dr), dr, GFP_KERNEL_ACCOUNT))) {
		kvfree(dr);
		return -ENOMEM;
	}
	if (!h->dep.n)
		h->dep.first_rank = first;
	h->dep.n += count;
	h->hosts[host].staying -= count;
	if (encd_tree_within(h->index, host))
		h->subtree_staying -= count;
	world = departed(h, h->dep.world_rank);
	if (!world || barriers < world->barriers)
		h->dep.world_rank = first;
	pr_debug("host %u of a world of %u ranks: ranks %u+%u departed (%u barriers, %u comms; %u left in its subtree)\n",
		 h->index, h->wk.world_size, first, count, barriers, n_comms, h->subtree_staying);
	return 0;
}

/**
 * encd_departure_note() - news of departures: records them, or settles them
 * @h: this host, formed; the caller holds its lock
 * @first: the first rank, of the world
 * @count: how many consecutive ranks, all of one host (news.c checks)
 * @barriers: the world barriers each completed
 * @comms: the replica groups' comms each formed, as the wire has them
 * @n_comms: how many
 * @settles: whether this news settles them (rules.h)
 * @told_by: who passed the news on (encd_departure_text())
 * @via: the way it came (rules.h), which encd_departure_heard() asked of
 *	news from a peer first
 *
 * The first news of a rank records it; later news may only settle it, and
 * marks the way it came. Every local rank's waiters then ask again.
 *
 * Return: how many of the ranks were not heard of before, or -ENOMEM.
 */
int encd_departure_note(struct encd_host *h, u32 first, u32 count, u32 barriers,
			const struct encd_wire_departed_comm *comms, u32 n_comms, bool settles,
			u32 told_by, enum encd_news_via via)
{
	u32 end = first + count, r = first, upto, fresh = 0;
	struct encd_departed *dr, *tail;
	bool settled = false, settle;
	struct encd_rank *rk;
	unsigned long id;
	int err;

	lockdep_assert_held(&h->lock);
	for (; r < end; r = upto) {
		dr = run_from(h, r);
		if (!dr || dr->first > r) {
			upto = dr ? min(end, dr->first) : end;
			err = run_record(h, r, upto - r, barriers, comms, n_comms, settles, told_by,
					 via);
			if (err)
				return err;
			fresh += upto - r;
			continue;
		}
		upto = min(end, last_of(dr) + 1);
		settle = settles && !dr->settled;
		if (!settle && (dr->heard & BIT(via)))
			continue;
		/* Settles, or marks, only the ranks it names: a run may part. */
		if (r > dr->first) {
			dr = run_split(h, dr, r);
			if (IS_ERR(dr))
				return PTR_ERR(dr);
		}
		if (upto <= last_of(dr)) {
			tail = run_split(h, dr, upto);
			if (IS_ERR(tail))
				return PTR_ERR(tail);
		}
		dr->heard |= BIT(via);
		if (settle) {
			dr->settled = true;
			settled = true;
		}
	}
	if (!fresh && !settled)
		return 0;
	xa_for_each(&h->ranks, id, rk)
		encd_engine_departure(rk);
	if (fresh)
		encd_host_forwarded(h);
	return fresh;
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
	 * A rank that formed more comms than a DEPART run lists, program after
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
 * The world hears of it in this host's next batch (news.c).
 */
void encd_departure_local(struct encd_host *h, u32 rank, u32 barriers,
			  const struct encd_departure_list *l)
{
	char text[ENCD_MSG_MAX];
	int ret;

	lockdep_assert_held(&h->lock);
	ret = l->err ?: encd_departure_note(h, rank, 1, barriers, l->comms, l->n,
					    encd_news_settles(ENCD_NEWS_LOCAL, false),
					    ENCD_WIRE_NO_RANK, ENCD_NEWS_LOCAL);
	if (ret > 0)
		ret = encd_news_local(h, rank, barriers, l);
	if (ret < 0) {
		encd_departure_text(text, sizeof(text), rank, ENCD_WIRE_NO_RANK);
		encd_host_fail_world(h, -ECONNABORTED, ENCD_REASON_DEPARTED, rank, true, "%s",
				     text);
	}
}
