// SPDX-License-Identifier: GPL-2.0
/*
 * bench-sig: how fast the kernel signs a program, against OpenSSL's MD5
 * over the same bytes in the same run. Prints figures; it is not a test.
 *
 * For programs of 10, 1,000 and 100,000 ops (one sendrecv group with every
 * op, one src-target-pair set with none, so both projections and both levels
 * run) it times ENCD_IOC_PROGRAM_SIGN and the same two-level MD5 computed in
 * user space with OpenSSL, each repeated until it has run for a while, and
 * prints the median time of one signing, MB/s of hashed bytes (level-1 views
 * and ids plus the level-2 digests) and the kernel / OpenSSL ratio. The
 * digests are compared too: a fast wrong answer is no answer.
 *
 * Needs encd loaded (make bench-sig runs it in the VM).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/evp.h>

#include <enc/enc.h>
#include <enc/program.h>

#define VNC		0
#define CTX		0
#define WORLD		64
#define MIN_RUN_NS	300000000ull	/* keep repeating for this long... */
#define MIN_REPS	5		/* ...and at least this often */
#define MAX_REPS	20000

struct streams {
	unsigned char *group, *stp;	/* the level-1 byte streams */
	size_t group_len, stp_len;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void put32(unsigned char **p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		*(*p)++ = v >> (8 * i);
}

static void put64(unsigned char **p, uint64_t v)
{
	put32(p, v);
	put32(p, v >> 32);
}

/*
 * The program with @n_ops ops, and the bytes its signing hashes (for global
 * device 0), laid out as Documentation/signature.rst says.
 */
static struct enc_program *make_program(uint32_t n_ops, struct streams *s)
{
	static const uint32_t part[2] = { 0, 1 };
	struct enc_replica_group_desc rg = {
		.group_id = 0, .rank = -1, .rank_n = 2, .src_target_pairs_id = -1, .num_ops = -1,
		.sendrecv = true, .participants = part, .participants_n = 2,
		.bootstrap_participants = part, .bootstrap_participants_n = 2,
	};
	struct enc_program *prog = enc_program_new();
	unsigned char *p;
	uint32_t i;

	s->group = malloc(8 + 20 * (size_t)n_ops);
	s->stp = malloc(8);
	if (!prog || !s->group || !s->stp || enc_program_add_replica_group(prog, &rg) ||
	    enc_program_add_src_target_pairs(prog, 1, part, 2) ||
	    enc_program_add_pair(prog, 1, part, 2))
		return NULL;

	p = s->group;
	put32(&p, 0);
	put32(&p, 1);
	for (i = 0; i < n_ops; i++) {
		struct enc_op_desc op = {
			.op = 1 + i % 8, .size_n = 4096 + i, .peer = 1, .dtype = i % 5,
			.alg = i % 3, .channel = 1, .owner = 0,
		};

		if (enc_program_add_op(prog, &op))
			return NULL;
		put32(&p, op.op == ENC_RECV ? ENC_SEND : op.op);
		put64(&p, op.size_n);
		if (op.op == ENC_SEND)
			put32(&p, op.channel);
		else if (op.op == ENC_RECV)
			put32(&p, 0);
		else {
			put32(&p, op.dtype);
			put32(&p, op.alg);
		}
	}
	s->group_len = p - s->group;
	p = s->stp;
	put32(&p, 0);
	put32(&p, 1);
	s->stp_len = p - s->stp;
	return prog;
}

static void openssl_sign(EVP_MD_CTX *md, const EVP_MD *md5, const struct streams *s,
			 unsigned char *global)
{
	unsigned char cat[32];

	EVP_DigestInit_ex2(md, md5, NULL);
	EVP_DigestUpdate(md, s->group, s->group_len);
	EVP_DigestFinal_ex(md, cat, NULL);
	EVP_DigestInit_ex2(md, md5, NULL);
	EVP_DigestUpdate(md, s->stp, s->stp_len);
	EVP_DigestFinal_ex(md, cat + 16, NULL);
	EVP_DigestInit_ex2(md, md5, NULL);
	EVP_DigestUpdate(md, cat, sizeof(cat));
	EVP_DigestFinal_ex(md, global, NULL);
}

/* The median of repeated runs of one signing, in ns. */
static uint64_t median(uint64_t *t, unsigned int n)
{
	qsort(t, n, sizeof(*t), cmp_u64);
	return t[n / 2];
}

static int bench(uint32_t n_ops, EVP_MD_CTX *md, const EVP_MD *md5)
{
	static uint64_t tk[MAX_REPS], tu[MAX_REPS];
	unsigned char kdig[16], udig[16];
	unsigned int n;
	struct enc_program *prog;
	struct streams s;
	uint64_t start, t, bytes, mk, mu;
	double kmbs, umbs;

	prog = make_program(n_ops, &s);
	if (!prog) {
		fprintf(stderr, "bench-sig: out of memory building %u ops\n", n_ops);
		return 1;
	}
	if (enc_program_load(VNC, CTX, prog)) {
		fprintf(stderr, "bench-sig: %s\n", enc_last_error());
		return 1;
	}
	enc_program_free(prog);

	/* Interleaved, so that both see the same noise of a shared machine. */
	for (n = 0, start = now_ns(); n < MAX_REPS &&
	     (n < MIN_REPS || now_ns() - start < MIN_RUN_NS); n++) {
		t = now_ns();
		if (enc_calculate_signature(VNC, CTX, 0, kdig)) {
			fprintf(stderr, "bench-sig: %s\n", enc_last_error());
			return 1;
		}
		tk[n] = now_ns() - t;
		t = now_ns();
		openssl_sign(md, md5, &s, udig);
		tu[n] = now_ns() - t;
	}
	if (memcmp(kdig, udig, 16)) {
		fprintf(stderr, "bench-sig: %u ops: the kernel and OpenSSL disagree\n", n_ops);
		return 1;
	}

	/* Level 1 (the ids and views of both) and level 2 (two digests). */
	bytes = s.group_len + s.stp_len + 32;
	mk = median(tk, n);
	mu = median(tu, n);
	kmbs = bytes / (mk / 1e9) / 1e6;
	umbs = bytes / (mu / 1e9) / 1e6;
	printf("%9u ops %10llu bytes  kernel %10.3f ms %9.1f MB/s  openssl %10.3f ms %9.1f MB/s  ratio %.2f  (%u runs)\n",
	       n_ops, (unsigned long long)bytes, mk / 1e6, kmbs, mu / 1e6, umbs, kmbs / umbs, n);
	free(s.group);
	free(s.stp);
	return 0;
}

int main(void)
{
	static const uint32_t sizes[] = { 10, 1000, 100000 };
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	EVP_MD *md5 = EVP_MD_fetch(NULL, "MD5", NULL);
	unsigned int i;
	int rc = 0;

	if (!md || !md5) {
		fprintf(stderr, "bench-sig: OpenSSL has no MD5\n");
		return 1;
	}
	if (enc_init() || enc_init_global_comm(VNC, 0, WORLD, CTX, "", false)) {
		fprintf(stderr, "bench-sig: %s\n", enc_last_error());
		return 1;
	}
	printf("bench-sig: the kernel's ENCD_IOC_PROGRAM_SIGN vs OpenSSL MD5, same bytes, median of runs\n");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !rc; i++)
		rc = bench(sizes[i], md, md5);
	enc_destroy_gcomm_locks();
	EVP_MD_free(md5);
	EVP_MD_CTX_free(md);
	return rc;
}
