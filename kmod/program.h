/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_PROGRAM_H
#define _ENCD_PROGRAM_H

#include <linux/types.h>
#include <linux/encd.h>

struct encd_file;
struct encd_ucmd;
struct enc_glb_comm;

/* A list of global device ids: a slice of the program's id pool. */
struct enc_ids {
	const u32 *id;
	u32 n;
};

/* Ends an owner's chain of ops. */
#define ENC_OP_NONE	U32_MAX

/* One op of the queue. Its owner's ops are chained in queue order by @next. */
struct enc_op {
	u64 size_n;
	u32 op;			/* enum encd_op */
	u32 peer;
	u32 dtype;
	u32 alg;
	u32 channel;		/* permute_ring_ch_id */
	u32 next;
};

/* The seed's enc_replica_group_info. */
struct enc_replica_group {
	u32 group_id;
	s32 rank;		/* -1 for a sendrecv group */
	u32 rank_n;
	s32 src_target_pairs_id;
	u32 stp_idx;		/* index of that stp in the program, or U32_MAX */
	u32 num_ops;
	u32 stream_id;
	u32 bootstrap_rank;
	u32 flags;		/* ENCD_PROG_GROUP_* */
	struct enc_ids participants;
	struct enc_ids bootstrap_participants;
	u32 first_op, last_op;
	/* Its level-1 bytes: enc_program.sig_bytes[sig_off, sig_off + sig_len). */
	size_t sig_off;
	u32 sig_len;
	bool hashed;		/* by the last signing */
	u8 signature[ENCD_SIG_LEN];
};

/* The seed's enc_src_target_pairs_info. */
struct enc_src_target_pairs {
	u32 id;
	u32 n_pairs;
	const struct enc_ids *pairs;
	struct enc_ids participants;
	u32 first_op, last_op;
	size_t sig_off;
	u32 sig_len;
	bool hashed;
	u8 signature[ENCD_SIG_LEN];
};

/*
 * A loaded program: the seed's enc_context, as far as collectives go. It is
 * owned by one open file (encd_file.programs[slot]) and guarded by that
 * file's lock. Everything but the state and the signatures is immutable
 * after parsing.
 */
struct enc_program {
	enum encd_program_state state;
	/* The comm it was validated against; counted, so never reused. */
	struct enc_glb_comm *g;
	u32 g_device_id;
	u32 g_device_cnt;

	u32 n_groups, n_stps, n_pairs, n_ops, n_ids;
	struct enc_replica_group groups[ENCD_MAX_COMM_N];
	struct enc_src_target_pairs *stps;
	struct enc_ids *pairs;
	struct enc_op *ops;
	u32 *ids;
	/* What each group's and stp's level-1 digest covers; see signature.c. */
	u8 *sig_bytes;

	bool is_signed;
	u32 sig_flags;		/* ENCD_SIG_* of the last signing */
	u8 signature[ENCD_SIG_LEN];
};

/*
 * The program this file loaded on (@vnc, @ctx_id), still bound to the global
 * comm the file holds there; or a negative errno with the reason in @ucmd.
 * The caller holds ucmd->file->lock for as long as it uses the program.
 */
int enc_program_find(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, struct enc_program **progp);

/* PARSE -> LOADED; -EINVAL with a sentence in any other state. */
int enc_program_seal(struct encd_ucmd *ucmd, struct enc_program *prog);

/* Frees every program of a file that is going away. */
void enc_program_release_file(struct encd_file *file);

int enc_program_ioctl_load(struct encd_ucmd *ucmd);
int enc_program_ioctl_sign(struct encd_ucmd *ucmd);
int enc_program_ioctl_get_signatures(struct encd_ucmd *ucmd);
int enc_program_ioctl_seal(struct encd_ucmd *ucmd);

#endif /* _ENCD_PROGRAM_H */
