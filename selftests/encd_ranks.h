/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ranks of a world as child processes, for the tests that form worlds
 * through raw ioctls and need each rank's own errno and sentence: a rank
 * builds its comm on core (vnc) = its rank, context @ctx_id, sets the world
 * up, reports the outcome on a pipe, then holds its world until the parent
 * lets all ranks go together (so that no rank leaves while another is still
 * forming, which would fail that one's world).
 */
#ifndef _ENCD_RANKS_H
#define _ENCD_RANKS_H

#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>

#include "encd_test.h"

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

static inline double encd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One rank's child: never returns. */
static inline void encd_rank_child(struct encd_world *w, __u32 rank, const char *root,
				   __u32 ctx_id, __u32 setup_flags, __u32 timeout_ms)
{
	struct encd_rank_result res = { .rank = rank };
	struct encd_global_comm_req req = {
		.vnc = rank, .g_device_id = rank, .g_device_cnt = w->n, .ctx_id = ctx_id,
	};
	struct encd_setup_global_comm s = {
		.head.flags = setup_flags, .vnc = rank, .ctx_id = ctx_id, .timeout_ms = timeout_ms,
	};
	double t;
	char c;
	int fd;

	close(w->results[0]);
	close(w->go[1]);
	snprintf(req.root_comm_id, sizeof(req.root_comm_id), "%s", root);
	fd = encd_open();
	if (fd < 0) {
		res.err = errno;
		snprintf(res.msg, sizeof(res.msg), "cannot open %s", ENCD_DEV);
	} else {
		res.err = encd_cmd(fd, ENCD_IOC_BUILD_GLOBAL_COMM, &req, sizeof(req));
		if (!res.err) {
			t = encd_now();
			res.err = encd_cmd(fd, ENCD_IOC_SETUP_GLOBAL_COMM, &s, sizeof(s));
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
 * in seconds, or -1 if it did not die of the signal.
 */
static inline double encd_world_kill(struct encd_world *w, int i)
{
	double t = encd_now();
	int status;

	if (kill(w->pid[i], SIGKILL) || waitpid(w->pid[i], &status, 0) != w->pid[i] ||
	    !WIFSIGNALED(status))
		return -1;
	w->pid[i] = 0;
	return encd_now() - t;
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

#endif /* _ENCD_RANKS_H */
