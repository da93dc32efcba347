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
 * Outermost first; a lock may be taken while holding any lock above it,
 * never one below it. Locks of the same kind never nest (two cores' mutexes,
 * two files' locks) unless stated.
 *
 *  1. encd_setup_mutex(nec_dev)  serialises the bootstrap operations of a
 *                                core (bootstrap.c), taken interruptibly.
 *  2. encd_file.lock             what one open file holds and its
 *                                programs (cdev.c, program.c). Taken by the
 *                                mmap handler with mmap_lock held, so no
 *                                user memory is touched under it.
 *  3. encd_init_mutex(nec_dev)   publishing and unpublishing the comms of a
 *                                core in the registry (gcomm.c, registry.c).
 *  4. encd_pool_view_lock        which nodes the pools hold and which world
 *                                a comm has, for netlink dumps (pool.c).
 *  5. the local barrier table    (barrier.c), then one barrier's spinlock.
 *  6. the last-failure store     (failure.c), a spinlock: innermost,
 *                                nothing is taken or sleeps under it.
 *
 * The topology's parameter lock (kernel_param_lock) is taken alone.
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
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/encd.h>

struct encd_world;
struct net;
struct netlink_callback;
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
	u32 pod_type;
	u32 pod_node_id;
	u32 pod_sz;
	u64 reservation_id;
	u32 virtual_server_size;
};

/* Which fields of a host topology encd_topology_set_host() writes. */
#define ENCD_TOPO_POD_TYPE		BIT(0)
#define ENCD_TOPO_POD_NODE_ID		BIT(1)
#define ENCD_TOPO_POD_SZ		BIT(2)
#define ENCD_TOPO_RESERVATION_ID	BIT(3)
#define ENCD_TOPO_VIRTUAL_SERVER_SIZE	BIT(4)

u32 encd_topology_num_vcores(void);
int encd_topology_get_vcore(u32 vnc, struct encd_vcore *vcore);
void encd_topology_get_host(struct encd_host_topology *host);
void encd_topology_set_host(const struct encd_host_topology *host, unsigned int which);
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

/* One ioctl call in flight. */
struct encd_ucmd {
	struct encd_file *file;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
	char msg[ENCD_MSG_MAX];
};

/* The registry slot of (nec_dev, ctx_id): the index of held and programs. */
static inline unsigned int encd_slot(u32 nec_dev, u32 ctx_id)
{
	return nec_dev * ENCD_MAX_CONTEXTS + ctx_id;
}

__printf(3, 4) int encd_fail(struct encd_ucmd *ucmd, int err, const char *fmt, ...);
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
struct mutex *encd_setup_mutex(u32 nec_dev);
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

	/* The semaphore-increment value buffer: one page, see sembuf.c. */
	struct page *sem_page;

	/*
	 * How many fds hold the comm. It only rises from non-zero without
	 * the init mutex; it falls, and the comm is unpublished at zero,
	 * under it.
	 */
	atomic_t holders;
	u32 state;		/* enum encd_gcomm_state, READ_ONCE */
	/* The world formed on it (world.c), under encd_setup_mutex() */
	struct encd_world *world;
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

/* The bootstrap's ioctls and the file's going (world.c) */

int encd_world_ioctl_setup(struct encd_ucmd *ucmd);
int encd_world_ioctl_init_groups(struct encd_ucmd *ucmd);
int encd_world_ioctl_barrier(struct encd_ucmd *ucmd);
int encd_world_ioctl_node_info(struct encd_ucmd *ucmd);
void encd_world_release(struct encd_file *file, u32 nec_dev, u32 ctx_id);
int encd_world_init(void);
void encd_world_exit(void);

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
	const u32 *participants;	/* rank_n global device ids: the key */
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
