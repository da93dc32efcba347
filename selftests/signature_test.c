// SPDX-License-Identifier: GPL-2.0
/*
 * The collective program and its two-level MD5 op-signature, computed in the
 * kernel (issue 3, Documentation/signature.rst).
 *
 * Every expected digest is computed here, independently, with OpenSSL's MD5
 * over byte views built by hand; the JSON programs in programs/ are also
 * pinned to the digests that programs/sign.py (Python's hashlib) prints, so
 * three implementations agree on every byte.
 */
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <time.h>
#include <endian.h>
#include <openssl/evp.h>
#include <enc/enc.h>
#include <enc/json.h>
#include <enc/program.h>

#include "encd_test.h"

#define MAX_IDS		32
#define MAX_PAIRS	8
#define MAX_OPS		64

/* A program as the test sees it: the model both sides are computed from. */
struct t_group {
	uint32_t id;
	int32_t rank;
	uint32_t n;
	uint32_t part[MAX_IDS];
	const uint32_t *bpart;	/* bootstrap_participants, n of them; NULL: part */
};

struct t_stp {
	uint32_t id;
	uint32_t n_pairs;
	uint32_t pairs[MAX_PAIRS][2];
	uint32_t n_part;	/* participants; 0: the first pair */
	uint32_t part[MAX_IDS];
};

struct t_op {
	uint32_t op;
	uint64_t size;
	uint32_t peer, dtype, alg, channel;
	bool stp;
	uint32_t owner;
};

struct t_prog {
	uint32_t n_groups, n_stps, n_ops;
	struct t_group g[ENCD_MAX_COMM_N + 2];
	struct t_stp s[4];
	struct t_op o[MAX_OPS];
};

struct ref_sigs {
	uint8_t global[16];
	uint8_t g[ENCD_MAX_COMM_N + 2][16];
	bool hashed[ENCD_MAX_COMM_N + 2];
	uint8_t s[4][16];
};

/* programs/sendrecv_pair.json, for global device id 0 of 2 */
static const struct t_prog sendrecv_pair = {
	.n_groups = 1,
	.g = { { .id = 0, .rank = -1, .n = 2, .part = { 0, 1 } } },
	.n_ops = 2,
	.o = {
		{ .op = ENC_SEND, .size = 4096, .peer = 1, .channel = 1, .owner = 0 },
		{ .op = ENC_RECV, .size = 4096, .peer = 1, .owner = 0 },
	},
};

/* programs/ring_permute.json, for global device id 0 of 4 */
static const struct t_prog ring_permute = {
	.n_stps = 1,
	.s = { { .id = 0, .n_pairs = 4, .pairs = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 } } } },
	.n_ops = 3,
	.o = {
		{ .op = ENC_PERMUTE, .size = 1024, .dtype = 2, .alg = 1, .stp = true },
		{ .op = ENC_SEND, .size = 1024, .peer = 1, .channel = 3, .stp = true },
		{ .op = ENC_RECV, .size = 1024, .peer = 3, .stp = true },
	},
};

/* programs/mixed.json, for global device id 2 of 8 */
static const struct t_prog mixed = {
	.n_groups = 4,
	.g = {
		{ .id = 0, .rank = 2, .n = 8, .part = { 0, 1, 2, 3, 4, 5, 6, 7 } },
		{ .id = 1, .rank = -1, .n = 2, .part = { 2, 3 } },
		{ .id = 2, .rank = -1, .n = 2, .part = { 1, 2 } },
		{ .id = 3, .rank = 0, .n = 2, .part = { 2, 6 } },
	},
	.n_stps = 2,
	.s = {
		{ .id = 5, .n_pairs = 2, .pairs = { { 2, 3 }, { 3, 2 } } },
		{ .id = 9, .n_pairs = 3, .pairs = { { 0, 2 }, { 2, 4 }, { 4, 0 } } },
	},
	.n_ops = 11,
	.o = {
		{ .op = ENC_ALL_REDUCE, .size = 1048576, .dtype = 7, .alg = 2, .owner = 0 },
		{ .op = ENC_SEND, .size = 64, .peer = 3, .channel = 3, .owner = 1 },
		{ .op = ENC_RECV, .size = 64, .peer = 1, .owner = 2 },
		{ .op = ENC_PERMUTE, .size = 4096, .dtype = 1, .stp = true, .owner = 9 },
		{ .op = ENC_ALL_GATHER, .size = 8192, .dtype = 7, .owner = 0 },
		{ .op = ENC_SEND, .size = 32, .peer = 3, .channel = 9, .stp = true, .owner = 5 },
		{ .op = ENC_RECV, .size = 32, .peer = 3, .stp = true, .owner = 5 },
		{ .op = ENC_REDUCE_SCATTER, .size = 2048, .dtype = 7, .alg = 1, .owner = 3 },
		{ .op = ENC_BROADCAST, .size = 16, .dtype = 1, .owner = 0 },
		{ .op = ENC_ALL_TO_ALL, .size = 512, .dtype = 3, .owner = 3 },
		{ .op = ENC_RECV, .size = 64, .peer = 3, .owner = 1 },
	},
};

/* What programs/sign.py prints for the programs above. */
struct golden {
	const char *json;
	const struct t_prog *prog;
	uint32_t g_device_id, world, flags;
	const char *global;
};

static const struct golden goldens[] = {
	{ "empty.json", NULL, 0, 2, 0, "00000000000000000000000000000000" },
	{ "sendrecv_pair.json", &sendrecv_pair, 0, 2, 0, "30322123a9c69995fe905676f293b0d8" },
	{ "ring_permute.json", &ring_permute, 0, 4, 0, "aa0801bf86c14551f0b41c0f87fc7fd7" },
	{ "mixed.json", &mixed, 2, 8, 0, "09541f0d4a4ea72f65a0f31b6357031d" },
	{ "mixed.json", &mixed, 2, 8, ENC_SIG_ALL_GROUPS, "4f461d925105b430f660b97dbf3a7e24" },
};

static const char *const mixed_level1[] = {
	/* groups 0..3 without the flag, then stps 5 and 9 */
	"00000000000000000000000000000000", "df5d4ea245aa5aeda6ee24d88b1b34da",
	"0e0923b78ddb378d564c2793c0433b73", "00000000000000000000000000000000",
	"b686dfb7794b236895c482fd0ca39780", "93bb25bd2b5e1722be3cd8e1723cc077",
};

static const struct t_prog empty_prog;

static const char *hex(const uint8_t *d, char *buf)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(buf + 2 * i, "%02x", d[i]);
	return buf;
}

/* ---- the reference: OpenSSL's MD5 over views built byte by byte ---- */

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void le64(uint8_t *p, uint64_t v)
{
	le32(p, v);
	le32(p + 4, v >> 32);
}

static size_t ref_view(const struct t_op *o, bool stp_view, uint32_t gid, uint8_t *out)
{
	switch (o->op) {
	case ENC_SEND:
		le32(out, 6);
		le64(out + 4, o->size);
		le32(out + 12, stp_view ? o->peer : o->channel);
		return 16;
	case ENC_RECV:
		le32(out, 6);
		le64(out + 4, o->size);
		le32(out + 12, gid);
		return 16;
	default:
		le32(out, o->op);
		le64(out + 4, o->size);
		le32(out + 12, o->dtype);
		le32(out + 16, o->alg);
		return 20;
	}
}

static void md5_ids(EVP_MD_CTX *md, const uint32_t *ids, uint32_t n)
{
	uint8_t b[4];
	uint32_t i;

	for (i = 0; i < n; i++) {
		le32(b, ids[i]);
		EVP_DigestUpdate(md, b, 4);
	}
}

static void ref_sign(const struct t_prog *p, uint32_t gid, uint32_t flags, struct ref_sigs *r)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint8_t cat[16 * 32], v[20];
	size_t n = 0;
	uint32_t i, j;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < p->n_groups; i++) {
		if (p->g[i].rank != -1 && !(flags & ENC_SIG_ALL_GROUPS))
			continue;
		EVP_DigestInit_ex(md, EVP_md5(), NULL);
		md5_ids(md, p->g[i].part, p->g[i].n);
		for (j = 0; j < p->n_ops; j++)
			if (!p->o[j].stp && p->o[j].owner == p->g[i].id)
				EVP_DigestUpdate(md, v, ref_view(&p->o[j], false, gid, v));
		EVP_DigestFinal_ex(md, r->g[i], NULL);
		r->hashed[i] = true;
		memcpy(cat + n, r->g[i], 16);
		n += 16;
	}
	for (i = 0; i < p->n_stps; i++) {
		EVP_DigestInit_ex(md, EVP_md5(), NULL);
		for (j = 0; j < p->s[i].n_pairs; j++)
			md5_ids(md, p->s[i].pairs[j], 2);
		for (j = 0; j < p->n_ops; j++)
			if (p->o[j].stp && p->o[j].owner == p->s[i].id)
				EVP_DigestUpdate(md, v, ref_view(&p->o[j], true, gid, v));
		EVP_DigestFinal_ex(md, r->s[i], NULL);
		memcpy(cat + n, r->s[i], 16);
		n += 16;
	}
	if (n) {
		EVP_DigestInit_ex(md, EVP_md5(), NULL);
		EVP_DigestUpdate(md, cat, n);
		EVP_DigestFinal_ex(md, r->global, NULL);
	}
	EVP_MD_CTX_free(md);
}

/* ---- the model as a libenc program, and the raw ioctls ---- */

static struct enc_program *t_build(const struct t_prog *p)
{
	struct enc_program *prog = enc_program_new();
	uint32_t i, j;

	for (i = 0; prog && i < p->n_groups; i++) {
		const struct t_group *g = &p->g[i];
		struct enc_replica_group_desc d = {
			.group_id = g->id,
			.rank = g->rank,
			.rank_n = g->n,
			.src_target_pairs_id = -1,
			.bootstrap_rank = g->rank >= 0 ? g->rank : 0,
			.num_ops = -1,
			.sendrecv = g->rank == -1,
			.participants = g->part,
			.participants_n = g->n,
			.bootstrap_participants = g->bpart ?: g->part,
			.bootstrap_participants_n = g->n,
		};

		if (enc_program_add_replica_group(prog, &d))
			goto fail;
	}
	for (i = 0; prog && i < p->n_stps; i++) {
		const struct t_stp *s = &p->s[i];

		if (enc_program_add_src_target_pairs(prog, s->id, s->n_part ? s->part : s->pairs[0],
						     s->n_part ?: 2))
			goto fail;
		for (j = 0; j < s->n_pairs; j++)
			if (enc_program_add_pair(prog, s->id, s->pairs[j], 2))
				goto fail;
	}
	for (i = 0; prog && i < p->n_ops; i++) {
		const struct t_op *o = &p->o[i];
		struct enc_op_desc d = {
			.op = o->op, .size_n = o->size, .peer = o->peer, .dtype = o->dtype,
			.alg = o->alg, .channel = o->channel, .stp = o->stp, .owner = o->owner,
		};

		if (enc_program_add_op(prog, &d))
			goto fail;
	}
	return prog;
fail:
	enc_program_free(prog);
	return NULL;
}

struct blob {
	uint8_t *buf;
	size_t len;
};

static int t_encode(const struct t_prog *p, struct blob *b)
{
	struct enc_program *prog = t_build(p);
	void *buf;
	int err;

	if (!prog)
		return -1;
	err = enc_program_encode(prog, &buf, &b->len);
	enc_program_free(prog);
	b->buf = buf;
	return err;
}

static int t_load(int fd, uint32_t vnc, const struct t_prog *p)
{
	struct blob b;
	int err;

	if (t_encode(p, &b))
		return -1;
	err = encd_program_load(fd, vnc, 0, b.buf, b.len);
	free(b.buf);
	return err;
}

static int t_sign(int fd, uint32_t vnc, uint32_t flags, uint8_t *sig)
{
	struct encd_program_sign c;
	int err = encd_program_sign(fd, vnc, 0, flags, &c);

	if (!err && sig)
		memcpy(sig, c.signature, 16);
	return err;
}

/* Loads and signs @p as global device @gid of @world on core @vnc. */
static int t_sign_prog(int fd, uint32_t vnc, const struct t_prog *p, uint32_t flags,
		       uint8_t *sig)
{
	int err = t_load(fd, vnc, p);

	return err ?: t_sign(fd, vnc, flags, sig);
}

static const char *programs_dir(void)
{
	static char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", __FILE__);
	return strcat(dirname(dir), "/programs");
}

/* ---- golden vectors ---- */

TEST(empty_program_signs_zero)
{
	struct t_prog collective_only = {
		.n_groups = 1,
		.g = { { .id = 3, .rank = 0, .n = 2, .part = { 0, 1 } } },
		.n_ops = 1,
		.o = { { .op = ENC_ALL_REDUCE, .size = 64, .owner = 3 } },
	};
	struct encd_program_sign c;
	struct encd_prog_sig gs[1];
	uint8_t zero[16] = { 0 };
	int fd = encd_open();

	ASSERT_LE(0, fd);
	test_cmd(encd_build(fd, 0, 0, 2, 0, NULL));
	test_cmd(t_load(fd, 0, &empty_prog));
	test_cmd(encd_program_sign(fd, 0, 0, 0, &c));
	ASSERT_EQ(0, memcmp(zero, c.signature, 16));
	ASSERT_EQ(0, c.n_groups_hashed);
	ASSERT_EQ(0, c.n_stps_hashed);

	/* A collective group alone is skipped by default: still nothing to hash. */
	test_cmd(t_load(fd, 0, &collective_only));
	memset(c.signature, 0xff, 16);
	test_cmd(encd_program_sign(fd, 0, 0, 0, &c));
	ASSERT_EQ(0, memcmp(zero, c.signature, 16));
	memset(gs, 0xff, sizeof(gs));
	test_cmd(encd_program_get_signatures(fd, 0, 0, gs, 1, NULL, 0, NULL));
	ASSERT_EQ(3, gs[0].id);
	ASSERT_EQ(0, gs[0].flags);
	ASSERT_EQ(0, memcmp(zero, gs[0].signature, 16));
	close(fd);
}

TEST(golden_vectors_match_openssl)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(goldens); k++) {
		const struct golden *gv = &goldens[k];
		const struct t_prog *p = gv->prog ?: &empty_prog;
		struct encd_prog_sig gs[ENCD_MAX_COMM_N], ss[4];
		struct encd_program_get_signatures got;
		struct ref_sigs ref;
		uint8_t sig[16];
		char h1[33], h2[33];
		uint32_t i;
		int fd = encd_open();

		ASSERT_LE(0, fd);
		/* Each vector on its own core: the worlds differ. */
		test_cmd(encd_build(fd, k, gv->g_device_id, gv->world, 0, NULL));
		test_cmd(t_sign_prog(fd, k, p, gv->flags, sig));
		ref_sign(p, gv->g_device_id, gv->flags, &ref);
		ASSERT_STREQ(gv->global, hex(ref.global, h1)) TH_LOG("%s: OpenSSL vs sign.py", gv->json);
		ASSERT_STREQ(gv->global, hex(sig, h2)) TH_LOG("%s: kernel", gv->json);

		test_cmd(encd_program_get_signatures(fd, k, 0, gs, ENCD_MAX_COMM_N, ss, 4, &got));
		ASSERT_EQ(p->n_groups, got.n_groups);
		ASSERT_EQ(p->n_stps, got.n_stps);
		ASSERT_EQ(gv->flags, got.sig_flags);
		ASSERT_EQ(ENCD_PROGRAM_PARSE, got.state);
		ASSERT_EQ(0, memcmp(sig, got.signature, 16));
		for (i = 0; i < p->n_groups; i++) {
			ASSERT_EQ(p->g[i].id, gs[i].id);
			ASSERT_EQ(ref.hashed[i], !!(gs[i].flags & ENCD_PROG_SIG_HASHED));
			ASSERT_STREQ(hex(ref.g[i], h1), hex(gs[i].signature, h2))
				TH_LOG("%s: group %u", gv->json, p->g[i].id);
		}
		for (i = 0; i < p->n_stps; i++) {
			ASSERT_EQ(p->s[i].id, ss[i].id);
			ASSERT_EQ(ENCD_PROG_SIG_HASHED, ss[i].flags);
			ASSERT_STREQ(hex(ref.s[i], h1), hex(ss[i].signature, h2))
				TH_LOG("%s: stp %u", gv->json, p->s[i].id);
		}
		if (p == &mixed && !gv->flags) {
			for (i = 0; i < 4; i++) {
				ASSERT_STREQ(mixed_level1[i], hex(gs[i].signature, h1));
			}
			for (i = 0; i < 2; i++) {
				ASSERT_STREQ(mixed_level1[4 + i], hex(ss[i].signature, h1));
			}
		}
		close(fd);
	}
}

/* The same vectors through libenc, from the JSON files. */
TEST(json_programs_sign_to_pinned_vectors)
{
	size_t k;

	ASSERT_EQ(NRT_SUCCESS, enc_init()) TH_LOG("%s", enc_last_error());
	for (k = 0; k < ARRAY_SIZE(goldens); k++) {
		const struct golden *gv = &goldens[k];
		struct enc_program_signatures *sigs;
		struct enc_program *prog;
		char path[PATH_MAX], h[33];
		uint8_t sig[16];

		snprintf(path, sizeof(path), "%s/%s", programs_dir(), gv->json);
		ASSERT_EQ(NRT_SUCCESS, enc_init_global_comm(k, gv->g_device_id, gv->world, 1, "",
							     false)) TH_LOG("%s", enc_last_error());
		ASSERT_EQ(NRT_SUCCESS, enc_program_from_json_file(path, &prog))
			TH_LOG("%s", enc_last_error());
		ASSERT_EQ(NRT_SUCCESS, enc_program_load(k, 1, prog)) TH_LOG("%s", enc_last_error());
		enc_program_free(prog);
		ASSERT_EQ(NRT_SUCCESS, enc_calculate_signature(k, 1, gv->flags, sig))
			TH_LOG("%s", enc_last_error());
		ASSERT_STREQ(gv->global, hex(sig, h)) TH_LOG("%s", gv->json);
		ASSERT_EQ(NRT_SUCCESS, enc_program_get_signatures(k, 1, &sigs))
			TH_LOG("%s", enc_last_error());
		ASSERT_EQ(0, memcmp(sig, sigs->global, 16));
		ASSERT_EQ(gv->flags, sigs->flags);
		ASSERT_FALSE(sigs->sealed);
		if (gv->prog) {
			ASSERT_EQ(gv->prog->n_groups, sigs->n_groups);
			ASSERT_EQ(gv->prog->n_stps, sigs->n_stps);
		}
		if (gv->prog == &mixed && !gv->flags) {
			ASSERT_STREQ(mixed_level1[1], hex(sigs->groups[1].digest, h));
			ASSERT_FALSE(sigs->groups[0].hashed);
			ASSERT_TRUE(sigs->groups[1].hashed);
			ASSERT_EQ(9, sigs->stps[1].id);
			ASSERT_STREQ(mixed_level1[5], hex(sigs->stps[1].digest, h));
		}
		enc_program_signatures_free(sigs);
	}
	enc_destroy_gcomm_locks();
}

/* ---- the two ends of a point-to-point edge ---- */

TEST(sendrecv_group_endpoints_hash_identically)
{
	/* Rank 0 sends to 1 then receives from it; rank 1 mirrors that. */
	struct t_prog a = {
		.n_groups = 1,
		.g = { { .id = 4, .rank = -1, .n = 2, .part = { 0, 1 } } },
		.n_ops = 2,
		.o = {
			{ .op = ENC_SEND, .size = 1 << 20, .peer = 1, .channel = 1, .owner = 4 },
			{ .op = ENC_RECV, .size = 512, .peer = 1, .owner = 4 },
		},
	};
	struct t_prog b = a;
	struct ref_sigs ra, rb;
	uint8_t sa[16], sb[16];
	int fd = encd_open();

	/* The group projection hashes a SEND's channel, not its peer. */
	b.o[0] = (struct t_op){ .op = ENC_RECV, .size = 1 << 20, .peer = 0, .owner = 4 };
	b.o[1] = (struct t_op){ .op = ENC_SEND, .size = 512, .peer = 7, .channel = 0, .owner = 4 };

	ASSERT_LE(0, fd);
	test_cmd(encd_build(fd, 0, 0, 8, 0, NULL));
	test_cmd(encd_build(fd, 1, 1, 8, 0, NULL));
	test_cmd(t_sign_prog(fd, 0, &a, 0, sa));
	test_cmd(t_sign_prog(fd, 1, &b, 0, sb));
	ASSERT_EQ(0, memcmp(sa, sb, 16));
	ref_sign(&a, 0, 0, &ra);
	ref_sign(&b, 1, 0, &rb);
	ASSERT_EQ(0, memcmp(ra.global, sa, 16));
	ASSERT_EQ(0, memcmp(rb.global, sb, 16));
	close(fd);
}

TEST(src_target_pair_endpoints_hash_identically)
{
	struct t_prog a = {
		.n_stps = 1,
		.s = { { .id = 2, .n_pairs = 2, .pairs = { { 0, 1 }, { 1, 0 } } } },
		.n_ops = 2,
		.o = {
			{ .op = ENC_SEND, .size = 4096, .peer = 1, .channel = 5, .stp = true, .owner = 2 },
			{ .op = ENC_RECV, .size = 4096, .peer = 1, .stp = true, .owner = 2 },
		},
	};
	struct t_prog b = a;
	uint8_t sa[16], sb[16];
	int fd = encd_open();

	/* The stp projection hashes a SEND's peer, not its channel. */
	b.o[0] = (struct t_op){ .op = ENC_RECV, .size = 4096, .peer = 0, .stp = true, .owner = 2 };
	b.o[1] = (struct t_op){ .op = ENC_SEND, .size = 4096, .peer = 0, .channel = 6, .stp = true,
				.owner = 2 };

	ASSERT_LE(0, fd);
	test_cmd(encd_build(fd, 2, 0, 2, 0, NULL));
	test_cmd(encd_build(fd, 3, 1, 2, 0, NULL));
	test_cmd(t_sign_prog(fd, 2, &a, 0, sa));
	test_cmd(t_sign_prog(fd, 3, &b, 0, sb));
	ASSERT_EQ(0, memcmp(sa, sb, 16));
	close(fd);
}

/* ---- what changes a digest, and what does not ---- */

enum { CHANGES, KEEPS };

struct mutation {
	const char *what;
	int expect;
	void (*apply)(struct t_prog *p);
};

static void m_size(struct t_prog *p) { p->o[4].size++; }
static void m_code(struct t_prog *p) { p->o[0].op = ENC_ALL_GATHER; }
static void m_order(struct t_prog *p)
{
	struct t_op t = p->o[1];

	p->o[1] = p->o[10];
	p->o[10] = t;
}
static void m_order_stp(struct t_prog *p)
{
	struct t_op t = p->o[5];

	p->o[5] = p->o[6];
	p->o[6] = t;
}
static void m_stp_send_peer(struct t_prog *p) { p->o[5].peer = 4; }
static void m_stp_send_channel(struct t_prog *p) { p->o[5].channel = 1; }
static void m_group_send_channel(struct t_prog *p) { p->o[1].channel = 4; }
static void m_group_send_peer(struct t_prog *p) { p->o[1].peer = 5; }
static void m_recv_peer(struct t_prog *p) { p->o[2].peer = 0; }
static void m_participant(struct t_prog *p) { p->g[1].part[1] = 4; }
static void m_pair(struct t_prog *p) { p->s[1].pairs[2][1] = 1; }
static void m_dtype(struct t_prog *p) { p->o[3].dtype = 2; }
static void m_alg(struct t_prog *p) { p->o[3].alg = 1; }
static void m_collective_size(struct t_prog *p) { p->o[0].size *= 2; }

static const struct mutation mutations[] = {
	{ "an all-gather's size", KEEPS, m_size },
	{ "an all-reduce's op code", KEEPS, m_code },
	{ "a sendrecv group's op order", CHANGES, m_order },
	{ "an stp's op order", CHANGES, m_order_stp },
	{ "an stp SEND's peer", CHANGES, m_stp_send_peer },
	{ "an stp SEND's channel", KEEPS, m_stp_send_channel },
	{ "a group SEND's channel", CHANGES, m_group_send_channel },
	{ "a group SEND's peer", KEEPS, m_group_send_peer },
	{ "a RECV's peer", KEEPS, m_recv_peer },
	{ "a participant", CHANGES, m_participant },
	{ "a pair", CHANGES, m_pair },
	{ "a permute's dtype", CHANGES, m_dtype },
	{ "a permute's alg", CHANGES, m_alg },
	{ "an all-reduce's size", KEEPS, m_collective_size },
};

TEST(every_change_changes_the_digest)
{
	uint8_t base[16], base_all[16], again[16], sig[16];
	int fd = encd_open(), fd2 = encd_open();
	size_t k;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd2);
	test_cmd(encd_build(fd, 0, 2, 8, 0, NULL));
	test_cmd(t_sign_prog(fd, 0, &mixed, 0, base));
	test_cmd(t_sign_prog(fd, 0, &mixed, ENC_SIG_ALL_GROUPS, base_all));
	ASSERT_NE(0, memcmp(base, base_all, 16));

	/* Loaded again, or by another file: the same digest. */
	test_cmd(t_sign_prog(fd, 0, &mixed, 0, again));
	ASSERT_EQ(0, memcmp(base, again, 16));
	test_cmd(encd_build(fd2, 0, 2, 8, 0, NULL));
	test_cmd(t_sign_prog(fd2, 0, &mixed, 0, again));
	ASSERT_EQ(0, memcmp(base, again, 16));

	for (k = 0; k < ARRAY_SIZE(mutations); k++) {
		struct t_prog p = mixed;
		struct ref_sigs ref;

		mutations[k].apply(&p);
		test_cmd(t_sign_prog(fd, 0, &p, 0, sig));
		ref_sign(&p, 2, 0, &ref);
		ASSERT_EQ(0, memcmp(ref.global, sig, 16)) TH_LOG("%s", mutations[k].what);
		if (mutations[k].expect == CHANGES) {
			ASSERT_NE(0, memcmp(base, sig, 16)) TH_LOG("%s", mutations[k].what);
		} else {
			ASSERT_EQ(0, memcmp(base, sig, 16)) TH_LOG("%s", mutations[k].what);
		}

		/* With every group hashed, any change to a hashed byte shows. */
		test_cmd(t_sign(fd, 0, ENC_SIG_ALL_GROUPS, sig));
		ref_sign(&p, 2, ENC_SIG_ALL_GROUPS, &ref);
		ASSERT_EQ(0, memcmp(ref.global, sig, 16)) TH_LOG("%s", mutations[k].what);
		if (mutations[k].apply != m_stp_send_channel && mutations[k].apply != m_recv_peer &&
		    mutations[k].apply != m_group_send_peer) {
			ASSERT_NE(0, memcmp(base_all, sig, 16)) TH_LOG("%s", mutations[k].what);
		}
	}
	close(fd2);
	close(fd);
}

/*
 * libnrt hashes a src-target-pair set's pair vectors, never its
 * participants, and a replica group's participants, never its
 * bootstrap_participants: two programs that differ only there sign alike,
 * every level-1 digest and the global one. Changing a group's participants
 * instead (the same ids, in another order) changes its digest: the
 * comparison sees what it is given.
 */
TEST(participants_of_sets_and_bootstrap_participants_are_not_hashed)
{
	static const uint32_t bpart1[] = { 3, 2 }, bpart2[] = { 2, 1 };
	struct encd_prog_sig gs[2][ENCD_MAX_COMM_N], ss[2][4];
	struct t_prog p = mixed, q;
	uint8_t base[16], sig[16];
	char h1[33], h2[33];
	struct ref_sigs ref;
	uint32_t i;
	int fd = encd_open();

	ASSERT_LE(0, fd);
	test_cmd(encd_build(fd, 0, 2, 8, 0, NULL));
	test_cmd(t_sign_prog(fd, 0, &p, 0, base));
	test_cmd(encd_program_get_signatures(fd, 0, 0, gs[0], ENCD_MAX_COMM_N, ss[0], 4, NULL));

	/* Both sets get participants of their own, both sendrecv groups theirs. */
	p.s[0].n_part = 8;
	for (i = 0; i < 8; i++)
		p.s[0].part[i] = 7 - i;
	p.s[1].n_part = 1;
	p.s[1].part[0] = 6;
	p.g[1].bpart = bpart1;
	p.g[2].bpart = bpart2;
	test_cmd(t_sign_prog(fd, 0, &p, 0, sig));
	ASSERT_STREQ(hex(base, h1), hex(sig, h2));
	test_cmd(encd_program_get_signatures(fd, 0, 0, gs[1], ENCD_MAX_COMM_N, ss[1], 4, NULL));
	for (i = 0; i < p.n_groups; i++) {
		ASSERT_EQ(0, memcmp(gs[0][i].signature, gs[1][i].signature, 16))
			TH_LOG("group %u", p.g[i].id);
	}
	for (i = 0; i < p.n_stps; i++) {
		ASSERT_EQ(0, memcmp(ss[0][i].signature, ss[1][i].signature, 16))
			TH_LOG("stp %u", p.s[i].id);
	}
	/* Every group hashed: a collective group's bootstrap list is left out too. */
	test_cmd(t_sign(fd, 0, ENC_SIG_ALL_GROUPS, base));
	p.g[3].bpart = (const uint32_t []){ 6, 2 };
	test_cmd(t_sign_prog(fd, 0, &p, ENC_SIG_ALL_GROUPS, sig));
	ASSERT_STREQ(hex(base, h1), hex(sig, h2));
	ref_sign(&p, 2, ENC_SIG_ALL_GROUPS, &ref);
	ASSERT_STREQ(hex(ref.global, h1), hex(sig, h2));

	/* The control: a sendrecv group's participants reordered. */
	q = p;
	q.g[1].part[0] = 3;
	q.g[1].part[1] = 2;
	test_cmd(t_sign_prog(fd, 0, &q, 0, sig));
	test_cmd(encd_program_get_signatures(fd, 0, 0, gs[1], ENCD_MAX_COMM_N, ss[1], 4, NULL));
	ASSERT_NE(0, memcmp(gs[0][1].signature, gs[1][1].signature, 16));
	ASSERT_EQ(0, memcmp(gs[0][2].signature, gs[1][2].signature, 16));
	ref_sign(&q, 2, 0, &ref);
	ASSERT_EQ(0, memcmp(ref.global, sig, 16));
	close(fd);
}

/* ---- the state machine ---- */

TEST(signing_after_parse_state_fails)
{
	struct encd_program_get_signatures got;
	uint8_t sig[16], sig2[16];
	int fd = encd_open();

	ASSERT_LE(0, fd);
	test_cmd(encd_build(fd, 0, 0, 2, 0, NULL));
	test_cmd(t_sign_prog(fd, 0, &sendrecv_pair, 0, sig));
	test_cmd(encd_program_seal(fd, 0, 0));
	test_err(EINVAL, "cannot calculate CC signature: not in parse state",
		 t_sign(fd, 0, 0, sig2));
	test_err(EINVAL, "Cannot seal a program that is not in parse state",
		 encd_program_seal(fd, 0, 0));
	test_err(EBUSY, "The program on core 0 context 0 is sealed and cannot be replaced",
		 t_load(fd, 0, &sendrecv_pair));

	/* What was signed is still there for the bootstrap to read. */
	test_cmd(encd_program_get_signatures(fd, 0, 0, NULL, 0, NULL, 0, &got));
	ASSERT_EQ(ENCD_PROGRAM_LOADED, got.state);
	ASSERT_EQ(1, got.n_groups);
	ASSERT_EQ(0, memcmp(sig, got.signature, 16));
	close(fd);
}

TEST(libenc_reports_the_parse_state_sentence)
{
	struct enc_program *prog = t_build(&sendrecv_pair);
	uint8_t sig[16];

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(NRT_SUCCESS, enc_init());
	ASSERT_EQ(NRT_SUCCESS, enc_init_global_comm(0, 0, 2, 0, "", false));
	ASSERT_EQ(NRT_SUCCESS, enc_program_load(0, 0, prog)) TH_LOG("%s", enc_last_error());
	ASSERT_EQ(NRT_SUCCESS, enc_program_seal(0, 0));
	ASSERT_EQ(NRT_INVALID, enc_calculate_signature(0, 0, 0, sig));
	ASSERT_NE(NULL, strstr(enc_last_error(),
			       "cannot calculate CC signature: not in parse state"))
		TH_LOG("%s", enc_last_error());
	ASSERT_EQ(NRT_RESOURCE, enc_program_load(0, 0, prog));
	enc_program_free(prog);
	enc_destroy_gcomm_locks();
}

/* libnrt: "if (!enc_ctx || !ccop_owner) return NRT_SUCCESS;" */
TEST(libenc_signs_nothing_when_no_program_is_loaded)
{
	struct enc_program *prog = t_build(&sendrecv_pair);
	uint8_t sig[16];

	ASSERT_NE(NULL, prog);
	ASSERT_EQ(NRT_SUCCESS, enc_init());
	enc_set_error(NRT_FAILURE, "before");
	memset(sig, 0xa5, sizeof(sig));
	ASSERT_EQ(NRT_SUCCESS, enc_calculate_signature(0, 0, 0, sig)) TH_LOG("%s", enc_last_error());
	ASSERT_EQ(0, memcmp((uint8_t[16]){ 0 }, sig, 16));
	ASSERT_STREQ("before", enc_last_error());
	ASSERT_EQ(NRT_SUCCESS, enc_init_global_comm(0, 0, 2, 0, "", false));
	ASSERT_EQ(NRT_SUCCESS, enc_calculate_signature(0, 0, ENC_SIG_ALL_GROUPS, NULL));

	/* Any other failure stays one. */
	ASSERT_EQ(NRT_INVALID, enc_calculate_signature(999, 0, 0, sig));
	ASSERT_STREQ("enc_calculate_signature: Failed to find core 999 (ENODEV)", enc_last_error());
	ASSERT_EQ(NRT_SUCCESS, enc_program_load(0, 0, prog)) TH_LOG("%s", enc_last_error());
	ASSERT_EQ(NRT_SUCCESS, enc_release_global_comm(0, 0));
	ASSERT_EQ(NRT_INVALID, enc_calculate_signature(0, 0, 0, sig));
	ASSERT_STREQ("enc_calculate_signature: This file does not hold the global comm of core 0 context 0 (ENOENT)",
		     enc_last_error());
	enc_program_free(prog);
	enc_destroy_gcomm_locks();
}

/* ---- the ioctls' edges ---- */

TEST(program_ioctl_edges)
{
	struct encd_prog_sig gs[4];
	struct encd_program_get_signatures got;
	struct encd_program_load ld = { 0 };
	struct blob b;
	uint8_t sig[16];
	int fd = encd_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, t_encode(&mixed, &b));

	test_why(ENOENT, ENCD_REASON_NO_PROGRAM, "No program is loaded on core 0 context 0",
		 t_sign(fd, 0, 0, sig));
	test_err(ENOENT, "No program is loaded on core 0 context 0", encd_program_seal(fd, 0, 0));
	test_err(ENOENT, "This file does not hold the global comm of core 0 context 0",
		 encd_program_load(fd, 0, 0, b.buf, b.len));
	test_err(ENODEV, "Failed to find core 999", encd_program_load(fd, 999, 0, b.buf, b.len));
	test_err(EINVAL, "Invalid context id 2 (there are 2)",
		 encd_program_load(fd, 0, 2, b.buf, b.len));

	test_cmd(encd_build(fd, 0, 2, 8, 0, NULL));
	test_err(EFAULT, NULL, encd_program_load(fd, 0, 0, (void *)8, b.len));
	test_err(EINVAL, "Invalid program: 16777217 bytes, at most 16777216",
		 encd_program_load(fd, 0, 0, b.buf, ENCD_PROG_MAX_SIZE + 1));
	ld.vnc = 0;
	ld.prog_uptr = (uintptr_t)b.buf;
	ld.prog_len = b.len;
	ld.__reserved = 1;
	test_err(EINVAL, "encd_program_load.__reserved must be 0",
		 encd_cmd(fd, ENCD_IOC_PROGRAM_LOAD, &ld, sizeof(ld)));
	test_err(EINVAL, NULL, encd_cmd(fd, ENCD_IOC_PROGRAM_LOAD, &ld, 16));

	test_cmd(encd_program_load(fd, 0, 0, b.buf, b.len));
	test_err(EINVAL, "The program on core 0 context 0 has no CC signature yet",
		 encd_program_get_signatures(fd, 0, 0, NULL, 0, NULL, 0, NULL));
	test_err(EOPNOTSUPP, "Unknown flags 0x2", t_sign(fd, 0, 2, sig));
	test_cmd(t_sign(fd, 0, 0, sig));

	/* Short room: only that much is written, the counts tell the rest. */
	memset(gs, 0xee, sizeof(gs));
	test_cmd(encd_program_get_signatures(fd, 0, 0, gs, 1, NULL, 0, &got));
	ASSERT_EQ(4, got.n_groups);
	ASSERT_EQ(2, got.n_stps);
	ASSERT_EQ(0, gs[0].id);
	ASSERT_EQ(0xeeeeeeee, gs[1].id);
	test_err(EFAULT, NULL, encd_program_get_signatures(fd, 0, 0, (void *)8, 4, NULL, 0, NULL));

	/* The comm goes away: the program is no longer reachable... */
	test_cmd(encd_release(fd, 0, 0));
	test_err(ENOENT, "This file does not hold the global comm of core 0 context 0",
		 t_sign(fd, 0, 0, sig));
	/* ...nor through a new comm of the same world, which it was not checked against. */
	test_cmd(encd_build(fd, 0, 2, 8, 0, NULL));
	test_err(ENOENT,
		 "The global comm the program on core 0 context 0 was loaded for is gone; load it again",
		 t_sign(fd, 0, 0, sig));
	test_cmd(encd_program_load(fd, 0, 0, b.buf, b.len));
	test_cmd(t_sign(fd, 0, 0, sig));
	free(b.buf);
	close(fd);
}

/* ---- validation: every rule, on the binary description ---- */

struct layout {
	struct encd_prog_header *h;
	struct encd_prog_group *g;
	struct encd_prog_stp *s;
	struct encd_prog_vec *pairs;
	struct encd_prog_op *o;
	__le32 *ids;
};

static void locate(uint8_t *buf, struct layout *l)
{
	l->h = (void *)buf;
	l->g = (void *)(l->h + 1);
	l->s = (void *)(l->g + le32toh(l->h->n_groups));
	l->pairs = (void *)(l->s + le32toh(l->h->n_stps));
	l->o = (void *)(l->pairs + le32toh(l->h->n_pairs));
	l->ids = (void *)(l->o + le32toh(l->h->n_ops));
}

#define SET(field, val)	((field) = htole32(val))
#define ADD(field, val)	((field) = htole32(le32toh(field) + (val)))

struct bad_case {
	const char *what;
	const char *msg;	/* a part of the kernel's sentence */
};

/* Breaks the mixed program's description (world 8) in way @k; may change *len. */
static void breakit(int k, struct layout *l, size_t *len)
{
	switch (k) {
	case 0: (*len)--; break;
	case 1: *len = 20; break;
	case 2: SET(l->h->magic, 0x50434e46); break;
	case 3: l->h->version = htole16(2); break;
	case 4: l->h->header_size = htole16(48); break;
	case 5: SET(l->h->flags, 1); break;
	case 6: SET(l->h->__reserved, 1); break;
	case 7: SET(l->h->n_groups, 13); break;
	case 8: ADD(l->h->n_ops, 1); break;
	case 9: SET(l->h->n_ids, 0xffffffff); break;
	case 10: SET(l->h->n_pairs, 0x20000000); break;
	case 11: SET(l->g[0].group_id, 12); break;
	case 12: SET(l->g[1].group_id, 0); break;
	case 13: SET(l->g[1].rank_n, 0); break;
	case 14: SET(l->g[0].rank, 8); break;
	case 15: SET(l->g[0].rank, -2); break;
	case 16: SET(l->g[1].flags, 0); break;
	case 17: SET(l->g[0].flags, ENCD_PROG_GROUP_SENDRECV); break;
	case 18: SET(l->g[0].flags, 8); break;
	case 19: SET(l->g[1].stream_id, 4); break;
	case 20: SET(l->g[1].bootstrap_rank, 2); break;
	case 21: SET(l->g[0].rank_n, 7); break;
	case 22: SET(l->g[3].src_target_pairs_id, 7); break;
	case 23: SET(l->g[3].src_target_pairs_id, -2); break;
	case 24: ADD(l->g[0].num_ops, 1); break;
	case 25: SET(l->ids[le32toh(l->g[1].participants.off) + 1], 8); break;
	case 26: SET(l->ids[le32toh(l->g[1].participants.off) + 1], 2); break;
	case 27: ADD(l->g[1].participants.off, -1); break;
	case 28: /* a fresh id, so that only the place is wrong */
		ADD(l->g[3].participants.len, 1);
		SET(l->ids[26], 7);
		break;
	case 29: SET(l->s[0].id, 0x80000000); break;
	case 30: SET(l->s[1].id, 5); break;
	case 31: SET(l->s[0].__reserved, 1); break;
	case 32: SET(l->s[0].pairs.len, 0); break;
	case 33: ADD(l->s[1].pairs.off, 1); break;
	case 34: ADD(l->s[1].pairs.len, 1); break;
	case 35: SET(l->pairs[0].len, 1); break;
	case 36: SET(l->ids[le32toh(l->pairs[4].off)], 100); break;
	case 37: ADD(l->pairs[4].len, 100); break;
	case 38: ADD(l->pairs[2].off, 1); break;
	case 39: SET(l->o[0].op, 0); break;
	case 40: SET(l->o[0].op, 9); break;
	case 41: SET(l->o[0].owner, 11); break;
	case 42: SET(l->o[3].owner, 77); break;
	case 43: SET(l->o[1].peer, 8); break;
	case 44: SET(l->o[1].flags, 2); break;
	case 45: SET(l->o[1].__reserved, 1); break;
	case 46: SET(l->o[0].flags, ENCD_PROG_OP_STP); break;
	case 47: /* ids nobody owns at the end of the pool */
		ADD(l->h->n_ids, 1);
		ADD(l->h->total_size, 4);
		*len += 4;
		break;
	case 48: /* an stp with participants but no pair table entries */
		SET(l->h->n_pairs, 0);
		break;
	}
}

static const struct bad_case bad_cases[] = {
	{ "truncated by one byte", "total_size" },
	{ "shorter than the header", "shorter than the 40-byte header" },
	{ "bad magic", "bad magic 0x50434e46" },
	{ "unknown version", "version 2, this kernel reads version 1" },
	{ "other header size", "header_size 48" },
	{ "header flags", "header flags and reserved fields must be 0" },
	{ "header reserved", "header flags and reserved fields must be 0" },
	{ "too many groups", "13 replica groups, at most 12" },
	{ "one op too many", "need" },
	{ "huge id count", "need" },
	{ "huge pair count", "need" },
	{ "group id out of range", "group_id 12 is not below 12" },
	{ "group id twice", "group_id 0 appears twice" },
	{ "rank_n 0", "group 1 has rank_n 0" },
	{ "rank not below rank_n", "group 0 rank 8 is neither -1 nor below rank_n 8" },
	{ "rank -2", "group 0 rank -2 is neither -1 nor below rank_n 8" },
	{ "sendrecv group without the flag", "group 1 is not a sendrecv group but its rank is -1" },
	{ "sendrecv flag with a rank", "group 0 is a sendrecv group but its rank is 2" },
	{ "unknown group flags", "group 0 has unknown flags 0x8" },
	{ "stream id out of range", "group 1 stream_id 4 is not below 4" },
	{ "bootstrap rank out of range", "group 1 bootstrap_rank 2 is not below rank_n 2" },
	{ "bootstrap participants not rank_n", "group 0 has 8 bootstrap_participants, rank_n is 7" },
	{ "unknown stp for a group", "group 3 src_target_pairs_id 7 names no stp" },
	{ "negative stp id for a group", "group 3 src_target_pairs_id -2 names no stp" },
	{ "num_ops wrong", "group 0 says num_ops 4 but 3 ops name it" },
	{ "participant outside the world", "group 1 participants id 8 is not below the world size 8" },
	{ "participant twice", "group 1 participants has id 2 twice" },
	{ "lists overlapping", "group 1 participants starts at id 15, not at 16" },
	{ "list longer than its place", "group 3 bootstrap_participants starts at id 26, not at 27" },
	{ "stp id too large", "stp id 2147483648 is above 2147483647" },
	{ "stp id twice", "stp id 5 appears twice" },
	{ "stp reserved", "stp 5 reserved field must be 0" },
	{ "stp without pairs", "stp 5 has no pairs" },
	{ "stp pairs overlapping", "stp 9 pairs start at 3, not at 2" },
	{ "stp pairs past the table", "stp 9 has 4 pairs from 2, past the end of the 5-pair table" },
	{ "one-id pair", "stp 5 pair 0 has 1 ids, fewer than 2" },
	{ "pair id outside the world", "stp 9 pair 2 id 100 is not below the world size 8" },
	{ "pair past the pool", "stp 9 pair 2 has 102 ids from" },
	{ "pairs overlapping", "stp 9 pair 0 starts at id" },
	{ "op code 0", "op 0 has unknown op code 0" },
	{ "op code 9", "op 0 has unknown op code 9" },
	{ "op of a missing group", "op 0 names group 11, which does not exist" },
	{ "op of a missing stp", "op 3 names stp 77, which does not exist" },
	{ "peer outside the world", "op 1 peer 8 is not below the world size 8" },
	{ "unknown op flags", "op 1 has unknown flags 0x2" },
	{ "op reserved", "op 1 reserved field must be 0" },
	{ "op names a group id as an stp", "op 0 names stp 0, which does not exist" },
	{ "ids nobody owns", "ids 42..42 of the pool belong to no list" },
	{ "pair table missing", "need" },
};

TEST(every_validation_rule_rejects_with_einval)
{
	struct blob base;
	uint8_t sig[16];
	size_t k;
	int fd = encd_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, t_encode(&mixed, &base));
	test_cmd(encd_build(fd, 0, 2, 8, 0, NULL));
	test_cmd(encd_program_load(fd, 0, 0, base.buf, base.len));

	for (k = 0; k < ARRAY_SIZE(bad_cases); k++) {
		uint8_t *buf = calloc(1, base.len + 64);
		struct layout l;
		size_t len = base.len;

		ASSERT_NE(NULL, buf);
		memcpy(buf, base.buf, base.len);
		locate(buf, &l);
		breakit(k, &l, &len);
		ASSERT_EQ(EINVAL, encd_program_load(fd, 0, 0, buf, len)) TH_LOG("%s", bad_cases[k].what);
		ASSERT_NE(NULL, strstr(encd_msg, bad_cases[k].msg))
			TH_LOG("%s: '%s' lacks '%s'", bad_cases[k].what, encd_msg, bad_cases[k].msg);
		ASSERT_EQ(0, strncmp(encd_msg, "Invalid program: ", 17));
		free(buf);
	}
	/* A refused program leaves the one before in place. */
	test_cmd(t_sign(fd, 0, 0, sig));
	free(base.buf);
	close(fd);
}

/* The rules that need a program of another shape, made with libenc. */
TEST(validation_rules_on_built_programs)
{
	struct t_prog p;
	uint32_t i;
	int fd = encd_open();

	ASSERT_LE(0, fd);
	test_cmd(encd_build(fd, 0, 0, 64, 0, NULL));

	p = (struct t_prog){ .n_groups = 1, .g = { { .id = 0, .rank = 0, .n = 0 } } };
	test_err(EINVAL, NULL, t_load(fd, 0, &p));
	ASSERT_NE(NULL, strstr(encd_msg, "rank_n 0"));

	/* A list long enough to be checked by sorting. */
	p = (struct t_prog){ .n_groups = 1, .g = { { .id = 0, .rank = 5, .n = MAX_IDS } } };
	for (i = 0; i < MAX_IDS; i++)
		p.g[0].part[i] = 63 - i;
	test_cmd(t_load(fd, 0, &p));
	p.g[0].part[MAX_IDS - 1] = 40;
	test_err(EINVAL, "Invalid program: group 0 participants has id 40 twice", t_load(fd, 0, &p));

	p = (struct t_prog){ .n_groups = ENCD_MAX_COMM_N + 1 };
	for (i = 0; i < p.n_groups; i++)
		p.g[i] = (struct t_group){ .id = i, .rank = 0, .n = 1, .part = { 0 } };
	test_why(EINVAL, ENCD_REASON_BAD_PROGRAM, "Invalid program: 13 replica groups, at most 12",
		 t_load(fd, 0, &p));
	close(fd);
}

/* ---- nothing a caller sends may crash the kernel ---- */

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s >> 16;
}

TEST(corrupted_binaries_are_refused_cleanly)
{
	static const uint32_t nasty[] = {
		0, 1, 2, 7, 8, 11, 12, 13, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
		0x10000, 0x1000000,
	};
	unsigned int accepted = 0, refused = 0, n;
	uint64_t rng = 0x5eed0f3a11c0ffeeULL;
	struct blob base;
	int fd = encd_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, t_encode(&mixed, &base));
	test_cmd(encd_build(fd, 0, 2, 8, 0, NULL));

	for (n = 0; n < 4000; n++) {
		uint8_t *buf = malloc(base.len + 256);
		size_t len = base.len, j, flips;
		struct layout l;
		int err;

		ASSERT_NE(NULL, buf);
		memcpy(buf, base.buf, base.len);
		locate(buf, &l);
		switch (rnd(&rng) % 5) {
		case 0:
			for (flips = 1 + rnd(&rng) % 4, j = 0; j < flips; j++)
				buf[rnd(&rng) % len] ^= 1 << (rnd(&rng) % 8);
			break;
		case 1:
			for (flips = 1 + rnd(&rng) % 3, j = 0; j < flips; j++)
				((uint32_t *)buf)[rnd(&rng) % (len / 4)] =
					htole32(nasty[rnd(&rng) % ARRAY_SIZE(nasty)]);
			break;
		case 2:
			((uint32_t *)buf)[rnd(&rng) % (len / 4)] = htole32(rnd(&rng) << 8 | rnd(&rng));
			break;
		case 3:
			len = rnd(&rng) % len;
			SET(l.h->total_size, len);
			break;
		case 4:
			for (j = 0; j < 4 * (1 + rnd(&rng) % 16); j++)
				buf[len++] = rnd(&rng);
			if (rnd(&rng) & 1)
				SET(l.h->total_size, len);
			break;
		}
		err = encd_program_load(fd, 0, 0, buf, len);
		ASSERT_TRUE(err == 0 || err == EINVAL) TH_LOG("case %u: %d %s", n, err, encd_msg);
		if (!err) {
			accepted++;
			test_cmd(t_sign(fd, 0, ENC_SIG_ALL_GROUPS, NULL));
		} else {
			refused++;
		}
		free(buf);
	}
	TH_LOG("%u corrupted descriptions: %u refused, %u still valid", n, refused, accepted);
	ASSERT_LT(n / 2, refused);
	free(base.buf);
	close(fd);
}

/* ---- a large program ---- */

TEST(program_of_100000_ops_matches_openssl)
{
	const uint32_t n_ops = 100000, world = 64;
	uint32_t part[2] = { 0, 1 }, pair[2], i;
	struct enc_program *prog = enc_program_new();
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint8_t ref_g[16], ref_s[16], cat[32], ref[16], sig[16], v[20];
	struct enc_replica_group_desc d = {
		.group_id = 0, .rank = -1, .rank_n = 2, .src_target_pairs_id = -1, .num_ops = -1,
		.sendrecv = true, .participants = part, .participants_n = 2,
		.bootstrap_participants = part, .bootstrap_participants_n = 2,
	};
	struct timespec t0, t1;
	int fd = encd_open();
	void *buf;
	size_t len;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, prog);
	ASSERT_EQ(NRT_SUCCESS, enc_program_add_replica_group(prog, &d));
	ASSERT_EQ(NRT_SUCCESS, enc_program_add_src_target_pairs(prog, 1, part, 2));
	EVP_DigestInit_ex(md, EVP_md5(), NULL);
	for (i = 0; i < world; i++) {
		pair[0] = i;
		pair[1] = (i + 1) % world;
		ASSERT_EQ(NRT_SUCCESS, enc_program_add_pair(prog, 1, pair, 2));
		md5_ids(md, pair, 2);
	}
	/* The stp's ops first (their hash is open), then the group's. */
	for (i = 0; i < n_ops / 2; i++) {
		struct t_op o = { .op = 1 + i % 8, .size = (uint64_t)i << 20 | i, .peer = i % world,
				  .dtype = i % 11, .alg = i % 3, .channel = i % 5, .stp = true,
				  .owner = 1 };
		struct enc_op_desc od = { .op = o.op, .size_n = o.size, .peer = o.peer,
					  .dtype = o.dtype, .alg = o.alg, .channel = o.channel,
					  .stp = true, .owner = 1 };

		ASSERT_EQ(NRT_SUCCESS, enc_program_add_op(prog, &od));
		EVP_DigestUpdate(md, v, ref_view(&o, true, 0, v));
	}
	EVP_DigestFinal_ex(md, ref_s, NULL);
	EVP_DigestInit_ex(md, EVP_md5(), NULL);
	md5_ids(md, part, 2);
	for (i = 0; i < n_ops / 2; i++) {
		struct t_op o = { .op = 1 + i % 8, .size = i, .peer = 1, .dtype = i % 7,
				  .alg = i % 2, .channel = i % 9, .owner = 0 };
		struct enc_op_desc od = { .op = o.op, .size_n = o.size, .peer = o.peer,
					  .dtype = o.dtype, .alg = o.alg, .channel = o.channel,
					  .owner = 0 };

		ASSERT_EQ(NRT_SUCCESS, enc_program_add_op(prog, &od));
		EVP_DigestUpdate(md, v, ref_view(&o, false, 0, v));
	}
	EVP_DigestFinal_ex(md, ref_g, NULL);
	memcpy(cat, ref_g, 16);
	memcpy(cat + 16, ref_s, 16);
	EVP_DigestInit_ex(md, EVP_md5(), NULL);
	EVP_DigestUpdate(md, cat, 32);
	EVP_DigestFinal_ex(md, ref, NULL);
	EVP_MD_CTX_free(md);

	ASSERT_EQ(NRT_SUCCESS, enc_program_encode(prog, &buf, &len));
	enc_program_free(prog);
	test_cmd(encd_build(fd, 0, 0, world, 0, NULL));
	test_cmd(encd_program_load(fd, 0, 0, buf, len));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	test_cmd(t_sign(fd, 0, 0, sig));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, memcmp(ref, sig, 16));
	TH_LOG("%u ops (%zu-byte description) signed in %.1f ms", n_ops, len,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	free(buf);
	close(fd);
}

/* ---- the JSON reader's own refusals ---- */

TEST(json_shape_errors_name_the_field)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{ "[]", "the top level is not an object" },
		{ "{\"ops\": [", "not JSON" },
		{ "{} x", "text after the JSON" },
		{ "{\"opz\": []}", "opz: unknown key" },
		{ "{\"ops\": [{\"op\": \"all_reduce\", \"size_n\": 1}]}",
		  "ops[0]: names its owner with exactly one of" },
		{ "{\"ops\": [{\"op\": \"sned\", \"size_n\": 1, \"group\": 0}]}",
		  "ops[0].op: unknown op sned" },
		{ "{\"ops\": [{\"op\": \"send\", \"size_n\": -1, \"group\": 0}]}",
		  "ops[0].size_n: expected an integer" },
		{ "{\"replica_groups\": [{\"group_id\": 0, \"rank\": -1}]}",
		  "replica_groups[0]: participants is required" },
		{ "{\"replica_groups\": [{\"group_id\": 0, \"rank\": 0, \"participants\": [-1]}]}",
		  "replica_groups[0].participants: expected global device ids" },
		{ "{\"replica_groups\": [{\"group_id\": 0, \"rank\": 0, \"participants\": [0], \"ranc\": 1}]}",
		  "replica_groups[0].ranc: unknown key" },
		{ "{\"src_target_pairs\": [{\"id\": 0}]}", "src_target_pairs[0].pairs: is required" },
		{ "{\"src_target_pairs\": [{\"id\": 0, \"pairs\": [[0, \"1\"]]}]}",
		  "src_target_pairs[0].pairs[0]: expected global device ids" },
	};
	struct enc_program *prog;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		ASSERT_EQ(NRT_INVALID, enc_program_from_json_string(cases[k].json, &prog))
			TH_LOG("%s", cases[k].json);
		ASSERT_NE(NULL, strstr(enc_last_error(), cases[k].msg))
			TH_LOG("'%s' lacks '%s'", enc_last_error(), cases[k].msg);
	}
	ASSERT_EQ(NRT_SUCCESS, enc_program_from_json_string(
		"{\"ops\": [{\"op\": 9, \"size_n\": 18446744073709551615, \"stp\": 3}]}", &prog))
		TH_LOG("%s", enc_last_error());
	enc_program_free(prog);
}

TEST_HARNESS_MAIN
