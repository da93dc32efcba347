/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bootstrap's wire protocol: every frame encd sends or accepts on a
 * socket, and every protocol constant, in one place (as WireGuard's
 * messages.h). Documentation/bootstrap.rst describes the protocol for
 * someone writing a compatible peer; the sizes here are its contract.
 *
 * Every frame is a 12-byte big-endian header, then @len payload bytes, then
 * (on an authenticated link) a 16-byte tag: HMAC-SHA256 with the link's key
 * for that direction over the frame's sequence number (be64, counted from 0
 * per direction), the header and the payload, truncated to 16 bytes.
 *
 * A connection opens with a four-frame handshake that proves both ends
 * hold the world key, draws a fresh nonce from each, and tells the
 * initiator that the responder took the connection:
 *
 *	initiator -> responder	HELLO		nonce_i
 *	responder -> initiator	CHALLENGE	nonce_r, proof_r
 *	initiator -> responder	PROOF		proof_i
 *	responder -> initiator	WELCOME		(empty; tagged, sequence 0)
 *
 * Both derive a key per direction from the world key and both nonces
 * (auth.c) once the other's proof verifies. Nothing else is accepted
 * before PROOF verifies, and the initiator sends nothing after PROOF
 * before WELCOME verifies: a listener may drop a connection still in its
 * handshake (ENCD_PENDING_MAX), and an initiator that sent frames into
 * one would lose them without a word. Cut off before WELCOME, it connects
 * again, with everything still queued.
 */
#ifndef _ENCD_WIRE_H
#define _ENCD_WIRE_H

#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/encd.h>

#define ENCD_WIRE_MAGIC		0x454e4332	/* "ENC2" */
#define ENCD_WIRE_VERSION	7

struct encd_wire_hdr {
	__be32 magic;
	u8 version;
	u8 type;		/* enum encd_wire_type */
	__be16 flags;		/* 0 */
	__be32 len;		/* payload bytes */
} __packed;
static_assert(sizeof(struct encd_wire_hdr) == 12);

#define ENCD_NONCE_LEN		32
#define ENCD_KEY_LEN		32	/* world and link keys: HMAC-SHA256 keys */
#define ENCD_PROOF_LEN		32	/* a handshake proof: a whole HMAC-SHA256 */
#define ENCD_TAG_LEN		16	/* a frame's tag: a truncated one */
#define ENCD_HOST_ID_LEN	16
#define ENCD_UID_LEN		128	/* the unique id; 129 bytes with the verdict */
#define ENCD_TEXT_MAX		200	/* a sentence in REJECT or DEATH */
#define ENCD_REGISTER_MAX	256	/* ranks in one REGISTER */

/*
 * The largest world. What a host spends per world rank is its table's
 * rank-to-host map, 4 bytes (Documentation/bootstrap.rst has the figures).
 */
#define ENCD_WORLD_MAX		1048576
/*
 * The most hosts a world has (a world of 1,048,576 ranks on 16 a host).
 * Every host keeps each other host's address and count of ranks, 24 bytes
 * a host: 1.5 MiB at the most, whatever a member root's table claims.
 */
#define ENCD_WORLD_HOSTS_MAX	65536
/*
 * The most bytes of the table one TABLE frame carries: a table is sent as
 * consecutive parts of its payload, each in a TABLE frame of its own, the
 * head in the first, so that no frame grows with the world.
 */
#define ENCD_TABLE_PART_MAX	(60 << 10)

enum encd_wire_type {
	/* the handshake, before anything is authenticated */
	ENCD_WIRE_HELLO = 1,
	ENCD_WIRE_CHALLENGE,
	ENCD_WIRE_PROOF,
	/* the control link: a host and the root host */
	ENCD_WIRE_JOIN,		/* host -> root: who this host is */
	ENCD_WIRE_REGISTER,	/* host -> root: some of its ranks */
	ENCD_WIRE_REJECT,	/* root -> host: a rank or the host refused */
	ENCD_WIRE_TABLE,	/* down the host tree: the world */
	ENCD_WIRE_DEATH,	/* either way: the world failed, and why */
	/* a data link: one host to another, after the table */
	ENCD_WIRE_LINK,		/* its first frame: which host is calling */
	ENCD_WIRE_SIG,		/* signature validation: 17 bytes */
	ENCD_WIRE_UID,		/* the unique id and the root's verdict: 129 */
	ENCD_WIRE_RING,		/* comm init: the unique id to the ring successor */
	ENCD_WIRE_BARRIER,	/* a group barrier round: 4 */
	/* the handshake's last frame: the responder took the connection */
	ENCD_WIRE_WELCOME,
	/* root -> host whose parent is not the root: the table's SHA-256 */
	ENCD_WIRE_DIGEST,
	/* up to the root, down the host tree, on data links: ranks that left */
	ENCD_WIRE_DEPART,
	ENCD_WIRE_NTYPES
};

/* What a connection is for, in HELLO and in the proofs. */
enum encd_link_purpose {
	ENCD_LINK_CONTROL = 1,	/* a host to the root host, both ways */
	ENCD_LINK_DATA = 2,	/* a host to another, one way */
};

struct encd_wire_hello {
	__be32 purpose;
	u8 nonce[ENCD_NONCE_LEN];
} __packed;

struct encd_wire_challenge {
	u8 nonce[ENCD_NONCE_LEN];
	u8 proof[ENCD_PROOF_LEN];
} __packed;

struct encd_wire_proof {
	u8 proof[ENCD_PROOF_LEN];
} __packed;

/* A socket address: AF_INET or AF_INET6 and the port, network order. */
struct encd_wire_addr {
	__be16 family;
	__be16 port;
	u8 addr[16];
} __packed;

/* Settings every rank of a world must share (JOIN's flags, REGISTER's). */
#define ENCD_WIRE_CHECK_SIGS		0x1	/* the world validates signatures */
#define ENCD_WIRE_SIG_ALL_GROUPS	0x2	/* ... of every group, not only sendrecv */

struct encd_wire_join {
	__be32 world_size;
	u8 host_id[ENCD_HOST_ID_LEN];
	struct encd_wire_addr listen;	/* where this host's links connect */
	__be32 flags;			/* 0 */
} __packed;

struct encd_wire_rank {
	__be32 g_device_id;
	__be32 nec_dev;
	__be32 settings;		/* ENCD_WIRE_CHECK_SIGS, ... */
} __packed;

struct encd_wire_register {
	__be32 n;			/* 1 .. ENCD_REGISTER_MAX */
	struct encd_wire_rank ranks[];
} __packed;

/* A sentence about a rank (or, with rank ENCD_WIRE_NO_RANK, a host). */
#define ENCD_WIRE_NO_RANK	0xffffffffU

/*
 * A failure's reason (enum encd_reason) travels beside its errno, so that a
 * rank failed by another host's news is told the reason it had there. A
 * reason this host does not know (0, or past its last) counts as the one
 * the errno stands for.
 */
struct encd_wire_reject {
	__be32 err;			/* the positive errno the rank fails with */
	__be32 reason;			/* and why: enum encd_reason */
	__be32 rank;
	__be16 text_len;		/* <= ENCD_TEXT_MAX, not NUL-terminated */
	char text[];
} __packed;

/*
 * A failure of the world: every receiver fails its world with the text,
 * naming @rank (or no rank) of @host (or no host).
 */
struct encd_wire_death {
	__be32 err;			/* the positive errno survivors fail with */
	__be32 reason;			/* and why: enum encd_reason */
	__be32 rank;			/* the rank that caused it, or ENCD_WIRE_NO_RANK */
	__be32 host;			/* its host index, or ENCD_WIRE_NO_RANK */
	__be16 text_len;
	char text[];
} __packed;

/* A replica group's comm a departed rank had formed, and its barriers it completed. */
struct encd_wire_departed_comm {
	__be32 tag;
	__be32 barriers;
} __packed;

/*
 * DEPART: ranks that left their formed world (departed, rather than failed
 * it: what they completed stands), as blocks, one after another to the
 * end of the payload. A block is one host's: its head, n_news __be32 host
 * indices, then n_runs runs.
 *
 * The news list names the hosts @host also tells on the data link it sends
 * to them on, behind all its ranks sent there; on any other host, the news
 * through the root or the host tree settles the departures. A host with
 * data links to more than ENCD_DEPARTURE_NEWS_MAX hosts sends n_news
 * ENCD_DEPARTURE_NEWS_EVERY and no list: every host then waits for the
 * data link's word, and one that hears none never settles them (a comm
 * they block fails at its deadline instead, never early).
 */
struct encd_wire_depart_block {
	__be32 host;			/* the host the ranks left */
	__be32 n_news;			/* <= ENCD_DEPARTURE_NEWS_MAX, or _EVERY */
	__be32 n_runs;			/* >= 1 */
	__be32 news[];
} __packed;

/*
 * Ranks first to first + count - 1, all of the block's host, each of which
 * completed @barriers barriers of the world's comm and had formed the
 * replica groups' comms listed (a comm of theirs still forming elsewhere
 * cannot form without them unless it is listed), having completed that
 * many of each one's barriers.
 */
struct encd_wire_depart_run {
	__be32 first;
	__be32 count;			/* >= 1 */
	__be32 barriers;
	__be32 n_comms;			/* <= ENCD_DEPARTURE_COMMS_MAX */
	struct encd_wire_departed_comm comms[];
} __packed;

#define ENCD_DEPARTURE_COMMS_MAX	1024
#define ENCD_DEPARTURE_NEWS_MAX		4096
#define ENCD_DEPARTURE_NEWS_EVERY	0xffffffffu
/* How long a host gathers the departures it sends on into one batch. */
#define ENCD_NEWS_BATCH_MS		5
/* The largest DEPART payload: a block of the longest news and run fits. */
#define ENCD_WIRE_DEPART_MAX		(60 << 10)
static_assert(sizeof(struct encd_wire_depart_block) + ENCD_DEPARTURE_NEWS_MAX * sizeof(__be32) +
	      sizeof(struct encd_wire_depart_run) +
	      ENCD_DEPARTURE_COMMS_MAX * sizeof(struct encd_wire_departed_comm) <=
	      ENCD_WIRE_DEPART_MAX);

struct encd_wire_table_host {
	u8 host_id[ENCD_HOST_ID_LEN];
	struct encd_wire_addr listen;
} __packed;

/*
 * The world, as the root assigns it: hosts[n_hosts] then rank_host[n_ranks]
 * (__be32 host indices) follow this head. Host 0 is the root's.
 */
struct encd_wire_table {
	__be64 token;			/* the world's, proved by every LINK */
	__be32 n_ranks;
	__be32 n_hosts;
} __packed;

static inline size_t encd_wire_table_len(u32 n_ranks, u32 n_hosts)
{
	return sizeof(struct encd_wire_table) +
	       (size_t)n_hosts * sizeof(struct encd_wire_table_host) + (size_t)n_ranks * 4;
}

/*
 * DIGEST: the SHA-256 of the TABLE payload, which the root sends on its
 * control link to every host whose parent in the host tree is not the
 * root. Such a host hears the table from its parent, a member like any
 * other; it takes that table only if it is the one the root made.
 */
struct encd_wire_digest {
	u8 sha256[32];
} __packed;

struct encd_wire_link {
	__be64 token;
	__be32 host;			/* the calling host's index */
} __packed;

/*
 * Every message between two ranks starts with this: who to whom, the node
 * (its tag: a hash of the key and stream) and the attempt of its bootstrap
 * (the barrier's epoch, for BARRIER).
 */
struct encd_wire_route {
	__be32 src;
	__be32 dst;
	__be32 tag;
	__be32 attempt;
} __packed;

/* SIG: the signature validation message, 17 bytes. */
struct encd_wire_sig {
	u8 sig[ENCD_SIG_LEN];
	u8 ok;
} __packed;
static_assert(sizeof(struct encd_wire_sig) == 17);

/* UID: the unique id and the root's verdict, 129 bytes. */
#define ENCD_WIRE_UID_LEN	(ENCD_UID_LEN + 1)
/* RING: the unique id, 128 bytes. */
#define ENCD_WIRE_RING_LEN	ENCD_UID_LEN
/* BARRIER: the round, __be32. */
#define ENCD_WIRE_BARRIER_LEN	4

/* The unique id, as bootstrap rank 0 makes it: ENCD_UID_LEN bytes. */
struct encd_uid {
	__be64 magic;			/* random, never 0 */
	struct encd_wire_addr root;	/* the group root's host */
	__be32 rank_n;
	__be32 root_g_device_id;
	__be32 stream_id;
	__be32 key_hash;
	__be64 world_token;
	u8 __reserved[ENCD_UID_LEN - 52];
} __packed;
static_assert(sizeof(struct encd_uid) == ENCD_UID_LEN);

/*
 * The rule of each frame type (wire.c): the ways of the links that carry
 * it, as their receiver sees them, whether it opens a link, and its
 * payload's lengths.
 */
enum encd_wire_way {
	ENCD_WAY_HANDSHAKE = 1 << 0,	/* before the link is up */
	ENCD_WAY_TO_ROOT = 1 << 1,	/* a control link, at the root */
	ENCD_WAY_FROM_ROOT = 1 << 2,	/* a control link, at a host */
	ENCD_WAY_DATA = 1 << 3,		/* a data link, at the host it goes to */
};

struct encd_wire_rule {
	const char *name;
	u8 ways;			/* enum encd_wire_way */
	bool opens;			/* a link's first frame, and only that */
	u32 min, max;
};

const char *encd_wire_type_name(u8 type);
bool encd_wire_goes(u8 type, unsigned int way);
bool encd_wire_opens(u8 type);
bool encd_wire_len_ok(u8 type, u32 len);

/* Deadlines, in milliseconds. */
enum {
	/* a new connection: the whole handshake, and JOIN or LINK after it */
	ENCD_HANDSHAKE_MS = 2000,
	/* between attempts to reach a root that does not listen yet */
	ENCD_RETRY_MS = 50,
	/* a frame being sent, once it is queued */
	ENCD_SEND_MS = 10000,
	/* a host whose ranks all departed, delivering what they sent */
	ENCD_LINGER_MS = 3000,
};

/* Bounds on what a peer can make a host hold. */
enum {
	/* connections that have not finished their handshake, per listener */
	ENCD_PENDING_MAX = 64,
	/* ... of them from one address that no host of the world has */
	ENCD_PENDING_PER_SOURCE = 8,
	/*
	 * frames nobody asked for yet, per data link, and their bytes: per
	 * sending host, which has one data link to each other host
	 */
	ENCD_EARLY_MAX = 256,
	ENCD_EARLY_BYTES = 64 << 10,
};

#endif /* _ENCD_WIRE_H */
