// SPDX-License-Identifier: GPL-2.0
/*
 * The topology from the Neuron driver: `encctl topo sync` reading a driver's
 * sysfs tree and handing it to the module, and what the module then does
 * with it (Documentation/assumptions.rst). The trees here are written by
 * the test, in a temporary directory given as --sysfs, with --dev pointing
 * at a directory with no device node: the sysfs-only path, where every
 * fact, attribute and piece of garbage is the test's to choose. The fake
 * driver module (selftests/neuron_fake/) gives the same with real sysfs
 * attributes, device nodes and ioctls: the "fake" cases at the end, which
 * load it with the facts each needs.
 */
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "encd_test.h"

#define ROOT	"127.0.0.1:47311"

static const char *encctl_path(void)
{
	static char path[512];
	const char *env = getenv("ENCCTL"), *build = getenv("ENCD_BUILD");

	if (env)
		return env;
	snprintf(path, sizeof(path), "%s/../tools/encctl", build ? build : "../build/6.1");
	return path;
}

/*
 * Runs `encctl ARGS` (through sh, stderr with stdout; @prefix before it, as
 * "setpriv ..." is) and keeps what it printed in @out; returns its exit
 * status, or -1 when it did not exit.
 */
__attribute__((format(printf, 4, 5)))
static int encctl_as(const char *prefix, char *out, size_t size, const char *fmt, ...)
{
	char args[2048], cmd[2700];
	size_t len = 0, n;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s %s 2>&1", prefix, encctl_path(), args);
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (len + 1 < size && (n = fread(out + len, 1, size - 1 - len, p)) > 0)
		len += n;
	out[len] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define encctl(out, size, ...)		encctl_as("", out, size, __VA_ARGS__)
/* The same as the nobody user, with no group. */
#define encctl_nobody(out, size, ...)						\
	encctl_as("setpriv --reuid=65534 --regid=65534 --clear-groups", out, size, __VA_ARGS__)

/* The string under @key of the JSON object @doc, or "" (kept in @buf). */
static const char *j_str(const char *doc, const char *path, char *buf, size_t size)
{
	struct json_object *o = json_tokener_parse(doc), *v = o;
	char keys[256], *key, *save;

	buf[0] = '\0';
	snprintf(keys, sizeof(keys), "%s", path);
	for (key = strtok_r(keys, ".", &save); v && key; key = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(v, key, &v))
			v = NULL;
	if (v)
		snprintf(buf, size, "%s", json_object_get_string(v));
	json_object_put(o);
	return buf;
}

static int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return errno;
	fputs(val, f);
	return fclose(f) ? errno : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

FIXTURE(tree) {
	int fd;
	char dir[64];		/* the --sysfs class directory */
	char dev[80];		/* an empty --dev directory */
	char out[16384];
	char buf[512];
};

/* neuronN with @cores cores: core_count without a newline, as the driver writes it. */
static void add_device(struct __test_metadata *_metadata, FIXTURE_DATA(tree) *self,
		       unsigned int n, unsigned int cores)
{
	char path[256], val[16];
	unsigned int m;

	snprintf(path, sizeof(path), "%s/neuron%u", self->dir, n);
	ASSERT_EQ(0, mkdir(path, 0755));
	for (m = 0; m < cores; m++) {
		snprintf(path, sizeof(path), "%s/neuron%u/neuron_core%u", self->dir, n, m);
		ASSERT_EQ(0, mkdir(path, 0755));
	}
	snprintf(path, sizeof(path), "%s/neuron%u/core_count", self->dir, n);
	snprintf(val, sizeof(val), "%u", cores);
	ASSERT_EQ(0, write_file(path, val));
}

static void set_attr(struct __test_metadata *_metadata, FIXTURE_DATA(tree) *self,
		     const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", self->dir, name);
	ASSERT_EQ(0, write_file(path, val));
}

/* `encctl -j topo sync` of the test's tree: its exit status; its output in self->out. */
static int sync_tree(FIXTURE_DATA(tree) *self, const char *more)
{
	return encctl(self->out, sizeof(self->out), "-j topo sync --sysfs %s --dev %s %s",
		      self->dir, self->dev, more);
}

static const char *topo(FIXTURE_DATA(tree) *self, const char *key)
{
	static char doc[16384];

	if (encctl(doc, sizeof(doc), "-j topo"))
		return "(encctl topo failed)";
	return j_str(doc, key, self->buf, sizeof(self->buf));
}

FIXTURE_SETUP(tree)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/neuron-sysfs.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	/* Readable by anyone, as sysfs is: an unprivileged sync reads it too. */
	ASSERT_EQ(0, chmod(self->dir, 0755));
	snprintf(self->dev, sizeof(self->dev), "%s/dev", self->dir);
	ASSERT_EQ(0, mkdir(self->dev, 0755));
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
}

/* A test's end: its comms let go of, the module parameters back in force. */
static void params_back(int fd)
{
	char out[1024];

	close(fd);
	encctl(out, sizeof(out), "topo sync --params");
}

FIXTURE_TEARDOWN(tree)
{
	params_back(self->fd);
	nftw(self->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TEST_F(tree, no_driver_fails_and_leaves_the_parameters_in_force)
{
	ASSERT_EQ(1, encctl(self->out, sizeof(self->out), "topo sync --sysfs %s/none", self->dir));
	ASSERT_NE(NULL, strstr(self->out, "no Neuron driver")) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(self->out, "the module parameters stay in force"));
	ASSERT_STREQ("params", topo(self, "source"));
}

TEST_F(tree, a_sysfs_only_driver_gives_the_cores_and_a_p2p_pod)
{
	struct encd_glb_comm_header hdr;
	struct encd_version ver = { 0 };
	unsigned int n;

	for (n = 0; n < 4; n++)
		add_device(_metadata, self, n, 2);
	set_attr(_metadata, self, "node_id_4", "1\n");
	set_attr(_metadata, self, "node_id_2", "-1\n");
	ASSERT_EQ(0, sync_tree(self, "")) TH_LOG("%s", self->out);
	ASSERT_STREQ("sysfs core_count", j_str(self->out, "from.cores", self->buf, 512));
	ASSERT_NE(NULL, strstr(j_str(self->out, "from.pod", self->buf, 512), "sysfs node_id_4"));
	ASSERT_NE(NULL, strstr(j_str(self->out, "from.routing_id", self->buf, 512),
			       "taken equal to the device index"));
	ASSERT_STREQ("neuron", topo(self, "source"));
	ASSERT_STRNE("", topo(self, "synced_at"));

	test_cmd(encd_cmd(self->fd, ENCD_IOC_VERSION, &ver, sizeof(ver)));
	ASSERT_EQ(8, ver.num_vcores);
	test_cmd(encd_build(self->fd, 7, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 7, 0, &hdr));
	ASSERT_EQ(7, hdr.nec_dev_id);
	ASSERT_EQ(3, hdr.mla_idx);
	ASSERT_EQ(3, hdr.host_device_id);
	ASSERT_EQ(3, hdr.routing_id);
	ASSERT_EQ(ENCD_POD_TYPE_P2P, hdr.pod_type);
	ASSERT_EQ(1, hdr.pod_node_id);
	ASSERT_EQ(4, hdr.pod_sz);
	test_why(ENODEV, ENCD_REASON_NO_CORE, "Failed to find core 8",
		 encd_build(self->fd, 8, 0, 1, 0, NULL));
}

TEST_F(tree, node_id_minus_1_is_no_pod)
{
	struct encd_glb_comm_header hdr;

	add_device(_metadata, self, 0, 2);
	set_attr(_metadata, self, "node_id_4", "-1\n");
	set_attr(_metadata, self, "node_id_2", "-1\n");
	ASSERT_EQ(0, sync_tree(self, "")) TH_LOG("%s", self->out);
	ASSERT_STREQ("none", j_str(self->out, "pod_type", self->buf, 512));
	test_cmd(encd_build(self->fd, 1, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 1, 0, &hdr));
	ASSERT_EQ(ENCD_POD_TYPE_NONE, hdr.pod_type);
	ASSERT_EQ(0, hdr.pod_node_id);
}

TEST_F(tree, a_missing_core_count_is_counted_from_the_core_directories)
{
	char path[256];

	add_device(_metadata, self, 0, 4);
	add_device(_metadata, self, 1, 4);
	snprintf(path, sizeof(path), "%s/neuron1/core_count", self->dir);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, sync_tree(self, "")) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(j_str(self->out, "from.cores", self->buf, 512),
			       "neuron_coreM directories where it is missing"));
	ASSERT_STREQ("8", topo(self, "num_vcores"));
}

TEST_F(tree, garbage_in_an_attribute_fails_naming_it_and_changes_nothing)
{
	char path[256];

	add_device(_metadata, self, 0, 2);
	snprintf(path, sizeof(path), "%s/neuron0/core_count", self->dir);
	ASSERT_EQ(0, write_file(path, "two"));
	ASSERT_EQ(1, sync_tree(self, ""));
	ASSERT_NE(NULL, strstr(self->out, "neuron0/core_count reads 'two', not a core count"))
		TH_LOG("%s", self->out);
	ASSERT_EQ(0, write_file(path, "2"));
	set_attr(_metadata, self, "node_id_4", "one\n");
	ASSERT_EQ(1, sync_tree(self, ""));
	ASSERT_NE(NULL, strstr(self->out, "node_id_4 reads 'one', not a node id"))
		TH_LOG("%s", self->out);
	ASSERT_STREQ("params", topo(self, "source"));
	ASSERT_STREQ("32", topo(self, "num_vcores"));
}

TEST_F(tree, devices_of_different_core_counts_are_refused)
{
	add_device(_metadata, self, 0, 2);
	add_device(_metadata, self, 1, 8);
	ASSERT_EQ(1, sync_tree(self, ""));
	ASSERT_NE(NULL, strstr(self->out, "every Neuron device of a host has the same core count"))
		TH_LOG("%s", self->out);
	ASSERT_STREQ("params", topo(self, "source"));
}

TEST_F(tree, a_pod_election_fails_comms_until_a_sync_after_it)
{
	char out[4096];
	pid_t pid;
	int st;

	add_device(_metadata, self, 0, 2);
	set_attr(_metadata, self, "node_id_4", "busy\n");
	ASSERT_EQ(0, sync_tree(self, "")) TH_LOG("%s", self->out);
	ASSERT_STREQ("true", j_str(self->out, "pod_election", self->buf, 512));
	ASSERT_STREQ("true", topo(self, "pod_election"));
	test_why(EAGAIN, ENCD_REASON_TOPOLOGY,
		 "the Neuron driver is electing this host's pod: no global comm is built until the election ends and encctl topo sync has run",
		 encd_build(self->fd, 0, 0, 1, 0, NULL));

	/* --wait syncs again once the driver is done. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(sync_tree(self, "--wait 30") ? 1 : 0);
	sleep(2);
	set_attr(_metadata, self, "node_id_4", "2\n");
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_STREQ("false", topo(self, "pod_election"));
	ASSERT_STREQ("2", topo(self, "pod_node_id"));
	test_cmd(encd_build(self->fd, 0, 0, 1, 0, NULL));

	/* A --wait that runs out says so, and fails. */
	set_attr(_metadata, self, "node_id_4", "busy\n");
	ASSERT_EQ(1, encctl(out, sizeof(out), "topo sync --sysfs %s --dev %s --wait 1",
			    self->dir, self->dev));
	ASSERT_NE(NULL, strstr(out, "the pod election did not end within 1 s")) TH_LOG("%s", out);
}

TEST_F(tree, topo_set_of_the_pod_waits_for_the_parameters_to_be_back)
{
	char out[4096];

	add_device(_metadata, self, 0, 2);
	ASSERT_EQ(0, sync_tree(self, "")) TH_LOG("%s", self->out);
	ASSERT_EQ(1, encctl(out, sizeof(out), "topo set pod-sz 4"));
	ASSERT_NE(NULL, strstr(out, "the pod is the Neuron driver's")) TH_LOG("%s", out);
	ASSERT_EQ(0, encctl(out, sizeof(out), "topo set virtual-server-size 0")) TH_LOG("%s", out);
	ASSERT_EQ(0, encctl(out, sizeof(out), "topo sync --params")) TH_LOG("%s", out);
	ASSERT_STREQ("params", topo(self, "source"));
	ASSERT_EQ(0, encctl(out, sizeof(out), "topo set pod-sz 0")) TH_LOG("%s", out);
}

TEST_F(tree, an_unprivileged_sync_is_refused)
{
	add_device(_metadata, self, 0, 2);
	ASSERT_EQ(1, encctl_nobody(self->out, sizeof(self->out), "topo sync --sysfs %s --dev %s",
				   self->dir, self->dev));
	ASSERT_NE(NULL, strstr(self->out, "Operation not permitted")) TH_LOG("%s", self->out);
	ASSERT_STREQ("params", topo(self, "source"));
}

/* Rank 1 of a world of 2 on core 1: forms, then holds it until told. */
static void rank1(int go)
{
	int fd = encd_open();
	char c;

	if (fd < 0 || encd_build_root(fd, 1, 1, 2, 0, ROOT) || encd_setup(fd, 1, 0, 20000, NULL))
		_exit(1);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * Forms a world of 2: rank 1 on core 1 in a child (*@pid) that holds it
 * until @go[1] closes, rank 0 on core 0 on @fd.
 */
static void form_world_of_2(struct __test_metadata *_metadata, int fd, int go[2], pid_t *pid)
{
	ASSERT_EQ(0, pipe(go));
	*pid = fork();
	ASSERT_LE(0, *pid);
	if (!*pid) {
		close(go[1]);
		rank1(go[0]);
	}
	close(go[0]);
	test_cmd(encd_build_root(fd, 0, 0, 2, 0, ROOT));
	test_cmd(encd_setup(fd, 0, 0, 20000, NULL));
}

/* Lets rank 1 go: it formed and held the world to the end. */
static void end_world_of_2(struct __test_metadata *_metadata, int go[2], pid_t pid)
{
	int st;

	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
}

TEST_F(tree, a_device_that_goes_away_fails_its_world_naming_it)
{
	char path[256];
	int go[2];
	pid_t pid;

	add_device(_metadata, self, 0, 1);
	add_device(_metadata, self, 1, 1);
	ASSERT_EQ(0, sync_tree(self, "")) TH_LOG("%s", self->out);
	form_world_of_2(_metadata, self->fd, go, &pid);
	/* A comm of another context on the device that goes. */
	test_cmd(encd_build(self->fd, 1, 0, 1, 1, NULL));

	snprintf(path, sizeof(path), "%s/neuron1", self->dir);
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ASSERT_EQ(0, sync_tree(self, "")) TH_LOG("%s", self->out);
	test_why(ENODEV, ENCD_REASON_DEVICE_LOST,
		 "neuron1, the Neuron device of core 1 (rank 1), went away",
		 encd_barrier(self->fd, 0, 0, 0, ENCD_GROUP_GLOBAL, 5000, NULL));
	test_why(ENODEV, ENCD_REASON_NO_CORE, "Failed to find core 1",
		 encd_build(self->fd, 1, 0, 1, 0, NULL));
	/* Its comms can still be looked at and released, and then the core is gone. */
	test_cmd(encd_get(self->fd, 1, 1, NULL));
	test_cmd(encd_release(self->fd, 1, 1));
	test_why(ENODEV, ENCD_REASON_NO_CORE, "Failed to find core 1",
		 encd_get(self->fd, 1, 1, NULL));
	end_world_of_2(_metadata, go, pid);
}

/* --- the fake driver: real sysfs attributes, device nodes and ioctls --- */

FIXTURE(fake) {
	int fd;
	bool loaded;
	char out[16384];
	char buf[512];
};

/* Loads neuron_fake with @params; skips when the VM has no fake driver. */
static void load_fake(struct __test_metadata *_metadata, FIXTURE_DATA(fake) *self,
		      const char *params)
{
	const char *ko = getenv("NEURON_FAKE_KO");
	char cmd[1024];

	if (!ko || access(ko, R_OK))
		SKIP(return, "no fake Neuron driver (NEURON_FAKE_KO=%s)", ko ? ko : "");
	snprintf(cmd, sizeof(cmd), "insmod %s %s", ko, params);
	ASSERT_EQ(0, system(cmd));
	self->loaded = true;
}

static int fake_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/neuron_fake/parameters/%s", name);
	return encd_write_str(path, val);
}

static int sync_fake(FIXTURE_DATA(fake) *self)
{
	return encctl(self->out, sizeof(self->out), "-j topo sync");
}

FIXTURE_SETUP(fake)
{
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(fake)
{
	params_back(self->fd);
	if (self->loaded)
		system("rmmod neuron_fake");
}

TEST_F(fake, the_pod_and_routing_ids_come_from_the_driver_s_ioctls)
{
	struct encd_glb_comm_header hdr;

	load_fake(_metadata, self, "n_devices=4 core_count=2 pod_type=1 pod_sz=4 node_id=3 mode=1");
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	ASSERT_STREQ("NEURON_IOCTL_POD_STATUS_V2 on /dev/neuron0",
		     j_str(self->out, "from.pod", self->buf, sizeof(self->buf)));
	ASSERT_STREQ("NEURON_IOCTL_HOST_DEVICE_ID_TO_RID_MAP on /dev/neuron0",
		     j_str(self->out, "from.routing_id", self->buf, sizeof(self->buf)));
	ASSERT_STREQ("sysfs core_count", j_str(self->out, "from.cores", self->buf, 512));
	test_cmd(encd_build(self->fd, 0, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 0, 0, &hdr));
	ASSERT_EQ(3, hdr.routing_id);
	ASSERT_EQ(ENCD_POD_TYPE_P2P, hdr.pod_type);
	ASSERT_EQ(3, hdr.pod_node_id);
	ASSERT_EQ(4, hdr.pod_sz);
	test_cmd(encd_build(self->fd, 7, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 7, 0, &hdr));
	ASSERT_EQ(3, hdr.mla_idx);
	ASSERT_EQ(0, hdr.routing_id);
	test_err(ENODEV, "Failed to find core 8", encd_build(self->fd, 8, 0, 1, 0, NULL));
}

TEST_F(fake, pods_at_their_bounds)
{
	load_fake(_metadata, self, "n_devices=2 core_count=2 pod_type=1 pod_sz=4 node_id=3");
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	test_cmd(encd_build(self->fd, 0, 0, 1, 0, NULL));

	/* P2P: the bound is the pod size. */
	ASSERT_EQ(0, fake_param("node_id", "4"));
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	test_why(EINVAL, ENCD_REASON_TOPOLOGY, "Invalid pod_node_id: 4 (pod_size: 4) pod_type:1",
		 encd_build(self->fd, 1, 0, 1, 0, NULL));

	/* A switch: the bound is 4, whatever the size; comms built before keep theirs. */
	ASSERT_EQ(0, fake_param("pod_type", "2"));
	ASSERT_EQ(0, fake_param("pod_sz", "8"));
	ASSERT_EQ(0, fake_param("node_id", "3"));
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	test_cmd(encd_build(self->fd, 1, 0, 1, 0, NULL));
	ASSERT_EQ(0, fake_param("node_id", "4"));
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	test_why(EINVAL, ENCD_REASON_TOPOLOGY, "Invalid pod_node_id: 4 (pod_size: 8) pod_type:2",
		 encd_build(self->fd, 2, 0, 1, 0, NULL));
	test_cmd(encd_build(self->fd, 0, 0, 1, 0, NULL));
}

TEST_F(fake, off_a_pod_p2p_of_size_0_and_node_minus_1_is_no_pod)
{
	struct encd_glb_comm_header hdr;

	load_fake(_metadata, self, "n_devices=1 pod_type=1 pod_sz=0 node_id=-1");
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	ASSERT_STREQ("none", j_str(self->out, "pod_type", self->buf, sizeof(self->buf)));
	test_cmd(encd_build(self->fd, 0, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 0, 0, &hdr));
	ASSERT_EQ(ENCD_POD_TYPE_NONE, hdr.pod_type);
}

TEST_F(fake, an_election_the_ioctl_reports_holds_comms_back)
{
	load_fake(_metadata, self, "n_devices=2 pod_type=1 pod_sz=2 node_id=0 busy=1");
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	ASSERT_STREQ("true", j_str(self->out, "pod_election", self->buf, sizeof(self->buf)));
	test_why(EAGAIN, ENCD_REASON_TOPOLOGY, NULL, encd_build(self->fd, 0, 0, 1, 0, NULL));
	ASSERT_EQ(0, fake_param("busy", "0"));
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	test_cmd(encd_build(self->fd, 0, 0, 1, 0, NULL));
}

TEST_F(fake, without_device_nodes_the_class_attributes_stand)
{
	struct encd_glb_comm_header hdr;

	load_fake(_metadata, self, "n_devices=2 no_cdev=1 pod_type=1 pod_sz=4 node_id=2");
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(j_str(self->out, "from.pod", self->buf, sizeof(self->buf)),
			       "sysfs node_id_4")) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(j_str(self->out, "from.routing_id", self->buf, 512),
			       "taken equal to the device index"));
	test_cmd(encd_build(self->fd, 2, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 2, 0, &hdr));
	ASSERT_EQ(1, hdr.routing_id);
	ASSERT_EQ(ENCD_POD_TYPE_P2P, hdr.pod_type);
	ASSERT_EQ(2, hdr.pod_node_id);

	/* node_cnt counts only a switch pod's nodes. */
	ASSERT_EQ(0, fake_param("pod_type", "2"));
	ASSERT_EQ(0, fake_param("node_id", "3"));
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(j_str(self->out, "from.pod", self->buf, sizeof(self->buf)),
			       "a switch pod")) TH_LOG("%s", self->out);
	test_cmd(encd_build(self->fd, 3, 0, 1, 0, NULL));
	test_cmd(encd_get(self->fd, 3, 0, &hdr));
	ASSERT_EQ(ENCD_POD_TYPE_SWITCH, hdr.pod_type);
	ASSERT_EQ(3, hdr.pod_node_id);
	ASSERT_EQ(4, hdr.pod_sz);
}

TEST_F(fake, a_missing_attribute_is_worked_around_and_garbage_refused)
{
	load_fake(_metadata, self, "n_devices=2 omit=core_count@1");
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, strstr(j_str(self->out, "from.cores", self->buf, sizeof(self->buf)),
			       "neuron_coreM directories where it is missing"));
	ASSERT_EQ(0, system("rmmod neuron_fake"));
	self->loaded = false;
	load_fake(_metadata, self, "n_devices=2 garbage=core_count@0");
	ASSERT_EQ(1, sync_fake(self));
	ASSERT_NE(NULL, strstr(self->out, "neuron0/core_count reads 'junk', not a core count"))
		TH_LOG("%s", self->out);
}

TEST_F(fake, a_device_removed_under_a_live_world_fails_it_naming_the_device)
{
	int go[2];
	pid_t pid;

	load_fake(_metadata, self, "n_devices=2 core_count=1");
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	form_world_of_2(_metadata, self->fd, go, &pid);
	ASSERT_EQ(0, fake_param("remove_device", "1"));
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	test_why(ENODEV, ENCD_REASON_DEVICE_LOST,
		 "neuron1, the Neuron device of core 1 (rank 1), went away",
		 encd_barrier(self->fd, 0, 0, 0, ENCD_GROUP_GLOBAL, 5000, NULL));
	end_world_of_2(_metadata, go, pid);
	ASSERT_EQ(0, fake_param("add_device", "1"));
	ASSERT_EQ(0, sync_fake(self)) TH_LOG("%s", self->out);
	test_cmd(encd_build(self->fd, 1, 0, 1, 0, NULL));
}

TEST_F(fake, an_unprivileged_sync_is_refused)
{
	load_fake(_metadata, self, "n_devices=1");
	ASSERT_EQ(1, encctl_nobody(self->out, sizeof(self->out), "topo sync"));
	ASSERT_NE(NULL, strstr(self->out, "Operation not permitted")) TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
