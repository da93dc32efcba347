// SPDX-License-Identifier: GPL-2.0
/*
 * The root host: the host agent whose rank 0 is local. It listens on
 * root_comm_id, takes one control link per other host (JOIN, then its
 * ranks' REGISTERs as they come), checks every rank against the world (its
 * id in range and not taken, the settings every rank must share with rank
 * 0), and once all world_size ranks are there makes the table: host 0 is
 * itself, the others are numbered by their lowest rank. The table goes to
 * hosts 1 and 2 on their control links; everything else it sends is a few
 * bytes per host (REJECT, DEATH). What the root sends grows with the number
 * of ranks, not with its square.
 *
 * All of it runs under the root host's lock.
 */
#include <linux/net.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#include "encd_private.h"
#include "schedule.h"

/* A host that joined: its control link, and what it said of itself. */
struct encd_joined {
	struct encd_link *link;
	u8 host_id[ENCD_HOST_ID_LEN];
	struct sockaddr_storage listen;
	u32 n_ranks;
	u32 first_rank;
	u32 index;			/* in the table, once there is one */
	u32 world_size;			/* what it asked for: its ranks are refused if not ours */
	/* For the report (encd_root_report()): after the root's start_ns. */
	u64 joined_ns, registered_ns;
	u64 handshake_ns;		/* its control link's, as it joined */
};

struct encd_root_state {
	u32 settings;			/* rank 0's: every rank must match */
	u32 got;			/* ranks registered */
	/* per rank: 0 none, 1 this host, k + 2 the k-th joined host */
	u32 *owner;
	/* The hosts that joined, as many as came: grown as they come. */
	struct encd_joined *joined;
	u32 n_joined, joined_cap;
	bool complete;
	u64 start_ns;			/* rank 0 arrived (boot time) */
	struct encd_joined self;	/* the root host's own ranks: no link, index 0 */
};

#define OWNER_NONE	0
#define OWNER_LOCAL	1

/**
 * encd_root_alloc() - the root's state, as rank 0 arrives
 * @h: the root host
 * @r0: rank 0, whose settings every rank must share
 *
 * Return: the state, or NULL when out of memory.
 */
struct encd_root_state *encd_root_alloc(struct encd_host *h, struct encd_rank *r0)
{
	struct encd_root_state *rs;

	rs = kzalloc(sizeof(*rs), GFP_KERNEL_ACCOUNT);
	if (!rs)
		return NULL;
	rs->owner = kvcalloc(h->wk.world_size, sizeof(u32), GFP_KERNEL_ACCOUNT);
	if (!rs->owner) {
		encd_root_free(rs);
		return NULL;
	}
	rs->settings = r0->settings;
	rs->start_ns = ktime_get_boottime_ns();
	return rs;
}

/*
 * Room for one more joined host, up to one a rank (every host brings at
 * least one) and ENCD_WORLD_HOSTS_MAX: the array doubles, so a world of H
 * hosts costs O(H) copies, and a world of few hosts holds little whatever
 * its ranks.
 */
static int joined_grow(struct encd_root_state *rs, u32 world_size)
{
	u32 cap = min_t(u32, max_t(u32, 8, 2 * rs->joined_cap),
			min_t(u32, world_size, ENCD_WORLD_HOSTS_MAX));
	struct encd_joined *bigger;

	if (rs->n_joined < rs->joined_cap)
		return 0;
	bigger = kvmalloc_array(cap, sizeof(*bigger), GFP_KERNEL_ACCOUNT);
	if (!bigger)
		return -ENOMEM;
	if (rs->n_joined)
		memcpy(bigger, rs->joined, rs->n_joined * sizeof(*bigger));
	kvfree(rs->joined);
	rs->joined = bigger;
	rs->joined_cap = cap;
	return 0;
}

/**
 * encd_root_free() - frees the root's state
 * @rs: the state, or NULL
 */
void encd_root_free(struct encd_root_state *rs)
{
	if (!rs)
		return;
	kvfree(rs->owner);
	kvfree(rs->joined);
	kfree(rs);
}

static struct encd_joined *joined_of(struct encd_root_state *rs, struct encd_link *l)
{
	u32 i;

	for (i = 0; i < rs->n_joined; i++)
		if (rs->joined[i].link == l)
			return &rs->joined[i];
	return NULL;
}

/**
 * encd_root_knows_addr() - whether a host that joined listens at @addr's host
 * @h: the root host; the caller holds its lock
 * @addr: where a connection came from
 *
 * Return: whether one did.
 */
bool encd_root_knows_addr(struct encd_host *h, const struct sockaddr_storage *addr)
{
	struct encd_root_state *rs = h->root;
	u32 i;

	lockdep_assert_held(&h->lock);
	for (i = 0; i < rs->n_joined; i++)
		if (encd_addr_same_host(&rs->joined[i].listen, addr))
			return true;
	return false;
}

/**
 * encd_root_ranks_of() - the ranks a joined host registered, for sentences
 * @h: the root host; the caller holds its lock
 * @l: the host's control link
 * @first: out: its lowest rank
 * @last: out: its highest
 * @n: out: how many
 *
 * Return: whether @l is a joined host with ranks.
 */
bool encd_root_ranks_of(struct encd_host *h, struct encd_link *l, u32 *first, u32 *last, u32 *n)
{
	struct encd_root_state *rs = h->root;
	struct encd_joined *j = joined_of(rs, l);
	u32 k, r;

	lockdep_assert_held(&h->lock);
	if (!j || !j->n_ranks)
		return false;
	k = j - rs->joined + 2;
	*n = j->n_ranks;
	*first = j->first_rank;
	*last = j->first_rank;
	for (r = j->first_rank; r < h->wk.world_size; r++)
		if (rs->owner[r] == k)
			*last = r;
	return true;
}

/* What every rank of a world must share, in words. */
static const char *settings_words(u32 s)
{
	switch (s & (ENCD_WIRE_CHECK_SIGS | ENCD_WIRE_SIG_ALL_GROUPS)) {
	case 0:
		return "does not check signatures";
	case ENCD_WIRE_CHECK_SIGS:
		return "checks the signatures of sendrecv groups";
	case ENCD_WIRE_SIG_ALL_GROUPS:
		return "does not check signatures but signs every group";
	default:
		return "checks the signatures of every group";
	}
}

static void reject(struct encd_host *h, struct encd_link *l, int err, u32 reason, u32 rank,
		   const char *fmt, ...) __printf(6, 7);

/* Tells a host that the root refuses one of its ranks, or all of them, and why. */
static void reject(struct encd_host *h, struct encd_link *l, int err, u32 reason, u32 rank,
		   const char *fmt, ...)
{
	struct encd_wire_reject rj = {
		.err = cpu_to_be32(-err),
		.reason = cpu_to_be32(reason),
		.rank = cpu_to_be32(rank),
	};
	char text[ENCD_TEXT_MAX + 1];
	va_list args;
	u32 len;

	va_start(args, fmt);
	len = vscnprintf(text, sizeof(text), fmt, args);
	va_end(args);
	net_dbg_ratelimited("root: %s\n", text);
	rj.text_len = cpu_to_be16(len);
	encd_link_send(l, ENCD_WIRE_REJECT, &rj, sizeof(rj), text, len);
}

static int by_first_rank(const void *a, const void *b)
{
	const struct encd_joined *x = *(const struct encd_joined * const *)a;
	const struct encd_joined *y = *(const struct encd_joined * const *)b;

	return x->first_rank < y->first_rank ? -1 : x->first_rank > y->first_rank;
}

/*
 * The table's digest, to every host that hears the table from a parent
 * other than the root: it takes only the root's (encd_host_take_table()).
 * It goes before the table, so it is usually there first.
 */
static void root_send_digest(struct encd_host *h, const void *t, u32 len)
{
	struct encd_root_state *rs = h->root;
	struct encd_wire_digest d;
	u32 i;

	encd_host_table_digest(t, len, d.sha256);
	for (i = 0; i < rs->n_joined; i++)
		if (rs->joined[i].link && rs->joined[i].n_ranks &&
		    encd_tree_parent(rs->joined[i].index) != 0)
			encd_link_send(rs->joined[i].link, ENCD_WIRE_DIGEST, &d, sizeof(d), NULL, 0);
}

/* Every rank is here: number the hosts, make the table, send it down. */
static void root_complete(struct encd_host *h)
{
	struct encd_root_state *rs = h->root;
	struct encd_wire_table_host *wh;
	struct encd_joined **order;
	struct encd_wire_table *t;
	char why[ENCD_MSG_MAX];
	u32 n_others = 0, n_hosts, i, r;
	__be32 *wr;
	size_t len;
	int err;

	rs->complete = true;
	order = kvcalloc(rs->n_joined + 1, sizeof(*order), GFP_KERNEL);
	if (!order)
		goto nomem;
	for (i = 0; i < rs->n_joined; i++) {
		if (rs->joined[i].n_ranks)
			order[n_others++] = &rs->joined[i];
		else if (rs->joined[i].link)
			reject(h, rs->joined[i].link, -EINVAL, ENCD_REASON_BUSY, ENCD_WIRE_NO_RANK,
			       "the world of %u ranks formed without this host's ranks",
			       h->wk.world_size);
	}
	sort(order, n_others, sizeof(*order), by_first_rank, NULL);
	n_hosts = n_others + 1;

	len = encd_wire_table_len(h->wk.world_size, n_hosts);
	t = kvmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!t) {
		kvfree(order);
		goto nomem;
	}
	get_random_bytes(&t->token, sizeof(t->token));
	t->n_ranks = cpu_to_be32(h->wk.world_size);
	t->n_hosts = cpu_to_be32(n_hosts);
	wh = (void *)(t + 1);
	wr = (__be32 *)(wh + n_hosts);
	memcpy(wh[0].host_id, h->id, ENCD_HOST_ID_LEN);
	encd_addr_to_wire(&h->listen_addr, &wh[0].listen);
	for (i = 1; i < n_hosts; i++) {
		order[i - 1]->index = i;
		memcpy(wh[i].host_id, order[i - 1]->host_id, ENCD_HOST_ID_LEN);
		encd_addr_to_wire(&order[i - 1]->listen, &wh[i].listen);
	}
	for (r = 0; r < h->wk.world_size; r++)
		wr[r] = cpu_to_be32(rs->owner[r] == OWNER_LOCAL ? 0 :
				    rs->joined[rs->owner[r] - 2].index);
	kvfree(order);
	root_send_digest(h, t, len);

	err = encd_host_take_table(h, t, len, NULL, why, sizeof(why));
	kvfree(t);
	if (err)
		encd_host_fail_world(h, err, encd_reason_of(err), ENCD_WIRE_NO_RANK, true,
				     "the root cannot make the world's table: %s", why);
	return;
nomem:
	encd_host_fail_world(h, -ENOMEM, ENCD_REASON_NO_MEMORY, ENCD_WIRE_NO_RANK, true,
			     "the root is out of memory for the world's table");
}

/*
 * One rank arrives, from this host (@j NULL) or a joined one. A rank the
 * root cannot take is refused alone; a rank whose settings differ from rank
 * 0's fails the whole world at once, naming it, since no world can form.
 */
static void root_register(struct encd_host *h, struct encd_joined *j, u32 id, u32 settings)
{
	struct encd_root_state *rs = h->root;
	struct encd_rank *r = j ? NULL : xa_load(&h->ranks, id);
	u32 reason = ENCD_REASON_NONE;
	char text[ENCD_TEXT_MAX + 1];

	if (j && j->world_size != h->wk.world_size) {
		reason = ENCD_REASON_WORLD_DIFFERS;
		scnprintf(text, sizeof(text), "rank %u asked for a world of %u ranks, the root's has %u",
			  id, j->world_size, h->wk.world_size);
	} else if (rs->complete) {
		reason = ENCD_REASON_BUSY;
		scnprintf(text, sizeof(text), "rank %u arrived after the world of %u ranks formed",
			  id, h->wk.world_size);
	} else if (id >= h->wk.world_size) {
		reason = ENCD_REASON_ARGUMENT;
		scnprintf(text, sizeof(text), "rank %u is not below the world size %u", id,
			  h->wk.world_size);
	} else if (rs->owner[id]) {
		reason = ENCD_REASON_ARGUMENT;
		scnprintf(text, sizeof(text), "a second rank with global device id %u", id);
	}
	if (reason) {
		if (j)
			reject(h, j->link, -EINVAL, reason, id, "%s", text);
		else if (r)
			encd_rank_fail(r, -EINVAL, reason, "rank %u: the root refused it: %s", id,
				       text);
		return;
	}
	if (settings != rs->settings) {
		encd_host_fail_world(h, -EINVAL, ENCD_REASON_WORLD_DIFFERS, id, true,
				     "rank %u %s, rank 0 (the root) %s: every rank of a world must agree on check_sigs and the signing flags",
				     id, settings_words(settings), settings_words(rs->settings));
		return;
	}
	rs->owner[id] = j ? j - rs->joined + 2 : OWNER_LOCAL;
	if (!j)
		j = &rs->self;
	if (!j->n_ranks || id < j->first_rank)
		j->first_rank = id;
	j->n_ranks++;
	j->registered_ns = ktime_get_boottime_ns() - rs->start_ns;
	if (++rs->got == h->wk.world_size)
		root_complete(h);
}

/**
 * encd_root_register_local() - a rank of the root host registers
 * @h: the root host; the caller holds its lock
 * @r: the rank
 */
void encd_root_register_local(struct encd_host *h, struct encd_rank *r)
{
	lockdep_assert_held(&h->lock);
	root_register(h, NULL, r->id, r->settings);
}

static int root_on_join(struct encd_host *h, struct encd_link *l, const struct encd_wire_join *jn,
			char *why, size_t why_len)
{
	struct encd_root_state *rs = h->root;
	u32 size = be32_to_cpu(jn->world_size), i;
	struct sockaddr_storage listen;
	struct encd_joined *j;

	/* Its first frame (encd_host_frame() saw to that): the host said who it is. */
	encd_link_said_who(l);
	if (jn->flags || encd_addr_from_wire(&jn->listen, &listen)) {
		scnprintf(why, why_len, "its JOIN is malformed");
		return -EPROTO;
	}
	if (!memcmp(jn->host_id, h->id, ENCD_HOST_ID_LEN)) {
		/* This host reached its own listener while it became the root. */
		scnprintf(why, why_len, "it is this host");
		return -ECONNABORTED;
	}
	for (i = 0; i < rs->n_joined; i++) {
		if (!memcmp(rs->joined[i].host_id, jn->host_id, ENCD_HOST_ID_LEN)) {
			scnprintf(why, why_len, "a host joined twice");
			return -EPROTO;
		}
	}
	/*
	 * Its listener is where the other hosts will call it: the address it
	 * came from, or a member could make them call anywhere it chose.
	 */
	if (!encd_addr_same_host(&listen, encd_link_addr(l))) {
		reject(h, l, -EADDRNOTAVAIL, ENCD_REASON_ADDRESS, ENCD_WIRE_NO_RANK,
		       "it announced %pISc for its peers to call, not %pISc, the address it came from (a host behind NAT cannot take part)",
		       &listen, encd_link_addr(l));
		return 0;
	}
	/*
	 * Its listener must be where this kernel may send the others, as the
	 * table it goes into will be checked against the same networks.
	 */
	if (!encd_addr_allowed(&listen, &h->wk.root)) {
		char nets[ENCD_NETWORKS_SHOWN];

		encd_networks_show(nets, sizeof(nets));
		reject(h, l, -EADDRNOTAVAIL, ENCD_REASON_ADDRESS, ENCD_WIRE_NO_RANK,
		       "it announced %pISc for its peers to call, outside the networks encd may use (networks=%s)",
		       &listen, nets);
		return 0;
	}
	/* The world failed before it came: it hears why, as the others did. */
	if (h->state == ENCD_HOST_FAILED) {
		reject(h, l, h->failure.err, h->failure.reason, ENCD_WIRE_NO_RANK, "%s",
		       h->failure.msg);
		return 0;
	}
	/* A host that went without ranks leaves its place to another. */
	for (j = rs->joined; j < rs->joined + rs->n_joined; j++)
		if (!j->link && !j->n_ranks)
			break;
	if (rs->complete || (j == rs->joined + rs->n_joined &&
			     rs->n_joined >= min_t(u32, h->wk.world_size, ENCD_WORLD_HOSTS_MAX))) {
		reject(h, l, -EINVAL, ENCD_REASON_BUSY, ENCD_WIRE_NO_RANK,
		       "the world of %u ranks has no room for another host", h->wk.world_size);
		return 0;
	}
	if (j == rs->joined + rs->n_joined) {
		if (joined_grow(rs, h->wk.world_size))
			return -ENOMEM;
		j = rs->joined + rs->n_joined++;
	}
	memset(j, 0, sizeof(*j));
	j->world_size = size;
	j->link = l;
	memcpy(j->host_id, jn->host_id, ENCD_HOST_ID_LEN);
	j->listen = listen;
	j->joined_ns = ktime_get_boottime_ns() - rs->start_ns;
	j->handshake_ns = encd_link_handshake_ns(l);
	return 0;
}

/**
 * encd_root_frame() - JOIN and REGISTER, on a control link to the root
 * @h: the root host; the caller holds its lock
 * @l: the control link
 * @type: ENCD_WIRE_JOIN or ENCD_WIRE_REGISTER
 * @buf: the payload
 * @len: its length
 * @why: out: what the host did wrong
 * @why_len: size of @why
 *
 * Return: 0, or a negative errno that fails the link.
 */
int encd_root_frame(struct encd_host *h, struct encd_link *l, u8 type, const void *buf, u32 len,
		    char *why, size_t why_len)
{
	const struct encd_wire_register *reg = buf;
	struct encd_joined *j;
	u32 n, i;

	lockdep_assert_held(&h->lock);
	if (type == ENCD_WIRE_JOIN)
		return root_on_join(h, l, buf, why, why_len);
	j = joined_of(h->root, l);
	n = be32_to_cpu(reg->n);
	if (!j || n > ENCD_REGISTER_MAX || len != sizeof(*reg) + n * sizeof(reg->ranks[0])) {
		scnprintf(why, why_len, "its REGISTER is malformed or came before JOIN");
		return -EPROTO;
	}
	for (i = 0; i < n && h->state == ENCD_HOST_GATHERING; i++)
		root_register(h, j, be32_to_cpu(reg->ranks[i].g_device_id),
			      be32_to_cpu(reg->ranks[i].settings));
	return 0;
}

/**
 * encd_root_link_down() - a control link to the root went
 * @h: the root host; the caller holds its lock
 * @l: the link
 * @err: why, as a negative errno
 * @why: why, in words
 *
 * A host that registered ranks took them with it: the world fails, and
 * every other host hears it. One that had none, or whose ranks all left
 * the formed world, is simply forgotten, unless it broke the protocol.
 */
void encd_root_link_down(struct encd_host *h, struct encd_link *l, int err, const char *why)
{
	struct encd_root_state *rs = h->root;
	struct encd_joined *j = joined_of(rs, l);
	char who[96];

	lockdep_assert_held(&h->lock);
	if (!j)
		return;
	/*
	 * Its ranks all left the formed world, and said so on this link
	 * first; but a host that broke the protocol (say, by repeating that
	 * news) is named, whether its ranks left or not.
	 */
	if (j->n_ranks && (!encd_departure_host_left(h, j->index) ||
			   encd_reason_of(err) == ENCD_REASON_PROTOCOL)) {
		encd_host_describe(h, h->has_table ? j->index : U32_MAX, l, who, sizeof(who));
		encd_host_fail_world(h, err, encd_reason_of_link_down(err), ENCD_WIRE_NO_RANK,
				     true, "%s went away: %s", who, why);
	}
	j->link = NULL;
}

/**
 * encd_root_has() - whether the root took a rank from a host
 * @h: the root host; the caller holds its lock
 * @l: the host's control link, or NULL for the root host itself
 * @rank: the rank
 *
 * Return: whether @rank is registered, from that host.
 */
bool encd_root_has(struct encd_host *h, struct encd_link *l, u32 rank)
{
	struct encd_root_state *rs = h->root;
	struct encd_joined *j;

	lockdep_assert_held(&h->lock);
	if (!rs || rank >= h->wk.world_size || !rs->owner[rank])
		return false;
	if (!l)
		return rs->owner[rank] == OWNER_LOCAL;
	j = joined_of(rs, l);
	return j && rs->owner[rank] == j - rs->joined + 2;
}

/**
 * encd_root_missing() - which ranks have not arrived, for sentences
 * @h: the root host; the caller holds its lock
 * @buf: out: the first few, "1, 2, ..."
 * @size: its size
 *
 * Return: how many have.
 */
u32 encd_root_missing(struct encd_host *h, char *buf, size_t size)
{
	struct encd_root_state *rs = h->root;
	u32 r, shown = 0, n = h->wk.world_size;
	size_t off = 0;

	lockdep_assert_held(&h->lock);
	buf[0] = '\0';
	for (r = 0; r < n && shown < 8; r++) {
		if (rs->owner[r])
			continue;
		off += scnprintf(buf + off, size - off, "%s%u", shown ? ", " : "", r);
		shown++;
	}
	if (rs->got + shown < n)
		scnprintf(buf + off, size - off, ", ...");
	return rs->got;
}

/**
 * encd_root_report() - one host of the world, as the root saw it come
 * @h: the host; the caller holds its lock
 * @index: 0 for the root host itself, k for the k-th host that joined
 * @out: out: what the root knows of it
 *
 * Return: 0; -ENOENT past the last host, or when @h is not a root.
 */
int encd_root_report(struct encd_host *h, u32 index, struct encd_root_host_report *out)
{
	struct encd_root_state *rs = h->root;
	const struct encd_joined *j;
	u32 r;

	lockdep_assert_held(&h->lock);
	if (!rs || index > rs->n_joined)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->index = index;
	out->world_size = h->wk.world_size;
	if (!index) {
		out->addr = h->wk.root;
		out->ranks = rs->self.n_ranks;
		out->first_rank = rs->self.first_rank;
		out->registered_ns = rs->self.registered_ns;
		out->missing_n = h->wk.world_size - rs->got;
		for (r = 0; r < h->wk.world_size &&
			    out->n_missing < ARRAY_SIZE(out->missing); r++)
			if (!rs->owner[r])
				out->missing[out->n_missing++] = r;
		return 0;
	}
	j = &rs->joined[index - 1];
	out->addr = j->listen;
	out->ranks = j->n_ranks;
	out->first_rank = j->first_rank;
	out->joined_ns = j->joined_ns;
	out->registered_ns = j->registered_ns;
	out->handshake_ns = j->handshake_ns;
	out->connected = j->link;
	if (j->link)
		out->rtt_us = encd_link_rtt_us(j->link);
	return 0;
}

/**
 * encd_root_broadcast() - sends a frame to every joined host
 * @h: the root host; the caller holds its lock
 * @type: the frame's type
 * @a: the payload's first part
 * @alen: its length
 * @b: its second part
 * @blen: its length
 */
void encd_root_broadcast(struct encd_host *h, u8 type, const void *a, u32 alen, const void *b,
			 u32 blen)
{
	struct encd_root_state *rs = h->root;
	u32 i;

	lockdep_assert_held(&h->lock);
	for (i = 0; i < rs->n_joined; i++)
		if (rs->joined[i].link)
			encd_link_send(rs->joined[i].link, type, a, alen, b, blen);
}

/**
 * encd_root_link_of() - the control link of a host of the table
 * @h: the root host; the caller holds its lock
 * @index: the host's index
 *
 * Return: the link, or NULL when it is gone.
 */
struct encd_link *encd_root_link_of(struct encd_host *h, u32 index)
{
	struct encd_root_state *rs = h->root;
	u32 i;

	lockdep_assert_held(&h->lock);
	for (i = 0; i < rs->n_joined; i++)
		if (rs->joined[i].link && rs->joined[i].n_ranks && rs->joined[i].index == index)
			return rs->joined[i].link;
	return NULL;
}

/**
 * encd_root_index_of() - the host of the table a control link is
 * @h: the root host; the caller holds its lock
 * @l: the link
 *
 * Return: its index, or ENCD_WIRE_NO_RANK for a host with no ranks in it.
 */
u32 encd_root_index_of(struct encd_host *h, struct encd_link *l)
{
	struct encd_joined *j = joined_of(h->root, l);

	lockdep_assert_held(&h->lock);
	return j && j->n_ranks ? j->index : ENCD_WIRE_NO_RANK;
}

/**
 * encd_root_send_table() - the table to one of the root's children
 * @h: the root host; the caller holds its lock
 * @index: the child's host index (1 or 2)
 * @buf: the TABLE payload
 * @len: its length
 */
void encd_root_send_table(struct encd_host *h, u32 index, const void *buf, u32 len)
{
	struct encd_link *l = encd_root_link_of(h, index);

	if (l)
		encd_table_send(l, buf, len);
}
