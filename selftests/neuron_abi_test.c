// SPDX-License-Identifier: GPL-2.0
/*
 * The fake Neuron driver (selftests/neuron_fake/, $NEURON_FAKE_KO) presents
 * the real driver's user ABI as tools/neuron/neuron_abi.h writes it down:
 * the neuron_device class with no parent device, N devices whose
 * core_count is root's and has no newline, their neuron_coreM directories,
 * the class's pod election attributes off a pod, on a P2P or a switch pod
 * and during an election, the pod ioctls on an O_WRONLY fd under the
 * driver's numbers, the host device id and routing id map, a device going
 * and coming back with its uevents, and each fault it can be told to show.
 * encd's reading of Neuron topology is tested against this fake, so the
 * fake is tested against the facts first.
 *
 * Every test loads the fake with its own parameters and unloads it.
 */
#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>

#include "encd_test.h"
#include "../tools/neuron/neuron_abi.h"

#define FAKE_NAME	"neuron_fake"
#define FAKE_PARAMS	"/sys/module/" FAKE_NAME "/parameters/"
#define CLASS		NEURON_SYSFS_CLASS_DIR "/"
#define MAX_FDS		8

FIXTURE(fake) {
	const char *ko;
};

/* The fds a test opened, for its teardown to close: each test is a process. */
static int fds[MAX_FDS], n_fds;

static void keep_fd(int fd)
{
	if (fd >= 0 && n_fds < MAX_FDS)
		fds[n_fds++] = fd;
}

static int fake_unload(void)
{
	if (!syscall(SYS_delete_module, FAKE_NAME, O_NONBLOCK) || errno == ENOENT)
		return 0;
	return errno;
}

/* Loads the fake with @params; returns 0 or the errno. */
static int fake_load(const char *ko, const char *params)
{
	int fd, err = 0;

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params, 0))
		err = errno;
	close(fd);
	return err;
}

FIXTURE_SETUP(fake)
{
	const char *ko = getenv("NEURON_FAKE_KO");

	self->ko = ko && !access(ko, R_OK) ? ko : NULL;
	/* The tests skip, saying why (LOAD). */
	if (!self->ko)
		return;
	/* A test that failed may have left it loaded. */
	ASSERT_EQ(0, fake_unload());
}

FIXTURE_TEARDOWN(fake)
{
	int i;

	for (i = 0; i < n_fds; i++)
		close(fds[i]);
	if (self->ko)
		EXPECT_EQ(0, fake_unload());
}

/* In a test: load the fake, or skip saying why it cannot be. */
#define LOAD(params) do {							\
	if (!self->ko)								\
		SKIP(return, "no fake Neuron driver: NEURON_FAKE_KO (%s) is not a readable file", \
		     getenv("NEURON_FAKE_KO") ?: "unset");			\
	ASSERT_EQ(0, fake_load(self->ko, params))				\
		TH_LOG("insmod %s %s: %s", self->ko, params, strerror(errno));	\
} while (0)

/* Opens /dev/neuron@index; the fixture closes it. */
static int dev_open(int index, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/" NEURON_DEV_NAME_FMT, index);
	fd = open(path, flags | O_CLOEXEC);
	keep_fd(fd);
	return fd;
}

/* The whole of @path into @buf, NUL-terminated; its length or -errno. */
static int read_all(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return n;
}

static int write_str(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? errno : 0;
}

static int set_param(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), FAKE_PARAMS "%s", name);
	return write_str(path, val);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* What a class attribute or a device's file reads, "" if it cannot be read. */
static const char *class_attr(const char *name)
{
	static char buf[256];
	char path[256];

	snprintf(path, sizeof(path), CLASS "%s", name);
	if (read_all(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return buf;
}

static const char *dev_file(int index, const char *name)
{
	static char buf[256];
	char path[256];

	snprintf(path, sizeof(path), CLASS NEURON_DEV_NAME_FMT "/%s", index, name);
	if (read_all(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return buf;
}

static bool dev_has(int index, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), CLASS NEURON_DEV_NAME_FMT "/%s", index, name);
	return exists(path);
}

static bool dev_exists(int index)
{
	char path[256];

	snprintf(path, sizeof(path), CLASS NEURON_DEV_NAME_FMT, index);
	return exists(path);
}

static int count_devices(void)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(NEURON_SYSFS_CLASS_DIR);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, NEURON_DEV_PREFIX, strlen(NEURON_DEV_PREFIX));
	closedir(d);
	return n;
}

static int pod_status(int fd, unsigned long cmd, struct neuron_ioctl_pod_status_v2 *st)
{
	memset(st, 0xa5, sizeof(*st));
	st->v1.sz = cmd == NEURON_IOCTL_POD_STATUS_V2 ? sizeof(*st) : sizeof(st->v1);
	return ioctl(fd, cmd, st) ? errno : 0;
}

static int pod_info(int fd, struct neuron_ioctl_pod_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	info->sz = sizeof(*info);
	return ioctl(fd, NEURON_IOCTL_POD_INFO, info) ? errno : 0;
}

/* A socket on the kernel's uevents; 0 < fd or -1. */
static int uevent_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Waits up to 5 s for the uevent whose first line is @want ("ACTION@DEVPATH"). */
static bool uevent_seen(int fd, const char *want)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	while (poll(&pfd, 1, 5000) == 1) {
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		if (!strcmp(buf, want))
			return true;
	}
	return false;
}

TEST(ioctl_numbers_are_the_drivers)
{
	/* _IOWR('N', nr, size): dir 3 << 30 | size << 16 | 'N' << 8 | nr */
	ASSERT_EQ(0xc1044e79, NEURON_IOCTL_POD_INFO);
	ASSERT_EQ(0xc10c4e7a, NEURON_IOCTL_POD_STATUS);
	ASSERT_EQ(0xc1144e7a, NEURON_IOCTL_POD_STATUS_V2);
	ASSERT_EQ(0x80044e72, NEURON_IOCTL_HOST_DEVICE_ID);
	ASSERT_EQ(0xc1044e73, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP);
}

TEST_F(fake, sixteen_devices_of_two_cores_by_default_with_no_parent)
{
	char link[256];
	ssize_t n;

	LOAD("");
	ASSERT_EQ(16, count_devices());
	ASSERT_TRUE(dev_exists(15));
	ASSERT_FALSE(dev_exists(16));
	ASSERT_STREQ("2", dev_file(0, NEURON_SYSFS_CORE_COUNT));
	n = readlink(CLASS "neuron7", link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = '\0';
	ASSERT_NE(NULL, strstr(link, "devices/virtual/" NEURON_SYSFS_CLASS "/neuron7"))
		TH_LOG("neuron7 -> %s", link);
	ASSERT_TRUE(exists(NEURON_SYSFS_VIRTUAL_DIR "/neuron7/" NEURON_SYSFS_CORE_COUNT));
	ASSERT_TRUE(exists("/dev/neuron15"));
}

TEST_F(fake, core_count_is_root_only_has_no_newline_and_a_dir_per_core)
{
	struct stat st;
	char name[32];
	int i;

	LOAD("n_devices=2 core_count=8");
	ASSERT_EQ(2, count_devices());
	ASSERT_EQ(0, stat(CLASS "neuron1/" NEURON_SYSFS_CORE_COUNT, &st));
	ASSERT_EQ(NEURON_SYSFS_CORE_COUNT_MODE, st.st_mode & 07777);
	ASSERT_STREQ("8", dev_file(1, NEURON_SYSFS_CORE_COUNT));
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), NEURON_SYSFS_CORE_DIR_FMT, i);
		ASSERT_TRUE(dev_has(1, name)) TH_LOG("no neuron1/%s", name);
	}
	ASSERT_FALSE(dev_has(1, "neuron_core8"));
	ASSERT_EQ(0, stat(CLASS "neuron0/neuron_core7", &st));
	ASSERT_TRUE(S_ISDIR(st.st_mode));
}

TEST_F(fake, class_attributes_off_a_pod)
{
	static const char *const names[] = {
		NEURON_SYSFS_NODE_ID_2, NEURON_SYSFS_NODE_ID_4, NEURON_SYSFS_SERVER_ID_2,
		NEURON_SYSFS_SERVER_ID_4, NEURON_SYSFS_ULTRASERVER_MODE, NEURON_SYSFS_NODE_ID,
		NEURON_SYSFS_NODE_CNT, NEURON_SYSFS_RESERVATION_ID,
	};
	struct stat st;
	char path[256];
	size_t i;

	LOAD("n_devices=1");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), CLASS "%s", names[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("no %s", path);
		ASSERT_EQ(0444, st.st_mode & 07777);
	}
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_ID_2));
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_ID_4));
	ASSERT_STREQ(NEURON_SYSFS_SERVER_ID_NONE "\n", class_attr(NEURON_SYSFS_SERVER_ID_2));
	ASSERT_STREQ(NEURON_SYSFS_SERVER_ID_NONE "\n", class_attr(NEURON_SYSFS_SERVER_ID_4));
	ASSERT_STREQ("\n", class_attr(NEURON_SYSFS_ULTRASERVER_MODE));
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_ID));
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_CNT));
	ASSERT_STREQ("\n", class_attr(NEURON_SYSFS_RESERVATION_ID));
}

TEST_F(fake, class_attributes_of_node_2_of_a_4_node_p2p_pod)
{
	LOAD("n_devices=1 pod_type=1 pod_sz=4 node_id=2 server_id=0x1234");
	ASSERT_STREQ("2\n", class_attr(NEURON_SYSFS_NODE_ID_4));
	/* As two pairs over the vertical links, node 2 is the first of the second. */
	ASSERT_STREQ("0\n", class_attr(NEURON_SYSFS_NODE_ID_2));
	ASSERT_STREQ("0000000000001234\n", class_attr(NEURON_SYSFS_SERVER_ID_4));
	ASSERT_STREQ("0000000000001233\n", class_attr(NEURON_SYSFS_SERVER_ID_2));
	ASSERT_STREQ("1,3,4\n", class_attr(NEURON_SYSFS_ULTRASERVER_MODE));
	ASSERT_STREQ("2\n", class_attr(NEURON_SYSFS_NODE_ID));
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_CNT));
}

TEST_F(fake, class_attributes_of_a_2_node_p2p_pod)
{
	LOAD("n_devices=1 pod_type=1 pod_sz=2 node_id=1 server_id=0xabcdef");
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_ID_4));
	ASSERT_STREQ("1\n", class_attr(NEURON_SYSFS_NODE_ID_2));
	ASSERT_STREQ(NEURON_SYSFS_SERVER_ID_NONE "\n", class_attr(NEURON_SYSFS_SERVER_ID_4));
	ASSERT_STREQ("0000000000abcdef\n", class_attr(NEURON_SYSFS_SERVER_ID_2));
	ASSERT_STREQ("2,3,4\n", class_attr(NEURON_SYSFS_ULTRASERVER_MODE));
}

TEST_F(fake, class_attributes_of_a_switch_pod)
{
	LOAD("n_devices=1 pod_type=2 pod_sz=4 node_id=3 server_id=0x77 reservation_id=res-7");
	ASSERT_STREQ("3\n", class_attr(NEURON_SYSFS_NODE_ID_4));
	ASSERT_STREQ("3\n", class_attr(NEURON_SYSFS_NODE_ID));
	ASSERT_STREQ("4\n", class_attr(NEURON_SYSFS_NODE_CNT));
	ASSERT_STREQ("res-7\n", class_attr(NEURON_SYSFS_RESERVATION_ID));
	ASSERT_STREQ("0000000000000077\n", class_attr(NEURON_SYSFS_SERVER_ID_4));
}

TEST_F(fake, an_election_shows_busy_until_it_ends)
{
	struct neuron_ioctl_pod_status_v2 st;
	int fd;

	LOAD("n_devices=2 pod_type=1 pod_sz=4 node_id=2 server_id=0x1234 busy=1");
	ASSERT_STREQ(NEURON_SYSFS_BUSY "\n", class_attr(NEURON_SYSFS_NODE_ID_4));
	ASSERT_STREQ(NEURON_SYSFS_BUSY "\n", class_attr(NEURON_SYSFS_NODE_ID_2));
	ASSERT_STREQ(NEURON_SYSFS_BUSY "\n", class_attr(NEURON_SYSFS_ULTRASERVER_MODE));
	ASSERT_STREQ(NEURON_SYSFS_SERVER_ID_NONE "\n", class_attr(NEURON_SYSFS_SERVER_ID_4));

	fd = dev_open(1, O_WRONLY);
	ASSERT_LE(0, fd);
	/* Filled in, and EBUSY. */
	ASSERT_EQ(EBUSY, pod_status(fd, NEURON_IOCTL_POD_STATUS, &st));
	ASSERT_EQ(NEURON_POD_E_STATE_IN_PROGRESS, st.v1.state);
	ASSERT_EQ(NEURON_POD_TYPE_P2P, st.v1.pod_type);
	ASSERT_EQ(-1, st.v1.node_id);
	ASSERT_EQ(0, st.v1.pod_sz);

	ASSERT_EQ(0, set_param("busy", "0"));
	ASSERT_STREQ("2\n", class_attr(NEURON_SYSFS_NODE_ID_4));
	ASSERT_EQ(0, pod_status(fd, NEURON_IOCTL_POD_STATUS, &st));
	ASSERT_EQ(NEURON_POD_E_STATE_ULTRASERVER, st.v1.state);
	ASSERT_EQ(2, st.v1.node_id);
	ASSERT_EQ(4, st.v1.pod_sz);

	ASSERT_EQ(0, set_param("busy", "1"));
	ASSERT_STREQ(NEURON_SYSFS_BUSY "\n", class_attr(NEURON_SYSFS_NODE_ID_4));
}

TEST_F(fake, pod_ioctls_off_a_pod_on_a_write_only_fd)
{
	struct neuron_ioctl_pod_status_v2 st;
	struct neuron_ioctl_pod_info info;
	int fd, i;

	LOAD("n_devices=1");
	fd = dev_open(0, O_WRONLY);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, pod_info(fd, &info));
	ASSERT_EQ(sizeof(info), info.sz);
	ASSERT_EQ(NEURON_POD_TYPE_NONE, info.pod_type);
	ASSERT_EQ(0, info.pod_sz);
	for (i = 0; i < 256; i++)
		ASSERT_EQ(0, info.pod_id[i]);

	ASSERT_EQ(0, pod_status(fd, NEURON_IOCTL_POD_STATUS, &st));
	ASSERT_EQ(sizeof(st.v1), st.v1.sz);
	ASSERT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, st.v1.state);
	ASSERT_EQ(NEURON_POD_TYPE_NONE, st.v1.pod_type);
	ASSERT_EQ(-1, st.v1.node_id);
	/* v1 leaves what follows it alone. */
	ASSERT_EQ(0xa5a5a5a5, st.mode);

	ASSERT_EQ(0, pod_status(fd, NEURON_IOCTL_POD_STATUS_V2, &st));
	ASSERT_EQ(sizeof(st), st.v1.sz);
	ASSERT_EQ(0, st.mode);
	ASSERT_EQ(0, st.modes_supported);

	/* sz must be the struct's own size. */
	info.sz = sizeof(info) - 1;
	ASSERT_EQ(-1, ioctl(fd, NEURON_IOCTL_POD_INFO, &info));
	ASSERT_EQ(EINVAL, errno);
	st.v1.sz = sizeof(st.v1);
	ASSERT_EQ(-1, ioctl(fd, NEURON_IOCTL_POD_STATUS_V2, &st));
	ASSERT_EQ(EINVAL, errno);
	/* The same number with another size is not one of them. */
	ASSERT_EQ(-1, ioctl(fd, _IOWR(NEURON_IOCTL_BASE, 121, __u32), &info));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(fake, pod_ioctls_of_node_1_of_a_4_node_pod)
{
	struct neuron_ioctl_pod_status_v2 st;
	struct neuron_ioctl_pod_info info;
	static const __u8 id[8] = { 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
	int fd, i;

	LOAD("n_devices=1 pod_type=1 pod_sz=4 node_id=1 server_id=0x0102030405060708");
	fd = dev_open(0, O_WRONLY);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, pod_info(fd, &info));
	ASSERT_EQ(NEURON_POD_TYPE_P2P, info.pod_type);
	ASSERT_EQ(4, info.pod_sz);
	ASSERT_EQ(0, memcmp(id, info.pod_id, sizeof(id)));
	for (i = sizeof(id); i < 256; i++)
		ASSERT_EQ(0, info.pod_id[i]);

	ASSERT_EQ(0, pod_status(fd, NEURON_IOCTL_POD_STATUS_V2, &st));
	ASSERT_EQ(NEURON_POD_E_STATE_ULTRASERVER, st.v1.state);
	ASSERT_EQ(NEURON_POD_TYPE_P2P, st.v1.pod_type);
	ASSERT_EQ(4, st.v1.pod_sz);
	ASSERT_EQ(1, st.v1.node_id);
	ASSERT_EQ(0, memcmp(id, st.v1.pod_id, sizeof(id)));
	ASSERT_EQ(NEURON_ULTRASERVER_MODE_UNSET, st.mode);
	ASSERT_EQ(1 << NEURON_ULTRASERVER_MODE_X4 | 1 << NEURON_ULTRASERVER_MODE_X2V |
		  1 << NEURON_ULTRASERVER_MODE_X1, st.modes_supported);
}

TEST_F(fake, the_operating_mode_changes_what_the_pod_is)
{
	struct neuron_ioctl_pod_status_v2 st;
	char buf[16];
	int fd;

	LOAD("n_devices=1 pod_type=1 pod_sz=4 node_id=3 server_id=0x100");
	fd = dev_open(0, O_WRONLY);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, set_param("mode", "3"));	/* x2v: two pairs */
	ASSERT_EQ(0, pod_status(fd, NEURON_IOCTL_POD_STATUS_V2, &st));
	ASSERT_EQ(NEURON_POD_E_STATE_ULTRASERVER, st.v1.state);
	ASSERT_EQ(NEURON_ULTRASERVER_MODE_X2V, st.mode);
	ASSERT_EQ(2, st.v1.pod_sz);
	ASSERT_EQ(1, st.v1.node_id);
	ASSERT_EQ(0xff, st.v1.pod_id[0]);

	ASSERT_EQ(0, set_param("mode", "4"));	/* x1: standalone */
	ASSERT_EQ(0, pod_status(fd, NEURON_IOCTL_POD_STATUS_V2, &st));
	ASSERT_EQ(NEURON_POD_E_STATE_SINGLE_NODE, st.v1.state);
	ASSERT_EQ(0, st.v1.pod_sz);
	ASSERT_EQ(-1, st.v1.node_id);

	/* Out of range: refused, and nothing changes. */
	ASSERT_EQ(EINVAL, set_param("mode", "5"));
	ASSERT_EQ(EINVAL, set_param("pod_type", "3"));
	ASSERT_LT(0, read_all(FAKE_PARAMS "mode", buf, sizeof(buf)));
	ASSERT_STREQ("4\n", buf);

	ASSERT_EQ(0, set_param("pod_type", "0"));
	ASSERT_EQ(0, pod_status(fd, NEURON_IOCTL_POD_STATUS_V2, &st));
	ASSERT_EQ(NEURON_POD_TYPE_NONE, st.v1.pod_type);
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_ID_4));
}

TEST_F(fake, host_device_id_needs_a_read_write_fd)
{
	struct neuron_ioctl_host_device_id id = { .host_device_id = 99 };
	int rw, wo;

	LOAD("n_devices=8");
	rw = dev_open(5, O_RDWR);
	ASSERT_LE(0, rw);
	ASSERT_EQ(0, ioctl(rw, NEURON_IOCTL_HOST_DEVICE_ID, &id));
	ASSERT_EQ(5, id.host_device_id);

	wo = dev_open(5, O_WRONLY);
	ASSERT_LE(0, wo);
	ASSERT_EQ(-1, ioctl(wo, NEURON_IOCTL_HOST_DEVICE_ID, &id));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(fake, routing_ids_reverse_the_device_order_by_default)
{
	struct neuron_ioctl_host_device_id_to_rid_map map;
	int fd, i;

	LOAD("n_devices=4");
	fd = dev_open(0, O_WRONLY);
	ASSERT_LE(0, fd);
	memset(&map, 0xa5, sizeof(map));
	ASSERT_EQ(0, ioctl(fd, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &map));
	ASSERT_EQ(4, map.count);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(3 - i, map.host_did_to_rid_map[i]);
	for (; i < NEURON_IOCTL_MAX_DEVICES; i++)
		ASSERT_EQ(0, map.host_did_to_rid_map[i]);
	/* The driver checks the size the number carries. */
	ASSERT_EQ(-1, ioctl(fd, _IOWR(NEURON_IOCTL_BASE, 115, __u32), &map));
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(fake, routing_ids_as_given)
{
	struct neuron_ioctl_host_device_id_to_rid_map map;
	int fd;

	if (!self->ko)
		SKIP(return, "no fake Neuron driver: NEURON_FAKE_KO (%s) is not a readable file",
		     getenv("NEURON_FAKE_KO") ?: "unset");
	/* One per device, or none. */
	ASSERT_EQ(EINVAL, fake_load(self->ko, "n_devices=4 rid_map=1,2,3"));
	LOAD("n_devices=4 rid_map=7,5,3,1");
	fd = dev_open(2, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &map));
	ASSERT_EQ(4, map.count);
	ASSERT_EQ(7, map.host_did_to_rid_map[0]);
	ASSERT_EQ(1, map.host_did_to_rid_map[3]);
}

TEST_F(fake, a_device_goes_and_comes_back_with_its_uevents)
{
	struct neuron_ioctl_host_device_id_to_rid_map map;
	int ev, fd;

	LOAD("n_devices=4 core_count=4");
	fd = dev_open(2, O_WRONLY);
	ASSERT_LE(0, fd);
	ev = uevent_socket();
	ASSERT_LE(0, ev);
	keep_fd(ev);

	ASSERT_EQ(0, set_param("remove_device", "2"));
	ASSERT_TRUE(uevent_seen(ev, "remove@/devices/virtual/" NEURON_SYSFS_CLASS "/neuron2"));
	ASSERT_FALSE(dev_exists(2));
	ASSERT_FALSE(exists("/dev/neuron2"));
	ASSERT_TRUE(dev_exists(3));
	ASSERT_EQ(3, count_devices());
	/* An fd opened before is one of a device that is gone. */
	ASSERT_EQ(-1, ioctl(fd, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &map));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ(ENODEV, set_param("remove_device", "2"));

	ASSERT_EQ(0, set_param("add_device", "2"));
	ASSERT_TRUE(uevent_seen(ev, "add@/devices/virtual/" NEURON_SYSFS_CLASS "/neuron2"));
	ASSERT_EQ(4, count_devices());
	ASSERT_TRUE(exists("/dev/neuron2"));
	ASSERT_STREQ("4", dev_file(2, NEURON_SYSFS_CORE_COUNT));
	ASSERT_TRUE(dev_has(2, "neuron_core3"));
	ASSERT_EQ(0, ioctl(fd, NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP, &map));
	ASSERT_EQ(EEXIST, set_param("add_device", "2"));
	ASSERT_EQ(EINVAL, set_param("add_device", "4"));
}

TEST_F(fake, a_device_can_be_absent_from_the_start)
{
	LOAD("n_devices=3 remove_device=1");
	ASSERT_EQ(2, count_devices());
	ASSERT_FALSE(dev_exists(1));
	ASSERT_EQ(0, set_param("add_device", "1"));
	ASSERT_TRUE(dev_exists(1));
}

TEST_F(fake, omitted_and_garbled_attributes)
{
	LOAD("n_devices=3 omit=core_count@1,node_id_4 garbage=core_count@2,server_id_2");
	ASSERT_STREQ("2", dev_file(0, NEURON_SYSFS_CORE_COUNT));
	ASSERT_FALSE(dev_has(1, NEURON_SYSFS_CORE_COUNT));
	ASSERT_TRUE(dev_has(1, "neuron_core1"));
	ASSERT_STREQ("junk", dev_file(2, NEURON_SYSFS_CORE_COUNT));
	ASSERT_FALSE(exists(CLASS NEURON_SYSFS_NODE_ID_4));
	ASSERT_STREQ("-1\n", class_attr(NEURON_SYSFS_NODE_ID_2));
	ASSERT_STREQ("junk", class_attr(NEURON_SYSFS_SERVER_ID_2));
}

TEST_F(fake, no_class_attributes_and_no_core_dirs)
{
	LOAD("n_devices=2 omit=class,core_dirs@0 garbage_text=12abc");
	ASSERT_FALSE(exists(CLASS NEURON_SYSFS_NODE_ID_2));
	ASSERT_FALSE(exists(CLASS NEURON_SYSFS_ULTRASERVER_MODE));
	ASSERT_FALSE(exists(CLASS NEURON_SYSFS_RESERVATION_ID));
	ASSERT_EQ(2, count_devices());
	ASSERT_FALSE(dev_has(0, "neuron_core0"));
	ASSERT_TRUE(dev_has(1, "neuron_core0"));
}

TEST_F(fake, a_2_24_driver_has_no_newer_class_attributes)
{
	LOAD("n_devices=1 newer_attrs=0");
	ASSERT_TRUE(exists(CLASS NEURON_SYSFS_NODE_ID_4));
	ASSERT_TRUE(exists(CLASS NEURON_SYSFS_ULTRASERVER_MODE));
	ASSERT_FALSE(exists(CLASS NEURON_SYSFS_NODE_ID));
	ASSERT_FALSE(exists(CLASS NEURON_SYSFS_NODE_CNT));
	ASSERT_FALSE(exists(CLASS NEURON_SYSFS_RESERVATION_ID));
}

TEST_F(fake, without_char_devices_sysfs_is_all_there_is)
{
	LOAD("n_devices=2 no_cdev=1");
	ASSERT_EQ(2, count_devices());
	ASSERT_FALSE(exists("/dev/neuron0"));
	ASSERT_FALSE(dev_has(0, "dev"));
	ASSERT_STREQ("2", dev_file(1, NEURON_SYSFS_CORE_COUNT));
	ASSERT_EQ(0, set_param("remove_device", "0"));
	ASSERT_FALSE(dev_exists(0));
	ASSERT_TRUE(dev_exists(1));
}

TEST_F(fake, parameters_out_of_range_fail_the_load)
{
	if (!self->ko)
		SKIP(return, "no fake Neuron driver: NEURON_FAKE_KO (%s) is not a readable file",
		     getenv("NEURON_FAKE_KO") ?: "unset");
	ASSERT_EQ(EINVAL, fake_load(self->ko, "pod_type=3"));
	ASSERT_EQ(EINVAL, fake_load(self->ko, "n_devices=65"));
	ASSERT_EQ(EINVAL, fake_load(self->ko, "core_count=9"));
	ASSERT_EQ(EINVAL, fake_load(self->ko, "omit=no_such_attribute"));
	ASSERT_EQ(EINVAL, fake_load(self->ko, "garbage=core_dirs"));
	ASSERT_FALSE(exists(NEURON_SYSFS_CLASS_DIR));
}

TEST_HARNESS_MAIN
