// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the Neuron driver: see neuron.h, and Documentation/assumptions.rst
 * for what encd makes of each fact and of its absence.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "encctl.h"
#include "neuron.h"

/* Where a fact came from, in @dst; a long path is cut, not refused. */
__attribute__((format(printf, 3, 4)))
static void from_set(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

#define FROM(field, ...) from_set(field, sizeof(field), __VA_ARGS__)

/*
 * The contents of @dir/@name, without the trailing white space, in @buf:
 * 0, -ENOENT when there is no such file, or another -errno.
 */
static int read_attr(const char *dir, const char *name, char *buf, size_t size)
{
	char path[4096 + 64];
	ssize_t len;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (len < 0)
		return -err;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	return 0;
}

/* @s as a whole decimal number from @min to @max; false for anything else. */
static bool parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* N of "neuronN", exactly; -1 for any other name. */
static int device_index(const char *name)
{
	size_t plen = strlen(NEURON_DEV_PREFIX);
	long v;

	/* Digits only, no sign, no leading zero: neuron01 is not neuron1. */
	if (strncmp(name, NEURON_DEV_PREFIX, plen) || name[plen] < '0' || name[plen] > '9' ||
	    (name[plen] == '0' && name[plen + 1]))
		return -1;
	return parse_int(name + plen, 0, NEURON_MAX_DEVICES - 1, &v) ? (int)v : -1;
}

/* How many neuron_coreM directories @dir has. */
static unsigned int count_core_dirs(const char *dir)
{
	char path[4096 + 32];
	unsigned int m;

	for (m = 0; m < 256; m++) {
		snprintf(path, sizeof(path), "%s/" NEURON_SYSFS_CORE_DIR_FMT, dir, m);
		if (access(path, F_OK))
			break;
	}
	return m;
}

static int cmp_index(const void *a, const void *b)
{
	const struct encctl_neuron_device *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* The devices and their cores, from sysfs. */
static int read_devices(const char *sysfs, struct encctl_neuron *nr)
{
	bool counted = false, read = false;
	struct dirent *de;
	char dir[4096], buf[64];
	unsigned int i;
	long cores;
	DIR *d;
	int err;

	d = opendir(sysfs);
	if (!d) {
		if (errno == ENOENT)
			return encctl_err(-1, "topo sync: no Neuron driver: %s does not exist; "
					  "the module parameters stay in force", sysfs);
		return encctl_err(-1, "topo sync: reading %s: %s", sysfs, strerror(errno));
	}
	while ((de = readdir(d))) {
		int index = device_index(de->d_name);

		if (index < 0)
			continue;
		nr->dev[nr->n++].index = index;
	}
	closedir(d);
	if (!nr->n)
		return encctl_err(-1, "topo sync: the Neuron driver shows no device in %s", sysfs);
	qsort(nr->dev, nr->n, sizeof(nr->dev[0]), cmp_index);

	for (i = 0; i < nr->n; i++) {
		struct encctl_neuron_device *dv = &nr->dev[i];

		snprintf(dir, sizeof(dir), "%s/" NEURON_DEV_NAME_FMT, sysfs, dv->index);
		err = read_attr(dir, NEURON_SYSFS_CORE_COUNT, buf, sizeof(buf));
		if (!err) {
			if (!parse_int(buf, 1, 256, &cores))
				return encctl_err(-1, "topo sync: %s/%s reads '%s', not a core count",
						  dir, NEURON_SYSFS_CORE_COUNT, buf);
			dv->core_count = cores;
			read = true;
			continue;
		}
		/* Missing, or root's only: the per-core directories say it too. */
		dv->core_count = count_core_dirs(dir);
		if (!dv->core_count)
			return encctl_err(-1, "topo sync: %s has no readable %s (%s) and no "
					  "neuron_core0 directory: how many cores it has is unknown",
					  dir, NEURON_SYSFS_CORE_COUNT, strerror(-err));
		counted = true;
	}
	FROM(nr->cores_from, "%s",
		 read && counted ? "sysfs core_count, and neuron_coreM directories where it is missing" :
		 read ? "sysfs core_count" : "sysfs neuron_coreM directories (no readable core_count)");
	return 0;
}

/* A class attribute as a node id: 0 (in @out, -1 off a pod), 1: busy, -1: said why. */
static int class_node_id(const char *sysfs, const char *name, long *out, bool *present)
{
	char buf[64];
	int err;

	err = read_attr(sysfs, name, buf, sizeof(buf));
	*present = !err;
	if (err == -ENOENT) {
		*out = -1;
		return 0;
	}
	if (err)
		return encctl_err(-1, "topo sync: reading %s/%s: %s", sysfs, name, strerror(-err));
	if (!strcmp(buf, NEURON_SYSFS_BUSY))
		return 1;
	if (!buf[0]) {
		*out = -1;
		return 0;
	}
	if (!parse_int(buf, -1, 127, out))
		return encctl_err(-1, "topo sync: %s/%s reads '%s', not a node id (-1 to 127)",
				  sysfs, name, buf);
	return 0;
}

/*
 * The pod from the class attributes, when the ioctls cannot say it: a
 * switch pod where node_cnt counts its nodes (it reads -1 elsewhere), an
 * UltraServer (P2P) of 4 or 2 nodes where node_id_4 or node_id_2 is not -1.
 */
static int pod_from_class(const char *sysfs, struct encctl_neuron *nr, const char *why)
{
	static const char *const ids[] = {
		NEURON_SYSFS_NODE_ID, NEURON_SYSFS_NODE_ID_4, NEURON_SYSFS_NODE_ID_2,
	};
	static const uint32_t p2p_sz[] = { 0, 4, 2 };
	long id[3], cnt = -1;
	bool present, any = false, has_cnt;
	unsigned int i;
	int ret;

	nr->pod_type = NEURON_POD_TYPE_NONE;
	nr->pod_sz = 0;
	nr->node_id = -1;
	for (i = 0; i < 3; i++) {
		ret = class_node_id(sysfs, ids[i], &id[i], &present);
		if (ret < 0)
			return -1;
		any |= present;
		if (ret > 0) {
			nr->election = true;
			FROM(nr->pod_from, "sysfs %s reads busy: the pod election is running (%s)",
			     ids[i], why);
			return 0;
		}
	}
	ret = class_node_id(sysfs, NEURON_SYSFS_NODE_CNT, &cnt, &has_cnt);
	if (ret)
		return ret < 0 ? -1 : encctl_err(-1, "topo sync: %s/%s reads busy but no node id "
						 "does", sysfs, NEURON_SYSFS_NODE_CNT);
	if (id[0] >= 0 && cnt >= 1) {
		nr->pod_type = NEURON_POD_TYPE_SWITCH;
		nr->pod_sz = cnt;
		nr->node_id = id[0];
		FROM(nr->pod_from, "sysfs %s and %s: a switch pod (%s)", NEURON_SYSFS_NODE_ID,
		     NEURON_SYSFS_NODE_CNT, why);
		return 0;
	}
	for (i = 1; i < 3; i++) {
		if (id[i] < 0)
			continue;
		nr->pod_type = NEURON_POD_TYPE_P2P;
		nr->pod_sz = p2p_sz[i];
		nr->node_id = id[i];
		FROM(nr->pod_from, "sysfs %s: an UltraServer, P2P (%s)", ids[i], why);
		return 0;
	}
	FROM(nr->pod_from, "%s (%s)",
	     any ? "sysfs node ids of -1: off a pod" : "no pod attributes in sysfs: no pod", why);
	return 0;
}

/* The pod from NEURON_IOCTL_POD_STATUS[_V2]; 1 when the driver has neither. */
static int pod_from_ioctl(int fd, const char *node, struct encctl_neuron *nr)
{
	struct neuron_ioctl_pod_status_v2 v2 = { .v1.sz = sizeof(v2) };
	struct neuron_ioctl_pod_status v1 = { .sz = sizeof(v1) };
	struct neuron_ioctl_pod_status *st = &v2.v1;
	const char *which = "NEURON_IOCTL_POD_STATUS_V2";
	int ret;

	ret = ioctl(fd, NEURON_IOCTL_POD_STATUS_V2, &v2);
	if (ret && (errno == ENOTTY || errno == EINVAL)) {
		ret = ioctl(fd, NEURON_IOCTL_POD_STATUS, &v1);
		st = &v1;
		which = "NEURON_IOCTL_POD_STATUS";
	}
	if (ret && (errno == ENOTTY || errno == EINVAL))
		return 1;
	if ((ret && errno == EBUSY) || st->state == NEURON_POD_E_STATE_IN_PROGRESS) {
		nr->election = true;
		FROM(nr->pod_from,
			 "%s on %s: the pod election is running", which, node);
		return 0;
	}
	if (ret)
		return encctl_err(-1, "topo sync: %s on %s: %s", which, node, strerror(errno));
	if (st->pod_type > NEURON_POD_TYPE_SWITCH)
		return encctl_err(-1, "topo sync: %s on %s says pod type %u, which is none of "
				  "none, p2p and switch", which, node, st->pod_type);
	nr->pod_type = st->pod_type;
	nr->pod_sz = st->pod_sz;
	nr->node_id = st->node_id < 0 ? -1 : st->node_id;
	FROM(nr->pod_from, "%s on %s", which, node);
	return 0;
}

/* Routing ids from NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, or the index. */
static void rids(int fd, const char *node, struct encctl_neuron *nr)
{
	struct neuron_ioctl_host_device_id_to_rid_map map = {};
	uint32_t top = nr->dev[nr->n - 1].index;
	unsigned int i;

	if (fd >= 0 && !ioctl(fd, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &map) &&
	    map.count > top && map.count <= NEURON_IOCTL_MAX_DEVICES) {
		for (i = 0; i < nr->n; i++)
			nr->dev[i].routing_id = map.host_did_to_rid_map[nr->dev[i].index];
		FROM(nr->rid_from,
			 "NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP on %s", node);
		return;
	}
	for (i = 0; i < nr->n; i++)
		nr->dev[i].routing_id = nr->dev[i].index;
	FROM(nr->rid_from, "%s%s: taken equal to the device index",
		 fd < 0 ? "no device node to ask" : "no usable routing id map from ", fd < 0 ? "" : node);
}

static int read_reservation(const char *sysfs, struct encctl_neuron *nr)
{
	char buf[96], *end;
	int err;

	err = read_attr(sysfs, NEURON_SYSFS_RESERVATION_ID, buf, sizeof(buf));
	if (err == -ENOENT) {
		FROM(nr->reservation_from,
			 "no sysfs reservation_id: 0");
		return 0;
	}
	if (err)
		return encctl_err(-1, "topo sync: reading %s/%s: %s", sysfs,
				  NEURON_SYSFS_RESERVATION_ID, strerror(-err));
	/* Off a pod it is empty, during the election "busy": none yet. */
	if (!buf[0] || !strcmp(buf, NEURON_SYSFS_BUSY)) {
		FROM(nr->reservation_from, "sysfs reservation_id reads '%s': 0", buf);
		return 0;
	}
	/* Its format is not pinned down: what is no number is said, and 0. */
	errno = 0;
	nr->reservation_id = strtoull(buf, &end, 0);
	if (*end || errno || buf[0] == '-') {
		nr->reservation_id = 0;
		FROM(nr->reservation_from, "sysfs reservation_id reads '%s', not a number: 0", buf);
		return 0;
	}
	nr->has_reservation = true;
	FROM(nr->reservation_from, "sysfs reservation_id");
	return 0;
}

int encctl_neuron_read(const char *sysfs, const char *devdir, struct encctl_neuron *nr)
{
	char node[4096];
	int fd, ret;

	memset(nr, 0, sizeof(*nr));
	nr->node_id = -1;
	if (read_devices(sysfs, nr) || read_reservation(sysfs, nr))
		return -1;

	/* The pod ioctls are the driver's "misc" ones: O_WRONLY claims nothing. */
	snprintf(node, sizeof(node), "%s/" NEURON_DEV_NAME_FMT, devdir, nr->dev[0].index);
	fd = open(node, O_WRONLY | O_CLOEXEC);
	rids(fd, node, nr);
	if (fd < 0) {
		char why[4200];

		snprintf(why, sizeof(why), "%s: %s", node, strerror(errno));
		return pod_from_class(sysfs, nr, why);
	}
	ret = pod_from_ioctl(fd, node, nr);
	close(fd);
	if (ret > 0) {
		char why[4200];

		snprintf(why, sizeof(why), "%s has no pod status ioctl", node);
		return pod_from_class(sysfs, nr, why);
	}
	return ret;
}
