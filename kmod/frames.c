// SPDX-License-Identifier: GPL-2.0
/*
 * A host's side of its links: the frame types each link may carry, what
 * each authenticated frame does, and a link coming up (its first frame:
 * JOIN on the control link, LINK on a data link) or going down.
 *
 * link.c judges a frame's header and tag; only then is it handed here
 * (encd_host_frame()), under the host's lock: JOIN and REGISTER go to the
 * root (root.c), the table to table.c, DEATH to the failure of the world,
 * DEPART to news.c, and a message to its rank (bootstrap.c, barrier.c),
 * or, before the table, to wait for it. A peer's text is sanitized before
 * any sentence carries it.
 */
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "encd_private.h"

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
 * encd_host_accepts() - the frame types a link may carry once it is up
 * @l: the link
 * @type: enum encd_wire_type
 *
 * A control link goes both ways: to the root at the root, from it at a
 * host. A data link goes one way, to the host that accepted it; its
 * initiator receives nothing on it. Which frame types each way carries is
 * the rule of each type (wire.c).
 *
 * Return: whether the type is allowed.
 */
bool encd_host_accepts(const struct encd_link *l, u8 type)
{
	unsigned int way;

	if (!encd_link_is_data(l))
		way = encd_link_initiator(l) ? ENCD_WAY_FROM_ROOT : ENCD_WAY_TO_ROOT;
	else
		way = encd_link_initiator(l) ? 0 : ENCD_WAY_DATA;
	return encd_wire_goes(type, way);
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
	if (!encd_link_initiator(l))
		return 0;
	if (encd_link_is_data(l)) {
		struct encd_wire_link lk = {
			.token = cpu_to_be64(h->token),
			.host = cpu_to_be32(h->index),
		};

		return encd_link_send_first(l, ENCD_WIRE_LINK, &lk, sizeof(lk));
	}
	if (l != h->uplink)
		return -ECONNABORTED;
	if (!h->listener) {
		if (encd_link_local_addr(l, &local))
			return -ENOTCONN;
		encd_addr_set_port(&local, 0);
		err = encd_listener_start(h, &local);
		if (err) {
			encd_host_fail_world(h, err, encd_reason_of(err), ENCD_WIRE_NO_RANK, false,
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
	encd_host_send_registrations(h);
	return 0;
}

/*
 * A stranger's connection going means nothing. A link of the world going
 * means its peer host is gone or misbehaved: the world fails, naming it.
 */
static void link_down(struct encd_host *h, struct encd_link *l, int err, const char *why)
{
	/* A host whose ranks all left may go, but not break the protocol. */
	bool wrong = encd_reason_of(err) == ENCD_REASON_PROTOCOL;
	char who[96];

	if (l == h->uplink) {
		h->uplink = NULL;
		h->uplink_up = false;
		/* The root host's ranks all left (it said so on this link first). */
		if (!wrong && encd_departure_host_left(h, 0))
			return;
		if (err == -EACCES)
			encd_host_fail_world(h, -EACCES, ENCD_REASON_AUTH, ENCD_WIRE_NO_RANK, false,
					     "the root at %pISpc does not hold the world secret of this rank: every rank of a world needs the same secret (or, on loopback, none, and one user or encd's loopback_group)",
					     &h->wk.root);
		else
			encd_host_fail_world(h, err, encd_reason_of_link_down(err), ENCD_WIRE_NO_RANK, false,
					     "lost the root host at %pISpc: %s", &h->wk.root, why);
		return;
	}
	if (encd_link_is_data(l) && encd_link_initiator(l)) {
		u32 peer = encd_link_peer(l);

		encd_host_out_gone(h, peer, l);
		/*
		 * Closed by its peer with everything sent, in a formed world
		 * (but the news of this host's departures, which its peer may
		 * be too late for): a host whose ranks all left (the news may
		 * still be on its way here), or one that tells the root why.
		 * A message for it later opens a new link, which fails if it
		 * is gone.
		 */
		if (encd_link_up(l) && h->state == ENCD_HOST_FORMED && encd_link_idle(l))
			return;
		encd_host_describe(h, encd_link_peer(l), l, who, sizeof(who));
		encd_host_fail_world(h, err, encd_reason_of_link_down(err), ENCD_WIRE_NO_RANK, true,
				     "%s %s: %s", who, encd_link_up(l) ? "went away" : "cannot be reached", why);
		return;
	}
	/* A stranger, or a host that never said who it is, means nothing. */
	if (!encd_link_up(l) || encd_link_awaits_first(l))
		return;
	if (!encd_link_is_data(l)) {
		if (h->root)
			encd_root_link_down(h, l, err, why);
		return;
	}
	/* Its ranks all left, and said so on this link before it closed. */
	if (!wrong && encd_departure_host_left(h, encd_link_peer(l)))
		return;
	encd_host_describe(h, encd_link_peer(l), l, who, sizeof(who));
	encd_host_fail_world(h, err, encd_reason_of_link_down(err), ENCD_WIRE_NO_RANK, true,
			     "%s went away: %s", who, why);
}

/**
 * encd_host_link_down() - a link failed or its peer closed it
 * @h: this host; the caller holds its lock
 * @l: the link, still on the host's list (the caller closes it next)
 * @err: why, as a negative errno
 * @why: why, in words
 *
 * A host passing news on without ranks ends once its parent in the host
 * tree, or its last child, is gone: no news is left to come, or nobody to
 * pass it to.
 */
void encd_host_link_down(struct encd_host *h, struct encd_link *l, int err, const char *why)
{
	lockdep_assert_held(&h->lock);
	if (err > 0 || !err)
		err = -ECONNRESET;
	encd_news_link_gone(h, l);
	link_down(h, l, err, why);
	encd_host_forwarded(h);
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
	encd_host_describe(h, encd_link_peer(l), l, who, sizeof(who));
	encd_host_fail_world(h, -EPROTO, ENCD_REASON_PROTOCOL, ENCD_WIRE_NO_RANK, true,
			     "%s broke the protocol: %s", who, why);
	encd_link_close(l);
}

/* A data link's opening frame: which host is calling. */
static int host_on_link(struct encd_host *h, struct encd_link *l, const struct encd_wire_link *lk,
			char *why, size_t why_len)
{
	u32 index = be32_to_cpu(lk->host);
	struct encd_link *o;

	if (index >= h->wk.world_size ||
	    (h->has_table && (index >= h->n_hosts || index == h->index ||
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
		if (encd_link_is_data(o) && !encd_link_initiator(o) && !encd_link_awaits_first(o) &&
		    encd_link_peer(o) == index) {
			scnprintf(why, why_len, "its LINK names a host that has a data link here already");
			return -EPROTO;
		}
	}
	encd_link_said_who(l);
	encd_link_set_peer(l, index, be64_to_cpu(lk->token));
	return 0;
}

static int host_on_reject(struct encd_host *h, const struct encd_wire_reject *rj, u32 len)
{
	u32 rank = be32_to_cpu(rj->rank), err = be32_to_cpu(rj->err), reason;
	u32 tlen = min_t(u32, be16_to_cpu(rj->text_len), len - sizeof(*rj));
	char text[ENCD_TEXT_MAX + 1];
	struct encd_rank *r;

	sanitize(text, sizeof(text), rj->text, tlen);
	if (err == 0 || err > MAX_ERRNO)
		err = EINVAL;
	reason = encd_reason_from_wire(rj->reason, -err);
	if (rank == ENCD_WIRE_NO_RANK) {
		encd_host_fail_world(h, -err, reason, ENCD_WIRE_NO_RANK, false,
				     "the root refused this host: %s", text);
		return 0;
	}
	r = rank < h->wk.world_size ? xa_load(&h->ranks, rank) : NULL;
	if (r)
		encd_rank_fail(r, -err, reason, "rank %u: the root refused it: %s", rank, text);
	return 0;
}

static int host_on_death(struct encd_host *h, struct encd_link *l,
			 const struct encd_wire_death *d, u32 len, char *why, size_t why_len)
{
	u32 tlen = min_t(u32, be16_to_cpu(d->text_len), len - sizeof(*d));
	u32 err = be32_to_cpu(d->err), rank = be32_to_cpu(d->rank), reason;
	char text[ENCD_TEXT_MAX + 1];

	if (len != sizeof(*d) + tlen) {
		scnprintf(why, why_len, "it sent a DEATH with %u bytes after its text",
			  len - (u32)sizeof(*d) - tlen);
		return -EPROTO;
	}

	/*
	 * The root believes a host only about the ranks it registered: one it
	 * refused, or another host's, may come and go without harm; nor does
	 * a host believe a data link about another host's ranks.
	 */
	if (h->root && !encd_link_is_data(l) && rank != ENCD_WIRE_NO_RANK &&
	    !encd_root_has(h, l, rank))
		return 0;
	if (encd_link_is_data(l) && rank != ENCD_WIRE_NO_RANK &&
	    (!h->has_table || rank >= h->wk.world_size || h->rank_host[rank] != encd_link_peer(l)))
		return 0;
	sanitize(text, sizeof(text), d->text, tlen);
	if (err == 0 || err > MAX_ERRNO)
		err = ECONNABORTED;
	reason = encd_reason_from_wire(d->reason, -(int)err);
	encd_host_fail_world(h, -(int)err, reason, rank, h->root, "%s", text);
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

	if (!h->has_table)
		return host_hold_for_table(h, l, type, src, dst, route, buf + sizeof(*route),
					   len - sizeof(*route), why, why_len);
	err = encd_host_route_ok(h, l, type, src, dst, why, why_len);
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
	/* The one place that holds a link to its first frame (JOIN or LINK), said once. */
	if (encd_link_awaits_first(l) != encd_wire_opens(type)) {
		if (encd_link_awaits_first(l))
			scnprintf(why, why_len, "it sent %s before saying who it is",
				  encd_wire_type_name(type));
		else
			scnprintf(why, why_len, "it sent %s twice", encd_wire_type_name(type));
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
		err = encd_host_table_part(h, buf, len, l, why, why_len);
		break;
	case ENCD_WIRE_DIGEST:
		err = encd_host_take_digest(h, buf, len, why, why_len);
		break;
	case ENCD_WIRE_DEATH:
		err = host_on_death(h, l, buf, len, why, why_len);
		break;
	case ENCD_WIRE_DEPART:
		err = encd_news_receive(h, l, buf, len, why, why_len);
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
