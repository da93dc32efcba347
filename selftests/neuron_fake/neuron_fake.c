// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_fake: a stand-in for the AWS Neuron driver, for the test VM only.
 *
 * It presents what user space sees of the real driver (the facts are in
 * tools/neuron/neuron_abi.h): the neuron_device class and its pod election
 * attributes, one neuronN device per Neuron device with core_count and its
 * neuron_coreM directories, and /dev/neuronN with the pod, host device id
 * and routing id ioctls. There is no hardware behind it: module parameters
 * say what it shows, some of them writable at run time (the pod, the
 * election, a device leaving and coming back), and some break it on purpose
 * (an attribute missing or garbled, no char device at all), so that encd's
 * reading of the real thing can be tested against each way it can look.
 *
 * Locking: fake_dev_lock serialises making and removing devices (load,
 * unload, remove_device, add_device); fake_lock guards what sysfs and the
 * ioctls read: the pod (struct fake_pod) and which devices are present.
 * Order: fake_dev_lock, then fake_lock. Nothing that runs in a sysfs show()
 * or an ioctl takes fake_dev_lock: removing a device waits for the readers
 * of its sysfs files, which therefore must never wait for the remover.
 */

#include <linux/bits.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "neuron_abi.h"

/*
 * 6.4 dropped class_create()'s owner argument (it was a macro before, a
 * function since) and made the class attribute callbacks take const
 * pointers, in the same release.
 */
#ifdef class_create
#define fake_class_create(name)	class_create(THIS_MODULE, name)
#define FAKE_CLASS_CONST
#else
#define fake_class_create(name)	class_create(name)
#define FAKE_CLASS_CONST	const
#endif

/* What a pod election decided, as the driver keeps it (v3/neuron_pelect.c). */
struct fake_pod {
	int type;		/* NEURON_POD_TYPE_* */
	int sz;			/* nodes the election found; 0: it failed */
	int node_id;		/* this node's id among them, -1 for none */
	bool busy;		/* an election is running */
	unsigned long long server_id;	/* the pod's unique id */
	int mode;		/* enum neuron_ultraserver_mode in use */
	char reservation_id[64];
};

static DEFINE_MUTEX(fake_dev_lock);
static DEFINE_MUTEX(fake_lock);

static struct fake_pod pod = { .node_id = -1 };

struct fake_dev {
	unsigned int index;
	bool present;			/* under fake_lock */
	struct device *dev;		/* under fake_dev_lock */
	struct kobject *cores[NEURON_SYSFS_MAX_CORES];
};

static struct fake_dev devs[NEURON_MAX_DEVICES];
static struct class *fake_class;
static dev_t fake_devt;
static struct cdev fake_cdev;
/* Set once everything exists, cleared before any of it goes. */
static bool fake_ready;
/* remove_device=N given at load time: N starts absent. */
static u64 absent_at_load;

static unsigned int n_devices = 16;
module_param(n_devices, uint, 0444);
MODULE_PARM_DESC(n_devices, "Neuron devices, neuron0 to neuronN-1 (0 to 64, default 16)");

static unsigned int core_count = 2;
module_param(core_count, uint, 0444);
MODULE_PARM_DESC(core_count, "Physical NeuronCores per device, in neuronN/core_count (1 to 8, default 2)");

static unsigned int rid_map[NEURON_MAX_DEVICES];
static unsigned int n_rid_map;
module_param_array(rid_map, uint, &n_rid_map, 0444);
MODULE_PARM_DESC(rid_map, "Routing id of each device, n_devices of them (default: device i has n_devices-1-i)");

static bool newer_attrs = true;
module_param(newer_attrs, bool, 0444);
MODULE_PARM_DESC(newer_attrs, "Also the newer drivers' class attributes node_id, node_cnt, reservation_id (default 1; 0 is a 2.24 driver)");

static bool no_cdev;
module_param(no_cdev, bool, 0444);
MODULE_PARM_DESC(no_cdev, "No char devices, so no /dev/neuronN and no ioctls: sysfs alone (default 0)");

static char *omit;
module_param(omit, charp, 0444);
MODULE_PARM_DESC(omit, "Leave out, comma-separated: core_count[@N], core_dirs[@N] (neuron_coreM of device N, or of all), a class attribute by name, or class (all of them)");

static char *garbage;
module_param(garbage, charp, 0444);
MODULE_PARM_DESC(garbage, "Show garbage_text instead, comma-separated: core_count[@N] or a class attribute by name");

static char *garbage_text = "junk";
module_param(garbage_text, charp, 0444);
MODULE_PARM_DESC(garbage_text, "What a garbled attribute shows, verbatim (default \"junk\", no newline)");

/* Per-device attributes the omit and garbage lists can name, by bit. */
enum {
	FAKE_DEV_CORE_COUNT,
	FAKE_DEV_CORE_DIRS,
	FAKE_DEV_NR
};

static const char *const fake_dev_items[FAKE_DEV_NR] = {
	[FAKE_DEV_CORE_COUNT] = NEURON_SYSFS_CORE_COUNT,
	[FAKE_DEV_CORE_DIRS] = "core_dirs",
};

static u64 omit_dev[FAKE_DEV_NR], garbage_dev[FAKE_DEV_NR];
static u32 omit_class, garbage_class, class_made;

/* The pod's parameters: writable at run time, checked and set under fake_lock. */
static bool pod_valid(const struct fake_pod *p)
{
	return p->type >= NEURON_POD_TYPE_NONE && p->type <= NEURON_POD_TYPE_SWITCH &&
	       p->sz >= 0 && p->sz <= U8_MAX && p->node_id >= -1 && p->node_id <= S8_MAX &&
	       p->mode >= NEURON_ULTRASERVER_MODE_UNSET && p->mode <= NEURON_ULTRASERVER_MODE_X1;
}

static int pod_set(const char *val, const struct kernel_param *kp,
		   int (*set)(const char *, const struct kernel_param *))
{
	struct fake_pod old;
	int ret;

	mutex_lock(&fake_lock);
	old = pod;
	ret = set(val, kp);
	if (!ret && !pod_valid(&pod)) {
		pod = old;
		ret = -EINVAL;
	}
	mutex_unlock(&fake_lock);
	return ret;
}

static int pod_get(char *buf, const struct kernel_param *kp,
		   int (*get)(char *, const struct kernel_param *))
{
	int ret;

	mutex_lock(&fake_lock);
	ret = get(buf, kp);
	mutex_unlock(&fake_lock);
	return ret;
}

#define FAKE_POD_OPS(name, setter, getter)				\
static int pod_set_##name(const char *val, const struct kernel_param *kp) \
{									\
	return pod_set(val, kp, setter);				\
}									\
static int pod_get_##name(char *buf, const struct kernel_param *kp)	\
{									\
	return pod_get(buf, kp, getter);				\
}									\
static const struct kernel_param_ops pod_ops_##name = {			\
	.set = pod_set_##name,						\
	.get = pod_get_##name,						\
}

FAKE_POD_OPS(int, param_set_int, param_get_int);
FAKE_POD_OPS(bool, param_set_bool, param_get_bool);
FAKE_POD_OPS(ullong, param_set_ullong, param_get_ullong);
FAKE_POD_OPS(string, param_set_copystring, param_get_string);

module_param_cb(pod_type, &pod_ops_int, &pod.type, 0644);
MODULE_PARM_DESC(pod_type, "0 no pod (default), 1 P2P (UltraServer), 2 switch");
module_param_cb(pod_sz, &pod_ops_int, &pod.sz, 0644);
MODULE_PARM_DESC(pod_sz, "Nodes the election found (0 to 255; 0, the default, is a failed election: single node)");
module_param_cb(node_id, &pod_ops_int, &pod.node_id, 0644);
MODULE_PARM_DESC(node_id, "This node's id in the pod (-1, the default, for none)");
module_param_cb(busy, &pod_ops_bool, &pod.busy, 0644);
MODULE_PARM_DESC(busy, "A pod election is running (1) or not (0, default); no effect off a pod, as in the driver");
module_param_cb(server_id, &pod_ops_ullong, &pod.server_id, 0644);
MODULE_PARM_DESC(server_id, "The pod's unique id: server_id_N, and pod_id's first 8 bytes (little-endian)");
module_param_cb(mode, &pod_ops_int, &pod.mode, 0644);
MODULE_PARM_DESC(mode, "UltraServer operating mode in use: 0 unset (default), 1 x4, 2 x2h, 3 x2v, 4 x1");

static struct kparam_string reservation_id_param = {
	.maxlen = sizeof(pod.reservation_id),
	.string = pod.reservation_id,
};

module_param_cb(reservation_id, &pod_ops_string, &reservation_id_param, 0644);
MODULE_PARM_DESC(reservation_id, "What the reservation_id class attribute shows on a pod (default empty)");

/* The modal views of the election's result, as v3/neuron_pelect.c has them. */
static bool pod_mode_supported(const struct fake_pod *p, int mode)
{
	switch (mode) {
	case NEURON_ULTRASERVER_MODE_X4:
		return p->sz == 4;
	case NEURON_ULTRASERVER_MODE_X2H:
		return p->sz == 2;
	case NEURON_ULTRASERVER_MODE_X2V:
		return p->sz >= 2;
	case NEURON_ULTRASERVER_MODE_X1:
		return true;
	}
	return false;
}

static u32 pod_modes_supported(const struct fake_pod *p)
{
	u32 modes = 0;
	int mode;

	for (mode = NEURON_ULTRASERVER_MODE_X4; mode <= NEURON_ULTRASERVER_MODE_X1; mode++)
		if (pod_mode_supported(p, mode))
			modes |= BIT(mode);
	return modes;
}

static int pod_node_id(const struct fake_pod *p, int mode)
{
	/* A 4-node pod seen as two pairs, over the horizontal or vertical links. */
	static const int x2h[] = { 0, 0, 1, 1 }, x2v[] = { 0, 1, 0, 1 };
	bool four = p->sz == 4 && p->node_id >= 0 && p->node_id < 4;

	switch (mode) {
	case NEURON_ULTRASERVER_MODE_X4:
		return p->sz == 4 ? p->node_id : -1;
	case NEURON_ULTRASERVER_MODE_X2H:
		return four ? x2h[p->node_id] : p->node_id;
	case NEURON_ULTRASERVER_MODE_X2V:
		return four ? x2v[p->node_id] : p->node_id;
	case NEURON_ULTRASERVER_MODE_X1:
		return -1;
	}
	return p->node_id;
}

static int pod_node_cnt(const struct fake_pod *p, int mode)
{
	switch (mode) {
	case NEURON_ULTRASERVER_MODE_X4:
		return p->sz == 4 ? 4 : 0;
	case NEURON_ULTRASERVER_MODE_X2H:
	case NEURON_ULTRASERVER_MODE_X2V:
		return p->sz == 4 ? 2 : p->sz;
	case NEURON_ULTRASERVER_MODE_X1:
		return 0;
	}
	return p->sz;
}

static u64 pod_server_id(const struct fake_pod *p, int mode)
{
	/* The second pair of a 4-node pod is named after its lower node. */
	bool four = p->sz == 4 && p->node_id >= 0 && p->node_id < 4;

	switch (mode) {
	case NEURON_ULTRASERVER_MODE_X4:
		return p->sz == 4 ? p->server_id : 0;
	case NEURON_ULTRASERVER_MODE_X2H:
		return four && (p->node_id & 1) ? p->server_id - 1 : p->server_id;
	case NEURON_ULTRASERVER_MODE_X2V:
		return four && p->node_id >= 2 ? p->server_id - 1 : p->server_id;
	case NEURON_ULTRASERVER_MODE_X1:
		return 0;
	}
	return p->server_id;
}

/* The pod as it stands while an election runs: nothing decided yet. */
static struct fake_pod pod_snapshot(void)
{
	struct fake_pod p;

	mutex_lock(&fake_lock);
	p = pod;
	mutex_unlock(&fake_lock);
	if (p.type != NEURON_POD_TYPE_NONE && p.busy) {
		p.sz = 0;
		p.node_id = -1;
		p.server_id = 0;
	}
	return p;
}

/* The configuration the node_id_N and server_id_N attributes speak of. */
static int pod_mode_of_size(const struct fake_pod *p, int sz)
{
	if (sz == 4)
		return NEURON_ULTRASERVER_MODE_X4;
	if (pod_mode_supported(p, NEURON_ULTRASERVER_MODE_X2H))
		return NEURON_ULTRASERVER_MODE_X2H;
	if (pod_mode_supported(p, NEURON_ULTRASERVER_MODE_X2V))
		return NEURON_ULTRASERVER_MODE_X2V;
	return NEURON_ULTRASERVER_MODE_X1;
}

enum {
	FAKE_NODE_ID_2,
	FAKE_NODE_ID_4,
	FAKE_SERVER_ID_2,
	FAKE_SERVER_ID_4,
	FAKE_ULTRASERVER_MODE,
	FAKE_NODE_ID,
	FAKE_NODE_CNT,
	FAKE_RESERVATION_ID,
	FAKE_CLASS_NR
};

#define FAKE_NEWER_ATTRS (BIT(FAKE_NODE_ID) | BIT(FAKE_NODE_CNT) | BIT(FAKE_RESERVATION_ID))

static ssize_t fake_class_emit(int which, char *buf)
{
	struct fake_pod p = pod_snapshot();
	bool none = p.type == NEURON_POD_TYPE_NONE;
	int len = 0, mode;

	switch (which) {
	case FAKE_NODE_ID_2:
	case FAKE_NODE_ID_4:
		if (none)
			return sysfs_emit(buf, "-1\n");
		if (p.busy)
			return sysfs_emit(buf, NEURON_SYSFS_BUSY "\n");
		mode = pod_mode_of_size(&p, which == FAKE_NODE_ID_4 ? 4 : 2);
		return sysfs_emit(buf, "%d\n", pod_node_id(&p, mode));
	case FAKE_SERVER_ID_2:
	case FAKE_SERVER_ID_4:
		if (none || p.busy)
			return sysfs_emit(buf, NEURON_SYSFS_SERVER_ID_NONE "\n");
		mode = pod_mode_of_size(&p, which == FAKE_SERVER_ID_4 ? 4 : 2);
		return sysfs_emit(buf, "%016llx\n", pod_server_id(&p, mode));
	case FAKE_ULTRASERVER_MODE:
		if (none)
			return sysfs_emit(buf, "\n");
		if (p.busy)
			return sysfs_emit(buf, NEURON_SYSFS_BUSY "\n");
		for (mode = NEURON_ULTRASERVER_MODE_X4; mode <= NEURON_ULTRASERVER_MODE_X1; mode++)
			if (pod_mode_supported(&p, mode))
				len += sysfs_emit_at(buf, len, "%s%d", len ? "," : "", mode);
		return len + sysfs_emit_at(buf, len, "\n");
	case FAKE_NODE_ID:
		if (none)
			return sysfs_emit(buf, "-1\n");
		if (p.busy)
			return sysfs_emit(buf, NEURON_SYSFS_BUSY "\n");
		return sysfs_emit(buf, "%d\n", pod_node_id(&p, p.mode));
	case FAKE_NODE_CNT:
		/* The driver counts the nodes of a switch pod only. */
		if (p.type != NEURON_POD_TYPE_SWITCH)
			return sysfs_emit(buf, "-1\n");
		if (p.busy)
			return sysfs_emit(buf, NEURON_SYSFS_BUSY "\n");
		return sysfs_emit(buf, "%d\n", pod_node_cnt(&p, p.mode));
	case FAKE_RESERVATION_ID:
		if (none)
			return sysfs_emit(buf, "\n");
		if (p.busy)
			return sysfs_emit(buf, NEURON_SYSFS_BUSY "\n");
		return sysfs_emit(buf, "%s\n", p.reservation_id);
	}
	return -EINVAL;
}

/*
 * Garbage, like core_count, is shown as is, with no newline added (which
 * checkpatch would want of every return of sysfs_emit()).
 */
static ssize_t fake_emit_garbage(char *buf)
{
	ssize_t len = sysfs_emit(buf, "%s", garbage_text);

	return len;
}

struct fake_class_attr {
	struct class_attribute attr;
	int which;
};

static ssize_t fake_class_show(FAKE_CLASS_CONST struct class *class,
			       FAKE_CLASS_CONST struct class_attribute *attr, char *buf)
{
	const struct fake_class_attr *ca = container_of(attr, struct fake_class_attr, attr);

	if (garbage_class & BIT(ca->which))
		return fake_emit_garbage(buf);
	return fake_class_emit(ca->which, buf);
}

#define FAKE_CLASS_ATTR(w, name) \
	[w] = { .attr = __ATTR(name, 0444, fake_class_show, NULL), .which = w }

static struct fake_class_attr fake_class_attrs[FAKE_CLASS_NR] = {
	FAKE_CLASS_ATTR(FAKE_NODE_ID_2, node_id_2),
	FAKE_CLASS_ATTR(FAKE_NODE_ID_4, node_id_4),
	FAKE_CLASS_ATTR(FAKE_SERVER_ID_2, server_id_2),
	FAKE_CLASS_ATTR(FAKE_SERVER_ID_4, server_id_4),
	FAKE_CLASS_ATTR(FAKE_ULTRASERVER_MODE, ultraserver_mode),
	FAKE_CLASS_ATTR(FAKE_NODE_ID, node_id),
	FAKE_CLASS_ATTR(FAKE_NODE_CNT, node_cnt),
	FAKE_CLASS_ATTR(FAKE_RESERVATION_ID, reservation_id),
};

/* neuronN/core_count: mode 0400 and no newline, as in neuron_cdev.c. */
static ssize_t core_count_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	const struct fake_dev *d = dev_get_drvdata(dev);
	ssize_t len;

	if (garbage_dev[FAKE_DEV_CORE_COUNT] & BIT_ULL(d->index))
		return fake_emit_garbage(buf);
	len = sysfs_emit(buf, "%u", core_count);
	return len;
}
static DEVICE_ATTR_ADMIN_RO(core_count);

static struct attribute *fake_dev_attrs[] = {
	&dev_attr_core_count.attr,
	NULL
};

static umode_t fake_dev_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	const struct fake_dev *d = dev_get_drvdata(kobj_to_dev(kobj));

	if (attr == &dev_attr_core_count.attr &&
	    (omit_dev[FAKE_DEV_CORE_COUNT] & BIT_ULL(d->index)))
		return 0;
	return attr->mode;
}

static const struct attribute_group fake_dev_group = {
	.attrs = fake_dev_attrs,
	.is_visible = fake_dev_visible,
};
__ATTRIBUTE_GROUPS(fake_dev);

static void fake_dev_remove(struct fake_dev *d)
{
	unsigned int i;

	lockdep_assert_held(&fake_dev_lock);
	mutex_lock(&fake_lock);
	d->present = false;
	mutex_unlock(&fake_lock);
	for (i = 0; i < ARRAY_SIZE(d->cores); i++) {
		kobject_put(d->cores[i]);
		d->cores[i] = NULL;
	}
	device_unregister(d->dev);
	d->dev = NULL;
}

static int fake_dev_add(struct fake_dev *d)
{
	dev_t devt = no_cdev ? 0 : fake_devt + d->index;
	char name[16];
	unsigned int i;

	lockdep_assert_held(&fake_dev_lock);
	/* Open before the "add" uevent tells udev that /dev/neuronN is there. */
	mutex_lock(&fake_lock);
	d->present = true;
	mutex_unlock(&fake_lock);
	d->dev = device_create_with_groups(fake_class, NULL, devt, d, fake_dev_groups,
					   NEURON_DEV_NAME_FMT, d->index);
	if (IS_ERR(d->dev)) {
		int ret = PTR_ERR(d->dev);

		mutex_lock(&fake_lock);
		d->present = false;
		mutex_unlock(&fake_lock);
		d->dev = NULL;
		return ret;
	}
	if (!(omit_dev[FAKE_DEV_CORE_DIRS] & BIT_ULL(d->index))) {
		for (i = 0; i < core_count; i++) {
			snprintf(name, sizeof(name), NEURON_SYSFS_CORE_DIR_FMT, i);
			d->cores[i] = kobject_create_and_add(name, &d->dev->kobj);
			if (!d->cores[i]) {
				fake_dev_remove(d);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

/* remove_device=N and add_device=N: a device leaves, or comes back. */
static int fake_dev_ctl(const char *val, bool add)
{
	struct fake_dev *d;
	unsigned int index;
	int ret;

	ret = kstrtouint(val, 0, &index);
	if (ret)
		return ret;
	if (index >= NEURON_MAX_DEVICES)
		return -EINVAL;
	mutex_lock(&fake_dev_lock);
	if (!fake_ready) {
		/* At load time, before the devices exist. */
		if (add)
			absent_at_load &= ~BIT_ULL(index);
		else
			absent_at_load |= BIT_ULL(index);
		goto out;
	}
	d = &devs[index];
	if (index >= n_devices)
		ret = -EINVAL;
	else if (add)
		ret = d->dev ? -EEXIST : fake_dev_add(d);
	else if (!d->dev)
		ret = -ENODEV;
	else
		fake_dev_remove(d);
out:
	mutex_unlock(&fake_dev_lock);
	return ret;
}

static int fake_set_remove(const char *val, const struct kernel_param *kp)
{
	return fake_dev_ctl(val, false);
}

static int fake_set_add(const char *val, const struct kernel_param *kp)
{
	return fake_dev_ctl(val, true);
}

static const struct kernel_param_ops remove_ops = { .set = fake_set_remove };
static const struct kernel_param_ops add_ops = { .set = fake_set_add };
module_param_cb(remove_device, &remove_ops, NULL, 0200);
MODULE_PARM_DESC(remove_device, "Write N: device N goes away (a udev \"remove\"); at load time, N starts absent");
module_param_cb(add_device, &add_ops, NULL, 0200);
MODULE_PARM_DESC(add_device, "Write N: device N comes back (a udev \"add\")");

/* The char device: the ioctls encd uses, as neuron_cdev.c answers them. */
static int fake_open(struct inode *inode, struct file *file)
{
	unsigned int index = iminor(inode);
	int ret = -ENODEV;

	if (index >= n_devices)
		return ret;
	mutex_lock(&fake_lock);
	if (devs[index].present) {
		file->private_data = &devs[index];
		ret = 0;
	}
	mutex_unlock(&fake_lock);
	return ret;
}

static void fake_pod_id(u64 server_id, __u8 *pod_id)
{
	unsigned int i;

	for (i = 0; i < sizeof(server_id); i++)
		pod_id[i] = server_id >> (8 * i);
}

static long fake_pod_info(unsigned int cmd, void __user *uarg)
{
	struct neuron_ioctl_pod_info arg;
	struct fake_pod p;

	if (cmd != NEURON_IOCTL_POD_INFO)
		return -EINVAL;
	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.sz != sizeof(arg))
		return -EINVAL;
	memset(&arg, 0, sizeof(arg));
	arg.sz = sizeof(arg);
	p = pod_snapshot();
	arg.pod_type = p.type;
	if (p.type != NEURON_POD_TYPE_NONE) {
		arg.pod_sz = pod_node_cnt(&p, p.mode);
		fake_pod_id(pod_server_id(&p, p.mode), arg.pod_id);
	}
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long fake_pod_status(unsigned int cmd, void __user *uarg)
{
	struct neuron_ioctl_pod_status_v2 arg;
	struct fake_pod p;
	size_t size;
	long ret = 0;

	if (cmd == NEURON_IOCTL_POD_STATUS)
		size = sizeof(arg.v1);
	else if (cmd == NEURON_IOCTL_POD_STATUS_V2)
		size = sizeof(arg);
	else
		return -EINVAL;
	if (copy_from_user(&arg, uarg, size))
		return -EFAULT;
	if (arg.v1.sz != size)
		return -EINVAL;
	memset(&arg, 0, sizeof(arg));
	arg.v1.sz = size;
	p = pod_snapshot();
	arg.v1.pod_type = p.type;
	if (p.type == NEURON_POD_TYPE_NONE) {
		arg.v1.state = NEURON_POD_E_STATE_SINGLE_NODE;
		arg.v1.node_id = -1;
	} else {
		if (p.busy) {
			arg.v1.state = NEURON_POD_E_STATE_IN_PROGRESS;
			ret = -EBUSY;
		} else if (!p.sz || p.mode == NEURON_ULTRASERVER_MODE_X1) {
			arg.v1.state = NEURON_POD_E_STATE_SINGLE_NODE;
		} else {
			arg.v1.state = NEURON_POD_E_STATE_ULTRASERVER;
		}
		arg.v1.node_id = pod_node_id(&p, p.mode);
		arg.v1.pod_sz = pod_node_cnt(&p, p.mode);
		fake_pod_id(pod_server_id(&p, p.mode), arg.v1.pod_id);
		arg.mode = p.mode;
		arg.modes_supported = pod_modes_supported(&p);
	}
	/* Filled in even while the election runs, then EBUSY, as the driver does. */
	if (copy_to_user(uarg, &arg, size))
		return -EFAULT;
	return ret;
}

static long fake_rid_map(unsigned int cmd, void __user *uarg)
{
	struct neuron_ioctl_host_device_id_to_rid_map arg;

	if (_IOC_SIZE(cmd) != sizeof(arg))
		return -EINVAL;
	memset(&arg, 0, sizeof(arg));
	arg.count = n_devices;
	memcpy(arg.host_did_to_rid_map, rid_map, n_devices * sizeof(rid_map[0]));
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long fake_ioctl(struct file *file, unsigned int cmd, unsigned long param)
{
	const struct fake_dev *d = file->private_data;
	void __user *uarg = (void __user *)param;
	/* neuron_cdev.c's test: an fd with O_WRONLY set asks for no device. */
	bool free_access = file->f_flags & O_WRONLY;
	bool present;

	mutex_lock(&fake_lock);
	present = d->present;
	mutex_unlock(&fake_lock);
	if (!present)
		return -ENODEV;

	if (!free_access && cmd == NEURON_IOCTL_HOST_DEVICE_ID) {
		struct neuron_ioctl_host_device_id arg = { .host_device_id = d->index };

		return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
	}
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(NEURON_IOCTL_POD_INFO):
		return fake_pod_info(cmd, uarg);
	case _IOC_NR(NEURON_IOCTL_POD_STATUS):
		return fake_pod_status(cmd, uarg);
	case _IOC_NR(NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP):
		return fake_rid_map(cmd, uarg);
	}
	return -EINVAL;
}

static const struct file_operations fake_fops = {
	.owner = THIS_MODULE,
	.open = fake_open,
	.unlocked_ioctl = fake_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/*
 * One item of omit= (@omitting) or garbage=: NAME or NAME@N. Only what can
 * be shown can be garbled: neither core_dirs nor "class".
 */
static int fake_parse_item(const char *param, char *item, bool omitting, u64 *dev, u32 *cls)
{
	unsigned int n_dev_items = omitting ? FAKE_DEV_NR : FAKE_DEV_CORE_COUNT + 1;
	char *at = strchr(item, '@');
	u64 which = ~0ULL;
	unsigned int index, i;

	if (!*item)
		return 0;
	if (at) {
		*at = '\0';
		if (kstrtouint(at + 1, 10, &index) || index >= NEURON_MAX_DEVICES)
			goto bad;
		which = BIT_ULL(index);
	}
	for (i = 0; i < n_dev_items; i++) {
		if (!strcmp(item, fake_dev_items[i])) {
			dev[i] |= which;
			return 0;
		}
	}
	if (at)
		goto bad;
	if (omitting && !strcmp(item, "class")) {
		*cls |= BIT(FAKE_CLASS_NR) - 1;
		return 0;
	}
	for (i = 0; i < FAKE_CLASS_NR; i++) {
		if (!strcmp(item, fake_class_attrs[i].attr.attr.name)) {
			*cls |= BIT(i);
			return 0;
		}
	}
bad:
	if (at)
		*at = '@';
	pr_err("%s: no such item: \"%s\"\n", param, item);
	return -EINVAL;
}

static int fake_parse(const char *param, const char *list, bool omitting, u64 *dev, u32 *cls)
{
	char *copy, *cur, *item;
	int ret = 0;

	if (!list)
		return 0;
	copy = kstrdup(list, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while (!ret && (item = strsep(&cur, ",")))
		ret = fake_parse_item(param, item, omitting, dev, cls);
	kfree(copy);
	return ret;
}

static int fake_check_params(void)
{
	unsigned int i;
	int ret;

	if (n_devices > NEURON_MAX_DEVICES || !core_count || core_count > NEURON_SYSFS_MAX_CORES) {
		pr_err("n_devices is 0 to %d, core_count 1 to %d\n", NEURON_MAX_DEVICES,
		       NEURON_SYSFS_MAX_CORES);
		return -EINVAL;
	}
	if (n_rid_map && n_rid_map != n_devices) {
		pr_err("rid_map has %u entries, not n_devices (%u)\n", n_rid_map, n_devices);
		return -EINVAL;
	}
	if (!n_rid_map)
		for (i = 0; i < n_devices; i++)
			rid_map[i] = n_devices - 1 - i;
	ret = fake_parse("omit", omit, true, omit_dev, &omit_class);
	if (!ret)
		ret = fake_parse("garbage", garbage, false, garbage_dev, &garbage_class);
	if (!newer_attrs)
		omit_class |= FAKE_NEWER_ATTRS;
	return ret;
}

static void fake_class_files_remove(void)
{
	unsigned int i;

	for (i = 0; i < FAKE_CLASS_NR; i++)
		if (class_made & BIT(i))
			class_remove_file(fake_class, &fake_class_attrs[i].attr);
	class_made = 0;
}

static void fake_devs_remove(void)
{
	unsigned int i;

	lockdep_assert_held(&fake_dev_lock);
	for (i = 0; i < n_devices; i++)
		if (devs[i].dev)
			fake_dev_remove(&devs[i]);
}

static int __init neuron_fake_init(void)
{
	unsigned int i;
	int ret;

	ret = fake_check_params();
	if (ret)
		return ret;
	for (i = 0; i < NEURON_MAX_DEVICES; i++)
		devs[i].index = i;

	if (!no_cdev) {
		ret = alloc_chrdev_region(&fake_devt, 0, NEURON_MAX_DEVICES, NEURON_CHRDEV_NAME);
		if (ret)
			return ret;
		cdev_init(&fake_cdev, &fake_fops);
		fake_cdev.owner = THIS_MODULE;
		ret = cdev_add(&fake_cdev, fake_devt, NEURON_MAX_DEVICES);
		if (ret)
			goto err_region;
	}

	fake_class = fake_class_create(NEURON_SYSFS_CLASS);
	if (IS_ERR(fake_class)) {
		ret = PTR_ERR(fake_class);
		goto err_cdev;
	}
	for (i = 0; i < FAKE_CLASS_NR; i++) {
		if (omit_class & BIT(i))
			continue;
		ret = class_create_file(fake_class, &fake_class_attrs[i].attr);
		if (ret)
			goto err_class_files;
		class_made |= BIT(i);
	}

	mutex_lock(&fake_dev_lock);
	for (i = 0; i < n_devices; i++) {
		if (absent_at_load & BIT_ULL(i))
			continue;
		ret = fake_dev_add(&devs[i]);
		if (ret) {
			fake_devs_remove();
			mutex_unlock(&fake_dev_lock);
			goto err_class_files;
		}
	}
	fake_ready = true;
	mutex_unlock(&fake_dev_lock);
	pr_info("%u devices of %u cores, pod type %d\n", n_devices, core_count, pod.type);
	return 0;

err_class_files:
	fake_class_files_remove();
	class_destroy(fake_class);
err_cdev:
	if (!no_cdev)
		cdev_del(&fake_cdev);
err_region:
	if (!no_cdev)
		unregister_chrdev_region(fake_devt, NEURON_MAX_DEVICES);
	return ret;
}

static void __exit neuron_fake_exit(void)
{
	mutex_lock(&fake_dev_lock);
	fake_ready = false;
	fake_devs_remove();
	mutex_unlock(&fake_dev_lock);
	fake_class_files_remove();
	class_destroy(fake_class);
	if (!no_cdev) {
		cdev_del(&fake_cdev);
		unregister_chrdev_region(fake_devt, NEURON_MAX_DEVICES);
	}
}

module_init(neuron_fake_init);
module_exit(neuron_fake_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("A fake AWS Neuron driver for encd's tests: its sysfs and ioctls, no hardware");
