// SPDX-License-Identifier: GPL-2.0
/*
 * The bootstrap ioctls at their edges, without a network: worlds of one
 * rank, worlds whose other ranks never come, every errno of SETUP, INIT,
 * COMM_BARRIER and NODE_INFO, deadlines and signals. Worlds of several ranks
 * are bootstrap_test.sh's, but for one whose ranks must come and go in a
 * set order: a rank that leaves while a replica group it is not in forms.
 */
#include <enc/bootstrap.h>
#include <enc/json.h>
#include <enc/program.h>

#include "encd_test.h"

#define VNC	1
#define CTX	0

static int setup(int fd, __u32 timeout_ms, struct encd_setup_global_comm *out)
{
	return encd_setup(fd, VNC, CTX, timeout_ms, out);
}

static int barrier(int fd, __u32 flags, __u32 group)
{
	return encd_barrier(fd, VNC, CTX, flags, group, 0, NULL);
}

static int node_info(int fd, __u32 group, struct encd_node_info *ni)
{
	return encd_node_info(fd, VNC, CTX, group, ni);
}

static int init_groups(int fd)
{
	return encd_init_groups(fd, VNC, CTX, 0, NULL);
}

static int build_root(int fd, __u32 id, __u32 cnt, const char *root)
{
	return encd_build_root(fd, VNC, id, cnt, CTX, root);
}

FIXTURE(boot) {
	int fd;
};

FIXTURE_SETUP(boot)
{
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(boot)
{
	close(self->fd);
}

TEST_F(boot, setup_without_holding_the_comm_is_enoent)
{
	test_err(ENOENT, "This file does not hold the global comm of core 1 context 0",
		 setup(self->fd, 0, NULL));
}

TEST_F(boot, a_world_of_one_forms_and_setup_is_idempotent)
{
	struct encd_setup_global_comm s;
	struct encd_glb_comm_header hdr;

	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, &s));
	ASSERT_EQ(0, s.rank);
	ASSERT_EQ(1, s.rank_n);
	ASSERT_EQ(ENCD_SETUP_OUT_FORMED, s.out_flags);
	test_cmd(setup(self->fd, 0, &s));
	ASSERT_EQ(0, s.out_flags);
	test_cmd(encd_get(self->fd, VNC, CTX, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BOOTSTRAPPED, hdr.state);
}

TEST_F(boot, the_worlds_node_is_global_ready_and_sends_nothing_alone)
{
	struct encd_node_info ni;

	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, NULL));
	test_cmd(node_info(self->fd, ENCD_GROUP_GLOBAL, &ni));
	ASSERT_EQ(0, ni.rank);
	ASSERT_EQ(1, ni.rank_n);
	ASSERT_EQ(0, ni.stream_id);
	ASSERT_EQ(ENCD_NODE_READY, ni.state);
	ASSERT_EQ(ENCD_NODE_OUT_GLOBAL, ni.out_flags);
	ASSERT_EQ(1, ni.refcnt);
	ASSERT_EQ(1, ni.local_n);
	ASSERT_EQ(0, ni.n_counters);
	ASSERT_EQ(0, ni.mismatch.valid);
}

TEST_F(boot, group_and_local_barriers_pass_in_a_world_of_one)
{
	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, NULL));
	test_cmd(barrier(self->fd, 0, ENCD_GROUP_GLOBAL));
	test_cmd(barrier(self->fd, ENCD_BARRIER_LOCAL, ENCD_GROUP_GLOBAL));
}

TEST_F(boot, commands_before_setup_are_enoent)
{
	struct encd_node_info ni;

	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_err_prefix(ENOENT, "The global comm of core 1 context 0 has not been set up",
			barrier(self->fd, 0, ENCD_GROUP_GLOBAL));
	test_err_prefix(ENOENT, "The global comm of core 1 context 0 has not been set up",
			node_info(self->fd, ENCD_GROUP_GLOBAL, &ni));
	test_err_prefix(ENOENT, "The global comm of core 1 context 0 has not been set up",
			init_groups(self->fd));
}

TEST_F(boot, a_group_without_a_comm_is_enoent)
{
	struct encd_node_info ni;

	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, NULL));
	test_err(ENOENT, "Replica group 5 has no comm: call enc_init_replica_groups",
		 node_info(self->fd, 5, &ni));
	test_err(ENOENT, "Replica group 99 has no comm: call enc_init_replica_groups",
		 barrier(self->fd, 0, 99));
}

TEST_F(boot, init_without_a_program_is_enoent)
{
	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, NULL));
	test_err(ENOENT, "No program is loaded on core 1 context 0", init_groups(self->fd));
}

TEST_F(boot, another_file_sees_the_world_but_cannot_use_it)
{
	struct encd_setup_global_comm s;
	int fd2 = encd_open();

	ASSERT_LE(0, fd2);
	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, NULL));
	test_cmd(encd_build(fd2, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(fd2, 0, &s));
	ASSERT_EQ(0, s.out_flags);
	test_err(EBUSY, "The world of core 1 context 0 belongs to another process",
		 barrier(fd2, 0, ENCD_GROUP_GLOBAL));
	close(fd2);
}

TEST_F(boot, releasing_the_owner_tears_the_world_down)
{
	struct encd_glb_comm_header hdr;
	int fd2 = encd_open();

	ASSERT_LE(0, fd2);
	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, NULL));
	test_cmd(encd_build(fd2, VNC, 0, 1, CTX, NULL));
	test_cmd(encd_release(self->fd, VNC, CTX));
	test_cmd(encd_get(fd2, VNC, CTX, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);
	/* The other holder may form it again, as its own. */
	test_cmd(setup(fd2, 0, NULL));
	test_cmd(barrier(fd2, 0, ENCD_GROUP_GLOBAL));
	close(fd2);
}

TEST_F(boot, an_unusable_root_comm_id_is_einval)
{
	test_cmd(build_root(self->fd, 0, 2, "nohost:29500"));
	test_err_prefix(EINVAL, "root_comm_id \"nohost:29500\" is not host:port",
			setup(self->fd, 0, NULL));
}

TEST_F(boot, secrets_longer_than_64_bytes_and_reserved_fields_are_einval)
{
	char key[65];
	struct encd_setup_global_comm s = {
		.vnc = VNC, .ctx_id = CTX, .secret_uptr = (uintptr_t)key, .secret_len = 65,
	};

	memset(key, 'k', sizeof(key));
	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_err(EINVAL, "A world secret is at most 64 bytes, not 65",
		 encd_cmd(self->fd, ENCD_IOC_SETUP_GLOBAL_COMM, &s, sizeof(s)));
	s.secret_len = 0;
	s.__reserved2 = 1;
	test_err(EINVAL, "reserved fields must be 0",
		 encd_cmd(self->fd, ENCD_IOC_SETUP_GLOBAL_COMM, &s, sizeof(s)));
}

TEST_F(boot, each_reserved_field_of_setup_and_init_is_einval_on_its_own)
{
	struct encd_setup_global_comm s = { .vnc = VNC, .ctx_id = CTX, .__reserved = 1 };
	struct encd_init_replica_groups ig = { .vnc = VNC, .ctx_id = CTX, .__reserved = 1 };

	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_err(EINVAL, "reserved fields must be 0",
		 encd_cmd(self->fd, ENCD_IOC_SETUP_GLOBAL_COMM, &s, sizeof(s)));
	test_cmd(setup(self->fd, 0, NULL));
	/* Refused before anything else: without a program INIT is ENOENT. */
	test_err(EINVAL, "encd_init_replica_groups: reserved fields must be 0",
		 encd_cmd(self->fd, ENCD_IOC_INIT_REPLICA_GROUPS, &ig, sizeof(ig)));
}

TEST_F(boot, a_bad_secret_pointer_is_efault)
{
	struct encd_setup_global_comm s = {
		.vnc = VNC, .ctx_id = CTX, .secret_uptr = 8, .secret_len = 16,
	};

	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_err(EFAULT, NULL, encd_cmd(self->fd, ENCD_IOC_SETUP_GLOBAL_COMM, &s, sizeof(s)));
}

TEST_F(boot, unknown_barrier_flags_are_eopnotsupp)
{
	test_cmd(encd_build(self->fd, VNC, 0, 1, CTX, NULL));
	test_cmd(setup(self->fd, 0, NULL));
	test_err(EOPNOTSUPP, NULL, barrier(self->fd, 2, ENCD_GROUP_GLOBAL));
}

/*
 * A deadline is kept at both ends: the call neither gives up early nor
 * overruns. The kernel counts it in jiffies from the call's start, so it may
 * end up to one jiffy (4 ms at HZ=250, 10 ms at HZ=100) before 500 ms of
 * CLOCK_MONOTONIC have passed.
 */
TEST_F(boot, a_root_alone_times_out_by_its_deadline_naming_the_missing)
{
	double t, took;

	test_cmd(build_root(self->fd, 0, 3, "127.0.0.1:61731"));
	t = encd_now();
	test_err(ETIMEDOUT,
		 "root: 1 of 3 ranks arrived before the wait ended (timed out); missing: 1, 2",
		 setup(self->fd, 500, NULL));
	took = encd_now() - t;
	ASSERT_LE(0.49, took);
	ASSERT_GT(1.5, took);
}

/* Waits up to 10 s for the comm on (VNC, CTX) to have @holders holders. */
static bool comm_held(int fd, __u32 holders)
{
	struct encd_glb_comm_header hdr;
	int i;

	for (i = 0; i < 200; i++) {
		if (!encd_get(fd, VNC, CTX, &hdr) && hdr.holders == holders)
			return true;
		usleep(50 * 1000);
	}
	return false;
}

static void on_usr1(int sig)
{
}

/* How a child's call ended, sent back through a pipe. */
struct call_result {
	int err;
	double took;
};

TEST_F(boot, a_signal_ends_the_wait_with_eintr)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct call_result res;
	int status, p[2];
	double t;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = encd_open();

		sigaction(SIGUSR1, &sa, NULL);
		if (build_root(fd, 1, 2, "127.0.0.1:61732"))
			_exit(2);
		/* A rank whose root never comes: it waits for 30 s unless woken. */
		t = encd_now();
		res.err = setup(fd, 30000, NULL);
		res.took = encd_now() - t;
		_exit(write(p[1], &res, sizeof(res)) == sizeof(res) ? 0 : 3);
	}
	close(p[1]);
	/*
	 * The child built its comm, then went into SETUP's wait, which nothing
	 * but the signal can end before 30 s: a signal that came before the
	 * wait would leave it waiting the 30 s, and that fails below.
	 */
	ASSERT_TRUE(comm_held(self->fd, 1));
	usleep(500 * 1000);
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));
	t = encd_now();
	kill(pid, SIGUSR1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) {
		TH_LOG("killed by signal %d", WTERMSIG(status));
	}
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(sizeof(res), read(p[0], &res, sizeof(res)));
	close(p[0]);
	ASSERT_EQ(EINTR, res.err);
	/* It waited until the signal (sent after 0.5 s), then not a moment longer. */
	ASSERT_LE(0.5, res.took);
	ASSERT_GT(2.0, encd_now() - t);
}

TEST_F(boot, a_killed_waiter_dies_at_once_and_leaves_nothing)
{
	struct encd_glb_comm_header hdr;
	int status;
	double t;
	pid_t pid;

	ASSERT_FALSE(encd_tcp_listening(61733));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = encd_open();

		if (build_root(fd, 0, 2, "127.0.0.1:61733"))
			_exit(2);
		setup(fd, 30000, NULL);
		_exit(1);
	}
	/*
	 * The comm is built (the child's file holds it) and the root waits for
	 * its second rank (it listens): else the kill below proves nothing.
	 */
	ASSERT_TRUE(comm_held(self->fd, 1));
	test_cmd(encd_get(self->fd, VNC, CTX, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);
	for (t = encd_now(); !encd_tcp_listening(61733) && encd_now() - t < 10;)
		usleep(50 * 1000);
	ASSERT_TRUE(encd_tcp_listening(61733));
	ASSERT_EQ(0, waitpid(pid, &status, WNOHANG));

	t = encd_kill_and_reap(pid, 10);
	ASSERT_LE(0, t) {
		TH_LOG("the waiter did not die of SIGKILL within 10 s");
	}
	ASSERT_GT(1.0, t);
	/*
	 * Its comm went with its file; the root's listener goes with its host,
	 * which its last rank shuts down in the background.
	 */
	test_err(ENOENT, "No global comm on core 1 context 0", encd_get(self->fd, VNC, CTX, &hdr));
	for (t = encd_now(); encd_tcp_listening(61733) && encd_now() - t < 2;)
		usleep(20 * 1000);
	ASSERT_FALSE(encd_tcp_listening(61733));
}

TEST_F(boot, replica_groups_come_up_from_the_pool_and_bind_only_with_ops)
{
	static const char prog_json[] =
		"{\"replica_groups\": ["
		" {\"group_id\": 0, \"rank\": 0, \"rank_n\": 1, \"participants\": [0]},"
		" {\"group_id\": 1, \"rank\": 0, \"rank_n\": 1, \"participants\": [0], \"stream_id\": 1},"
		" {\"group_id\": 2, \"rank\": 0, \"rank_n\": 1, \"participants\": [0], \"stream_id\": 1}],"
		" \"ops\": [{\"op\": \"all_reduce\", \"size_n\": 64, \"group\": 0},"
		"          {\"op\": \"all_gather\", \"size_n\": 64, \"group\": 1}]}";
	struct encd_node_info ni;
	struct enc_program *prog;
	uint32_t n_new, n_hits;

	ASSERT_EQ(NRT_SUCCESS, enc_init());
	ASSERT_EQ(NRT_SUCCESS, enc_init_global_comm(VNC, 0, 1, CTX, "", true));
	ASSERT_EQ(NRT_SUCCESS, enc_setup_global_comm(VNC, CTX)) TH_LOG("%s", enc_last_error());
	ASSERT_EQ(NRT_SUCCESS, enc_program_from_json_string(prog_json, &prog))
		TH_LOG("%s", enc_last_error());
	ASSERT_EQ(NRT_SUCCESS, enc_program_load(VNC, CTX, prog)) TH_LOG("%s", enc_last_error());
	enc_program_free(prog);
	ASSERT_EQ(NRT_SUCCESS, enc_init_replica_groups_ex(VNC, CTX, 0, &n_new, &n_hits))
		TH_LOG("%s", enc_last_error());
	/*
	 * Group 0 has the world's participants on stream 0, but the world's
	 * own comm is kept out of the pools, so group 0 gets (and validates)
	 * a node of its own; groups 1 and 2 share one.
	 */
	ASSERT_EQ(2, n_new);
	ASSERT_EQ(1, n_hits);
	ASSERT_EQ(NRT_SUCCESS, enc_comm_info(VNC, CTX, 0, &ni));
	ASSERT_EQ(ENCD_NODE_OUT_BOUND, ni.out_flags);
	ASSERT_EQ(NRT_SUCCESS, enc_comm_info(VNC, CTX, 1, &ni));
	ASSERT_EQ(ENCD_NODE_OUT_BOUND, ni.out_flags);
	ASSERT_EQ(1, ni.stream_id);
	ASSERT_EQ(2, ni.refcnt);
	ASSERT_EQ((1U << 1) | (1U << 2), ni.groups);
	ASSERT_EQ(NRT_SUCCESS, enc_comm_info(VNC, CTX, 2, &ni));
	ASSERT_EQ(0, ni.out_flags);	/* no ops: the comm, not an op target */
	ASSERT_EQ(NRT_SUCCESS, enc_comm_barrier(VNC, CTX, 2, 0));
	ASSERT_EQ(NRT_SUCCESS, enc_local_barrier(VNC, CTX, 1, 0));
	/* Sealed now: signing again is refused, as libnrt refuses it. */
	ASSERT_EQ(NRT_INVALID, enc_calculate_signature(VNC, CTX, 0, (uint8_t[16]){ 0 }));
	enc_destroy_gcomm_locks();
}

/* A world of 3 whose ranks 0 and 1 are a replica group of their own. */
#define PAIR_ROOT	"127.0.0.1:61741"

static NRT_STATUS pair_join(__u32 rank)
{
	NRT_STATUS st = enc_init();

	if (st == NRT_SUCCESS)
		st = enc_init_global_comm(VNC + rank, rank, 3, CTX, PAIR_ROOT, true);
	return st ?: enc_setup_global_comm_ex(VNC + rank, CTX, 20000, NULL);
}

/* Ranks 0 and 1: the group of the two of them forms, then one barrier. */
static NRT_STATUS pair_form_group(__u32 rank)
{
	char json[256];
	struct enc_program *prog;
	uint8_t sig[ENC_SIG_LEN];
	NRT_STATUS st;

	snprintf(json, sizeof(json),
		 "{\"replica_groups\": [{\"group_id\": 0, \"rank\": %u, \"rank_n\": 2,"
		 " \"participants\": [0, 1]}],"
		 " \"ops\": [{\"op\": \"all_reduce\", \"size_n\": 64, \"group\": 0}]}", rank);
	st = enc_program_from_json_string(json, &prog);
	if (st)
		return st;
	st = enc_program_load(VNC + rank, CTX, prog);
	enc_program_free(prog);
	st = st ?: enc_calculate_signature(VNC + rank, CTX, 0, sig);
	st = st ?: enc_init_replica_groups_ex(VNC + rank, CTX, 20000, NULL, NULL);
	return st ?: enc_comm_barrier(VNC + rank, CTX, 0, 20000);
}

/* A child rank: 1 leaves once its group passed a barrier, 2 once formed. */
static void pair_child(__u32 rank, int go)
{
	NRT_STATUS st = pair_join(rank);

	if (st == NRT_SUCCESS && rank == 1)
		st = encd_wait_byte(go, 30) ? NRT_TIMEOUT : pair_form_group(rank);
	if (st)
		fprintf(stderr, "# rank %u: %s\n", rank, enc_last_error());
	_exit(st == NRT_SUCCESS ? 0 : 1);
}

/* Reaps @pid within @timeout_s: whether it exited with status 0. */
static bool reaped_ok(pid_t pid, double timeout_s)
{
	double t = encd_now();
	int status;
	pid_t p;

	while ((p = waitpid(pid, &status, WNOHANG)) == 0 && encd_now() - t < timeout_s)
		usleep(10 * 1000);
	if (p == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return false;
	}
	return p == pid && WIFEXITED(status) && !WEXITSTATUS(status);
}

/*
 * A replica group needs only its own ranks: rank 2 of the world leaves as
 * soon as it formed; ranks 0 and 1 then form the group of the two of them
 * and pass its barrier. Then rank 1 leaves, and rank 0's next barrier of
 * the group fails at once, naming rank 1 (rank 2 left first, but was never
 * one of the group's).
 */
TEST_F(boot, a_replica_group_outlives_a_rank_outside_it_that_left)
{
	int go[2];
	pid_t pid[3];
	__u32 r;
	double t;

	ASSERT_FALSE(encd_tcp_listening(61741));
	ASSERT_EQ(0, pipe(go));
	for (r = 1; r < 3; r++) {
		pid[r] = fork();
		ASSERT_LE(0, pid[r]);
		if (!pid[r]) {
			close(go[1]);
			pair_child(r, go[0]);
		}
	}
	close(go[0]);
	ASSERT_EQ(NRT_SUCCESS, pair_join(0)) TH_LOG("%s", enc_last_error());
	/* Reaped: its file is closed, so its departure has been taken. */
	ASSERT_TRUE(reaped_ok(pid[2], 30)) TH_LOG("rank 2 did not form and leave");
	ASSERT_EQ(0, encd_send_byte(go[1]));
	ASSERT_EQ(NRT_SUCCESS, pair_form_group(0)) TH_LOG("%s", enc_last_error());
	ASSERT_TRUE(reaped_ok(pid[1], 30)) TH_LOG("rank 1's group did not form and pass");

	t = encd_now();
	ASSERT_NE(NRT_SUCCESS, enc_comm_barrier(VNC, CTX, 0, 20000));
	EXPECT_GT(2.0, encd_now() - t);
	EXPECT_NE(NULL, strstr(enc_last_error(),
			       "rank 1 (global device 1) left the world: its comm was released"))
		TH_LOG("%s", enc_last_error());
	close(go[1]);
	enc_destroy_gcomm_locks();
}

TEST_HARNESS_MAIN
