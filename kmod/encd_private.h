/* SPDX-License-Identifier: GPL-2.0 */
/*
 * encd's private header: the objects every part of the module shares, and
 * what each part offers the others. The wire protocol is in wire.h, the
 * pure schedule math in schedule.h, kernel-version differences in compat.h.
 *
 * Objects
 * -------
 * A global comm (struct encd_gcomm, libnrt's enc_glb_comm) is one rank's
 * identity in a world, one per (nec_dev, ctx_id) slot of the registry.
 * Open files of /dev/encd (struct encd_file) hold comms and own the
 * programs they load. A world formed on a comm belongs to the file that
 * formed it.
 *
 * Locking
 * -------
 * Outermost first: a lock is only ever taken while holding locks above it,
 * never one below it; each entry says which of them it is taken under.
 * Locks of the same kind never nest (two files', two hosts', two cores'
 * mutexes). No lock is ever held across a wait for the network: sockets
 * are non-blocking and their work runs in workers (link.c); an operation
 * that waits for its world waits on its rank's wait queue holding only its
 * rank's op_lock, which only the rank's other operations need.
 *
 * The mutexes:
 *
 *  1. encd_rank.op_lock          one operation at a time on a rank
 *                                (world.c). SETUP takes it with
 *                                mutex_lock(), only while it registers the
 *                                rank with its host agent, which never
 *                                waits for the network; it waits for the
 *                                world with the lock dropped. The
 *                                operations of a formed rank (enter():
 *                                INIT_REPLICA_GROUPS, COMM_BARRIER,
 *                                NODE_INFO) take it with
 *                                mutex_lock_interruptible(): they hold it
 *                                while they wait for the world, up to their
 *                                deadline, so a signal must be able to end
 *                                another operation's wait for it.
 *  2. encd_file.lock             what one open file holds and its programs
 *                                (cdev.c, program.c, world.c). Under
 *                                op_lock when INIT_REPLICA_GROUPS copies the
 *                                program's groups. Taken by the mmap
 *                                handler with mmap_lock held, so no user
 *                                memory is touched under it.
 *  3. hosts_lock                 the list of host agents (host.c). Under
 *                                op_lock when SETUP finds or makes its
 *                                rank's host, or a rank released meanwhile
 *                                leaves it.
 *  4. encd_host.lock             a host agent, its links' host-side state,
 *                                its local ranks' nodes, local barriers and
 *                                early messages. Taken in host.c, link.c,
 *                                world.c and nodeview.c (a dump's walk,
 *                                with no lock held), under op_lock (the
 *                                ioctls) and hosts_lock (the last rank
 *                                leaving); table.c, frames.c, root.c,
 *                                bootstrap.c, barrier.c, pool.c, rank.c and
 *                                nodeview.c's snapshots run under it.
 *  5. encd_init_mutex(nec_dev)   publishing and unpublishing the comms of a
 *                                core in the registry (gcomm.c; registry.c
 *                                asserts it). Taken with none of the
 *                                mutexes above held, and none is taken
 *                                under it.
 *
 * The spinlocks, leaves: nothing is taken or sleeps under them, and none
 * is taken under another.
 *
 *  6. encd_gcomm.rank_lock       which rank a comm has (rank.c, world.c,
 *                                netlink.c). Under a file's lock (SETUP
 *                                makes the rank) and an init mutex (a
 *                                comm's netlink event reads its host's byte
 *                                count).
 *  7. encd_link.tx_lock          a link's send queue (link.c, with
 *                                spin_lock_bh()). Under a host's lock when
 *                                a frame is queued or encd_link_delivered()
 *                                reads the queue.
 *  8. records_lock               the last-failure store (failure.c). Under
 *                                a host's lock (a node's event) and an init
 *                                mutex (a comm's event reads its failure).
 *
 * The module parameters' lock (kernel_param_lock(), the kernel's one mutex
 * for every module's parameters) guards the topology (topology.c) too: a
 * command naming its core takes it under encd_file.lock or op_lock, and
 * nothing is taken under it.
 * Lookups in the registry take no lock: RCU and kref_get_unless_zero().
 */
#ifndef _ENCD_PRIVATE_H
#define _ENCD_PRIVATE_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/err.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/encd.h>
#include <linux/encd_netlink.h>

#include "rules.h"
#include "wire.h"

struct encd_rank;
struct net;
struct netlink_callback;
struct netlink_ext_ack;
struct page;
struct sk_buff;
struct vm_area_struct;

/* Topology: the device broker (topology.c) */

/* What the device broker knows of one virtual NeuronCore. */
struct encd_vcore {
	u32 vnc;
	u32 nec_dev_id;
	u32 mla_idx;
	u32 host_device_id;
	u32 routing_id;
	u32 vtpb_idx;
};

/* What the device broker knows of this host ("tdrv"), read as one snapshot. */
struct encd_host_topology {
	u32 source;		/* enum encd_topo_source */
	bool election;		/* the Neuron driver is electing the pod */
	u32 pod_type;
	u32 pod_node_id;
	u32 pod_sz;
	u64 reservation_id;
	u32 virtual_server_size;
};

/*
 * The neuron source: the Neuron driver's facts, as `encctl topo sync` read
 * them. Devices are indexed by N of /dev/neuronN; one that is not
 * @present has no cores, and the cores of the others keep their numbers.
 */
struct encd_neuron_topology {
	u64 present;		/* bit N: neuronN is there */
	u32 n_slots;		/* the highest N + 1 */
	u32 core_count;		/* of every device */
	u32 routing_id[ENCD_NEURON_MAX_DEVICES];
	u32 pod_type;		/* as the driver says; none off a pod */
	u32 pod_sz;
	s32 node_id;		/* -1: off a pod, or single-node mode */
	bool election;
	u64 reservation_id;
};

/* The cores a sync took away, with the device each was on. */
struct encd_topology_gone {
	DECLARE_BITMAP(cores, ENCD_NEC_MAX_DEVICES);
	u32 mla_idx[ENCD_NEC_MAX_DEVICES];
};

/* Which fields of a host topology encd_topology_set_host() writes. */
#define ENCD_TOPO_POD_TYPE		BIT(0)
#define ENCD_TOPO_POD_NODE_ID		BIT(1)
#define ENCD_TOPO_POD_SZ		BIT(2)
#define ENCD_TOPO_RESERVATION_ID	BIT(3)
#define ENCD_TOPO_VIRTUAL_SERVER_SIZE	BIT(4)

u32 encd_topology_num_vcores(void);
int encd_topology_get_vcore(u32 vnc, struct encd_vcore *vcore);
int encd_topology_get(u32 vnc, struct encd_vcore *vcore, struct encd_host_topology *host);
time64_t encd_topology_snapshot(struct encd_host_topology *host,
				struct encd_neuron_topology *facts, u32 *num_vcores);
int encd_topology_set_host(const struct encd_host_topology *host, unsigned int which);
int encd_neuron_topology_check(const struct encd_neuron_topology *facts,
			       struct netlink_ext_ack *extack);
unsigned int encd_topology_sync(const struct encd_neuron_topology *facts,
				struct encd_topology_gone *gone);
int encd_topology_init(void);

/* /dev/encd: open files and ioctl calls (cdev.c) */

#define ENCD_SLOTS	(ENCD_NEC_MAX_DEVICES * ENCD_MAX_CONTEXTS)
#define ENCD_MSG_MAX	256

struct encd_program;

/* One open file of /dev/encd. */
struct encd_file {
	struct mutex lock;	/* guards held and programs */
	/* slot (see encd_slot()) -> this fd holds the comm */
	DECLARE_BITMAP(held, ENCD_SLOTS);
	struct encd_program *programs[ENCD_SLOTS];
};

/*
 * Why something failed, as its callers are told: the errno, the reason
 * (enum encd_reason, the uapi's) and the sentence. A failure kept for later
 * callers (a rank's, a comm node's, a world's on this host) is one of these,
 * and is handed on whole, so that the reason a caller gets is the one the
 * failure had where it happened.
 */
struct encd_why {
	int err;			/* negative */
	u32 reason;
	char msg[ENCD_MSG_MAX];
};

u32 encd_reason_of(int err);
u32 encd_reason_of_link_down(int err);
u32 encd_reason_from_wire(__be32 reason, int err);
__printf(4, 0) void encd_why_set(struct encd_why *why, int err, u32 reason, const char *fmt,
				 va_list args);

/* One ioctl call in flight. */
struct encd_ucmd {
	struct encd_file *file;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
	struct encd_why why;
};

/* The registry slot of (nec_dev, ctx_id): the index of held and programs. */
static inline unsigned int encd_slot(u32 nec_dev, u32 ctx_id)
{
	return nec_dev * ENCD_MAX_CONTEXTS + ctx_id;
}

__printf(3, 4) int encd_fail(struct encd_ucmd *ucmd, int err, const char *fmt, ...);
__printf(4, 5) int encd_fail_why(struct encd_ucmd *ucmd, int err, u32 reason, const char *fmt, ...);
int encd_fail_kept(struct encd_ucmd *ucmd, const struct encd_why *why);
int encd_ucmd_respond(struct encd_ucmd *ucmd, size_t cmd_len);

/* encd_ucmd_get_gcomm() flags */
#define ENCD_UCMD_HELD		BIT(0)	/* the calling file must hold the comm */
#define ENCD_UCMD_LOCKED	BIT(1)	/* and the caller holds its lock */

int encd_ucmd_slot(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, unsigned int *slot);
struct encd_gcomm *encd_ucmd_get_gcomm(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id,
				       unsigned int flags);
bool encd_file_holds(struct encd_file *file, unsigned int slot);

int encd_cdev_init(void);
void encd_cdev_exit(void);

/* The registry (registry.c) */

struct encd_gcomm *encd_get_global_comm(u32 nec_dev, u32 ctx_id);
struct encd_gcomm *encd_peek_global_comm(u32 nec_dev, u32 ctx_id);
void encd_set_global_comm(u32 nec_dev, u32 ctx_id, struct encd_gcomm *g);
void encd_clear_global_comm(u32 nec_dev, u32 ctx_id, struct encd_gcomm *g);
struct mutex *encd_init_mutex(u32 nec_dev);
u32 encd_registry_generation(void);
int encd_registry_init(void);
void encd_registry_exit(void);

/* The global communicator (gcomm.c) */

/*
 * The global communicator of one (nec_dev, ctx_id): libnrt's enc_glb_comm.
 * Its identity is written once, before it is published in the registry, and
 * never changes; readers need no lock for it.
 */
struct encd_gcomm {
	struct kref ref;
	struct rcu_head rcu;

	u32 g_device_id;
	u32 g_device_cnt;
	u32 vtpb_idx;
	s32 nec_dev_id;
	s32 mla_idx;
	s32 host_device_id;
	s32 routing_id;
	u32 virtual_server_id;
	u32 pod_type;
	u32 pod_node_id;
	u32 pod_sz;
	u64 reservation_id;
	u32 ctx_id;
	bool check_sigs;
	char root_comm_id[ENCD_ROOT_COMM_ID_MAX];
	u64 serial;
	struct net *net;	/* the builder's, counted: the comm lives there */
	u64 created_ns;		/* CLOCK_BOOTTIME */
	/*
	 * Whose the comm, its core and its rank are: the builder's euid, and
	 * encd's loopback_group when the builder was in it. Only they attach
	 * to it or set it up (encd_gcomm_check_user()).
	 */
	kuid_t owner;
	kgid_t group;		/* INVALID_GID: the owner's alone */

	/* The semaphore-increment value buffer: one page, see sembuf.c. */
	struct page *sem_page;

	/*
	 * How many fds hold the comm. It only rises from non-zero without
	 * the init mutex; it falls, and the comm is unpublished at zero,
	 * under it.
	 */
	atomic_t holders;
	u32 state;		/* enum encd_gcomm_state, READ_ONCE */
	spinlock_t rank_lock;
	struct encd_rank *rank;	/* the rank set up on it (rank.c), counted */
};

/* What BUILD and VALIDATE are asked for. */
struct encd_gcomm_args {
	u32 vnc;
	u32 g_device_id;
	u32 g_device_cnt;
	u32 ctx_id;
	const char *root_comm_id;
	bool check_sigs;
};

struct encd_gcomm *encd_gcomm_build(struct encd_ucmd *ucmd, const struct encd_gcomm_args *a,
				    bool *created);
struct encd_gcomm *encd_gcomm_validate(struct encd_ucmd *ucmd, const struct encd_gcomm_args *a,
				       bool *created);
int encd_gcomm_check_user(struct encd_ucmd *ucmd, const struct encd_gcomm *g);
unsigned int encd_registry_count_owned(kuid_t uid);
void encd_gcomm_unhold(u32 nec_dev, u32 ctx_id);
struct encd_gcomm *encd_gcomm_get(struct encd_gcomm *g);
void encd_gcomm_put(struct encd_gcomm *g);
void encd_gcomm_fill_header(struct encd_gcomm *g, struct encd_glb_comm_header *h);

/* The semaphore-increment value buffer (sembuf.c) */

struct page *encd_sembuf_alloc(void);
void encd_sembuf_free(struct page *page);
int encd_sembuf_mmap(struct page *page, struct vm_area_struct *vma);

/* Programs (program.c) and their signature (signature.c) */

/* A list of global device ids: a slice of the program's id pool. */
struct encd_ids {
	const u32 *id;
	u32 n;
};

/* Ends an owner's chain of ops. */
#define ENCD_OP_CHAIN_END	U32_MAX

/* One op of the queue. Its owner's ops are chained in queue order by @next. */
struct encd_queue_op {
	u64 size_n;
	u32 op;			/* enum encd_op */
	u32 peer;
	u32 dtype;
	u32 alg;
	u32 channel;		/* permute_ring_ch_id */
	u32 next;
};

/* libnrt's enc_replica_group_info. */
struct encd_replica_group {
	u32 group_id;
	s32 rank;		/* -1 for a sendrecv group */
	u32 rank_n;
	s32 src_target_pairs_id;
	u32 stp_idx;		/* index of that stp in the program, or U32_MAX */
	u32 num_ops;
	u32 stream_id;
	u32 bootstrap_rank;
	u32 flags;		/* ENCD_PROG_GROUP_* */
	struct encd_ids participants;
	struct encd_ids bootstrap_participants;
	u32 first_op, last_op;
	/* Its level-1 bytes: encd_program.sig_bytes[sig_off, sig_off + sig_len). */
	size_t sig_off;
	u32 sig_len;
	bool hashed;		/* by the last signing */
	u8 signature[ENCD_SIG_LEN];
};

/* libnrt's enc_src_target_pairs_info. */
struct encd_src_target_pairs {
	u32 id;
	u32 n_pairs;
	const struct encd_ids *pairs;
	struct encd_ids participants;
	u32 first_op, last_op;
	size_t sig_off;
	u32 sig_len;
	bool hashed;
	u8 signature[ENCD_SIG_LEN];
};

/*
 * A loaded program: libnrt's enc_context, as far as collectives go. It is
 * owned by one open file (encd_file.programs[slot]) and guarded by that
 * file's lock. Everything but the state and the signatures is immutable
 * after parsing.
 */
struct encd_program {
	enum encd_program_state state;
	/* The comm it was validated against; counted, so never reused. */
	struct encd_gcomm *g;
	u32 g_device_id;
	u32 g_device_cnt;

	u32 n_groups, n_stps, n_pairs, n_ops, n_ids;
	struct encd_replica_group groups[ENCD_MAX_COMM_N];
	struct encd_src_target_pairs *stps;
	struct encd_ids *pairs;
	struct encd_queue_op *ops;
	u32 *ids;
	/* What each group's and stp's level-1 digest covers; see signature.c. */
	u8 *sig_bytes;

	bool is_signed;
	u32 sig_flags;		/* ENCD_SIG_* of the last signing */
	u8 signature[ENCD_SIG_LEN];
};

struct encd_program *encd_program_find(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id);
int encd_program_seal(struct encd_ucmd *ucmd, struct encd_program *prog);
void encd_program_release_file(struct encd_file *file);
int encd_program_ioctl_load(struct encd_ucmd *ucmd);
int encd_program_ioctl_sign(struct encd_ucmd *ucmd);
int encd_program_ioctl_get_signatures(struct encd_ucmd *ucmd);
int encd_program_ioctl_seal(struct encd_ucmd *ucmd);

int encd_program_sign(struct encd_ucmd *ucmd, struct encd_program *prog, u32 flags);
int encd_signature_prepare(struct encd_program *prog);
int encd_signature_init(void);
void encd_signature_exit(void);

/* kvmalloc'ed copy of @len bytes (6.1 has no kvmemdup()). */
void *encd_kvmemdup(const void *src, size_t len);

/* The bootstrap (wire.h has the protocol) */

struct crypto_shash;
struct encd_listener;
struct encd_node;
struct mem_cgroup;
struct socket;

/* Where a world key comes from (auth.c). */
enum encd_key_kind {
	ENCD_KEY_SECRET,	/* the ranks' world secret */
	ENCD_KEY_LOOPBACK,	/* this kernel's own: a loopback world */
	ENCD_KEY_INSECURE,	/* none: only where the administrator allows it */
};

/*
 * What makes ranks of this kernel the same world's, and so share a host
 * agent: the network namespace, the root's address, the world size, the
 * world key (a loopback world's binds its owner: a user, or the
 * loopback_group), and (when TCP is forced between local ranks) the rank
 * itself.
 */
struct encd_world_key {
	struct net *net;
	struct sockaddr_storage root;
	u32 world_size;
	u32 solo;			/* a rank with a host of its own, or U32_MAX */
	u8 key[ENCD_KEY_LEN];
};

enum encd_host_state {
	ENCD_HOST_GATHERING,		/* ranks are registering */
	ENCD_HOST_FORMED,		/* the table is here */
	ENCD_HOST_FAILED,		/* the world failed: see failure */
	ENCD_HOST_DEAD,			/* no ranks left, shutting down */
};

/*
 * The ranks that left a host's formed world (departure.c), under the host's
 * lock.
 */
struct encd_departures {
	struct xarray ranks;		/* a run's last rank -> the run (departure.c) */
	u32 n;
	u32 first_rank;			/* the first heard of, for local barriers */
	u32 world_rank;			/* the one that completed the fewest world barriers */
};

/* Blocks or runs of departures (news.c), growing. */
struct encd_news_buf {
	u8 *data;
	size_t len, cap;
};

/* A host's news of departures that waits for its batch to end (news.c). */
struct encd_news {
	struct delayed_work work;
	struct encd_news_buf own;	/* runs of this host's ranks */
	size_t own_last;		/* the last run's offset in @own */
	struct encd_news_buf down;	/* blocks to pass to its children */
	bool parent_gone;		/* no news comes down the tree any more */
};

/*
 * One host of a formed world, by its index in the table: what every host
 * keeps of every other, 24 bytes (the links it sends on are in the host's
 * @outs, for the few hosts it talks to).
 */
struct encd_peer_host {
	struct encd_wire_addr addr;	/* its listener, checked and in a normal form */
	u32 staying;			/* its ranks that have not departed */
};

struct encd_root_state;

/*
 * The host agent (host.c): this kernel's member of a world, speaking for
 * all its local ranks. Made by the first local rank that sets the world up,
 * gone when the last one leaves. @lock guards what changes in it, its
 * links' host-side fields, and its ranks' nodes and early messages.
 */
struct encd_host {
	struct kref ref;
	struct list_head node;		/* in the hosts list, while it has ranks */
	struct encd_world_key wk;
	struct crypto_shash *world;	/* HMAC keyed with wk.key bound to the world */
	u8 id[ENCD_HOST_ID_LEN];
	struct mem_cgroup *memcg;	/* of the rank that made it */
	struct work_struct shutdown_work;
	struct work_struct register_work;
	atomic64_t sent_bytes;		/* on every link: netlink's host-tx-bytes */

	struct mutex lock;
	enum encd_host_state state;
	bool linger;			/* its ranks departed a formed world */
	bool forwarding;		/* no ranks left: passes news on (news.c) */
	struct encd_why failure;	/* the world's, once it FAILED */
	struct xarray ranks;		/* g_device_id -> struct encd_rank */
	u32 n_ranks;
	struct list_head unsent;	/* ranks the root has not heard of */
	struct list_head links;		/* every link */
	struct list_head pending;	/* responders in their handshake */
	u32 n_pending;
	struct encd_listener *listener;
	struct sockaddr_storage listen_addr;
	struct encd_link *uplink;	/* to the root host, unless this is it */
	bool uplink_up;
	struct encd_root_state *root;	/* this is the root host (root.c) */
	DECLARE_HASHTABLE(lbarriers, 6);

	/*
	 * The formed world: the table, and the messages moving within it.
	 * @has_table says the table came, whole and checked; until it does,
	 * @hosts, @rank_host, @n_hosts, @index and @token mean nothing.
	 */
	bool has_table;
	u64 token;
	u32 index;			/* this host's, in the table */
	u32 n_hosts;
	struct encd_peer_host *hosts;
	u32 *rank_host;			/* world_size host indices */
	struct xarray outs;		/* host index -> the data link this host sends on */
	struct list_head local_q;	/* local deliveries to run */
	struct list_head pre_table;	/* messages that came before the table */
	/*
	 * The table's digest from the root, and a table from this host's
	 * parent that came before it (table.c).
	 */
	bool have_digest;
	struct encd_wire_digest digest;
	void *held_table;
	u32 held_len;
	struct encd_link *held_from;
	/* A table that comes in parts, until it is whole (table.c). */
	u8 *table_in;
	u32 table_in_len, table_in_total;
	struct encd_link *table_in_from;

	/* Ranks that left the formed world (departure.c), and the news of them (news.c). */
	struct encd_departures dep;
	u32 subtree_staying;		/* ranks left in its subtree of the host tree */
	struct encd_news news;

	/*
	 * Passing news on with no ranks (host.c): its deadline, and its
	 * place among the hosts that do, which are bounded.
	 */
	kuid_t uid;			/* of the rank that made it */
	struct list_head fwd_node;	/* in the forwarders list (hosts_lock) */
	struct delayed_work fwd_work;	/* its deadline */
	u64 fwd_since;			/* boottime ns, when its last rank left */
	u64 fwd_until;			/* boottime ns, its deadline */
	bool fwd_over;			/* its deadline passed or its bound ended it */
};

/*
 * A link (link.c): one authenticated TCP connection to another host. The
 * fields up to the handshake's are its host's, under the host's lock; the
 * rest are link.c's, used by the link's own works. Only link.c touches
 * them, but for the early budget (early.c): the other files ask its
 * accessors (encd_link_peer() and its siblings).
 */
struct encd_link {
	struct encd_host *host;		/* counted */
	struct list_head node;		/* in host->links */
	struct list_head pending;	/* in host->pending, before its handshake */
	struct sockaddr_storage addr;	/* the peer: where it connects, or who called */
	u32 purpose;			/* enum encd_link_purpose */
	bool initiator;
	bool retry;			/* keep trying while nobody listens there */
	bool dead;			/* closed: its works do nothing more */
	bool up;			/* its handshake finished */
	bool awaiting_first;		/* a responder waits for JOIN or LINK */
	bool stranger;			/* a responder: no host of the world is at its address */
	u32 peer;			/* the peer's host index, or U32_MAX */
	u64 link_token;			/* what its LINK claimed */
	u64 opened_ns;			/* made (boot time): it connects, or was called */
	u64 handshake_ns;		/* from then to the end of its handshake, once up */
	u32 early_n;			/* its messages nobody asked for yet */
	u32 early_bytes;

	/* the handshake, the keys, receiving: the link's work */
	u8 phase;
	u32 attempts;			/* connects tried */
	u32 cut_off;			/* handshakes the responder dropped */
	unsigned long deadline;		/* of the connect or the handshake */
	unsigned long give_up;		/* an initiator stops trying again then */
	u8 nonce_i[ENCD_NONCE_LEN], nonce_r[ENCD_NONCE_LEN];
	struct crypto_shash *rx_tfm;
	struct crypto_shash *tx_next;	/* an initiator's send key, until WELCOME */
	u64 rx_seq;
	u32 rx_got, rx_need;
	u8 *rx_buf;
	u8 rx_small[sizeof(struct encd_wire_hdr) + 256 + ENCD_TAG_LEN];
	struct socket *sock;

	/* sending */
	spinlock_t tx_lock;
	struct list_head hs_q, tx_q;	/* handshake frames first */
	size_t tx_queued;
	size_t tx_news_tail;		/* departures' bytes at the tail of tx_q */
	int tx_err;			/* the socket refused a frame: no more */
	bool tx_paused;			/* set under tx_lock: a retry swaps the socket */
	u8 tx_err_type;			/* that frame's type */
	struct crypto_shash *tx_tfm;	/* set under tx_lock: the link may send */
	struct encd_txframe *tx_cur;	/* the tx work's */
	u32 tx_off;
	u64 tx_seq;

	struct delayed_work work;
	struct work_struct tx_work;
	struct work_struct free_work;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
};

/*
 * A message from one rank to a rank of this host: on the host's local
 * queue, handed over inside the module, or on the receiver's early list,
 * waiting for its node to start.
 */
struct encd_msg {
	struct list_head node;
	struct encd_link *charged;	/* early: the link whose budget it uses, or NULL */
	unsigned long expires;		/* early: jiffies */
	u8 type;
	u32 src, dst, tag, attempt, len;
	u8 body[ENCD_WIRE_UID_LEN];
};

/* Messages one node sent and received, by type and size (for tests). */
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

/* The signature mismatch a rank saw, if any. */
struct encd_mismatch_rec {
	bool valid;
	u32 group_id;		/* ENCD_GROUP_GLOBAL: the world's own */
	u32 child_rank;		/* bootstrap rank */
	u32 child_g_device_id;
	u8 local_sig[ENCD_SIG_LEN];
	u8 child_sig[ENCD_SIG_LEN];
};

/* A dissemination barrier over a node's comm (barrier.c). */
struct encd_gbarrier {
	u32 epoch;		/* barriers started; messages carry it */
	u32 round;
	u64 sent, got;		/* rounds, as bits */
	bool active;
	int err;
};

/*
 * A comm node (libnrt's enc_nccl_comm_node, pool.c) and its bootstrap
 * (bootstrap.c): one per distinct bootstrap_participants in a rank's
 * (stream) pool, shared by every replica group of the rank with that key,
 * plus the world's own. Under its host's lock.
 */
struct encd_node {
	struct kref ref;
	struct hlist_node hnode;	/* in its pool */
	bool in_pool;
	struct encd_rank *rank;		/* its owner, which outlives it */
	/*
	 * bootstrap_participants: global device ids; NULL for the world's
	 * node, whose participants are every rank in order (a world of a
	 * million ranks would cost 4 MiB a local rank): encd_node_member().
	 */
	u32 *key;
	u32 rank_n;
	u32 brank;			/* this rank's bootstrap rank */
	u32 tag;			/* hash of key and stream: its messages' tag */
	u32 stream_id;
	u32 group_id;			/* the group that made it, or ENCD_GROUP_GLOBAL */
	u32 groups;			/* bit mask of the groups bound to it */
	bool global;
	u32 state;			/* enum encd_node_state, READ_ONCE */
	struct encd_why why;		/* why it failed */
	bool msg_names_comm;		/* msg says which comm failed to init */
	u64 hits;			/* pool lookups that found it */

	/* the bootstrap */
	u32 attempt;
	int ph;				/* its phase, enum encd_phase */
	bool check;			/* signatures are validated */
	u8 sig[ENCD_SIG_LEN];
	u8 children_got;		/* bit i: tree child i's signature came */
	bool match;
	bool sig_sent;
	bool mismatch_seen;
	bool uid_got, valid;
	u64 uid_magic;
	u8 uid[ENCD_UID_LEN];
	bool ring_sent, ring_got;
	u8 ring_uid[ENCD_UID_LEN];

	/* the local barrier: the bootstrap's last step, then the ioctls' */
	struct encd_lbarrier *lb;
	struct list_head lb_node;
	u32 local_n;			/* the group's ranks on this host */
	bool lb_arrived;		/* the bootstrap's arrival */
	bool lb_waiting;
	bool lb_broken;			/* a rank of it left: it never completes */
	u64 lb_gen;

	struct encd_gbarrier bar;
	u64 phase_start[ENCD_PHASE_N];	/* CLOCK_BOOTTIME, by enum encd_phase */
	u64 phase_ns[ENCD_PHASE_N];
	struct encd_msg_stats stats;
};

struct encd_pool {
	DECLARE_HASHTABLE(table, 6);
};

/* A rank's life in a world (rank.c, world.c). */
enum encd_rank_state {
	ENCD_RANK_JOINING,		/* set up, not registered with a host yet */
	ENCD_RANK_REGISTERED,		/* waiting for the world to form */
	ENCD_RANK_FORMED,		/* the world's own node is ready */
	ENCD_RANK_FAILED,		/* see err and msg */
};

/*
 * One rank of a world, on its global comm: what libnrt keeps in enc_glb_comm
 * once it is bootstrapped. It belongs to the file that set it up, and to its
 * host agent, under whose lock it changes once registered.
 */
struct encd_rank {
	struct kref ref;
	struct encd_gcomm *g;		/* counted */
	struct encd_file *owner;
	struct encd_host *host;		/* counted, once registered */
	struct list_head unsent;	/* in host->unsent */
	u32 id;				/* g_device_id */
	u32 settings;			/* ENCD_WIRE_CHECK_SIGS, ... */
	u32 timeout_ms;			/* the default of its operations */
	struct mutex op_lock;		/* one operation at a time */
	wait_queue_head_t wq;		/* its operations wait here */
	bool released;			/* its comm was released: it is leaving */

	enum encd_rank_state state;	/* READ_ONCE */
	bool formed;			/* it was FORMED once, failed since or not */
	struct encd_why why;		/* why it FAILED */
	struct list_head early;		/* struct encd_msg */
	u32 n_early;
	struct xarray attempts;		/* node tag -> bootstraps that failed */
	struct encd_pool pools[ENCD_MAX_STREAM_N];
	struct encd_node *global_node;
	struct encd_node *groups[ENCD_MAX_COMM_N];
	bool bound[ENCD_MAX_COMM_N];
	u64 rendezvous_start;		/* CLOCK_BOOTTIME */
	u64 rendezvous_ns;
	struct encd_mismatch_rec mismatch;
};

/* auth.c */
struct crypto_shash *encd_auth_tfm(const u8 *key, u32 len);
struct crypto_shash *encd_auth_world_tfm(const u8 *key, const struct sockaddr_storage *root);
int encd_auth_world_key(enum encd_key_kind kind, const u8 *secret, u32 len, const __be32 *owner,
			u8 *key);
int encd_auth_proof(struct crypto_shash *world, bool initiator, u32 purpose, const u8 *nonce_i,
		    const u8 *nonce_r, u8 *proof);
bool encd_auth_proof_ok(struct crypto_shash *world, bool initiator, u32 purpose,
			const u8 *nonce_i, const u8 *nonce_r, const u8 *proof);
int encd_auth_link_tfms(struct crypto_shash *world, const u8 *nonce_i, const u8 *nonce_r,
			struct crypto_shash **i2r, struct crypto_shash **r2i);
int encd_auth_tag(struct crypto_shash *link, u64 seq, const void *frame, size_t len, u8 *tag);
bool encd_auth_tag_ok(struct crypto_shash *link, u64 seq, const void *frame, size_t len,
		      const u8 *tag);
void encd_auth_init(void);
void encd_auth_exit(void);

/* addr.c */
int encd_addr_parse(const char *s, struct sockaddr_storage *ss);
void encd_addr_set_port(struct sockaddr_storage *ss, u16 port);
bool encd_addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
void encd_addr_to_wire(const struct sockaddr_storage *ss, struct encd_wire_addr *w);
int encd_addr_from_wire(const struct encd_wire_addr *w, struct sockaddr_storage *ss);
const char *encd_errno_name(int err);

/* netpolicy.c */
/* What a sentence shows of the networks parameter: its start, at most. */
#define ENCD_NETWORKS_SHOWN	96
bool encd_addr_is_loopback(const struct sockaddr_storage *ss);
bool encd_addr_allowed(const struct sockaddr_storage *ss, const struct sockaddr_storage *root);
void encd_networks_show(char *out, size_t size);
char *encd_networks_dup(void);

/* link.c */
struct encd_link *encd_link_connect(struct encd_host *h, const struct sockaddr_storage *to,
				    u32 purpose, bool retry);
int encd_link_send(struct encd_link *l, u8 type, const void *a, u32 alen, const void *b,
		   u32 blen);
int encd_link_send_first(struct encd_link *l, u8 type, const void *p, u32 len);
void encd_link_close(struct encd_link *l);
bool encd_link_idle(struct encd_link *l);
bool encd_link_delivered(struct encd_link *l);
bool encd_link_is_data(const struct encd_link *l);
bool encd_link_initiator(const struct encd_link *l);
const struct sockaddr_storage *encd_link_addr(const struct encd_link *l);
int encd_link_local_addr(struct encd_link *l, struct sockaddr_storage *ss);
bool encd_link_up(const struct encd_link *l);
u64 encd_link_handshake_ns(const struct encd_link *l);
u32 encd_link_rtt_us(const struct encd_link *l);
bool encd_link_awaits_first(const struct encd_link *l);
void encd_link_said_who(struct encd_link *l);
u32 encd_link_peer(const struct encd_link *l);
u64 encd_link_token(const struct encd_link *l);
void encd_link_set_peer(struct encd_link *l, u32 index, u64 token);
int encd_link_send_depart(struct encd_link *l, const void *p, u32 len, bool news);
void encd_link_work(struct work_struct *w);
void encd_link_tx_work(struct work_struct *w);
void encd_link_queue_work(struct work_struct *w);
void encd_link_queue_delayed(struct delayed_work *w, unsigned long delay);
int encd_listener_start(struct encd_host *h, const struct sockaddr_storage *addr);
void encd_listener_stop(struct encd_listener *ls);
int encd_link_init(void);
void encd_link_exit(void);

/* host.c: registration and lifetime */
struct encd_host *encd_host_find(const struct encd_world_key *wk);
struct encd_host *encd_host_get(struct encd_host *h);
void encd_host_put(struct encd_host *h);
int encd_host_register(struct encd_host *h, struct encd_rank *r);
void encd_host_leave(struct encd_host *h, struct encd_rank *r);
void encd_host_shutdown_work(struct work_struct *w);
void encd_host_forwarded(struct encd_host *h);
void encd_hosts_exit(void);

/* What netlink shows of a host that passes news on with no ranks (host.c). */
struct encd_news_host_report {
	struct sockaddr_storage root;	/* its world's */
	u32 world_size, index;
	kuid_t uid;			/* of the rank that made it */
	u64 age_ns, left_ns;		/* since its last rank left; to its deadline */
	u32 links, children;		/* open */
	bool parent;			/* news can still come from its parent */
	u32 staying;			/* ranks of its subtree that have not left */
};

int encd_host_news_report(struct net *net, u32 pos, struct encd_news_host_report *out);
__printf(6, 7) void encd_host_fail_world(struct encd_host *h, int err, u32 reason, u32 rank,
					 bool tell, const char *fmt, ...);
void encd_host_describe(struct encd_host *h, u32 index, struct encd_link *l, char *buf,
			size_t size);
void encd_host_send_registrations(struct encd_host *h);
/* table.c: the table and routing */
int encd_host_take_table(struct encd_host *h, const void *buf, u32 len, struct encd_link *from,
			 char *why, size_t why_len);
int encd_host_send(struct encd_host *h, u32 src, u32 dst, u8 type, u32 tag, u32 attempt,
		   const void *body, u32 len);
void encd_host_run(struct encd_host *h);
void encd_host_drop_pre_table(struct encd_host *h, struct encd_link *l);
bool encd_host_knows_addr(struct encd_host *h, const struct sockaddr_storage *addr);
void encd_host_peer_addr(struct encd_host *h, u32 index, struct sockaddr_storage *ss);
struct encd_link *encd_host_out(struct encd_host *h, u32 index);
void encd_host_out_gone(struct encd_host *h, u32 index, struct encd_link *l);
int encd_host_take_digest(struct encd_host *h, const void *buf, u32 len, char *why,
			  size_t why_len);
void encd_host_table_digest(const void *buf, u32 len, u8 *out);
int encd_host_table_part(struct encd_host *h, const void *buf, u32 len, struct encd_link *from,
			 char *why, size_t why_len);
void encd_table_send(struct encd_link *l, const void *buf, u32 len);
int encd_host_route_ok(struct encd_host *h, struct encd_link *l, u8 type, u32 src, u32 dst,
		       char *why, size_t why_len);
/* frames.c: what links carry, and links coming and going */
bool encd_host_accepts(const struct encd_link *l, u8 type);
int encd_host_link_up(struct encd_host *h, struct encd_link *l);
void encd_host_link_down(struct encd_host *h, struct encd_link *l, int err, const char *why);
int encd_host_frame(struct encd_host *h, struct encd_link *l, u8 type, const void *buf, u32 len,
		    char *why, size_t why_len);
void encd_host_violation(struct encd_host *h, struct encd_link *l, const char *why);

/* departure.c */
/* The replica groups' comms a leaving rank formed, for its news. */
struct encd_departure_list {
	struct encd_wire_departed_comm *comms;
	u32 n, size;
	int err;			/* they could not be listed */
};

void encd_departures_init(struct encd_departures *d);
void encd_departures_destroy(struct encd_departures *d);
void encd_departure_text(char *text, size_t size, u32 rank, u32 told_by);
bool encd_departure_blocker(struct encd_host *h, struct encd_node *node, enum encd_wait what,
			    u32 barrier, struct encd_why *why);
bool encd_departure_host_left(struct encd_host *h, u32 index);
u32 encd_departure_collect(struct encd_rank *r, struct encd_departure_list *l);
void encd_departure_list_free(struct encd_departure_list *l);
void encd_departure_local(struct encd_host *h, u32 rank, u32 barriers,
			  const struct encd_departure_list *l);
int encd_departure_note(struct encd_host *h, u32 first, u32 count, u32 barriers,
			const struct encd_wire_departed_comm *comms, u32 n_comms, bool settles,
			u32 told_by, enum encd_news_via via);
u32 encd_departure_heard(struct encd_host *h, u32 first, u32 count, enum encd_news_via via);

/* news.c */
void encd_news_init(struct encd_host *h);
void encd_news_destroy(struct encd_host *h);
int encd_news_local(struct encd_host *h, u32 rank, u32 barriers,
		    const struct encd_departure_list *l);
void encd_news_flush(struct encd_host *h);
void encd_news_link_gone(struct encd_host *h, struct encd_link *l);
bool encd_news_passes_on(struct encd_host *h);
u32 encd_news_children(struct encd_host *h);
void encd_news_work(struct work_struct *w);
int encd_news_receive(struct encd_host *h, struct encd_link *l, const u8 *buf, u32 len,
		      char *why, size_t why_len);

/* root.c */
struct encd_root_state *encd_root_alloc(struct encd_host *h, struct encd_rank *r0);
void encd_root_free(struct encd_root_state *rs);
void encd_root_register_local(struct encd_host *h, struct encd_rank *r);
int encd_root_frame(struct encd_host *h, struct encd_link *l, u8 type, const void *buf, u32 len,
		    char *why, size_t why_len);
void encd_root_link_down(struct encd_host *h, struct encd_link *l, int err, const char *why);
void encd_root_broadcast(struct encd_host *h, u8 type, const void *a, u32 alen, const void *b,
			 u32 blen);
void encd_root_send_table(struct encd_host *h, u32 index, const void *buf, u32 len);
struct encd_link *encd_root_link_of(struct encd_host *h, u32 index);
u32 encd_root_index_of(struct encd_host *h, struct encd_link *l);
bool encd_root_ranks_of(struct encd_host *h, struct encd_link *l, u32 *first, u32 *last, u32 *n);
u32 encd_root_missing(struct encd_host *h, char *buf, size_t size);
bool encd_root_knows_addr(struct encd_host *h, const struct sockaddr_storage *addr);

/* A host of a world as its root saw it come (netlink's world-host-get). */
struct encd_root_host_report {
	struct sockaddr_storage addr;	/* its listener */
	u32 index, world_size;
	u32 ranks, first_rank;		/* registered */
	u64 joined_ns, registered_ns;	/* after rank 0 arrived; 0 for none */
	u64 handshake_ns;		/* its control link's; 0 for the root */
	bool connected;			/* its control link is there (never the root's) */
	u32 rtt_us;			/* that link's, as TCP measures it */
	u32 missing_n;			/* the root's only: ranks not registered */
	u32 n_missing;
	u32 missing[ENCD_WORLD_HOST_MISSING_MAX];	/* the first of them */
};

int encd_root_report(struct encd_host *h, u32 index, struct encd_root_host_report *out);
bool encd_root_has(struct encd_host *h, struct encd_link *l, u32 rank);

/* bootstrap.c */
void encd_node_count(struct encd_node *node, u8 type, u32 len, bool sent);
int encd_engine_deliver(struct encd_host *h, struct encd_rank *r, struct encd_link *from,
			u8 type, u32 src, u32 tag, u32 attempt, const void *body, u32 len,
			char *why, size_t why_len);
void encd_engine_take_early(struct encd_host *h, struct encd_rank *r, struct encd_node *node,
			    u8 type, u32 attempt);
/* Early messages (early.c) */
int encd_early_store(struct encd_rank *r, struct encd_link *from, u8 type, u32 src, u32 tag,
		     u32 attempt, const void *body, u32 len, char *why, size_t why_len);
int encd_early_charge(struct encd_msg *e, struct encd_link *l, char *why, size_t why_len);
void encd_early_uncharge(struct encd_msg *e);
void encd_early_drop(struct encd_rank *r, struct encd_msg *e);
struct encd_msg *encd_msg_new(u8 type, u32 src, u32 dst, u32 tag, u32 attempt, const void *body,
			      u32 len);
void encd_engine_node_start(struct encd_host *h, struct encd_node *node, const u8 *sig,
			    bool check);
void encd_engine_world_start(struct encd_rank *r);
void encd_engine_world_failed(struct encd_rank *r);
void encd_engine_departure(struct encd_rank *r);
void encd_engine_check_departed(struct encd_host *h, struct encd_node *node);
void encd_engine_rank_gone(struct encd_host *h, struct encd_rank *r);
void encd_engine_link_gone(struct encd_host *h, struct encd_link *l);
void encd_engine_lbarrier_done(struct encd_node *node);
void encd_engine_awaited(struct encd_node *node, char *buf, size_t size);

/* barrier.c */
int encd_lbarrier_join(struct encd_host *h, struct encd_node *node);
bool encd_lbarrier_withdraw(struct encd_node *node);
void encd_lbarrier_leave(struct encd_node *node);
bool encd_lbarrier_broken(struct encd_node *node);
void encd_lbarrier_arrive(struct encd_node *node);
void encd_lbarrier_counts(struct encd_node *node, u32 *arrived, u32 *n);
void encd_gbarrier_start(struct encd_host *h, struct encd_node *node);
void encd_gbarrier_stop(struct encd_node *node, int err);
bool encd_node_completed(struct encd_node *node, u32 *barriers);
int encd_gbarrier_deliver(struct encd_host *h, struct encd_node *node, u32 src, const void *body,
			  char *why, size_t why_len);
void encd_gbarrier_awaited(struct encd_node *node, char *buf, size_t size);

/* pool.c */
/* Participant @i of @node: a global device id. */
static inline u32 encd_node_member(const struct encd_node *node, u32 i)
{
	return node->key ? node->key[i] : i;
}

u32 encd_node_tag(u32 stream_id, const u32 *key, u32 n, bool global);
struct encd_node *encd_pool_find(struct encd_rank *r, u32 stream_id, const u32 *key, u32 n);
struct encd_node *encd_node_by_tag(struct encd_rank *r, u32 tag);
struct encd_node *encd_node_alloc(struct encd_rank *r, u32 stream_id, const u32 *key, u32 n,
				  u32 brank, u32 group_id);
struct encd_node *encd_node_get(struct encd_node *node);
void encd_node_put(struct encd_node *node);
void encd_node_unpool(struct encd_node *node);
u32 encd_node_users(struct encd_node *node);
void encd_pool_init(struct encd_rank *r);
int encd_pool_for_each(struct encd_rank *r, int (*fn)(struct encd_node *node, void *arg),
		       void *arg);

/* params.c */
u32 encd_timeout_ms(u32 asked, u32 dflt);
bool encd_local_delivery(void);
bool encd_allow_insecure_worlds(void);
kgid_t encd_loopback_group(void);
unsigned int encd_max_comms_per_user(void);
u32 encd_forwarding_timeout_ms(void);
u32 encd_forwarding_hosts_max(void);
u32 encd_forwarding_hosts_per_user(void);

/* rank.c */
__printf(4, 5) int encd_rank_fail(struct encd_rank *r, int err, u32 reason, const char *fmt, ...);
void encd_rank_put(struct encd_rank *r);
struct encd_rank *encd_gcomm_rank(struct encd_gcomm *g);
void encd_world_cores_gone(const struct encd_topology_gone *gone);
struct encd_rank *encd_rank_alloc(struct encd_gcomm *g, struct encd_file *owner,
				  u32 timeout_ms, u32 settings);

/* worldkey.c */
int encd_world_key_setup(struct encd_ucmd *ucmd, struct encd_gcomm *g,
			 const struct encd_setup_global_comm *cmd, struct encd_world_key *wk);

/* world.c */
int encd_world_ioctl_setup(struct encd_ucmd *ucmd);
int encd_world_ioctl_init_groups(struct encd_ucmd *ucmd);
int encd_world_ioctl_barrier(struct encd_ucmd *ucmd);
int encd_world_ioctl_node_info(struct encd_ucmd *ucmd);
void encd_world_release(struct encd_file *file, u32 nec_dev, u32 ctx_id);

/* fault.c: fault injection, in test builds */
enum encd_fault_point {
	ENCD_FAULT_SOCK_CREATE,
	ENCD_FAULT_BIND,
	ENCD_FAULT_LISTEN,
	ENCD_FAULT_CONNECT,
	ENCD_FAULT_ACCEPT,
	ENCD_FAULT_SEND,
	ENCD_FAULT_RECV,
	ENCD_FAULT_CRYPTO,
	ENCD_FAULT_TABLE_ALLOC,
	ENCD_FAULT_N
};

#ifdef ENCD_FAULT_INJECTION
int encd_fault(enum encd_fault_point point);
void encd_fault_init(void);
void encd_fault_exit(void);
#else
static inline int encd_fault(enum encd_fault_point point)
{
	return 0;
}

static inline void encd_fault_init(void)
{
}

static inline void encd_fault_exit(void)
{
}
#endif

/* The "encd" generic netlink family (netlink.c, failure.c) */

/* One timed step (enum encd_phase); @duration_ns 0 while it runs. */
struct encd_nl_phase {
	u32 id;
	u64 start_ns;		/* CLOCK_BOOTTIME */
	u64 duration_ns;
};

/* Messages of one type and size a node sent and received. */
struct encd_nl_counter {
	u32 type;		/* enum encd_msg_type */
	u32 size;
	u64 tx;
	u64 rx;
};

/* Why a bootstrap failed; a field that does not apply is -1 (or NULL). */
struct encd_nl_error {
	int err;		/* the negative errno the callers got */
	u32 reason;		/* enum encd_reason, beside @msg */
	const char *msg;
	s32 phase;		/* enum encd_phase */
	s32 peer_rank;
	s32 peer_g_device_id;
	s32 group_id;
	const u8 *local_sig;	/* ENCD_SIG_LEN bytes */
	const u8 *peer_sig;
};

/* A consistent snapshot of one comm node, for a dump or an event. */
struct encd_nl_node {
	u32 nec_dev;
	u32 ctx_id;
	u32 stream_id;
	u64 gcomm_serial;
	const u32 *participants;	/* rank_n global device ids: the key (NULL: 0..rank_n-1) */
	u32 rank;
	u32 rank_n;
	u32 refcnt;
	u32 state;			/* enum encd_node_state */
	bool global;
	u32 groups;			/* bit mask of replica group ids */
	const struct encd_nl_phase *phases;
	unsigned int n_phases;
	const struct encd_nl_counter *counters;
	unsigned int n_counters;
	const struct encd_nl_error *error;	/* NULL: none */
};

/*
 * What is shown of a comm node (nodeview.c), taken under its host's lock:
 * what netlink puts (@n, pointing into the rest) and what NODE_INFO adds.
 */
struct encd_node_snapshot {
	struct encd_nl_node n;
	struct encd_nl_phase phases[ENCD_PHASE_N];
	struct encd_nl_counter counters[ENCD_COUNTERS_MAX];
	u32 local_n;
	u64 hits;
};

void encd_node_snapshot(struct encd_node *node, struct encd_node_snapshot *s);
void encd_node_notify(struct encd_node *node, u8 cmd, const struct encd_nl_error *e);
int encd_nodeview_walk(struct encd_gcomm *g, unsigned long *pos,
		       int (*fn)(void *arg, const struct encd_nl_node *node), void *arg);

void encd_nl_notify_gcomm(u8 cmd, struct encd_gcomm *g);
void encd_nl_notify_node(u8 cmd, struct net *net, const struct encd_nl_node *node);
int encd_nl_dump_node(struct sk_buff *skb, struct netlink_callback *cb,
		      const struct encd_nl_node *node);
int encd_netlink_init(void);
void encd_netlink_exit(void);

/* The last failure of a comm's bootstrap (failure.c) */
struct encd_failure {
	u64 serial;		/* of the comm it belongs to; 0: cleared */
	int err;
	u32 reason;
	s32 phase, peer_rank, peer_g_device_id, group_id;
	bool has_local_sig, has_peer_sig;
	u8 local_sig[ENCD_SIG_LEN];
	u8 peer_sig[ENCD_SIG_LEN];
	char msg[ENCD_MSG_MAX];
};

void encd_failure_record(u8 cmd, const struct encd_nl_node *node);
bool encd_failure_get(const struct encd_gcomm *g, struct encd_failure *rec);
void encd_failure_exit(void);

#endif /* _ENCD_PRIVATE_H */
