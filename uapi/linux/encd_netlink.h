/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/encd.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_ENCD_NETLINK_H
#define _UAPI_LINUX_ENCD_NETLINK_H

#define ENCD_GENL_NAME		"encd"
#define ENCD_GENL_VERSION	1

#define ENCD_PARTICIPANTS_PER_MSG	128

/**
 * enum encd_pod_type - The pod this host is part of (libnrt's pod_type).
 * @ENCD_POD_TYPE_NONE: no pod
 * @ENCD_POD_TYPE_P2P: nodes linked point to point, pod-sz of them
 * @ENCD_POD_TYPE_SWITCH: nodes behind a switch, at most
 *   ENCD_POD_SWITCH_MAX_NODES
 * @ENCD_POD_TYPE_INVALID: libnrt's invalid pod type; no comm is built in it
 */
enum encd_pod_type {
	ENCD_POD_TYPE_NONE,
	ENCD_POD_TYPE_P2P,
	ENCD_POD_TYPE_SWITCH,
	ENCD_POD_TYPE_INVALID,
};

/**
 * enum encd_gcomm_state - Where a global comm is.
 * @ENCD_GCOMM_BUILT: identity set, not bootstrapped
 * @ENCD_GCOMM_BOOTSTRAPPED: the global replica group has a comm
 */
enum encd_gcomm_state {
	ENCD_GCOMM_BUILT = 1,
	ENCD_GCOMM_BOOTSTRAPPED,
};

/**
 * enum encd_node_state - Where a comm node is in libnrt's get_nccl_comm.
 * @ENCD_NODE_PENDING: in its pool, bootstrap not started
 * @ENCD_NODE_VALIDATING: signatures going up the binary tree
 * @ENCD_NODE_BROADCASTING: the unique id and verdict going down the hypercube
 * @ENCD_NODE_CONNECTING: comm init, connecting to the ring neighbours
 * @ENCD_NODE_BARRIER: in the local barrier
 * @ENCD_NODE_READY: formed; usable by its replica groups
 * @ENCD_NODE_FAILED: bootstrap failed; see the error nest
 */
enum encd_node_state {
	ENCD_NODE_PENDING = 1,
	ENCD_NODE_VALIDATING,
	ENCD_NODE_BROADCASTING,
	ENCD_NODE_CONNECTING,
	ENCD_NODE_BARRIER,
	ENCD_NODE_READY,
	ENCD_NODE_FAILED,
};

/**
 * enum encd_topo_source - Where the device broker's facts come from.
 * @ENCD_TOPO_SOURCE_PARAMS: the module parameters (and topo-set): the default,
 *   and what stays in force on a host with no Neuron driver
 * @ENCD_TOPO_SOURCE_NEURON: the Neuron driver, as `encctl topo sync` last read
 *   it (topo-sync)
 */
enum encd_topo_source {
	ENCD_TOPO_SOURCE_PARAMS,
	ENCD_TOPO_SOURCE_NEURON,
};

#define ENCD_NEURON_MAX_DEVICES	64

/**
 * enum encd_phase - The timed steps of forming a world and its comms.
 * @ENCD_PHASE_RENDEZVOUS: world rendezvous through root_comm_id (global comms
 *   only)
 * @ENCD_PHASE_VALIDATE: signature validation up the binary tree
 * @ENCD_PHASE_BROADCAST: unique-id broadcast down the hypercube
 * @ENCD_PHASE_COMM_INIT: connecting to the ring neighbours
 * @ENCD_PHASE_LOCAL_BARRIER: the intra-host barrier that ends comm init
 */
enum encd_phase {
	ENCD_PHASE_RENDEZVOUS,
	ENCD_PHASE_VALIDATE,
	ENCD_PHASE_BROADCAST,
	ENCD_PHASE_COMM_INIT,
	ENCD_PHASE_LOCAL_BARRIER,
};

/**
 * enum encd_msg_type - The bootstrap's message kinds, for the per-node
 *   counters.
 * @ENCD_MSG_HELLO: rendezvous HELLO
 * @ENCD_MSG_PEERS: the rendezvous peer table
 * @ENCD_MSG_SIGNATURE: 17-byte signature + ok byte, up the tree
 * @ENCD_MSG_UNIQUE_ID: 129-byte unique id + verdict, down the hypercube
 * @ENCD_MSG_RING: comm init ring-neighbour proof
 * @ENCD_MSG_BARRIER: group barrier rounds
 */
enum encd_msg_type {
	ENCD_MSG_HELLO = 1,
	ENCD_MSG_PEERS,
	ENCD_MSG_SIGNATURE,
	ENCD_MSG_UNIQUE_ID,
	ENCD_MSG_RING,
	ENCD_MSG_BARRIER,
};

enum {
	ENCD_A_GCOMM_UNSPEC,
	ENCD_A_GCOMM_PAD,
	ENCD_A_GCOMM_NEC_DEV,
	ENCD_A_GCOMM_CTX,
	ENCD_A_GCOMM_SERIAL,
	ENCD_A_GCOMM_G_DEVICE_ID,
	ENCD_A_GCOMM_G_DEVICE_CNT,
	ENCD_A_GCOMM_VTPB_IDX,
	ENCD_A_GCOMM_MLA_IDX,
	ENCD_A_GCOMM_HOST_DEVICE_ID,
	ENCD_A_GCOMM_ROUTING_ID,
	ENCD_A_GCOMM_VIRTUAL_SERVER_ID,
	ENCD_A_GCOMM_POD_TYPE,
	ENCD_A_GCOMM_POD_NODE_ID,
	ENCD_A_GCOMM_POD_SZ,
	ENCD_A_GCOMM_RESERVATION_ID,
	ENCD_A_GCOMM_ROOT_COMM_ID,
	ENCD_A_GCOMM_CHECK_SIGS,
	ENCD_A_GCOMM_HOLDERS,
	ENCD_A_GCOMM_STATE,
	ENCD_A_GCOMM_CREATED,
	ENCD_A_GCOMM_NETNS_INO,
	ENCD_A_GCOMM_PHASE,
	ENCD_A_GCOMM_ERROR,
	ENCD_A_GCOMM_HOST_TX_BYTES,

	__ENCD_A_GCOMM_MAX,
	ENCD_A_GCOMM_MAX = (__ENCD_A_GCOMM_MAX - 1)
};

enum {
	ENCD_A_PHASE_UNSPEC,
	ENCD_A_PHASE_PAD,
	ENCD_A_PHASE_ID,
	ENCD_A_PHASE_START,
	ENCD_A_PHASE_DURATION,

	__ENCD_A_PHASE_MAX,
	ENCD_A_PHASE_MAX = (__ENCD_A_PHASE_MAX - 1)
};

enum {
	ENCD_A_COUNTER_UNSPEC,
	ENCD_A_COUNTER_PAD,
	ENCD_A_COUNTER_TYPE,
	ENCD_A_COUNTER_SIZE,
	ENCD_A_COUNTER_TX,
	ENCD_A_COUNTER_RX,

	__ENCD_A_COUNTER_MAX,
	ENCD_A_COUNTER_MAX = (__ENCD_A_COUNTER_MAX - 1)
};

enum {
	ENCD_A_ERROR_UNSPEC,
	ENCD_A_ERROR_ERRNO,
	ENCD_A_ERROR_MSG,
	ENCD_A_ERROR_PHASE,
	ENCD_A_ERROR_PEER_RANK,
	ENCD_A_ERROR_PEER_G_DEVICE_ID,
	ENCD_A_ERROR_GROUP_ID,
	ENCD_A_ERROR_LOCAL_SIG,
	ENCD_A_ERROR_PEER_SIG,
	ENCD_A_ERROR_REASON,

	__ENCD_A_ERROR_MAX,
	ENCD_A_ERROR_MAX = (__ENCD_A_ERROR_MAX - 1)
};

enum {
	ENCD_A_NODE_UNSPEC,
	ENCD_A_NODE_PAD,
	ENCD_A_NODE_NEC_DEV,
	ENCD_A_NODE_CTX,
	ENCD_A_NODE_STREAM,
	ENCD_A_NODE_GCOMM_SERIAL,
	ENCD_A_NODE_PARTICIPANTS,
	ENCD_A_NODE_RANK,
	ENCD_A_NODE_RANK_N,
	ENCD_A_NODE_REFCNT,
	ENCD_A_NODE_STATE,
	ENCD_A_NODE_GLOBAL,
	ENCD_A_NODE_GROUPS,
	ENCD_A_NODE_PHASE,
	ENCD_A_NODE_COUNTER,
	ENCD_A_NODE_ERROR,
	ENCD_A_NODE_PARTICIPANTS_OFFSET,

	__ENCD_A_NODE_MAX,
	ENCD_A_NODE_MAX = (__ENCD_A_NODE_MAX - 1)
};

enum {
	ENCD_A_TOPO_UNSPEC,
	ENCD_A_TOPO_PAD,
	ENCD_A_TOPO_NUM_VCORES,
	ENCD_A_TOPO_POD_TYPE,
	ENCD_A_TOPO_POD_NODE_ID,
	ENCD_A_TOPO_POD_SZ,
	ENCD_A_TOPO_RESERVATION_ID,
	ENCD_A_TOPO_VIRTUAL_SERVER_SIZE,
	ENCD_A_TOPO_SOURCE,
	ENCD_A_TOPO_SYNCED_AT,
	ENCD_A_TOPO_POD_ELECTION,
	ENCD_A_TOPO_NEURON_NODE_ID,
	ENCD_A_TOPO_DEVICE,

	__ENCD_A_TOPO_MAX,
	ENCD_A_TOPO_MAX = (__ENCD_A_TOPO_MAX - 1)
};

enum {
	ENCD_A_NEURON_DEVICE_UNSPEC,
	ENCD_A_NEURON_DEVICE_INDEX,
	ENCD_A_NEURON_DEVICE_CORE_COUNT,
	ENCD_A_NEURON_DEVICE_ROUTING_ID,

	__ENCD_A_NEURON_DEVICE_MAX,
	ENCD_A_NEURON_DEVICE_MAX = (__ENCD_A_NEURON_DEVICE_MAX - 1)
};

enum {
	ENCD_A_MODULE_UNSPEC,
	ENCD_A_MODULE_ALLOW_INSECURE_WORLDS,

	__ENCD_A_MODULE_MAX,
	ENCD_A_MODULE_MAX = (__ENCD_A_MODULE_MAX - 1)
};

enum {
	ENCD_A_VCORE_UNSPEC,
	ENCD_A_VCORE_VNC,
	ENCD_A_VCORE_NEC_DEV,
	ENCD_A_VCORE_MLA_IDX,
	ENCD_A_VCORE_HOST_DEVICE_ID,
	ENCD_A_VCORE_ROUTING_ID,
	ENCD_A_VCORE_VTPB_IDX,

	__ENCD_A_VCORE_MAX,
	ENCD_A_VCORE_MAX = (__ENCD_A_VCORE_MAX - 1)
};

enum encd_nl_cmd {
	ENCD_NL_CMD_UNSPEC,
	ENCD_NL_CMD_GCOMM_GET,
	ENCD_NL_CMD_GCOMM_ADD_NTF,
	ENCD_NL_CMD_GCOMM_DEL_NTF,
	ENCD_NL_CMD_NODE_GET,
	ENCD_NL_CMD_WORLD_FORMED_NTF,
	ENCD_NL_CMD_WORLD_FAILED_NTF,
	ENCD_NL_CMD_SIG_MISMATCH_NTF,
	ENCD_NL_CMD_NODE_DEL_NTF,
	ENCD_NL_CMD_TOPO_GET,
	ENCD_NL_CMD_TOPO_SET,
	ENCD_NL_CMD_VCORE_GET,
	ENCD_NL_CMD_MODULE_GET,
	ENCD_NL_CMD_TOPO_SYNC,

	__ENCD_NL_CMD_MAX,
	ENCD_NL_CMD_MAX = (__ENCD_NL_CMD_MAX - 1)
};

#define ENCD_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_ENCD_NETLINK_H */
