// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failure of the bootstrap ioctls, one at a time, with the
 * kernel's fail-nth (encd_test.h): SETUP_GLOBAL_COMM,
 * INIT_REPLICA_GROUPS, COMM_BARRIER and NODE_INFO in a world of one rank,
 * and SETUP and INIT_REPLICA_GROUPS of rank 0 in a world of two ranks on
 * loopback (rank 1 in another process, not failed). Each call fails with
 * ENOMEM or succeeds; a failed one leaves nothing half made: the comm is
 * not bootstrapped, each replica group has a ready comm or none, the comm
 * can be released, and the same calls made again without a failure work.
 * The debug lane's kmemleak, after the program, finds no leak.
 *
 * Only the calling thread's allocations are points: what the module's
 * workers allocate (links, messages between hosts) is socket_failnth_test's.
 * Needs CONFIG_FAULT_INJECTION, FAILSLAB and FAIL_PAGE_ALLOC, which only the
 * debug lane's kernel has; elsewhere the program skips as a whole (exit
 * status 4).
 */
#include <enc/json.h>
#include <enc/program.h>

#include "encd_test.h"

#define VNC		1
#define CTX		0
#define TIMEOUT_MS	10000
#define PORT_BASE	45000

/* Groups 0 (stream 0), 1 and 2 (stream 1, one comm): 2 new comms, 1 pool hit. */
static const char prog_json_1[] =
	"{\"replica_groups\": ["
	" {\"group_id\": 0, \"rank\": 0, \"rank_n\": 1, \"participants\": [0]},"
	" {\"group_id\": 1, \"rank\": 0, \"rank_n\": 1, \"participants\": [0], \"stream_id\": 1},"
	" {\"group_id\": 2, \"rank\": 0, \"rank_n\": 1, \"participants\": [0], \"stream_id\": 1}],"
	" \"ops\": [{\"op\": \"all_reduce\", \"size_n\": 64, \"group\": 0},"
	"          {\"op\": \"all_gather\", \"size_n\": 64, \"group\": 1}]}";
#define PROG_GROUPS	3

/* One group of both ranks of a world of two; %d is the rank. */
static const char prog_json_2[] =
	"{\"replica_groups\": ["
	" {\"group_id\": 0, \"rank\": %d, \"rank_n\": 2, \"participants\": [0, 1]}],"
	" \"ops\": [{\"op\": \"all_reduce\", \"size_n\": 64, \"group\": 0}]}";

static int setup(int fd, __u32 vnc, struct encd_setup_global_comm *out)
{
	return encd_setup(fd, vnc, CTX, TIMEOUT_MS, out);
}

static int init_groups(int fd, __u32 vnc, struct encd_init_replica_groups *out)
{
	return encd_init_groups(fd, vnc, CTX, TIMEOUT_MS, out);
}

static int barrier_on(int fd, __u32 vnc, __u32 flags, __u32 group)
{
	return encd_barrier(fd, vnc, CTX, flags, group, TIMEOUT_MS, NULL);
}

static int barrier(int fd, __u32 flags, __u32 group)
{
	return barrier_on(fd, VNC, flags, group);
}

static int node_info(int fd, __u32 group, struct encd_node_info *ni)
{
	return encd_node_info(fd, VNC, CTX, group, ni);
}

static int build(int fd, __u32 vnc, __u32 id, __u32 cnt, const char *root)
{
	return encd_build_root(fd, vnc, id, cnt, CTX, root);
}

/* PROGRAM_LOAD of a JSON program; 0 or an errno (EINVAL: the JSON). */
static int load_json(int fd, __u32 vnc, const char *json)
{
	struct encd_program_load c = { .vnc = vnc, .ctx_id = CTX };
	struct enc_program *prog;
	size_t len;
	void *buf;
	int err;

	if (enc_program_from_json_string(json, &prog) != NRT_SUCCESS)
		return EINVAL;
	err = enc_program_encode(prog, &buf, &len) == NRT_SUCCESS ? 0 : ENOMEM;
	enc_program_free(prog);
	if (err)
		return err;
	c.prog_uptr = (uintptr_t)buf;
	c.prog_len = len;
	err = encd_cmd(fd, ENCD_IOC_PROGRAM_LOAD, &c, sizeof(c));
	free(buf);
	return err;
}

/* Every barrier of the world of one and its groups passes. */
static int all_barriers(int fd, int n_groups)
{
	int g, err;

	err = barrier(fd, 0, ENCD_GROUP_GLOBAL) ?: barrier(fd, ENCD_BARRIER_LOCAL, ENCD_GROUP_GLOBAL);
	for (g = 0; g < n_groups && !err; g++)
		err = barrier(fd, 0, g) ?: barrier(fd, ENCD_BARRIER_LOCAL, g);
	return err;
}

/* A world of one on VNC with its program's groups up, for the later calls. */
static void world_of_one(struct __test_metadata *_metadata, int fd, bool groups)
{
	test_cmd(build(fd, VNC, 0, 1, ""));
	test_cmd(setup(fd, VNC, NULL));
	if (!groups)
		return;
	test_cmd(load_json(fd, VNC, prog_json_1));
	test_cmd(init_groups(fd, VNC, NULL));
}

FIXTURE(bfail) {
	struct encd_failnth f;
	int probe;
};

FIXTURE_VARIANT(bfail) {
	enum encd_fault fault;
};

/*
 * A call's slab allocations are certain; its page allocations are not: most
 * come from a slab's refill, which depends on what the slab holds already.
 * A page walk may then reach no point, and what it reaches is counted.
 */
#define PAGES_MAYBE(variant)	((variant)->fault == ENCD_FAULT_PAGE)

FIXTURE_VARIANT_ADD(bfail, failslab) { .fault = ENCD_FAULT_SLAB };
FIXTURE_VARIANT_ADD(bfail, fail_page_alloc) { .fault = ENCD_FAULT_PAGE };

FIXTURE_SETUP(bfail)
{
	encd_failnth_setup(_metadata, &self->f);
	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
}

FIXTURE_TEARDOWN(bfail)
{
	encd_failnth_teardown(&self->f);
	close(self->probe);
}

/* The comm on VNC is gone once its only file closed. */
#define assert_gone(vnc)	test_err(ENOENT, NULL, encd_get(self->probe, vnc, CTX, NULL))

TEST_F_TIMEOUT(bfail, setup_of_a_world_of_one, 300)
{
	struct encd_failnth_walk w = {
		.fault = variant->fault, .min_points = !PAGES_MAYBE(variant), .none_ok = PAGES_MAYBE(variant),
	};
	struct encd_setup_global_comm s;
	struct encd_glb_comm_header hdr;
	struct encd_node_info ni;
	int fd, err;

	encd_require_failnth(&self->f);
	for_each_failnth(&w) {
		fd = encd_open();
		ASSERT_LE(0, fd);
		test_cmd(build(fd, VNC, 0, 1, ""));
		err = encd_failnth_call(&self->f, &w, setup(fd, VNC, &s));
		test_cmd(encd_get(fd, VNC, CTX, &hdr));
		if (err) {
			ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);
			test_err(ENOENT, NULL, node_info(fd, ENCD_GROUP_GLOBAL, &ni));
			/* Released, built and set up again, it forms. */
			test_cmd(encd_release(fd, VNC, CTX));
			assert_gone(VNC);
			test_cmd(build(fd, VNC, 0, 1, ""));
			test_cmd(setup(fd, VNC, &s));
		}
		ASSERT_EQ(ENCD_SETUP_OUT_FORMED, s.out_flags);
		test_cmd(encd_get(fd, VNC, CTX, &hdr));
		ASSERT_EQ(ENCD_GCOMM_BOOTSTRAPPED, hdr.state);
		test_cmd(all_barriers(fd, 0));
		close(fd);
		assert_gone(VNC);
	}
	encd_failnth_done(_metadata, &w);
}

TEST_F_TIMEOUT(bfail, init_replica_groups_of_a_world_of_one, 300)
{
	struct encd_failnth_walk w = {
		.fault = variant->fault, .min_points = !PAGES_MAYBE(variant), .none_ok = PAGES_MAYBE(variant),
	};
	struct encd_init_replica_groups ig;
	struct encd_node_info ni;
	int fd, err, g;

	encd_require_failnth(&self->f);
	for_each_failnth(&w) {
		fd = encd_open();
		ASSERT_LE(0, fd);
		world_of_one(_metadata, fd, false);
		test_cmd(load_json(fd, VNC, prog_json_1));
		err = encd_failnth_call(&self->f, &w, init_groups(fd, VNC, &ig));
		if (err) {
			/* Each group has a ready comm or none. */
			for (g = 0; g < PROG_GROUPS; g++) {
				err = node_info(fd, g, &ni);
				if (err) {
					ASSERT_EQ(ENOENT, err);
				} else {
					ASSERT_EQ(ENCD_NODE_READY, ni.state);
				}
			}
			/* Made again without a failure, every group comes up. */
			test_cmd(init_groups(fd, VNC, &ig));
		} else {
			ASSERT_EQ(2, ig.n_new);
			ASSERT_EQ(1, ig.n_hits);
		}
		ASSERT_EQ(PROG_GROUPS, ig.n_groups);
		test_cmd(all_barriers(fd, PROG_GROUPS));
		close(fd);
		assert_gone(VNC);
	}
	encd_failnth_done(_metadata, &w);
}

TEST_F_TIMEOUT(bfail, comm_barrier_of_a_world_of_one, 300)
{
	struct encd_failnth_walk w = { .fault = variant->fault, .none_ok = PAGES_MAYBE(variant) };
	int fd, err;

	encd_require_failnth(&self->f);
	fd = encd_open();
	ASSERT_LE(0, fd);
	world_of_one(_metadata, fd, true);
	for_each_failnth(&w) {
		err = encd_failnth_call(&self->f, &w, all_barriers(fd, PROG_GROUPS));
		if (err)
			test_cmd(all_barriers(fd, PROG_GROUPS));
	}
	encd_failnth_done(_metadata, &w);
	close(fd);
	assert_gone(VNC);
}

TEST_F_TIMEOUT(bfail, node_info_of_a_world_of_one, 300)
{
	struct encd_failnth_walk w = { .fault = variant->fault, .none_ok = PAGES_MAYBE(variant) };
	struct encd_node_info ni;
	int fd, err, g;

	encd_require_failnth(&self->f);
	fd = encd_open();
	ASSERT_LE(0, fd);
	world_of_one(_metadata, fd, true);
	for_each_failnth(&w) {
		err = encd_failnth_call(&self->f, &w, node_info(fd, ENCD_GROUP_GLOBAL, &ni) ?:
					node_info(fd, 1, &ni));
		if (err)
			test_cmd(node_info(fd, ENCD_GROUP_GLOBAL, &ni));
		for (g = 0; g < PROG_GROUPS; g++) {
			test_cmd(node_info(fd, g, &ni));
			ASSERT_EQ(ENCD_NODE_READY, ni.state);
		}
	}
	encd_failnth_done(_metadata, &w);
	close(fd);
	assert_gone(VNC);
}

/*
 * Rank 1 of a world of two on loopback, in a child: builds on core 2, sets
 * up and (@groups) brings its program's group up, then reports the first
 * errno (0 if none) on @res and its sentence after it, joins rank 0's
 * barrier over the formed comm, and holds its world until @go closes.
 */
static pid_t rank1(const char *root, bool groups, const int res_pipe[2], const int go_pipe[2])
{
	char json[sizeof(prog_json_2) + 8], c;
	pid_t pid = fork();
	int fd, err, i, res = res_pipe[1], go = go_pipe[0];

	if (pid)
		return pid;
	/* Only rank 0 may hold @go's write end, or this rank never sees it close. */
	close(go_pipe[1]);
	close(res_pipe[0]);
	fd = encd_open();
	/* A rank 1 of the test before may still be on its way out of core 2. */
	for (i = 0; (err = build(fd, 2, 1, 2, root)) == EBUSY && i < 150; i++)
		usleep(100 * 1000);
	err = err ?: setup(fd, 2, NULL);
	if (!err && groups) {
		snprintf(json, sizeof(json), prog_json_2, 1);
		err = load_json(fd, 2, json) ?: init_groups(fd, 2, NULL);
	}
	if (write(res, &err, sizeof(err)) != sizeof(err) ||
	    write(res, encd_msg, sizeof(encd_msg)) != sizeof(encd_msg))
		_exit(3);
	/* Rank 0 proves the formed world with a barrier: this rank takes part. */
	if (!err && barrier_on(fd, 2, 0, groups ? 0 : ENCD_GROUP_GLOBAL))
		_exit(4);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/*
 * What a rank may fail with when the other one's failure failed the world. A
 * root that failed before its table went out cannot tell a rank it had not
 * yet heard from; that rank, and the root made again, wait for their
 * deadline (ETIMEDOUT).
 */
static bool world_failed_errno(int err)
{
	return err == ECONNABORTED || err == ECONNRESET || err == ENOMEM || err == ENFILE ||
	       err == EADDRINUSE || err == EIO || err == ETIMEDOUT;
}

/*
 * A world of two on loopback, rank 0 here (core VNC), rank 1 in a child:
 * rank 0's SETUP (or, with @groups, its INIT_REPLICA_GROUPS) is the call
 * walked. After a failure rank 0 makes the call again (SETUP after a
 * release and a new BUILD): the world forms for both ranks, or, when the
 * failure had already failed the world, fails for both, each with a
 * sentence.
 */
static void world_of_two(struct __test_metadata *_metadata, FIXTURE_DATA(bfail) *self,
			 enum encd_fault fault, bool groups)
{
	struct encd_failnth_walk w = {
		.fault = fault, .min_points = fault != ENCD_FAULT_PAGE, .none_ok = fault == ENCD_FAULT_PAGE,
	};
	char root[32], json[sizeof(prog_json_2) + 8], msg[sizeof(encd_msg)];
	int fd, err, err1, res[2], go[2], status, port = PORT_BASE + groups * 2000 + fault * 1000;
	pid_t pid;

	snprintf(json, sizeof(json), prog_json_2, 0);
	for_each_failnth(&w) {
		snprintf(root, sizeof(root), "127.0.0.1:%d", port++);
		ASSERT_EQ(0, pipe(res));
		ASSERT_EQ(0, pipe(go));
		pid = rank1(root, groups, res, go);
		ASSERT_LE(0, pid);
		close(res[1]);
		close(go[0]);
		fd = encd_open();
		ASSERT_LE(0, fd);
		test_cmd(build(fd, VNC, 0, 2, root));
		if (groups) {
			test_cmd(setup(fd, VNC, NULL));
			test_cmd(load_json(fd, VNC, json));
			err = encd_failnth_call(&self->f, &w, init_groups(fd, VNC, NULL));
			if (err)
				err = init_groups(fd, VNC, NULL);
		} else {
			err = encd_failnth_call(&self->f, &w, setup(fd, VNC, NULL));
			if (err) {
				test_cmd(encd_release(fd, VNC, CTX));
				test_cmd(build(fd, VNC, 0, 2, root));
				err = setup(fd, VNC, NULL);
			}
		}
		ASSERT_EQ(sizeof(err1), read(res[0], &err1, sizeof(err1)));
		ASSERT_EQ(sizeof(msg), read(res[0], msg, sizeof(msg)));
		if (!err) {
			ASSERT_EQ(0, err1) {
				TH_LOG("rank 1: %s", msg);
			}
			test_cmd(barrier(fd, 0, groups ? 0 : ENCD_GROUP_GLOBAL));
		} else {
			ASSERT_TRUE(world_failed_errno(err)) {
				TH_LOG("rank 0, again: %s: %s", strerror(err), encd_msg);
			}
			ASSERT_NE(0, encd_msg[0]);
			ASSERT_TRUE(world_failed_errno(err1)) {
				TH_LOG("rank 1: %s: %s", strerror(err1), msg);
			}
			ASSERT_NE(0, msg[0]);
		}
		close(go[1]);
		close(res[0]);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
		close(fd);
		assert_gone(VNC);
		assert_gone(2);
	}
	encd_failnth_done(_metadata, &w);
}

TEST_F_TIMEOUT(bfail, setup_of_rank_0_of_a_world_of_two, 400)
{
	encd_require_failnth(&self->f);
	world_of_two(_metadata, self, variant->fault, false);
}

TEST_F_TIMEOUT(bfail, init_replica_groups_of_rank_0_of_a_world_of_two, 400)
{
	encd_require_failnth(&self->f);
	world_of_two(_metadata, self, variant->fault, true);
}

int main(int argc, char **argv)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", syscall(SYS_gettid));
	if (access(path, F_OK)) {
		ksft_print_header();
		ksft_exit_skip("no %s: the kernel lacks CONFIG_FAULT_INJECTION (the debug lane has it)\n",
			       path);
	}
	return test_harness_run(argc, argv);
}
