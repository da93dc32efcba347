// SPDX-License-Identifier: GPL-2.0
/*
 * Links: the authenticated TCP connections between host agents, and the
 * listeners that accept them.
 *
 * Nothing here ever waits for the network. Sockets are non-blocking and
 * their callbacks (data ready, state change, write space) only queue work:
 * one delayed work per link drives its connect, handshake, receive and
 * deadlines, one work sends its queue. So no peer, however slow or silent,
 * holds a thread, a lock or another link up; each connection costs only
 * itself and its own deadline.
 *
 * A frame is judged before anything is done for it: its header first (the
 * magic and version, a type the link's state allows, a length that type
 * allows), then, on an authenticated link, its tag. Only then does the host
 * see it (encd_host_frame()). A stranger can make a listener do exactly
 * this: accept, read at most one HELLO and one PROOF, and answer one
 * CHALLENGE, within ENCD_HANDSHAKE_MS, and at most ENCD_PENDING_MAX
 * strangers are waited for at once (the oldest that said nothing goes
 * first).
 *
 * Lifetime: a link is on its host's list from birth; closing it (always
 * under the host's lock) takes it off, marks it dead and queues its free
 * work, which detaches the socket's callbacks, waits for the link's works,
 * sends what was queued before the close as far as the socket takes it at
 * once, shuts the socket down and frees it. The works look at nothing once
 * the link is dead.
 */
#include <crypto/hash.h>
#include <linux/inet.h>
#include <linux/memcontrol.h>
#include <linux/net.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "encd_private.h"

static struct workqueue_struct *encd_wq;

/* Where a link's handshake is. */
enum link_phase {
	LINK_CONNECTING,	/* initiator: the TCP connect */
	LINK_AWAIT_HELLO,	/* responder */
	LINK_AWAIT_CHALLENGE,	/* initiator, HELLO sent */
	LINK_AWAIT_PROOF,	/* responder, CHALLENGE sent */
	LINK_AWAIT_WELCOME,	/* initiator, PROOF sent */
	LINK_UP,		/* authenticated both ways */
};

/* One frame on a link's send queue. */
struct encd_txframe {
	struct list_head node;
	u32 len;		/* header and payload, then the tag once made */
	bool raw;		/* a handshake frame: no tag */
	u8 data[];
};

/* Give up on a root that does not listen at a slower pace after this. */
#define RETRY_FAST_MS	2000
#define RETRY_SLOW_MS	500
/* What one link may have queued to send before its peer is deemed stuck. */
#define TX_QUEUED_MAX	(8U << 20)
/* Frames one run of a link's work reads before it yields. */
#define RX_BATCH	64

/* A socket address's length for bind and connect. */
static int addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

/* Callbacks: softirq context, with the socket's callback lock for reading. */

static struct encd_link *sk_link(struct sock *sk)
{
	return sk->sk_user_data;
}

static void link_data_ready(struct sock *sk)
{
	struct encd_link *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = sk_link(sk);
	if (l)
		mod_delayed_work(encd_wq, &l->work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void link_state_change(struct sock *sk)
{
	struct encd_link *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = sk_link(sk);
	if (l) {
		mod_delayed_work(encd_wq, &l->work, 0);
		l->saved_state_change(sk);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void link_write_space(struct sock *sk)
{
	struct encd_link *l;

	read_lock_bh(&sk->sk_callback_lock);
	l = sk_link(sk);
	if (l) {
		if (sk_stream_is_writeable(sk))
			queue_work(encd_wq, &l->tx_work);
		l->saved_write_space(sk);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void link_attach(struct encd_link *l, struct socket *sock)
{
	struct sock *sk = sock->sk;

	/*
	 * First: from the callbacks on, data that comes runs the link's work,
	 * maybe on another CPU at once (the unlock below runs softirqs), and
	 * the work reads the socket.
	 */
	l->sock = sock;
	write_lock_bh(&sk->sk_callback_lock);
	l->saved_data_ready = sk->sk_data_ready;
	l->saved_state_change = sk->sk_state_change;
	l->saved_write_space = sk->sk_write_space;
	sk->sk_user_data = l;
	sk->sk_data_ready = link_data_ready;
	sk->sk_state_change = link_state_change;
	sk->sk_write_space = link_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void link_detach(struct encd_link *l)
{
	struct sock *sk;

	if (!l->sock)
		return;
	sk = l->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == l) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = l->saved_data_ready;
		sk->sk_state_change = l->saved_state_change;
		sk->sk_write_space = l->saved_write_space;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Shuts a socket down and lets it go (callbacks already detached). What the
 * peer sent and nobody read is read and dropped first, up to a bound:
 * closing a TCP socket with unread data resets the connection, and a reset
 * throws away what this end had yet to send, such as the last frame of a
 * rank that finished first and left, which its peers still wait for.
 */
static void sock_drop(struct socket *sock)
{
	char buf[512];
	int i;

	if (!sock)
		return;
	for (i = 0; i < 128; i++) {
		struct kvec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

		if (kernel_recvmsg(sock, &msg, &iov, 1, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
	}
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}

static void frames_free(struct list_head *q)
{
	struct encd_txframe *f, *tmp;

	list_for_each_entry_safe(f, tmp, q, node) {
		list_del(&f->node);
		kfree(f);
	}
}

static void link_reset_rx(struct encd_link *l)
{
	if (l->rx_buf != l->rx_small)
		kvfree(l->rx_buf);
	l->rx_buf = l->rx_small;
	l->rx_got = 0;
	l->rx_need = sizeof(struct encd_wire_hdr);
}

static void link_send_queue(struct encd_link *l, bool last);

/*
 * Waits until neither work of a dead link runs or is queued. A work that
 * saw the link alive may queue the other once: twice. The socket is
 * non-blocking, so no work waits for the peer.
 */
static void link_cancel_works(struct encd_link *l)
{
	int round;

	for (round = 0; round < 2; round++) {
		cancel_delayed_work_sync(&l->work);
		cancel_work_sync(&l->tx_work);
	}
}

/* The keys of a handshake: a retry draws new ones. */
static void link_free_keys(struct encd_link *l)
{
	if (l->rx_tfm)
		crypto_free_shash(l->rx_tfm);
	if (l->tx_next)
		crypto_free_shash(l->tx_next);
	if (l->tx_tfm)
		crypto_free_shash(l->tx_tfm);
	l->rx_tfm = NULL;
	l->tx_next = NULL;
	l->tx_tfm = NULL;
	l->rx_seq = 0;
}

static void link_free_work(struct work_struct *w)
{
	struct encd_link *l = container_of(w, struct encd_link, free_work);
	struct encd_host *h = l->host;

	/*
	 * The works first: one that saw the link alive may be dropping its
	 * socket for another attempt (link_retry()). Then the callbacks go,
	 * and what they queued meanwhile finds the link dead.
	 */
	link_cancel_works(l);
	link_detach(l);
	link_cancel_works(l);
	/*
	 * What its host said last (the world failed: DEATH, REJECT) goes
	 * before the FIN, if the socket takes it now: a host whose ranks
	 * failed and left at once must still have told the others why.
	 */
	if (l->sock && l->tx_tfm)
		link_send_queue(l, true);
	sock_drop(l->sock);
	frames_free(&l->hs_q);
	frames_free(&l->tx_q);
	kfree(l->tx_cur);
	link_reset_rx(l);
	link_free_keys(l);
	memzero_explicit(l->nonce_i, sizeof(l->nonce_i));
	memzero_explicit(l->nonce_r, sizeof(l->nonce_r));
	kfree(l);
	encd_host_put(h);
}

/**
 * encd_link_close() - takes a link out of its host and frees it
 * @l: the link; the caller holds its host's lock
 *
 * Returns at once: the socket is shut and the link freed in the background.
 */
void encd_link_close(struct encd_link *l)
{
	struct encd_host *h = l->host;

	lockdep_assert_held(&h->lock);
	if (l->dead)
		return;
	WRITE_ONCE(l->dead, true);
	list_del(&l->node);
	/* Nothing sends on it any more. */
	if (l->purpose == ENCD_LINK_DATA && l->initiator)
		encd_host_out_gone(h, l->peer, l);
	if (!list_empty(&l->pending)) {
		list_del_init(&l->pending);
		h->n_pending--;
	}
	/* The messages it brought early point at it: they go first. */
	encd_engine_link_gone(h, l);
	queue_work(encd_wq, &l->free_work);
}

/**
 * encd_link_idle() - whether a link has sent everything its peer needs
 * @l: the link
 *
 * Return: true when nothing waits to be sent but the news of departures
 * (encd_link_send_news()) queued after the last of the rest.
 */
bool encd_link_idle(struct encd_link *l)
{
	bool idle;

	spin_lock_bh(&l->tx_lock);
	idle = l->tx_queued <= l->tx_news_tail;
	spin_unlock_bh(&l->tx_lock);
	return idle;
}

/**
 * encd_link_delivered() - whether the peer has all that was queued
 * @l: the link; the caller holds its host's lock
 *
 * Return: true when nothing waits to be sent and the peer acknowledged
 * every byte sent, or when nothing more can go.
 */
bool encd_link_delivered(struct encd_link *l)
{
	const struct tcp_sock *tp;
	size_t queued;

	lockdep_assert_held(&l->host->lock);
	if (l->dead || READ_ONCE(l->tx_err))
		return true;
	spin_lock_bh(&l->tx_lock);
	queued = l->tx_queued;
	spin_unlock_bh(&l->tx_lock);
	if (queued)
		return false;
	/* Up, it keeps its socket: only a handshake's retry swaps it. */
	if (!l->up || !l->sock)
		return true;
	tp = tcp_sk(l->sock->sk);
	return READ_ONCE(tp->snd_una) == READ_ONCE(tp->write_seq);
}

/* What the host knows of a link, and what it learns. */

/**
 * encd_link_is_data() - whether a link is a data link, not a control link
 * @l: the link
 *
 * Return: whether it is.
 */
bool encd_link_is_data(const struct encd_link *l)
{
	return l->purpose == ENCD_LINK_DATA;
}

/**
 * encd_link_initiator() - whether this host opened a link
 * @l: the link
 *
 * Return: whether it did.
 */
bool encd_link_initiator(const struct encd_link *l)
{
	return l->initiator;
}

/**
 * encd_link_addr() - a link's peer: where it connects, or who called
 * @l: the link
 *
 * Return: the address.
 */
const struct sockaddr_storage *encd_link_addr(const struct encd_link *l)
{
	return &l->addr;
}

/**
 * encd_link_local_addr() - the address this end of a link has
 * @l: the link, connected
 * @ss: out: the address
 *
 * Return: 0, or a negative errno.
 */
int encd_link_local_addr(struct encd_link *l, struct sockaddr_storage *ss)
{
	int err = kernel_getsockname(l->sock, (struct sockaddr *)ss);

	return err < 0 ? err : 0;
}

/**
 * encd_link_up() - whether a link's handshake finished
 * @l: the link; the caller holds its host's lock
 *
 * Return: whether it did.
 */
bool encd_link_up(const struct encd_link *l)
{
	return l->up;
}

/**
 * encd_link_handshake_ns() - how long a link took to come up
 * @l: the link; the caller holds its host's lock
 *
 * Return: nanoseconds from its making (its first connect, or the call that
 * came in) to the end of its handshake; 0 while it is not up.
 */
u64 encd_link_handshake_ns(const struct encd_link *l)
{
	return l->up ? l->handshake_ns : 0;
}

/**
 * encd_link_rtt_us() - a link's round-trip time, as TCP measures it
 * @l: the link; the caller holds its host's lock
 *
 * Return: the smoothed RTT of its socket in microseconds; 0 while it is
 * not up.
 */
u32 encd_link_rtt_us(const struct encd_link *l)
{
	/* Up, it keeps its socket: only a handshake's retry swaps it. */
	if (!l->up || !l->sock)
		return 0;
	return READ_ONCE(tcp_sk(l->sock->sk)->srtt_us) >> 3;
}

/**
 * encd_link_awaits_first() - whether a responder waits for JOIN or LINK
 * @l: the link; the caller holds its host's lock
 *
 * Return: whether its peer has not yet said who it is.
 */
bool encd_link_awaits_first(const struct encd_link *l)
{
	return l->awaiting_first;
}

/**
 * encd_link_said_who() - a responder's peer said who it is (JOIN or LINK)
 * @l: the link; the caller holds its host's lock
 *
 * Its handshake's deadline no longer runs.
 */
void encd_link_said_who(struct encd_link *l)
{
	lockdep_assert_held(&l->host->lock);
	l->awaiting_first = false;
}

/**
 * encd_link_peer() - the host index of a link's peer
 * @l: the link; the caller holds its host's lock
 *
 * Return: the index, or U32_MAX when the link has none.
 */
u32 encd_link_peer(const struct encd_link *l)
{
	return l->peer;
}

/**
 * encd_link_token() - the world token a data link's LINK claimed
 * @l: the link; the caller holds its host's lock
 *
 * Return: the token, or 0.
 */
u64 encd_link_token(const struct encd_link *l)
{
	return l->link_token;
}

/**
 * encd_link_set_peer() - which host a data link goes to, or comes from
 * @l: the link; the caller holds its host's lock
 * @index: the host's index in the table
 * @token: the world token its LINK claimed (0 on a link this host opened)
 */
void encd_link_set_peer(struct encd_link *l, u32 index, u64 token)
{
	lockdep_assert_held(&l->host->lock);
	l->peer = index;
	l->link_token = token;
}

/*
 * The link failed on its own (the peer, the network, a deadline): the host
 * decides what that means for the world, then the link goes.
 */
static __printf(3, 4) void link_failed(struct encd_link *l, int err, const char *fmt, ...)
{
	struct encd_host *h = l->host;
	char why[ENCD_MSG_MAX];
	va_list args;

	va_start(args, fmt);
	vscnprintf(why, sizeof(why), fmt, args);
	va_end(args);

	mutex_lock(&h->lock);
	if (!l->dead) {
		net_dbg_ratelimited("link %s %pISpc: %s (%d)\n",
				    l->initiator ? "to" : "from", &l->addr, why, err);
		encd_host_link_down(h, l, err, why);
		encd_link_close(l);
	}
	mutex_unlock(&h->lock);
}

static struct encd_link *link_alloc(struct encd_host *h, u32 purpose, bool initiator)
{
	struct encd_link *l;

	l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	if (!l)
		return NULL;
	l->host = encd_host_get(h);
	l->purpose = purpose;
	l->initiator = initiator;
	l->peer = U32_MAX;
	l->opened_ns = ktime_get_boottime_ns();
	INIT_LIST_HEAD(&l->node);
	INIT_LIST_HEAD(&l->pending);
	spin_lock_init(&l->tx_lock);
	INIT_LIST_HEAD(&l->hs_q);
	INIT_LIST_HEAD(&l->tx_q);
	INIT_DELAYED_WORK(&l->work, encd_link_work);
	INIT_WORK(&l->tx_work, encd_link_tx_work);
	INIT_WORK(&l->free_work, link_free_work);
	link_reset_rx(l);
	return l;
}

/* Sending */

/* Where link_queue() puts a frame, and what it is. */
enum {
	LINK_Q_RAW = BIT(0),	/* a handshake frame: unauthenticated, first */
	LINK_Q_FIRST = BIT(1),	/* ahead of every authenticated frame */
	LINK_Q_NEWS = BIT(2),	/* a departure, which a host that left needs not hear */
};

static int link_queue(struct encd_link *l, unsigned int how, u8 type, const void *a, u32 alen,
		      const void *b, u32 blen)
{
	bool raw = how & LINK_Q_RAW;
	struct encd_wire_hdr *hdr;
	struct encd_txframe *f;
	u32 len = sizeof(*hdr) + alen + blen;
	int err = 0;

	f = kmalloc(struct_size(f, data, len + ENCD_TAG_LEN), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	hdr = (void *)f->data;
	hdr->magic = cpu_to_be32(ENCD_WIRE_MAGIC);
	hdr->version = ENCD_WIRE_VERSION;
	hdr->type = type;
	hdr->flags = 0;
	hdr->len = cpu_to_be32(alen + blen);
	memcpy(f->data + sizeof(*hdr), a, alen);
	if (blen)
		memcpy(f->data + sizeof(*hdr) + alen, b, blen);
	f->len = len;
	f->raw = raw;

	spin_lock_bh(&l->tx_lock);
	if (l->tx_queued + len > TX_QUEUED_MAX) {
		err = -ENOBUFS;
	} else {
		l->tx_queued += len;
		if (raw) {
			list_add_tail(&f->node, &l->hs_q);
		} else if (how & LINK_Q_FIRST) {
			list_add(&f->node, &l->tx_q);
		} else {
			list_add_tail(&f->node, &l->tx_q);
			l->tx_news_tail = how & LINK_Q_NEWS ? l->tx_news_tail + len : 0;
		}
	}
	spin_unlock_bh(&l->tx_lock);
	if (err) {
		kfree(f);
		return err;
	}
	if (!READ_ONCE(l->dead))
		queue_work(encd_wq, &l->tx_work);
	return 0;
}

/**
 * encd_link_send() - queues an authenticated frame on a link
 * @l: the link, in any state: frames wait for the handshake
 * @type: enum encd_wire_type
 * @a: the payload's first part
 * @alen: its length
 * @b: its second part, or NULL
 * @blen: its length
 *
 * Return: 0, -ENOMEM, or -ENOBUFS when the peer has not read what was
 * queued before (the caller treats the link as failed).
 */
int encd_link_send(struct encd_link *l, u8 type, const void *a, u32 alen, const void *b,
		   u32 blen)
{
	return link_queue(l, 0, type, a, alen, b, blen);
}

/**
 * encd_link_send_depart() - queues a DEPART on a link
 * @l: the link
 * @p: the payload: blocks (news.c)
 * @len: its length
 * @news: as news on a data link: a peer that closes the link before it is
 *	sent loses nothing it needs (encd_link_idle())
 *
 * Return: as encd_link_send().
 */
int encd_link_send_depart(struct encd_link *l, const void *p, u32 len, bool news)
{
	return link_queue(l, news ? LINK_Q_NEWS : 0, ENCD_WIRE_DEPART, p, len, NULL, 0);
}

/**
 * encd_link_send_first() - queues the frame that must open a link
 * @l: the link, whose handshake just finished
 * @type: ENCD_WIRE_JOIN or ENCD_WIRE_LINK
 * @p: the payload
 * @len: its length
 *
 * It goes before every frame queued while the link was being opened.
 *
 * Return: as encd_link_send().
 */
int encd_link_send_first(struct encd_link *l, u8 type, const void *p, u32 len)
{
	return link_queue(l, LINK_Q_FIRST, type, p, len, NULL, 0);
}

/*
 * Sends what the socket takes of the queue. @last is the free work's one
 * pass over a closed link: it sends, without waiting, what was queued
 * before the close (a DEATH or REJECT the host queued just before it shut
 * down), and reports nothing.
 */
static void link_send_queue(struct encd_link *l, bool last)
{
	struct encd_txframe *f;
	int n, err;

	for (;;) {
		if ((!last && READ_ONCE(l->dead)) || READ_ONCE(l->tx_err) ||
		    READ_ONCE(l->tx_paused))
			return;
		f = l->tx_cur;
		if (!f) {
			spin_lock_bh(&l->tx_lock);
			f = list_first_entry_or_null(&l->hs_q, struct encd_txframe, node);
			if (!f && l->tx_tfm)
				f = list_first_entry_or_null(&l->tx_q, struct encd_txframe, node);
			if (f)
				list_del(&f->node);
			spin_unlock_bh(&l->tx_lock);
			if (!f)
				return;
			if (!f->raw) {
				err = encd_auth_tag(l->tx_tfm, l->tx_seq++, f->data, f->len,
						    f->data + f->len);
				if (err) {
					kfree(f);
					if (!last)
						link_failed(l, err, "cannot tag a frame: %s",
							    encd_errno_name(err));
					return;
				}
				f->len += ENCD_TAG_LEN;
			}
			l->tx_cur = f;
			l->tx_off = 0;
		}
		if (!l->sock)
			return;
		n = encd_fault(ENCD_FAULT_SEND);
		if (!n) {
			struct kvec iov = {
				.iov_base = f->data + l->tx_off,
				.iov_len = f->len - l->tx_off,
			};
			struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };

			n = kernel_sendmsg(l->sock, &msg, &iov, 1, iov.iov_len);
		}
		if (n == -EAGAIN)
			return;
		if (n < 0) {
			/*
			 * The peer may have said its last words (a departure)
			 * before it closed: the receiving side reads them
			 * first, then judges the link (link_step()).
			 */
			l->tx_err_type = f->data[5];
			/* Pairs with link_step()'s: the type is read after. */
			smp_store_release(&l->tx_err, n);
			if (!last)
				mod_delayed_work(encd_wq, &l->work, 0);
			return;
		}
		l->tx_off += n;
		if (l->tx_off < f->len)
			continue;
		spin_lock_bh(&l->tx_lock);
		l->tx_queued -= min_t(size_t, l->tx_queued,
				      f->raw ? f->len : f->len - ENCD_TAG_LEN);
		spin_unlock_bh(&l->tx_lock);
		atomic64_add(f->len, &l->host->sent_bytes);
		kfree(f);
		l->tx_cur = NULL;
	}
}

/**
 * encd_link_tx_work() - sends a link's queue, as far as the socket takes it
 * @w: the link's tx_work
 *
 * Handshake frames first, then, once the link has its keys, the others,
 * each tagged as it is sent (the tag covers its sequence number).
 */
void encd_link_tx_work(struct work_struct *w)
{
	struct encd_link *l = container_of(w, struct encd_link, tx_work);
	struct mem_cgroup *old = set_active_memcg(l->host->memcg);

	link_send_queue(l, false);
	set_active_memcg(old);
}

/* Connecting */

/*
 * Whether a connection to a local port that nobody listens on picked that
 * very port as its source and connected to itself (TCP simultaneous open):
 * a host retrying a root that is not up yet on loopback can do that.
 */
static bool self_connected(struct socket *s)
{
	struct sockaddr_storage local, peer;
	int llen, plen;

	llen = kernel_getsockname(s, (struct sockaddr *)&local);
	plen = kernel_getpeername(s, (struct sockaddr *)&peer);
	return llen > 0 && llen == plen && !memcmp(&local, &peer, llen);
}

/*
 * One step of an initiator's connect: 0 once established, -EINPROGRESS
 * while it goes on, or why it failed.
 */
static int link_connect_step(struct encd_link *l)
{
	struct encd_host *h = l->host;
	struct socket *sock;
	int state, err;

	if (!l->sock) {
		err = encd_fault(ENCD_FAULT_SOCK_CREATE) ?:
		      sock_create_kern(h->wk.net, l->addr.ss_family, SOCK_STREAM, IPPROTO_TCP,
				       &sock);
		if (err)
			return err;
		l->deadline = jiffies + msecs_to_jiffies(ENCD_SEND_MS);
		tcp_sock_set_nodelay(sock->sk);
		/* So that a dead attempt never keeps the root from binding its port. */
		sock_set_reuseaddr(sock->sk);
		link_attach(l, sock);
		spin_lock_bh(&l->tx_lock);
		l->tx_paused = false;
		spin_unlock_bh(&l->tx_lock);
		err = encd_fault(ENCD_FAULT_CONNECT) ?:
		      kernel_connect(sock, (struct sockaddr *)&l->addr, addr_len(&l->addr),
				     O_NONBLOCK);
		if (err && err != -EINPROGRESS)
			return err;
	}
	state = READ_ONCE(l->sock->sk->sk_state);
	if (state == TCP_SYN_SENT || state == TCP_SYN_RECV)
		return -EINPROGRESS;
	if (state != TCP_ESTABLISHED)
		return sock_error(l->sock->sk) ?: -ECONNREFUSED;
	if (self_connected(l->sock)) {
		/* Nobody listens there (yet): reset it rather than linger. */
		sock_no_linger(l->sock->sk);
		return -ECONNREFUSED;
	}
	return 0;
}

/*
 * Whether the responder closed a connection in the middle of its handshake.
 * A listener does that to the oldest of the connections still in theirs
 * when strangers flood it (listener_adopt()); the initiator has sent
 * nothing but the handshake yet (it waits for WELCOME), so trying again
 * loses nothing.
 */
static bool link_cut_off(struct encd_link *l, int err)
{
	return (l->phase == LINK_AWAIT_CHALLENGE || l->phase == LINK_AWAIT_WELCOME) &&
	       (err == -ECONNRESET || err == -EPIPE);
}

/*
 * Drops a failed attempt and tries again later, if this link may: one to a
 * root that may not listen yet, while it fails as such a root makes it
 * fail, or any initiator cut off in its handshake, until its give_up time.
 */
static bool link_retry(struct encd_link *l, int err)
{
	bool cut = link_cut_off(l, err);
	unsigned long delay;

	if (l->retry) {
		if (err != -ECONNREFUSED && err != -ECONNRESET && err != -EPIPE &&
		    err != -ETIMEDOUT && err != -ENETUNREACH && err != -EHOSTUNREACH)
			return false;
	} else if (!cut || time_after_eq(jiffies, l->give_up)) {
		return false;
	}
	l->cut_off += cut;
	link_detach(l);
	/*
	 * The host may queue frames (and the send work) at any time: the send
	 * work leaves the socket and the queue alone until the next attempt
	 * has its socket (link_connect_step()), and the one running finishes.
	 */
	spin_lock_bh(&l->tx_lock);
	l->tx_paused = true;
	spin_unlock_bh(&l->tx_lock);
	cancel_work_sync(&l->tx_work);
	sock_drop(l->sock);
	l->sock = NULL;
	link_reset_rx(l);
	spin_lock_bh(&l->tx_lock);
	frames_free(&l->hs_q);
	spin_unlock_bh(&l->tx_lock);
	kfree(l->tx_cur);
	l->tx_cur = NULL;
	l->tx_err = 0;
	/* Nothing tagged went yet: the next attempt draws new keys. */
	link_free_keys(l);
	l->phase = LINK_CONNECTING;
	l->attempts++;
	/*
	 * A root that does not listen yet is asked ever less often; one that
	 * cut this link off listens, and serves the next caller that speaks
	 * at once.
	 */
	delay = msecs_to_jiffies(cut || l->attempts * ENCD_RETRY_MS < RETRY_FAST_MS ?
				 ENCD_RETRY_MS : RETRY_SLOW_MS);
	queue_delayed_work(encd_wq, &l->work, delay);
	return true;
}

static int link_start_handshake(struct encd_link *l)
{
	struct encd_wire_hello hello = { .purpose = cpu_to_be32(l->purpose) };

	get_random_bytes(l->nonce_i, sizeof(l->nonce_i));
	memcpy(hello.nonce, l->nonce_i, sizeof(hello.nonce));
	l->phase = LINK_AWAIT_CHALLENGE;
	l->deadline = jiffies + msecs_to_jiffies(ENCD_HANDSHAKE_MS);
	return link_queue(l, LINK_Q_RAW, ENCD_WIRE_HELLO, &hello, sizeof(hello), NULL, 0);
}

/* Receiving */

/* Whether the frames that come next carry a tag: WELCOME's on. */
static bool link_tagged(const struct encd_link *l)
{
	return l->phase == LINK_UP || l->phase == LINK_AWAIT_WELCOME;
}

/*
 * The verdict on a frame's header, before its payload is read: the types
 * the link's state allows, each with the lengths it allows (wire.c),
 * none of which grows with the world.
 */
static int link_check_header(struct encd_link *l, const struct encd_wire_hdr *hdr, u32 *need)
{
	u32 len = be32_to_cpu(hdr->len);
	u8 type = hdr->type;

	if (be32_to_cpu(hdr->magic) != ENCD_WIRE_MAGIC || hdr->version != ENCD_WIRE_VERSION ||
	    hdr->flags)
		return -EPROTO;
	switch (l->phase) {
	case LINK_AWAIT_HELLO:
		if (type != ENCD_WIRE_HELLO)
			return -EPROTO;
		break;
	case LINK_AWAIT_CHALLENGE:
		if (type != ENCD_WIRE_CHALLENGE)
			return -EPROTO;
		break;
	case LINK_AWAIT_PROOF:
		if (type != ENCD_WIRE_PROOF)
			return -EPROTO;
		break;
	case LINK_AWAIT_WELCOME:
		if (type != ENCD_WIRE_WELCOME)
			return -EPROTO;
		break;
	case LINK_UP:
		if (!encd_host_accepts(l, type))
			return -EPROTO;
		break;
	default:
		return -EPROTO;
	}
	if (!encd_wire_len_ok(type, len))
		return -EMSGSIZE;
	*need = sizeof(*hdr) + len + (link_tagged(l) ? ENCD_TAG_LEN : 0);
	return 0;
}

/* The responder's side of the handshake. */
static int link_on_hello(struct encd_link *l, const struct encd_wire_hello *hello)
{
	struct encd_wire_challenge ch;
	u32 purpose = be32_to_cpu(hello->purpose);
	int err;

	if (purpose != ENCD_LINK_CONTROL && purpose != ENCD_LINK_DATA)
		return -EPROTO;
	l->purpose = purpose;
	memcpy(l->nonce_i, hello->nonce, sizeof(l->nonce_i));
	get_random_bytes(l->nonce_r, sizeof(l->nonce_r));
	memcpy(ch.nonce, l->nonce_r, sizeof(ch.nonce));
	err = encd_auth_proof(l->host->world, false, purpose, l->nonce_i, l->nonce_r, ch.proof);
	if (err)
		return err;
	l->phase = LINK_AWAIT_PROOF;
	err = link_queue(l, LINK_Q_RAW, ENCD_WIRE_CHALLENGE, &ch, sizeof(ch), NULL, 0);
	memzero_explicit(&ch, sizeof(ch));
	return err;
}

/* Both sides, once the other's proof verified: a key each way. */
static int link_derive_keys(struct encd_link *l)
{
	struct crypto_shash *i2r, *r2i;
	int err;

	err = encd_auth_link_tfms(l->host->world, l->nonce_i, l->nonce_r, &i2r, &r2i);
	if (err)
		return err;
	l->rx_tfm = l->initiator ? r2i : i2r;
	l->tx_next = l->initiator ? i2r : r2i;
	return 0;
}

/*
 * Both sides: the handshake is done, the link is up and may send. A
 * responder's first frame is WELCOME, ahead of anything its host queued.
 */
static int link_keyed(struct encd_link *l)
{
	static const u8 nothing;
	struct encd_host *h = l->host;
	int err;

	l->phase = LINK_UP;

	mutex_lock(&h->lock);
	if (!list_empty(&l->pending)) {
		list_del_init(&l->pending);
		h->n_pending--;
	}
	if (!l->dead) {
		l->up = true;
		l->handshake_ns = ktime_get_boottime_ns() - l->opened_ns;
		/* A responder waits for its peer to say who it is. */
		l->awaiting_first = !l->initiator;
		err = encd_host_link_up(h, l);
	}
	mutex_unlock(&h->lock);
	if (!err && !l->initiator)
		err = link_queue(l, LINK_Q_FIRST, ENCD_WIRE_WELCOME, &nothing, 0, NULL, 0);
	/*
	 * Only now may the link send what was queued while it was opened: its
	 * opening frame (JOIN or LINK), queued just above, must go first, and
	 * the tx work, which may be running (it sent the handshake), takes the
	 * queue's head as soon as it sees the key.
	 */
	spin_lock_bh(&l->tx_lock);
	l->tx_tfm = l->tx_next;
	l->tx_next = NULL;
	spin_unlock_bh(&l->tx_lock);
	queue_work(encd_wq, &l->tx_work);
	return err;
}

static int link_on_proof(struct encd_link *l, const struct encd_wire_proof *p)
{
	if (!encd_auth_proof_ok(l->host->world, true, l->purpose, l->nonce_i, l->nonce_r,
				p->proof))
		return -EACCES;
	return link_derive_keys(l) ?: link_keyed(l);
}

/* The initiator's side. */
static int link_on_challenge(struct encd_link *l, const struct encd_wire_challenge *ch)
{
	struct encd_wire_proof p;
	int err;

	memcpy(l->nonce_r, ch->nonce, sizeof(l->nonce_r));
	if (!encd_auth_proof_ok(l->host->world, false, l->purpose, l->nonce_i, l->nonce_r,
				ch->proof))
		return -EACCES;
	err = encd_auth_proof(l->host->world, true, l->purpose, l->nonce_i, l->nonce_r, p.proof);
	if (!err)
		err = link_queue(l, LINK_Q_RAW, ENCD_WIRE_PROOF, &p, sizeof(p), NULL, 0);
	memzero_explicit(&p, sizeof(p));
	if (!err)
		err = link_derive_keys(l);
	if (!err)
		l->phase = LINK_AWAIT_WELCOME;
	return err;
}

/* A whole frame has arrived: judge its tag, then act on it. */
static int link_frame(struct encd_link *l, char *why, size_t why_len)
{
	struct encd_wire_hdr *hdr = (void *)l->rx_buf;
	void *payload = l->rx_buf + sizeof(*hdr);
	u32 len = be32_to_cpu(hdr->len);
	struct encd_host *h = l->host;
	int err;

	switch (l->phase) {
	case LINK_AWAIT_HELLO:
		return link_on_hello(l, payload);
	case LINK_AWAIT_PROOF:
		return link_on_proof(l, payload);
	case LINK_AWAIT_CHALLENGE:
		return link_on_challenge(l, payload);
	default:
		break;
	}
	if (!encd_auth_tag_ok(l->rx_tfm, l->rx_seq, hdr, sizeof(*hdr) + len, payload + len)) {
		scnprintf(why, why_len, "a %s frame failed authentication (forged, replayed or reordered)",
			  encd_wire_type_name(hdr->type));
		return -EBADMSG;
	}
	l->rx_seq++;
	if (l->phase == LINK_AWAIT_WELCOME)
		return link_keyed(l);
	mutex_lock(&h->lock);
	err = l->dead ? -ECONNABORTED : encd_host_frame(h, l, hdr->type, payload, len, why,
							why_len);
	mutex_unlock(&h->lock);
	return err;
}

static int link_recv(struct encd_link *l, void *buf, size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int n;

	n = encd_fault(ENCD_FAULT_RECV);
	if (n)
		return n;
	n = kernel_recvmsg(l->sock, &msg, &iov, 1, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	return n ?: -ECONNRESET;
}

/*
 * Reads and acts on what has arrived: 0 when the socket is drained, 1 when
 * it yielded with more to read (its work is queued again), or an errno.
 */
static int link_receive(struct encd_link *l, char *why, size_t why_len)
{
	struct encd_wire_hdr *hdr;
	int n, err, frames;

	for (frames = 0; frames < RX_BATCH; ) {
		if (READ_ONCE(l->dead))
			return 0;
		n = link_recv(l, l->rx_buf + l->rx_got, l->rx_need - l->rx_got);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		l->rx_got += n;
		if (l->rx_got < l->rx_need)
			continue;
		if (l->rx_need == sizeof(*hdr)) {
			u32 need;

			hdr = (void *)l->rx_buf;
			err = link_check_header(l, hdr, &need);
			if (err) {
				scnprintf(why, why_len, "it sent %s (%u bytes) where it may not",
					  encd_wire_type_name(hdr->type), be32_to_cpu(hdr->len));
				return err;
			}
			if (need > sizeof(l->rx_small)) {
				void *big = kvmalloc(need, GFP_KERNEL_ACCOUNT);

				if (!big)
					return -ENOMEM;
				memcpy(big, l->rx_buf, sizeof(*hdr));
				l->rx_buf = big;
			}
			l->rx_need = need;
			if (l->rx_got < l->rx_need)
				continue;
		}
		err = link_frame(l, why, why_len);
		link_reset_rx(l);
		if (err)
			return err;
		frames++;
	}
	/* More may be there: yield, and come back. */
	mod_delayed_work(encd_wq, &l->work, 0);
	return 1;
}

static void link_step(struct encd_link *l)
{
	char why[ENCD_MSG_MAX] = "";
	int err;

	if (READ_ONCE(l->dead))
		return;
	if (l->phase == LINK_CONNECTING) {
		/*
		 * Before each attempt: the table was checked as it came, but the
		 * administrator may have narrowed the networks since.
		 */
		if (!l->sock && !encd_addr_allowed(&l->addr, &l->host->wk.root)) {
			char nets[ENCD_NETWORKS_SHOWN];

			encd_networks_show(nets, sizeof(nets));
			link_failed(l, -EADDRNOTAVAIL,
				    "%pISc is outside the networks encd may use (networks=%s)",
				    &l->addr, nets);
			return;
		}
		err = link_connect_step(l);
		if (err == -EINPROGRESS && time_before(jiffies, l->deadline)) {
			queue_delayed_work(encd_wq, &l->work, l->deadline - jiffies);
			return;
		}
		if (err == -EINPROGRESS)
			err = -ETIMEDOUT;
		if (!err) {
			l->deadline = jiffies + msecs_to_jiffies(ENCD_HANDSHAKE_MS);
			err = link_start_handshake(l);
		}
		if (err) {
			if (!link_retry(l, err))
				link_failed(l, err, "connecting: %s", encd_errno_name(err));
			return;
		}
	}
	err = link_receive(l, why, sizeof(why));
	if (err > 0)
		return;
	/* Pairs with link_send_queue()'s release: tx_err_type is set. */
	if (!err && smp_load_acquire(&l->tx_err)) {
		err = l->tx_err;
		if (l->phase != LINK_UP && l->initiator && link_retry(l, err))
			return;
		link_failed(l, err, "sending %s: %s", encd_wire_type_name(l->tx_err_type),
			    encd_errno_name(err));
		return;
	}
	if (err) {
		if (l->phase != LINK_UP && l->initiator && link_retry(l, err))
			return;
		if (!why[0] && link_cut_off(l, err) && l->cut_off)
			scnprintf(why, sizeof(why),
				  "its listener cut off %u handshakes of this link in a row: something floods it with connections",
				  l->cut_off + 1);
		if (!why[0])
			scnprintf(why, sizeof(why), "%s", err == -EACCES ?
				  "it does not hold the world key" : encd_errno_name(err));
		link_failed(l, err, "%s", why);
		return;
	}
	if (l->phase == LINK_UP && !l->awaiting_first)
		return;
	if (time_after_eq(jiffies, l->deadline)) {
		if (l->initiator && l->phase != LINK_UP && link_retry(l, -ETIMEDOUT))
			return;
		link_failed(l, -ETIMEDOUT, "%s", l->phase == LINK_UP ?
			    "it sent nothing after its handshake" : "its handshake did not finish in time");
		return;
	}
	queue_delayed_work(encd_wq, &l->work, l->deadline - jiffies);
}

/**
 * encd_link_work() - drives a link: connect, handshake, receive, deadlines
 * @w: the link's work
 */
void encd_link_work(struct work_struct *w)
{
	struct encd_link *l = container_of(to_delayed_work(w), struct encd_link, work);
	/* What a peer makes this host allocate is charged to the world's maker. */
	struct mem_cgroup *old = set_active_memcg(l->host->memcg);

	link_step(l);
	set_active_memcg(old);
}

/**
 * encd_link_connect() - opens a link to another host
 * @h: this host; the caller holds its lock
 * @to: the other host's listener
 * @purpose: ENCD_LINK_CONTROL (to the root host) or ENCD_LINK_DATA
 * @retry: keep trying while nobody listens there (the root may be late)
 *
 * The link connects, shakes hands and calls encd_host_link_up() in the
 * background; frames may be queued on it at once.
 *
 * Return: the link (on @h's list), or NULL when out of memory.
 */
struct encd_link *encd_link_connect(struct encd_host *h, const struct sockaddr_storage *to,
				    u32 purpose, bool retry)
{
	struct encd_link *l;

	lockdep_assert_held(&h->lock);
	l = link_alloc(h, purpose, true);
	if (!l)
		return NULL;
	l->addr = *to;
	l->retry = retry;
	l->phase = LINK_CONNECTING;
	l->deadline = jiffies + msecs_to_jiffies(ENCD_SEND_MS);
	l->give_up = l->deadline;
	list_add_tail(&l->node, &h->links);
	queue_delayed_work(encd_wq, &l->work, 0);
	return l;
}

/* Listeners */

struct encd_listener {
	struct encd_host *host;		/* counted */
	struct socket *sock;
	struct work_struct accept_work;
	bool dead;
	void (*saved_data_ready)(struct sock *sk);
};

/*
 * The listening socket's callback, and at first its connections' (they
 * inherit it). The caller read the pointer without the callback lock, so
 * by now the socket may be a connection whose link is attached: only the
 * listener's own pointer, the one marked not to be copied, is a listener.
 */
static void listener_data_ready(struct sock *sk)
{
	struct encd_listener *ls;

	read_lock_bh(&sk->sk_callback_lock);
	rcu_read_lock();
	ls = rcu_dereference_sk_user_data(sk);
	if (ls && sk_user_data_is_nocopy(sk))
		queue_work(encd_wq, &ls->accept_work);
	rcu_read_unlock();
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Which connection still in its handshake goes now that @nl came, if one
 * must: an address no host of the world has keeps at most
 * ENCD_PENDING_PER_SOURCE of them (its oldest goes), and past
 * ENCD_PENDING_MAX the oldest from such an address goes first, then the
 * oldest that has not sent its HELLO yet, or else the oldest. A world's
 * own connection sends HELLO as it connects and leaves the list within a
 * round trip; a stranger's may say nothing until its deadline. On
 * loopback every caller shares the world's address, so silence is what
 * tells a flood apart. One that goes too soon costs its initiator another
 * attempt, never a frame: it sends nothing but its handshake before
 * WELCOME.
 */
static struct encd_link *listener_victim(struct encd_host *h, struct encd_link *nl)
{
	struct encd_link *l, *oldest_stranger = NULL, *oldest_same = NULL, *oldest_silent = NULL;
	u32 same = 0;

	lockdep_assert_held(&h->lock);
	list_for_each_entry(l, &h->pending, pending) {
		if (!oldest_silent && l->phase == LINK_AWAIT_HELLO)
			oldest_silent = l;
		if (!l->stranger)
			continue;
		if (!oldest_stranger)
			oldest_stranger = l;
		if (nl->stranger && encd_addr_same_host(&l->addr, &nl->addr) && !same++)
			oldest_same = l;
	}
	if (same > ENCD_PENDING_PER_SOURCE)
		return oldest_same;
	if (h->n_pending <= ENCD_PENDING_MAX)
		return NULL;
	return oldest_stranger ?: oldest_silent ?:
	       list_first_entry(&h->pending, struct encd_link, pending);
}

/* A stranger called: a link in its handshake, among the pending few. */
static void listener_adopt(struct encd_listener *ls, struct socket *sock)
{
	struct encd_host *h = ls->host;
	struct sockaddr_storage peer;
	struct encd_link *l, *victim;

	/*
	 * It inherited the listener's callback: it gets the kernel's back, so
	 * that nothing of encd's is left on it once it is let go (it may
	 * outlive its link, orphaned, and the module).
	 */
	write_lock_bh(&sock->sk->sk_callback_lock);
	sock->sk->sk_data_ready = ls->saved_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);
	if (kernel_getpeername(sock, (struct sockaddr *)&peer) < 0)
		peer.ss_family = AF_UNSPEC;
	/*
	 * A caller from outside the networks encd may use goes at once, as a
	 * stranger's connection would at its deadline: no handshake, no
	 * place among the pending. (The world key is the host's for life.)
	 */
	if (!encd_addr_allowed(&peer, &h->wk.root)) {
		net_dbg_ratelimited("a connection from %pISpc, outside the networks encd may use: closed\n",
				    &peer);
		sock_drop(sock);
		return;
	}
	l = link_alloc(h, 0, false);
	if (!l) {
		sock_drop(sock);
		return;
	}
	l->addr = peer;
	tcp_sock_set_nodelay(sock->sk);
	l->phase = LINK_AWAIT_HELLO;
	l->deadline = jiffies + msecs_to_jiffies(ENCD_HANDSHAKE_MS);

	mutex_lock(&h->lock);
	if (h->state == ENCD_HOST_DEAD) {
		mutex_unlock(&h->lock);
		sock_drop(sock);
		encd_host_put(h);
		kfree(l);
		return;
	}
	link_attach(l, sock);
	l->stranger = !encd_host_knows_addr(h, &l->addr);
	list_add_tail(&l->node, &h->links);
	list_add_tail(&l->pending, &h->pending);
	h->n_pending++;
	victim = listener_victim(h, l);
	if (victim) {
		net_dbg_ratelimited("%u connections in their handshake: dropping one from %pISpc\n",
				    h->n_pending, &victim->addr);
		encd_link_close(victim);
	}
	/* The newcomer may be the one to go: its free work owns it then. */
	if (victim != l)
		queue_delayed_work(encd_wq, &l->work, 0);
	mutex_unlock(&h->lock);
}

static void listener_accept_work(struct work_struct *w)
{
	struct encd_listener *ls = container_of(w, struct encd_listener, accept_work);
	struct socket *sock;
	int err;

	while (!READ_ONCE(ls->dead)) {
		err = encd_fault(ENCD_FAULT_ACCEPT) ?:
		      kernel_accept(ls->sock, &sock, O_NONBLOCK);
		if (err) {
			if (err != -EAGAIN)
				net_dbg_ratelimited("accept on %pISpc: %d\n",
						    &ls->host->listen_addr, err);
			return;
		}
		listener_adopt(ls, sock);
	}
}

/**
 * encd_listener_start() - listens for other hosts
 * @h: this host
 * @addr: where; its port may be 0 (then h->listen_addr says which)
 *
 * Return: 0, or the socket layer's error (-EADDRINUSE, ...).
 */
int encd_listener_start(struct encd_host *h, const struct sockaddr_storage *addr)
{
	struct encd_listener *ls;
	struct socket *sock;
	struct sock *sk;
	int err;

	ls = kzalloc(sizeof(*ls), GFP_KERNEL_ACCOUNT);
	if (!ls)
		return -ENOMEM;
	INIT_WORK(&ls->accept_work, listener_accept_work);
	err = encd_fault(ENCD_FAULT_SOCK_CREATE) ?:
	      sock_create_kern(h->wk.net, addr->ss_family, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (err) {
		kfree(ls);
		return err;
	}
	sock_set_reuseaddr(sock->sk);
	err = encd_fault(ENCD_FAULT_BIND) ?:
	      kernel_bind(sock, (struct sockaddr *)addr, addr_len(addr));
	if (!err)
		err = encd_fault(ENCD_FAULT_LISTEN) ?: kernel_listen(sock, SOMAXCONN);
	if (!err && kernel_getsockname(sock, (struct sockaddr *)&h->listen_addr) < 0)
		err = -ENOTCONN;
	if (err) {
		sock_release(sock);
		kfree(ls);
		return err;
	}
	ls->host = encd_host_get(h);
	ls->sock = sock;
	sk = sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	ls->saved_data_ready = sk->sk_data_ready;
	/*
	 * Not copied to the connections it accepts: they inherit this
	 * callback, and one the listener never took (its handshake done as
	 * the listener stops, then orphaned) may get data after it is freed.
	 */
	__rcu_assign_sk_user_data_with_flags(sk, ls, SK_USER_DATA_NOCOPY);
	sk->sk_data_ready = listener_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	h->listener = ls;
	/* Someone may have called between listen() and the callback. */
	queue_work(encd_wq, &ls->accept_work);
	return 0;
}

/**
 * encd_listener_stop() - stops listening and frees the listener
 * @ls: the listener, or NULL; its host's lock is not held
 */
void encd_listener_stop(struct encd_listener *ls)
{
	struct sock *sk;

	if (!ls)
		return;
	WRITE_ONCE(ls->dead, true);
	sk = ls->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	rcu_assign_sk_user_data(sk, NULL);
	sk->sk_data_ready = ls->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&ls->accept_work);
	sock_drop(ls->sock);
	encd_host_put(ls->host);
	kfree(ls);
}

/**
 * encd_link_queue_work() - runs @w on the links' workqueue
 * @w: a work of the bootstrap (a host's)
 */
void encd_link_queue_work(struct work_struct *w)
{
	queue_work(encd_wq, w);
}

/**
 * encd_link_queue_delayed() - queues a host's delayed work, unless it waits already
 * @w: the work
 * @delay: in jiffies
 */
void encd_link_queue_delayed(struct delayed_work *w, unsigned long delay)
{
	queue_delayed_work(encd_wq, w, delay);
}

/**
 * encd_link_init() - the workqueue every link and host work runs on
 *
 * Return: 0 or -ENOMEM.
 */
int encd_link_init(void)
{
	encd_wq = alloc_workqueue("encd", WQ_UNBOUND, 0);
	return encd_wq ? 0 : -ENOMEM;
}

/**
 * encd_link_exit() - waits for every link and host work, then frees the queue
 *
 * Every file is closed by now, so no new work can come.
 */
void encd_link_exit(void)
{
	destroy_workqueue(encd_wq);
}
