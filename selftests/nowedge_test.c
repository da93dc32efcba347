// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing wedges: no lock is held across the network, and close(), exit and
 * RELEASE never wait for a bootstrap.
 *
 *   - A process killed with SIGKILL while the other context of its core
 *     bootstraps against a root that never answers is gone within 1 s
 *     (measured from kill() to its reaping); so is the bootstrapping one
 *     when it is killed in turn. The killed one was idle holding a formed
 *     world, or bootstrapping itself against another silent root.
 *   - SETUP and RELEASE racing on one fd, from two threads, 10,000 times
 *     (2,000 in the debug lane):
 *     each SETUP forms the world, or finds the comm released (ENOENT), or is
 *     aborted by the release (ECONNABORTED); the comm is gone after each
 *     round, and no world's listener is left on its port. The RELEASE comes
 *     at a different point of the SETUP each round, from its start to past
 *     its end. The runner then unloads the module (and, in the debug lane,
 *     kmemleak finds no leak).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "encd_test.h"

#define VNC		3
#define KILL_LIMIT_S	1.0
#define SILENT_PORT	47100
#define RACE_ROUNDS	10000
/* The debug lane (KASAN, lockdep, kmemleak under TCG): a round costs ten times more. */
#define RACE_ROUNDS_DEBUG	2000
/* Every RACE_ROOT_EVERY-th round is rank 0 of a world of two: it listens. */
#define RACE_ROOT_EVERY	4
#define RACE_PORT	50000
/* RELEASE comes RACE_STEPS different times after SETUP starts, in turn. */
#define RACE_STEPS	32
#define RACE_CALIBRATE	20

static int build(int fd, __u32 ctx, __u32 id, __u32 cnt, const char *root)
{
	return encd_build_root(fd, VNC, id, cnt, ctx, root);
}

static int setup(int fd, __u32 ctx, __u32 timeout_ms)
{
	return encd_setup(fd, VNC, ctx, timeout_ms, NULL);
}

/* A TCP listener on 127.0.0.1:@port that accepts and never answers. */
static int silent_root(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 16))
		return -1;
	return s;
}

/*
 * Waits until a rank has connected to the silent root and sent it
 * something (its HELLO): the bootstrap is on the network. Returns the
 * accepted connection (kept open, never answered), or -1.
 */
static int bootstrap_reached(int listener, double timeout_s)
{
	struct pollfd p = { .fd = listener, .events = POLLIN };
	char buf[64];
	int c;

	if (poll(&p, 1, timeout_s * 1000) != 1)
		return -1;
	c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return -1;
	p.fd = c;
	if (poll(&p, 1, timeout_s * 1000) != 1 || recv(c, buf, sizeof(buf), MSG_PEEK) <= 0) {
		close(c);
		return -1;
	}
	return c;
}

/* A rank in a child: builds (ctx, id of cnt, root), writes a byte, sets up. */
static pid_t rank_child(__u32 ctx, __u32 id, __u32 cnt, const char *root, int ready)
{
	pid_t pid = fork();
	int fd, err;

	if (pid)
		return pid;
	fd = encd_open();
	err = build(fd, ctx, id, cnt, root);
	if (cnt == 1 && !err)
		err = setup(fd, ctx, 30000);
	if (err || write(ready, "r", 1) != 1)
		_exit(2);
	if (cnt > 1)
		setup(fd, ctx, 30000);
	else
		pause();
	_exit(1);
}

FIXTURE(kill) {
	int probe;
	int root1, root2;	/* silent roots */
	int conn1, conn2;	/* what reached them */
};

FIXTURE_SETUP(kill)
{
	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
	self->root1 = silent_root(SILENT_PORT);
	self->root2 = silent_root(SILENT_PORT + 1);
	ASSERT_LE(0, self->root1);
	ASSERT_LE(0, self->root2);
	self->conn1 = self->conn2 = -1;
}

FIXTURE_TEARDOWN(kill)
{
	close(self->conn1);
	close(self->conn2);
	close(self->root1);
	close(self->root2);
	close(self->probe);
}

/*
 * Context 1 of core VNC bootstraps against a silent root (it is rank 1 of 2:
 * it waits for the root's answer); context 0 of the same core is held by
 * another process, idle with a formed world of one (@busy false) or
 * bootstrapping against a second silent root. That process is killed, then
 * the bootstrapping one.
 */
static void kill_beside_a_bootstrap(struct __test_metadata *_metadata,
				    FIXTURE_DATA(kill) *self, bool busy)
{
	struct encd_glb_comm_header hdr;
	char root1[32], root2[32];
	int ready[2];
	pid_t a, b;
	double t;

	snprintf(root1, sizeof(root1), "127.0.0.1:%d", SILENT_PORT);
	snprintf(root2, sizeof(root2), "127.0.0.1:%d", SILENT_PORT + 1);
	ASSERT_EQ(0, pipe(ready));
	a = rank_child(1, 1, 2, root1, ready[1]);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, encd_wait_byte(ready[0], 10));
	self->conn1 = bootstrap_reached(self->root1, 10);
	ASSERT_LE(0, self->conn1) {
		TH_LOG("context 1's bootstrap never reached its root");
		kill(a, SIGKILL);
	}
	b = rank_child(0, busy, busy ? 2 : 1, root2, ready[1]);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, encd_wait_byte(ready[0], 10));
	if (busy) {
		self->conn2 = bootstrap_reached(self->root2, 10);
		ASSERT_LE(0, self->conn2) {
			TH_LOG("context 0's bootstrap never reached its root");
			kill(a, SIGKILL);
			kill(b, SIGKILL);
		}
	} else {
		test_cmd(encd_get(self->probe, VNC, 0, &hdr));
		ASSERT_EQ(ENCD_GCOMM_BOOTSTRAPPED, hdr.state);
	}
	/* Both contexts of the core are there, context 1 still forming. */
	test_cmd(encd_get(self->probe, VNC, 1, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);

	t = encd_kill_and_reap(b, 10);
	ASSERT_LE(0, t) {
		kill(a, SIGKILL);
	}
	TH_LOG("context 0's process (%s), killed while context 1 bootstraps: gone in %.3f s",
	       busy ? "bootstrapping too" : "idle", t);
	ASSERT_GT(KILL_LIMIT_S, t) {
		kill(a, SIGKILL);
	}
	test_err(ENOENT, NULL, encd_get(self->probe, VNC, 0, NULL));
	/* The other context goes on bootstrapping, untouched. */
	ASSERT_EQ(0, waitpid(a, NULL, WNOHANG));
	test_cmd(encd_get(self->probe, VNC, 1, &hdr));
	ASSERT_EQ(ENCD_GCOMM_BUILT, hdr.state);
	ASSERT_EQ(1, hdr.holders);

	t = encd_kill_and_reap(a, 10);
	ASSERT_LE(0, t);
	TH_LOG("context 1's process, killed in its bootstrap: gone in %.3f s", t);
	ASSERT_GT(KILL_LIMIT_S, t);
	test_err(ENOENT, NULL, encd_get(self->probe, VNC, 1, NULL));
}

TEST_F(kill, an_idle_process_dies_at_once_beside_a_bootstrap_of_its_core)
{
	kill_beside_a_bootstrap(_metadata, self, false);
}

TEST_F(kill, a_bootstrapping_process_dies_at_once_beside_another_of_its_core)
{
	kill_beside_a_bootstrap(_metadata, self, true);
}

/* SETUP against RELEASE on one fd */

struct race {
	int fd;
	pthread_barrier_t start, end;
	int rounds;
	bool stop;
	/* this round */
	__u32 timeout_ms;
	double release_delay;		/* s after the start */
	int setup_err, release_err;
	char setup_msg[256], release_msg[256];
};

static void *race_setup(void *arg)
{
	struct race *r = arg;

	for (;;) {
		pthread_barrier_wait(&r->start);
		if (r->stop)
			return NULL;
		r->setup_err = setup(r->fd, 0, r->timeout_ms);
		strcpy(r->setup_msg, encd_msg);
		pthread_barrier_wait(&r->end);
	}
}

static void *race_release(void *arg)
{
	struct race *r = arg;
	double t;

	for (;;) {
		pthread_barrier_wait(&r->start);
		if (r->stop)
			return NULL;
		t = encd_now() + r->release_delay;
		while (encd_now() < t)
			;
		r->release_err = encd_release(r->fd, VNC, 0);
		strcpy(r->release_msg, encd_msg);
		pthread_barrier_wait(&r->end);
	}
}

FIXTURE(setup_release) {
};

FIXTURE_SETUP(setup_release)
{
}

FIXTURE_TEARDOWN(setup_release)
{
}

TEST_F_TIMEOUT(setup_release, race_on_one_fd, 560)
{
	int formed = 0, gone = 0, aborted = 0, i, port;
	const char *lane = getenv("ENCD_LANE");
	struct race r = {
		.rounds = lane && !strncmp(lane, "debug", 5) ? RACE_ROUNDS_DEBUG : RACE_ROUNDS,
	};
	double t, deadline, setup_s = 0;
	pthread_t ts, tr;
	char root[32];

	r.fd = encd_open();
	ASSERT_LE(0, r.fd);
	/*
	 * How long a SETUP of a world of one takes here: each round's RELEASE
	 * comes at another point of it, from its start to past its end.
	 */
	for (i = 0; i < RACE_CALIBRATE; i++) {
		test_cmd(build(r.fd, 0, 0, 1, ""));
		t = encd_now();
		test_cmd(setup(r.fd, 0, 10000));
		setup_s += (encd_now() - t) / RACE_CALIBRATE;
		test_cmd(encd_release(r.fd, VNC, 0));
	}
	t = encd_now();
	ASSERT_EQ(0, pthread_barrier_init(&r.start, NULL, 3));
	ASSERT_EQ(0, pthread_barrier_init(&r.end, NULL, 3));
	ASSERT_EQ(0, pthread_create(&ts, NULL, race_setup, &r));
	ASSERT_EQ(0, pthread_create(&tr, NULL, race_release, &r));
	for (i = 0; i < r.rounds; i++) {
		bool listens = i % RACE_ROOT_EVERY == 0;

		/* Rank 0 of two waits for rank 1, which never comes: only RELEASE ends it. */
		snprintf(root, sizeof(root), "127.0.0.1:%d", RACE_PORT + i / RACE_ROOT_EVERY);
		test_cmd(build(r.fd, 0, 0, listens ? 2 : 1, listens ? root : ""));
		r.timeout_ms = listens ? 60000 : 10000;
		r.release_delay = setup_s * 1.5 * (i % RACE_STEPS) / RACE_STEPS;
		pthread_barrier_wait(&r.start);
		pthread_barrier_wait(&r.end);
		ASSERT_EQ(0, r.release_err) {
			TH_LOG("round %d: RELEASE: %s", i, r.release_msg);
		}
		switch (r.setup_err) {
		case 0:
			ASSERT_FALSE(listens);
			formed++;
			break;
		case ENOENT:
			ASSERT_STREQ("This file does not hold the global comm of core 3 context 0",
				     r.setup_msg);
			gone++;
			break;
		case ECONNABORTED:
			ASSERT_STREQ("rank 0: its global comm was released while the operation ran",
				     r.setup_msg);
			aborted++;
			break;
		default:
			ASSERT_EQ(0, r.setup_err) {
				TH_LOG("round %d: SETUP: %s", i, r.setup_msg);
			}
		}
		/* The only holder let go: the comm is gone, whatever won. */
		test_err(ENOENT, NULL, encd_get(r.fd, VNC, 0, NULL));
	}
	r.stop = true;
	pthread_barrier_wait(&r.start);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	close(r.fd);
	TH_LOG("%d rounds in %.1f s (a SETUP alone takes %.0f us): %d formed first, %d released first, %d aborted by the release",
	       r.rounds, encd_now() - t, setup_s * 1e6, formed, gone, aborted);

	/* The RELEASEs came before, during and after SETUPs. */
	ASSERT_LT(0, formed);
	ASSERT_LT(0, gone);

	/* No world's listener is left behind (they close in the background). */
	deadline = encd_now() + 10;
	for (port = RACE_PORT; port < RACE_PORT + r.rounds / RACE_ROOT_EVERY; port++) {
		while (encd_tcp_listening(port) && encd_now() < deadline)
			usleep(10 * 1000);
		ASSERT_FALSE(encd_tcp_listening(port)) {
			TH_LOG("127.0.0.1:%d is still bound", port);
		}
	}
}

TEST_HARNESS_MAIN
