/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_TRANSPORT_H
#define _ENCD_TRANSPORT_H

#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <linux/encd.h>

struct crypto_shash;
struct net;
struct socket;

/* The optional world secret: an HMAC-SHA256 key, and the tag it makes. */
#define ENCD_SECRET_MAX		64
#define ENCD_MAC_LEN		32

/*
 * Every message on an encd socket is a frame: this header, big-endian, then
 * @length bytes of payload. The first frame on a connection says who is
 * calling (HELLO at the rendezvous, LINK between peers).
 */
#define ENCD_FRAME_MAGIC		0x454e4342	/* "ENCB" */
#define ENCD_FRAME_VERSION	1
#define ENCD_FRAME_MAX		(1U << 20)

struct encd_frame_hdr {
	__be32 magic;
	__be16 version;
	__be16 type;
	__be32 tag;
	__be32 length;
};

/* Frame types; the message counters are indexed by them. */
enum encd_wire_type {
	ENCD_WIRE_HELLO = 0,	/* rank -> root: who I am */
	ENCD_WIRE_PEERS,		/* root -> rank: the peer table */
	ENCD_WIRE_REJECT,		/* root -> rank: why not, as text */
	ENCD_WIRE_LINK,		/* the first frame of a peer link */
	ENCD_WIRE_SIG,		/* signature validation, 17 bytes */
	ENCD_WIRE_UID,		/* unique id + verdict, 129 bytes */
	ENCD_WIRE_RING,		/* comm init: the unique id to the ring neighbour */
	ENCD_WIRE_BARRIER,	/* a group barrier round */
	ENCD_WIRE_NTYPES
};

/* A socket address as it travels in HELLO and the peer table. */
struct encd_wire_addr {
	__be16 family;		/* AF_INET or AF_INET6 */
	__be16 port;
	u8 addr[16];
} __packed;

/*
 * What one rank sent and received, by message type and size, so that tests
 * can pin the 17- and 129-byte exchanges of the bootstrap.
 */
#define ENCD_COUNTERS_MAX	16

struct encd_msg_tally {
	u16 type;		/* enum encd_wire_type */
	u32 size;
	u64 tx, rx;
};

struct encd_msg_stats {
	struct encd_msg_tally c[ENCD_COUNTERS_MAX];
	unsigned int n;
};

struct encd_link {
	struct socket *sock;
	struct list_head stash;		/* frames that arrived before they were asked for */
	unsigned int stash_n;
};

/*
 * The peer links of one rank in a world. One connection per direction and
 * peer: out[p] carries what this rank sends to p, in[p] what p sends here, so
 * messages from different peers never queue behind each other. Links open
 * lazily: a send connects, a receive accepts until the sender's link is
 * there. All of it is driven by the one thread doing a world operation (the
 * caller holds the core's setup mutex): no workers, nothing runs after the
 * operation returns.
 */
struct encd_xport {
	struct net *net;
	struct socket *listener;
	struct sockaddr_storage listen_addr;
	u32 rank, nranks;
	u64 token;			/* the world's id, proved by every link */
	struct sockaddr_storage *peer_addr;	/* by rank */
	struct encd_link *in, *out;
	unsigned long deadline;		/* of the operation in progress, jiffies */
	u32 rejected;			/* stray connections turned away */
	struct crypto_shash *mac;	/* hmac(sha256) keyed by the world secret */
	char *err;			/* where failures are described */
	size_t err_len;
};

__printf(3, 4) int encd_xport_fail(struct encd_xport *x, int err, const char *fmt, ...);

/*
 * With a world secret, HELLO, the peer table and every LINK carry an
 * HMAC-SHA256 of their content: a peer without the secret cannot join.
 */
int encd_xport_set_secret(struct encd_xport *x, const u8 *key, u32 len);
static inline u32 encd_xport_mac_len(const struct encd_xport *x)
{
	return x->mac ? ENCD_MAC_LEN : 0;
}

/* Writes the tag of @data to @mac (nothing without a secret). */
int encd_xport_mac(struct encd_xport *x, const void *data, u32 len, u8 *mac);
/* Whether @mac is the tag of @data; always with no secret. */
bool encd_xport_mac_ok(struct encd_xport *x, const void *data, u32 len, const u8 *mac);

/* Starts an operation: every wait in it ends by now + @timeout_ms. */
void encd_xport_begin(struct encd_xport *x, u32 timeout_ms);

int encd_xport_parse_addr(const char *s, struct sockaddr_storage *ss);
void encd_addr_to_wire(const struct sockaddr_storage *ss, struct encd_wire_addr *w);
int encd_addr_from_wire(const struct encd_wire_addr *w, struct sockaddr_storage *ss);

/* Raw sockets and frames, for the rendezvous. */
int encd_sock_listen(struct net *net, const struct sockaddr_storage *addr, struct socket **res);
int encd_sock_connect(struct encd_xport *x, const struct sockaddr_storage *addr, bool retry,
		     struct socket **res);
int encd_sock_accept(struct encd_xport *x, struct socket **res);
void encd_sock_close(struct socket *sock);
int encd_frame_send(struct encd_xport *x, struct socket *s, u16 type, u32 tag,
		   const void *buf, u32 len);
/* Reads one frame of at most @max bytes; *@bufp is kmalloc'ed (kfree it). */
int encd_frame_recv(struct encd_xport *x, struct socket *s, unsigned long deadline,
		   struct encd_frame_hdr *h, void **bufp, u32 max);

/* The peer links, once the rendezvous has filled rank, nranks, token, peer_addr. */
int encd_xport_links_init(struct encd_xport *x);
/* Opens the link to @peer now, if it is not open: sends need not wait for it. */
int encd_xport_link(struct encd_xport *x, u32 peer);
int encd_xport_send(struct encd_xport *x, u32 peer, u16 type, u32 tag, const void *buf,
		   u32 len, struct encd_msg_stats *st);
int encd_xport_recv(struct encd_xport *x, u32 peer, u16 type, u32 tag, void *buf, u32 len,
		   struct encd_msg_stats *st);
/* Closes every socket (shutdown, then release) and frees the links. */
void encd_xport_destroy(struct encd_xport *x);

#endif /* _ENCD_TRANSPORT_H */
