// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection at the bootstrap's socket and crypto calls, and at the
 * world table's allocations, while a world forms: for each point of
 * kmod/fault.c (socket creation, bind, listen, connect, accept, send,
 * receive, crypto, the table), the Nth call the module makes there fails,
 * for N = 1, 2, ... until a world forms without making an Nth call. Every
 * rank has a host of its own (ENCD_SETUP_FORCE_TCP), so every message
 * crosses a socket. Each injected failure must end, for every rank, in a
 * clean errno and a sentence, or in the world formed all the same (a
 * failure the module got over: a refused connect it retried, an accept it
 * made later). A rank that waits on GRACE_S after another failed is one the
 * failure cannot reach (a root never hears of a rank whose first frame
 * could not be sent, and waits for it to its deadline): it is killed, and
 * must be gone within 1 s. The runner then finds no kernel report, and
 * (debug lane) kmemleak no leak.
 *
 * The table's points run twice, in a world of four hosts (the fourth hears
 * the table from the second, a member, so it waits for the root's digest):
 * once left to fail on their own, once with every rank's process killed as
 * soon as the allocation failed, while its SETUP waits (as a memory
 * cgroup's OOM killer does: a table that failed half-way must leave its
 * host as it was, for the dying SETUP to read).
 *
 * The points are counted module-wide, not per task: the calls run in
 * workers as much as in the ranks' ioctls. Each is a fault_attr under
 * /sys/kernel/debug/encd/; "space" = N passes N - 1 calls and fails the Nth,
 * "times" = 1 fails it once, and reads 0 afterwards when it did.
 *
 * Only a module built with ENCD_FAULT_INJECTION=y has the points: the debug
 * lane's. Anywhere else the program skips as a whole (exit status 4).
 */
#include <sys/mount.h>

#include "encd_test.h"

#define FAULT_DIR	"/sys/kernel/debug/encd/"
#define TIMEOUT_MS	6000
#define GRACE_S		2.0
/* More calls than this at one point in one small world would be a bug. */
#define MAX_CALLS	400
#define PORT_BASE	40000

static const char *const points[] = {
	"fail_sock_create", "fail_bind", "fail_listen", "fail_connect",
	"fail_accept", "fail_send", "fail_recv", "fail_crypto", "fail_table_alloc",
};

static int knob_write(const char *point, const char *knob, long val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), FAULT_DIR "%s/%s", point, knob);
	snprintf(buf, sizeof(buf), "%ld", val);
	return encd_write_str(path, buf);
}

static long knob_read(const char *point, const char *knob)
{
	char path[128], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), FAULT_DIR "%s/%s", point, knob);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) <= 0)
		buf[0] = '\0';
	close(fd);
	return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/* Fails the @nth call at @point, once; probability last, as it arms. */
static int arm(const char *point, long nth)
{
	return knob_write(point, "probability", 0) ?: knob_write(point, "verbose", 0) ?:
	       knob_write(point, "interval", 1) ?: knob_write(point, "space", nth) ?:
	       knob_write(point, "times", 1) ?: knob_write(point, "probability", 100);
}

/* Disarms @point; whether its armed call was reached (and failed). */
static bool disarm(const char *point)
{
	knob_write(point, "probability", 0);
	return knob_read(point, "times") == 0;
}

/*
 * What a failed bootstrap may say: the injected errors themselves (EIO for
 * a socket call, ENOMEM for crypto), and what a peer sees when the host
 * that met one fails the world or drops its link.
 */
static bool clean_errno(int err)
{
	switch (err) {
	case EIO:
	case ENOMEM:
	case ECONNRESET:
	case ECONNABORTED:
	case ECONNREFUSED:
	case EPIPE:
	case ETIMEDOUT:
		return true;
	default:
		return false;
	}
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* What one point's sweep saw. */
struct sweep {
	int formed, failed;		/* worlds, with an injected failure */
	int by_errno[256];		/* failed ranks, by errno */
	int timed_out;			/* ranks that waited to their deadline */
	int killed;			/* ranks killed still waiting, GRACE_S after a failure */
	double slowest;			/* s, the slowest rank */
};

FIXTURE(sockfault) {
	int probe;
};

FIXTURE_VARIANT(sockfault) {
	int index;			/* in points[] */
	int ranks;			/* each a host of its own */
	bool kill;			/* every rank, once the call failed */
};

FIXTURE_VARIANT_ADD(sockfault, sock_create) { .index = 0, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, bind) { .index = 1, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, listen) { .index = 2, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, connect) { .index = 3, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, accept) { .index = 4, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, send) { .index = 5, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, recv) { .index = 6, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, crypto) { .index = 7, .ranks = 2 };
FIXTURE_VARIANT_ADD(sockfault, table_alloc) { .index = 8, .ranks = 4 };
FIXTURE_VARIANT_ADD(sockfault, table_alloc_killed) { .index = 8, .ranks = 4, .kill = true };

FIXTURE_SETUP(sockfault)
{
	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
}

FIXTURE_TEARDOWN(sockfault)
{
	disarm(points[variant->index]);
	close(self->probe);
}

/*
 * Waits until @point's armed call failed, or every rank reported, or the
 * ranks' deadline passed; then kills every rank that has not reported, if
 * the call failed. How many it killed, each within 1 s, or -1.
 */
static int kill_once_reached(struct encd_world *w, const char *point)
{
	double end = encd_now() + TIMEOUT_MS / 1000.0 + 5;
	int i, n = 0, killed = 0;

	while (knob_read(point, "times") != 0) {
		for (n = 0, i = 0; i < w->n; i++)
			n += w->reported[i];
		if (n == w->n || encd_now() > end)
			return 0;
		encd_world_results(w, 0.002, 0);
	}
	for (i = 0; i < w->n; i++) {
		if (w->reported[i])
			continue;
		if (encd_world_kill(w, i) >= 1.0)
			return -1;
		killed++;
	}
	return killed;
}

/*
 * Forms one world with the point armed; false when the point was not
 * reached. A rank still waiting GRACE_S after another failed may be one
 * that cannot hear of the failure (a root that never heard of the rank
 * whose link failed waits for it to its deadline): it is killed, and must
 * die at once.
 */
static bool one_world(struct __test_metadata *_metadata, FIXTURE_DATA(sockfault) *self,
		      const FIXTURE_VARIANT(sockfault) *variant, int nth, struct sweep *sw,
		      int port)
{
	const char *point = points[variant->index];
	int i, failed = 0, killed = 0, ranks = variant->ranks;
	struct encd_world w;
	char root[32];
	bool reached;
	double t;

	snprintf(root, sizeof(root), "127.0.0.1:%d", port);
	ASSERT_EQ(0, arm(point, nth));
	ASSERT_EQ(0, encd_world_start(&w, ranks, root, 0, ENCD_SETUP_FORCE_TCP, TIMEOUT_MS));
	if (variant->kill)
		killed = kill_once_reached(&w, point);
	ASSERT_LE(0, killed) {
		TH_LOG("%s, call %d: a rank took 1 s or more to die", point, nth);
	}
	sw->killed += killed;
	/* Those killed report nothing: the others reported already. */
	if (!killed)
		encd_world_results(&w, TIMEOUT_MS / 1000.0 + 30, GRACE_S);
	reached = disarm(point);
	for (i = 0; i < ranks; i++) {
		const struct encd_rank_result *r = &w.res[i];

		if (!w.reported[i])
			continue;
		if (r->seconds > sw->slowest)
			sw->slowest = r->seconds;
		if (!r->err) {
			ASSERT_EQ(ENCD_SETUP_OUT_FORMED, r->out_flags);
			ASSERT_EQ(ranks, r->rank_n);
			continue;
		}
		failed++;
		ASSERT_TRUE(reached) {
			TH_LOG("%s, call %d not reached, yet rank %d failed: %s (%s)", point, nth,
			       i, strerror(r->err), r->msg);
		}
		ASSERT_TRUE(clean_errno(r->err)) {
			TH_LOG("%s, call %d: rank %d: %s: %s", point, nth, i, strerror(r->err),
			       r->msg);
		}
		ASSERT_NE(0, r->msg[0]) {
			TH_LOG("%s, call %d: rank %d failed with %s and no sentence", point, nth,
			       i, strerror(r->err));
		}
		ASSERT_TRUE(printable(r->msg));
		sw->by_errno[r->err & 255]++;
		if (r->err == ETIMEDOUT)
			sw->timed_out++;
	}
	for (i = 0; i < ranks; i++) {
		if (w.reported[i] || !w.pid[i])
			continue;
		ASSERT_LT(0, failed) {
			TH_LOG("%s, call %d: rank %d never reported, and no rank failed", point,
			       nth, i);
		}
		t = encd_world_kill(&w, i);
		ASSERT_LE(0, t);
		ASSERT_GT(1.0, t) {
			TH_LOG("%s, call %d: rank %d took %.2f s to die", point, nth, i, t);
		}
		sw->killed++;
	}
	ASSERT_EQ(0, encd_world_end(&w, 10)) {
		TH_LOG("%s, call %d: a rank did not exit cleanly", point, nth);
	}
	/* Its comms went with its files, whatever happened. */
	for (i = 0; i < ranks; i++)
		test_err(ENOENT, NULL, encd_get(self->probe, i, 0, NULL));
	if (reached) {
		if (failed || variant->kill)
			sw->failed++;
		else
			sw->formed++;
	}
	return reached;
}

TEST_F_TIMEOUT(sockfault, every_call_fails_in_turn_while_a_world_forms, 560)
{
	const char *point = points[variant->index];
	struct sweep sw = {};
	char counts[256] = "";
	int nth, e, len = 0;

	for (nth = 1; nth <= MAX_CALLS; nth++)
		if (!one_world(_metadata, self, variant, nth, &sw,
			       PORT_BASE + (variant->index + variant->kill) * 1000 + nth))
			break;
	ASSERT_GE(MAX_CALLS, nth) {
		TH_LOG("%s: a world of %d ranks made more than %d calls", point, variant->ranks,
		       MAX_CALLS);
	}
	/* The world formed without reaching call nth: it makes nth - 1. */
	ASSERT_LE(1, nth - 1) {
		TH_LOG("%s: no call was reached: is the point wired?", point);
	}
	for (e = 1; e < 256; e++)
		if (sw.by_errno[e])
			len += snprintf(counts + len, sizeof(counts) - len, " %s:%d",
					strerror(e), sw.by_errno[e]);
	TH_LOG("%s: %d calls failed in turn; %d worlds formed all the same, %d failed (ranks:%s); %d rank(s) at their deadline, %d killed still waiting; slowest rank %.2f s",
	       point, nth - 1, sw.formed, sw.failed, len ? counts : " none", sw.timed_out,
	       sw.killed, sw.slowest);
}

int main(int argc, char **argv)
{
	if (access(FAULT_DIR, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(FAULT_DIR "fail_send", F_OK)) {
		ksft_print_header();
		ksft_exit_skip("no %s: encd was built without ENCD_FAULT_INJECTION=y (the debug lane builds it so)\n",
			       FAULT_DIR);
	}
	return test_harness_run(argc, argv);
}
