// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failure on the way through open, BUILD, VALIDATE, GET and
 * mmap, one at a time, with the kernel's fail-nth (iommufd's selftest does
 * the same): the call fails with ENOMEM or succeeds, and either way leaves
 * no comm half made, no hold it did not report, and (the debug lane's
 * kmemleak checks after the program) nothing leaked.
 *
 * Needs CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB, which only the debug
 * lane's kernel has; elsewhere the tests skip.
 */
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "encd_test.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define MAX_NTH		1000

FIXTURE(failnth) {
	int nth_fd;		/* this thread's fail-nth, -1 without one */
	const char *why;	/* why there is none */
	int probe;
};

static int write_str(const char *path, const char *val)
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
 * Skipping is left to each test: the 6.1 harness runs a test's body even
 * when its setup skipped.
 */
FIXTURE_SETUP(failnth)
{
	char path[64];

	self->probe = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", syscall(SYS_gettid));
	self->nth_fd = open(path, O_RDWR | O_CLOEXEC);
	if (self->nth_fd < 0) {
		self->why = "no fail-nth: the kernel lacks CONFIG_FAULT_INJECTION";
		return;
	}
	if (access(FAILSLAB, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(FAILSLAB, F_OK)) {
		self->why = "no " FAILSLAB ": the kernel lacks CONFIG_FAILSLAB";
		close(self->nth_fd);
		self->nth_fd = -1;
		return;
	}
	/* GFP_KERNEL allocations too, and no stack dump per injected failure */
	ASSERT_EQ(0, write_str(FAILSLAB "ignore-gfp-wait", "N"));
	ASSERT_EQ(0, write_str(FAILSLAB "verbose", "0"));
	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
}

FIXTURE_TEARDOWN(failnth)
{
	if (self->nth_fd < 0)
		return;
	write_str(FAILSLAB "ignore-gfp-wait", "Y");
	close(self->nth_fd);
	if (self->probe >= 0)
		close(self->probe);
}

#define require_failnth()						\
	do {								\
		if (self->nth_fd < 0)					\
			SKIP(return, "%s", self->why);			\
	} while (0)

/* Arms the @nth fault-injection point this thread reaches from now on. */
static void arm(struct __test_metadata *_metadata, int nth_fd, int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", nth);

	ASSERT_EQ(len, pwrite(nth_fd, buf, len, 0));
}

/* Disarms; whether the armed point was reached (and so failed). */
static bool disarm(struct __test_metadata *_metadata, int nth_fd)
{
	char buf[16] = "";

	ASSERT_LT(0, pread(nth_fd, buf, sizeof(buf) - 1, 0));
	ASSERT_EQ(1, pwrite(nth_fd, "0", 1, 0));
	return atoi(buf) == 0;
}

/*
 * After a for_each_nth() loop: it ended with a call that reached no armed
 * point, and failed at least one before (else nothing was tested).
 */
static void check_points(struct __test_metadata *_metadata, int nth, bool injected)
{
	ASSERT_FALSE(injected);
	ASSERT_LT(2, nth) {
		TH_LOG("no allocation could be made to fail");
	}
	TH_LOG("%d allocation points failed in turn", nth - 2);
}

/*
 * Loops with nth = 1, 2, ...: the body arms fault point nth, makes its call,
 * sets @injected from disarm() and checks the state, until a call gets
 * through without reaching the armed point.
 */
#define for_each_nth(nth, injected)					\
	for (nth = 1, injected = true; injected && nth < MAX_NTH; nth++)

TEST_F(failnth, open)
{
	bool injected;
	int nth, fd, err;

	require_failnth();

	for_each_nth(nth, injected) {
		arm(_metadata, self->nth_fd, nth);
		fd = encd_open();
		err = fd < 0 ? errno : 0;
		injected = disarm(_metadata, self->nth_fd);
		if (fd < 0) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
			continue;
		}
		test_cmd(encd_build(fd, 1, 0, 1, 0, NULL));
		close(fd);
	}
	check_points(_metadata, nth, injected);
	test_err(ENOENT, NULL, encd_get(self->probe, 1, 0, NULL));
}

TEST_F(failnth, build_of_a_new_comm)
{
	struct encd_glb_comm_header hdr;
	bool injected;
	int nth, fd, err;
	__u32 out;

	require_failnth();

	for_each_nth(nth, injected) {
		fd = encd_open();
		ASSERT_LE(0, fd);
		arm(_metadata, self->nth_fd, nth);
		err = encd_build(fd, 2, 1, 4, 1, &out);
		injected = disarm(_metadata, self->nth_fd);
		if (err) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
			/* nothing half-made, nothing held */
			test_err(ENOENT, NULL, encd_get(self->probe, 2, 1, NULL));
			test_err(ENOENT, NULL, encd_release(fd, 2, 1));
		} else {
			ASSERT_EQ(ENCD_GCOMM_OUT_CREATED, out);
			test_cmd(encd_get(self->probe, 2, 1, &hdr));
			ASSERT_EQ(1, hdr.holders);
		}
		close(fd);
		test_err(ENOENT, NULL, encd_get(self->probe, 2, 1, NULL));
	}
	check_points(_metadata, nth, injected);
}

/* BUILD and VALIDATE attaching a second holder to an existing comm. */
static void attach_walk(struct __test_metadata *_metadata, FIXTURE_DATA(failnth) *self,
			unsigned long cmd)
{
	struct encd_glb_comm_header hdr;
	bool injected;
	int nth, fd, err;

	for_each_nth(nth, injected) {
		fd = encd_open();
		ASSERT_LE(0, fd);
		arm(_metadata, self->nth_fd, nth);
		err = encd_gcomm(fd, cmd, 0, 3, 1, 2, 0, NULL);
		injected = disarm(_metadata, self->nth_fd);
		test_cmd(encd_get(self->probe, 3, 0, &hdr));
		if (err) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
			ASSERT_EQ(1, hdr.holders);
		} else {
			ASSERT_EQ(2, hdr.holders);
		}
		close(fd);
		test_cmd(encd_get(self->probe, 3, 0, &hdr));
		ASSERT_EQ(1, hdr.holders);
	}
	check_points(_metadata, nth, injected);
}

TEST_F(failnth, build_of_an_existing_comm)
{
	require_failnth();

	test_cmd(encd_build(self->probe, 3, 1, 2, 0, NULL));
	attach_walk(_metadata, self, ENCD_IOC_BUILD_GLOBAL_COMM);
}

TEST_F(failnth, validate_of_an_existing_comm)
{
	require_failnth();

	test_cmd(encd_build(self->probe, 3, 1, 2, 0, NULL));
	attach_walk(_metadata, self, ENCD_IOC_VALIDATE_GLOBAL_COMM);
}

TEST_F(failnth, get_and_release)
{
	bool injected;
	int nth, err;

	require_failnth();

	for_each_nth(nth, injected) {
		test_cmd(encd_build(self->probe, 4, 0, 1, 0, NULL));
		arm(_metadata, self->nth_fd, nth);
		err = encd_get(self->probe, 4, 0, NULL);
		if (!err)
			err = encd_release(self->probe, 4, 0);
		injected = disarm(_metadata, self->nth_fd);
		if (err) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
			test_cmd(encd_release(self->probe, 4, 0));
		}
		test_err(ENOENT, NULL, encd_get(self->probe, 4, 0, NULL));
	}
	check_points(_metadata, nth, injected);
}

TEST_F(failnth, mmap)
{
	size_t page = getpagesize();
	struct encd_glb_comm_header hdr;
	bool injected;
	int nth, err;
	__u32 *v;

	require_failnth();

	test_cmd(encd_build(self->probe, 5, 0, 1, 0, NULL));
	test_cmd(encd_get(self->probe, 5, 0, &hdr));
	for_each_nth(nth, injected) {
		arm(_metadata, self->nth_fd, nth);
		v = mmap(NULL, page, PROT_READ, MAP_SHARED, self->probe,
			 hdr.inc_recv_sem_values_buffer);
		err = v == MAP_FAILED ? errno : 0;
		injected = disarm(_metadata, self->nth_fd);
		if (v == MAP_FAILED) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
			continue;
		}
		ASSERT_EQ(128, v[128]);
		ASSERT_EQ(0, munmap(v, page));
	}
	check_points(_metadata, nth, injected);
	test_cmd(encd_release(self->probe, 5, 0));
}

TEST_HARNESS_MAIN
