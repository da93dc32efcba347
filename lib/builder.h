/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-memory form of a collective program, shared by the builder that
 * fills it (builder.c) and the encoder that turns it into the binary
 * description the kernel reads (encoder.c). Callers only ever see the
 * opaque struct enc_program of <enc/program.h>.
 */
#ifndef _ENC_BUILDER_H
#define _ENC_BUILDER_H

#include <stdint.h>
#include <enc/program.h>

/* A list of global device ids, owned; v is never NULL once set. */
struct enc_ids {
	uint32_t *v;
	uint32_t n;
};

struct enc_group {
	struct enc_replica_group_desc d;	/* its lists point at the two below */
	struct enc_ids participants;
	struct enc_ids bootstrap;
};

struct enc_stp {
	uint32_t id;
	struct enc_ids participants;
	struct enc_ids *pairs;
	uint32_t n_pairs;
	uint32_t cap_pairs;
};

struct enc_program {
	struct enc_group *groups;
	uint32_t n_groups, cap_groups;
	struct enc_stp *stps;
	uint32_t n_stps, cap_stps;
	struct enc_op_desc *ops;
	uint32_t n_ops, cap_ops;
};

#endif /* _ENC_BUILDER_H */
