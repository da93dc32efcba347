/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libenc: forming the world and the comms of replica groups (libnrt's
 * enc_setup_global_comm and enc_init_replica_groups), and barriers that show
 * a formed comm works. Every call returns an NRT_STATUS; on failure
 * enc_last_error() says what failed in a sentence (NRT_TIMEOUT when a
 * deadline passed, NRT_FAILURE with libnrt's "failed signature validation:
 * ... mismatched collectives between the peers" when a group's signatures
 * differ across ranks).
 *
 * A timeout of 0 means the module's bootstrap_timeout_ms (default 60 s).
 */
#ifndef _ENC_BOOTSTRAP_H
#define _ENC_BOOTSTRAP_H

#include <stdbool.h>
#include <stdint.h>
#include <enc/enc.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The optional world secret: when this environment variable is set (at most
 * ENCD_WORLD_SECRET_MAX bytes), enc_setup_global_comm() gives it to the
 * kernel, which authenticates the world's rendezvous and peer links with it.
 * Every rank must have the same one.
 */
#define ENC_WORLD_SECRET_ENV	"ENC_WORLD_SECRET"

/*
 * Set to 1 in a rank's environment: ENC_FORCE_TCP gives the rank a host
 * agent of its own, so that every message to another rank crosses a
 * socket even on one host (ENCD_SETUP_FORCE_TCP); ENC_SIG_ALL_GROUPS says
 * the world signs every replica group, not only sendrecv ones
 * (ENCD_SETUP_SIG_ALL_GROUPS), which every rank must agree on.
 */
#define ENC_FORCE_TCP_ENV	"ENC_FORCE_TCP"
#define ENC_SIG_ALL_GROUPS_ENV	"ENC_SIG_ALL_GROUPS"

/* enc_setup_opts.flags */
#define ENC_SETUP_FORCE_TCP		ENCD_SETUP_FORCE_TCP
#define ENC_SETUP_SIG_ALL_GROUPS	ENCD_SETUP_SIG_ALL_GROUPS

/*
 * How to set a world up: @timeout_ms (0: the module's default), @flags
 * (ENC_SETUP_*; 0 takes them from the environment), the world secret
 * (@secret_len bytes at @secret; NULL: $ENC_WORLD_SECRET, if set).
 */
struct enc_setup_opts {
	uint32_t timeout_ms;
	uint32_t flags;
	const void *secret;
	uint32_t secret_len;
};

/* The world's own replica group, where a group id is asked for. */
#define ENC_GROUP_GLOBAL	ENCD_GROUP_GLOBAL

struct enc_world_info {
	uint32_t rank;
	uint32_t rank_n;
	bool formed;			/* this call formed it (else it already was) */
	uint64_t phase_ns[ENCD_PHASE_N];	/* by enum encd_phase */
};

/*
 * Forms the world of the global comm built on (@vnc, @ctx_id): rendezvous
 * with every rank through its root_comm_id, then the global replica group's
 * comm. Blocks until all ranks are there or the deadline passes.
 */
NRT_STATUS enc_setup_global_comm(uint32_t vnc, uint32_t ctx_id);
NRT_STATUS enc_setup_global_comm_ex(uint32_t vnc, uint32_t ctx_id, uint32_t timeout_ms,
				    struct enc_world_info *info);
NRT_STATUS enc_setup_global_comm_opts(uint32_t vnc, uint32_t ctx_id,
				      const struct enc_setup_opts *opts,
				      struct enc_world_info *info);

/*
 * Brings up the comm of every replica group of the program loaded on (@vnc,
 * @ctx_id), signing it first if it was not, and moves it out of PARSE.
 * @n_new and @n_hits (may be NULL): how many comms were bootstrapped, and
 * how many were found in the pool.
 */
NRT_STATUS enc_init_replica_groups(uint32_t vnc, uint32_t ctx_id);
NRT_STATUS enc_init_replica_groups_ex(uint32_t vnc, uint32_t ctx_id, uint32_t timeout_ms,
				      uint32_t *n_new, uint32_t *n_hits);

/* A barrier over the group's comm (ENC_GROUP_GLOBAL: the world). */
NRT_STATUS enc_comm_barrier(uint32_t vnc, uint32_t ctx_id, uint32_t group_id,
			    uint32_t timeout_ms);
/* The group's ranks on this host only. */
NRT_STATUS enc_local_barrier(uint32_t vnc, uint32_t ctx_id, uint32_t group_id,
			     uint32_t timeout_ms);

/* What a runtime may know of a group's comm (never its unique id). */
NRT_STATUS enc_comm_info(uint32_t vnc, uint32_t ctx_id, uint32_t group_id,
			 struct encd_node_info *info);

#ifdef __cplusplus
}
#endif

#endif /* _ENC_BOOTSTRAP_H */
