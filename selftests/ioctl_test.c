// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl boundary of /dev/encd, iommufd style: every command's struct
 * can grow (short: EINVAL, longer with a non-zero tail: E2BIG, longer with a
 * zero tail: fine), bad pointers are EFAULT, unknown commands ENOTTY, unknown
 * flags EOPNOTSUPP, and a failure's sentence reaches the caller's buffer.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "encd_test.h"

/* Room for any command's struct plus a tail. */
#define ARG_MAX		1024

struct cmd_desc {
	const char *name;
	unsigned long cmd;
	size_t size;
	__u32 known_flags;
};

static const struct cmd_desc cmds[] = {
	{ "VERSION", ENCD_IOC_VERSION, sizeof(struct encd_version), 0 },
	{ "BUILD", ENCD_IOC_BUILD_GLOBAL_COMM, sizeof(struct encd_global_comm_req),
	  ENCD_GCOMM_CHECK_SIGS },
	{ "VALIDATE", ENCD_IOC_VALIDATE_GLOBAL_COMM, sizeof(struct encd_global_comm_req),
	  ENCD_GCOMM_CHECK_SIGS },
	{ "GET", ENCD_IOC_GET_GLOBAL_COMM, sizeof(struct encd_get_global_comm), 0 },
	{ "RELEASE", ENCD_IOC_RELEASE_GLOBAL_COMM, sizeof(struct encd_release_global_comm), 0 },
};

FIXTURE(ioctl) {
	int fd;
	size_t page;
	/* a struct for any command: a valid request that would succeed */
	union {
		struct encd_head head;
		__u8 bytes[ARG_MAX];
	} arg;
};

FIXTURE_SETUP(ioctl)
{
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	self->page = getpagesize();
}

FIXTURE_TEARDOWN(ioctl)
{
	close(self->fd);
}

/*
 * Fills self->arg with a request for @c that succeeds on a fresh module:
 * core 1 context 0, a world of one; GET and RELEASE find the comm BUILD made.
 */
static void *valid_arg(FIXTURE_DATA(ioctl) *self, const struct cmd_desc *c)
{
	void *arg = &self->arg;

	memset(arg, 0, sizeof(self->arg));
	switch (c->cmd) {
	case ENCD_IOC_BUILD_GLOBAL_COMM:
	case ENCD_IOC_VALIDATE_GLOBAL_COMM: {
		struct encd_global_comm_req *r = arg;

		r->vnc = 1;
		r->g_device_cnt = 1;
		break;
	}
	case ENCD_IOC_GET_GLOBAL_COMM:
		((struct encd_get_global_comm *)arg)->vnc = 1;
		break;
	case ENCD_IOC_RELEASE_GLOBAL_COMM:
		((struct encd_release_global_comm *)arg)->vnc = 1;
		break;
	}
	return arg;
}

/* Makes the comm valid_arg()'s GET and RELEASE expect, held by self->fd. */
static void hold_core1(struct __test_metadata *_metadata, int fd)
{
	test_cmd(encd_build(fd, 1, 0, 1, 0, NULL));
}

TEST_F(ioctl, version_reports_the_api_and_topology)
{
	struct encd_version ver = { 0 };

	test_cmd(encd_cmd(self->fd, ENCD_IOC_VERSION, &ver, sizeof(ver)));
	ASSERT_EQ(ENCD_API_VERSION, ver.api_version);
	ASSERT_EQ(ENCD_DEFAULT_VCORES, ver.num_vcores);
	ASSERT_EQ(ENCD_MAX_CONTEXTS, ver.max_contexts);
	ASSERT_EQ(ENCD_SEM_VALUES_SIZE, ver.sem_values_size);
}

TEST_F(ioctl, unknown_commands_are_enotty)
{
	const unsigned long unknown[] = {
		_IO(ENCD_TYPE, ENCD_CMD_BASE - 1),
		_IO(ENCD_TYPE, 0xff),
		_IO(ENCD_TYPE + 1, ENCD_CMD_VERSION),
		/* a known number with direction and size bits is another command */
		_IOWR(ENCD_TYPE, ENCD_CMD_VERSION, struct encd_version),
		_IOR(ENCD_TYPE, ENCD_CMD_BUILD_GLOBAL_COMM, __u32),
	};
	struct encd_version ver;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		memset(&ver, 0, sizeof(ver));
		ASSERT_EQ(ENOTTY, encd_cmd(self->fd, unknown[i], &ver, sizeof(ver))) {
			TH_LOG("command 0x%lx", unknown[i]);
		}
		/* nothing was answered */
		ASSERT_EQ(0, ver.api_version);
		ASSERT_STREQ("", encd_msg);
	}
}

TEST_F(ioctl, a_struct_shorter_than_the_kernels_is_einval)
{
	const size_t sizes[] = { 0, 1, sizeof(__u32), sizeof(struct encd_head) };
	const struct cmd_desc *c;
	size_t i;

	hold_core1(_metadata, self->fd);
	for (c = cmds; c < cmds + ARRAY_SIZE(cmds); c++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			ASSERT_EQ(EINVAL, encd_cmd(self->fd, c->cmd, valid_arg(self, c), sizes[i])) {
				TH_LOG("%s with size %zu", c->name, sizes[i]);
			}
		}
		ASSERT_EQ(EINVAL, encd_cmd(self->fd, c->cmd, valid_arg(self, c), c->size - 1)) {
			TH_LOG("%s one byte short", c->name);
		}
	}
	/* nothing was released */
	test_cmd(encd_get(self->fd, 1, 0, NULL));
}

TEST_F(ioctl, a_longer_struct_with_a_nonzero_tail_is_e2big)
{
	const struct cmd_desc *c;
	__u8 *arg;

	hold_core1(_metadata, self->fd);
	for (c = cmds; c < cmds + ARRAY_SIZE(cmds); c++) {
		arg = valid_arg(self, c);
		arg[c->size + 7] = 1;
		ASSERT_EQ(E2BIG, encd_cmd(self->fd, c->cmd, arg, c->size + 8)) {
			TH_LOG("%s", c->name);
		}
	}
	/* RELEASE did not run */
	test_cmd(encd_get(self->fd, 1, 0, NULL));
}

TEST_F(ioctl, a_longer_struct_with_a_zero_tail_is_accepted)
{
	const struct cmd_desc *c;
	__u8 *arg;
	size_t i;

	for (c = cmds; c < cmds + ARRAY_SIZE(cmds); c++) {
		arg = valid_arg(self, c);
		ASSERT_EQ(0, encd_cmd(self->fd, c->cmd, arg, c->size + 64)) {
			TH_LOG("%s: %s", c->name, encd_msg);
		}
		if (c->cmd == ENCD_IOC_VERSION) {
			ASSERT_EQ(ENCD_API_VERSION, ((struct encd_version *)arg)->api_version);
		}
		/* the answer stops where the kernel's struct does */
		for (i = c->size; i < c->size + 64; i++) {
			ASSERT_EQ(0, arg[i]);
		}
	}
	/* BUILD made the comm that GET read and RELEASE destroyed */
	test_err(ENOENT, NULL, encd_get(self->fd, 1, 0, NULL));
}

TEST_F(ioctl, a_longer_struct_gets_the_full_answer)
{
	struct {
		struct encd_get_global_comm get;
		__u8 tail[32];
	} big = { 0 };

	test_cmd(encd_build(self->fd, 1, 0, 1, 0, NULL));
	big.get.vnc = 1;
	test_cmd(encd_cmd(self->fd, ENCD_IOC_GET_GLOBAL_COMM, &big, sizeof(big)));
	ASSERT_EQ(1, big.get.hdr.g_device_cnt);
	ASSERT_STREQ(ENCD_TEST_ROOT, big.get.hdr.root_comm_id);
}

TEST_F(ioctl, a_bad_pointer_is_efault)
{
	const struct cmd_desc *c;
	__u8 *pages, *arg;

	/* a mapped page followed by a hole */
	pages = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, pages);
	ASSERT_EQ(0, munmap(pages + self->page, self->page));

	for (c = cmds; c < cmds + ARRAY_SIZE(cmds); c++) {
		ASSERT_EQ(-1, ioctl(self->fd, c->cmd, NULL));
		ASSERT_EQ(EFAULT, errno);
		ASSERT_EQ(-1, ioctl(self->fd, c->cmd, pages + self->page));
		ASSERT_EQ(EFAULT, errno);

		/* the size fits, the rest of the struct runs into the hole */
		arg = pages + self->page - sizeof(__u32);
		*(__u32 *)arg = c->size;
		ASSERT_EQ(-1, ioctl(self->fd, c->cmd, arg)) {
			TH_LOG("%s", c->name);
		}
		ASSERT_EQ(EFAULT, errno);
	}
	munmap(pages, self->page);
}

TEST_F(ioctl, an_answer_that_cannot_be_written_back_is_efault)
{
	struct encd_get_global_comm *get;
	struct encd_version *ver;
	void *page;

	test_cmd(encd_build(self->fd, 1, 0, 1, 0, NULL));
	page = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);

	ver = page;
	memset(ver, 0, sizeof(*ver));
	ver->head.size = sizeof(*ver);
	ASSERT_EQ(0, mprotect(page, self->page, PROT_READ));
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_VERSION, ver));
	ASSERT_EQ(EFAULT, errno);

	ASSERT_EQ(0, mprotect(page, self->page, PROT_READ | PROT_WRITE));
	get = page;
	memset(get, 0, sizeof(*get));
	get->head.size = sizeof(*get);
	get->vnc = 1;
	ASSERT_EQ(0, mprotect(page, self->page, PROT_READ));
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_GET_GLOBAL_COMM, get));
	ASSERT_EQ(EFAULT, errno);
	munmap(page, self->page);
}

/* The comm is made and held even when BUILD cannot write its answer back. */
TEST_F(ioctl, build_whose_answer_is_lost_still_holds_the_comm)
{
	struct encd_glb_comm_header hdr;
	struct encd_global_comm_req *req;
	void *page;

	page = mmap(NULL, self->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	req = page;
	memset(req, 0, sizeof(*req));
	req->head.size = sizeof(*req);
	req->vnc = 1;
	req->g_device_cnt = 1;
	ASSERT_EQ(0, mprotect(page, self->page, PROT_READ));
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_BUILD_GLOBAL_COMM, req));
	ASSERT_EQ(EFAULT, errno);

	test_cmd(encd_get(self->fd, 1, 0, &hdr));
	ASSERT_EQ(1, hdr.holders);
	test_cmd(encd_release(self->fd, 1, 0));
	test_err(ENOENT, NULL, encd_get(self->fd, 1, 0, NULL));
	munmap(page, self->page);
}

TEST_F(ioctl, unknown_flags_are_eopnotsupp)
{
	const struct cmd_desc *c;
	char want[64];
	__u32 bit;
	void *arg;

	for (c = cmds; c < cmds + ARRAY_SIZE(cmds); c++) {
		for (bit = 0; bit < 32; bit++) {
			if (c->known_flags & (1U << bit))
				continue;
			arg = valid_arg(self, c);
			self->arg.head.flags = (1U << bit) | c->known_flags;
			snprintf(want, sizeof(want), "Unknown flags 0x%x", 1U << bit);
			test_err(EOPNOTSUPP, want, encd_cmd(self->fd, c->cmd, arg, c->size));
		}
	}
	/* BUILD and VALIDATE made nothing */
	test_err(ENOENT, NULL, encd_get(self->fd, 1, 0, NULL));
}

TEST_F(ioctl, reserved_head_bits_are_einval)
{
	const struct cmd_desc *c;
	void *arg;

	for (c = cmds; c < cmds + ARRAY_SIZE(cmds); c++) {
		arg = valid_arg(self, c);
		self->arg.head.__reserved = 1;
		test_err(EINVAL, "encd_head.__reserved must be 0",
			 encd_cmd(self->fd, c->cmd, arg, c->size));
	}
	test_err(ENOENT, NULL, encd_get(self->fd, 1, 0, NULL));
}

TEST_F(ioctl, the_failure_sentence_is_cut_to_msg_len)
{
	struct encd_get_global_comm get = { .vnc = 99 };
	char msg[32];

	memset(msg, 'x', sizeof(msg));
	get.head.size = sizeof(get);
	get.head.msg_uptr = (uintptr_t)msg;
	get.head.msg_len = 8;
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_GET_GLOBAL_COMM, &get));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_STREQ("Failed ", msg);
	ASSERT_EQ('x', msg[8]);

	get.head.msg_len = 1;
	memset(msg, 'x', sizeof(msg));
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_GET_GLOBAL_COMM, &get));
	ASSERT_EQ('\0', msg[0]);
	ASSERT_EQ('x', msg[1]);
}

TEST_F(ioctl, no_sentence_is_written_without_msg_len)
{
	struct encd_get_global_comm get = { .vnc = 99 };
	char msg[32];

	memset(msg, 'x', sizeof(msg));
	get.head.size = sizeof(get);
	get.head.msg_uptr = (uintptr_t)msg;
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_GET_GLOBAL_COMM, &get));
	ASSERT_EQ(ENODEV, errno);
	ASSERT_EQ('x', msg[0]);
}

TEST_F(ioctl, a_bad_sentence_buffer_does_not_mask_the_error)
{
	struct encd_get_global_comm get = { .vnc = 99 };

	get.head.size = sizeof(get);
	get.head.msg_uptr = 8;
	get.head.msg_len = 64;
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_GET_GLOBAL_COMM, &get));
	ASSERT_EQ(ENODEV, errno);
}

TEST_F(ioctl, success_writes_no_sentence)
{
	struct encd_version ver = { 0 };

	strcpy(encd_msg, "untouched");
	ver.head.size = sizeof(ver);
	ver.head.msg_uptr = (uintptr_t)encd_msg;
	ver.head.msg_len = sizeof(encd_msg);
	ASSERT_EQ(0, ioctl(self->fd, ENCD_IOC_VERSION, &ver));
	ASSERT_STREQ("untouched", encd_msg);
}

TEST_HARNESS_MAIN
