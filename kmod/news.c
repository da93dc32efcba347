// SPDX-License-Identifier: GPL-2.0
/*
 * The news of departures: how the word that ranks left their formed world
 * travels (departure.c keeps what it means, rules.h what it settles).
 *
 * A host gathers the ranks that leave it for ENCD_NEWS_BATCH_MS into one
 * block (consecutive ranks that completed the same go as one run) and sends
 * it in a DEPART up to the root, and on every data link it sends on,
 * behind its ranks' last messages there. Every other host hears it down the
 * host tree, as it hears the table: the root passes every block it takes
 * to its children, and each host passes what its parent sends it to its
 * own children, but not to the host the block is about (its children heard
 * it on their parent's data link). Blocks that meet on a host within one
 * batch go down together, in as few frames as they fit. So each block
 * crosses each edge of the tree once, and the root sends a frame or two a
 * batch to each child, not one a rank to every host.
 *
 * Who is believed about what: the root believes a host about its own ranks
 * only, and so does a host a data link; a block about another host comes
 * from the root or from this host's parent in the host tree, and nobody
 * else. A parent is only a member, so the sentences of what such news
 * fails name it (departure.c). Each way tells a host of a rank once: a
 * copy is refused before any pass over its ranks, naming the sender
 * (encd_departure_heard()), and never passed on.
 *
 * A host whose ranks all left stays up while ranks of its subtree are left,
 * to pass their news on (host.c); the root's subtree is the world.
 *
 * Locking: everything here is its host's, under the host's lock.
 */
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "encd_private.h"
#include "rules.h"
#include "schedule.h"

static int buf_reserve(struct encd_news_buf *b, size_t more)
{
	size_t cap;
	u8 *bigger;

	if (b->len + more <= b->cap)
		return 0;
	cap = max3(2 * b->cap, b->len + more, (size_t)256);
	bigger = kvmalloc(cap, GFP_KERNEL_ACCOUNT);
	if (!bigger)
		return -ENOMEM;
	if (b->len)
		memcpy(bigger, b->data, b->len);
	kvfree(b->data);
	b->data = bigger;
	b->cap = cap;
	return 0;
}

static void buf_reset(struct encd_news_buf *b)
{
	kvfree(b->data);
	memset(b, 0, sizeof(*b));
}

/**
 * encd_news_init() - a host's news, none pending
 * @h: the host, being made
 */
void encd_news_init(struct encd_host *h)
{
	memset(&h->news, 0, sizeof(h->news));
	INIT_DELAYED_WORK(&h->news.work, encd_news_work);
}

/**
 * encd_news_destroy() - frees what is pending
 * @h: the host, going; its news work is done
 */
void encd_news_destroy(struct encd_host *h)
{
	buf_reset(&h->news.own);
	buf_reset(&h->news.down);
}

static u32 run_len(const struct encd_wire_depart_run *run)
{
	return sizeof(*run) + be32_to_cpu(run->n_comms) * sizeof(run->comms[0]);
}

static u32 news_len(u32 n_news)
{
	return n_news == ENCD_DEPARTURE_NEWS_EVERY ? 0 : n_news * sizeof(__be32);
}

/* The length of a block already checked (block_check()). */
static u32 block_len(const struct encd_wire_depart_block *b)
{
	const u8 *p = (const u8 *)b->news + news_len(be32_to_cpu(b->n_news));
	u32 i, n = be32_to_cpu(b->n_runs);

	for (i = 0; i < n; i++)
		p += run_len((const void *)p);
	return p - (const u8 *)b;
}

/**
 * encd_news_local() - a rank of this host left: its news waits for the batch
 * @h: this host, formed; the caller holds its lock
 * @rank: the rank
 * @barriers: the world barriers it completed
 * @l: the replica groups' comms it formed (encd_departure_collect())
 *
 * Return: 0 or -ENOMEM.
 */
int encd_news_local(struct encd_host *h, u32 rank, u32 barriers,
		    const struct encd_departure_list *l)
{
	struct encd_news_buf *own = &h->news.own;
	struct encd_wire_depart_run *last = NULL;
	size_t clen = l->n * sizeof(l->comms[0]);

	lockdep_assert_held(&h->lock);
	if (own->len)
		last = (void *)(own->data + h->news.own_last);
	/* The next rank, which completed the same, joins the run before it. */
	if (last && be32_to_cpu(last->first) + be32_to_cpu(last->count) == rank &&
	    be32_to_cpu(last->barriers) == barriers && be32_to_cpu(last->n_comms) == l->n &&
	    !memcmp(last->comms, l->comms, clen)) {
		be32_add_cpu(&last->count, 1);
	} else {
		if (buf_reserve(own, sizeof(*last) + clen))
			return -ENOMEM;
		h->news.own_last = own->len;
		last = (void *)(own->data + own->len);
		last->first = cpu_to_be32(rank);
		last->count = cpu_to_be32(1);
		last->barriers = cpu_to_be32(barriers);
		last->n_comms = cpu_to_be32(l->n);
		memcpy(last->comms, l->comms, clen);
		own->len += sizeof(*last) + clen;
	}
	encd_link_queue_delayed(&h->news.work, msecs_to_jiffies(ENCD_NEWS_BATCH_MS));
	return 0;
}

/* The hosts this host sends on a data link to, in @news if not NULL. */
static u32 news_list(struct encd_host *h, __be32 *news)
{
	struct encd_link *out;
	unsigned long i;
	u32 n = 0;

	xa_for_each(&h->outs, i, out) {
		if (news && n < ENCD_DEPARTURE_NEWS_MAX)
			news[n] = cpu_to_be32(i);
		n++;
	}
	return n > ENCD_DEPARTURE_NEWS_MAX ? ENCD_DEPARTURE_NEWS_EVERY : n;
}

/*
 * This host's own runs as blocks of at most ENCD_WIRE_DEPART_MAX bytes
 * each, in @out. Return: 0 or -ENOMEM.
 */
static int own_blocks(struct encd_host *h, struct encd_news_buf *out)
{
	struct encd_news_buf *own = &h->news.own;
	u32 n_news = news_list(h, NULL), head, off, rlen;
	struct encd_wire_depart_block *b = NULL;
	size_t at = 0;

	head = sizeof(*b) + news_len(n_news);
	for (off = 0; off < own->len; off += rlen) {
		rlen = run_len((const void *)(own->data + off));
		if (!b || out->len - at + rlen > ENCD_WIRE_DEPART_MAX) {
			if (buf_reserve(out, head + rlen))
				return -ENOMEM;
			at = out->len;
			b = (void *)(out->data + at);
			b->host = cpu_to_be32(h->index);
			b->n_news = cpu_to_be32(n_news);
			b->n_runs = 0;
			if (n_news != ENCD_DEPARTURE_NEWS_EVERY)
				news_list(h, b->news);
			out->len += head;
		} else if (buf_reserve(out, rlen)) {
			return -ENOMEM;
		}
		b = (void *)(out->data + at);	/* the buffer may have moved */
		memcpy(out->data + out->len, own->data + off, rlen);
		out->len += rlen;
		be32_add_cpu(&b->n_runs, 1);
	}
	return 0;
}

/* Appends the blocks of @blocks but those about host @skip to @l's DEPARTs. */
static void pack_blocks(struct encd_link *l, const struct encd_news_buf *blocks, u32 skip,
			bool news, u8 *frame, u32 *flen)
{
	const struct encd_wire_depart_block *b;
	size_t off;
	u32 blen;

	for (off = 0; off < blocks->len; off += blen) {
		b = (const void *)(blocks->data + off);
		blen = block_len(b);
		if (be32_to_cpu(b->host) == skip)
			continue;
		if (*flen + blen > ENCD_WIRE_DEPART_MAX) {
			encd_link_send_depart(l, frame, *flen, news);
			*flen = 0;
		}
		memcpy(frame + *flen, b, blen);
		*flen += blen;
	}
}

/*
 * Sends @own (or NULL) and the blocks of @down (or NULL) but those about
 * host @skip on @l, in as few DEPARTs as they fit, made in @frame
 * (ENCD_WIRE_DEPART_MAX bytes).
 */
static void send_blocks(struct encd_link *l, const struct encd_news_buf *own,
			const struct encd_news_buf *down, u32 skip, bool news, u8 *frame)
{
	u32 flen = 0;

	if (own)
		pack_blocks(l, own, ENCD_WIRE_NO_RANK, news, frame, &flen);
	if (down)
		pack_blocks(l, down, skip, news, frame, &flen);
	if (flen)
		encd_link_send_depart(l, frame, flen, news);
}

/* This host's children's links in the host tree that are up, and their indices. */
static u32 child_links(struct encd_host *h, struct encd_link **links, u32 *index)
{
	u32 i, c, n = 0;

	for (i = 0; i < 2; i++) {
		c = encd_tree_child(h->index, h->n_hosts, i);
		if (c == h->n_hosts)
			continue;
		links[n] = h->root ? encd_root_link_of(h, c) : encd_host_out(h, c);
		index[n] = c;
		if (links[n])
			n++;
	}
	return n;
}

static bool is_kid(struct encd_link **kids, u32 n_kids, struct encd_link *l)
{
	u32 i;

	for (i = 0; i < n_kids; i++)
		if (kids[i] == l)
			return true;
	return false;
}

/* News that could not be kept or sent: the world fails, as it would without it. */
static void news_no_memory(struct encd_host *h)
{
	encd_host_fail_world(h, -ENOMEM, ENCD_REASON_NO_MEMORY, ENCD_WIRE_NO_RANK, true,
			     "out of memory for the news of departures");
}

/**
 * encd_news_flush() - sends the news that waits: this host's own, and what
 *	goes down the tree
 * @h: this host; the caller holds its lock
 *
 * Its own go to the root and on every data link it sends on (a root's, to
 * its children too); the rest to its children in the host tree.
 */
void encd_news_flush(struct encd_host *h)
{
	struct encd_news_buf mine = {};
	struct encd_link *kids[2], *out;
	u32 n_kids, kid[2], i;
	unsigned long j;
	u8 *frame;

	lockdep_assert_held(&h->lock);
	if (!h->news.own.len && !h->news.down.len)
		return;
	if (h->state != ENCD_HOST_FORMED)
		goto out;
	frame = kvmalloc(ENCD_WIRE_DEPART_MAX, GFP_KERNEL_ACCOUNT);
	if (!frame || own_blocks(h, &mine)) {
		kvfree(frame);
		buf_reset(&mine);
		news_no_memory(h);
		goto out;
	}
	/* A child hears this host's own news and what goes down in the same frames. */
	n_kids = child_links(h, kids, kid);
	for (i = 0; i < n_kids; i++)
		send_blocks(kids[i], &mine, &h->news.down, kid[i], !h->root, frame);
	if (mine.len && h->uplink)
		send_blocks(h->uplink, &mine, NULL, ENCD_WIRE_NO_RANK, false, frame);
	xa_for_each(&h->outs, j, out)
		if (mine.len && !is_kid(kids, n_kids, out))
			send_blocks(out, &mine, NULL, ENCD_WIRE_NO_RANK, true, frame);
	kvfree(frame);
	buf_reset(&mine);
out:
	buf_reset(&h->news.own);
	buf_reset(&h->news.down);
}

/**
 * encd_news_work() - the batch is over: its news goes
 * @w: a host's news work
 */
void encd_news_work(struct work_struct *w)
{
	struct encd_host *h = container_of(to_delayed_work(w), struct encd_host, news.work);
	/* What it allocates is the host's, charged as the rest (link.c). */
	struct mem_cgroup *old = set_active_memcg(h->memcg);

	mutex_lock(&h->lock);
	encd_news_flush(h);
	mutex_unlock(&h->lock);
	set_active_memcg(old);
}

/* The way news about host @host that came on @l came (rules.h). */
static enum encd_news_via via_of(struct encd_link *l, u32 host)
{
	return encd_link_is_data(l) && encd_link_peer(l) == host ? ENCD_NEWS_DATA :
								   ENCD_NEWS_ROOT;
}

/* A run of news about another host that came its way before: refused, naming the sender. */
static bool run_again(struct encd_host *h, struct encd_link *l, u32 host, u32 first, u32 count,
		      char *why, size_t why_len)
{
	u32 r;

	if (host == h->index)
		return false;	/* not taken (take_block()) */
	r = encd_departure_heard(h, first, count, via_of(l, host));
	if (r == ENCD_WIRE_NO_RANK)
		return false;
	scnprintf(why, why_len, "it said again that rank %u left", r);
	return true;
}

/*
 * The length of the block at @b, of at most @rest bytes, if it is one of
 * this world: runs of one host's ranks (in the order they left), none of
 * which came on @l's way before. @named counts the ranks a frame names: at
 * most the world's, so that no frame costs a host more than a pass over
 * the world, and a copy costs none. Return: its length, or 0 with @why
 * saying what is wrong.
 */
static u32 block_check(struct encd_host *h, struct encd_link *l, const u8 *b, u32 rest,
		       u32 *named, char *why, size_t why_len)
{
	const struct encd_wire_depart_block *blk = (const void *)b;
	u32 host, n_news, n_runs, off, i, r, first, count, n_comms;
	const struct encd_wire_depart_run *run;

	if (rest < sizeof(*blk))
		goto short_block;
	host = be32_to_cpu(blk->host);
	n_news = be32_to_cpu(blk->n_news);
	n_runs = be32_to_cpu(blk->n_runs);
	if (host >= h->n_hosts || !n_runs ||
	    (n_news > ENCD_DEPARTURE_NEWS_MAX && n_news != ENCD_DEPARTURE_NEWS_EVERY)) {
		scnprintf(why, why_len,
			  "it sent a DEPART block of host %u with %u runs and %u hosts to tell",
			  host, n_runs, n_news);
		return 0;
	}
	off = sizeof(*blk) + news_len(n_news);
	if (off > rest)
		goto short_block;
	for (i = 0; i < n_runs; i++) {
		if (rest - off < sizeof(*run))
			goto short_block;
		run = (const void *)(b + off);
		first = be32_to_cpu(run->first);
		count = be32_to_cpu(run->count);
		n_comms = be32_to_cpu(run->n_comms);
		if (n_comms > ENCD_DEPARTURE_COMMS_MAX || rest - off < run_len(run))
			goto short_block;
		if (!count || first >= h->wk.world_size || count > h->wk.world_size - first ||
		    count > h->wk.world_size - *named) {
			scnprintf(why, why_len, "it said that ranks %u to %u+%u left a world of %u",
				  first, first, count, h->wk.world_size);
			return 0;
		}
		if (run_again(h, l, host, first, count, why, why_len))
			return 0;
		*named += count;
		for (r = first; r < first + count; r++) {
			if (h->rank_host[r] != host) {
				scnprintf(why, why_len,
					  "it said that rank %u of host %u left, which is host %u's",
					  r, host, h->rank_host[r]);
				return 0;
			}
		}
		off += run_len(run);
	}
	return off;
short_block:
	scnprintf(why, why_len, "it sent a DEPART whose blocks do not add up");
	return 0;
}

/*
 * Whether @l is this host's tree edge from its parent in the host tree: the
 * parent's data link, or, for a child of the root, the control link. The
 * root sends its own news on its data links too, a child of it included,
 * but the news that goes down comes on the control link alone: what came
 * on both and went down both ways would reach the grandchildren twice.
 */
static bool from_parent(struct encd_host *h, struct encd_link *l)
{
	u32 parent = encd_tree_parent(h->index);

	if (!encd_link_is_data(l))
		return l == h->uplink && parent == 0;
	return parent && encd_link_peer(l) == parent && encd_link_token(l) == h->token;
}

/**
 * encd_news_link_gone() - a link of this host is closing
 * @h: this host; the caller holds its lock
 * @l: the link
 *
 * Its parent in the host tree closes a link only as it goes: no news comes
 * down to this host any more.
 */
void encd_news_link_gone(struct encd_host *h, struct encd_link *l)
{
	lockdep_assert_held(&h->lock);
	if (h->has_table && h->index && encd_link_up(l) && !encd_link_awaits_first(l) &&
	    from_parent(h, l))
		h->news.parent_gone = true;
}

/**
 * encd_news_passes_on() - whether this host may still pass news on
 * @h: this host, formed; the caller holds its lock
 *
 * Return: whether news may still come down to it, and a child of it in the
 * host tree still hear it.
 */
bool encd_news_passes_on(struct encd_host *h)
{
	struct encd_link *kids[2];
	u32 kid[2];

	lockdep_assert_held(&h->lock);
	return !h->news.parent_gone && child_links(h, kids, kid);
}

/**
 * encd_news_children() - how many children this host still has a link to
 * @h: this host, formed; the caller holds its lock
 *
 * Return: 0, 1 or 2.
 */
u32 encd_news_children(struct encd_host *h)
{
	struct encd_link *kids[2];
	u32 kid[2];

	lockdep_assert_held(&h->lock);
	return child_links(h, kids, kid);
}

/* Takes one checked block that came on @l. Return: 0, or -EPROTO with @why. */
static int take_block(struct encd_host *h, struct encd_link *l, const u8 *b, u32 blen,
		      char *why, size_t why_len)
{
	const struct encd_wire_depart_block *blk = (const void *)b;
	u32 host = be32_to_cpu(blk->host), n_news = be32_to_cpu(blk->n_news);
	u32 told_by = ENCD_WIRE_NO_RANK, i, first, off, peer;
	const struct encd_wire_depart_run *run;
	enum encd_news_via via = ENCD_NEWS_ROOT;
	bool news_here, pass_on;
	int ret;

	if (h->root && !encd_link_is_data(l)) {
		/* At the root, from the host itself, on its control link. */
		peer = encd_root_index_of(h, l);
		if (peer != host) {
			scnprintf(why, why_len, "it said that ranks of host %u left", host);
			return -EPROTO;
		}
		pass_on = true;
	} else if (!encd_link_is_data(l)) {
		pass_on = from_parent(h, l);	/* from the root */
	} else {
		peer = encd_link_peer(l);
		pass_on = from_parent(h, l);
		if (host == peer) {
			via = ENCD_NEWS_DATA;
		} else if (pass_on) {
			told_by = peer;
		} else {
			scnprintf(why, why_len,
				  "it passed on departures of host %u, and is not this host's parent in the host tree",
				  host);
			return -EPROTO;
		}
	}
	if (host == h->index)
		return 0;
	/* A copy within one frame: block_check() saw none taken yet. */
	off = sizeof(*blk) + news_len(n_news);
	for (i = 0; i < be32_to_cpu(blk->n_runs); i++, off += run_len(run)) {
		run = (const void *)(b + off);
		if (run_again(h, l, host, be32_to_cpu(run->first), be32_to_cpu(run->count), why,
			      why_len))
			return -EPROTO;
	}

	/*
	 * On its way down first: taking it may leave this host nothing to
	 * pass on, and it then shuts down, sending what waits.
	 */
	if (pass_on && encd_tree_child(h->index, h->n_hosts, 0) != h->n_hosts) {
		if (buf_reserve(&h->news.down, blen)) {
			news_no_memory(h);
			return 0;
		}
		memcpy(h->news.down.data + h->news.down.len, b, blen);
		h->news.down.len += blen;
		encd_link_queue_delayed(&h->news.work, msecs_to_jiffies(ENCD_NEWS_BATCH_MS));
	}

	news_here = n_news == ENCD_DEPARTURE_NEWS_EVERY;
	for (i = 0; !news_here && i < n_news; i++)
		news_here = be32_to_cpu(blk->news[i]) == h->index;
	off = sizeof(*blk) + news_len(n_news);
	for (i = 0; i < be32_to_cpu(blk->n_runs); i++, off += run_len(run)) {
		run = (const void *)(b + off);
		/* Failed, or shut down: it had nothing more to pass on. */
		if (h->state != ENCD_HOST_FORMED)
			return 0;
		first = be32_to_cpu(run->first);
		ret = encd_departure_note(h, first, be32_to_cpu(run->count),
					  be32_to_cpu(run->barriers), run->comms,
					  be32_to_cpu(run->n_comms),
					  encd_news_settles(via, news_here), told_by, via);
		if (ret < 0) {
			encd_host_fail_world(h, ret, encd_reason_of(ret), first, true,
					     "out of memory for the departure of rank %u", first);
			return 0;
		}
	}
	return 0;
}

/* The first rank a DEPART names, before the table, or ENCD_WIRE_NO_RANK. */
static u32 first_rank(const u8 *buf, u32 len)
{
	const struct encd_wire_depart_block *b = (const void *)buf;
	const struct encd_wire_depart_run *run;
	u32 n_news = be32_to_cpu(b->n_news), off;

	if (n_news > ENCD_DEPARTURE_NEWS_MAX && n_news != ENCD_DEPARTURE_NEWS_EVERY)
		return ENCD_WIRE_NO_RANK;
	off = sizeof(*b) + news_len(n_news);
	if (len < off || len - off < sizeof(*run))
		return ENCD_WIRE_NO_RANK;
	run = (const void *)(buf + off);
	return be32_to_cpu(run->first);
}

/**
 * encd_news_receive() - a DEPART came
 * @h: this host; the caller holds its lock
 * @l: the link it came on
 * @buf: its payload: blocks
 * @len: its length
 * @why: out: what the sender did wrong
 * @why_len: size of @why
 *
 * Departures from a world not formed here fail it: a rank cannot leave a
 * world before every host has its table.
 *
 * Return: 0, or -EPROTO for blocks that are not this world's or not the
 * sender's to send.
 */
int encd_news_receive(struct encd_host *h, struct encd_link *l, const u8 *buf, u32 len,
		      char *why, size_t why_len)
{
	char text[ENCD_MSG_MAX];
	u32 off, blen, named = 0;
	int err;

	lockdep_assert_held(&h->lock);
	if (h->state != ENCD_HOST_FORMED) {
		u32 rank = first_rank(buf, len);

		if (h->state != ENCD_HOST_GATHERING)
			return 0;
		if (rank == ENCD_WIRE_NO_RANK) {
			scnprintf(why, why_len, "it sent a DEPART whose blocks do not add up");
			return -EPROTO;
		}
		encd_departure_text(text, sizeof(text), rank, ENCD_WIRE_NO_RANK);
		encd_host_fail_world(h, -ECONNABORTED, ENCD_REASON_DEPARTED, rank, !!h->root, "%s",
				     text);
		return 0;
	}
	for (off = 0; off < len; off += blen) {
		blen = block_check(h, l, buf + off, len - off, &named, why, why_len);
		if (!blen)
			return -EPROTO;
	}
	for (off = 0; off < len && h->state == ENCD_HOST_FORMED; off += blen) {
		blen = block_len((const void *)(buf + off));
		err = take_block(h, l, buf + off, blen, why, why_len);
		if (err)
			return err;
	}
	return 0;
}
