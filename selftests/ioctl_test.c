// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl boundary of /dev/encd, iommufd style, for every one of its 13
 * commands from one table: each command's struct can grow (shorter than the
 * kernel's minimum: EINVAL; longer with a non-zero tail: E2BIG; longer with
 * a zero tail, or as short as the minimum: fine), bad pointers are EFAULT,
 * unknown flags EOPNOTSUPP, a non-zero reserved field EINVAL before anything
 * else is looked at, unknown commands ENOTTY, and a refused call has no
 * effect. The layout of every uapi struct and the command numbers are held
 * to literal numbers: the ABI, written out, not the header read back.
 */
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <enc/program.h>

#include "encd_test.h"

/* Room for any command's struct plus a tail. */
#define ARG_MAX		1024
#define VNC		1

/* What a fresh file needs before the table's request for a command succeeds. */
enum need {
	NEED_NOTHING,
	NEED_COMM,		/* the comm on core 1 context 0, a world of one */
	NEED_PROGRAM,		/* and a program loaded on it */
	NEED_SIGNED,		/* and signed */
	NEED_WORLD,		/* the comm, its world formed */
	NEED_WORLD_PROGRAM,	/* the world, and a program loaded */
};

/* A __u32 field past the head that must be 0, and the kernel's sentence. */
struct reserved_field {
	size_t off;
	const char *msg;
};

struct cmd_desc {
	const char *name;
	unsigned long cmd;		/* ENCD_IOC_* */
	unsigned long number;		/* the same, written out */
	size_t size;			/* sizeof the struct */
	size_t min_size;		/* the end of its last field the kernel needs */
	__u32 known_flags;
	enum need need;
	struct reserved_field reserved[2];
};

/* One row: the command, its number, size and minimum, flags, need, reserved fields. */
#define CMD(_name, _number, _size, _min, _flags, _need, ...)			\
	{ .name = #_name, .cmd = ENCD_IOC_##_name, .number = _number, .size = _size,	\
	  .min_size = _min, .known_flags = _flags, .need = _need, .reserved = { __VA_ARGS__ } }

static const struct cmd_desc cmds[] = {
	CMD(VERSION, 0xe580, 40, 40, 0, NEED_NOTHING),
	CMD(BUILD_GLOBAL_COMM, 0xe581, 112, 112, 0x1 /* CHECK_SIGS */, NEED_NOTHING),
	CMD(VALIDATE_GLOBAL_COMM, 0xe582, 112, 112, 0x1 /* CHECK_SIGS */, NEED_NOTHING),
	CMD(GET_GLOBAL_COMM, 0xe583, 328, 328, 0, NEED_COMM),
	CMD(RELEASE_GLOBAL_COMM, 0xe584, 32, 32, 0, NEED_COMM),
	CMD(PROGRAM_LOAD, 0xe585, 48, 44, 0, NEED_COMM,
	    { 44, "encd_program_load.__reserved must be 0" }),
	CMD(PROGRAM_SIGN, 0xe586, 56, 32, 0x1 /* ALL_GROUPS */, NEED_PROGRAM),
	CMD(PROGRAM_GET_SIGNATURES, 0xe587, 80, 56, 0, NEED_SIGNED),
	CMD(PROGRAM_SEAL, 0xe588, 32, 32, 0, NEED_SIGNED),
	CMD(SETUP_GLOBAL_COMM, 0xe589, 112, 96, 0x3 /* FORCE_TCP | SIG_ALL_GROUPS */, NEED_COMM,
	    { 48, "reserved fields must be 0" }, { 108, "reserved fields must be 0" }),
	CMD(INIT_REPLICA_GROUPS, 0xe58a, 56, 52, 0, NEED_WORLD_PROGRAM,
	    { 48, "encd_init_replica_groups: reserved fields must be 0" }),
	CMD(COMM_BARRIER, 0xe58b, 48, 48, 0x1 /* LOCAL */, NEED_WORLD),
	CMD(NODE_INFO, 0xe58c, 552, 552, 0, NEED_WORLD),
};

#define for_each_cmd(c)	for (c = cmds; c < cmds + ARRAY_SIZE(cmds); c++)

FIXTURE(ioctl) {
	int fd;
	int probe;		/* another file, to look without holding */
	size_t page;
	void *prog;		/* one group of one rank, with an op */
	size_t prog_len;
	/* a struct for any command: a valid request that would succeed */
	union {
		struct encd_head head;
		struct encd_version version;
		__u8 bytes[ARG_MAX];
	} arg;
};

FIXTURE_SETUP(ioctl)
{
	static const uint32_t me[1] = { 0 };
	struct enc_replica_group_desc g = {
		.group_id = 0, .rank = 0, .rank_n = 1, .src_target_pairs_id = -1, .num_ops = -1,
		.participants = me, .participants_n = 1,
		.bootstrap_participants = me, .bootstrap_participants_n = 1,
	};
	struct enc_op_desc op = { .op = ENC_ALL_REDUCE, .size_n = 64, .owner = 0 };
	struct enc_program *prog = enc_program_new();

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(NRT_SUCCESS, enc_program_add_replica_group(prog, &g));
	ASSERT_EQ(NRT_SUCCESS, enc_program_add_op(prog, &op));
	ASSERT_EQ(NRT_SUCCESS, enc_program_encode(prog, &self->prog, &self->prog_len));
	enc_program_free(prog);
	self->fd = encd_open();
	ASSERT_LE(0, self->fd);
	self->probe = encd_open();
	ASSERT_LE(0, self->probe);
	self->page = getpagesize();
}

FIXTURE_TEARDOWN(ioctl)
{
	close(self->fd);
	close(self->probe);
	free(self->prog);
}

/* Fills self->arg with the request for @c that succeeds once @c->need holds. */
static void *valid_arg(FIXTURE_DATA(ioctl) *self, const struct cmd_desc *c)
{
	void *arg = &self->arg;

	memset(arg, 0, sizeof(self->arg));
	switch (c->cmd) {
	case ENCD_IOC_VERSION:
		break;
	case ENCD_IOC_BUILD_GLOBAL_COMM:
	case ENCD_IOC_VALIDATE_GLOBAL_COMM:
		((struct encd_global_comm_req *)arg)->g_device_cnt = 1;
		break;
	case ENCD_IOC_PROGRAM_LOAD:
		((struct encd_program_load *)arg)->prog_uptr = (uintptr_t)self->prog;
		((struct encd_program_load *)arg)->prog_len = self->prog_len;
		break;
	case ENCD_IOC_COMM_BARRIER:
		((struct encd_comm_barrier *)arg)->group_id = ENCD_GROUP_GLOBAL;
		break;
	case ENCD_IOC_NODE_INFO:
		((struct encd_node_info *)arg)->group_id = ENCD_GROUP_GLOBAL;
		break;
	}
	/* Every command but VERSION names core 1 (context 0) right after the head. */
	if (c->cmd != ENCD_IOC_VERSION)
		*(__u32 *)(self->arg.bytes + sizeof(struct encd_head)) = VNC;
	return arg;
}

/* A fresh file of /dev/encd on which @c's valid request succeeds. */
static int fresh(struct __test_metadata *_metadata, FIXTURE_DATA(ioctl) *self,
		 const struct cmd_desc *c)
{
	int fd = encd_open();

	ASSERT_LE(0, fd);
	if (c->need >= NEED_COMM)
		test_cmd(encd_build(fd, VNC, 0, 1, 0, NULL));
	if (c->need >= NEED_WORLD)
		test_cmd(encd_setup(fd, VNC, 0, 0, NULL));
	if (c->need == NEED_PROGRAM || c->need == NEED_SIGNED || c->need == NEED_WORLD_PROGRAM)
		test_cmd(encd_program_load(fd, VNC, 0, self->prog, self->prog_len));
	if (c->need == NEED_SIGNED)
		test_cmd(encd_program_sign(fd, VNC, 0, 0, NULL));
	return fd;
}

/*
 * Whether @c's request on @fd took effect: 1 or 0, or -1 for a command that
 * leaves nothing to see (it reads, or waits).
 */
static int took_effect(FIXTURE_DATA(ioctl) *self, const struct cmd_desc *c, int fd)
{
	struct encd_program_get_signatures sigs;
	struct encd_glb_comm_header hdr;
	struct encd_node_info ni;
	int err;

	switch (c->cmd) {
	case ENCD_IOC_BUILD_GLOBAL_COMM:
	case ENCD_IOC_VALIDATE_GLOBAL_COMM:
		return !encd_get(self->probe, VNC, 0, NULL);
	case ENCD_IOC_RELEASE_GLOBAL_COMM:
		return encd_get(self->probe, VNC, 0, NULL) == ENOENT;
	case ENCD_IOC_PROGRAM_LOAD:
		/* ENOENT: no program; EINVAL: one, not signed yet */
		return encd_program_get_signatures(fd, VNC, 0, NULL, 0, NULL, 0, NULL) != ENOENT;
	case ENCD_IOC_PROGRAM_SIGN:
		return !encd_program_get_signatures(fd, VNC, 0, NULL, 0, NULL, 0, NULL);
	case ENCD_IOC_PROGRAM_SEAL:
		err = encd_program_get_signatures(fd, VNC, 0, NULL, 0, NULL, 0, &sigs);
		return !err && sigs.state == ENCD_PROGRAM_LOADED;
	case ENCD_IOC_SETUP_GLOBAL_COMM:
		return !encd_get(self->probe, VNC, 0, &hdr) && hdr.state == ENCD_GCOMM_BOOTSTRAPPED;
	case ENCD_IOC_INIT_REPLICA_GROUPS:
		return !encd_node_info(fd, VNC, 0, 0, &ni);
	}
	return -1;
}

/*
 * The body runs once per command, with @fd a fresh file on which the
 * command's valid request would succeed; the file is closed after it.
 */
#define for_each_cmd_on_a_fresh_file(c, fd)					\
	for (c = cmds; c < cmds + ARRAY_SIZE(cmds) && (fd = fresh(_metadata, self, c)) >= 0; \
	     close(fd), c++)

/* self->arg, as @size bytes, is refused with @err and the sentence @msg. */
static void refused(struct __test_metadata *_metadata, FIXTURE_DATA(ioctl) *self,
		    const struct cmd_desc *c, int fd, size_t size, int err, const char *msg)
{
	ASSERT_EQ(err, encd_cmd(fd, c->cmd, &self->arg, size)) {
		TH_LOG("%s with %zu bytes: %s", c->name, size, encd_msg);
	}
	ASSERT_STREQ(msg, encd_msg) {
		TH_LOG("%s", c->name);
	}
}

/*
 * self->arg, as @size bytes, is accepted, took effect, and left the bytes
 * from @from to 64 past the struct as they were (@byte): the kernel wrote its
 * answer only up to what it was given, or to the end of its own struct.
 */
static void accepted(struct __test_metadata *_metadata, FIXTURE_DATA(ioctl) *self,
		     const struct cmd_desc *c, int fd, size_t size, size_t from, __u8 byte)
{
	size_t i;

	ASSERT_EQ(0, encd_cmd(fd, c->cmd, &self->arg, size)) {
		TH_LOG("%s with %zu bytes: %s", c->name, size, encd_msg);
	}
	for (i = from; i < c->size + 64; i++) {
		ASSERT_EQ(byte, self->arg.bytes[i]) {
			TH_LOG("%s with %zu bytes wrote byte %zu", c->name, size, i);
		}
	}
	ASSERT_NE(0, took_effect(self, c, fd)) {
		TH_LOG("%s took no effect", c->name);
	}
}

/* @c's refused request on @fd changed nothing. */
#define assert_no_effect(c, fd)						\
	ASSERT_NE(1, took_effect(self, c, fd)) {			\
		TH_LOG("%s took effect", (c)->name);			\
	}

#define ABI_SIZE(s, n)		{ #s, sizeof(struct s), n }
#define ABI_OFF(s, f, n)	{ #s "." #f, offsetof(struct s, f), n }

TEST_F(ioctl, every_struct_has_the_abis_layout)
{
	static const struct {
		const char *what;
		size_t got, want;
	} abi[] = {
	ABI_SIZE(encd_head, 24),
	ABI_OFF(encd_head, size, 0),
	ABI_OFF(encd_head, flags, 4),
	ABI_OFF(encd_head, msg_uptr, 8),
	ABI_OFF(encd_head, msg_len, 16),
	ABI_OFF(encd_head, reason, 20),
	ABI_SIZE(encd_glb_comm_header, 296),
	ABI_OFF(encd_glb_comm_header, g_device_id, 0),
	ABI_OFF(encd_glb_comm_header, g_device_cnt, 4),
	ABI_OFF(encd_glb_comm_header, vtpb_idx, 8),
	ABI_OFF(encd_glb_comm_header, nec_dev_id, 12),
	ABI_OFF(encd_glb_comm_header, mla_idx, 16),
	ABI_OFF(encd_glb_comm_header, host_device_id, 20),
	ABI_OFF(encd_glb_comm_header, routing_id, 24),
	ABI_OFF(encd_glb_comm_header, virtual_server_id, 28),
	ABI_OFF(encd_glb_comm_header, pod_type, 32),
	ABI_OFF(encd_glb_comm_header, pod_node_id, 36),
	ABI_OFF(encd_glb_comm_header, pod_sz, 40),
	ABI_OFF(encd_glb_comm_header, __pad0, 44),
	ABI_OFF(encd_glb_comm_header, reservation_id, 48),
	ABI_OFF(encd_glb_comm_header, __root_comm_id_ptr, 56),
	ABI_OFF(encd_glb_comm_header, check_sigs, 64),
	ABI_OFF(encd_glb_comm_header, __pad1, 65),
	ABI_OFF(encd_glb_comm_header, inc_recv_sem_values_buffer, 192),
	ABI_OFF(encd_glb_comm_header, inc_recv_sem_values_buffer_size, 200),
	ABI_OFF(encd_glb_comm_header, serial, 208),
	ABI_OFF(encd_glb_comm_header, holders, 216),
	ABI_OFF(encd_glb_comm_header, state, 220),
	ABI_OFF(encd_glb_comm_header, ctx_id, 224),
	ABI_OFF(encd_glb_comm_header, __pad2, 228),
	ABI_OFF(encd_glb_comm_header, root_comm_id, 232),
	ABI_SIZE(encd_version, 40),
	ABI_OFF(encd_version, head, 0),
	ABI_OFF(encd_version, api_version, 24),
	ABI_OFF(encd_version, num_vcores, 28),
	ABI_OFF(encd_version, max_contexts, 32),
	ABI_OFF(encd_version, sem_values_size, 36),
	ABI_SIZE(encd_global_comm_req, 112),
	ABI_OFF(encd_global_comm_req, head, 0),
	ABI_OFF(encd_global_comm_req, vnc, 24),
	ABI_OFF(encd_global_comm_req, g_device_id, 28),
	ABI_OFF(encd_global_comm_req, g_device_cnt, 32),
	ABI_OFF(encd_global_comm_req, ctx_id, 36),
	ABI_OFF(encd_global_comm_req, root_comm_id, 40),
	ABI_OFF(encd_global_comm_req, out_flags, 104),
	ABI_OFF(encd_global_comm_req, nec_dev_id, 108),
	ABI_SIZE(encd_get_global_comm, 328),
	ABI_OFF(encd_get_global_comm, head, 0),
	ABI_OFF(encd_get_global_comm, vnc, 24),
	ABI_OFF(encd_get_global_comm, ctx_id, 28),
	ABI_OFF(encd_get_global_comm, hdr, 32),
	ABI_SIZE(encd_release_global_comm, 32),
	ABI_OFF(encd_release_global_comm, head, 0),
	ABI_OFF(encd_release_global_comm, vnc, 24),
	ABI_OFF(encd_release_global_comm, ctx_id, 28),
	ABI_SIZE(encd_prog_header, 40),
	ABI_OFF(encd_prog_header, magic, 0),
	ABI_OFF(encd_prog_header, version, 4),
	ABI_OFF(encd_prog_header, header_size, 6),
	ABI_OFF(encd_prog_header, total_size, 8),
	ABI_OFF(encd_prog_header, flags, 12),
	ABI_OFF(encd_prog_header, n_groups, 16),
	ABI_OFF(encd_prog_header, n_stps, 20),
	ABI_OFF(encd_prog_header, n_pairs, 24),
	ABI_OFF(encd_prog_header, n_ops, 28),
	ABI_OFF(encd_prog_header, n_ids, 32),
	ABI_OFF(encd_prog_header, __reserved, 36),
	ABI_SIZE(encd_prog_vec, 8),
	ABI_OFF(encd_prog_vec, off, 0),
	ABI_OFF(encd_prog_vec, len, 4),
	ABI_SIZE(encd_prog_group, 48),
	ABI_OFF(encd_prog_group, group_id, 0),
	ABI_OFF(encd_prog_group, rank, 4),
	ABI_OFF(encd_prog_group, rank_n, 8),
	ABI_OFF(encd_prog_group, src_target_pairs_id, 12),
	ABI_OFF(encd_prog_group, num_ops, 16),
	ABI_OFF(encd_prog_group, stream_id, 20),
	ABI_OFF(encd_prog_group, bootstrap_rank, 24),
	ABI_OFF(encd_prog_group, flags, 28),
	ABI_OFF(encd_prog_group, participants, 32),
	ABI_OFF(encd_prog_group, bootstrap_participants, 40),
	ABI_SIZE(encd_prog_stp, 24),
	ABI_OFF(encd_prog_stp, id, 0),
	ABI_OFF(encd_prog_stp, __reserved, 4),
	ABI_OFF(encd_prog_stp, pairs, 8),
	ABI_OFF(encd_prog_stp, participants, 16),
	ABI_SIZE(encd_prog_op, 40),
	ABI_OFF(encd_prog_op, op, 0),
	ABI_OFF(encd_prog_op, flags, 4),
	ABI_OFF(encd_prog_op, size_n, 8),
	ABI_OFF(encd_prog_op, owner, 16),
	ABI_OFF(encd_prog_op, peer, 20),
	ABI_OFF(encd_prog_op, dtype, 24),
	ABI_OFF(encd_prog_op, alg, 28),
	ABI_OFF(encd_prog_op, channel, 32),
	ABI_OFF(encd_prog_op, __reserved, 36),
	ABI_SIZE(encd_program_load, 48),
	ABI_OFF(encd_program_load, head, 0),
	ABI_OFF(encd_program_load, vnc, 24),
	ABI_OFF(encd_program_load, ctx_id, 28),
	ABI_OFF(encd_program_load, prog_uptr, 32),
	ABI_OFF(encd_program_load, prog_len, 40),
	ABI_OFF(encd_program_load, __reserved, 44),
	ABI_SIZE(encd_program_sign, 56),
	ABI_OFF(encd_program_sign, head, 0),
	ABI_OFF(encd_program_sign, vnc, 24),
	ABI_OFF(encd_program_sign, ctx_id, 28),
	ABI_OFF(encd_program_sign, signature, 32),
	ABI_OFF(encd_program_sign, n_groups_hashed, 48),
	ABI_OFF(encd_program_sign, n_stps_hashed, 52),
	ABI_SIZE(encd_prog_sig, 24),
	ABI_OFF(encd_prog_sig, id, 0),
	ABI_OFF(encd_prog_sig, flags, 4),
	ABI_OFF(encd_prog_sig, signature, 8),
	ABI_SIZE(encd_program_get_signatures, 80),
	ABI_OFF(encd_program_get_signatures, head, 0),
	ABI_OFF(encd_program_get_signatures, vnc, 24),
	ABI_OFF(encd_program_get_signatures, ctx_id, 28),
	ABI_OFF(encd_program_get_signatures, groups_uptr, 32),
	ABI_OFF(encd_program_get_signatures, stps_uptr, 40),
	ABI_OFF(encd_program_get_signatures, n_groups, 48),
	ABI_OFF(encd_program_get_signatures, n_stps, 52),
	ABI_OFF(encd_program_get_signatures, signature, 56),
	ABI_OFF(encd_program_get_signatures, sig_flags, 72),
	ABI_OFF(encd_program_get_signatures, state, 76),
	ABI_SIZE(encd_program_seal, 32),
	ABI_OFF(encd_program_seal, head, 0),
	ABI_OFF(encd_program_seal, vnc, 24),
	ABI_OFF(encd_program_seal, ctx_id, 28),
	ABI_SIZE(encd_setup_global_comm, 112),
	ABI_OFF(encd_setup_global_comm, head, 0),
	ABI_OFF(encd_setup_global_comm, vnc, 24),
	ABI_OFF(encd_setup_global_comm, ctx_id, 28),
	ABI_OFF(encd_setup_global_comm, timeout_ms, 32),
	ABI_OFF(encd_setup_global_comm, rank, 36),
	ABI_OFF(encd_setup_global_comm, rank_n, 40),
	ABI_OFF(encd_setup_global_comm, out_flags, 44),
	ABI_OFF(encd_setup_global_comm, __reserved, 48),
	ABI_OFF(encd_setup_global_comm, phase_ns, 56),
	ABI_OFF(encd_setup_global_comm, secret_uptr, 96),
	ABI_OFF(encd_setup_global_comm, secret_len, 104),
	ABI_OFF(encd_setup_global_comm, __reserved2, 108),
	ABI_SIZE(encd_init_replica_groups, 56),
	ABI_OFF(encd_init_replica_groups, head, 0),
	ABI_OFF(encd_init_replica_groups, vnc, 24),
	ABI_OFF(encd_init_replica_groups, ctx_id, 28),
	ABI_OFF(encd_init_replica_groups, timeout_ms, 32),
	ABI_OFF(encd_init_replica_groups, n_groups, 36),
	ABI_OFF(encd_init_replica_groups, n_new, 40),
	ABI_OFF(encd_init_replica_groups, n_hits, 44),
	ABI_OFF(encd_init_replica_groups, __reserved, 48),
	ABI_SIZE(encd_comm_barrier, 48),
	ABI_OFF(encd_comm_barrier, head, 0),
	ABI_OFF(encd_comm_barrier, vnc, 24),
	ABI_OFF(encd_comm_barrier, ctx_id, 28),
	ABI_OFF(encd_comm_barrier, group_id, 32),
	ABI_OFF(encd_comm_barrier, timeout_ms, 36),
	ABI_OFF(encd_comm_barrier, duration_ns, 40),
	ABI_SIZE(encd_msg_counter, 24),
	ABI_OFF(encd_msg_counter, type, 0),
	ABI_OFF(encd_msg_counter, size, 4),
	ABI_OFF(encd_msg_counter, tx, 8),
	ABI_OFF(encd_msg_counter, rx, 16),
	ABI_SIZE(encd_mismatch, 48),
	ABI_OFF(encd_mismatch, valid, 0),
	ABI_OFF(encd_mismatch, group_id, 4),
	ABI_OFF(encd_mismatch, child_rank, 8),
	ABI_OFF(encd_mismatch, child_g_device_id, 12),
	ABI_OFF(encd_mismatch, local_sig, 16),
	ABI_OFF(encd_mismatch, child_sig, 32),
	ABI_SIZE(encd_node_info, 552),
	ABI_OFF(encd_node_info, head, 0),
	ABI_OFF(encd_node_info, vnc, 24),
	ABI_OFF(encd_node_info, ctx_id, 28),
	ABI_OFF(encd_node_info, group_id, 32),
	ABI_OFF(encd_node_info, rank, 36),
	ABI_OFF(encd_node_info, rank_n, 40),
	ABI_OFF(encd_node_info, stream_id, 44),
	ABI_OFF(encd_node_info, refcnt, 48),
	ABI_OFF(encd_node_info, state, 52),
	ABI_OFF(encd_node_info, local_n, 56),
	ABI_OFF(encd_node_info, groups, 60),
	ABI_OFF(encd_node_info, out_flags, 64),
	ABI_OFF(encd_node_info, n_counters, 68),
	ABI_OFF(encd_node_info, hits, 72),
	ABI_OFF(encd_node_info, phase_ns, 80),
	ABI_OFF(encd_node_info, counters, 120),
	ABI_OFF(encd_node_info, mismatch, 504),
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(abi); i++) {
		ASSERT_EQ(abi[i].want, abi[i].got) {
			TH_LOG("%s", abi[i].what);
		}
	}
}

TEST_F(ioctl, every_command_has_the_abis_number_and_flags)
{
	const struct cmd_desc *c;

	for_each_cmd(c) {
		ASSERT_EQ(c->number, c->cmd) {
			TH_LOG("%s", c->name);
		}
	}
	ASSERT_EQ(0x1, ENCD_GCOMM_CHECK_SIGS);
	ASSERT_EQ(0x1, ENCD_SIG_ALL_GROUPS);
	ASSERT_EQ(0x1, ENCD_BARRIER_LOCAL);
	ASSERT_EQ(0x1, ENCD_SETUP_FORCE_TCP);
	ASSERT_EQ(0x2, ENCD_SETUP_SIG_ALL_GROUPS);
}

TEST_F(ioctl, version_reports_the_api_and_topology)
{
	struct encd_version ver;

	test_cmd(encd_version(self->fd, &ver));
	ASSERT_EQ(1, ver.api_version);
	ASSERT_EQ(ENCD_DEFAULT_VCORES, ver.num_vcores);
	ASSERT_EQ(2, ver.max_contexts);
	ASSERT_EQ(516, ver.sem_values_size);
}

TEST_F(ioctl, unknown_commands_are_enotty)
{
	const unsigned long unknown[] = {
		_IO(ENCD_TYPE, 0x80 - 1),
		_IO(ENCD_TYPE, 0x80 + ARRAY_SIZE(cmds)),
		_IO(ENCD_TYPE, 0xff),
		_IO(ENCD_TYPE + 1, 0x80),
		/* a known number with direction and size bits is another command */
		_IOWR(ENCD_TYPE, 0x80, struct encd_version),
		_IOR(ENCD_TYPE, 0x81, __u32),
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

TEST_F(ioctl, a_struct_shorter_than_the_kernels_minimum_is_einval)
{
	const size_t sizes[] = { 0, 1, sizeof(__u32), sizeof(struct encd_head) };
	const struct cmd_desc *c;
	size_t i;
	int fd;

	for_each_cmd_on_a_fresh_file(c, fd) {
		/* refused before the head is read: no sentence */
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			valid_arg(self, c);
			refused(_metadata, self, c, fd, sizes[i], EINVAL, "");
		}
		refused(_metadata, self, c, fd, c->min_size - 1, EINVAL, "");
		assert_no_effect(c, fd);
	}
}

TEST_F(ioctl, a_struct_of_the_minimum_size_is_accepted_and_answered_up_to_it)
{
	const struct cmd_desc *c;
	int fd;

	for_each_cmd_on_a_fresh_file(c, fd) {
		valid_arg(self, c);
		/* what lies past the minimum is neither read nor written */
		memset(self->arg.bytes + c->min_size, 0xa5, sizeof(self->arg) - c->min_size);
		accepted(_metadata, self, c, fd, c->min_size, c->min_size, 0xa5);
	}
}

TEST_F(ioctl, a_longer_struct_with_a_nonzero_tail_is_e2big)
{
	const struct cmd_desc *c;
	size_t extra;
	int fd;

	for_each_cmd_on_a_fresh_file(c, fd) {
		for (extra = 1; extra <= 64; extra *= 4) {
			valid_arg(self, c);
			self->arg.bytes[c->size + extra - 1] = 1;
			refused(_metadata, self, c, fd, c->size + extra, E2BIG, "");
		}
		assert_no_effect(c, fd);
	}
}

TEST_F(ioctl, a_longer_struct_with_a_zero_tail_is_accepted)
{
	const struct cmd_desc *c;
	int fd;

	for_each_cmd_on_a_fresh_file(c, fd) {
		valid_arg(self, c);
		accepted(_metadata, self, c, fd, c->size + 64, c->size, 0);
		if (c->cmd == ENCD_IOC_VERSION) {
			ASSERT_EQ(1, self->arg.version.api_version);
		}
	}
}

TEST_F(ioctl, a_longer_struct_gets_the_full_answer)
{
	struct {
		struct encd_get_global_comm get;
		__u8 tail[32];
	} big = { 0 };

	test_cmd(encd_build(self->fd, VNC, 0, 1, 0, NULL));
	big.get.vnc = VNC;
	test_cmd(encd_cmd(self->fd, ENCD_IOC_GET_GLOBAL_COMM, &big, sizeof(big)));
	ASSERT_EQ(1, big.get.hdr.g_device_cnt);
	ASSERT_STREQ(ENCD_TEST_ROOT, big.get.hdr.root_comm_id);
}

TEST_F(ioctl, a_bad_pointer_is_efault)
{
	const struct cmd_desc *c;
	__u8 *pages, *arg;
	int fd;

	/* a mapped page followed by a hole */
	pages = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, pages);
	ASSERT_EQ(0, munmap(pages + self->page, self->page));

	for_each_cmd_on_a_fresh_file(c, fd) {
		ASSERT_EQ(-1, ioctl(fd, c->cmd, NULL));
		ASSERT_EQ(EFAULT, errno);
		ASSERT_EQ(-1, ioctl(fd, c->cmd, pages + self->page));
		ASSERT_EQ(EFAULT, errno);

		/* the size fits, the rest of the struct runs into the hole */
		arg = pages + self->page - sizeof(__u32);
		*(__u32 *)arg = c->size;
		ASSERT_EQ(-1, ioctl(fd, c->cmd, arg)) {
			TH_LOG("%s", c->name);
		}
		ASSERT_EQ(EFAULT, errno);
		assert_no_effect(c, fd);
	}
	munmap(pages, self->page);
}

TEST_F(ioctl, an_answer_that_cannot_be_written_back_is_efault)
{
	struct encd_get_global_comm *get;
	struct encd_version *ver;
	void *page;

	test_cmd(encd_build(self->fd, VNC, 0, 1, 0, NULL));
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
	get->vnc = VNC;
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
	req->vnc = VNC;
	req->g_device_cnt = 1;
	ASSERT_EQ(0, mprotect(page, self->page, PROT_READ));
	ASSERT_EQ(-1, ioctl(self->fd, ENCD_IOC_BUILD_GLOBAL_COMM, req));
	ASSERT_EQ(EFAULT, errno);

	test_cmd(encd_get(self->fd, VNC, 0, &hdr));
	ASSERT_EQ(1, hdr.holders);
	test_cmd(encd_release(self->fd, VNC, 0));
	test_err(ENOENT, NULL, encd_get(self->fd, VNC, 0, NULL));
	munmap(page, self->page);
}

TEST_F(ioctl, unknown_flags_are_eopnotsupp)
{
	const struct cmd_desc *c;
	char want[64];
	__u32 bit;
	int fd;

	for_each_cmd_on_a_fresh_file(c, fd) {
		for (bit = 0; bit < 32; bit++) {
			if (c->known_flags & (1U << bit))
				continue;
			valid_arg(self, c);
			self->arg.head.flags = (1U << bit) | c->known_flags;
			snprintf(want, sizeof(want), "Unknown flags 0x%x", 1U << bit);
			refused(_metadata, self, c, fd, c->size, EOPNOTSUPP, want);
		}
		assert_no_effect(c, fd);
	}
}

/*
 * The head's reason is the kernel's to write: what a caller leaves there
 * changes nothing, and a refusal overwrites it with its own.
 */
TEST_F(ioctl, the_head_s_reason_is_ignored_on_entry_and_set_on_failure)
{
	const struct cmd_desc *c;
	char want[64];
	__u32 bit;
	int fd;

	for_each_cmd_on_a_fresh_file(c, fd) {
		for (bit = 0; bit < 32 && c->known_flags & (1U << bit); bit++)
			;
		valid_arg(self, c);
		self->arg.head.reason = 0xe11d;
		self->arg.head.flags = (1U << bit) | c->known_flags;
		snprintf(want, sizeof(want), "Unknown flags 0x%x", 1U << bit);
		refused(_metadata, self, c, fd, c->size, EOPNOTSUPP, want);
		ASSERT_EQ(ENCD_REASON_ARGUMENT, self->arg.head.reason) {
			TH_LOG("%s", c->name);
		}
		assert_no_effect(c, fd);
	}
	/* VERSION answers: its copy of the head says no reason. */
	valid_arg(self, &cmds[0]);
	self->arg.head.reason = 0xe11d;
	test_cmd(encd_cmd(self->fd, cmds[0].cmd, &self->arg, cmds[0].size));
	ASSERT_EQ(ENCD_REASON_NONE, self->arg.head.reason);
}

/*
 * Every field past the head that must be 0 is refused with EINVAL and its
 * sentence, first: with every bit, on a file that holds nothing and for a
 * core that does not exist (else ENODEV or ENOENT would come first), and on
 * a file where the request would otherwise succeed.
 */
TEST_F(ioctl, every_reserved_field_is_einval_before_anything_else)
{
	const struct reserved_field *r;
	const struct cmd_desc *c;
	int fd, n = 0;
	__u32 bit;

	for_each_cmd(c) {
		for (r = c->reserved; r < c->reserved + ARRAY_SIZE(c->reserved) && r->msg; r++) {
			for (bit = 0; bit < 32; bit++) {
				valid_arg(self, c);
				*(__u32 *)(self->arg.bytes + sizeof(struct encd_head)) = 999;
				*(__u32 *)(self->arg.bytes + r->off) = 1U << bit;
				refused(_metadata, self, c, self->fd, c->size, EINVAL, r->msg);
			}
			fd = fresh(_metadata, self, c);
			valid_arg(self, c);
			*(__u32 *)(self->arg.bytes + r->off) = 1;
			refused(_metadata, self, c, fd, c->size, EINVAL, r->msg);
			assert_no_effect(c, fd);
			close(fd);
			n++;
		}
	}
	/* SETUP's two, INIT's and LOAD's */
	ASSERT_EQ(4, n);
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
