// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failure on the way through open, BUILD, VALIDATE, GET,
 * RELEASE and mmap, one at a time, with the kernel's fail-nth (iommufd's
 * selftest does the same; see the fail-nth walk in encd_test.h for which
 * allocations that reaches): the call fails with ENOMEM or succeeds, and
 * either way leaves no comm half made, no hold it did not report, and (the
 * debug lane's kmemleak checks after the program) nothing leaked. Each walk
 * checks how many points it reached and that the failures said what each
 * allocation site says.
 *
 * Needs CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC,
 * which only the debug lane's kernel has; elsewhere the tests skip.
 */
#include <sys/mman.h>

#include "encd_test.h"

FIXTURE(failnth) {
	struct encd_failnth fn;
	int probe;
};

FIXTURE_SETUP(failnth)
{
	self->probe = -1;
	encd_failnth_setup(_metadata, &self->fn);
	if (self->fn.fd < 0)
		return;
	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
}

FIXTURE_TEARDOWN(failnth)
{
	encd_failnth_teardown(&self->fn);
	if (self->probe >= 0)
		close(self->probe);
}

/* The file (the VFS's struct file and name) and encd's per-file state. */
TEST_F(failnth, open)
{
	struct encd_failnth_walk w = { .fault = ENCD_FAULT_SLAB, .min_points = 2 };
	int fd;

	encd_require_failnth(&self->fn);

	for_each_failnth(&w) {
		if (encd_failnth_call(&self->fn, &w, encd_open_errno(&fd)))
			continue;
		/* An fd that opened works, whichever allocator its state came from. */
		test_cmd(encd_build(fd, 1, 0, 1, 0, NULL));
		close(fd);
	}
	encd_failnth_done(_metadata, &w);
	test_err(ENOENT, NULL, encd_get(self->probe, 1, 0, NULL));
}

static void build_walk(struct __test_metadata *_metadata, FIXTURE_DATA(failnth) *self,
		       struct encd_failnth_walk *w)
{
	struct encd_glb_comm_header hdr;
	int fd, err;
	__u32 out;

	for_each_failnth(w) {
		fd = encd_open();
		ASSERT_LE(0, fd);
		err = encd_failnth_call(&self->fn, w, encd_build(fd, 2, 1, 4, 1, &out));
		if (err) {
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
	encd_failnth_done(_metadata, w);
}

/*
 * The command's copy of its argument and the comm (slab), its semaphore
 * buffer (a page).
 */
TEST_F(failnth, build_of_a_new_comm)
{
	struct encd_failnth_walk slab = {
		.fault = ENCD_FAULT_SLAB, .min_points = 2,
		.expect = { "", "Failed to allocate the global comm" },
	};
	struct encd_failnth_walk page = {
		.fault = ENCD_FAULT_PAGE, .min_points = 1,
		.expect = {
			"global comm failed to mmap memory for the semaphore increment value buffer",
		},
	};

	encd_require_failnth(&self->fn);
	build_walk(_metadata, self, &slab);
	build_walk(_metadata, self, &page);
}

/* BUILD and VALIDATE attaching a second holder: only the argument's copy. */
static void attach_walk(struct __test_metadata *_metadata, FIXTURE_DATA(failnth) *self,
			unsigned long cmd)
{
	struct encd_failnth_walk w = {
		.fault = ENCD_FAULT_SLAB, .min_points = 1, .expect = { "" },
	};
	struct encd_glb_comm_header hdr;
	int fd, err;

	test_cmd(encd_build(self->probe, 3, 1, 2, 0, NULL));
	for_each_failnth(&w) {
		fd = encd_open();
		ASSERT_LE(0, fd);
		err = encd_failnth_call(&self->fn, &w, encd_gcomm(fd, cmd, 0, 3, 1, 2, 0, NULL));
		test_cmd(encd_get(self->probe, 3, 0, &hdr));
		ASSERT_EQ(err ? 1 : 2, hdr.holders);
		close(fd);
		test_cmd(encd_get(self->probe, 3, 0, &hdr));
		ASSERT_EQ(1, hdr.holders);
	}
	encd_failnth_done(_metadata, &w);
}

TEST_F(failnth, build_of_an_existing_comm)
{
	encd_require_failnth(&self->fn);
	attach_walk(_metadata, self, ENCD_IOC_BUILD_GLOBAL_COMM);
}

TEST_F(failnth, validate_of_an_existing_comm)
{
	encd_require_failnth(&self->fn);
	attach_walk(_metadata, self, ENCD_IOC_VALIDATE_GLOBAL_COMM);
}

/* Two commands' copies of their arguments, and the last holder's teardown. */
TEST_F(failnth, get_and_release)
{
	struct encd_failnth_walk w = {
		.fault = ENCD_FAULT_SLAB, .min_points = 2, .expect = { "" },
	};
	int err;

	encd_require_failnth(&self->fn);

	for_each_failnth(&w) {
		test_cmd(encd_build(self->probe, 4, 0, 1, 0, NULL));
		err = encd_failnth_call(&self->fn, &w,
					encd_get(self->probe, 4, 0, NULL) ?:
					encd_release(self->probe, 4, 0));
		if (err)
			test_cmd(encd_release(self->probe, 4, 0));
		test_err(ENOENT, NULL, encd_get(self->probe, 4, 0, NULL));
	}
	encd_failnth_done(_metadata, &w);
}

static int map_errno(int fd, __u64 off, __u32 **v)
{
	*v = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, off);
	return *v == MAP_FAILED ? errno : 0;
}

/* The mapping (the mm's vma); the page is the comm's, made at BUILD. */
TEST_F(failnth, mmap)
{
	struct encd_failnth_walk w = { .fault = ENCD_FAULT_SLAB, .min_points = 1 };
	struct encd_glb_comm_header hdr;
	__u32 *v;

	encd_require_failnth(&self->fn);

	test_cmd(encd_build(self->probe, 5, 0, 1, 0, NULL));
	test_cmd(encd_get(self->probe, 5, 0, &hdr));
	for_each_failnth(&w) {
		if (encd_failnth_call(&self->fn, &w,
				      map_errno(self->probe, hdr.inc_recv_sem_values_buffer, &v)))
			continue;
		ASSERT_EQ(128, v[128]);
		ASSERT_EQ(0, munmap(v, getpagesize()));
	}
	encd_failnth_done(_metadata, &w);
	test_cmd(encd_release(self->probe, 5, 0));
}

TEST_HARNESS_MAIN
