// SPDX-License-Identifier: GPL-2.0
/*
 * enc_launch_from_env() and enc_slurm_first_host(): a rank's place in the
 * world from its launcher's environment (Slurm, torchrun, OpenMPI, PMIx),
 * every launcher alone and together, and every way the environment can be
 * wrong, each with the sentence that says so.
 *
 * Pure user space: no /dev/encd, no launcher, no name service (every root
 * host is numeric or "localhost"). `make check` runs it natively first,
 * then in each lane's VM with the other selftests.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <enc/launch.h>

#include "kselftest_harness.h"

#define MAX_VARS 24

/* "A=1 B=2" as an envp: the words in @buf, split in place. */
static char **envp_of(char *buf, char **vars)
{
	int n = 0;

	for (char *w = strtok(buf, " "); w && n < MAX_VARS - 1; w = strtok(NULL, " "))
		vars[n++] = w;
	vars[n] = NULL;
	return vars;
}

/* Runs enc_launch_from_env() on @env into @l (its inputs already set). */
static NRT_STATUS launch(const char *env, struct enc_launch *l)
{
	char buf[1024], *vars[MAX_VARS];

	snprintf(buf, sizeof(buf), "%s", env);
	return enc_launch_from_env(envp_of(buf, vars), l);
}

#define SLURM "SLURM_PROCID=5 SLURM_NTASKS=16 SLURM_LOCALID=1 SLURM_JOB_ID=4242 " \
	      "SLURM_STEP_NUM_NODES=4 SLURM_STEP_NODELIST=10.0.0.[1-4]"
#define TORCH "RANK=3 WORLD_SIZE=8 LOCAL_RANK=3 LOCAL_WORLD_SIZE=8 " \
	      "MASTER_ADDR=127.0.0.1 MASTER_PORT=29500"

static void expect_fail(struct __test_metadata *_metadata, const char *env,
			struct enc_launch *l, const char *words)
{
	ASSERT_EQ(NRT_INVALID, launch(env, l)) TH_LOG("%s: succeeded", env);
	EXPECT_EQ(ENCD_REASON_ARGUMENT, enc_last_reason());
	EXPECT_NE(NULL, strstr(enc_last_error(), words))
		TH_LOG("%s: \"%s\" does not say \"%s\"", env, enc_last_error(), words);
}

struct list_case {
	const char *list, *first;
};

TEST(slurm_host_lists_give_their_first_host)
{
	static const struct list_case cases[] = {
		{ "node[01-04,07],gpu5", "node01" },
		{ "gpu5", "gpu5" },
		{ "gpu5,node[01-04]", "gpu5" },
		{ "node[07,01-04]", "node07" },
		{ "rack[1-2]-node[008-009]", "rack1-node008" },
		{ "10.0.0.[1-4]", "10.0.0.1" },
		{ "n[1]", "n1" },
		{ "n-1.example.com", "n-1.example.com" },
	};
	char out[64];

	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		ASSERT_EQ(0, enc_slurm_first_host(cases[i].list, out, sizeof(out)))
			TH_LOG("%s: %s", cases[i].list, strerror(errno));
		EXPECT_STREQ(cases[i].first, out);
	}
}

TEST(malformed_slurm_host_lists_are_refused)
{
	static const char *const bad[] = {
		"", ",", "node,", ",node", "a,,b", "node[", "node[]", "node[4-2]", "node[a]",
		"node[1-]", "node[-1]", "node[1,]", "node1]", "node[1]]", "no de", "node[1-2",
		"gpu5,node[",
	};
	char out[64];

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		EXPECT_EQ(-1, enc_slurm_first_host(bad[i], out, sizeof(out)))
			TH_LOG("'%s' gave '%s'", bad[i], out);
		EXPECT_EQ(EINVAL, errno) TH_LOG("'%s'", bad[i]);
	}
	errno = 0;
	EXPECT_EQ(-1, enc_slurm_first_host("node[0001-0004]", out, 8));
	EXPECT_EQ(ERANGE, errno);
}

TEST(slurm_gives_rank_size_vnc_and_a_root_from_the_job_id)
{
	struct enc_launch l = {};

	ASSERT_EQ(NRT_SUCCESS, launch(SLURM, &l)) TH_LOG("%s", enc_last_error());
	EXPECT_EQ(1u << ENC_LAUNCHER_SLURM, l.present);
	EXPECT_EQ(5, l.rank);
	EXPECT_EQ(16, l.world_size);
	EXPECT_EQ(1, l.local_rank);
	/* The port: ENC_LAUNCH_SLURM_PORT_BASE + 4242 % ENC_LAUNCH_SLURM_PORT_SPAN. */
	EXPECT_STREQ("10.0.0.1:24242", l.root);
	EXPECT_STREQ("10.0.0.1", l.root_host);
	EXPECT_STREQ("SLURM_PROCID", l.from[ENC_LAUNCH_RANK]);
	EXPECT_STREQ("SLURM_STEP_NODELIST:SLURM_JOB_ID", l.from[ENC_LAUNCH_ROOT]);
	EXPECT_EQ((1u << ENC_LAUNCH_FIELD_N) - 1, l.found);
}

TEST(steps_of_one_job_root_their_worlds_at_ports_of_their_own)
{
	static const struct {
		const char *step;
		const char *root;
	} steps[] = {
		/* 20000 + (4242 + 997 * step) % 10000 */
		{ "SLURM_STEP_ID=0", "10.0.0.1:24242" },
		{ "SLURM_STEP_ID=1", "10.0.0.1:25239" },
		{ "SLURM_STEP_ID=11", "10.0.0.1:25209" },
		/* Slurm's batch step: the stride must not wrap in 32 bits. */
		{ "SLURM_STEP_ID=4294967294", "10.0.0.1:26360" },
	};
	char env[256];
	unsigned int i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct enc_launch l = {};

		snprintf(env, sizeof(env), SLURM " %s", steps[i].step);
		ASSERT_EQ(NRT_SUCCESS, launch(env, &l)) TH_LOG("%s", enc_last_error());
		EXPECT_STREQ(steps[i].root, l.root) TH_LOG("%s", steps[i].step);
		EXPECT_STREQ("SLURM_STEP_NODELIST:SLURM_JOB_ID+SLURM_STEP_ID",
			     l.from[ENC_LAUNCH_ROOT]);
	}
}

TEST(slurm_without_a_step_takes_the_jobs_nodes_and_ntasks_alias)
{
	struct enc_launch l = {};

	ASSERT_EQ(NRT_SUCCESS, launch("SLURM_PROCID=0 SLURM_NPROCS=2 SLURM_LOCALID=0 "
				      "SLURM_JOB_ID=7 SLURM_JOB_NODELIST=10.1.0.[7,9]", &l))
		TH_LOG("%s", enc_last_error());
	EXPECT_EQ(2, l.world_size);
	EXPECT_STREQ("SLURM_NPROCS", l.from[ENC_LAUNCH_WORLD_SIZE]);
	EXPECT_STREQ("10.1.0.7:20007", l.root);
}

TEST(torchrun_roots_the_world_past_torchs_own_store)
{
	struct enc_launch l = {};

	ASSERT_EQ(NRT_SUCCESS, launch(TORCH, &l)) TH_LOG("%s", enc_last_error());
	EXPECT_EQ(1u << ENC_LAUNCHER_TORCH, l.present);
	EXPECT_EQ(3, l.rank);
	EXPECT_EQ(8, l.world_size);
	EXPECT_EQ(3, l.local_rank);
	EXPECT_STREQ("127.0.0.1:29501", l.root);
	EXPECT_STREQ("MASTER_ADDR:MASTER_PORT", l.from[ENC_LAUNCH_ROOT]);
}

TEST(openmpi_names_no_root_and_pmix_agrees_with_it)
{
	struct enc_launch l = {};

	ASSERT_EQ(NRT_SUCCESS, launch("OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=8 "
				      "OMPI_COMM_WORLD_LOCAL_RANK=2 PMIX_RANK=2", &l))
		TH_LOG("%s", enc_last_error());
	EXPECT_EQ((1u << ENC_LAUNCHER_OPENMPI) | (1u << ENC_LAUNCHER_PMIX), l.present);
	EXPECT_EQ(2, l.rank);
	EXPECT_EQ(0, l.found & (1u << ENC_LAUNCH_ROOT));
	EXPECT_STREQ("OMPI_COMM_WORLD_RANK", l.from[ENC_LAUNCH_RANK]);
}

TEST(a_given_value_wins_and_is_not_compared)
{
	struct enc_launch l = {
		.given = (1u << ENC_LAUNCH_RANK) | (1u << ENC_LAUNCH_ROOT),
		.rank = 6,
		.root = "10.9.9.9:1234",
	};

	snprintf(l.from[ENC_LAUNCH_RANK], sizeof(l.from[0]), "--g-device-id");
	/* torchrun and OpenMPI disagree on the rank; the caller settled it. */
	ASSERT_EQ(NRT_SUCCESS, launch(TORCH " OMPI_COMM_WORLD_RANK=4", &l))
		TH_LOG("%s", enc_last_error());
	EXPECT_EQ(6, l.rank);
	EXPECT_STREQ("10.9.9.9:1234", l.root);
	EXPECT_STREQ("--g-device-id", l.from[ENC_LAUNCH_RANK]);
	EXPECT_EQ(8, l.world_size);
}

TEST(a_given_core_may_be_beyond_the_world_size)
{
	struct enc_launch l = {
		.given = 1u << ENC_LAUNCH_LOCAL_RANK,
		.local_rank = 8,
	};

	/* A world of 2 on cores 8 and 9: --vnc names a core, not a local rank. */
	ASSERT_EQ(NRT_SUCCESS, launch("RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 "
				      "MASTER_ADDR=127.0.0.1 MASTER_PORT=29500", &l))
		TH_LOG("%s", enc_last_error());
	EXPECT_EQ(8, l.local_rank);
	EXPECT_EQ(1, l.rank);
}

TEST(a_given_port_wins_over_the_launchers)
{
	struct enc_launch l = { .port = 7000 };

	ASSERT_EQ(NRT_SUCCESS, launch(SLURM, &l)) TH_LOG("%s", enc_last_error());
	EXPECT_STREQ("10.0.0.1:7000", l.root);
}

TEST(asking_for_one_launcher_ignores_the_others)
{
	struct enc_launch l = { .launchers = 1u << ENC_LAUNCHER_TORCH };

	ASSERT_EQ(NRT_SUCCESS, launch(TORCH " " SLURM, &l)) TH_LOG("%s", enc_last_error());
	EXPECT_EQ(1u << ENC_LAUNCHER_TORCH, l.present);
	EXPECT_EQ(3, l.rank);
	l.launchers = 1u << ENC_LAUNCHER_PMIX;
	expect_fail(_metadata, TORCH, &l, "of the launchers asked for");
	l.launchers = 1u << ENC_LAUNCHER_N;
	expect_fail(_metadata, TORCH, &l, "no launcher libenc knows");
}

TEST(launchers_that_disagree_are_named_with_their_values)
{
	struct enc_launch l = {};

	expect_fail(_metadata, TORCH " " SLURM, &l,
		    "slurm and torchrun disagree on the world size: SLURM_NTASKS says 16, WORLD_SIZE says 8");
	expect_fail(_metadata, TORCH " OMPI_COMM_WORLD_RANK=4", &l,
		    "torchrun and openmpi disagree on the rank: RANK says 3, OMPI_COMM_WORLD_RANK says 4");
	expect_fail(_metadata, TORCH " PMIX_RANK=0", &l, "RANK says 3, PMIX_RANK says 0");
	/* Both name a root: they must name the same one. */
	expect_fail(_metadata, "RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=10.0.0.2 MASTER_PORT=99 "
		    "SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_LOCALID=0 SLURM_JOB_ID=1 "
		    "SLURM_STEP_NODELIST=10.0.0.1", &l,
		    "disagree on the root: SLURM_STEP_NODELIST:SLURM_JOB_ID says 10.0.0.1:20001, MASTER_ADDR:MASTER_PORT says 10.0.0.2:100");
}

TEST(no_launcher_or_a_part_missing_is_named)
{
	struct enc_launch l = {};

	expect_fail(_metadata, "PATH=/bin HOME=/root", &l, "none found in the environment");
	expect_fail(_metadata, "OMPI_COMM_WORLD_RANK=4", &l,
		    "no launcher names this rank's world size; found openmpi (OMPI_COMM_WORLD_RANK)");
	expect_fail(_metadata, "PMIX_RANK=1 RANK=1 WORLD_SIZE=2", &l,
		    "no launcher names this rank's local rank; found torchrun (RANK, WORLD_SIZE), pmix (PMIX_RANK)");
}

TEST(values_that_are_not_numbers_or_outside_the_world_are_refused)
{
	struct enc_launch l = {};

	expect_fail(_metadata, "RANK=3x WORLD_SIZE=8 LOCAL_RANK=0", &l, "RANK=3x is not a rank");
	expect_fail(_metadata, "RANK=-1 WORLD_SIZE=8 LOCAL_RANK=0", &l, "RANK=-1 is not a rank");
	expect_fail(_metadata, "RANK= WORLD_SIZE=8 LOCAL_RANK=0", &l, "RANK= is not a rank");
	expect_fail(_metadata, "RANK=1 WORLD_SIZE=99999999999 LOCAL_RANK=0", &l,
		    "WORLD_SIZE=99999999999 is not a world size");
	expect_fail(_metadata, "RANK=8 WORLD_SIZE=8 LOCAL_RANK=0", &l,
		    "rank 8 (RANK) or local rank 0 (LOCAL_RANK) is not inside a world of 8 (WORLD_SIZE)");
	expect_fail(_metadata, "RANK=0 WORLD_SIZE=0 LOCAL_RANK=0", &l,
		    "the world size (WORLD_SIZE) is 0");
}

TEST(a_root_that_cannot_be_used_is_refused)
{
	struct enc_launch l = {};

	expect_fail(_metadata, "RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=10.0.0.1", &l,
		    "torchrun names the root's host but not its port (MASTER_PORT is not set)");
	expect_fail(_metadata, "RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=10.0.0.1 "
		    "MASTER_PORT=65535", &l, "MASTER_PORT=65535 is not a port below 65535");
	expect_fail(_metadata, "RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR= MASTER_PORT=1", &l,
		    "MASTER_ADDR='' is not a host");
	expect_fail(_metadata, "SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=0 SLURM_JOB_ID=x "
		    "SLURM_STEP_NODELIST=n1", &l, "SLURM_JOB_ID=x is not a job id");
	expect_fail(_metadata, "SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=0 SLURM_JOB_ID=1 "
		    "SLURM_STEP_ID=-1 SLURM_STEP_NODELIST=n1", &l, "SLURM_STEP_ID=-1 is not a step id");
	expect_fail(_metadata, "SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=0 SLURM_JOB_ID=1 "
		    "SLURM_STEP_NODELIST=n[2-1]", &l,
		    "SLURM_STEP_NODELIST=n[2-1] is not a Slurm host list");
}

TEST(a_loopback_root_serves_one_host_only)
{
	struct enc_launch l = {};

	/* All 8 ranks on this host: loopback is where they all meet. */
	ASSERT_EQ(NRT_SUCCESS, launch("RANK=1 WORLD_SIZE=8 LOCAL_RANK=1 LOCAL_WORLD_SIZE=8 "
				      "MASTER_ADDR=localhost MASTER_PORT=29500", &l))
		TH_LOG("%s", enc_last_error());
	EXPECT_STREQ("127.0.0.1:29501", l.root);
	/* Half of them elsewhere: they could not reach it. */
	expect_fail(_metadata, "RANK=1 WORLD_SIZE=8 LOCAL_RANK=1 LOCAL_WORLD_SIZE=4 "
		    "MASTER_ADDR=localhost MASTER_PORT=29500", &l,
		    "resolves only to 127.0.0.1 here, a loopback address the world's other hosts cannot reach");
	expect_fail(_metadata, "SLURM_PROCID=0 SLURM_NTASKS=8 SLURM_LOCALID=0 SLURM_JOB_ID=1 "
		    "SLURM_JOB_NUM_NODES=2 SLURM_JOB_NODELIST=localhost,n2", &l,
		    "'localhost' (SLURM_JOB_NODELIST) resolves only to 127.0.0.1");
}

TEST(an_ipv6_root_is_bracketed)
{
	struct enc_launch l = {};

	ASSERT_EQ(NRT_SUCCESS, launch("RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=fd00::1 "
				      "MASTER_PORT=40", &l))
		TH_LOG("%s", enc_last_error());
	EXPECT_STREQ("[fd00::1]:41", l.root);
}

TEST_HARNESS_MAIN
