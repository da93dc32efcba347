/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * encd: collective-communication worlds for Neuron hosts, in the kernel.
 *
 * This header is the whole contract between the encd module and user space.
 *
 * Objects
 * -------
 * A *global communicator* ("global comm", the seed's enc_glb_comm) is the
 * identity record of one rank in a collective world: world size, this rank's
 * global device id, pod topology, and a semaphore-increment value buffer.
 * There is at most one per (nec_dev, ctx_id); nec_dev is the NeuronCore device
 * that a virtual NeuronCore (vnc) resolves to, ctx_id is < ENCD_MAX_CONTEXTS
 * (0: the NEFF-loaded comm, 1: a standalone user comm).
 *
 * A global comm is *held* by file descriptors of /dev/encd: the fd that built
 * it, and every fd that later built or validated the same world on that core.
 * It lives while any fd holds it; ENCD_IOC_RELEASE_GLOBAL_COMM or closing the
 * fd lets go. A global comm is shared by every process on the host that builds
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
 * when @msg_len is not zero. The same sentence goes to the kernel log.
 *
 * Errors common to the global-comm commands:
 *   ENODEV     "Failed to find core %u": no such virtual NeuronCore.
 *   EINVAL     a bad argument (ctx_id out of range, world size 0, device id
 *              not below the world size, a root_comm_id without its NUL), a
 *              world that differs from the one already set up, or a
 *              topology the seed rejects (pod type, pod node id, virtual
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

enum encd_pod_type {
	ENCD_POD_TYPE_NONE = 0,
	ENCD_POD_TYPE_P2P = 1,
	ENCD_POD_TYPE_SWITCH = 2,
	ENCD_POD_TYPE_INVALID = 3,
};

/* A switch pod has at most this many nodes, whatever pod_sz says. */
#define ENCD_POD_SWITCH_MAX_NODES	4

enum encd_gcomm_state {
	ENCD_GCOMM_BUILT = 1,		/* identity set, not bootstrapped */
	ENCD_GCOMM_BOOTSTRAPPED = 2,	/* the global replica group has a comm */
};

/**
 * struct encd_head - the common head of every ioctl argument struct
 * @size: sizeof the whole argument struct as user space knows it
 * @flags: command-specific flags; unknown bits are -EOPNOTSUPP
 * @msg_uptr: user buffer for the failure sentence, or 0
 * @msg_len: size of that buffer in bytes, or 0
 * @__reserved: must be 0
 */
struct encd_head {
	__u32 size;
	__u32 flags;
	__aligned_u64 msg_uptr;
	__u32 msg_len;
	__u32 __reserved;
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
 * @reservation_id: the host's reservation id
 * @__root_comm_id_ptr: a pointer in the original; always 0 (see @root_comm_id)
 * @check_sigs: 1 when op signatures are checked across ranks at bootstrap
 * @inc_recv_sem_values_buffer: the mmap offset of the semaphore buffer
 * @inc_recv_sem_values_buffer_size: ENCD_SEM_VALUES_SIZE (516)
 * @serial: a number no other global comm since module load has had
 * @holders: how many file descriptors hold the comm
 * @state: enum encd_gcomm_state
 * @ctx_id: the context slot
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
 * BUILD is the seed's enc_init_global_comm: if the core already has a global
 * comm in @ctx_id with the same g_device_id and world size, the call succeeds
 * without a new object; with another world it fails with EINVAL "NRT has
 * already been setup with a collectives world size of %d ...". Otherwise a
 * comm is made after the seed's checks: the virtual server size must divide
 * the world size; pod_type must be <= 2; pod_node_id must be below pod_sz for
 * a P2P pod and below 4 for a switch pod. Either way, on success this fd
 * holds the comm.
 *
 * VALIDATE is the seed's enc_validate_global_comm: with no comm on the core it
 * is BUILD. Otherwise a NEFF world (@g_device_cnt) larger than the comm's is
 * EINVAL "World size of neff %d is greater than world size of global
 * communicator %d"; an equal one passes; a smaller one passes only once the
 * comm is bootstrapped, else EINVAL "World size of neff != global
 * communicator. Recommend nrt_build_global_comm first.". On success this fd
 * holds the comm.
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

#endif /* _UAPI_LINUX_ENCD_H */
