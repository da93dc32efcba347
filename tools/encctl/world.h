/* SPDX-License-Identifier: GPL-2.0 */
/*
 * encctl world: what join, launch and check share: a rank's options, and
 * one run of libenc's bootstrap for it (world.c).
 */
#ifndef _ENCCTL_WORLD_H
#define _ENCCTL_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include <enc/bootstrap.h>
#include <enc/launch.h>

struct join_opts {
	uint32_t vnc, ctx, g_device_id, world_size, hold, timeout_ms;
	uint32_t first, count;		/* launch: the ranks to start here */
	uint32_t barriers;		/* more group barriers, timed */
	uint32_t barrier_group;		/* of this group's comm (ENC_GROUP_GLOBAL: the world's) */
	const char *root, *program, *secret_file;
	bool check_sigs, barrier, force_tcp, sig_all_groups;
	bool from_env, dry_run;
	uint32_t launchers;		/* --launcher: 1 << enum enc_launcher; 0: any */
	uint32_t port;			/* --port: the root's, with --from-env */
	struct enc_launch launch;	/* what --from-env found */
};

struct join_result {
	NRT_STATUS st;
	uint32_t reason;		/* enc_last_reason() of the step that failed */
	char error[512];
	struct enc_world_info info;
	uint32_t n_new, n_hits;
	bool have_groups;
	struct encd_node_info node;
	bool have_node;
	uint64_t t_build, t_setup, t_load, t_init_groups, t_barrier;
	uint64_t barrier_median_us;	/* of --barriers more group barriers */
	uint32_t barriers_passed;	/* of those */
	struct encd_node_info groups[ENCD_MAX_COMM_N];	/* the replica groups' comms */
	bool have_group[ENCD_MAX_COMM_N];
};

/*
 * Parses join's options (and launch's, and check's); with --from-env fills
 * what they leave out from the launcher. 0, or the exit code after saying
 * what is wrong. *@have_vnc and *@have_gid say whether the rank's core and
 * number are known.
 */
int encctl_world_parse(const char *where, int argc, char **argv, struct join_opts *o,
		       bool *have_vnc, bool *have_gid);

/* The same for one rank (join, check): its core and number are required. */
int encctl_world_parse_rank(const char *where, int argc, char **argv, struct join_opts *o);

/*
 * One rank's bootstrap, step by step: the global comm, the world, the
 * program and its groups, the barriers asked for; @r says how far it got
 * and how long each step took.
 */
void encctl_world_run(const struct join_opts *o, struct join_result *r);

/* --dry-run: what a join would use, and where each value came from. */
int encctl_world_print_dry_run(const struct join_opts *o);

/* encctl world check (check.c): the words after "check". */
int encctl_world_check(int argc, char **argv);

#endif /* _ENCCTL_WORLD_H */
