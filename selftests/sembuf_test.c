// SPDX-License-Identifier: GPL-2.0
/*
 * The semaphore-increment value buffer, mapped from /dev/encd: its 129
 * values, read-only for good, one page, only for an fd that holds the comm,
 * and still readable after the comm is gone.
 */
#include <signal.h>
#include <sys/mman.h>

#include "encd_test.h"

#define VNC	3
#define CTX	1

FIXTURE(sembuf) {
	int fd;
	size_t page;
	off_t off;
};

FIXTURE_SETUP(sembuf)
{
	struct encd_glb_comm_header hdr;

	self->page = getpagesize();
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	test_cmd(encd_build(self->fd, VNC, 0, 2, CTX, NULL));
	test_cmd(encd_get(self->fd, VNC, CTX, &hdr));
	self->off = hdr.inc_recv_sem_values_buffer;
}

FIXTURE_TEARDOWN(sembuf)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The whole page: the header, 1..128, then zeroes. */
static void check_values(struct __test_metadata *_metadata, const __u32 *v, size_t page)
{
	size_t n;

	ASSERT_EQ(ENCD_SEM_VALUES_HEADER, v[0]);
	ASSERT_EQ(0x10000, v[0]);
	for (n = 1; n < ENCD_SEM_VALUES_N; n++) {
		ASSERT_EQ(n, v[n]);
	}
	for (n = ENCD_SEM_VALUES_N; n < page / sizeof(*v); n++) {
		ASSERT_EQ(0, v[n]) {
			TH_LOG("value %zu", n);
		}
	}
}

static __u32 *map(FIXTURE_DATA(sembuf) *self, int prot, int flags)
{
	return mmap(NULL, self->page, prot, flags, self->fd, self->off);
}

TEST_F(sembuf, the_offset_names_the_core_and_context)
{
	/* slot 3 * 2 + 1: one page per (core, context) */
	ASSERT_EQ(7 * self->page, self->off);
}

TEST_F(sembuf, the_buffer_holds_the_header_and_129_values)
{
	__u32 *v = map(self, PROT_READ, MAP_SHARED);

	ASSERT_NE(MAP_FAILED, v);
	check_values(_metadata, v, self->page);
	ASSERT_EQ(0, munmap(v, self->page));
}

TEST_F(sembuf, a_private_read_only_mapping_is_allowed)
{
	__u32 *v = map(self, PROT_READ, MAP_PRIVATE);

	ASSERT_NE(MAP_FAILED, v);
	check_values(_metadata, v, self->page);
	ASSERT_EQ(0, munmap(v, self->page));
}

TEST_F(sembuf, a_writable_mapping_is_eperm)
{
	ASSERT_EQ(MAP_FAILED, map(self, PROT_READ | PROT_WRITE, MAP_SHARED));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(MAP_FAILED, map(self, PROT_WRITE, MAP_SHARED));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(MAP_FAILED, map(self, PROT_READ | PROT_WRITE, MAP_PRIVATE));
	ASSERT_EQ(EPERM, errno);
}

TEST_F(sembuf, mprotect_to_writable_is_refused)
{
	__u32 *v = map(self, PROT_READ, MAP_SHARED);
	__u32 *p = map(self, PROT_READ, MAP_PRIVATE);

	ASSERT_NE(MAP_FAILED, v);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(-1, mprotect(v, self->page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(EACCES, errno);
	/* not even as a private copy */
	ASSERT_EQ(-1, mprotect(p, self->page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(EACCES, errno);
	check_values(_metadata, v, self->page);
}

TEST_F_SIGNAL(sembuf, a_store_to_the_mapping_faults, SIGSEGV)
{
	__u32 *v = map(self, PROT_READ, MAP_SHARED);

	ASSERT_NE(MAP_FAILED, v);
	v[1] = 2;
}

TEST_F(sembuf, only_one_page_can_be_mapped)
{
	void *v;

	v = mmap(NULL, 2 * self->page, PROT_READ, MAP_SHARED, self->fd, self->off);
	ASSERT_EQ(MAP_FAILED, v);
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(sembuf, mapping_needs_an_fd_that_holds_the_comm)
{
	int other = encd_open();
	void *v;

	ASSERT_LE(0, other);
	v = mmap(NULL, self->page, PROT_READ, MAP_SHARED, other, self->off);
	ASSERT_EQ(MAP_FAILED, v);
	ASSERT_EQ(ENOENT, errno);

	/* once it holds it, it may */
	test_cmd(encd_build(other, VNC, 0, 2, CTX, NULL));
	v = mmap(NULL, self->page, PROT_READ, MAP_SHARED, other, self->off);
	ASSERT_NE(MAP_FAILED, v);
	check_values(_metadata, v, self->page);
	close(other);
}

TEST_F(sembuf, offsets_of_absent_or_impossible_comms_are_refused)
{
	void *v;

	/* core 4 has no comm */
	v = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd,
		 ENCD_SEM_MMAP_OFFSET(4, 0, self->page));
	ASSERT_EQ(MAP_FAILED, v);
	ASSERT_EQ(ENOENT, errno);

	/* past the last slot */
	v = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd,
		 ENCD_SEM_MMAP_OFFSET(ENCD_NEC_MAX_DEVICES, 0, self->page));
	ASSERT_EQ(MAP_FAILED, v);
	ASSERT_EQ(EINVAL, errno);

	/* not on a page boundary */
	v = mmap(NULL, self->page, PROT_READ, MAP_SHARED, self->fd, self->off + 4);
	ASSERT_EQ(MAP_FAILED, v);
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(sembuf, the_mapping_outlives_a_release_that_destroys_the_comm)
{
	__u32 *v = map(self, PROT_READ, MAP_SHARED);

	ASSERT_NE(MAP_FAILED, v);
	test_cmd(encd_release(self->fd, VNC, CTX));
	test_err(ENOENT, NULL, encd_get(self->fd, VNC, CTX, NULL));
	check_values(_metadata, v, self->page);

	/* a new comm on the same slot does not disturb the old page */
	test_cmd(encd_build(self->fd, VNC, 1, 4, CTX, NULL));
	test_cmd(encd_release(self->fd, VNC, CTX));
	check_values(_metadata, v, self->page);
	ASSERT_EQ(0, munmap(v, self->page));
}

/*
 * A mapping holds the file like an fd does: closing the fd does not let go
 * of the comm while the buffer is mapped, unmapping the last of it does.
 */
TEST_F(sembuf, a_mapping_keeps_the_files_comms_until_unmapped)
{
	__u32 *v = map(self, PROT_READ, MAP_PRIVATE);
	int probe = encd_open();

	ASSERT_NE(MAP_FAILED, v);
	ASSERT_LE(0, probe);
	close(self->fd);
	self->fd = -1;
	test_cmd(encd_get(probe, VNC, CTX, NULL));
	check_values(_metadata, v, self->page);

	ASSERT_EQ(0, munmap(v, self->page));
	test_err(ENOENT, NULL, encd_get(probe, VNC, CTX, NULL));
	close(probe);
}

TEST_F(sembuf, a_released_slot_cannot_be_mapped_again)
{
	test_cmd(encd_release(self->fd, VNC, CTX));
	ASSERT_EQ(MAP_FAILED, map(self, PROT_READ, MAP_SHARED));
	ASSERT_EQ(ENOENT, errno);
}

TEST_F(sembuf, every_holder_maps_the_same_values)
{
	int other = encd_open();
	__u32 *a, *b;

	ASSERT_LE(0, other);
	test_cmd(encd_build(other, VNC, 0, 2, CTX, NULL));
	a = map(self, PROT_READ, MAP_SHARED);
	b = mmap(NULL, self->page, PROT_READ, MAP_SHARED, other, self->off);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_NE(MAP_FAILED, b);
	ASSERT_EQ(0, memcmp(a, b, self->page));
	close(other);
}

TEST_HARNESS_MAIN
