// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failure of the bootstrap ioctls, one at a time, with the
 * kernel's fail-nth (encd_test.h): SETUP_GLOBAL_COMM,
 * INIT_REPLICA_GROUPS, COMM_BARRIER and NODE_INFO in a world of one rank.
 * Each call fails with ENOMEM (or the errno the kernel gives an allocation
 * it could not make) or succeeds; a failed one leaves nothing half made: the comm is
 * not bootstrapped, each replica group has a ready comm or none, the comm
 * can be released, and the same calls made again without a failure work.
 * The debug lane's kmemleak, after the program, finds no leak.
 *
 * Only the calling thread's allocations are points: what the module's
 * workers allocate (links, messages between hosts) is socket_failnth_test's,
 * which fails every socket and crypto call of a forming world of two. A
 * world of two walked here would spend a rank's whole deadline at each
 * point where the root fails before its table goes out (it cannot tell a
 * rank it has not heard from), far beyond a program's time in this lane.
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

/* Groups 0 (stream 0), 1 and 2 (stream 1, one comm): 2 new comms, 1 pool hit. */
static const char prog_json_1[] =
	"{\"replica_groups\": ["
	" {\"group_id\": 0, \"rank\": 0, \"rank_n\": 1, \"participants\": [0]},"
	" {\"group_id\": 1, \"rank\": 0, \"rank_n\": 1, \"participants\": [0], \"stream_id\": 1},"
	" {\"group_id\": 2, \"rank\": 0, \"rank_n\": 1, \"participants\": [0], \"stream_id\": 1}],"
	" \"ops\": [{\"op\": \"all_reduce\", \"size_n\": 64, \"group\": 0},"
	"          {\"op\": \"all_gather\", \"size_n\": 64, \"group\": 1}]}";
#define PROG_GROUPS	3

static int setup(int fd, __u32 vnc, struct encd_setup_global_comm *out)
{
	return encd_setup(fd, vnc, CTX, TIMEOUT_MS, out);
}

static int init_groups(int fd, __u32 vnc, struct encd_init_replica_groups *out)
{
	return encd_init_groups(fd, vnc, CTX, TIMEOUT_MS, out);
}

static int barrier(int fd, __u32 flags, __u32 group)
{
	return encd_barrier(fd, VNC, CTX, flags, group, TIMEOUT_MS, NULL);
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
