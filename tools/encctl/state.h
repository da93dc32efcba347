/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What global comms and comm nodes both carry about their bootstrap: timed
 * phases, message counters and the last error; and the names of the
 * protocol's enums, as encctl prints them.
 */
#ifndef _ENCCTL_STATE_H
#define _ENCCTL_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/encd.h>

#define ENCCTL_MAX_PHASES	8
#define ENCCTL_MAX_COUNTERS	16
#define ENCCTL_MSG_MAX		256

struct encctl_phase {
	uint32_t id;		/* enum encd_phase */
	uint64_t start_ns;
	uint64_t duration_ns;	/* 0: still running */
};

struct encctl_counter {
	uint32_t type;		/* enum encd_msg_type */
	uint32_t size;
	uint64_t tx;
	uint64_t rx;
};

/* The fields the kernel leaves out are -1 (or false). */
struct encctl_error {
	bool valid;
	int err;		/* positive errno */
	uint32_t reason;	/* enum encd_reason */
	char msg[ENCCTL_MSG_MAX];
	int64_t phase;
	int64_t peer_rank;
	int64_t peer_g_device_id;
	int64_t group_id;
	bool has_local_sig, has_peer_sig;
	uint8_t local_sig[ENCD_SIG_LEN];
	uint8_t peer_sig[ENCD_SIG_LEN];
};

struct encctl_phases {
	struct encctl_phase p[ENCCTL_MAX_PHASES];
	unsigned int n;
};

struct encctl_counters {
	struct encctl_counter c[ENCCTL_MAX_COUNTERS];
	unsigned int n;
};

/* One more repeated nest (ENCD_A_*_PHASE, ENCD_A_NODE_COUNTER); extra ones are dropped. */
void encctl_phase_add(struct encctl_phases *phases, const struct nlattr *nest);
void encctl_counter_add(struct encctl_counters *counters, const struct nlattr *nest);
void encctl_error_parse(struct encctl_error *e, const struct nlattr *nest);

/* JSON: "phases": [...]; text: " validate 1.2ms broadcast 0.8ms" */
void encctl_phases_print(const struct encctl_phases *phases);
/* JSON: "counters": [...]; text: " signature/17 1/2" (tx/rx) */
void encctl_counters_print(const struct encctl_counters *counters);
/* JSON: "error": {...} or null; text: the sentence and who, on its own line */
void encctl_error_print(const struct encctl_error *e, const char *indent);

const char *encctl_pod_type_name(uint32_t type);
const char *encctl_gcomm_state_name(uint32_t state);
const char *encctl_node_state_name(uint32_t state);
const char *encctl_phase_name(uint32_t id);
const char *encctl_msg_type_name(uint32_t type);

#endif /* _ENCCTL_STATE_H */
