// SPDX-License-Identifier: GPL-2.0
/*
 * The "encd" generic netlink family, spoken raw (no libmnl, so requests can
 * be malformed on purpose): what it shows of the global comms compared field
 * by field with ENCD_IOC_GET_GLOBAL_COMM and with libenc, complete and split
 * dumps of every comm of 256 cores, dumps racing builds and teardowns,
 * events, privileges, network namespaces, extended acks for malformed
 * requests, encctl's JSON (status, comm show, monitor -j) against the
 * library, the module's settings (allow_insecure_worlds) as MODULE_GET and
 * encctl status say them, and a world of 256 ranks whose nodes each take
 * several messages and whose one host agent sent nothing.
 *
 * Loaded with num_vcores=256 (netlink_test.modparams).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <json-c/json.h>

#include <enc/enc.h>

#include "encd_genl.h"
#include "encd_test.h"

#define NUM_VCORES	256

/* --- global comms as the family shows them --- */

static uint32_t a_u32(const struct nlattr *a)
{
	return a && encd_nla_len(a) == 4 ? *(uint32_t *)encd_nla_data(a) : 0xdeadbeef;
}

static uint64_t a_u64(const struct nlattr *a)
{
	uint64_t v = 0xdeadbeefdeadbeefULL;

	if (a && encd_nla_len(a) == 8)
		memcpy(&v, encd_nla_data(a), 8);
	return v;
}

/* Asserts that a GCOMM_GET reply or event says what the ioctl says. */
static void check_gcomm(struct __test_metadata *_metadata, const struct nlmsghdr *nlh,
			const struct encd_glb_comm_header *h)
{
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	struct stat st;

	encd_genl_parse(nlh, tb, ENCD_A_GCOMM_MAX);
	ASSERT_EQ(h->nec_dev_id, a_u32(tb[ENCD_A_GCOMM_NEC_DEV]));
	ASSERT_EQ(h->ctx_id, a_u32(tb[ENCD_A_GCOMM_CTX]));
	ASSERT_EQ(h->serial, a_u64(tb[ENCD_A_GCOMM_SERIAL]));
	ASSERT_EQ(h->g_device_id, a_u32(tb[ENCD_A_GCOMM_G_DEVICE_ID]));
	ASSERT_EQ(h->g_device_cnt, a_u32(tb[ENCD_A_GCOMM_G_DEVICE_CNT]));
	ASSERT_EQ(h->vtpb_idx, a_u32(tb[ENCD_A_GCOMM_VTPB_IDX]));
	ASSERT_EQ(h->mla_idx, (int32_t)a_u32(tb[ENCD_A_GCOMM_MLA_IDX]));
	ASSERT_EQ(h->host_device_id, (int32_t)a_u32(tb[ENCD_A_GCOMM_HOST_DEVICE_ID]));
	ASSERT_EQ(h->routing_id, (int32_t)a_u32(tb[ENCD_A_GCOMM_ROUTING_ID]));
	ASSERT_EQ(h->virtual_server_id, a_u32(tb[ENCD_A_GCOMM_VIRTUAL_SERVER_ID]));
	ASSERT_EQ(h->pod_type, a_u32(tb[ENCD_A_GCOMM_POD_TYPE]));
	ASSERT_EQ(h->pod_node_id, a_u32(tb[ENCD_A_GCOMM_POD_NODE_ID]));
	ASSERT_EQ(h->pod_sz, a_u32(tb[ENCD_A_GCOMM_POD_SZ]));
	ASSERT_EQ(h->reservation_id, a_u64(tb[ENCD_A_GCOMM_RESERVATION_ID]));
	ASSERT_NE(NULL, tb[ENCD_A_GCOMM_ROOT_COMM_ID]);
	ASSERT_STREQ(h->root_comm_id, (char *)encd_nla_data(tb[ENCD_A_GCOMM_ROOT_COMM_ID]));
	ASSERT_EQ(!!h->check_sigs, !!tb[ENCD_A_GCOMM_CHECK_SIGS]);
	ASSERT_EQ(h->state, a_u32(tb[ENCD_A_GCOMM_STATE]));
	ASSERT_NE(0, a_u64(tb[ENCD_A_GCOMM_CREATED]));
	/* A comm built in this test's namespace belongs to it. */
	ASSERT_EQ(0, stat("/proc/self/ns/net", &st));
	ASSERT_EQ(st.st_ino, a_u32(tb[ENCD_A_GCOMM_NETNS_INO]));
	/* Built, never set up: no rank, so no host agent and nothing it sent. */
	ASSERT_EQ(NULL, tb[ENCD_A_GCOMM_HOST_TX_BYTES]);
}

/* A dump or get of global comms, each reply kept (up to 2 per slot). */
struct gcomms {
	int n;
	struct nlmsghdr *msg[2 * ENCD_NEC_MAX_DEVICES * ENCD_MAX_CONTEXTS];
};

static void gcomms_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct gcomms *gs = arg;

	if (gs->n < (int)ARRAY_SIZE(gs->msg)) {
		gs->msg[gs->n] = malloc(nlh->nlmsg_len);
		memcpy(gs->msg[gs->n++], nlh, nlh->nlmsg_len);
	}
}

static void gcomms_free(struct gcomms *gs)
{
	while (gs->n)
		free(gs->msg[--gs->n]);
}

/* Dumps the comms (-1: no filter); returns the reply's error. */
static int gcomm_dump(struct encd_genl *nl, int nec_dev, int ctx, struct gcomms *gs, struct encd_genl_reply *rep)
{
	struct encd_genl_req r;

	encd_genl_req_init(&r, nl->family, ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP);
	if (nec_dev >= 0)
		encd_genl_req_put_u32(&r, ENCD_A_GCOMM_NEC_DEV, nec_dev);
	if (ctx >= 0)
		encd_genl_req_put_u32(&r, ENCD_A_GCOMM_CTX, ctx);
	return encd_genl_talk(nl, &r, gcomms_cb, gs, rep);
}

static int gcomm_get(struct encd_genl *nl, uint32_t nec_dev, uint32_t ctx, struct gcomms *gs,
		     struct encd_genl_reply *rep)
{
	struct encd_genl_req r;

	encd_genl_req_init(&r, nl->family, ENCD_NL_CMD_GCOMM_GET, 0);
	encd_genl_req_put_u32(&r, ENCD_A_GCOMM_NEC_DEV, nec_dev);
	encd_genl_req_put_u32(&r, ENCD_A_GCOMM_CTX, ctx);
	return encd_genl_talk(nl, &r, gcomms_cb, gs, rep);
}

/* TOPO_SET with every host fact; returns the error. */
static int topo_set(struct encd_genl *nl, uint32_t pod_type, uint32_t pod_node_id, uint32_t pod_sz,
		    uint64_t reservation_id, uint32_t vss)
{
	struct encd_genl_reply rep;
	struct encd_genl_req r;

	encd_genl_req_init(&r, nl->family, ENCD_NL_CMD_TOPO_SET, 0);
	encd_genl_req_put_u32(&r, ENCD_A_TOPO_POD_TYPE, pod_type);
	encd_genl_req_put_u32(&r, ENCD_A_TOPO_POD_NODE_ID, pod_node_id);
	encd_genl_req_put_u32(&r, ENCD_A_TOPO_POD_SZ, pod_sz);
	encd_genl_req_put(&r, ENCD_A_TOPO_RESERVATION_ID, &reservation_id, sizeof(reservation_id));
	encd_genl_req_put_u32(&r, ENCD_A_TOPO_VIRTUAL_SERVER_SIZE, vss);
	return encd_genl_talk(nl, &r, NULL, NULL, &rep);
}

/* Runs @fn in a child and returns its exit status (or 128 + signal). */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

FIXTURE(nl) {
	struct encd_genl nl;
	int fd;		/* /dev/encd */
	pid_t world;	/* the process group of a world this test launched, or 0 */
	int insecure;	/* allow_insecure_worlds as the test found it: 0, 1, or -1 */
};

#define INSECURE_PARAM	"allow_insecure_worlds"
#define NETWORKS_PARAM	"networks"

/* A bool module parameter: 1 (Y), 0 (N), or -1 when it cannot be read. */
static int param_bool(const char *name)
{
	char path[128], c = 0;
	int fd;

	snprintf(path, sizeof(path), ENCD_PARAMS "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 'Y' ? 1 : c == 'N' ? 0 : -1;
}

static void world_kill(struct encd_genl *nl, pid_t world);

FIXTURE_SETUP(nl)
{
	ASSERT_EQ(0, encd_genl_open(&self->nl));
	ASSERT_NE(0, self->nl.family);
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	self->insecure = param_bool(INSECURE_PARAM);
	ASSERT_LE(0, self->insecure);
}

FIXTURE_TEARDOWN(nl)
{
	/* Its comms must not outlive the test, whether it passed or not. */
	if (self->world)
		world_kill(&self->nl, self->world);
	/* The topology is the host's: put it back as the module loaded it. */
	topo_set(&self->nl, 0, 0, 0, 0, 0);
	if (self->insecure >= 0)
		encd_param_set(INSECURE_PARAM, self->insecure);
	/* The runner loads encd without networks: any address. */
	encd_write_str(ENCD_PARAMS NETWORKS_PARAM, "\n");
	close(self->fd);
	encd_genl_close(&self->nl);
}

TEST_F(nl, family_has_version_and_events_group)
{
	ASSERT_NE(0, self->nl.events);
}

TEST_F(nl, get_matches_ioctl_header_field_by_field)
{
	struct encd_glb_comm_header h;
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	__u32 vnc;

	ASSERT_EQ(0, topo_set(&self->nl, ENCD_POD_TYPE_P2P, 1, 2, 0x1122334455667788ULL, 2));
	test_cmd(encd_build(self->fd, 5, 3, 8, 0, NULL));
	test_cmd(encd_gcomm(self->fd, ENCD_IOC_BUILD_GLOBAL_COMM, ENCD_GCOMM_CHECK_SIGS, 9, 6, 8,
			    1, NULL));
	for (vnc = 5; vnc <= 9; vnc += 4) {
		__u32 ctx = vnc == 5 ? 0 : 1;

		test_cmd(encd_get(self->fd, vnc, ctx, &h));
		ASSERT_EQ(0, gcomm_get(&self->nl, vnc, ctx, &gs, &rep));
		ASSERT_EQ(1, gs.n);
		ASSERT_EQ(ENCD_NL_CMD_GCOMM_GET, encd_genl_cmd(gs.msg[0]));
		check_gcomm(_metadata, gs.msg[0], &h);
		gcomms_free(&gs);
	}
}

TEST_F(nl, get_of_a_missing_comm_is_enoent_with_a_reason)
{
	struct encd_genl_reply rep;
	struct gcomms gs = {};

	ASSERT_EQ(-ENOENT, gcomm_get(&self->nl, 17, 1, &gs, &rep));
	ASSERT_STREQ("no global comm on that core and context", rep.msg);
	ASSERT_EQ(0, gs.n);
}

TEST_F(nl, dump_of_every_comm_of_256_cores_is_complete_and_split)
{
	struct encd_glb_comm_header h;
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	uint32_t dev, ctx, i;

	for (dev = 0; dev < NUM_VCORES; dev++)
		for (ctx = 0; ctx < ENCD_MAX_CONTEXTS; ctx++)
			test_cmd(encd_build(self->fd, dev, dev, NUM_VCORES + ctx, ctx, NULL));

	ASSERT_EQ(0, gcomm_dump(&self->nl, -1, -1, &gs, &rep));
	ASSERT_EQ(NUM_VCORES * ENCD_MAX_CONTEXTS, gs.n);
	/* 512 comms do not fit in one part of a dump. */
	ASSERT_LT(1, rep.parts);
	ASSERT_FALSE(rep.intr);
	for (i = 0; i < (uint32_t)gs.n; i++) {
		encd_genl_parse(gs.msg[i], tb, ENCD_A_GCOMM_MAX);
		/* In slot order, each once. */
		ASSERT_EQ(i / ENCD_MAX_CONTEXTS, a_u32(tb[ENCD_A_GCOMM_NEC_DEV]));
		ASSERT_EQ(i % ENCD_MAX_CONTEXTS, a_u32(tb[ENCD_A_GCOMM_CTX]));
		test_cmd(encd_get(self->fd, i / ENCD_MAX_CONTEXTS, i % ENCD_MAX_CONTEXTS, &h));
		check_gcomm(_metadata, gs.msg[i], &h);
	}
	gcomms_free(&gs);

	/* The filters. */
	ASSERT_EQ(0, gcomm_dump(&self->nl, 200, -1, &gs, &rep));
	ASSERT_EQ(2, gs.n);
	gcomms_free(&gs);
	ASSERT_EQ(0, gcomm_dump(&self->nl, -1, 1, &gs, &rep));
	ASSERT_EQ(NUM_VCORES, gs.n);
	gcomms_free(&gs);
	ASSERT_EQ(0, gcomm_dump(&self->nl, 255, 1, &gs, &rep));
	ASSERT_EQ(1, gs.n);
	gcomms_free(&gs);

	/* Released, they are gone from the next dump. */
	close(self->fd);
	self->fd = encd_open();
	ASSERT_EQ(0, gcomm_dump(&self->nl, -1, -1, &gs, &rep));
	ASSERT_EQ(0, gs.n);
}

/* Builds and tears down comms on cores 0..63, over and over. */
static int churn(void *arg)
{
	int rounds = *(int *)arg, fd, r;
	__u32 vnc;

	for (r = 0; r < rounds; r++) {
		fd = encd_open();
		if (fd < 0)
			return 1;
		for (vnc = 0; vnc < 64; vnc++)
			if (encd_build(fd, vnc, vnc, 64, vnc % 2, NULL))
				return 2;
		close(fd);
	}
	return 0;
}

TEST_F(nl, dump_racing_builds_and_teardowns_has_only_whole_entries)
{
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	int rounds = 200, status, i, d, intr = 0;
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	uint32_t dev;
	pid_t pid;

	/* Cores 100..227 stay put, so every dump has them whatever it races. */
	for (dev = 100; dev < 228; dev++)
		test_cmd(encd_build(self->fd, dev, dev - 100, 128, 0, NULL));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(churn(&rounds));

	for (d = 0; d < 100; d++) {
		int stable = 0;

		ASSERT_EQ(0, gcomm_dump(&self->nl, -1, -1, &gs, &rep));
		intr += rep.intr;
		for (i = 0; i < gs.n; i++) {
			encd_genl_parse(gs.msg[i], tb, ENCD_A_GCOMM_MAX);
			dev = a_u32(tb[ENCD_A_GCOMM_NEC_DEV]);
			/* Every entry is whole and as it was built. */
			if (dev < 64) {
				ASSERT_EQ(dev, a_u32(tb[ENCD_A_GCOMM_G_DEVICE_ID]));
				ASSERT_EQ(64, a_u32(tb[ENCD_A_GCOMM_G_DEVICE_CNT]));
				ASSERT_EQ(dev % 2, a_u32(tb[ENCD_A_GCOMM_CTX]));
			} else {
				ASSERT_LE(100, dev);
				ASSERT_GT(228, dev);
				ASSERT_EQ(dev - 100, a_u32(tb[ENCD_A_GCOMM_G_DEVICE_ID]));
				ASSERT_EQ(128, a_u32(tb[ENCD_A_GCOMM_G_DEVICE_CNT]));
				stable++;
			}
			ASSERT_NE(NULL, tb[ENCD_A_GCOMM_ROOT_COMM_ID]);
		}
		ASSERT_EQ(128, stable);
		gcomms_free(&gs);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("the churning child was killed by signal %d", WTERMSIG(status));
	}
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* 200 rounds of 64 builds and teardowns do change the set under a dump. */
	ASSERT_LT(0, intr);
	TH_LOG("%d of 100 dumps were marked interrupted", intr);
}

/* Collects a dump's replies; on the first one, builds a comm on another file. */
struct interrupter {
	struct gcomms gs;
	int fd;
	int err;
	bool built;
};

static void interrupt_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct interrupter *in = arg;

	if (!in->built) {
		in->built = true;
		in->err = encd_build(in->fd, 250, 0, 1, 0, NULL);
	}
	gcomms_cb(nlh, &in->gs);
}

/*
 * A dump is made a part at a time: the first when it is asked for, each next
 * one when the reader takes the one before. A comm built after the first
 * part came marks the parts made after it, and NLMSG_DONE, NLM_F_DUMP_INTR.
 */
TEST_F(nl, a_dump_the_set_changes_under_is_marked_interrupted)
{
	struct interrupter in = { .fd = encd_open() };
	struct encd_genl_reply rep;
	struct encd_genl_req r;
	uint32_t dev;

	ASSERT_LE(0, in.fd);
	for (dev = 0; dev < 200; dev++) {
		test_cmd(encd_build(self->fd, dev, dev, 200, 0, NULL));
		test_cmd(encd_build(self->fd, dev, dev, 200, 1, NULL));
	}
	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP);
	ASSERT_EQ(0, encd_genl_talk(&self->nl, &r, interrupt_cb, &in, &rep));
	test_cmd(in.err);
	/* the second part was made with the first reply; the third after the build */
	ASSERT_LE(3, rep.parts);
	ASSERT_TRUE(rep.intr);
	gcomms_free(&in.gs);

	/* Nothing changed since: the next dump is whole, and has the new comm. */
	ASSERT_EQ(0, gcomm_dump(&self->nl, -1, -1, &in.gs, &rep));
	ASSERT_FALSE(rep.intr);
	ASSERT_EQ(401, in.gs.n);
	gcomms_free(&in.gs);
	close(in.fd);
}

TEST_F(nl, events_say_when_a_comm_is_built_and_torn_down)
{
	struct encd_glb_comm_header h;
	const struct nlmsghdr *ev;
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	struct encd_genl events;

	ASSERT_EQ(0, encd_genl_open(&events));
	ASSERT_EQ(0, encd_genl_join_events(&events));

	test_cmd(encd_build(self->fd, 42, 7, 16, 1, NULL));
	test_cmd(encd_get(self->fd, 42, 1, &h));
	ev = encd_genl_next_event(&events, 2000);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(ENCD_NL_CMD_GCOMM_ADD_NTF, encd_genl_cmd(ev));
	check_gcomm(_metadata, ev, &h);
	/* Any listener hears it: it does not say whose the comm is. */
	encd_genl_parse(ev, tb, ENCD_A_GCOMM_MAX);
	ASSERT_EQ(NULL, tb[ENCD_A_GCOMM_OWNER_UID]);

	/* A second holder of the same world makes no new comm: no event. */
	test_cmd(encd_build(self->fd, 42, 7, 16, 1, NULL));
	test_cmd(encd_release(self->fd, 42, 1));
	ev = encd_genl_next_event(&events, 2000);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(ENCD_NL_CMD_GCOMM_DEL_NTF, encd_genl_cmd(ev));
	encd_genl_parse(ev, tb, ENCD_A_GCOMM_MAX);
	ASSERT_EQ(h.serial, a_u64(tb[ENCD_A_GCOMM_SERIAL]));
	ASSERT_EQ(0, a_u32(tb[ENCD_A_GCOMM_HOLDERS]));
	ASSERT_EQ(NULL, encd_genl_next_event(&events, 200));
	encd_genl_close(&events);
}

/* As nobody: read, listen, but not change the topology. */
static int unprivileged(void *arg)
{
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	struct encd_genl nl;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return 10;
	if (encd_genl_open(&nl))
		return 11;
	if (gcomm_dump(&nl, -1, -1, &gs, &rep) || gs.n != 1)
		return 12;
	gcomms_free(&gs);
	if (gcomm_get(&nl, 3, 0, &gs, &rep) || gs.n != 1)
		return 13;
	if (encd_genl_join_events(&nl))
		return 14;
	if (topo_set(&nl, 1, 0, 2, 0, 0) != -EPERM)
		return 15;
	return 0;
}

TEST_F(nl, nobody_reads_and_listens_but_cannot_set_the_topology)
{
	test_cmd(encd_build(self->fd, 3, 0, 2, 0, NULL));
	ASSERT_EQ(0, in_child(unprivileged, NULL));
}

/* As root without CAP_NET_ADMIN. */
static int no_net_admin(void *arg)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct encd_genl nl;

	if (syscall(SYS_capget, &hdr, data))
		return 10;
	data[0].effective &= ~(1U << CAP_NET_ADMIN);
	data[0].permitted &= ~(1U << CAP_NET_ADMIN);
	if (syscall(SYS_capset, &hdr, data))
		return 11;
	if (encd_genl_open(&nl))
		return 12;
	if (topo_set(&nl, 1, 0, 2, 0, 0) != -EPERM)
		return 13;
	return 0;
}

TEST_F(nl, root_without_cap_net_admin_cannot_set_the_topology)
{
	ASSERT_EQ(0, in_child(no_net_admin, NULL));
}

TEST_F(nl, topology_set_is_read_back_and_reaches_new_comms)
{
	const struct nlattr *tb[ENCD_A_TOPO_MAX + 1];
	struct encd_glb_comm_header h;
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	struct encd_genl_req r;

	ASSERT_EQ(0, topo_set(&self->nl, ENCD_POD_TYPE_SWITCH, 3, 8, 99, 4));
	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_TOPO_GET, 0);
	ASSERT_EQ(0, encd_genl_talk(&self->nl, &r, gcomms_cb, &gs, &rep));
	ASSERT_EQ(1, gs.n);
	encd_genl_parse(gs.msg[0], tb, ENCD_A_TOPO_MAX);
	ASSERT_EQ(NUM_VCORES, a_u32(tb[ENCD_A_TOPO_NUM_VCORES]));
	ASSERT_EQ(ENCD_POD_TYPE_SWITCH, a_u32(tb[ENCD_A_TOPO_POD_TYPE]));
	ASSERT_EQ(3, a_u32(tb[ENCD_A_TOPO_POD_NODE_ID]));
	ASSERT_EQ(8, a_u32(tb[ENCD_A_TOPO_POD_SZ]));
	ASSERT_EQ(99, a_u64(tb[ENCD_A_TOPO_RESERVATION_ID]));
	ASSERT_EQ(4, a_u32(tb[ENCD_A_TOPO_VIRTUAL_SERVER_SIZE]));
	gcomms_free(&gs);

	/* Only what is given changes. */
	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_TOPO_SET, 0);
	encd_genl_req_put_u32(&r, ENCD_A_TOPO_POD_NODE_ID, 2);
	ASSERT_EQ(0, encd_genl_talk(&self->nl, &r, NULL, NULL, &rep));
	test_cmd(encd_build(self->fd, 11, 5, 8, 0, NULL));
	test_cmd(encd_get(self->fd, 11, 0, &h));
	ASSERT_EQ(ENCD_POD_TYPE_SWITCH, h.pod_type);
	ASSERT_EQ(2, h.pod_node_id);
	ASSERT_EQ(8, h.pod_sz);
	ASSERT_EQ(99, h.reservation_id);
	ASSERT_EQ(1, h.virtual_server_id);

	/* libnrt's pod check sees a pod_type the provider was set to. */
	ASSERT_EQ(0, topo_set(&self->nl, ENCD_POD_TYPE_INVALID, 0, 0, 0, 0));
	test_err(EINVAL, "Invalid pod_type: 3", encd_build(self->fd, 12, 0, 8, 0, NULL));

	/* An empty set is a mistake, said so. */
	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_TOPO_SET, 0);
	ASSERT_EQ(-EINVAL, encd_genl_talk(&self->nl, &r, NULL, NULL, &rep));
	ASSERT_STREQ("nothing to set: give at least one topology attribute", rep.msg);
}

struct vcores {
	int n;
	bool ok;
};

static void vcore_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[ENCD_A_VCORE_MAX + 1];
	struct vcores *v = arg;
	uint32_t vnc;

	encd_genl_parse(nlh, tb, ENCD_A_VCORE_MAX);
	vnc = a_u32(tb[ENCD_A_VCORE_VNC]);
	/* The derivation Documentation/module-parameters.rst gives (2 per device). */
	v->ok &= vnc == (uint32_t)v->n && a_u32(tb[ENCD_A_VCORE_NEC_DEV]) == vnc &&
		 a_u32(tb[ENCD_A_VCORE_VTPB_IDX]) == vnc &&
		 a_u32(tb[ENCD_A_VCORE_MLA_IDX]) == vnc / 2 &&
		 a_u32(tb[ENCD_A_VCORE_HOST_DEVICE_ID]) == vnc / 2 &&
		 a_u32(tb[ENCD_A_VCORE_ROUTING_ID]) == NUM_VCORES / 2 - 1 - vnc / 2;
	v->n++;
}

TEST_F(nl, vcore_dump_lists_every_core)
{
	struct vcores v = { .ok = true };
	struct encd_genl_reply rep;
	struct encd_genl_req r;

	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_VCORE_GET, NLM_F_DUMP);
	ASSERT_EQ(0, encd_genl_talk(&self->nl, &r, vcore_cb, &v, &rep));
	ASSERT_EQ(NUM_VCORES, v.n);
	ASSERT_TRUE(v.ok);
}

/* MODULE_GET: allow-insecure-worlds, or -1 when the reply has no such u8. */
static int module_get(struct encd_genl *nl, struct encd_genl_reply *rep)
{
	const struct nlattr *tb[ENCD_A_MODULE_MAX + 1];
	const struct nlattr *a;
	struct gcomms gs = {};
	struct encd_genl_req r;
	int allow = -1;

	encd_genl_req_init(&r, nl->family, ENCD_NL_CMD_MODULE_GET, 0);
	if (encd_genl_talk(nl, &r, gcomms_cb, &gs, rep) || gs.n != 1)
		goto out;
	encd_genl_parse(gs.msg[0], tb, ENCD_A_MODULE_MAX);
	a = tb[ENCD_A_MODULE_ALLOW_INSECURE_WORLDS];
	if (a && encd_nla_len(a) == 1)
		allow = *(uint8_t *)encd_nla_data(a);
out:
	gcomms_free(&gs);
	return allow;
}

/* MODULE_GET: networks, copied into @buf; -1 when the reply has no such string. */
static int module_get_networks(struct encd_genl *nl, char *buf, size_t size)
{
	const struct nlattr *tb[ENCD_A_MODULE_MAX + 1];
	struct encd_genl_reply rep;
	const struct nlattr *a;
	struct gcomms gs = {};
	struct encd_genl_req r;
	int ret = -1;

	encd_genl_req_init(&r, nl->family, ENCD_NL_CMD_MODULE_GET, 0);
	if (encd_genl_talk(nl, &r, gcomms_cb, &gs, &rep) || gs.n != 1)
		goto out;
	encd_genl_parse(gs.msg[0], tb, ENCD_A_MODULE_MAX);
	a = tb[ENCD_A_MODULE_NETWORKS];
	if (a && encd_nla_len(a) >= 1 && encd_nla_len(a) <= size &&
	    !((char *)encd_nla_data(a))[encd_nla_len(a) - 1]) {
		memcpy(buf, encd_nla_data(a), encd_nla_len(a));
		ret = 0;
	}
out:
	gcomms_free(&gs);
	return ret;
}

static int module_get_in_new_netns(void *arg)
{
	struct encd_genl_reply rep;
	struct encd_genl nl;

	if (unshare(CLONE_NEWNET) || encd_genl_open(&nl))
		return 100;
	return module_get(&nl, &rep);
}

/* --- network namespaces --- */

struct netns_ctx {
	int to_parent[2], to_child[2];
};

/*
 * In a new network namespace: the init namespace's comm is invisible; a comm
 * built here is visible here and its event arrives here.
 */
static int netns_child(void *arg)
{
	struct netns_ctx *c = arg;
	struct encd_glb_comm_header hdr;
	const struct nlmsghdr *ev;
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	struct encd_genl nl, events;
	int fd;

	if (unshare(CLONE_NEWNET))
		return 10;
	if (encd_genl_open(&nl) || encd_genl_open(&events) || encd_genl_join_events(&events))
		return 11;
	if (gcomm_dump(&nl, -1, -1, &gs, &rep) || gs.n != 0)
		return 12;
	if (gcomm_get(&nl, 20, 0, &gs, &rep) != -ENOENT)
		return 13;
	fd = encd_open();
	if (fd < 0)
		return 14;
	/* The initial namespace's comm on core 20: neither read nor attached. */
	if (encd_get(fd, 20, 0, &hdr) != ENOENT)
		return 19;
	if (encd_build(fd, 20, 0, 2, 0, NULL) != EBUSY ||
	    !strstr(encd_msg, "another network namespace"))
		return 20;
	if (encd_gcomm(fd, ENCD_IOC_VALIDATE_GLOBAL_COMM, 0, 20, 0, 2, 0, NULL) != EBUSY)
		return 21;
	if (encd_build(fd, 21, 1, 2, 0, NULL))
		return 14;
	ev = encd_genl_next_event(&events, 2000);
	if (!ev || encd_genl_cmd(ev) != ENCD_NL_CMD_GCOMM_ADD_NTF)
		return 15;
	if (gcomm_dump(&nl, -1, -1, &gs, &rep) || gs.n != 1)
		return 16;
	gcomms_free(&gs);
	/* The parent looks, then lets us go. */
	if (encd_send_byte(c->to_parent[1]) || encd_wait_byte(c->to_child[0], 30))
		return 17;
	/* The parent's new comm is none of this namespace's business. */
	if (encd_genl_next_event(&events, 300))
		return 18;
	return 0;
}

/* In yet another namespace, nothing of either. */
static int other_netns(void *arg)
{
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	struct encd_genl nl;

	if (unshare(CLONE_NEWNET) || encd_genl_open(&nl))
		return 10;
	return gcomm_dump(&nl, -1, -1, &gs, &rep) || gs.n ? 11 : 0;
}

TEST_F(nl, each_netns_sees_and_attaches_to_its_own_comms_only)
{
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	struct encd_glb_comm_header hdr;
	struct netns_ctx c;
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	struct encd_genl events;
	int status;
	pid_t pid;

	ASSERT_EQ(0, pipe(c.to_parent));
	ASSERT_EQ(0, pipe(c.to_child));
	ASSERT_EQ(0, encd_genl_open(&events));
	ASSERT_EQ(0, encd_genl_join_events(&events));
	test_cmd(encd_build(self->fd, 20, 0, 2, 0, NULL));
	ASSERT_NE(NULL, encd_genl_next_event(&events, 2000));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(netns_child(&c));
	ASSERT_EQ(0, encd_wait_byte(c.to_parent[0], 30));

	/* The initial namespace sees its own comm only, hears nothing of the child's. */
	ASSERT_EQ(0, gcomm_dump(&self->nl, -1, -1, &gs, &rep));
	ASSERT_EQ(1, gs.n);
	encd_genl_parse(gs.msg[0], tb, ENCD_A_GCOMM_MAX);
	ASSERT_EQ(20, a_u32(tb[ENCD_A_GCOMM_NEC_DEV]));
	gcomms_free(&gs);
	ASSERT_EQ(-ENOENT, gcomm_get(&self->nl, 21, 0, &gs, &rep));
	ASSERT_EQ(NULL, encd_genl_next_event(&events, 300));
	test_err(ENOENT, "No global comm on core 21 context 0", encd_get(self->fd, 21, 0, &hdr));
	test_err(EBUSY, NULL, encd_build(self->fd, 21, 1, 2, 0, NULL));
	ASSERT_EQ(0, in_child(other_netns, NULL));

	test_cmd(encd_build(self->fd, 22, 0, 2, 0, NULL));
	ASSERT_EQ(0, encd_send_byte(c.to_child[1]));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("the namespace's child was killed by signal %d", WTERMSIG(status));
	}
	ASSERT_EQ(0, WEXITSTATUS(status));
	encd_genl_close(&events);
}

/* --- malformed requests get extended acks, never a kernel report --- */

struct bad_case {
	const char *name;
	uint8_t cmd;
	uint16_t flags;
	uint16_t type;		/* the attribute sent, 0 for none */
	uint16_t len;		/* its payload length */
	uint32_t value;
	int err;
	bool blames;		/* the ack points at the attribute */
};

static const struct bad_case bad_cases[] = {
	{ "u32 sent as 8 bytes", ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP, ENCD_A_GCOMM_NEC_DEV, 8, 1,
	  -EINVAL, true },
	{ "u32 sent as 2 bytes", ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP, ENCD_A_GCOMM_CTX, 2, 1,
	  -EINVAL, true },
	{ "empty u32", ENCD_NL_CMD_TOPO_SET, 0, ENCD_A_TOPO_POD_SZ, 0, 0, -EINVAL, true },
	{ "ctx out of range", ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP, ENCD_A_GCOMM_CTX, 4, 2, -ERANGE,
	  true },
	{ "core out of range", ENCD_NL_CMD_NODE_GET, NLM_F_DUMP, ENCD_A_NODE_NEC_DEV, 4, 256,
	  -ERANGE, true },
	{ "stream out of range", ENCD_NL_CMD_NODE_GET, NLM_F_DUMP, ENCD_A_NODE_STREAM, 4, 4,
	  -ERANGE, true },
	{ "pod type out of range", ENCD_NL_CMD_TOPO_SET, 0, ENCD_A_TOPO_POD_TYPE, 4, 4, -ERANGE,
	  true },
	{ "reply-only attribute in a request", ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP,
	  ENCD_A_GCOMM_SERIAL, 8, 1, -EINVAL, true },
	{ "read-only topology fact", ENCD_NL_CMD_TOPO_SET, 0, ENCD_A_TOPO_NUM_VCORES, 4, 8,
	  -EINVAL, true },
	{ "attribute type beyond any set", ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP, 200, 4, 1, -EINVAL,
	  true },
	{ "attribute to a command that takes none", ENCD_NL_CMD_TOPO_GET, 0, 1, 4, 1, -EINVAL,
	  true },
	{ "reply attribute to module-get", ENCD_NL_CMD_MODULE_GET, 0,
	  ENCD_A_MODULE_ALLOW_INSECURE_WORLDS, 1, 1, -EINVAL, true },
	{ "dump of a do-only command", ENCD_NL_CMD_TOPO_GET, NLM_F_DUMP, 0, 0, 0, -EOPNOTSUPP,
	  false },
	{ "do of a dump-only command", ENCD_NL_CMD_VCORE_GET, 0, 0, 0, 0, -EOPNOTSUPP, false },
	{ "world host of a core out of range", ENCD_NL_CMD_WORLD_HOST_GET, NLM_F_DUMP,
	  ENCD_A_WORLD_HOST_NEC_DEV, 4, 256, -ERANGE, true },
	{ "reply attribute to world-host-get", ENCD_NL_CMD_WORLD_HOST_GET, NLM_F_DUMP,
	  ENCD_A_WORLD_HOST_INDEX, 4, 1, -EINVAL, true },
	{ "do of world-host-get", ENCD_NL_CMD_WORLD_HOST_GET, 0, 0, 0, 0, -EOPNOTSUPP, false },
	{ "do of news-host-get", ENCD_NL_CMD_NEWS_HOST_GET, 0, 0, 0, 0, -EOPNOTSUPP, false },
	{ "unknown command", 200, 0, 0, 0, 0, -EOPNOTSUPP, false },
	{ "notification sent as a request", ENCD_NL_CMD_GCOMM_ADD_NTF, 0, 0, 0, 0, -EOPNOTSUPP,
	  false },
};

TEST_F(nl, malformed_requests_get_extended_acks)
{
	struct encd_genl_reply rep;
	struct encd_genl_req r;
	uint64_t v64;
	uint32_t off;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];

		encd_genl_req_init(&r, self->nl.family, c->cmd, c->flags);
		off = 0;
		if (c->type) {
			v64 = c->value;
			off = encd_genl_req_put(&r, c->type, &v64, c->len);
		}
		encd_genl_talk(&self->nl, &r, NULL, NULL, &rep);
		EXPECT_EQ(c->err, rep.err) {
			TH_LOG("%s: %d (%s)", c->name, rep.err, rep.msg);
		}
		if (c->blames) {
			EXPECT_EQ(off, rep.offs) {
				TH_LOG("%s: blamed offset %u, not %u", c->name, rep.offs, off);
			}
			EXPECT_NE(0, rep.msg[0]) {
				TH_LOG("%s: no message", c->name);
			}
		}
	}
}

TEST_F(nl, missing_attributes_are_named)
{
	struct encd_genl_reply rep;
	struct encd_genl_req r;

	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_GCOMM_GET, 0);
	ASSERT_EQ(-EINVAL, encd_genl_talk(&self->nl, &r, NULL, NULL, &rep));
	ASSERT_EQ(ENCD_A_GCOMM_NEC_DEV, rep.miss_type);

	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_GCOMM_GET, 0);
	encd_genl_req_put_u32(&r, ENCD_A_GCOMM_NEC_DEV, 0);
	ASSERT_EQ(-EINVAL, encd_genl_talk(&self->nl, &r, NULL, NULL, &rep));
	ASSERT_EQ(ENCD_A_GCOMM_CTX, rep.miss_type);
	ASSERT_STREQ("both the core (nec-dev) and the context are needed", rep.msg);
}

TEST_F(nl, truncated_and_nonzero_reserved_headers_are_refused)
{
	struct encd_genl_reply rep;
	struct encd_genl_req r;
	struct nlattr *a;

	/* An attribute that claims more bytes than the message has. */
	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_GCOMM_GET, NLM_F_DUMP);
	encd_genl_req_put_u32(&r, ENCD_A_GCOMM_NEC_DEV, 1);
	a = (struct nlattr *)r.attrs;
	a->nla_len = 64;
	ASSERT_EQ(-EINVAL, encd_genl_talk(&self->nl, &r, NULL, NULL, &rep));

	/* genlmsghdr.reserved is checked for every command. */
	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_TOPO_GET, 0);
	r.g.reserved = 1;
	ASSERT_EQ(-EINVAL, encd_genl_talk(&self->nl, &r, NULL, NULL, &rep));
	ASSERT_NE(0, rep.msg[0]);

	/* The family still answers. */
	encd_genl_req_init(&r, self->nl.family, ENCD_NL_CMD_TOPO_GET, 0);
	ASSERT_EQ(0, encd_genl_talk(&self->nl, &r, NULL, NULL, &rep));
}

/* --- encctl's JSON against libenc --- */

static const char *encctl_path(void)
{
	static char path[512];
	const char *env = getenv("ENCCTL"), *build = getenv("ENCD_BUILD");

	if (env)
		return env;
	if (build)
		snprintf(path, sizeof(path), "%s/../tools/encctl", build);
	else
		snprintf(path, sizeof(path), "../build/tools/encctl");
	return path;
}

/*
 * Runs encctl with @args, through @runas (a command such as setpriv's, or
 * ""), and parses its standard output as JSON.
 */
static struct json_object *encctl_json_as(const char *runas, const char *args)
{
	char cmd[1024], *out = NULL;
	size_t len = 0, n;
	struct json_object *j;
	FILE *p, *mem;
	char buf[4096];

	snprintf(cmd, sizeof(cmd), "%s%s %s", runas, encctl_path(), args);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	mem = open_memstream(&out, &len);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(mem);
	if (pclose(p)) {
		free(out);
		return NULL;
	}
	j = json_tokener_parse(out);
	free(out);
	return j;
}

static struct json_object *encctl_json(const char *args)
{
	return encctl_json_as("", args);
}

static int64_t j_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -12345;
}

static uint64_t j_uint(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_uint64(v) : 12345;
}

static const char *j_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "(missing)";
}

static const char *const pod_names[] = { "none", "p2p", "switch", "invalid" };
static const char *const state_names[] = { "?", "built", "bootstrapped" };

/* The fields `status` and `comm show` both carry, against the library's header. */
static void check_json_common(struct __test_metadata *_metadata, struct json_object *c,
			      const struct encd_glb_comm_header *h)
{
	struct json_object *v;

	ASSERT_EQ(h->nec_dev_id, j_int(c, "nec_dev"));
	ASSERT_EQ(h->ctx_id, j_int(c, "ctx"));
	ASSERT_EQ(h->serial, j_uint(c, "serial"));
	ASSERT_EQ(h->g_device_id, j_int(c, "g_device_id"));
	ASSERT_EQ(h->g_device_cnt, j_int(c, "g_device_cnt"));
	ASSERT_EQ(h->virtual_server_id, j_int(c, "virtual_server_id"));
	ASSERT_STREQ(pod_names[h->pod_type], j_str(c, "pod_type"));
	ASSERT_EQ(h->pod_node_id, j_int(c, "pod_node_id"));
	ASSERT_EQ(h->pod_sz, j_int(c, "pod_sz"));
	ASSERT_STREQ(h->root_comm_id, j_str(c, "root_comm_id"));
	ASSERT_TRUE(json_object_object_get_ex(c, "check_sigs", &v));
	ASSERT_EQ(!!h->check_sigs, json_object_get_boolean(v));
	ASSERT_EQ(h->holders, j_int(c, "holders"));
	ASSERT_STREQ(state_names[h->state], j_str(c, "state"));
	ASSERT_TRUE(json_object_object_get_ex(c, "nodes", &v));
	ASSERT_TRUE(json_object_is_type(v, json_type_array));
}

static void check_json_full(struct __test_metadata *_metadata, struct json_object *c,
			    const struct encd_glb_comm_header *h)
{
	check_json_common(_metadata, c, h);
	ASSERT_EQ(h->vtpb_idx, j_int(c, "vtpb_idx"));
	ASSERT_EQ(h->mla_idx, j_int(c, "mla_idx"));
	ASSERT_EQ(h->host_device_id, j_int(c, "host_device_id"));
	ASSERT_EQ(h->routing_id, j_int(c, "routing_id"));
	ASSERT_EQ(h->reservation_id, j_uint(c, "reservation_id"));
}

/* The comms this test builds through libenc: (vnc, g_device_id, ctx, check_sigs). */
static const __u32 lib_comms[][4] = {
	{ 2, 0, 0, 1 }, { 3, 1, 0, 0 }, { 3, 1, 1, 1 }, { 130, 5, 1, 0 },
};

#define N_LIB_COMMS	ARRAY_SIZE(lib_comms)

static void build_lib_comms(struct __test_metadata *_metadata,
			    struct encd_glb_comm_header *hdrs)
{
	size_t i;

	ASSERT_EQ(NRT_SUCCESS, enc_init());
	for (i = 0; i < N_LIB_COMMS; i++) {
		ASSERT_EQ(NRT_SUCCESS, enc_init_global_comm(lib_comms[i][0], lib_comms[i][1], 8,
							    lib_comms[i][2], "10.1.2.3:7000",
							    lib_comms[i][3])) {
			TH_LOG("%s", enc_last_error());
		}
		ASSERT_EQ(NRT_SUCCESS, enc_get_global_comm_header(lib_comms[i][0], lib_comms[i][2],
								  &hdrs[i]));
	}
}

TEST_F(nl, encctl_status_and_comm_show_json_match_the_library)
{
	struct encd_glb_comm_header hdrs[N_LIB_COMMS];
	struct json_object *j, *comms, *host;
	size_t i;

	ASSERT_EQ(0, topo_set(&self->nl, ENCD_POD_TYPE_P2P, 1, 4, 1ULL << 40, 0));
	build_lib_comms(_metadata, hdrs);

	j = encctl_json("-j comm show");
	ASSERT_NE(NULL, j);
	ASSERT_TRUE(json_object_is_type(j, json_type_array));
	ASSERT_EQ(N_LIB_COMMS, json_object_array_length(j));
	for (i = 0; i < N_LIB_COMMS; i++)
		check_json_full(_metadata, json_object_array_get_idx(j, i), &hdrs[i]);
	json_object_put(j);

	j = encctl_json("-j comm show dev 3 ctx 1");
	ASSERT_NE(NULL, j);
	ASSERT_EQ(1, json_object_array_length(j));
	check_json_full(_metadata, json_object_array_get_idx(j, 0), &hdrs[2]);
	json_object_put(j);

	j = encctl_json("-j -p status");
	ASSERT_NE(NULL, j);
	ASSERT_TRUE(json_object_object_get_ex(j, "host", &host));
	ASSERT_EQ(NUM_VCORES, j_int(host, "num_vcores"));
	ASSERT_STREQ("p2p", j_str(host, "pod_type"));
	ASSERT_EQ(1, j_int(host, "pod_node_id"));
	ASSERT_EQ(4, j_int(host, "pod_sz"));
	ASSERT_EQ(1ULL << 40, j_uint(host, "reservation_id"));
	ASSERT_TRUE(json_object_object_get_ex(j, "comms", &comms));
	ASSERT_EQ(N_LIB_COMMS, json_object_array_length(comms));
	for (i = 0; i < N_LIB_COMMS; i++)
		check_json_common(_metadata, json_object_array_get_idx(comms, i), &hdrs[i]);
	json_object_put(j);
	enc_destroy_gcomm_locks();
}

TEST_F(nl, module_get_and_encctl_status_follow_allow_insecure_worlds)
{
	struct json_object *j, *v;
	struct encd_genl_reply rep;
	int allow;

	/* As the module was loaded (the runner gives no such parameter). */
	ASSERT_EQ(0, self->insecure);
	ASSERT_EQ(0, module_get(&self->nl, &rep));

	for (allow = 1; allow >= 0; allow--) {
		ASSERT_EQ(0, encd_param_set(INSECURE_PARAM, allow));
		ASSERT_EQ(allow, param_bool(INSECURE_PARAM));
		ASSERT_EQ(allow, module_get(&self->nl, &rep));
		/* A module setting, the same from every namespace. */
		ASSERT_EQ(allow, in_child(module_get_in_new_netns, NULL));
		j = encctl_json("-j status");
		ASSERT_NE(NULL, j);
		ASSERT_TRUE(json_object_object_get_ex(j, "allow_insecure_worlds", &v));
		ASSERT_TRUE(json_object_is_type(v, json_type_boolean));
		ASSERT_EQ(allow, json_object_get_boolean(v));
		json_object_put(j);
	}
}

TEST_F(nl, module_get_and_encctl_status_follow_networks)
{
	static const char *const set[] = { " 10.0.0.0/8 ,FD00::1\n", "\n" };
	static const char *const shown[] = { "10.0.0.0/8,fd00::1/128", "" };
	struct json_object *j, *v;
	char nets[1024];
	unsigned int i;

	/* As the module was loaded: any address. */
	ASSERT_EQ(0, module_get_networks(&self->nl, nets, sizeof(nets)));
	ASSERT_STREQ("", nets);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, encd_write_str(ENCD_PARAMS NETWORKS_PARAM, set[i]));
		ASSERT_EQ(0, module_get_networks(&self->nl, nets, sizeof(nets)));
		ASSERT_STREQ(shown[i], nets);
		j = encctl_json("-j status");
		ASSERT_NE(NULL, j);
		ASSERT_TRUE(json_object_object_get_ex(j, "networks", &v));
		ASSERT_TRUE(json_object_is_type(v, json_type_string));
		ASSERT_STREQ(shown[i], json_object_get_string(v));
		json_object_put(j);
	}
	/* A bad value is refused, and changes nothing. */
	ASSERT_EQ(EINVAL, encd_write_str(ENCD_PARAMS NETWORKS_PARAM, "10.0.0.0/40"));
	ASSERT_EQ(0, module_get_networks(&self->nl, nets, sizeof(nets)));
	ASSERT_STREQ("", nets);
}

/* Reads one line from @fp within @ms; NULL on timeout or end. */
static char *read_line(FILE *fp, int ms, char *buf, int len)
{
	struct pollfd pfd = { .fd = fileno(fp), .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return NULL;
	return fgets(buf, len, fp);
}

TEST_F(nl, encctl_monitor_json_prints_one_event_per_line)
{
	struct json_object *ev, *comm;
	int out[2], status, probes;
	char line[4096];
	FILE *fp;
	pid_t pid;

	ASSERT_EQ(0, pipe(out));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* Should this test fail half way, the monitor goes with it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(out[1], 1);
		execl(encctl_path(), "encctl", "-j", "monitor", NULL);
		_exit(127);
	}
	close(out[1]);
	fp = fdopen(out[0], "r");
	ASSERT_NE(NULL, fp);
	/* Unbuffered, so that poll() on the pipe sees every line not yet read. */
	setvbuf(fp, NULL, _IONBF, 0);
	/* Wait until the monitor listens: probe until it reports a probe. */
	for (probes = 0; probes < 100; probes++) {
		test_cmd(encd_build(self->fd, 250, 0, 1, 1, NULL));
		test_cmd(encd_release(self->fd, 250, 1));
		if (read_line(fp, 100, line, sizeof(line)))
			break;
	}
	ASSERT_GT(100, probes);
	/* Drain what the probes left. */
	while (read_line(fp, 300, line, sizeof(line)))
		;

	test_cmd(encd_build(self->fd, 77, 6, 8, 1, NULL));
	test_cmd(encd_release(self->fd, 77, 1));
	ASSERT_NE(NULL, read_line(fp, 3000, line, sizeof(line)));
	ev = json_tokener_parse(line);
	ASSERT_NE(NULL, ev);
	ASSERT_STREQ("gcomm-add", j_str(ev, "event"));
	ASSERT_TRUE(json_object_object_get_ex(ev, "comm", &comm));
	ASSERT_EQ(77, j_int(comm, "nec_dev"));
	ASSERT_EQ(1, j_int(comm, "ctx"));
	ASSERT_EQ(6, j_int(comm, "g_device_id"));
	ASSERT_EQ(8, j_int(comm, "g_device_cnt"));
	ASSERT_EQ(1, j_int(comm, "holders"));
	json_object_put(ev);
	ASSERT_NE(NULL, read_line(fp, 3000, line, sizeof(line)));
	ev = json_tokener_parse(line);
	ASSERT_NE(NULL, ev);
	ASSERT_STREQ("gcomm-del", j_str(ev, "event"));
	ASSERT_TRUE(json_object_object_get_ex(ev, "comm", &comm));
	ASSERT_EQ(77, j_int(comm, "nec_dev"));
	ASSERT_EQ(0, j_int(comm, "holders"));
	json_object_put(ev);

	/* Interrupted, it stops cleanly. */
	kill(pid, SIGINT);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	fclose(fp);
}

/* --- a world as big as this VM can form: nodes in several messages --- */

/*
 * One rank on every core: the world node of each rank has 256 participants,
 * ENCD_PARTICIPANTS_PER_MSG a message. (A world's 16384 ranks, 128 times
 * this, are only reached with remote ranks; the sizes involved do not grow
 * with the world but with ENCD_PARTICIPANTS_PER_MSG, and the module checks
 * at build time that its largest message fits the smallest part of a dump.)
 */
#define BIG_N		NUM_VCORES
#define BIG_ROOT	"127.0.0.1:34567"
#define BIG_MSGS	((BIG_N + ENCD_PARTICIPANTS_PER_MSG - 1) / ENCD_PARTICIPANTS_PER_MSG)

struct big_node {
	uint32_t nec_dev, ctx, stream, rank, rank_n, state, n_part;
	uint64_t serial;
	bool global;
	int msgs, first_part, last_part;
	uint32_t part[BIG_N];
};

/* A NODE_GET dump put back together, and what broke the protocol if anything did. */
struct big_dump {
	const struct encd_genl_reply *rep;	/* the part each message comes in */
	int n;
	struct big_node node[BIG_N];
	char bad[256];
};

/* Takes one NODE_GET message into @d; says what is wrong with it, if anything. */
static const char *big_take(struct big_dump *d, const struct nlmsghdr *nlh, uint32_t *off)
{
	const struct nlattr *tb[ENCD_A_NODE_MAX + 1];
	struct big_node *x = d->n ? &d->node[d->n - 1] : NULL;
	uint32_t count, want;
	int type;

	encd_genl_parse(nlh, tb, ENCD_A_NODE_MAX);
	if (!tb[ENCD_A_NODE_PARTICIPANTS_OFFSET] || !tb[ENCD_A_NODE_PARTICIPANTS] ||
	    encd_nla_len(tb[ENCD_A_NODE_PARTICIPANTS]) % 4)
		return "no offset or participants";
	*off = a_u32(tb[ENCD_A_NODE_PARTICIPANTS_OFFSET]);
	count = encd_nla_len(tb[ENCD_A_NODE_PARTICIPANTS]) / 4;
	if (!*off) {
		if (d->n == BIG_N)
			return "more nodes than the world's";
		x = &d->node[d->n++];
		memset(x, 0, sizeof(*x));
		x->nec_dev = a_u32(tb[ENCD_A_NODE_NEC_DEV]);
		x->ctx = a_u32(tb[ENCD_A_NODE_CTX]);
		x->stream = a_u32(tb[ENCD_A_NODE_STREAM]);
		x->serial = a_u64(tb[ENCD_A_NODE_GCOMM_SERIAL]);
		x->rank = a_u32(tb[ENCD_A_NODE_RANK]);
		x->rank_n = a_u32(tb[ENCD_A_NODE_RANK_N]);
		x->state = a_u32(tb[ENCD_A_NODE_STATE]);
		x->global = tb[ENCD_A_NODE_GLOBAL];
		x->first_part = d->rep->parts;
		if (!tb[ENCD_A_NODE_REFCNT] || !tb[ENCD_A_NODE_GROUPS] || !tb[ENCD_A_NODE_PHASE])
			return "a node's first message without its state";
	} else {
		if (!x || *off != x->n_part)
			return "participants that do not follow the node's";
		/* The next messages of a node say which node, and nothing else. */
		for (type = 1; type <= ENCD_A_NODE_MAX; type++) {
			bool want_it = type == ENCD_A_NODE_NEC_DEV || type == ENCD_A_NODE_CTX ||
				       type == ENCD_A_NODE_STREAM || type == ENCD_A_NODE_RANK_N ||
				       type == ENCD_A_NODE_GCOMM_SERIAL ||
				       type == ENCD_A_NODE_PARTICIPANTS ||
				       type == ENCD_A_NODE_PARTICIPANTS_OFFSET;

			if (type != ENCD_A_NODE_PAD && want_it != !!tb[type])
				return "a next message with the wrong attributes";
		}
		if (a_u32(tb[ENCD_A_NODE_NEC_DEV]) != x->nec_dev ||
		    a_u32(tb[ENCD_A_NODE_CTX]) != x->ctx ||
		    a_u32(tb[ENCD_A_NODE_STREAM]) != x->stream ||
		    a_u64(tb[ENCD_A_NODE_GCOMM_SERIAL]) != x->serial ||
		    a_u32(tb[ENCD_A_NODE_RANK_N]) != x->rank_n)
			return "a next message of another node";
	}
	want = x->rank_n - *off < ENCD_PARTICIPANTS_PER_MSG ? x->rank_n - *off :
							       ENCD_PARTICIPANTS_PER_MSG;
	if (count != want || *off + count > BIG_N)
		return "not as many participants as there should be";
	memcpy(x->part + *off, encd_nla_data(tb[ENCD_A_NODE_PARTICIPANTS]), count * 4);
	x->n_part += count;
	x->msgs++;
	x->last_part = d->rep->parts;
	return NULL;
}

static void big_node_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct big_dump *d = arg;
	uint32_t off = 0;
	const char *bad = big_take(d, nlh, &off);

	if (bad && !d->bad[0])
		snprintf(d->bad, sizeof(d->bad), "node %d, offset %u: %s", d->n, off, bad);
}

/* NODE_GET dumped on a new socket whose recv() asks for @recv_len bytes. */
static int big_dump(struct big_dump *d, size_t recv_len, struct encd_genl_reply *rep)
{
	struct encd_genl *nl = malloc(sizeof(*nl));
	struct encd_genl_req r;
	int err;

	if (!nl)
		return -ENOMEM;
	err = encd_genl_open_recv(nl, recv_len);
	if (!err) {
		memset(d, 0, sizeof(*d));
		d->rep = rep;
		encd_genl_req_init(&r, nl->family, ENCD_NL_CMD_NODE_GET, NLM_F_DUMP);
		err = encd_genl_talk(nl, &r, big_node_cb, d, rep);
		encd_genl_close(nl);
	}
	free(nl);
	return err;
}

/* The world's BIG_N ranks are all there, ready, each node with every participant. */
static bool big_world_ready(struct big_dump *d)
{
	struct encd_genl_reply rep;
	int i;

	if (big_dump(d, 0, &rep) || d->n != BIG_N || d->bad[0])
		return false;
	for (i = 0; i < d->n; i++)
		if (!d->node[i].global || d->node[i].state != ENCD_NODE_READY ||
		    d->node[i].n_part != BIG_N)
			return false;
	return true;
}

static void world_kill(struct encd_genl *nl, pid_t world)
{
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	int tries;

	kill(-world, SIGKILL);
	waitpid(world, NULL, 0);
	/* The ranks are not our children: wait for their comms to go. */
	for (tries = 0; tries < 300; tries++) {
		if (gcomm_dump(nl, -1, -1, &gs, &rep) || !gs.n)
			break;
		gcomms_free(&gs);
		usleep(100 * 1000);
	}
	gcomms_free(&gs);
}

/* The world node's participants in a comm of `encctl -j` output: 0..BIG_N-1? */
static bool json_world_node_whole(struct json_object *comm)
{
	struct json_object *nodes, *node, *global, *part;
	size_t i, j;

	if (!json_object_object_get_ex(comm, "nodes", &nodes))
		return false;
	for (i = 0; i < json_object_array_length(nodes); i++) {
		node = json_object_array_get_idx(nodes, i);
		if (!json_object_object_get_ex(node, "global", &global) ||
		    !json_object_get_boolean(global))
			continue;
		if (!json_object_object_get_ex(node, "participants", &part) ||
		    json_object_array_length(part) != BIG_N)
			return false;
		for (j = 0; j < BIG_N; j++)
			if (json_object_get_int64(json_object_array_get_idx(part, j)) != (int64_t)j)
				return false;
		return true;
	}
	return false;
}

TEST_F_TIMEOUT(nl, nodes_of_a_256_rank_world_are_split_and_put_back_together, 900)
{
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	struct big_dump *d = malloc(sizeof(*d));
	struct json_object *j, *comms;
	int i, k, tries, straddles = 0;
	struct gcomms gs = {};
	struct encd_genl_reply rep;
	size_t recv_len;
	uint32_t p;

	ASSERT_NE(NULL, d);
	self->world = fork();
	ASSERT_LE(0, self->world);
	if (!self->world) {
		setpgid(0, 0);
		/* The ranks' lines are not the test's. */
		dup2(open("/dev/null", O_WRONLY), 1);
		execl(encctl_path(), "encctl", "world", "launch", "-n", "256", "--root", BIG_ROOT,
		      "--hold", "3600", "--timeout-ms", "300000", NULL);
		_exit(127);
	}
	setpgid(self->world, self->world);
	for (tries = 0; tries < 600 && !big_world_ready(d); tries++)
		sleep(1);
	ASSERT_GT(600, tries) {
		TH_LOG("%d world nodes after 10 minutes%s%s", d->n, d->bad[0] ? ": " : "",
		       d->bad);
	}

	/*
	 * Parts of many sizes (each socket's recv() size bounds the parts it
	 * gets): every dump is whole, and in some a node's messages straddle
	 * two parts.
	 */
	for (k = 0; k < 20; k++) {
		recv_len = 4096 + k * 640;
		ASSERT_EQ(0, big_dump(d, recv_len, &rep));
		ASSERT_STREQ("", d->bad);
		ASSERT_FALSE(rep.intr);
		ASSERT_EQ(BIG_N, d->n) {
			TH_LOG("parts of at most %zu bytes", recv_len);
		}
		ASSERT_EQ(BIG_N * BIG_MSGS, rep.msgs);
		ASSERT_LT(1, rep.parts);
		for (i = 0; i < d->n; i++) {
			ASSERT_TRUE(d->node[i].global);
			ASSERT_EQ(BIG_N, d->node[i].rank_n);
			ASSERT_EQ(BIG_MSGS, d->node[i].msgs);
			ASSERT_EQ(d->node[i].nec_dev, d->node[i].rank);
			for (p = 0; p < BIG_N; p++)
				ASSERT_EQ(p, d->node[i].part[p]);
			straddles += d->node[i].first_part != d->node[i].last_part;
		}
	}
	ASSERT_LT(0, straddles);
	TH_LOG("%d messages a node; %d nodes of 20 dumps straddled two parts", BIG_MSGS,
	       straddles);

	/*
	 * Every rank is in this namespace: one host agent, the root's, with no
	 * other host to talk to. Each comm has it, and it sent nothing.
	 */
	ASSERT_EQ(0, gcomm_dump(&self->nl, -1, -1, &gs, &rep));
	ASSERT_EQ(BIG_N, gs.n);
	for (i = 0; i < gs.n; i++) {
		encd_genl_parse(gs.msg[i], tb, ENCD_A_GCOMM_MAX);
		ASSERT_NE(NULL, tb[ENCD_A_GCOMM_HOST_TX_BYTES]);
		ASSERT_EQ(0, a_u64(tb[ENCD_A_GCOMM_HOST_TX_BYTES]));
	}
	gcomms_free(&gs);

	/* encctl puts them back together too. */
	j = encctl_json("-j comm show");
	ASSERT_NE(NULL, j);
	ASSERT_EQ(BIG_N, json_object_array_length(j));
	for (i = 0; i < BIG_N; i++)
		ASSERT_TRUE(json_world_node_whole(json_object_array_get_idx(j, i)));
	json_object_put(j);
	j = encctl_json("-j status");
	ASSERT_NE(NULL, j);
	ASSERT_TRUE(json_object_object_get_ex(j, "comms", &comms));
	ASSERT_EQ(BIG_N, json_object_array_length(comms));
	for (i = 0; i < BIG_N; i++)
		ASSERT_TRUE(json_world_node_whole(json_object_array_get_idx(comms, i)));
	json_object_put(j);
	free(d);
}

/* --- whose a comm is, and who is told --- */

#define OWNED_CORE	11
#define OWNER_UID	1000

/*
 * As user *@arg: 1 when a get and a dump of the owned comm both say its
 * owner, 2 when neither does, or another number saying what went wrong.
 */
static int owner_seen_by(void *arg)
{
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	uid_t uid = *(uid_t *)arg;
	struct encd_genl_reply rep;
	struct gcomms gs = {};
	struct encd_genl nl;
	int seen[2], i;

	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		return 10;
	if (encd_genl_open(&nl))
		return 11;
	if (gcomm_get(&nl, OWNED_CORE, 0, &gs, &rep) || gs.n != 1)
		return 12;
	if (gcomm_dump(&nl, OWNED_CORE, 0, &gs, &rep) || gs.n != 2)
		return 13;
	for (i = 0; i < 2; i++) {
		encd_genl_parse(gs.msg[i], tb, ENCD_A_GCOMM_MAX);
		seen[i] = !tb[ENCD_A_GCOMM_OWNER_UID] ? 2 :
			  a_u32(tb[ENCD_A_GCOMM_OWNER_UID]) == OWNER_UID ? 1 : 14;
	}
	gcomms_free(&gs);
	return seen[0] == seen[1] ? seen[0] : 15;
}

/* The owner_uid of core OWNED_CORE's comm in encctl's JSON comms; -1 for null. */
static int64_t json_owner(struct json_object *comms)
{
	struct json_object *c, *v;
	size_t i;

	for (i = 0; i < json_object_array_length(comms); i++) {
		c = json_object_array_get_idx(comms, i);
		if (j_int(c, "nec_dev") != OWNED_CORE)
			continue;
		if (!json_object_object_get_ex(c, "owner_uid", &v))
			return -2;
		return v ? json_object_get_int64(v) : -1;
	}
	return -3;
}

TEST_F(nl, a_comms_owner_is_told_to_root_and_to_the_owner_alone)
{
	const struct nlattr *tb[ENCD_A_GCOMM_MAX + 1];
	struct encd_genl_reply rep;
	struct json_object *j, *comms;
	struct gcomms gs = {};
	uid_t uid;
	int err;

	ASSERT_EQ(0, setresgid(-1, OWNER_UID, -1));
	ASSERT_EQ(0, setresuid(-1, OWNER_UID, -1));
	err = encd_build(self->fd, OWNED_CORE, 0, 2, 0, NULL);
	ASSERT_EQ(0, setresuid(-1, 0, -1));
	ASSERT_EQ(0, setresgid(-1, 0, -1));
	test_cmd(err);

	ASSERT_EQ(0, gcomm_get(&self->nl, OWNED_CORE, 0, &gs, &rep));
	ASSERT_EQ(1, gs.n);
	encd_genl_parse(gs.msg[0], tb, ENCD_A_GCOMM_MAX);
	ASSERT_EQ(OWNER_UID, a_u32(tb[ENCD_A_GCOMM_OWNER_UID]));
	gcomms_free(&gs);
	uid = OWNER_UID;
	ASSERT_EQ(1, in_child(owner_seen_by, &uid));
	uid = 65534;
	ASSERT_EQ(2, in_child(owner_seen_by, &uid));

	/* encctl shows it to root, and null to another user. */
	j = encctl_json("-j comm show dev 11 ctx 0");
	ASSERT_NE(NULL, j);
	ASSERT_EQ(OWNER_UID, json_owner(j));
	json_object_put(j);
	j = encctl_json("-j status");
	ASSERT_NE(NULL, j);
	ASSERT_TRUE(json_object_object_get_ex(j, "comms", &comms));
	ASSERT_EQ(OWNER_UID, json_owner(comms));
	json_object_put(j);
	j = encctl_json_as("setpriv --reuid=65534 --regid=65534 --clear-groups ", "-j status");
	ASSERT_NE(NULL, j);
	ASSERT_TRUE(json_object_object_get_ex(j, "comms", &comms));
	ASSERT_EQ(-1, json_owner(comms));
	json_object_put(j);
}

TEST_HARNESS_MAIN
