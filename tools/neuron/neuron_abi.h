/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user ABI of the AWS Neuron kernel driver (aws-neuron-driver, the
 * "neuron" module of the aws-neuronx-dkms package), as facts: what encd
 * reads to learn its topology, and what the test VM's fake driver
 * (selftests/neuron_fake/) presents. Written from the driver's public
 * sources, not copied from them; each item names the driver file it comes
 * from. "2.24" below is the release whose dkms.conf reads 2.24.7.0 (the
 * source of the pod election, v3/neuron_pelect.c); the ioctl header and
 * neuron_cdev.c were read at a later 2.2x revision of the same tree.
 *
 * Usable from a kernel module and from user space alike: it needs
 * <linux/types.h> and <linux/ioctl.h> only.
 *
 * The structs are the driver's, with its natural (unpacked) layout; the
 * asserts at the end pin the sizes and offsets that layout gives on every
 * Linux ABI (no member is wider than 4 bytes, no pointer, no long).
 */
#ifndef _TOOLS_NEURON_ABI_H
#define _TOOLS_NEURON_ABI_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * sysfs (neuron_cdev.c, all 2.x releases): one class, one device per
 * Neuron device, no parent device, so the devices live under
 * /sys/devices/virtual/neuron_device/ and /sys/class/neuron_device/ links
 * to them. The char device of device N is /dev/neuronN (minor N).
 */
#define NEURON_SYSFS_CLASS		"neuron_device"
#define NEURON_SYSFS_CLASS_DIR		"/sys/class/" NEURON_SYSFS_CLASS
#define NEURON_SYSFS_VIRTUAL_DIR	"/sys/devices/virtual/" NEURON_SYSFS_CLASS
/* Device name, and so /dev/neuronN and the class entry (neuron_cdev.c). */
#define NEURON_DEV_NAME_FMT		"neuron%d"
#define NEURON_DEV_PREFIX		"neuron"
/* The chrdev region's name in /proc/devices (neuron_cdev.c). */
#define NEURON_CHRDEV_NAME		"neuron"
/* How many devices the driver can have (neuron_device.h, 2.2x). */
#define NEURON_MAX_DEVICES		64

/*
 * neuronN/core_count (neuron_cdev.c, 2.x): the physical NeuronCores of one
 * device (2 on Inf2/Trn1, 8 on Trn2), mode 0400 (root only), printed as
 * "%d" WITHOUT a trailing newline.
 */
#define NEURON_SYSFS_CORE_COUNT		"core_count"
#define NEURON_SYSFS_CORE_COUNT_MODE	0400
/* Also per device, mode 0600 and 0400 (neuron_cdev.c, 2.x). */
#define NEURON_SYSFS_RESET		"reset"
#define NEURON_SYSFS_CONNECTED_DEVICES	"connected_devices"
/*
 * neuronN/neuron_coreM/: one directory per core, M = 0..core_count-1,
 * holding the core's metrics (neuron_sysfs_metrics.c, 2.7.15 and later).
 * The driver adds them after the device, so after its "add" uevent: a
 * reader woken by that event may not find them yet.
 */
#define NEURON_SYSFS_CORE_DIR_FMT	"neuron_core%d"
#define NEURON_SYSFS_MAX_CORES		8	/* MAX_NC_PER_DEVICE, 2.2x */

/*
 * Class attributes, /sys/class/neuron_device/<name>, mode 0444: the
 * UltraServer (pod) election's results (neuron_cdev.c and
 * v3/neuron_pelect.c, 2.24 and later; older drivers have none of them).
 *
 * While the election runs, or before it ran, each reads
 * NEURON_SYSFS_BUSY ("busy\n"); server_id_* read sixteen zeros instead.
 * Otherwise:
 *   node_id_4, node_id_2	"%d\n": this node's id in the 4-node or 2-node
 *				configuration, -1 when not in one.
 *   server_id_4, server_id_2	"%016llx\n": the UltraServer's unique id (a
 *				serial number), all zeros when not in one.
 *   ultraserver_mode		the supported modes (enum
 *				neuron_ultraserver_mode) as "%d" joined by
 *				",", then "\n"; "\n" alone when none.
 * Off a pod (an instance that is not part of one: v3/neuron_dhal_v3.c of
 * the later 2.2x drivers) there is no election: node_id_* read "-1\n",
 * server_id_* sixteen zeros and ultraserver_mode "\n", never "busy".
 * A 4-node pod seen as two pairs (node_id_2, server_id_2) pairs nodes 0
 * with 1 and 2 with 3, each pair's nodes 0 and 1; the pair of 2 and 3 has
 * the pod's id less 1.
 */
#define NEURON_SYSFS_NODE_ID_2		"node_id_2"
#define NEURON_SYSFS_NODE_ID_4		"node_id_4"
#define NEURON_SYSFS_SERVER_ID_2	"server_id_2"
#define NEURON_SYSFS_SERVER_ID_4	"server_id_4"
#define NEURON_SYSFS_ULTRASERVER_MODE	"ultraserver_mode"
#define NEURON_SYSFS_BUSY		"busy"
#define NEURON_SYSFS_SERVER_ID_NONE	"0000000000000000"
/*
 * Newer drivers add class attributes beside those. node_cnt
 * (v3/neuron_dhal_v3.c, later 2.2x) counts the nodes of a switch pod,
 * "%d\n", and reads "-1\n" on any other instance. node_id and
 * reservation_id are not in the sources read here: node_id is taken to
 * read as node_id_N does for the mode in use, reservation_id to be an id
 * string then "\n" ("\n" alone off a pod). A reader must accept the
 * absence of all three.
 */
#define NEURON_SYSFS_NODE_ID		"node_id"
#define NEURON_SYSFS_NODE_CNT		"node_cnt"
#define NEURON_SYSFS_RESERVATION_ID	"reservation_id"

/*
 * Pod type (share/neuron_driver_shared.h, 2.2x): P2P is a Trn2 UltraServer
 * (nodes linked directly), SWITCH a pod behind a switch (the later 2.2x
 * drivers' "PDS" platform).
 */
enum {
	NEURON_POD_TYPE_NONE = 0,
	NEURON_POD_TYPE_P2P = 1,
	NEURON_POD_TYPE_SWITCH = 2,
};

/* Pod election state, as the pod status ioctl reports it (same file). */
enum {
	NEURON_POD_E_STATE_NOT_STARTED = 0,
	NEURON_POD_E_STATE_IN_PROGRESS = 1,
	NEURON_POD_E_STATE_ULTRASERVER = 2,
	NEURON_POD_E_STATE_FAILED = 3,
	NEURON_POD_E_STATE_SINGLE_NODE = 4,
};

/*
 * UltraServer operating mode (same file, 2.24 and later); the v2 pod
 * status's modes_supported has bit (1 << mode) set for each supported one.
 */
enum neuron_ultraserver_mode {
	NEURON_ULTRASERVER_MODE_UNSET = 0,
	NEURON_ULTRASERVER_MODE_X4 = 1,		/* 4 nodes */
	NEURON_ULTRASERVER_MODE_X2H = 2,	/* 2 nodes, horizontal links */
	NEURON_ULTRASERVER_MODE_X2V = 3,	/* 2 nodes, vertical links */
	NEURON_ULTRASERVER_MODE_X1 = 4,		/* standalone */
};

/*
 * ioctls (neuron_ioctl.h, 2.2x), type 'N'. The pod ioctls and the rid map
 * are "misc" ioctls: they work on an fd opened O_WRONLY, which the driver
 * treats as free access (no process attach, no wait for device reset).
 * NEURON_IOCTL_HOST_DEVICE_ID is not one of them: it needs an fd opened
 * otherwise (O_RDWR); on an O_WRONLY fd the driver answers -EINVAL.
 */
#define NEURON_IOCTL_BASE		'N'

/*
 * The pod this host is in (2.2x). sz is in: the caller sets it to
 * sizeof(struct neuron_ioctl_pod_info), anything else is -EINVAL.
 */
struct neuron_ioctl_pod_info {
	__u16 sz;		/* in: sizeof this struct */
	__u8 pod_type;		/* out: NEURON_POD_TYPE_* */
	__u8 pod_id[256];	/* out: unique id of the pod, same on its nodes */
	__u8 pod_sz;		/* out: nodes in the pod */
};
/*
 * pod_id: the driver copies the pod's 64-bit serial number (server_id_N's
 * value) into its first 8 bytes in the host's byte order (little-endian on
 * every Neuron host), and zeroes the rest. Off a pod all of it is zero,
 * pod_type NONE and pod_sz 0.
 */

/*
 * The pod and this node's place in it (2.2x). sz as above. While the
 * election runs the driver fills the struct, state IN_PROGRESS, and the
 * ioctl fails with EBUSY. Off a pod: state SINGLE_NODE, node_id -1. A
 * failed election, or mode X1, is SINGLE_NODE too; pod_sz, node_id and
 * pod_id are those of the mode in use (UNSET: the election's own).
 */
struct neuron_ioctl_pod_status {
	__u16 sz;		/* in: sizeof this struct */
	__u8 pod_id[256];	/* out: unique id of the pod */
	__u32 state;		/* out: NEURON_POD_E_STATE_* */
	__u8 pod_type;		/* out: NEURON_POD_TYPE_* */
	__u8 pod_sz;		/* out: nodes in the pod */
	__s8 node_id;		/* out: node id in the pod, -1 if none */
};

/* v1 then the operating mode (2.24 and later); v1.sz = sizeof this one. */
struct neuron_ioctl_pod_status_v2 {
	struct neuron_ioctl_pod_status v1;
	__u32 mode;		/* out: enum neuron_ultraserver_mode in use */
	__u32 modes_supported;	/* out: bit (1 << mode) per supported mode */
};

/* The device's index on the host (2.2x): N of /dev/neuronN. */
struct neuron_ioctl_host_device_id {
	__u32 host_device_id;	/* out */
};

/*
 * Host device index to routing id, for the instance type (2.2x). The
 * driver checks the ioctl's size field against this struct, zeroes it and
 * fills count entries.
 */
#define NEURON_IOCTL_MAX_DEVICES	64
struct neuron_ioctl_host_device_id_to_rid_map {
	__u32 count;				/* out: entries */
	__u32 host_did_to_rid_map[NEURON_IOCTL_MAX_DEVICES]; /* out */
};

#define NEURON_IOCTL_HOST_DEVICE_ID \
	_IOR(NEURON_IOCTL_BASE, 114, struct neuron_ioctl_host_device_id)
#define NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP \
	_IOWR(NEURON_IOCTL_BASE, 115, struct neuron_ioctl_host_device_id_to_rid_map)
#define NEURON_IOCTL_POD_INFO \
	_IOWR(NEURON_IOCTL_BASE, 121, struct neuron_ioctl_pod_info)
/* One number, two sizes: the driver tells v1 from v2 by the size. */
#define NEURON_IOCTL_POD_STATUS \
	_IOWR(NEURON_IOCTL_BASE, 122, struct neuron_ioctl_pod_status)
#define NEURON_IOCTL_POD_STATUS_V2 \
	_IOWR(NEURON_IOCTL_BASE, 122, struct neuron_ioctl_pod_status_v2)

#define NEURON_ABI_OFFSET(t, m) __builtin_offsetof(t, m)

_Static_assert(sizeof(struct neuron_ioctl_pod_info) == 260, "pod_info size");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_info, pod_type) == 2,
	       "pod_info.pod_type");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_info, pod_id) == 3,
	       "pod_info.pod_id");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_info, pod_sz) == 259,
	       "pod_info.pod_sz");
_Static_assert(sizeof(struct neuron_ioctl_pod_status) == 268, "pod_status size");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_status, pod_id) == 2,
	       "pod_status.pod_id");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_status, state) == 260,
	       "pod_status.state");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_status, pod_type) == 264,
	       "pod_status.pod_type");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_status, pod_sz) == 265,
	       "pod_status.pod_sz");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_status, node_id) == 266,
	       "pod_status.node_id");
_Static_assert(sizeof(struct neuron_ioctl_pod_status_v2) == 276,
	       "pod_status_v2 size");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_status_v2, mode) == 268,
	       "pod_status_v2.mode");
_Static_assert(NEURON_ABI_OFFSET(struct neuron_ioctl_pod_status_v2, modes_supported) == 272,
	       "pod_status_v2.modes_supported");
_Static_assert(sizeof(struct neuron_ioctl_host_device_id) == 4,
	       "host_device_id size");
_Static_assert(sizeof(struct neuron_ioctl_host_device_id_to_rid_map) == 260,
	       "host_device_id_to_rid_map size");

#endif /* _TOOLS_NEURON_ABI_H */
