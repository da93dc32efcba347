// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel TCP for the bootstrap: listeners, peer links, framed and tagged
 * messages, deadlines.
 *
 * Modelled on ksmbd's transport_tcp.c and DRBD's handshake: kernel sockets in
 * the network namespace of the process that formed the world, a fixed
 * big-endian header with magic and version on every frame, receive-all loops,
 * MSG_NOSIGNAL, shutdown then release. Every blocking call runs with the
 * socket timeouts set to what is left of the operation's deadline, so no
 * wait outlives it, and every wait is interruptible: a signal (a dying
 * process) ends it with -EINTR.
 *
 * A peer that sends a wrong magic, version or type, an oversized frame, a
 * frame of the wrong size, or nothing in time is disconnected and the
 * operation fails with a sentence saying which. A stray connection to a
 * listener that does not open with a valid LINK frame is turned away and the
 * world goes on.
 */
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/delay.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/tcp.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "transport.h"

/* Frames a peer may get ahead by, per link, before it is cut off. */
#define STASH_MAX		256
/* How long a new connection has to say who it is. */
#define HANDSHAKE_MS		5000
/* Pause between attempts to reach a root that is not listening yet. */
#define RETRY_MS		50

struct stashed {
	struct list_head node;
	u16 type;
	u32 tag;
	u32 len;
	u8 data[];
};

/* The first frame of a peer link. */
struct encd_link_msg {
	__be64 token;
	__be32 rank;
	__be32 nranks;
} __packed;

static const char *const type_names[ENCD_WIRE_NTYPES] = {
	[ENCD_WIRE_HELLO] = "HELLO",
	[ENCD_WIRE_PEERS] = "the peer table",
	[ENCD_WIRE_REJECT] = "REJECT",
	[ENCD_WIRE_LINK] = "LINK",
	[ENCD_WIRE_SIG] = "a signature",
	[ENCD_WIRE_UID] = "the unique id",
	[ENCD_WIRE_RING] = "the ring proof",
	[ENCD_WIRE_BARRIER] = "a barrier message",
};

static const char *type_name(u16 type)
{
	return type < ENCD_WIRE_NTYPES ? type_names[type] : "?";
}

/* Why a socket operation failed, in words. */
static const char *why(int err)
{
	switch (err) {
	case -ETIMEDOUT:
		return "timed out";
	case -EINTR:
		return "interrupted";
	case -ECONNRESET:
		return "the connection was closed";
	case -ECONNREFUSED:
		return "connection refused";
	case -EPROTO:
		return "it sent a frame with a bad magic, version or type";
	case -EMSGSIZE:
		return "it sent an oversized frame";
	case -EBADMSG:
		return "it sent a frame of the wrong size";
	case -ENOBUFS:
		return "it sent too many frames nobody asked for";
	case -ENOMEM:
		return "out of memory";
	default:
		return "a socket error";
	}
}

int encd_xport_fail(struct encd_xport *x, int err, const char *fmt, ...)
{
	va_list args;

	/* The first failure of an operation is the one worth telling. */
	if (x->err && !x->err[0]) {
		va_start(args, fmt);
		vsnprintf(x->err, x->err_len, fmt, args);
		va_end(args);
	}
	return err;
}

int encd_xport_set_secret(struct encd_xport *x, const u8 *key, u32 len)
{
	struct crypto_shash *tfm;
	int err;

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	err = crypto_shash_setkey(tfm, key, len);
	if (err) {
		crypto_free_shash(tfm);
		return err;
	}
	x->mac = tfm;
	return 0;
}

int encd_xport_mac(struct encd_xport *x, const void *data, u32 len, u8 *mac)
{
	if (!x->mac)
		return 0;
	return crypto_shash_tfm_digest(x->mac, data, len, mac);
}

bool encd_xport_mac_ok(struct encd_xport *x, const void *data, u32 len, const u8 *mac)
{
	u8 want[ENCD_MAC_LEN];
	bool ok;

	if (!x->mac)
		return true;
	ok = !encd_xport_mac(x, data, len, want) && !crypto_memneq(want, mac, ENCD_MAC_LEN);
	memzero_explicit(want, sizeof(want));
	return ok;
}

void encd_xport_begin(struct encd_xport *x, u32 timeout_ms)
{
	x->deadline = jiffies + msecs_to_jiffies(timeout_ms);
	if (x->err)
		x->err[0] = '\0';
}

/* "a.b.c.d:port", "[v6]:port" or "localhost:port"; numeric only. */
int encd_xport_parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *colon, *end;
	u16 port;

	memset(ss, 0, sizeof(*ss));
	colon = strrchr(s, ':');
	if (!colon || kstrtou16(colon + 1, 10, &port) || !port)
		return -EINVAL;
	if (s[0] == '[') {
		if (colon == s || colon[-1] != ']' ||
		    !in6_pton(s + 1, colon - 1 - (s + 1), sin6->sin6_addr.s6_addr, -1, &end) ||
		    end != colon - 1)
			return -EINVAL;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (colon - s == 9 && !strncmp(s, "localhost", 9)) {
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return 0;
	}
	if (!in4_pton(s, colon - s, (u8 *)&sin->sin_addr.s_addr, -1, &end) || end != colon)
		return -EINVAL;
	return 0;
}

static int addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

void encd_addr_to_wire(const struct sockaddr_storage *ss, struct encd_wire_addr *w)
{
	memset(w, 0, sizeof(*w));
	w->family = htons(ss->ss_family);
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		w->port = sin6->sin6_port;
		memcpy(w->addr, &sin6->sin6_addr, 16);
	} else {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		w->port = sin->sin_port;
		memcpy(w->addr, &sin->sin_addr, 4);
	}
}

int encd_addr_from_wire(const struct encd_wire_addr *w, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	switch (ntohs(w->family)) {
	case AF_INET6: {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = w->port;
		memcpy(&sin6->sin6_addr, w->addr, 16);
		break;
	}
	case AF_INET: {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = w->port;
		memcpy(&sin->sin_addr, w->addr, 4);
		break;
	}
	default:
		return -EINVAL;
	}
	return w->port ? 0 : -EINVAL;
}

/* What is left of @deadline, or 0 when it has passed. */
static long left_of(unsigned long deadline)
{
	long left = (long)(deadline - jiffies);

	return left > 0 ? left : 0;
}

static void set_timeouts(struct socket *s, long timeo)
{
	struct sock *sk = s->sk;

	lock_sock(sk);
	WRITE_ONCE(sk->sk_rcvtimeo, timeo);
	WRITE_ONCE(sk->sk_sndtimeo, timeo);
	release_sock(sk);
}

static int sock_errno(int err)
{
	if (err == -ERESTARTSYS || err == -EINTR)
		return -EINTR;
	if (err == -EAGAIN || err == -EINPROGRESS || err == -EALREADY)
		return -ETIMEDOUT;
	if (err == -EPIPE || err == -ENOTCONN)
		return -ECONNRESET;
	return err;
}

void encd_sock_close(struct socket *sock)
{
	if (!sock)
		return;
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}

int encd_sock_listen(struct net *net, const struct sockaddr_storage *addr, struct socket **res)
{
	struct socket *s;
	int err;

	err = sock_create_kern(net, addr->ss_family, SOCK_STREAM, IPPROTO_TCP, &s);
	if (err)
		return err;
	sock_set_reuseaddr(s->sk);
	err = kernel_bind(s, (struct sockaddr *)addr, addr_len(addr));
	if (!err)
		err = kernel_listen(s, SOMAXCONN);
	if (err) {
		sock_release(s);
		return err;
	}
	*res = s;
	return 0;
}

/*
 * Whether a connection to a local port that nobody listens on picked that
 * very port as its source and connected to itself (TCP simultaneous open):
 * a rank retrying a root that is not up yet on loopback can do that.
 */
static bool self_connected(struct socket *s)
{
	struct sockaddr_storage local, peer;
	int llen, plen;

	llen = kernel_getsockname(s, (struct sockaddr *)&local);
	plen = kernel_getpeername(s, (struct sockaddr *)&peer);
	return llen > 0 && llen == plen && !memcmp(&local, &peer, llen);
}

int encd_sock_connect(struct encd_xport *x, const struct sockaddr_storage *addr, bool retry,
		     struct socket **res)
{
	struct socket *s;
	long left;
	int err;

	for (;;) {
		left = left_of(x->deadline);
		if (!left)
			return -ETIMEDOUT;
		if (signal_pending(current))
			return -EINTR;
		err = sock_create_kern(x->net, addr->ss_family, SOCK_STREAM, IPPROTO_TCP, &s);
		if (err)
			return err;
		tcp_sock_set_nodelay(s->sk);
		set_timeouts(s, left);
		/* So that a dead attempt never keeps the root from binding its port. */
		sock_set_reuseaddr(s->sk);
		err = kernel_connect(s, (struct sockaddr *)addr, addr_len(addr), 0);
		if (!err && !self_connected(s)) {
			*res = s;
			return 0;
		}
		if (!err) {
			/* Connected to itself: nobody listens there (yet). Reset it. */
			sock_no_linger(s->sk);
			err = -ECONNREFUSED;
		}
		sock_release(s);
		err = sock_errno(err);
		if (!retry || (err != -ECONNREFUSED && err != -ECONNRESET))
			return err;
		if (msleep_interruptible(min_t(unsigned long, RETRY_MS,
					       jiffies_to_msecs(left_of(x->deadline)) + 1)))
			return -EINTR;
	}
}

int encd_sock_accept(struct encd_xport *x, struct socket **res)
{
	long left = left_of(x->deadline);
	int err;

	if (!left)
		return -ETIMEDOUT;
	set_timeouts(x->listener, left);
	err = kernel_accept(x->listener, res, 0);
	if (err)
		return sock_errno(err);
	tcp_sock_set_nodelay((*res)->sk);
	return 0;
}

static int send_buf(struct socket *s, unsigned long deadline, const void *buf, size_t len,
		    int flags)
{
	while (len) {
		struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | flags };
		long left = left_of(deadline);
		int n;

		if (!left)
			return -ETIMEDOUT;
		set_timeouts(s, left);
		n = kernel_sendmsg(s, &msg, &iov, 1, len);
		if (n < 0) {
			n = sock_errno(n);
			if (n == -ETIMEDOUT)
				continue;
			return n;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

static int recv_buf(struct socket *s, unsigned long deadline, void *buf, size_t len)
{
	while (len) {
		struct kvec iov = { .iov_base = buf, .iov_len = len };
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		long left = left_of(deadline);
		int n;

		if (!left)
			return -ETIMEDOUT;
		set_timeouts(s, left);
		n = kernel_recvmsg(s, &msg, &iov, 1, len, MSG_NOSIGNAL | MSG_WAITALL);
		if (!n)
			return -ECONNRESET;
		if (n < 0) {
			n = sock_errno(n);
			if (n == -ETIMEDOUT)
				continue;
			return n;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

int encd_frame_send(struct encd_xport *x, struct socket *s, u16 type, u32 tag,
		   const void *buf, u32 len)
{
	struct encd_frame_hdr h = {
		.magic = htonl(ENCD_FRAME_MAGIC),
		.version = htons(ENCD_FRAME_VERSION),
		.type = htons(type),
		.tag = htonl(tag),
		.length = htonl(len),
	};
	int err;

	err = send_buf(s, x->deadline, &h, sizeof(h), len ? MSG_MORE : 0);
	if (!err && len)
		err = send_buf(s, x->deadline, buf, len, 0);
	return err;
}

int encd_frame_recv(struct encd_xport *x, struct socket *s, unsigned long deadline,
		   struct encd_frame_hdr *h, void **bufp, u32 max)
{
	void *buf;
	u32 len;
	int err;

	*bufp = NULL;
	err = recv_buf(s, deadline, h, sizeof(*h));
	if (err)
		return err;
	if (ntohl(h->magic) != ENCD_FRAME_MAGIC || ntohs(h->version) != ENCD_FRAME_VERSION ||
	    ntohs(h->type) >= ENCD_WIRE_NTYPES)
		return -EPROTO;
	len = ntohl(h->length);
	if (len > max)
		return -EMSGSIZE;
	buf = kvmalloc(len ?: 1, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = recv_buf(s, deadline, buf, len);
	if (err) {
		kvfree(buf);
		return err;
	}
	*bufp = buf;
	return 0;
}

int encd_xport_links_init(struct encd_xport *x)
{
	u32 i;

	x->in = kvcalloc(x->nranks, sizeof(*x->in), GFP_KERNEL);
	x->out = kvcalloc(x->nranks, sizeof(*x->out), GFP_KERNEL);
	if (!x->in || !x->out)
		return -ENOMEM;
	for (i = 0; i < x->nranks; i++) {
		INIT_LIST_HEAD(&x->in[i].stash);
		INIT_LIST_HEAD(&x->out[i].stash);
	}
	return 0;
}

static void link_drop(struct encd_link *l)
{
	struct stashed *f, *tmp;

	encd_sock_close(l->sock);
	l->sock = NULL;
	list_for_each_entry_safe(f, tmp, &l->stash, node) {
		list_del(&f->node);
		kvfree(f);
	}
	l->stash_n = 0;
}

static void count(struct encd_msg_stats *st, u16 type, u32 len, bool sent)
{
	struct encd_msg_tally *c;
	unsigned int i;

	if (!st)
		return;
	for (i = 0; i < st->n; i++)
		if (st->c[i].type == type && st->c[i].size == len)
			break;
	if (i == st->n) {
		/* Full: the bootstrap uses far fewer kinds than there is room for. */
		if (WARN_ON_ONCE(st->n == ENCD_COUNTERS_MAX))
			return;
		st->n++;
		st->c[i].type = type;
		st->c[i].size = len;
	}
	c = &st->c[i];
	if (sent)
		c->tx++;
	else
		c->rx++;
}

/*
 * Takes the next connection on the listener. One that opens with a valid
 * LINK frame for a rank not linked yet becomes that rank's in-link; any other
 * is turned away, and the world goes on.
 */
static int accept_link(struct encd_xport *x)
{
	struct encd_link_msg *m;
	struct encd_frame_hdr h;
	unsigned long hs;
	struct socket *s;
	void *buf;
	u32 rank;
	int err;

	err = encd_sock_accept(x, &s);
	if (err)
		return err;

	hs = jiffies + msecs_to_jiffies(HANDSHAKE_MS);
	if (time_after(hs, x->deadline))
		hs = x->deadline;
	err = encd_frame_recv(x, s, hs, &h, &buf, sizeof(*m) + ENCD_MAC_LEN);
	if (err == -EINTR) {
		encd_sock_close(s);
		return err;
	}
	m = buf;
	rank = m && ntohl(h.length) == sizeof(*m) + encd_xport_mac_len(x) &&
	       encd_xport_mac_ok(x, m, sizeof(*m), (u8 *)(m + 1)) ? ntohl(m->rank) : U32_MAX;
	if (err || ntohs(h.type) != ENCD_WIRE_LINK || rank >= x->nranks ||
	    be64_to_cpu(m->token) != x->token || ntohl(m->nranks) != x->nranks ||
	    rank == x->rank || x->in[rank].sock) {
		x->rejected++;
		pr_info_ratelimited("rank %u: turned away a connection that is no peer of its world (%d)\n",
				    x->rank, err);
		kvfree(buf);
		encd_sock_close(s);
		return 0;
	}
	kvfree(buf);
	x->in[rank].sock = s;
	return 0;
}

int encd_xport_recv(struct encd_xport *x, u32 peer, u16 type, u32 tag, void *buf, u32 len,
		   struct encd_msg_stats *st)
{
	struct encd_link *l = &x->in[peer];
	struct encd_frame_hdr h;
	struct stashed *f;
	void *p;
	int err;

	list_for_each_entry(f, &l->stash, node) {
		if (f->type != type || f->tag != tag)
			continue;
		list_del(&f->node);
		l->stash_n--;
		err = f->len == len ? 0 : -EBADMSG;
		if (!err)
			memcpy(buf, f->data, len);
		kvfree(f);
		if (err)
			goto drop;
		count(st, type, len, false);
		return 0;
	}

	while (!l->sock) {
		err = accept_link(x);
		if (err)
			return encd_xport_fail(x, err, "rank %u: waiting for rank %u to connect: %s",
					      x->rank, peer, why(err));
	}

	for (;;) {
		err = encd_frame_recv(x, l->sock, x->deadline, &h, &p, ENCD_FRAME_MAX);
		if (err)
			goto drop;
		if (ntohs(h.type) == type && ntohl(h.tag) == tag) {
			err = ntohl(h.length) == len ? 0 : -EBADMSG;
			if (!err)
				memcpy(buf, p, len);
			kvfree(p);
			if (err)
				goto drop;
			count(st, type, len, false);
			return 0;
		}
		if (l->stash_n >= STASH_MAX) {
			kvfree(p);
			err = -ENOBUFS;
			goto drop;
		}
		f = kvmalloc(struct_size(f, data, ntohl(h.length)), GFP_KERNEL);
		if (!f) {
			kvfree(p);
			err = -ENOMEM;
			goto drop;
		}
		f->type = ntohs(h.type);
		f->tag = ntohl(h.tag);
		f->len = ntohl(h.length);
		memcpy(f->data, p, f->len);
		kvfree(p);
		list_add_tail(&f->node, &l->stash);
		l->stash_n++;
	}

drop:
	/* A timeout or a signal says nothing against the peer: keep the link. */
	if (err != -ETIMEDOUT && err != -EINTR)
		link_drop(l);
	return encd_xport_fail(x, err, "rank %u: receiving %s from rank %u: %s", x->rank,
			      type_name(type), peer, why(err));
}

int encd_xport_link(struct encd_xport *x, u32 peer)
{
	struct encd_link *l = &x->out[peer];
	struct {
		struct encd_link_msg m;
		u8 mac[ENCD_MAC_LEN];
	} __packed link = {
		.m.token = cpu_to_be64(x->token),
		.m.rank = htonl(x->rank),
		.m.nranks = htonl(x->nranks),
	};
	struct socket *s;
	int err;

	if (l->sock)
		return 0;
	err = encd_xport_mac(x, &link.m, sizeof(link.m), link.mac);
	if (err)
		return encd_xport_fail(x, err, "rank %u: cannot sign a link (%d)", x->rank, err);
	err = encd_sock_connect(x, &x->peer_addr[peer], false, &s);
	if (err)
		return encd_xport_fail(x, err, "rank %u: connecting to rank %u at %pISpc: %s",
				      x->rank, peer, &x->peer_addr[peer], why(err));
	l->sock = s;
	err = encd_frame_send(x, s, ENCD_WIRE_LINK, 0, &link, sizeof(link.m) + encd_xport_mac_len(x));
	if (err) {
		link_drop(l);
		return encd_xport_fail(x, err, "rank %u: opening a link to rank %u: %s", x->rank,
				      peer, why(err));
	}
	return 0;
}

int encd_xport_send(struct encd_xport *x, u32 peer, u16 type, u32 tag, const void *buf,
		   u32 len, struct encd_msg_stats *st)
{
	struct encd_link *l = &x->out[peer];
	int err;

	err = encd_xport_link(x, peer);
	if (err)
		return err;
	err = encd_frame_send(x, l->sock, type, tag, buf, len);
	if (err) {
		link_drop(l);
		return encd_xport_fail(x, err, "rank %u: sending %s to rank %u: %s", x->rank,
				      type_name(type), peer, why(err));
	}
	count(st, type, len, true);
	return 0;
}

void encd_xport_destroy(struct encd_xport *x)
{
	u32 i;

	if (x->in && x->out) {
		for (i = 0; i < x->nranks; i++) {
			link_drop(&x->in[i]);
			link_drop(&x->out[i]);
		}
	}
	kvfree(x->in);
	kvfree(x->out);
	x->in = NULL;
	x->out = NULL;
	encd_sock_close(x->listener);
	x->listener = NULL;
	kvfree(x->peer_addr);
	x->peer_addr = NULL;
	if (x->mac)
		crypto_free_shash(x->mac);
	x->mac = NULL;
	if (x->net)
		put_net(x->net);
	x->net = NULL;
}
