/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the encd selftests: raw ioctls on /dev/encd that return
 * the errno and keep the kernel's failure sentence, the module's run-time
 * parameters, and iommufd-style test_cmd_* / test_err_* assertions.
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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/encd.h>

#include "kselftest_harness.h"

#define ENCD_DEV		"/dev/" ENCD_DEVICE_NAME
#define ENCD_PARAMS		"/sys/module/encd/parameters/"
#define ENCD_TEST_ROOT		"127.0.0.1:61000"
#define ENCD_DEFAULT_VCORES	32

/* The sentence of this thread's last failing encd_cmd(), "" after a success. */
static __thread char encd_msg[256];

static inline int encd_open(void)
{
	return open(ENCD_DEV, O_RDWR | O_CLOEXEC);
}

/* Issues @cmd with @arg of @size bytes; returns 0 or the errno. */
static inline int encd_cmd(int fd, unsigned long cmd, void *arg, size_t size)
{
	struct encd_head *head = arg;

	encd_msg[0] = '\0';
	head->size = size;
	head->msg_uptr = (uintptr_t)encd_msg;
	head->msg_len = sizeof(encd_msg);
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* BUILD or VALIDATE; @req (may be NULL) gets the answer. */
static inline int encd_gcomm(int fd, unsigned long cmd, __u32 flags, __u32 vnc, __u32 g_device_id,
			     __u32 g_device_cnt, __u32 ctx_id, struct encd_global_comm_req *req)
{
	struct encd_global_comm_req r = {
		.head.flags = flags,
		.vnc = vnc,
		.g_device_id = g_device_id,
		.g_device_cnt = g_device_cnt,
		.ctx_id = ctx_id,
		.root_comm_id = ENCD_TEST_ROOT,
		.out_flags = 0xdead,
	};
	int err = encd_cmd(fd, cmd, &r, sizeof(r));

	if (req)
		*req = r;
	return err;
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

/* The serial of the comm on (@vnc, @ctx_id), 0 if there is none. */
static inline __u64 encd_serial(int fd, __u32 vnc, __u32 ctx_id)
{
	struct encd_glb_comm_header hdr;

	return encd_get(fd, vnc, ctx_id, &hdr) ? 0 : hdr.serial;
}

/* Writes a run-time module parameter; returns 0 or the errno. */
static inline int encd_param_set(const char *name, unsigned long long val)
{
	char path[128], buf[32];
	int fd, len, err = 0;

	snprintf(path, sizeof(path), ENCD_PARAMS "%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	len = snprintf(buf, sizeof(buf), "%llu", val);
	if (write(fd, buf, len) != len)
		err = errno;
	close(fd);
	return err;
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
 * sentence is exactly @_msg.
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
	} while (0)

/* As test_err(), for a sentence the seed gives only the start of. */
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

#endif /* _ENCD_TEST_H */
