/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libenc: collective programs and their op-signature.
 *
 * A program is what a NEFF declares about its collectives: replica groups,
 * src-target-pair sets and the op queue (libnrt's enc_context). Build one
 * in memory with the enc_program_add_*() calls, or read its JSON form
 * (Documentation/program-format.rst) with libenc-json's <enc/json.h>; load
 * it for a (vnc, ctx_id) whose global comm this process holds; then sign it
 * in the kernel with enc_calculate_signature() (Documentation/signature.rst).
 *
 * The library checks only what it needs to encode a program; the kernel
 * validates the rest against the world and says what is wrong, read with
 * enc_last_error().
 *
 * An enc_program object is not locked: use one from one thread at a time.
 * The calls that talk to the kernel are thread-safe like the rest of libenc.
 */
#ifndef _ENC_PROGRAM_H
#define _ENC_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/encd.h>
#include <enc/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The op codes; part of the signature, so fixed (uapi enum encd_op). */
enum enc_op {
	ENC_ALL_REDUCE = ENCD_OP_ALL_REDUCE,
	ENC_ALL_GATHER = ENCD_OP_ALL_GATHER,
	ENC_REDUCE_SCATTER = ENCD_OP_REDUCE_SCATTER,
	ENC_ALL_TO_ALL = ENCD_OP_ALL_TO_ALL,
	ENC_PERMUTE = ENCD_OP_PERMUTE,
	ENC_SEND = ENCD_OP_SEND,
	ENC_RECV = ENCD_OP_RECV,
	ENC_BROADCAST = ENCD_OP_BROADCAST,
};

/* enc_calculate_signature() flags: also hash groups whose rank is not -1. */
#define ENC_SIG_ALL_GROUPS	ENCD_SIG_ALL_GROUPS
#define ENC_SIG_LEN		ENCD_SIG_LEN

struct enc_program;

/* A replica group, as enc_program_add_replica_group() takes it. */
struct enc_replica_group_desc {
	uint32_t group_id;
	int32_t rank;			/* -1 for a sendrecv group */
	uint32_t rank_n;
	int32_t src_target_pairs_id;	/* -1 if none */
	uint32_t stream_id;
	uint32_t bootstrap_rank;
	int64_t num_ops;		/* < 0: the number of ops that name the group */
	bool sendrecv;
	bool nccl_mesh_supported;
	bool must_use_ring_alg;
	const uint32_t *participants;	/* global device ids */
	uint32_t participants_n;
	const uint32_t *bootstrap_participants;	/* rank_n global device ids */
	uint32_t bootstrap_participants_n;
};

/* An op, as enc_program_add_op() takes it. */
struct enc_op_desc {
	uint32_t op;			/* enum enc_op */
	uint64_t size_n;
	uint32_t peer;			/* a global device id; for SEND the target */
	uint32_t dtype;
	uint32_t alg;
	uint32_t channel;		/* permute_ring_ch_id */
	bool stp;			/* @owner is an stp id, not a group id */
	uint32_t owner;
};

/* An empty program, or NULL when out of memory. */
struct enc_program *enc_program_new(void);
void enc_program_free(struct enc_program *prog);

/* Appends to the program, in program order; the lists are copied. */
NRT_STATUS enc_program_add_replica_group(struct enc_program *prog,
					 const struct enc_replica_group_desc *rg);
NRT_STATUS enc_program_add_src_target_pairs(struct enc_program *prog, uint32_t id,
					    const uint32_t *participants, uint32_t participants_n);
/* A pair vector (source first) of the stp @stp_id, added before. */
NRT_STATUS enc_program_add_pair(struct enc_program *prog, uint32_t stp_id,
				const uint32_t *ids, uint32_t n);
NRT_STATUS enc_program_add_op(struct enc_program *prog, const struct enc_op_desc *op);

/* The binary description the kernel reads; *@buf is the caller's to free(). */
NRT_STATUS enc_program_encode(const struct enc_program *prog, void **buf, size_t *len);

/*
 * Makes @prog the program on (@vnc, @ctx_id), whose global comm this process
 * must hold, replacing the one before (unless that one is sealed).
 */
NRT_STATUS enc_program_load(uint32_t vnc, uint32_t ctx_id, const struct enc_program *prog);
/* The same from an encoded description, as it is: for tools and tests. */
NRT_STATUS enc_program_load_binary(uint32_t vnc, uint32_t ctx_id, const void *buf, size_t len);

/*
 * libnrt's enc_calculate_signature, in the kernel: signs the program on
 * (@vnc, @ctx_id) and writes its global signature to @global (if not NULL).
 * @flags: ENC_SIG_ALL_GROUPS or 0.
 *
 * With no program loaded there, there is nothing to sign: NRT_SUCCESS, as
 * libnrt returns when it has no enc_context, and @global is zeroed. A
 * program with nothing to hash (no src-target-pair set, and no replica
 * group that @flags hashes: a sendrecv one, or any with ENC_SIG_ALL_GROUPS)
 * signs to sixteen zero bytes, where libnrt gives the MD5 of no bytes,
 * d41d8cd98f00b204e9800998ecf8427e (Documentation/libnrt.rst). A sealed
 * program is NRT_INVALID, "cannot calculate CC signature: not in parse
 * state".
 */
NRT_STATUS enc_calculate_signature(uint32_t vnc, uint32_t ctx_id, uint32_t flags,
				   uint8_t global[ENC_SIG_LEN]);

/* The level-1 signature of one replica group or stp. */
struct enc_signature {
	uint32_t id;			/* group_id or stp id */
	bool hashed;			/* false: skipped, and zero */
	uint8_t digest[ENC_SIG_LEN];
};

/* What the last signing of a loaded program computed, in program order. */
struct enc_program_signatures {
	uint8_t global[ENC_SIG_LEN];
	uint32_t flags;			/* the flags it was signed with */
	bool sealed;
	uint32_t n_groups;
	struct enc_signature *groups;
	uint32_t n_stps;
	struct enc_signature *stps;
};

/* *@sigsp is the caller's to free with enc_program_signatures_free(). */
NRT_STATUS enc_program_get_signatures(uint32_t vnc, uint32_t ctx_id,
				      struct enc_program_signatures **sigsp);
void enc_program_signatures_free(struct enc_program_signatures *sigs);

/* PARSE -> LOADED: from now on the program cannot be signed or replaced. */
NRT_STATUS enc_program_seal(uint32_t vnc, uint32_t ctx_id);

/* "all_reduce" for ENC_ALL_REDUCE, ...; NULL for an unknown code. */
const char *enc_op_name(uint32_t op);

#ifdef __cplusplus
}
#endif

#endif /* _ENC_PROGRAM_H */
