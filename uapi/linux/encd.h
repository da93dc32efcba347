/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * encd: collective-communication worlds for Neuron hosts, in the kernel.
 *
 * This header is the whole contract between the encd module and user space.
 * encd reproduces, in the kernel, how the Neuron runtime library (libnrt)
 * forms its collective worlds; Documentation/libnrt.rst describes that
 * behaviour, and names below such as enc_glb_comm are libnrt's.
 *
 * Objects
 * -------
 * A *global communicator* ("global comm", libnrt's enc_glb_comm) is the
 * identity record of one rank in a collective world: world size, this rank's
 * global device id, pod topology, and a semaphore-increment value buffer.
 * There is at most one per (nec_dev, ctx_id); nec_dev is the NeuronCore device
 * that a virtual NeuronCore (vnc) resolves to, ctx_id is < ENCD_MAX_CONTEXTS
 * (0: the NEFF-loaded comm, 1: a standalone user comm).
 *
 * A global comm is *held* by file descriptors of /dev/encd: the fd that built
 * it, and every fd that later built or validated the same world on that core.
 * It lives while any fd holds it; ENCD_IOC_RELEASE_GLOBAL_COMM or closing the
 * fd lets go (a mapping of the fd keeps the file open, so then the last
 * munmap does). If BUILD or VALIDATE cannot copy its answer back (EFAULT),
 * the fd holds the comm all the same. A global comm is shared by every process on the host that builds
 * the same world on the same core.
 *
 * ioctls
 * ------
 * Every argument struct begins with struct encd_head. @size is the size of the
 * struct user space was built with: a shorter struct than the kernel's minimum
 * is -EINVAL, a longer one whose unknown tail is not zero is -E2BIG, so structs
 * can grow at their end (copy_struct_from_user() semantics). Unknown @flags
 * bits are -EOPNOTSUPP. Unknown commands are -ENOTTY. A bad pointer is
 * -EFAULT.
 *
 * On failure the kernel also writes a NUL-terminated sentence saying what
 * failed into the buffer at @msg_uptr (at most @msg_len bytes, truncated),
 * when @msg_len is not zero, and why it failed into @reason (enum
 * encd_reason, below). The sentence is for people and may change between
 * versions; the reason is for programs to branch on, and is stable. The
 * same sentence goes to the kernel log.
 *
 * Errors common to the global-comm commands:
 *   ENODEV     "Failed to find core %u": no such virtual NeuronCore.
 *   EINVAL     a bad argument (ctx_id out of range, world size 0, device id
 *              not below the world size, a root_comm_id without its NUL), a
 *              world that differs from the one already set up, or a
 *              topology libnrt rejects (pod type, pod node id, virtual
 *              server size); the sentence names which.
 *   ENOENT     no global comm on that core and context, or (RELEASE) this fd
 *              does not hold it.
 *   ENOMEM     out of memory.
 *
 * mmap
 * ----
 * The semaphore-increment value buffer of a global comm this fd holds is
 * mapped with mmap(NULL, page size, PROT_READ, MAP_SHARED or MAP_PRIVATE, fd,
 * hdr.inc_recv_sem_values_buffer) where the offset comes from
 * ENCD_IOC_GET_GLOBAL_COMM (it is ENCD_SEM_MMAP_OFFSET(nec_dev, ctx_id, page
 * size)). It is one page, read-only: a writable mapping is -EPERM and a later
 * mprotect(PROT_WRITE) fails. The mapping stays valid after the comm is
 * destroyed (it then shows the values it had).
 */
#ifndef _UAPI_LINUX_ENCD_H
#define _UAPI_LINUX_ENCD_H

#include <linux/types.h>
#include <linux/ioctl.h>
/* The generic netlink family's enums, generated from its spec (below). */
#include <linux/encd_netlink.h>

#define ENCD_DEVICE_NAME	"encd"
#define ENCD_API_VERSION	1

#define ENCD_NEC_MAX_DEVICES	256
#define ENCD_MAX_CONTEXTS	2
#define ENCD_ROOT_COMM_ID_MAX	64

/* The semaphore-increment value buffer: 129 u32 values, 516 bytes. */
#define ENCD_SEM_VALUES_N	129
#define ENCD_SEM_VALUES_SIZE	(ENCD_SEM_VALUES_N * 4)
#define ENCD_SEM_VALUES_HEADER	0x10000
#define ENCD_SEM_MMAP_OFFSET(nec_dev, ctx_id, page_size)		\
	((__u64)((nec_dev) * ENCD_MAX_CONTEXTS + (ctx_id)) * (page_size))

/* pod_type fields are enum encd_pod_type (linux/encd_netlink.h). */

/* A switch pod has at most this many nodes, whatever pod_sz says. */
#define ENCD_POD_SWITCH_MAX_NODES	4

/* state fields of global comms are enum encd_gcomm_state (linux/encd_netlink.h). */

/**
 * enum encd_reason - why a command failed, beside its sentence and errno
 *
 * The values are stable: new ones are added at the end, none is reused. A
 * failure that comes from another host (the root refusing a rank, a rank
 * that departed, a world failing elsewhere) carries the reason it had
 * there. An errno says which class of failure it was; the reason says which
 * of the causes that share an errno it was.
 *
 * @ENCD_REASON_NONE: the command did not fail, or failed before the kernel
 *	read its head (EFAULT on the struct itself, an unknown command)
 * @ENCD_REASON_ARGUMENT: an argument is wrong: out of range, a reserved
 *	field that is not 0, unknown flags, a struct of the wrong size
 * @ENCD_REASON_NO_CORE: no such virtual NeuronCore (ENODEV)
 * @ENCD_REASON_NO_COMM: no global comm (or replica group's comm) on that
 *	core and context, or this fd does not hold it (ENOENT)
 * @ENCD_REASON_WORLD_DIFFERS: the core and context already serve a
 *	different world, or another call set it up with other settings; or
 *	(from the root) this rank's world is not the root's
 * @ENCD_REASON_BUSY: the core and context are busy with a call that
 *	conflicts with this one (EBUSY)
 * @ENCD_REASON_TOPOLOGY: the host's topology is one libnrt rejects (pod
 *	type, pod node id, virtual server size)
 * @ENCD_REASON_NO_PROGRAM: no program is loaded, or it is not signed yet
 * @ENCD_REASON_BAD_PROGRAM: the program does not parse, or is too large
 * @ENCD_REASON_SIGNATURE_MISMATCH: the ranks' op signatures differ (EBADE)
 * @ENCD_REASON_TIMEOUT: the deadline passed before everyone arrived
 *	(ETIMEDOUT); the sentence names who was awaited
 * @ENCD_REASON_INTERRUPTED: a signal ended the wait (EINTR)
 * @ENCD_REASON_DEPARTED: a rank left the world before completing what
 *	this call waits for (ECONNABORTED); the sentence names it
 * @ENCD_REASON_RELEASED: this rank's world was released on this host, by
 *	its own call or by the fd that held it closing (ECONNABORTED)
 * @ENCD_REASON_HOST_LOST: a host's connection failed or closed, or it
 *	could not be reached; the sentence names the host and the socket error
 * @ENCD_REASON_PROTOCOL: a peer sent what the protocol does not allow
 *	(EPROTO, EMSGSIZE)
 * @ENCD_REASON_AUTH: a peer does not hold the world key, or a frame failed
 *	authentication (EACCES, EBADMSG)
 * @ENCD_REASON_ADDRESS: an address this host must listen on is in use or
 *	not its own (EADDRINUSE, EADDRNOTAVAIL)
 * @ENCD_REASON_NO_MEMORY: out of memory (ENOMEM)
 * @ENCD_REASON_INTERNAL: the kernel failed itself (a crypto transform, an
 *	errno none of the above explains); the sentence has the errno
 * @ENCD_REASON_DEVICE_LOST: the Neuron device of a core of this world went
 *	away (ENODEV); the sentence names the device and the core
 * @ENCD_REASON_NOT_OWNER: the core and context's global comm is another
 *	user's: only the user who built it (or encd's loopback_group, when
 *	its builder was a member) attaches to it or sets it up (EACCES); the
 *	sentence names its owner
 * @ENCD_REASON_USER_CAP: the caller's user already holds as many global
 *	comms as the module parameter max_comms_per_user allows (EDQUOT)
 * @__ENCD_REASON_CNT: the number of reasons, which grows; not one itself
 */
enum encd_reason {
	ENCD_REASON_NONE,
	ENCD_REASON_ARGUMENT,
	ENCD_REASON_NO_CORE,
	ENCD_REASON_NO_COMM,
	ENCD_REASON_WORLD_DIFFERS,
	ENCD_REASON_BUSY,
	ENCD_REASON_TOPOLOGY,
	ENCD_REASON_NO_PROGRAM,
	ENCD_REASON_BAD_PROGRAM,
	ENCD_REASON_SIGNATURE_MISMATCH,
	ENCD_REASON_TIMEOUT,
	ENCD_REASON_INTERRUPTED,
	ENCD_REASON_DEPARTED,
	ENCD_REASON_RELEASED,
	ENCD_REASON_HOST_LOST,
	ENCD_REASON_PROTOCOL,
	ENCD_REASON_AUTH,
	ENCD_REASON_ADDRESS,
	ENCD_REASON_NO_MEMORY,
	ENCD_REASON_INTERNAL,
	ENCD_REASON_DEVICE_LOST,
	ENCD_REASON_NOT_OWNER,
	ENCD_REASON_USER_CAP,
	__ENCD_REASON_CNT,
};

/**
 * struct encd_head - the common head of every ioctl argument struct
 * @size: sizeof the whole argument struct as user space knows it
 * @flags: command-specific flags; unknown bits are -EOPNOTSUPP
 * @msg_uptr: user buffer for the failure sentence, or 0
 * @msg_len: size of that buffer in bytes, or 0
 * @reason: out, when the command fails: why (enum encd_reason). The
 *	kernel ignores it on entry; an answer copied back has it 0; see
 *	ENCD_REASON_NONE for the failures that leave it untouched
 */
struct encd_head {
	__u32 size;
	__u32 flags;
	__aligned_u64 msg_uptr;
	__u32 msg_len;
	__u32 reason;
};

/**
 * struct encd_glb_comm_header - the read-only view of a global comm
 *
 * Fields up to inc_recv_sem_values_buffer_size sit at the offsets the
 * original enc_glb_comm has them (the kernel asserts this at build time), so
 * that code written against the original layout reads the same values.
 *
 * @g_device_id: this rank's global device id
 * @g_device_cnt: world size
 * @vtpb_idx: the virtual TPB index of the core
 * @nec_dev_id: the NeuronCore device the vnc resolves to
 * @mla_idx: the MLA (Neuron device) of the core
 * @host_device_id: the host's id for that device
 * @routing_id: the device's routing id in the pod
 * @virtual_server_id: g_device_id / virtual_server_size (0 without one)
 * @pod_type: enum encd_pod_type
 * @pod_node_id: this host's node id in the pod
 * @pod_sz: the pod's size in nodes
 * @__pad0: always 0
 * @reservation_id: the host's reservation id
 * @__root_comm_id_ptr: a pointer in the original; always 0 (see @root_comm_id)
 * @check_sigs: 1 when op signatures are checked across ranks at bootstrap
 * @__pad1: always 0
 * @inc_recv_sem_values_buffer: the mmap offset of the semaphore buffer
 * @inc_recv_sem_values_buffer_size: ENCD_SEM_VALUES_SIZE (516)
 * @serial: a number no other global comm since module load has had
 * @holders: how many file descriptors hold the comm
 * @state: enum encd_gcomm_state
 * @ctx_id: the context slot
 * @__pad2: always 0
 * @root_comm_id: "host:port" of the world's root, NUL-terminated
 */
struct encd_glb_comm_header {
	__u32 g_device_id;				/*   0 */
	__u32 g_device_cnt;				/*   4 */
	__u32 vtpb_idx;					/*   8 */
	__s32 nec_dev_id;				/*  12 */
	__s32 mla_idx;					/*  16 */
	__s32 host_device_id;				/*  20 */
	__s32 routing_id;				/*  24 */
	__u32 virtual_server_id;			/*  28 */
	__u32 pod_type;					/*  32 */
	__u32 pod_node_id;				/*  36 */
	__u32 pod_sz;					/*  40 */
	__u32 __pad0;					/*  44 */
	__aligned_u64 reservation_id;			/*  48 */
	__aligned_u64 __root_comm_id_ptr;		/*  56 */
	__u8 check_sigs;				/*  64 */
	__u8 __pad1[127];				/*  65 */
	__aligned_u64 inc_recv_sem_values_buffer;	/* 192 */
	__aligned_u64 inc_recv_sem_values_buffer_size;	/* 200 */
	__aligned_u64 serial;				/* 208 */
	__u32 holders;					/* 216 */
	__u32 state;					/* 220 */
	__u32 ctx_id;					/* 224 */
	__u32 __pad2;					/* 228 */
	char root_comm_id[ENCD_ROOT_COMM_ID_MAX];	/* 232 */
};

#define ENCD_TYPE	0xE5

enum {
	ENCD_CMD_BASE = 0x80,
	ENCD_CMD_VERSION = ENCD_CMD_BASE,
	ENCD_CMD_BUILD_GLOBAL_COMM,
	ENCD_CMD_VALIDATE_GLOBAL_COMM,
	ENCD_CMD_GET_GLOBAL_COMM,
	ENCD_CMD_RELEASE_GLOBAL_COMM,
	ENCD_CMD_PROGRAM_LOAD,
	ENCD_CMD_PROGRAM_SIGN,
	ENCD_CMD_PROGRAM_GET_SIGNATURES,
	ENCD_CMD_PROGRAM_SEAL,
	ENCD_CMD_SETUP_GLOBAL_COMM,
	ENCD_CMD_INIT_REPLICA_GROUPS,
	ENCD_CMD_COMM_BARRIER,
	ENCD_CMD_NODE_INFO,
};

/**
 * struct encd_version - ENCD_IOC_VERSION
 * @head: flags must be 0
 * @api_version: out: ENCD_API_VERSION of the running module
 * @num_vcores: out: how many virtual NeuronCores the topology has
 * @max_contexts: out: ENCD_MAX_CONTEXTS
 * @sem_values_size: out: ENCD_SEM_VALUES_SIZE
 */
struct encd_version {
	struct encd_head head;
	__u32 api_version;
	__u32 num_vcores;
	__u32 max_contexts;
	__u32 sem_values_size;
};
#define ENCD_IOC_VERSION	_IO(ENCD_TYPE, ENCD_CMD_VERSION)

/* head.flags of BUILD and VALIDATE */
#define ENCD_GCOMM_CHECK_SIGS		(1U << 0)

/* out_flags of BUILD and VALIDATE */
#define ENCD_GCOMM_OUT_CREATED		(1U << 0)	/* this call made the object */

/**
 * struct encd_global_comm_req - ENCD_IOC_BUILD_GLOBAL_COMM, ENCD_IOC_VALIDATE_GLOBAL_COMM
 * @head: flags: ENCD_GCOMM_CHECK_SIGS
 * @vnc: the virtual NeuronCore
 * @g_device_id: this rank's global device id, < @g_device_cnt
 * @g_device_cnt: the world size (for VALIDATE: the NEFF's world size)
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @root_comm_id: "host:port" of the world's root, NUL-terminated, may be ""
 * @out_flags: out: ENCD_GCOMM_OUT_CREATED
 * @nec_dev_id: out: the NeuronCore device @vnc resolves to
 *
 * BUILD is libnrt's enc_init_global_comm: if the core already has a global
 * comm in @ctx_id with the same g_device_id and world size, the call succeeds
 * without a new object; with another world it fails with EINVAL "NRT has
 * already been setup with a collectives world size of %d ...". Otherwise a
 * comm is made after libnrt's checks: the virtual server size must divide
 * the world size; pod_type must be <= 2; pod_node_id must be below pod_sz for
 * a P2P pod and below 4 for a switch pod. Either way, on success this fd
 * holds the comm.
 *
 * VALIDATE is libnrt's enc_validate_global_comm: with no comm on the core it
 * is BUILD. Otherwise a NEFF world (@g_device_cnt) larger than the comm's is
 * EINVAL "World size of neff %d is greater than world size of global
 * communicator %d"; an equal one passes; a smaller one passes only once the
 * comm is bootstrapped, else EINVAL "World size of neff != global
 * communicator. Recommend nrt_build_global_comm first.". On success this fd
 * holds the comm.
 *
 * Either way, a comm that exists is attached to only by the user who built
 * it (or a member of encd's loopback_group when its builder was one): for
 * anyone else, root included, the call fails with EACCES, reason
 * ENCD_REASON_NOT_OWNER, naming the owner's uid. A new comm past the
 * module parameter max_comms_per_user is EDQUOT, ENCD_REASON_USER_CAP.
 */
struct encd_global_comm_req {
	struct encd_head head;
	__u32 vnc;
	__u32 g_device_id;
	__u32 g_device_cnt;
	__u32 ctx_id;
	char root_comm_id[ENCD_ROOT_COMM_ID_MAX];
	__u32 out_flags;
	__s32 nec_dev_id;
};
#define ENCD_IOC_BUILD_GLOBAL_COMM	_IO(ENCD_TYPE, ENCD_CMD_BUILD_GLOBAL_COMM)
#define ENCD_IOC_VALIDATE_GLOBAL_COMM	_IO(ENCD_TYPE, ENCD_CMD_VALIDATE_GLOBAL_COMM)

/**
 * struct encd_get_global_comm - ENCD_IOC_GET_GLOBAL_COMM
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @hdr: out: the comm's header; the fd need not hold the comm
 */
struct encd_get_global_comm {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	struct encd_glb_comm_header hdr;
};
#define ENCD_IOC_GET_GLOBAL_COMM	_IO(ENCD_TYPE, ENCD_CMD_GET_GLOBAL_COMM)

/**
 * struct encd_release_global_comm - ENCD_IOC_RELEASE_GLOBAL_COMM
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 *
 * This fd lets go of the comm; the last holder to let go destroys it.
 */
struct encd_release_global_comm {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
};
#define ENCD_IOC_RELEASE_GLOBAL_COMM	_IO(ENCD_TYPE, ENCD_CMD_RELEASE_GLOBAL_COMM)

/*
 * Programs
 * --------
 * A *program* is what a NEFF declares about its collectives (libnrt's
 * enc_context): replica groups, src-target-pair sets ("stp") and the op queue.
 * It is loaded for one (vnc, ctx_id) whose global comm the loading fd holds,
 * and belongs to that fd: closing the fd frees it, loading again replaces it.
 * It is validated against that comm's world (g_device_cnt) and signed with
 * the two-level MD5 op-signature (Documentation/signature.rst).
 *
 * A program is in one of two states. PARSE is where it starts: it can be
 * signed, as often as wanted. LOADED (ENCD_IOC_PROGRAM_SEAL, or bringing up
 * its replica groups) is final: signing then fails.
 *
 * The binary description, version 1 (Documentation/program-format.rst):
 * every field is little-endian, the parts follow each other with no gaps:
 *
 *	struct encd_prog_header		header
 *	struct encd_prog_group		groups[n_groups]
 *	struct encd_prog_stp		stps[n_stps]
 *	struct encd_prog_vec		pairs[n_pairs]
 *	struct encd_prog_op		ops[n_ops]
 *	__le32				ids[n_ids]
 *
 * ids is the pool that every list of global device ids is a slice of
 * (struct encd_prog_vec: @off and @len count u32 words). The slices must tile
 * the pool in this order, each one starting where the one before ended:
 * each group's participants then its bootstrap_participants, groups in
 * order; then each stp's participants then its pair vectors, stps in order.
 * The same holds for each stp's slice of the pairs table. So no two lists
 * overlap and no byte of the description goes unread.
 *
 * A description is refused with EINVAL and a sentence naming the field when:
 * it is shorter than its header, longer than ENCD_PROG_MAX_SIZE, or its
 * total_size is not the length passed; magic, version or header_size differ
 * from this header's; a flag or reserved field is not 0; the counts do not
 * add up to total_size; there are more than ENCD_MAX_COMM_N groups; a group
 * id is >= ENCD_MAX_COMM_N or repeats; rank is neither -1 nor < rank_n;
 * rank_n is 0; the sendrecv flag is set without rank -1 or the other way
 * round; stream_id >= ENCD_MAX_STREAM_N; bootstrap_rank >= rank_n;
 * bootstrap_participants does not have rank_n ids; src_target_pairs_id is
 * neither -1 nor an stp's id; num_ops is not the number of ops that name the
 * group; an stp id is above INT32_MAX or repeats; an stp has no pairs; a pair
 * vector has fewer than two ids; a slice is out of place (see above); an id
 * is >= the world size; an id repeats inside one list; an op code is not an
 * enum encd_op; an op's owner does not exist; an op's peer is >= the world
 * size. dtype, alg and channel are opaque to the kernel.
 */

/* "ENCP" read as a little-endian u32. */
#define ENCD_PROG_MAGIC		0x50434e45
#define ENCD_PROG_VERSION	1
/* The largest binary description the kernel reads. */
#define ENCD_PROG_MAX_SIZE	(16U << 20)
/* Replica groups per program; a group id is below this (ENC_MAX_COMM_N). */
#define ENCD_MAX_COMM_N		12
/* Streams a replica group can run on (ENC_MAX_STREAM_N). */
#define ENCD_MAX_STREAM_N	4
#define ENCD_SIG_LEN		16

/* The op codes; the numbers are hashed into signatures, never change them. */
enum encd_op {
	ENCD_OP_ALL_REDUCE = 1,
	ENCD_OP_ALL_GATHER = 2,
	ENCD_OP_REDUCE_SCATTER = 3,
	ENCD_OP_ALL_TO_ALL = 4,
	ENCD_OP_PERMUTE = 5,
	ENCD_OP_SEND = 6,
	ENCD_OP_RECV = 7,
	ENCD_OP_BROADCAST = 8,
};

enum encd_program_state {
	ENCD_PROGRAM_PARSE = 0,		/* loaded, may be signed */
	ENCD_PROGRAM_LOADED = 1,	/* sealed: replica groups may come up */
};

/**
 * struct encd_prog_header - the head of a binary program description
 * @magic: ENCD_PROG_MAGIC
 * @version: ENCD_PROG_VERSION
 * @header_size: sizeof(struct encd_prog_header), 40
 * @total_size: the size of the whole description in bytes
 * @flags: must be 0
 * @n_groups: replica groups, at most ENCD_MAX_COMM_N
 * @n_stps: src-target-pair sets
 * @n_pairs: pair vectors, over all stps
 * @n_ops: ops in the queue
 * @n_ids: u32 words in the id pool
 * @__reserved: must be 0
 */
struct encd_prog_header {
	__le32 magic;
	__le16 version;
	__le16 header_size;
	__le32 total_size;
	__le32 flags;
	__le32 n_groups;
	__le32 n_stps;
	__le32 n_pairs;
	__le32 n_ops;
	__le32 n_ids;
	__le32 __reserved;
};

/**
 * struct encd_prog_vec - a slice of a table
 * @off: index of the first entry
 * @len: number of entries
 */
struct encd_prog_vec {
	__le32 off;
	__le32 len;
};

/* struct encd_prog_group.flags */
#define ENCD_PROG_GROUP_SENDRECV		(1U << 0)
#define ENCD_PROG_GROUP_NCCL_MESH_SUPPORTED	(1U << 1)
#define ENCD_PROG_GROUP_MUST_USE_RING_ALG	(1U << 2)

/**
 * struct encd_prog_group - a replica group (libnrt's enc_replica_group_info)
 * @group_id: < ENCD_MAX_COMM_N, unique in the program
 * @rank: this rank in the group as a __s32, -1 for a sendrecv group
 * @rank_n: ranks in the group, > 0
 * @src_target_pairs_id: the id of an stp, or -1 (as a __s32)
 * @num_ops: how many ops of the queue name this group
 * @stream_id: < ENCD_MAX_STREAM_N
 * @bootstrap_rank: this rank in @bootstrap_participants, < @rank_n
 * @flags: ENCD_PROG_GROUP_*; SENDRECV is set exactly when @rank is -1
 * @participants: global device ids: the group's logical membership
 * @bootstrap_participants: @rank_n global device ids: the comm-pool key
 */
struct encd_prog_group {
	__le32 group_id;
	__le32 rank;
	__le32 rank_n;
	__le32 src_target_pairs_id;
	__le32 num_ops;
	__le32 stream_id;
	__le32 bootstrap_rank;
	__le32 flags;
	struct encd_prog_vec participants;
	struct encd_prog_vec bootstrap_participants;
};

/**
 * struct encd_prog_stp - a src-target-pair set (enc_src_target_pairs_info)
 * @id: <= INT32_MAX, unique among the program's stps
 * @__reserved: must be 0
 * @pairs: its pair vectors, a slice of the pairs table; at least one. Each
 *	pair vector is a slice of the id pool with at least two ids, the
 *	source first, then the target(s).
 * @participants: global device ids
 */
struct encd_prog_stp {
	__le32 id;
	__le32 __reserved;
	struct encd_prog_vec pairs;
	struct encd_prog_vec participants;
};

/* struct encd_prog_op.flags: @owner is an stp id, not a group id */
#define ENCD_PROG_OP_STP	(1U << 0)

/**
 * struct encd_prog_op - one op of the queue, in queue order
 * @op: enum encd_op
 * @flags: ENCD_PROG_OP_STP or 0
 * @size_n: the op's size
 * @owner: the group_id (or with ENCD_PROG_OP_STP the stp id) it belongs to
 * @peer: a global device id (for SEND: the target)
 * @dtype: the data type, opaque
 * @alg: the algorithm, opaque
 * @channel: permute_ring_ch_id, opaque
 * @__reserved: must be 0
 */
struct encd_prog_op {
	__le32 op;
	__le32 flags;
	__le64 size_n;
	__le32 owner;
	__le32 peer;
	__le32 dtype;
	__le32 alg;
	__le32 channel;
	__le32 __reserved;
};

/**
 * struct encd_program_load - ENCD_IOC_PROGRAM_LOAD
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @prog_uptr: the binary description
 * @prog_len: its length in bytes, <= ENCD_PROG_MAX_SIZE
 * @__reserved: must be 0
 *
 * Validates the description against the world of the global comm on (@vnc,
 * @ctx_id) and makes it this fd's program there, in the PARSE state,
 * replacing the one before. Errors: ENODEV, EINVAL (see above), ENOENT when
 * this fd does not hold that global comm, EBUSY when the program there is
 * LOADED (its replica groups may be in use), EFAULT, ENOMEM.
 */
struct encd_program_load {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	__aligned_u64 prog_uptr;
	__u32 prog_len;
	__u32 __reserved;
};
#define ENCD_IOC_PROGRAM_LOAD		_IO(ENCD_TYPE, ENCD_CMD_PROGRAM_LOAD)

/*
 * head.flags of PROGRAM_SIGN: hash every replica group, not only the
 * sendrecv ones (rank -1). libnrt skips collective groups because their
 * members reconcile through the collective itself; with the flag a size
 * mismatch in an all-reduce is caught at bootstrap as well.
 */
#define ENCD_SIG_ALL_GROUPS	(1U << 0)

/**
 * struct encd_program_sign - ENCD_IOC_PROGRAM_SIGN
 * @head: flags: ENCD_SIG_ALL_GROUPS
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @signature: out: the program's global signature
 * @n_groups_hashed: out: how many replica groups went into it
 * @n_stps_hashed: out: how many stps went into it (all of them)
 *
 * libnrt's enc_calculate_signature. Level 1: an MD5 for each hashed
 * replica group over its participants then its ops, and one for each stp
 * over its pair vectors then its ops; each is kept as that group's or stp's
 * signature (the others are zeroed). Level 2: the MD5 of those digests, in
 * order, groups first = @signature. With nothing hashed at level 1 every
 * signature is zero. Documentation/signature.rst gives the bytes. Errors:
 * ENODEV, EINVAL ("cannot calculate CC signature: not in parse state"), ENOENT
 * (no program, or the fd no longer holds its global comm), ENOMEM.
 */
struct encd_program_sign {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	__u8 signature[ENCD_SIG_LEN];
	__u32 n_groups_hashed;
	__u32 n_stps_hashed;
};
#define ENCD_IOC_PROGRAM_SIGN		_IO(ENCD_TYPE, ENCD_CMD_PROGRAM_SIGN)

/* struct encd_prog_sig.flags: the digest went into the global signature */
#define ENCD_PROG_SIG_HASHED	(1U << 0)

/**
 * struct encd_prog_sig - the level-1 signature of one group or stp
 * @id: the group_id or stp id
 * @flags: ENCD_PROG_SIG_HASHED, or 0 for a group the last signing skipped
 * @signature: the digest, zero when not hashed
 */
struct encd_prog_sig {
	__u32 id;
	__u32 flags;
	__u8 signature[ENCD_SIG_LEN];
};

/**
 * struct encd_program_get_signatures - ENCD_IOC_PROGRAM_GET_SIGNATURES
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @groups_uptr: an array of struct encd_prog_sig, one per replica group
 * @stps_uptr: an array of struct encd_prog_sig, one per stp
 * @n_groups: in: room at @groups_uptr; out: the program's replica groups
 * @n_stps: in: room at @stps_uptr; out: the program's stps
 * @signature: out: the global signature
 * @sig_flags: out: the head.flags of the signing that made them
 * @state: out: enum encd_program_state
 *
 * Reads what the last PROGRAM_SIGN computed, in program order; at most the
 * given room is written, and the counts say how many there are. Errors:
 * ENODEV, ENOENT (as for SIGN), EINVAL when the program was never signed,
 * EFAULT.
 */
struct encd_program_get_signatures {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	__aligned_u64 groups_uptr;
	__aligned_u64 stps_uptr;
	__u32 n_groups;
	__u32 n_stps;
	__u8 signature[ENCD_SIG_LEN];
	__u32 sig_flags;
	__u32 state;
};
#define ENCD_IOC_PROGRAM_GET_SIGNATURES	_IO(ENCD_TYPE, ENCD_CMD_PROGRAM_GET_SIGNATURES)

/**
 * struct encd_program_seal - ENCD_IOC_PROGRAM_SEAL
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 *
 * Moves the program from PARSE to LOADED, as bringing up its replica groups
 * does. Errors: ENODEV, ENOENT (as for SIGN), EINVAL when it is not in PARSE.
 */
struct encd_program_seal {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
};
#define ENCD_IOC_PROGRAM_SEAL		_IO(ENCD_TYPE, ENCD_CMD_PROGRAM_SEAL)

/*
 * Generic netlink
 * ---------------
 * The "encd" generic netlink family (ENCD_GENL_NAME, version
 * ENCD_GENL_VERSION) shows the module's objects, multicasts what happens to
 * them, and lets an administrator change the simulated topology. Its
 * complete description, with every attribute's type and checks, is
 * Documentation/netlink/specs/encd.yaml; its enums and defines
 * (ENCD_GENL_NAME, ENCD_GENL_VERSION, ENCD_MCGRP_EVENTS, the attribute sets
 * ENCD_A_*, the commands enum encd_nl_cmd, enum encd_node_state,
 * encd_phase, encd_msg_type, encd_pod_type, encd_gcomm_state and
 * ENCD_PARTICIPANTS_PER_MSG) are generated from it into
 * linux/encd_netlink.h by the kernel's YNL generator.
 * Resolving the family by name loads the module (its alias is
 * "net-pf-16-proto-16-family-encd").
 *
 * Each command's messages use one attribute set: ENCD_A_GCOMM_* for the
 * gcomm commands, ENCD_A_NODE_* for the node commands, ENCD_A_TOPO_* and
 * ENCD_A_VCORE_* for the topology, ENCD_A_MODULE_* for the module's
 * settings. Requests are validated strictly: an
 * attribute the command does not know, one of the wrong size, a value out of
 * range or a missing one fails with EINVAL (ERANGE for a value out of range)
 * and an extended ack that names the attribute (NLMSGERR_ATTR_OFFS, or
 * NLMSGERR_ATTR_MISS_TYPE for a missing one) and says why
 * (NLMSGERR_ATTR_MSG). Ask for them with the NETLINK_EXT_ACK socket option.
 *
 * ENCD_NL_CMD_GCOMM_GET
 *   do: ENCD_A_GCOMM_NEC_DEV and ENCD_A_GCOMM_CTX are required; the reply is
 *   the global comm there, or ENOENT. dump (NLM_F_DUMP): every global comm,
 *   in (nec_dev, ctx) order; ENCD_A_GCOMM_NEC_DEV and/or ENCD_A_GCOMM_CTX
 *   in the request narrow it. A comm is:
 *
 *	ENCD_A_GCOMM_NEC_DEV		u32
 *	ENCD_A_GCOMM_CTX		u32
 *	ENCD_A_GCOMM_SERIAL		u64
 *	ENCD_A_GCOMM_G_DEVICE_ID	u32
 *	ENCD_A_GCOMM_G_DEVICE_CNT	u32	world size
 *	ENCD_A_GCOMM_VTPB_IDX		u32
 *	ENCD_A_GCOMM_MLA_IDX		s32
 *	ENCD_A_GCOMM_HOST_DEVICE_ID	s32
 *	ENCD_A_GCOMM_ROUTING_ID		s32
 *	ENCD_A_GCOMM_VIRTUAL_SERVER_ID	u32
 *	ENCD_A_GCOMM_POD_TYPE		u32, enum encd_pod_type
 *	ENCD_A_GCOMM_POD_NODE_ID	u32
 *	ENCD_A_GCOMM_POD_SZ		u32
 *	ENCD_A_GCOMM_RESERVATION_ID	u64
 *	ENCD_A_GCOMM_ROOT_COMM_ID	NUL-terminated string, may be ""
 *	ENCD_A_GCOMM_CHECK_SIGS		flag
 *	ENCD_A_GCOMM_HOLDERS		u32
 *	ENCD_A_GCOMM_STATE		u32, enum encd_gcomm_state
 *	ENCD_A_GCOMM_CREATED		u64, CLOCK_BOOTTIME ns
 *	ENCD_A_GCOMM_NETNS_INO		u32
 *	ENCD_A_GCOMM_PHASE		nest, repeated: ENCD_A_PHASE_*
 *	ENCD_A_GCOMM_ERROR		nest: ENCD_A_ERROR_*, the last failure of a
 *					bootstrap on it, until its world forms again
 *	ENCD_A_GCOMM_HOST_TX_BYTES	u64, the bytes the host agent of its rank
 *					sent on its links (whole frames); shared
 *					by the comms of a world in one namespace;
 *					absent without a registered rank
 *
 * ENCD_NL_CMD_NODE_GET
 *   dump: every comm node, by global comm then stream; ENCD_A_NODE_NEC_DEV,
 *   ENCD_A_NODE_CTX and ENCD_A_NODE_STREAM narrow it. A node is its
 *   (NEC_DEV, CTX, STREAM, GCOMM_SERIAL), PARTICIPANTS (the pool key: an
 *   array of u32 global device ids, in bootstrap rank order), RANK, RANK_N,
 *   REFCNT, STATE (enum encd_node_state), GLOBAL (flag: the world's own
 *   node), GROUPS (bit mask of replica group ids), PHASE (nests, repeated),
 *   COUNTER (nests, repeated: ENCD_A_COUNTER_*) and ERROR (nest).
 *
 *   A message carries at most ENCD_PARTICIPANTS_PER_MSG participants, from
 *   the ENCD_A_NODE_PARTICIPANTS_OFFSET'th on (u32, in every message of
 *   the dump). A node with more (a world has up to 1048576 ranks) takes
 *   ceil(RANK_N / ENCD_PARTICIPANTS_PER_MSG) consecutive messages: the first
 *   (offset 0) has every attribute above; each next one has only NEC_DEV,
 *   CTX, STREAM, GCOMM_SERIAL, RANK_N, PARTICIPANTS_OFFSET and the next
 *   PARTICIPANTS. A reader appends the participants of a message whose
 *   offset is not 0 to the node of the message before it. The messages of
 *   one node may straddle two parts of the dump; if the node goes away in
 *   between, the dump goes on with the next node and is marked
 *   NLM_F_DUMP_INTR.
 *
 * ENCD_NL_CMD_TOPO_GET
 *   do: the host's ENCD_A_TOPO_POD_TYPE, POD_NODE_ID, POD_SZ,
 *   RESERVATION_ID, VIRTUAL_SERVER_SIZE and NUM_VCORES.
 * ENCD_NL_CMD_TOPO_SET
 *   do, CAP_NET_ADMIN in the initial user namespace (else EPERM): sets the
 *   ENCD_A_TOPO_* given (not NUM_VCORES) at once; at least one is needed.
 *   The topology is the host's, not a namespace's: a namespace's own root is
 *   not enough to change it. Comms already built keep what they had.
 * ENCD_NL_CMD_VCORE_GET
 *   dump: every virtual core, in vnc order: ENCD_A_VCORE_VNC, NEC_DEV,
 *   MLA_IDX, HOST_DEVICE_ID, ROUTING_ID and VTPB_IDX.
 * ENCD_NL_CMD_MODULE_GET
 *   do: ENCD_A_MODULE_ALLOW_INSECURE_WORLDS, u8: 1 when the module
 *   parameter allow_insecure_worlds is set now (a root off loopback may
 *   form a world without a secret), else 0; ENCD_A_MODULE_NETWORKS,
 *   string: the module parameter networks, the prefixes encd may dial,
 *   accept and announce ("10.0.0.0/8,fd00::/8"), "" for any.
 *
 * Dumps are split across as many messages as they need. Each part reads the
 * registry's generation; when it changed since the part before (a comm was
 * built or torn down), the next message and NLMSG_DONE carry
 * NLM_F_DUMP_INTR: the entries are each whole and true, but the set may
 * have missed or repeated a comm, and the caller may dump again.
 *
 * Events: the multicast group ENCD_MCGRP_EVENTS ("events"), which anyone may
 * join, carries
 *   ENCD_NL_CMD_GCOMM_ADD_NTF, ENCD_NL_CMD_GCOMM_DEL_NTF: a global comm was
 *	built, or torn down by its last holder; attributes as GCOMM_GET's.
 *   ENCD_NL_CMD_WORLD_FORMED_NTF, ENCD_NL_CMD_WORLD_FAILED_NTF,
 *   ENCD_NL_CMD_SIG_MISMATCH_NTF, ENCD_NL_CMD_NODE_DEL_NTF: a comm node
 *	formed (with ENCD_A_NODE_GLOBAL: the world), failed, found a
 *	signature mismatch, or was torn down; attributes as NODE_GET's, but no
 *	PARTICIPANTS or COUNTER. An ERROR nest says what failed and who.
 *
 * Network namespaces: the family is in every one. A global comm belongs to
 * the network namespace of the process that built it. Requests and event
 * listeners in that namespace see it; in any other, the initial one
 * included, they do not see it at all.
 *
 * Nothing secret is ever sent: not a bootstrap unique id, not a world
 * secret. Signatures are digests of a program, not secrets.
 */
/*
 * The timed steps of forming a world and its comms are enum encd_phase, the
 * one numbering of them: it indexes every phase_ns array of the ioctls and
 * is the value of ENCD_A_PHASE_ID and ENCD_A_ERROR_PHASE.
 */
#define ENCD_PHASE_N	(ENCD_PHASE_LOCAL_BARRIER + 1)

/*
 * Bootstrap
 * ---------
 * A global comm becomes a rank of a *world* when ENCD_IOC_SETUP_GLOBAL_COMM
 * sets it up (libnrt's enc_setup_global_comm). The ranks of a world that
 * share this kernel and network namespace (the comm's) are gathered by one
 * host agent; the host of the rank with g_device_id 0 (the root) listens on
 * root_comm_id ("a.b.c.d:port", "[v6]:port" or "localhost:port"), every
 * other host connects there and registers its ranks; once all g_device_cnt
 * ranks have arrived the root sends the world's table down a tree of hosts,
 * and the global replica group (all ranks, in order) gets its comm node
 * through get_nccl_comm. Every connection is authenticated with the world's
 * key: its secret (@secret_uptr), or on a loopback root without one, a key
 * this kernel keeps to itself; a root off loopback without a secret is
 * refused unless the module was loaded with allow_insecure_worlds=1
 * (Documentation/bootstrap.rst describes the protocol and the trust model).
 *
 * The rank belongs to the file that set it up: releasing that file's hold
 * on the comm, or closing it, takes the rank out of the world at once and
 * fails the world for every other rank, which hears it within a few
 * messages' time. Every wait ends by a deadline: @timeout_ms (clamped to 1
 * ms .. 24 h), or the module parameter bootstrap_timeout_ms (default 60000)
 * when 0; a signal ends it too (EINTR). A deadline or a signal ends the
 * wait, not the world: the next call finds it where it got to.
 *
 * Errors of the bootstrap commands, besides those of every command:
 *   ETIMEDOUT  the deadline passed; the sentence says what was awaited
 *              (for the root: which ranks never arrived).
 *   EINTR      a signal.
 *   ECONNABORTED  a rank left the world (the sentence names it), or this
 *              file released the comm while the call waited.
 *   EACCES     the root does not hold this rank's world secret.
 *   EBADE      "mismatched collectives between the peers": a group's
 *              signatures differ across ranks (only with check_sigs). Every
 *              rank of the group fails; the rank that saw the differing
 *              child names it, with both digests (and ENCD_IOC_NODE_INFO
 *              reports it).
 *   EINVAL     root_comm_id unusable, a rank the root refused (the root's
 *              sentence: world size differs, id out of range or taken).
 *   ECONNRESET, ECONNREFUSED, EPROTO, EMSGSIZE, EBADMSG, ENOBUFS: a host
 *              vanished or broke the protocol; the sentence names it.
 *   EBUSY      the world was set up by another file.
 *   EACCES     (SETUP) the comm is another user's (ENCD_REASON_NOT_OWNER):
 *              a file handed to another user cannot take its rank.
 *
 * Message counters: each comm node counts the messages it sent (tx) and
 * received (rx) by type (enum encd_msg_type) and size: signature validation
 * is 17 bytes (a 16-byte signature and an ok byte), the unique id 129 bytes
 * (128 and the root's verdict), the ring proof 128 bytes, a barrier round 4.
 */

/* The world's own replica group, in group_id fields. */
#define ENCD_GROUP_GLOBAL	0xffffffffU

/*
 * head.flags of SETUP_GLOBAL_COMM. ENCD_SETUP_FORCE_TCP: this rank gets a
 * host agent of its own, so its messages to every other rank cross a
 * socket even on this host (for tests of the socket path; the module
 * parameter local_delivery=0 does it for every rank). ENCD_SETUP_SIG_ALL_
 * GROUPS: the world's programs are signed with ENCD_SIG_ALL_GROUPS. Every
 * rank of a world must agree on it and on check_sigs: the root refuses a
 * world whose ranks differ, naming the rank.
 */
#define ENCD_SETUP_FORCE_TCP		(1U << 0)
#define ENCD_SETUP_SIG_ALL_GROUPS	(1U << 1)

/* out_flags of SETUP_GLOBAL_COMM */
#define ENCD_SETUP_OUT_FORMED	(1U << 0)	/* this call set the rank up */

#define ENCD_WORLD_SECRET_MAX	64

/**
 * struct encd_setup_global_comm - ENCD_IOC_SETUP_GLOBAL_COMM
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS; this fd must hold the comm
 * @timeout_ms: the deadline of the formation, 0 for the module's default;
 *	it stays the world's default for its later operations
 * @rank: out: this rank in the world (its g_device_id)
 * @rank_n: out: the world size
 * @out_flags: out: ENCD_SETUP_OUT_FORMED
 * @__reserved: must be 0
 * @phase_ns: out: how long each phase of the formation took, by enum encd_phase
 * @secret_uptr: the world secret, or 0
 * @secret_len: its length, at most ENCD_WORLD_SECRET_MAX; 0: none
 * @__reserved2: must be 0
 *
 * Idempotent: once the world is formed the call only reports it (to any
 * file that holds the comm).
 *
 * The world secret keys every connection of the world (HMAC-SHA256
 * handshakes and frame tags): a rank without it cannot take part, and fails
 * with EACCES when the root does not hold its secret. Every rank of a world
 * must give the same secret, or (on a loopback root) none. It never leaves
 * the kernel, and is wiped once the key is derived.
 */
struct encd_setup_global_comm {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	__u32 timeout_ms;
	__u32 rank;
	__u32 rank_n;
	__u32 out_flags;
	__u32 __reserved;
	__aligned_u64 phase_ns[ENCD_PHASE_N];
	__aligned_u64 secret_uptr;
	__u32 secret_len;
	__u32 __reserved2;
};
#define ENCD_IOC_SETUP_GLOBAL_COMM	_IO(ENCD_TYPE, ENCD_CMD_SETUP_GLOBAL_COMM)

/**
 * struct encd_init_replica_groups - ENCD_IOC_INIT_REPLICA_GROUPS
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @timeout_ms: the deadline of each group's bootstrap, 0 for the world's
 * @n_groups: out: replica groups brought up
 * @n_new: out: of those, how many bootstrapped a new comm node
 * @n_hits: out: how many found theirs in the pool
 * @__reserved: must be 0
 *
 * libnrt's enc_init_replica_groups: for this fd's program on the core
 * (signed now if it never was, then sealed: PARSE -> LOADED), get_nccl_comm
 * for every replica group in program order, on the group's stream, keyed by
 * its bootstrap_participants. A group with ops becomes its comm's op target;
 * one without still has the comm for barriers. The world must be set up.
 */
struct encd_init_replica_groups {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	__u32 timeout_ms;
	__u32 n_groups;
	__u32 n_new;
	__u32 n_hits;
	__u32 __reserved;
};
#define ENCD_IOC_INIT_REPLICA_GROUPS	_IO(ENCD_TYPE, ENCD_CMD_INIT_REPLICA_GROUPS)

/* head.flags of COMM_BARRIER: the group's ranks on this host only */
#define ENCD_BARRIER_LOCAL	(1U << 0)

/**
 * struct encd_comm_barrier - ENCD_IOC_COMM_BARRIER
 * @head: flags: ENCD_BARRIER_LOCAL
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @group_id: a replica group with a comm, or ENCD_GROUP_GLOBAL
 * @timeout_ms: the deadline, 0 for the world's
 * @duration_ns: out: how long the barrier took
 *
 * Without flags: a dissemination barrier over the group's comm (ceil(log2
 * n) rounds). With ENCD_BARRIER_LOCAL: the comm's local barrier, which the
 * group's ranks on this host share.
 */
struct encd_comm_barrier {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	__u32 group_id;
	__u32 timeout_ms;
	__aligned_u64 duration_ns;
};
#define ENCD_IOC_COMM_BARRIER		_IO(ENCD_TYPE, ENCD_CMD_COMM_BARRIER)

#define ENCD_NODE_COUNTERS_MAX	16

/**
 * struct encd_msg_counter - messages of one type and size
 * @type: enum encd_msg_type
 * @size: payload bytes
 * @tx: sent
 * @rx: received
 */
struct encd_msg_counter {
	__u32 type;
	__u32 size;
	__aligned_u64 tx;
	__aligned_u64 rx;
};

/* out_flags of NODE_INFO */
#define ENCD_NODE_OUT_GLOBAL	(1U << 0)	/* the world's own node */
#define ENCD_NODE_OUT_BOUND	(1U << 1)	/* the group has ops on it */

/**
 * struct encd_mismatch - the signature mismatch this rank saw, if any
 * @valid: 1 when this rank recorded one
 * @group_id: the group (ENCD_GROUP_GLOBAL: the world's)
 * @child_rank: the bootstrap rank whose signature differed from this one's
 * @child_g_device_id: its global device id
 * @local_sig: this rank's signature of the group
 * @child_sig: the child's
 */
struct encd_mismatch {
	__u32 valid;
	__u32 group_id;
	__u32 child_rank;
	__u32 child_g_device_id;
	__u8 local_sig[16];
	__u8 child_sig[16];
};

/**
 * struct encd_node_info - ENCD_IOC_NODE_INFO
 * @head: flags must be 0
 * @vnc: the virtual NeuronCore
 * @ctx_id: < ENCD_MAX_CONTEXTS
 * @group_id: a replica group with a comm, or ENCD_GROUP_GLOBAL
 * @rank: out: the bootstrap rank in the comm
 * @rank_n: out: ranks in the comm
 * @stream_id: out: its pool's stream
 * @refcnt: out: references to the node (the groups and the world using it)
 * @state: out: enum encd_node_state
 * @local_n: out: the comm's ranks on this host
 * @groups: out: bit mask of the replica groups bound to the node
 * @out_flags: out: ENCD_NODE_OUT_*
 * @n_counters: out: entries of @counters in use
 * @hits: out: pool lookups that found this node
 * @phase_ns: out: how long each phase of the node's bootstrap took, by enum
 *	encd_phase; ENCD_PHASE_RENDEZVOUS is the world's rendezvous
 * @counters: out: the node's message counters
 * @mismatch: out: the last signature mismatch this rank recorded
 *
 * The unique id is never shown.
 */
struct encd_node_info {
	struct encd_head head;
	__u32 vnc;
	__u32 ctx_id;
	__u32 group_id;
	__u32 rank;
	__u32 rank_n;
	__u32 stream_id;
	__u32 refcnt;
	__u32 state;
	__u32 local_n;
	__u32 groups;
	__u32 out_flags;
	__u32 n_counters;
	__aligned_u64 hits;
	__aligned_u64 phase_ns[ENCD_PHASE_N];
	struct encd_msg_counter counters[ENCD_NODE_COUNTERS_MAX];
	struct encd_mismatch mismatch;
};
#define ENCD_IOC_NODE_INFO		_IO(ENCD_TYPE, ENCD_CMD_NODE_INFO)

#endif /* _UAPI_LINUX_ENCD_H */
