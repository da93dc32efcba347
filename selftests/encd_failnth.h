/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fail-nth walk shared by the fail-nth programs, with the interface
 * encd_test.h gives it where encd_test.h already has it (it defines
 * ENCD_FAILNTH_MAX then, and this header adds nothing).
 */
#ifndef _ENCD_FAILNTH_H
#define _ENCD_FAILNTH_H

#include <stdlib.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "encd_test.h"

#ifndef ENCD_FAILNTH_MAX

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
 * ENOMEM; its sentence is kept.
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
	ASSERT_EQ(ENOMEM, err) {
		TH_LOG("point %d: %s", w->nth, encd_msg);
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
	ASSERT_LE(1, w->points) {
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

#endif /* ENCD_FAILNTH_MAX */

#endif /* _ENCD_FAILNTH_H */
