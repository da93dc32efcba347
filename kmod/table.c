// SPDX-License-Identifier: GPL-2.0
/*
 * The world's table on a host, and the routes it gives messages.
 *
 * The root host (root.c) assigns the table of the world: every host's
 * address and every rank's host. It goes down a binary tree of hosts, each
 * host receiving it once from its parent and passing it to its two
 * children, so the root sends it twice, whatever the size of the world.
 * Messages that overtook it on their way here wait for it, and are judged
 * by it when it comes.
 *
 * Then messages between ranks move: to a rank of this host, handed over in
 * the module (the local queue, run by whoever delivered the message that
 * caused it, so that a signature folds into its parent's and a unique id
 * goes down the hypercube without waiting for any process to run); to a
 * rank of another host, on this host's data link to it, opened on first use.
 *
 * Everything here runs under the host's lock.
 */
#include <crypto/sha2.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "encd_private.h"
#include "schedule.h"


/*
 * Every allocation of the table path. Its size is a peer's to choose, and
 * a rank's memory cgroup may refuse it: the world fails with a sentence,
 * and the kernel's log says nothing (a peer must not fill it). A test
 * build can fail the Nth (fault.c's fail_table_alloc): they run in the
 * links' workers, out of reach of a task's fail-nth.
 */
static void *table_alloc(size_t n, size_t size, gfp_t gfp)
{
	if (encd_fault(ENCD_FAULT_TABLE_ALLOC))
		return NULL;
	return kvmalloc_array(n, size, gfp | __GFP_NOWARN);
}

/**
 * encd_host_peer_addr() - the listener of a host of the table
 * @h: this host, which has its table; the caller holds its lock
 * @index: the host's index
 * @ss: out: its address (zeroes for this host in a world of one)
 */
void encd_host_peer_addr(struct encd_host *h, u32 index, struct sockaddr_storage *ss)
{
	lockdep_assert_held(&h->lock);
	if (encd_addr_from_wire(&h->hosts[index].addr, ss))
		memset(ss, 0, sizeof(*ss));
}

/**
 * encd_host_out() - the data link this host sends to host @index on
 * @h: this host, which has its table; the caller holds its lock
 * @index: the host's index
 *
 * Return: the link, or NULL when none is open.
 */
struct encd_link *encd_host_out(struct encd_host *h, u32 index)
{
	lockdep_assert_held(&h->lock);
	return xa_load(&h->outs, index);
}

/**
 * encd_host_out_gone() - a data link this host sent on closes
 * @h: this host; the caller holds its lock
 * @index: the host it went to (its peer), or U32_MAX
 * @l: the link
 */
void encd_host_out_gone(struct encd_host *h, u32 index, struct encd_link *l)
{
	lockdep_assert_held(&h->lock);
	if (index < h->n_hosts && xa_load(&h->outs, index) == l)
		xa_erase(&h->outs, index);
}

/* Opens (or finds) the data link this host sends to host @index on. */
static struct encd_link *host_out_link(struct encd_host *h, u32 index)
{
	struct encd_link *out = xa_load(&h->outs, index);
	struct sockaddr_storage addr;

	if (out)
		return out;
	encd_host_peer_addr(h, index, &addr);
	out = encd_link_connect(h, &addr, ENCD_LINK_DATA, false);
	if (!out)
		return NULL;
	if (xa_err(xa_store(&h->outs, index, out, GFP_KERNEL_ACCOUNT))) {
		encd_link_close(out);
		return NULL;
	}
	encd_link_set_peer(out, index, 0);
	return out;
}

/*
 * The length of the table whose head is @t, if it is one of this world
 * (its ranks, and 1 to as many hosts, ENCD_WORLD_HOSTS_MAX at most), or 0.
 */
static u32 table_len_of(const struct encd_host *h, const struct encd_wire_table *t)
{
	u32 n_ranks = be32_to_cpu(t->n_ranks), n_hosts = be32_to_cpu(t->n_hosts);

	if (n_ranks != h->wk.world_size || !n_hosts || n_hosts > n_ranks ||
	    n_hosts > ENCD_WORLD_HOSTS_MAX)
		return 0;
	return encd_wire_table_len(n_ranks, n_hosts);
}

/* Whether a table's head and length are those of a table of this world. */
static bool table_shape_ok(struct encd_host *h, const struct encd_wire_table *t, u32 len,
			   char *why, size_t why_len)
{
	if (len >= sizeof(*t) && len == table_len_of(h, t))
		return true;
	if (len >= sizeof(*t) && be32_to_cpu(t->n_hosts) > ENCD_WORLD_HOSTS_MAX)
		scnprintf(why, why_len, "its table names %u hosts, more than the %u a world may have",
			  be32_to_cpu(t->n_hosts), ENCD_WORLD_HOSTS_MAX);
	else
		scnprintf(why, why_len, "its table is not one of a world of %u ranks",
			  h->wk.world_size);
	return false;
}

/* The index of the first of @n_hosts table hosts @wh with this host's id, or @n_hosts. */
static u32 table_find_self(const struct encd_host *h, const struct encd_wire_table_host *wh,
			   u32 n_hosts)
{
	u32 i;

	for (i = 0; i < n_hosts; i++)
		if (!memcmp(wh[i].host_id, h->id, ENCD_HOST_ID_LEN))
			break;
	return i;
}

/*
 * A table, read and checked but not yet this host's: host_form() keeps it
 * whole or drops it whole, so that a host whose table failed half-way
 * (out of memory, a lie) is exactly what it was before it came.
 */
struct table_parse {
	struct encd_peer_host *hosts;
	u32 *rank_host;
	u32 n_hosts, self, subtree_staying;
	u64 token;
};

static void table_parse_free(struct table_parse *p)
{
	kvfree(p->hosts);
	kvfree(p->rank_host);
	p->hosts = NULL;
	p->rank_host = NULL;
}

static int host_parse_table(struct encd_host *h, const void *buf, u32 len,
			    struct table_parse *p, char *why, size_t why_len)
{
	const struct encd_wire_table *t = buf;
	const struct encd_wire_table_host *wh;
	char nets[ENCD_NETWORKS_SHOWN];
	struct sockaddr_storage addr;
	const __be32 *wr;
	u32 n_ranks, n_hosts, i, self;
	struct encd_rank *r;
	unsigned long id;
	u32 *seen;

	if (!table_shape_ok(h, t, len, why, why_len))
		return -EPROTO;
	n_ranks = be32_to_cpu(t->n_ranks);
	n_hosts = be32_to_cpu(t->n_hosts);
	memset(p, 0, sizeof(*p));
	p->hosts = table_alloc(n_hosts, sizeof(*p->hosts), GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	p->rank_host = table_alloc(n_ranks, sizeof(u32), GFP_KERNEL_ACCOUNT);
	seen = table_alloc(n_hosts, sizeof(u32), GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!p->hosts || !p->rank_host || !seen) {
		kvfree(seen);
		table_parse_free(p);
		scnprintf(why, why_len, "out of memory for a table of %u hosts", n_hosts);
		return -ENOMEM;
	}
	wh = buf + sizeof(*t);
	wr = (const __be32 *)(wh + n_hosts);
	self = table_find_self(h, wh, n_hosts);
	if (self == n_hosts)
		goto bad;
	for (i = 0; i < n_hosts; i++) {
		/* This host needs no address of its own (a world of one has none). */
		if (encd_addr_from_wire(&wh[i].listen, &addr)) {
			if (i != self)
				goto bad;
			continue;
		}
		/* One form an address has, for encd_host_knows_addr() to compare. */
		encd_addr_to_wire(&addr, &p->hosts[i].addr);
		if (i != self && !memcmp(wh[i].host_id, h->id, ENCD_HOST_ID_LEN))
			goto bad;
		/* The root chose where this host would call: only where it may. */
		if (i != self && !encd_addr_allowed(&addr, &h->wk.root))
			goto outside;
	}
	for (i = 0; i < n_ranks; i++) {
		p->rank_host[i] = be32_to_cpu(wr[i]);
		if (p->rank_host[i] >= n_hosts)
			goto bad;
		seen[p->rank_host[i]]++;
	}
	for (i = 0; i < n_hosts; i++) {
		if (!seen[i])
			goto bad;
		p->hosts[i].staying = seen[i];
		if (encd_tree_within(self, i))
			p->subtree_staying += seen[i];
	}
	xa_for_each(&h->ranks, id, r)
		if (p->rank_host[id] != self)
			goto bad;
	kvfree(seen);
	p->token = be64_to_cpu(t->token);
	p->n_hosts = n_hosts;
	p->self = self;
	return 0;
bad:
	kvfree(seen);
	table_parse_free(p);
	scnprintf(why, why_len, "its table of the world does not add up");
	return -EPROTO;
outside:
	kvfree(seen);
	encd_networks_show(nets, sizeof(nets));
	scnprintf(why, why_len,
		  "its table gives host %u the address %pISc, outside the networks encd may use (networks=%s)",
		  i, &addr, nets);
	table_parse_free(p);
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
	u32 peer;

	list_for_each_entry_safe(l, tmp, &h->links, node) {
		if (!encd_link_is_data(l) || encd_link_initiator(l) || !encd_link_up(l) ||
		    encd_link_awaits_first(l))
			continue;
		peer = encd_link_peer(l);
		if (peer < h->n_hosts && peer != h->index && encd_link_token(l) == h->token)
			continue;
		net_dbg_ratelimited("link from %pISpc: its LINK names no other host of this world\n",
				    encd_link_addr(l));
		encd_link_close(l);
	}
}

/**
 * encd_host_route_ok() - whether a message's route is one its link's host may send
 * @h: this host, which has its table; the caller holds its lock
 * @l: the link the message came on
 * @type: its type
 * @src: the rank it claims to come from
 * @dst: the rank it is for
 * @why: out: what is wrong with it
 * @why_len: size of @why
 *
 * Return: 0, or -EPROTO.
 */
int encd_host_route_ok(struct encd_host *h, struct encd_link *l, u8 type, u32 src, u32 dst,
		       char *why, size_t why_len)
{
	lockdep_assert_held(&h->lock);
	if (src >= h->wk.world_size || dst >= h->wk.world_size ||
	    h->rank_host[src] != encd_link_peer(l) || h->rank_host[dst] != h->index) {
		scnprintf(why, why_len, "it sent %s for a rank that is not its to send for",
			  encd_wire_type_name(type));
		return -EPROTO;
	}
	return 0;
}

/**
 * encd_host_knows_addr() - whether a host of the world is at @addr's host
 * @h: this host; the caller holds its lock
 * @addr: where a connection came from
 *
 * As far as this host knows yet: itself and the root host, the table's
 * hosts, and at the root those that joined.
 *
 * Return: whether one is.
 */
bool encd_host_knows_addr(struct encd_host *h, const struct sockaddr_storage *addr)
{
	struct encd_wire_addr w;
	u32 i;

	lockdep_assert_held(&h->lock);
	if (encd_addr_same_host(&h->listen_addr, addr) || encd_addr_same_host(&h->wk.root, addr))
		return true;
	if (h->root && encd_root_knows_addr(h, addr))
		return true;
	encd_addr_to_wire(addr, &w);
	for (i = 0; h->has_table && i < h->n_hosts; i++)
		if (h->hosts[i].addr.family == w.family &&
		    !memcmp(h->hosts[i].addr.addr, w.addr, sizeof(w.addr)))
			return true;
	return false;
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
		err = encd_host_route_ok(h, l, m->type, m->src, m->dst, why, sizeof(why));
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

/* Forgets a table that came in part. */
static void host_drop_table_in(struct encd_host *h)
{
	kvfree(h->table_in);
	h->table_in = NULL;
	h->table_in_from = NULL;
	h->table_in_len = 0;
	h->table_in_total = 0;
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
	if (h->held_from == l) {
		kvfree(h->held_table);
		h->held_table = NULL;
		h->held_from = NULL;
	}
	if (h->table_in_from == l)
		host_drop_table_in(h);
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
 * encd_host_table_digest() - a TABLE payload's digest, as DIGEST carries it
 * @buf: the payload
 * @len: its length
 * @out: the SHA-256, 32 bytes
 */
void encd_host_table_digest(const void *buf, u32 len, u8 *out)
{
	sha256(buf, len, out);
}

/* The table is here, and it is the root's: the world forms. */
static int host_form(struct encd_host *h, const void *buf, u32 len, struct encd_link *from,
		     char *why, size_t why_len)
{
	struct table_parse p;
	struct encd_rank *r;
	unsigned long id;
	u32 i, c;
	int err;

	err = host_parse_table(h, buf, len, &p, why, why_len);
	if (err)
		return err;
	if (from && from != h->uplink &&
	    (encd_link_token(from) != p.token || encd_link_peer(from) != encd_tree_parent(p.self))) {
		table_parse_free(&p);
		scnprintf(why, why_len, "it is not this host's parent in the host tree");
		return -EPROTO;
	}
	if (from && from != h->uplink && p.self == 0) {
		table_parse_free(&p);
		scnprintf(why, why_len, "it sent the table to the root");
		return -EPROTO;
	}
	/* Whole and checked: only now is it this host's. */
	h->hosts = p.hosts;
	h->rank_host = p.rank_host;
	h->n_hosts = p.n_hosts;
	h->index = p.self;
	h->token = p.token;
	h->subtree_staying = p.subtree_staying;
	h->has_table = true;
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
			encd_table_send(encd_host_out(h, c), buf, len);
	}
	host_judge_trusted_links(h);
	xa_for_each(&h->ranks, id, r)
		encd_engine_world_start(r);
	host_take_pre_table(h);
	return 0;
}

/*
 * Whether a table that came before the root's digest is one this host's
 * parent could send: the sender's LINK named the index and token that are
 * the parent's in it. Only such a table waits for the digest; anyone
 * else's is refused now, naming its sender.
 */
static int host_table_from_parent(struct encd_host *h, const void *buf, u32 len,
				  struct encd_link *from, char *why, size_t why_len)
{
	const struct encd_wire_table *t = buf;
	const struct encd_wire_table_host *wh = buf + sizeof(*t);
	u32 n_hosts = be32_to_cpu(t->n_hosts), i;

	if (!table_shape_ok(h, t, len, why, why_len))
		return -EPROTO;
	i = table_find_self(h, wh, n_hosts);
	if (i == n_hosts) {
		scnprintf(why, why_len, "its table of the world does not add up");
		return -EPROTO;
	}
	if (encd_link_token(from) != be64_to_cpu(t->token) ||
	    encd_link_peer(from) != encd_tree_parent(i)) {
		scnprintf(why, why_len, "it is not this host's parent in the host tree");
		return -EPROTO;
	}
	return 0;
}

/**
 * encd_host_take_table() - the world's table arrived
 * @h: this host; the caller holds its lock
 * @buf: the TABLE payload (the root's own, at the root)
 * @len: its length
 * @from: the link it came on (NULL at the root): the root's control link,
 *	or the data link of this host's parent in the host tree
 * @why: out: what is wrong with it
 * @why_len: size of @why
 *
 * The table goes on to this host's two children in the host tree, then
 * every local rank's world node starts. A table from the parent is taken
 * only once the root's DIGEST of it came, and only if it matches: the
 * parent is a member, and a member could hand its subtree a table of its
 * own making. One that comes first waits for the digest.
 *
 * Return: 0, or a negative errno (a table that does not add up, or that
 * is not the root's: -EPROTO).
 */
int encd_host_take_table(struct encd_host *h, const void *buf, u32 len, struct encd_link *from,
			 char *why, size_t why_len)
{
	u8 digest[SHA256_DIGEST_SIZE];
	int err;

	lockdep_assert_held(&h->lock);
	if (h->has_table || h->held_table) {
		scnprintf(why, why_len, "it sent the table twice");
		return -EPROTO;
	}
	if (!from || from == h->uplink)
		return host_form(h, buf, len, from, why, why_len);
	if (h->root) {
		scnprintf(why, why_len, "it sent the table to the root");
		return -EPROTO;
	}
	if (!h->have_digest) {
		err = host_table_from_parent(h, buf, len, from, why, why_len);
		if (err)
			return err;
		h->held_table = table_alloc(1, len, GFP_KERNEL_ACCOUNT);
		if (!h->held_table)
			return -ENOMEM;
		memcpy(h->held_table, buf, len);
		h->held_len = len;
		h->held_from = from;
		return 0;
	}
	encd_host_table_digest(buf, len, digest);
	if (memcmp(digest, h->digest.sha256, sizeof(digest))) {
		scnprintf(why, why_len, "its table is not the one the root made");
		return -EPROTO;
	}
	return host_form(h, buf, len, from, why, why_len);
}

/**
 * encd_host_table_part() - a TABLE frame arrived: the table, or part of it
 * @h: this host, not the root; the caller holds its lock
 * @buf: the frame's payload
 * @len: its length, at most ENCD_TABLE_PART_MAX (wire.c)
 * @from: the link it came on
 * @why: out: what is wrong with it
 * @why_len: size of @why
 *
 * The first part starts with the table's head, which says how long the
 * whole is; the parts that follow, on the same link, are kept until it is
 * all here (at most the world's table), then encd_host_take_table() takes
 * it. A table in one frame is taken as it is.
 *
 * Return: 0, or a negative errno (-EPROTO: a part that is not the next one
 * of this world's table).
 */
int encd_host_table_part(struct encd_host *h, const void *buf, u32 len, struct encd_link *from,
			 char *why, size_t why_len)
{
	const struct encd_wire_table *t = buf;
	void *table;
	u32 total;
	int err;

	lockdep_assert_held(&h->lock);
	if (!h->table_in) {
		if (h->has_table || h->held_table) {
			scnprintf(why, why_len, "it sent the table twice");
			return -EPROTO;
		}
		total = len >= sizeof(*t) ? table_len_of(h, t) : 0;
		if (len == total)
			return encd_host_take_table(h, buf, len, from, why, why_len);
		if (!total || len > total) {
			/* It is not, and this says why. */
			table_shape_ok(h, t, len, why, why_len);
			return -EPROTO;
		}
		h->table_in = table_alloc(1, total, GFP_KERNEL_ACCOUNT);
		if (!h->table_in)
			return -ENOMEM;
		memcpy(h->table_in, buf, len);
		h->table_in_len = len;
		h->table_in_total = total;
		h->table_in_from = from;
		return 0;
	}
	if (from != h->table_in_from) {
		scnprintf(why, why_len, "it sent part of a table another host began");
		return -EPROTO;
	}
	if (len > h->table_in_total - h->table_in_len) {
		scnprintf(why, why_len, "its table is longer than the one its head announced");
		return -EPROTO;
	}
	memcpy(h->table_in + h->table_in_len, buf, len);
	h->table_in_len += len;
	if (h->table_in_len < h->table_in_total)
		return 0;
	table = h->table_in;
	total = h->table_in_total;
	h->table_in = NULL;		/* taken, not freed */
	host_drop_table_in(h);
	err = encd_host_take_table(h, table, total, from, why, why_len);
	kvfree(table);
	return err;
}

/**
 * encd_table_send() - the table, in as many TABLE frames as it takes
 * @l: the link to a child in the host tree
 * @buf: the TABLE payload, whole
 * @len: its length
 */
void encd_table_send(struct encd_link *l, const void *buf, u32 len)
{
	u32 off, n;

	for (off = 0; off < len; off += n) {
		n = min_t(u32, len - off, ENCD_TABLE_PART_MAX);
		encd_link_send(l, ENCD_WIRE_TABLE, buf + off, n, NULL, 0);
	}
}

/**
 * encd_host_take_digest() - the root's DIGEST of the table arrived
 * @h: this host; the caller holds its lock
 * @buf: the DIGEST payload
 * @len: its length
 * @why: out: what is wrong with it
 * @why_len: size of @why
 *
 * A table from the parent that came first is judged now; what is wrong
 * with it is the parent's doing, and fails the world naming the parent.
 * This host's own want of memory for it is not: it fails the world as
 * this host's failure.
 *
 * Return: 0, or -EPROTO when the root sent the digest twice or to a host
 * it sent the table itself.
 */
int encd_host_take_digest(struct encd_host *h, const void *buf, u32 len, char *why,
			  size_t why_len)
{
	const struct encd_wire_digest *d = buf;
	struct encd_link *from = h->held_from;
	void *table = h->held_table;
	char fwhy[ENCD_MSG_MAX] = "";
	int err;

	lockdep_assert_held(&h->lock);
	if (h->have_digest) {
		scnprintf(why, why_len, "it sent the table's digest twice");
		return -EPROTO;
	}
	if (h->has_table) {
		scnprintf(why, why_len, "it sent the table's digest after the table itself");
		return -EPROTO;
	}
	h->digest = *d;
	h->have_digest = true;
	if (!table)
		return 0;
	h->held_table = NULL;
	h->held_from = NULL;
	err = encd_host_take_table(h, table, h->held_len, from, fwhy, sizeof(fwhy));
	kvfree(table);
	if (err == -EPROTO)
		encd_host_violation(h, from, fwhy[0] ? fwhy : encd_errno_name(err));
	else if (err)
		encd_host_fail_world(h, err, encd_reason_of(err), ENCD_WIRE_NO_RANK, true,
				     "this host could not take the world's table: %s",
				     fwhy[0] ? fwhy : encd_errno_name(err));
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
	if (WARN_ON_ONCE(!h->has_table || dst >= h->wk.world_size || len > sizeof(m->body)))
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
