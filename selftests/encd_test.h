/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the encd selftests: one wrapper per ioctl of /dev/encd
 * (each returns the errno and keeps the kernel's failure sentence), the
 * module's run-time parameters, iommufd-style test_cmd / test_err
 * assertions, a clock, pipes and TCP ports as the tests watch them, the
 * ranks of a world as child processes, and the fail-nth walk that the
 * fail-nth programs share.
 *
 * The harness forks every test, and the runner loads encd once per test
 * program: a test leaves the module as it found it only because its fds
 * close when its process exits. Tests that change module parameters put
 * them back in their fixture's teardown.
 */
#ifndef _ENCD_TEST_H
#define _ENCD_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/encd.h>

#include "kselftest_harness.h"

#define ENCD_DEV		"/dev/" ENCD_DEVICE_NAME
#define ENCD_PARAMS		"/sys/module/encd/parameters/"
#define ENCD_TEST_ROOT		"127.0.0.1:61000"
#define ENCD_DEFAULT_VCORES	32

/* The sentence of this thread's last failing encd_cmd(), "" after a success. */
static __thread char encd_msg[256];
/* And its reason (enum encd_reason), ENCD_REASON_NONE after a success. */
static __thread __u32 encd_reason;

static inline int encd_open(void)
{
	return open(ENCD_DEV, O_RDWR | O_CLOEXEC);
}

/* Issues @cmd with @arg of @size bytes; returns 0 or the errno. */
static inline int encd_cmd(int fd, unsigned long cmd, void *arg, size_t size)
{
	struct encd_head *head = arg;

	int err;

	encd_msg[0] = '\0';
	head->size = size;
	head->msg_uptr = (uintptr_t)encd_msg;
	head->msg_len = sizeof(encd_msg);
	/* head->reason is left as the caller has it: the kernel ignores it. */
	err = ioctl(fd, cmd, arg) ? errno : 0;
	encd_reason = err ? head->reason : ENCD_REASON_NONE;
	return err;
}

/* BUILD or VALIDATE; @req (may be NULL) gets the answer. */
static inline int encd_gcomm_root(int fd, unsigned long cmd, __u32 flags, __u32 vnc,
				  __u32 g_device_id, __u32 g_device_cnt, __u32 ctx_id,
				  const char *root, struct encd_global_comm_req *req)
{
	struct encd_global_comm_req r = {
		.head.flags = flags,
		.vnc = vnc,
		.g_device_id = g_device_id,
		.g_device_cnt = g_device_cnt,
		.ctx_id = ctx_id,
		.out_flags = 0xdead,
	};
	int err;

	snprintf(r.root_comm_id, sizeof(r.root_comm_id), "%s", root);
	err = encd_cmd(fd, cmd, &r, sizeof(r));

	if (req)
		*req = r;
	return err;
}

/* As encd_gcomm_root(), with the tests' usual root, ENCD_TEST_ROOT. */
static inline int encd_gcomm(int fd, unsigned long cmd, __u32 flags, __u32 vnc, __u32 g_device_id,
			     __u32 g_device_cnt, __u32 ctx_id, struct encd_global_comm_req *req)
{
	return encd_gcomm_root(fd, cmd, flags, vnc, g_device_id, g_device_cnt, ctx_id,
			       ENCD_TEST_ROOT, req);
}

/* BUILD of a comm whose world's root is @root ("" for a world of one). */
static inline int encd_build_root(int fd, __u32 vnc, __u32 g_device_id, __u32 g_device_cnt,
				  __u32 ctx_id, const char *root)
{
	return encd_gcomm_root(fd, ENCD_IOC_BUILD_GLOBAL_COMM, 0, vnc, g_device_id, g_device_cnt,
			       ctx_id, root, NULL);
}

static inline int encd_build(int fd, __u32 vnc, __u32 g_device_id, __u32 g_device_cnt,
			     __u32 ctx_id, __u32 *out_flags)
{
	struct encd_global_comm_req r;
	int err;

	err = encd_gcomm(fd, ENCD_IOC_BUILD_GLOBAL_COMM, 0, vnc, g_device_id, g_device_cnt,
			 ctx_id, &r);
	if (out_flags)
		*out_flags = r.out_flags;
	return err;
}

static inline int encd_validate(int fd, __u32 vnc, __u32 dev_id, __u32 dev_cnt, __u32 ctx_id,
				__u32 *out_flags)
{
	struct encd_global_comm_req r;
	int err;

	err = encd_gcomm(fd, ENCD_IOC_VALIDATE_GLOBAL_COMM, 0, vnc, dev_id, dev_cnt, ctx_id, &r);
	if (out_flags)
		*out_flags = r.out_flags;
	return err;
}

static inline int encd_get(int fd, __u32 vnc, __u32 ctx_id, struct encd_glb_comm_header *hdr)
{
	struct encd_get_global_comm get = { .vnc = vnc, .ctx_id = ctx_id };
	int err = encd_cmd(fd, ENCD_IOC_GET_GLOBAL_COMM, &get, sizeof(get));

	if (hdr)
		*hdr = get.hdr;
	return err;
}

static inline int encd_release(int fd, __u32 vnc, __u32 ctx_id)
{
	struct encd_release_global_comm rel = { .vnc = vnc, .ctx_id = ctx_id };

	return encd_cmd(fd, ENCD_IOC_RELEASE_GLOBAL_COMM, &rel, sizeof(rel));
}

static inline int encd_version(int fd, struct encd_version *ver)
{
	memset(ver, 0, sizeof(*ver));
	return encd_cmd(fd, ENCD_IOC_VERSION, ver, sizeof(*ver));
}

/* PROGRAM_LOAD of the @len-byte binary description at @blob. */
static inline int encd_program_load(int fd, __u32 vnc, __u32 ctx_id, const void *blob, size_t len)
{
	struct encd_program_load c = {
		.vnc = vnc, .ctx_id = ctx_id, .prog_uptr = (uintptr_t)blob, .prog_len = len,
	};

	return encd_cmd(fd, ENCD_IOC_PROGRAM_LOAD, &c, sizeof(c));
}

/* PROGRAM_SIGN with head.flags @flags; @out (may be NULL) gets the answer. */
static inline int encd_program_sign(int fd, __u32 vnc, __u32 ctx_id, __u32 flags,
				    struct encd_program_sign *out)
{
	struct encd_program_sign c = { .head.flags = flags, .vnc = vnc, .ctx_id = ctx_id };
	int err = encd_cmd(fd, ENCD_IOC_PROGRAM_SIGN, &c, sizeof(c));

	if (out)
		*out = c;
	return err;
}

/*
 * PROGRAM_GET_SIGNATURES into room for @n_groups groups at @groups and
 * @n_stps stps at @stps; @out (may be NULL) gets the answer.
 */
static inline int encd_program_get_signatures(int fd, __u32 vnc, __u32 ctx_id,
					      struct encd_prog_sig *groups, __u32 n_groups,
					      struct encd_prog_sig *stps, __u32 n_stps,
					      struct encd_program_get_signatures *out)
{
	struct encd_program_get_signatures c = {
		.vnc = vnc, .ctx_id = ctx_id,
		.groups_uptr = (uintptr_t)groups, .stps_uptr = (uintptr_t)stps,
		.n_groups = n_groups, .n_stps = n_stps,
	};
	int err = encd_cmd(fd, ENCD_IOC_PROGRAM_GET_SIGNATURES, &c, sizeof(c));

	if (out)
		*out = c;
	return err;
}

static inline int encd_program_seal(int fd, __u32 vnc, __u32 ctx_id)
{
	struct encd_program_seal c = { .vnc = vnc, .ctx_id = ctx_id };

	return encd_cmd(fd, ENCD_IOC_PROGRAM_SEAL, &c, sizeof(c));
}

/* SETUP_GLOBAL_COMM with head.flags @flags; @out (may be NULL) gets the answer. */
static inline int encd_setup_flags(int fd, __u32 vnc, __u32 ctx_id, __u32 flags, __u32 timeout_ms,
				   struct encd_setup_global_comm *out)
{
	struct encd_setup_global_comm c = {
		.head.flags = flags, .vnc = vnc, .ctx_id = ctx_id, .timeout_ms = timeout_ms,
	};
	int err = encd_cmd(fd, ENCD_IOC_SETUP_GLOBAL_COMM, &c, sizeof(c));

	if (out)
		*out = c;
	return err;
}

static inline int encd_setup(int fd, __u32 vnc, __u32 ctx_id, __u32 timeout_ms,
			     struct encd_setup_global_comm *out)
{
	return encd_setup_flags(fd, vnc, ctx_id, 0, timeout_ms, out);
}

/* INIT_REPLICA_GROUPS; @out (may be NULL) gets the answer. */
static inline int encd_init_groups(int fd, __u32 vnc, __u32 ctx_id, __u32 timeout_ms,
				   struct encd_init_replica_groups *out)
{
	struct encd_init_replica_groups c = {
		.vnc = vnc, .ctx_id = ctx_id, .timeout_ms = timeout_ms,
	};
	int err = encd_cmd(fd, ENCD_IOC_INIT_REPLICA_GROUPS, &c, sizeof(c));

	if (out)
		*out = c;
	return err;
}

/* COMM_BARRIER with head.flags @flags; @out (may be NULL) gets the answer. */
static inline int encd_barrier(int fd, __u32 vnc, __u32 ctx_id, __u32 flags, __u32 group_id,
			       __u32 timeout_ms, struct encd_comm_barrier *out)
{
	struct encd_comm_barrier c = {
		.head.flags = flags, .vnc = vnc, .ctx_id = ctx_id, .group_id = group_id,
		.timeout_ms = timeout_ms,
	};
	int err = encd_cmd(fd, ENCD_IOC_COMM_BARRIER, &c, sizeof(c));

	if (out)
		*out = c;
	return err;
}

static inline int encd_node_info(int fd, __u32 vnc, __u32 ctx_id, __u32 group_id,
				 struct encd_node_info *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->vnc = vnc;
	ni->ctx_id = ctx_id;
	ni->group_id = group_id;
	return encd_cmd(fd, ENCD_IOC_NODE_INFO, ni, sizeof(*ni));
}

/* The serial of the comm on (@vnc, @ctx_id), 0 if there is none. */
static inline __u64 encd_serial(int fd, __u32 vnc, __u32 ctx_id)
{
	struct encd_glb_comm_header hdr;

	return encd_get(fd, vnc, ctx_id, &hdr) ? 0 : hdr.serial;
}

/* Writes @val to the file at @path; returns 0 or the errno. */
static inline int encd_write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* Writes a run-time module parameter; returns 0 or the errno. */
static inline int encd_param_set(const char *name, unsigned long long val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), ENCD_PARAMS "%s", name);
	snprintf(buf, sizeof(buf), "%llu", val);
	return encd_write_str(path, buf);
}

/* The host ("tdrv") parameters tests walk, all 0 when the module loads. */
static const char *const encd_host_params[] = {
	"pod_type", "pod_node_id", "pod_sz", "reservation_id", "virtual_server_size",
};

static inline int encd_host_params_reset(void)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(encd_host_params); i++) {
		err = encd_param_set(encd_host_params[i], 0);
		if (err)
			return err;
	}
	return 0;
}

/* CLOCK_MONOTONIC in seconds. */
static inline double encd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits up to @timeout_s for one byte on @fd: 0, or -1 without one. */
static inline int encd_wait_byte(int fd, double timeout_s)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&p, 1, timeout_s * 1000) == 1 && read(fd, &c, 1) == 1 ? 0 : -1;
}

static inline int encd_send_byte(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

/*
 * Sends SIGKILL to @pid and reaps it, waiting at most @timeout_s: how long
 * that took in seconds, or -1 unless it died of that signal in time.
 */
static inline double encd_kill_and_reap(pid_t pid, double timeout_s)
{
	double t = encd_now();
	int status;
	pid_t p;

	if (kill(pid, SIGKILL))
		return -1;
	while ((p = waitpid(pid, &status, WNOHANG)) == 0 && encd_now() - t < timeout_s)
		usleep(1000);
	if (p != pid || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		return -1;
	return encd_now() - t;
}

/*
 * Whether a TCP socket of this network namespace listens on @port, of any
 * address, IPv4 or IPv6 (a world's root does, from its SETUP to its end).
 */
static inline bool encd_tcp_listening(unsigned int port)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	unsigned int local_port, state, i;
	char line[256];
	bool found = false;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(tables) && !found; i++) {
		f = fopen(tables[i], "re");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f))
			found = sscanf(line, " %*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x",
				       &local_port, &state) == 2 &&
				local_port == port && state == 0x0a;
		fclose(f);
	}
	return found;
}

/*
 * The ranks of a world as child processes, for the tests that form worlds
 * through raw ioctls and need each rank's own errno and sentence: a rank
 * builds its comm on core (vnc) = its rank, context @ctx_id, sets the world
 * up, reports the outcome on a pipe, then holds its world until the parent
 * lets all ranks go together (so that no rank leaves while another is still
 * forming, which would fail that one's world).
 */
#define ENCD_RANKS_MAX	8

/* What one rank's child saw. */
struct encd_rank_result {
	__u32 rank;
	int err;			/* of BUILD, else of SETUP: 0 or an errno */
	__u32 out_flags;		/* SETUP's */
	__u32 rank_n;			/* SETUP's */
	double seconds;			/* SETUP took */
	char msg[256];			/* the kernel's sentence */
};

/* A world of child ranks being formed. */
struct encd_world {
	int n;
	pid_t pid[ENCD_RANKS_MAX];
	int results[2];			/* the ranks write, the parent reads */
	int go[2];			/* the parent closes its end: the ranks exit */
	bool reported[ENCD_RANKS_MAX];
	struct encd_rank_result res[ENCD_RANKS_MAX];
};

/* One rank's child: never returns. */
static inline void encd_rank_child(struct encd_world *w, __u32 rank, const char *root,
				   __u32 ctx_id, __u32 setup_flags, __u32 timeout_ms)
{
	struct encd_rank_result res = { .rank = rank };
	struct encd_setup_global_comm s;
	double t;
	char c;
	int fd;

	close(w->results[0]);
	close(w->go[1]);
	fd = encd_open();
	if (fd < 0) {
		res.err = errno;
		snprintf(res.msg, sizeof(res.msg), "cannot open %s", ENCD_DEV);
	} else {
		res.err = encd_build_root(fd, rank, rank, w->n, ctx_id, root);
		if (!res.err) {
			t = encd_now();
			res.err = encd_setup_flags(fd, rank, ctx_id, setup_flags, timeout_ms, &s);
			res.seconds = encd_now() - t;
			res.out_flags = s.out_flags;
			res.rank_n = s.rank_n;
		}
		snprintf(res.msg, sizeof(res.msg), "%s", encd_msg);
	}
	if (write(w->results[1], &res, sizeof(res)) != sizeof(res))
		_exit(3);
	/* Held until the parent closes its end of the go pipe. */
	while (read(w->go[0], &c, 1) > 0)
		;
	_exit(0);
}

/*
 * Starts @n ranks of a world whose root is @root, rank i on core i and
 * context @ctx_id, with SETUP's @setup_flags and @timeout_ms. Returns 0 or
 * an errno.
 */
static inline int encd_world_start(struct encd_world *w, int n, const char *root, __u32 ctx_id,
				   __u32 setup_flags, __u32 timeout_ms)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->n = n;
	if (n > ENCD_RANKS_MAX || pipe(w->results) || pipe(w->go))
		return EINVAL;
	for (i = 0; i < n; i++) {
		w->pid[i] = fork();
		if (w->pid[i] < 0)
			return errno;
		if (!w->pid[i])
			encd_rank_child(w, i, root, ctx_id, setup_flags, timeout_ms);
	}
	close(w->results[1]);
	close(w->go[0]);
	return 0;
}

/*
 * Reads every rank's result (into w->res, by rank), waiting at most
 * @timeout_s in all, and at most @grace_s more once a rank has reported a
 * failure: the others should hear of it by then. Returns how many arrived.
 */
static inline int encd_world_results(struct encd_world *w, double timeout_s, double grace_s)
{
	double end = encd_now() + timeout_s;
	struct encd_rank_result res;
	struct pollfd p = { .fd = w->results[0], .events = POLLIN };
	int got = 0, left;

	while (got < w->n) {
		left = (int)((end - encd_now()) * 1000);
		if (left <= 0 || poll(&p, 1, left) <= 0)
			break;
		if (read(w->results[0], &res, sizeof(res)) != sizeof(res))
			break;
		if (res.rank >= (__u32)w->n || w->reported[res.rank])
			break;
		w->res[res.rank] = res;
		w->reported[res.rank] = true;
		got++;
		if (res.err && encd_now() + grace_s < end)
			end = encd_now() + grace_s;
	}
	return got;
}

/*
 * Kills rank @i, which has not reported, and reaps it: how long that took
 * in seconds, or -1 if it did not die of the signal within 10 s.
 */
static inline double encd_world_kill(struct encd_world *w, int i)
{
	double t = encd_kill_and_reap(w->pid[i], 10);

	if (t >= 0)
		w->pid[i] = 0;
	return t;
}

/*
 * Lets every rank go and reaps them (killing any that is still there after
 * @timeout_s), but those encd_world_kill() reaped. Returns how many did not
 * exit with status 0 on their own.
 */
static inline int encd_world_end(struct encd_world *w, double timeout_s)
{
	double end = encd_now() + timeout_s;
	int i, status, bad = 0;
	pid_t p;

	close(w->go[1]);
	close(w->results[0]);
	for (i = 0; i < w->n; i++) {
		if (!w->pid[i])
			continue;
		while ((p = waitpid(w->pid[i], &status, WNOHANG)) == 0 && encd_now() < end)
			usleep(10 * 1000);
		if (p == 0) {
			kill(w->pid[i], SIGKILL);
			waitpid(w->pid[i], &status, 0);
			bad++;
		} else if (p < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			bad++;
		}
	}
	return bad;
}

/*
 * The harness's ASSERT_*() expand to two statements (the check, then an
 * optional handler): under a for or an if they need braces.
 */

/* @expr (an encd_* call) succeeds; the kernel's sentence is logged if not. */
#define test_cmd(expr)							\
	ASSERT_EQ(0, expr) {						\
		TH_LOG("%s: %s", #expr, encd_msg);			\
	}

/*
 * @expr fails with @_errno and, when @_msg is not NULL, the kernel's
 * sentence is exactly @_msg. A failure with a sentence has a reason too.
 */
#define test_err(_errno, _msg, expr)					\
	do {								\
		const char *__msg = (_msg);				\
		ASSERT_EQ(_errno, expr) {				\
			TH_LOG("%s: %s", #expr, encd_msg);		\
		}							\
		if (__msg) {					\
			ASSERT_STREQ(__msg, encd_msg);			\
		}							\
		if (encd_msg[0]) {					\
			ASSERT_NE(ENCD_REASON_NONE, encd_reason);	\
			ASSERT_GT(__ENCD_REASON_CNT, encd_reason);	\
		}							\
	} while (0)

/* As test_err(), and the failure's reason is @_reason (ENCD_REASON_*). */
#define test_why(_errno, _reason, _msg, expr)				\
	do {								\
		test_err(_errno, _msg, expr);				\
		ASSERT_EQ(_reason, encd_reason) {			\
			TH_LOG("%s: reason %u: %s", #expr, encd_reason,	\
			       encd_msg);				\
		}							\
	} while (0)

/* As test_err(), when only the start of the sentence is pinned down. */
#define test_err_prefix(_errno, _prefix, expr)				\
	do {								\
		const char *__pfx = (_prefix);				\
		ASSERT_EQ(_errno, expr) {				\
			TH_LOG("%s: %s", #expr, encd_msg);		\
		}							\
		ASSERT_EQ(0, strncmp(__pfx, encd_msg, strlen(__pfx))) {	\
			TH_LOG("'%s' does not start with '%s'",		\
			       encd_msg, __pfx);			\
		}							\
	} while (0)

/*
 * Fail-nth: every allocation failure a call can meet, one at a time.
 *
 * Writing N to /proc/self/task/<tid>/fail-nth makes the Nth fault-injection
 * point this thread passes from then on fail, once
 * (Documentation/fault-injection/fault-injection.rst). A walk makes the same
 * call with N = 1, 2, ... until a call no longer reaches point N: then each
 * point the call passes has failed once, in turn, and every failure must be
 * ENOMEM and leave the state a test checks as before (or as after a success).
 *
 * The points are those of two fault attributes, walked one at a time so that
 * each walk is as repeatable as the kernel allows:
 *   - ENCD_FAULT_SLAB, failslab (CONFIG_FAILSLAB): every kmalloc() and
 *     kmem_cache_alloc() of the thread, sleeping ones too. A kvmalloc() of
 *     more than a page whose kmalloc() fails then runs its vmalloc() fallback
 *     (which itself does not fail: fail-nth fails one point per call).
 *   - ENCD_FAULT_PAGE, fail_page_alloc (CONFIG_FAIL_PAGE_ALLOC) at every
 *     order and for highmem too: alloc_page(), a kmalloc() of more than two
 *     pages (kvmalloc() then falls back to vmalloc()), and the pages the slab
 *     allocator takes to grow a cache. The last come and go with the caches'
 *     state (KASAN's quarantine keeps freed objects from being reused at
 *     once), so a walk may end one point early or pass over one point; a
 *     walk that misses a sentence it expects is run again, three times at
 *     most.
 * Only the calling thread's own allocations are points: what a workqueue, a
 * softirq or another task allocates is not reached. The debug lane's kernel
 * has both attributes; Debian's has neither (nor fail-nth), and there the
 * tests skip.
 */
#define ENCD_FAILNTH_MAX	2000
#define ENCD_FAILNTH_WALKS	3
#define ENCD_FAILNTH_SENTENCES	16
#define ENCD_FAILSLAB		"/sys/kernel/debug/failslab/"
#define ENCD_FAIL_PAGE_ALLOC	"/sys/kernel/debug/fail_page_alloc/"

enum encd_fault {
	ENCD_FAULT_SLAB,
	ENCD_FAULT_PAGE,
};

/* This thread's fail-nth, as a fixture sets it up. */
struct encd_failnth {
	int fd;			/* /proc/self/task/<tid>/fail-nth, -1 without one */
	const char *why;	/* why there is none */
};

/* One walk: what the test expects of it, and what it saw. */
struct encd_failnth_walk {
	enum encd_fault fault;
	int min_points;		/* the allocations the call is known to make */
	bool none_ok;		/* it may make none of this kind at all */
	const char *expect[ENCD_FAILNTH_SENTENCES];	/* sentences some failure must give */
	/* filled in by the walk */
	int nth;		/* the point armed for the current call */
	int walk;		/* 1, 2, ...: walks made */
	int points;		/* the most points one walk reached */
	bool injected;		/* the current call reached its armed point */
	int failures;		/* calls that failed (ENOMEM), over all walks */
	int n_seen;
	char seen[ENCD_FAILNTH_SENTENCES][256];	/* distinct sentences of those */
};

/*
 * Makes every allocation a point of one fault attribute and none a point of
 * the other; with @fault < 0, puts both back as the kernel boots them.
 */
static inline int encd_fault_config(int fault)
{
	static const struct {
		const char *file, *val[3];	/* ENCD_FAULT_SLAB, ENCD_FAULT_PAGE, default */
	} knobs[] = {
		/* no stack dump per injected failure */
		{ ENCD_FAILSLAB "verbose", { "0", "0", "2" } },
		{ ENCD_FAILSLAB "ignore-gfp-wait", { "N", "Y", "Y" } },
		/* no cache is marked SLAB_FAILSLAB: failslab then fails nothing */
		{ ENCD_FAILSLAB "cache-filter", { "N", "Y", "N" } },
		{ ENCD_FAIL_PAGE_ALLOC "verbose", { "0", "0", "2" } },
		{ ENCD_FAIL_PAGE_ALLOC "ignore-gfp-wait", { "Y", "N", "Y" } },
		{ ENCD_FAIL_PAGE_ALLOC "ignore-gfp-highmem", { "Y", "N", "Y" } },
		/* above MAX_ORDER: fail_page_alloc then fails nothing */
		{ ENCD_FAIL_PAGE_ALLOC "min-order", { "100", "0", "1" } },
	};
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		err = encd_write_str(knobs[i].file, knobs[i].val[fault < 0 ? 2 : fault]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Opens this thread's fail-nth; without it (or without either attribute)
 * f->fd is -1 and f->why says what the kernel lacks. Every test must then
 * skip with encd_require_failnth(): the 6.1 harness runs a test's body even
 * when its setup skipped.
 */
static inline void encd_failnth_setup(struct __test_metadata *_metadata, struct encd_failnth *f)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", syscall(SYS_gettid));
	f->fd = open(path, O_RDWR | O_CLOEXEC);
	if (f->fd < 0) {
		f->why = "no fail-nth: the kernel lacks CONFIG_FAULT_INJECTION";
		return;
	}
	if (access(ENCD_FAILSLAB, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(ENCD_FAILSLAB, F_OK))
		f->why = "no " ENCD_FAILSLAB ": the kernel lacks CONFIG_FAILSLAB";
	else if (access(ENCD_FAIL_PAGE_ALLOC, F_OK))
		f->why = "no " ENCD_FAIL_PAGE_ALLOC ": the kernel lacks CONFIG_FAIL_PAGE_ALLOC";
	else
		f->why = NULL;
	if (f->why) {
		close(f->fd);
		f->fd = -1;
		return;
	}
	/* The sentence buffer is touched before any walk: no page fault in one. */
	encd_msg[0] = '\0';
}

static inline void encd_failnth_teardown(struct encd_failnth *f)
{
	if (f->fd < 0)
		return;
	encd_fault_config(-1);
	close(f->fd);
}

#define encd_require_failnth(f)						\
	do {								\
		if ((f)->fd < 0)					\
			SKIP(return, "%s", (f)->why);			\
	} while (0)

static inline bool encd_failnth_seen(const struct encd_failnth_walk *w, const char *msg)
{
	int i;

	for (i = 0; i < w->n_seen; i++)
		if (!strcmp(w->seen[i], msg))
			return true;
	return false;
}

static inline bool encd_failnth_all_seen(const struct encd_failnth_walk *w)
{
	int i;

	for (i = 0; i < ENCD_FAILNTH_SENTENCES && w->expect[i]; i++)
		if (!encd_failnth_seen(w, w->expect[i]))
			return false;
	return true;
}

/*
 * The condition of for_each_failnth(): arms nothing, decides whether there
 * is another call to make and with which N.
 */
static inline bool encd_failnth_next(struct __test_metadata *_metadata,
				     struct encd_failnth_walk *w)
{
	if (!w->walk) {
		ASSERT_EQ(0, encd_fault_config(w->fault));
		w->walk = 1;
		w->nth = 1;
		return true;
	}
	if (w->injected) {
		w->nth++;
		ASSERT_GT(ENCD_FAILNTH_MAX, w->nth) {
			TH_LOG("the call passed more than %d fault-injection points",
			       ENCD_FAILNTH_MAX);
		}
		return true;
	}
	/* The last call got through without reaching point nth: it has nth - 1. */
	if (w->nth - 1 > w->points)
		w->points = w->nth - 1;
	if (encd_failnth_all_seen(w) || w->walk == ENCD_FAILNTH_WALKS)
		return false;
	w->walk++;
	w->nth = 1;
	return true;
}

/* Makes the @w->nth point this thread passes from now on fail. */
static inline void encd_failnth_arm(struct __test_metadata *_metadata, struct encd_failnth *f,
				    struct encd_failnth_walk *w)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", w->nth);

	ASSERT_EQ(len, pwrite(f->fd, buf, len, 0));
}

/*
 * Disarms, notes whether the armed point was reached (and so failed), and
 * holds a failed call to the rules: it failed because of the injection, with
 * ENOMEM (or EIO at a socket fault point); its sentence is kept.
 */
static inline void encd_failnth_disarm(struct __test_metadata *_metadata, struct encd_failnth *f,
				       struct encd_failnth_walk *w, int err)
{
	char buf[16] = "";

	ASSERT_LT(0, pread(f->fd, buf, sizeof(buf) - 1, 0));
	ASSERT_EQ(1, pwrite(f->fd, "0", 1, 0));
	w->injected = atoi(buf) == 0;
	if (!err)
		return;
	ASSERT_TRUE(w->injected) {
		TH_LOG("failed with %d (%s) without an injected failure", err, encd_msg);
	}
	/*
	 * The task's fail-nth counts every fault point the kernel asks, the
	 * module's own too (kmod/fault.c, built into the debug lane's module):
	 * those fail a socket call with EIO, and the sentence says so. A
	 * socket's file that cannot be allocated is ENFILE, and a bind whose
	 * bucket cannot be allocated EADDRINUSE, as the kernel says them.
	 */
	ASSERT_TRUE(err == ENOMEM || err == ENFILE || err == EADDRINUSE ||
		    (err == EIO && strstr(encd_msg, "(injected)"))) {
		TH_LOG("point %d: %s: %s", w->nth, strerror(err), encd_msg);
	}
	w->failures++;
	if (!encd_failnth_seen(w, encd_msg) && w->n_seen < ENCD_FAILNTH_SENTENCES)
		snprintf(w->seen[w->n_seen++], sizeof(w->seen[0]), "%s", encd_msg);
}

/*
 * for_each_failnth(w) { err = encd_failnth_call(f, w, call); check; }
 * walks the points of @w->fault (see above); encd_failnth_done() then holds
 * the walk to what it expects.
 */
#define for_each_failnth(w)	while (encd_failnth_next(_metadata, w))

/* Evaluates @expr (an errno) with the current point armed. */
#define encd_failnth_call(f, w, expr)					\
	({								\
		int __err;						\
		encd_failnth_arm(_metadata, f, w);			\
		__err = (expr);						\
		encd_failnth_disarm(_metadata, f, w, __err);		\
		__err;							\
	})

/*
 * After a walk: it ended with a call that reached no armed point, it reached
 * at least @w->min_points points, and some failure gave each sentence the
 * test expects ("" is a failure with no sentence).
 */
static inline void encd_failnth_done(struct __test_metadata *_metadata,
				     struct encd_failnth_walk *w)
{
	int i, j;

	ASSERT_FALSE(w->injected);
	ASSERT_LE(!w->none_ok, w->points) {
		TH_LOG("no allocation could be made to fail");
	}
	ASSERT_LE(w->min_points, w->points) {
		TH_LOG("%d points, fewer than the %d allocations the call makes",
		       w->points, w->min_points);
	}
	for (i = 0; i < ENCD_FAILNTH_SENTENCES && w->expect[i]; i++) {
		ASSERT_TRUE(encd_failnth_seen(w, w->expect[i])) {
			TH_LOG("no failure said \"%s\"; they said:", w->expect[i]);
			for (j = 0; j < w->n_seen; j++)
				TH_LOG("  \"%s\"", w->seen[j]);
		}
	}
	TH_LOG("%s: %d point(s) failed in turn, %d call(s) failed with ENOMEM, %d walk(s)",
	       w->fault == ENCD_FAULT_SLAB ? "failslab" : "fail_page_alloc", w->points,
	       w->failures, w->walk);
}

/* open(2) of /dev/encd as an errno, for encd_failnth_call(). */
static inline int encd_open_errno(int *fd)
{
	*fd = encd_open();
	return *fd < 0 ? errno : 0;
}

#endif /* _ENCD_TEST_H */
