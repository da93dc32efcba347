// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failure on the way through PROGRAM_LOAD, PROGRAM_SIGN and
 * PROGRAM_GET_SIGNATURES, one at a time, with the kernel's fail-nth: the call
 * fails with ENOMEM or succeeds, the program loaded before is untouched by a
 * failed load, a failed signing leaves a signing that succeeds afterwards
 * with the same digest, and (the debug lane's kmemleak checks after the
 * program) nothing leaks.
 *
 * Needs CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB, which only the debug
 * lane's kernel has; elsewhere the tests skip.
 */
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <enc/program.h>

#include "encd_test.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define MAX_NTH		1000
#define VNC		4
#define WORLD		64

FIXTURE(failnth) {
	int nth_fd;		/* this thread's fail-nth, -1 without one */
	const char *why;	/* why there is none */
	int fd;
	void *blob;
	size_t len;
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
 * A program that reaches every allocation of the parser: groups, a list long
 * enough to be sorted, sets with pairs, ops of both owners.
 */
static struct enc_program *make_program(void)
{
	static const uint32_t pair_a[2] = { 0, 1 }, pair_b[2] = { 1, 2 };
	struct enc_program *prog = enc_program_new();
	uint32_t many[32], i;
	struct enc_replica_group_desc all = {
		.group_id = 0, .rank = 0, .rank_n = 32, .src_target_pairs_id = 3, .num_ops = -1,
		.participants = many, .participants_n = 32,
		.bootstrap_participants = many, .bootstrap_participants_n = 32,
	};
	struct enc_replica_group_desc sr = {
		.group_id = 1, .rank = -1, .rank_n = 2, .src_target_pairs_id = -1, .num_ops = -1,
		.sendrecv = true, .participants = pair_a, .participants_n = 2,
		.bootstrap_participants = pair_a, .bootstrap_participants_n = 2,
	};
	struct enc_op_desc ops[] = {
		{ .op = ENC_ALL_REDUCE, .size_n = 1 << 20, .dtype = 7, .owner = 0 },
		{ .op = ENC_SEND, .size_n = 64, .peer = 1, .channel = 1, .owner = 1 },
		{ .op = ENC_PERMUTE, .size_n = 4096, .stp = true, .owner = 3 },
		{ .op = ENC_RECV, .size_n = 64, .peer = 1, .owner = 1 },
	};

	for (i = 0; i < 32; i++)
		many[i] = 31 - i;
	if (!prog || enc_program_add_replica_group(prog, &all) ||
	    enc_program_add_replica_group(prog, &sr) ||
	    enc_program_add_src_target_pairs(prog, 3, pair_b, 2) ||
	    enc_program_add_pair(prog, 3, pair_a, 2) || enc_program_add_pair(prog, 3, pair_b, 2))
		return NULL;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (enc_program_add_op(prog, &ops[i]))
			return NULL;
	return prog;
}

FIXTURE_SETUP(failnth)
{
	struct enc_program *prog;
	char path[64];

	self->fd = -1;
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

	prog = make_program();
	ASSERT_NE(NULL, prog);
	ASSERT_EQ(NRT_SUCCESS, enc_program_encode(prog, &self->blob, &self->len));
	enc_program_free(prog);
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	test_cmd(encd_build(self->fd, VNC, 0, WORLD, 0, NULL));
}

FIXTURE_TEARDOWN(failnth)
{
	if (self->nth_fd < 0)
		return;
	write_str(FAILSLAB "ignore-gfp-wait", "Y");
	close(self->nth_fd);
	if (self->fd >= 0)
		close(self->fd);
	free(self->blob);
}

#define require_failnth()						\
	do {								\
		if (self->nth_fd < 0)					\
			SKIP(return, "%s", self->why);			\
	} while (0)

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

#define for_each_nth(nth, injected)					\
	for (nth = 1, injected = true; injected && nth < MAX_NTH; nth++)

static int load(int fd, const void *blob, size_t len)
{
	struct encd_program_load c = {
		.vnc = VNC, .prog_uptr = (uintptr_t)blob, .prog_len = len,
	};

	return encd_cmd(fd, ENCD_IOC_PROGRAM_LOAD, &c, sizeof(c));
}

static int sign(int fd, __u8 *sig)
{
	struct encd_program_sign c = { .head.flags = ENCD_SIG_ALL_GROUPS, .vnc = VNC };
	int err = encd_cmd(fd, ENCD_IOC_PROGRAM_SIGN, &c, sizeof(c));

	if (!err)
		memcpy(sig, c.signature, ENCD_SIG_LEN);
	return err;
}

static int get(int fd, struct encd_prog_sig *ss, __u8 *sig)
{
	struct encd_program_get_signatures c = {
		.vnc = VNC, .stps_uptr = (uintptr_t)ss, .n_stps = 1,
	};
	int err = encd_cmd(fd, ENCD_IOC_PROGRAM_GET_SIGNATURES, &c, sizeof(c));

	if (!err)
		memcpy(sig, c.signature, ENCD_SIG_LEN);
	return err;
}

TEST_F(failnth, program_load)
{
	__u8 base[ENCD_SIG_LEN], sig[ENCD_SIG_LEN];
	bool injected;
	int nth, err;

	require_failnth();
	test_cmd(load(self->fd, self->blob, self->len));
	test_cmd(sign(self->fd, base));

	for_each_nth(nth, injected) {
		arm(_metadata, self->nth_fd, nth);
		err = load(self->fd, self->blob, self->len);
		injected = disarm(_metadata, self->nth_fd);
		if (err) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
		}
		/* The program before a failed load, or the new one: either signs. */
		test_cmd(sign(self->fd, sig));
		ASSERT_EQ(0, memcmp(base, sig, ENCD_SIG_LEN));
	}
	ASSERT_FALSE(injected);
}

TEST_F(failnth, program_sign)
{
	__u8 base[ENCD_SIG_LEN], sig[ENCD_SIG_LEN];
	bool injected;
	int nth, err;

	require_failnth();
	test_cmd(load(self->fd, self->blob, self->len));
	test_cmd(sign(self->fd, base));

	for_each_nth(nth, injected) {
		arm(_metadata, self->nth_fd, nth);
		err = sign(self->fd, sig);
		injected = disarm(_metadata, self->nth_fd);
		if (err) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
			test_cmd(sign(self->fd, sig));
		}
		ASSERT_EQ(0, memcmp(base, sig, ENCD_SIG_LEN));
	}
	ASSERT_FALSE(injected);
}

TEST_F(failnth, program_get_signatures)
{
	__u8 base[ENCD_SIG_LEN], sig[ENCD_SIG_LEN];
	struct encd_prog_sig ss;
	bool injected;
	int nth, err;

	require_failnth();
	test_cmd(load(self->fd, self->blob, self->len));
	test_cmd(sign(self->fd, base));

	for_each_nth(nth, injected) {
		arm(_metadata, self->nth_fd, nth);
		err = get(self->fd, &ss, sig);
		injected = disarm(_metadata, self->nth_fd);
		if (err) {
			ASSERT_TRUE(injected);
			ASSERT_EQ(ENOMEM, err);
			continue;
		}
		ASSERT_EQ(0, memcmp(base, sig, ENCD_SIG_LEN));
		ASSERT_EQ(3, ss.id);
	}
	ASSERT_FALSE(injected);
}

TEST_HARNESS_MAIN
