// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failure on the way through PROGRAM_LOAD, PROGRAM_SIGN and
 * PROGRAM_GET_SIGNATURES, one at a time, with the kernel's fail-nth (the
 * walk in encd_test.h says which allocations that reaches): the call fails
 * with ENOMEM or succeeds; a failed load leaves the program loaded before it
 * in place (a program with another signature, so that "untouched" and
 * "replaced" differ), a failed signing leaves a signing that succeeds
 * afterwards with the same digest, and (the debug lane's kmemleak checks
 * after the program) nothing leaks. Each walk checks how many points it
 * reached and that every allocation site of the parser was made to fail.
 *
 * Needs CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC,
 * which only the debug lane's kernel has; elsewhere the tests skip.
 */
#include <stdlib.h>
#include <enc/program.h>

#include "encd_test.h"

#define VNC		4
#define WORLD		64
/* Ops enough for the description, the op table and the signature's bytes
 * to outgrow two pages each: kvmalloc() then takes them from the page
 * allocator, or from vmalloc() when that fails. */
#define BIG_OPS		512

FIXTURE(failnth) {
	struct encd_failnth fn;
	int fd;
	void *base, *blob, *big;	/* the baseline, the walked one, a big one */
	size_t base_len, len, big_len;
	__u8 base_sig[ENCD_SIG_LEN], sig[ENCD_SIG_LEN], big_sig[ENCD_SIG_LEN];
};

/*
 * A program that reaches every allocation of the parser: groups, a list long
 * enough to be sorted, sets with pairs, ops of both owners; with @extra_ops
 * more all-reduces on its first group.
 */
static struct enc_program *make_program(unsigned int extra_ops)
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
	struct enc_op_desc more = { .op = ENC_ALL_REDUCE, .dtype = 1, .owner = 0 };

	for (i = 0; i < 32; i++)
		many[i] = 31 - i;
	if (!prog || enc_program_add_replica_group(prog, &all) ||
	    enc_program_add_replica_group(prog, &sr) ||
	    enc_program_add_src_target_pairs(prog, 3, pair_b, 2) ||
	    enc_program_add_pair(prog, 3, pair_a, 2) || enc_program_add_pair(prog, 3, pair_b, 2))
		return NULL;
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (enc_program_add_op(prog, &ops[i]))
			return NULL;
	for (i = 0; i < extra_ops; i++) {
		more.size_n = 4096 + i;
		if (enc_program_add_op(prog, &more))
			return NULL;
	}
	return prog;
}

/* The baseline: one sendrecv pair, nothing in common with the others. */
static struct enc_program *make_baseline(void)
{
	static const uint32_t pair[2] = { 5, 9 };
	struct enc_program *prog = enc_program_new();
	struct enc_replica_group_desc sr = {
		.group_id = 7, .rank = -1, .rank_n = 2, .src_target_pairs_id = -1, .num_ops = -1,
		.sendrecv = true, .participants = pair, .participants_n = 2,
		.bootstrap_participants = pair, .bootstrap_participants_n = 2,
	};
	struct enc_op_desc send = { .op = ENC_SEND, .size_n = 8, .peer = 9, .owner = 7 };

	if (!prog || enc_program_add_replica_group(prog, &sr) || enc_program_add_op(prog, &send))
		return NULL;
	return prog;
}

static void encode(struct __test_metadata *_metadata, struct enc_program *prog, void **blob,
		   size_t *len)
{
	ASSERT_NE(NULL, prog);
	ASSERT_EQ(NRT_SUCCESS, enc_program_encode(prog, blob, len));
	enc_program_free(prog);
}

static int sign(int fd, __u8 *sig)
{
	struct encd_program_sign c;
	int err = encd_program_sign(fd, VNC, 0, ENCD_SIG_ALL_GROUPS, &c);

	if (!err)
		memcpy(sig, c.signature, ENCD_SIG_LEN);
	return err;
}

/* Loads @blob and signs it into @sig: what a failed load must leave. */
static void load_and_sign(struct __test_metadata *_metadata, int fd, const void *blob,
			  size_t len, __u8 *sig)
{
	test_cmd(encd_program_load(fd, VNC, 0, blob, len));
	test_cmd(sign(fd, sig));
}

FIXTURE_SETUP(failnth)
{
	self->fd = -1;
	encd_failnth_setup(_metadata, &self->fn);
	if (self->fn.fd < 0)
		return;
	encode(_metadata, make_baseline(), &self->base, &self->base_len);
	encode(_metadata, make_program(0), &self->blob, &self->len);
	encode(_metadata, make_program(BIG_OPS), &self->big, &self->big_len);
	ASSERT_LT(2 * getpagesize(), self->big_len);
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	test_cmd(encd_build(self->fd, VNC, 0, WORLD, 0, NULL));

	/* Three programs, three signatures. */
	load_and_sign(_metadata, self->fd, self->blob, self->len, self->sig);
	load_and_sign(_metadata, self->fd, self->big, self->big_len, self->big_sig);
	load_and_sign(_metadata, self->fd, self->base, self->base_len, self->base_sig);
	ASSERT_NE(0, memcmp(self->base_sig, self->sig, ENCD_SIG_LEN));
	ASSERT_NE(0, memcmp(self->base_sig, self->big_sig, ENCD_SIG_LEN));
}

FIXTURE_TEARDOWN(failnth)
{
	encd_failnth_teardown(&self->fn);
	if (self->fd >= 0)
		close(self->fd);
	free(self->base);
	free(self->blob);
	free(self->big);
}

/* Each call replaces the baseline with @blob, or fails and leaves it. */
static void load_walk(struct __test_metadata *_metadata, FIXTURE_DATA(failnth) *self,
		      struct encd_failnth_walk *w, const void *blob, size_t len, const __u8 *want)
{
	__u8 sig[ENCD_SIG_LEN];
	int err;

	for_each_failnth(w) {
		load_and_sign(_metadata, self->fd, self->base, self->base_len, sig);
		err = encd_failnth_call(&self->fn, w,
					encd_program_load(self->fd, VNC, 0, blob, len));
		test_cmd(sign(self->fd, sig));
		ASSERT_EQ(0, memcmp(err ? self->base_sig : want, sig, ENCD_SIG_LEN)) {
			TH_LOG("point %d: a %s load left another program", w->nth,
			       err ? "failed" : "successful");
		}
	}
	encd_failnth_done(_metadata, w);
}

/*
 * The command's copy, the description's, the program, its tables, the
 * sorted copy of a long list and the bytes its signature covers (slab); for
 * the big program the description, the op table and the signature's bytes
 * come from the page allocator, or from vmalloc() when that fails.
 */
TEST_F(failnth, program_load)
{
	char blob_msg[64], ops_msg[64], sig_msg[80];
	struct encd_failnth_walk slab = {
		.fault = ENCD_FAULT_SLAB, .min_points = 9,
		.expect = { "", blob_msg, "Out of memory for a program", ops_msg,
			    "Out of memory checking a program", sig_msg },
	};
	struct encd_failnth_walk page = { .fault = ENCD_FAULT_PAGE, .min_points = 3 };

	encd_require_failnth(&self->fn);
	snprintf(blob_msg, sizeof(blob_msg), "Out of memory for a %zu-byte program", self->len);
	snprintf(ops_msg, sizeof(ops_msg), "Out of memory for a program of %u ops", 4);
	snprintf(sig_msg, sizeof(sig_msg),
		 "Out of memory for the signature of a program of %u ops", 4);

	load_walk(_metadata, self, &slab, self->blob, self->len, self->sig);
	load_walk(_metadata, self, &page, self->big, self->big_len, self->big_sig);
}

/* The command's copy and the hash state. */
TEST_F(failnth, program_sign)
{
	struct encd_failnth_walk w = {
		.fault = ENCD_FAULT_SLAB, .min_points = 2,
		.expect = { "", "Out of memory calculating a CC signature" },
	};
	__u8 sig[ENCD_SIG_LEN];

	encd_require_failnth(&self->fn);
	load_and_sign(_metadata, self->fd, self->blob, self->len, sig);

	for_each_failnth(&w) {
		if (encd_failnth_call(&self->fn, &w, sign(self->fd, sig)))
			test_cmd(sign(self->fd, sig));
		ASSERT_EQ(0, memcmp(self->sig, sig, ENCD_SIG_LEN));
	}
	encd_failnth_done(_metadata, &w);
}

/* The command's copy and the stps' signatures on their way out. */
TEST_F(failnth, program_get_signatures)
{
	struct encd_failnth_walk w = {
		.fault = ENCD_FAULT_SLAB, .min_points = 2,
		.expect = { "", "Out of memory for 1 signatures" },
	};
	struct encd_program_get_signatures c;
	__u8 sig[ENCD_SIG_LEN];
	struct encd_prog_sig ss;

	encd_require_failnth(&self->fn);
	load_and_sign(_metadata, self->fd, self->blob, self->len, sig);

	for_each_failnth(&w) {
		memset(&ss, 0, sizeof(ss));
		if (encd_failnth_call(&self->fn, &w,
				      encd_program_get_signatures(self->fd, VNC, 0, NULL, 0, &ss, 1,
								  &c)))
			continue;
		ASSERT_EQ(0, memcmp(self->sig, c.signature, ENCD_SIG_LEN));
		ASSERT_EQ(3, ss.id);
		ASSERT_EQ(ENCD_PROG_SIG_HASHED, ss.flags);
	}
	encd_failnth_done(_metadata, &w);
}

TEST_HARNESS_MAIN
