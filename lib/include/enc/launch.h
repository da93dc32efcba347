/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libenc: a rank's place in the world, as the launcher that started it
 * says (Slurm's srun, torchrun and the Kubernetes PyTorch job operator,
 * OpenMPI's mpirun, any PMIx launcher). Documentation/launchers.rst has
 * the recipes and what each error means.
 *
 * Each launcher tells a task some of: its rank, the world's size, its rank
 * among the tasks of its host (which becomes its NeuronCore, vnc) and where
 * the root is. enc_launch_from_env() reads them all, and every launcher
 * whose variables are present must agree on each value it gives; a value
 * the caller already knows (set in @l before the call, see the flags) is
 * taken as given and not asked of any launcher.
 */
#ifndef _ENC_LAUNCH_H
#define _ENC_LAUNCH_H

#include <stdint.h>
#include <enc/enc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A launcher whose variables enc_launch_from_env() reads (bit numbers). */
enum enc_launcher {
	ENC_LAUNCHER_SLURM,	/* SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_JOB_NODELIST, SLURM_JOB_ID */
	ENC_LAUNCHER_TORCH,	/* RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT */
	ENC_LAUNCHER_OPENMPI,	/* OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK */
	ENC_LAUNCHER_PMIX,	/* PMIX_RANK */
	ENC_LAUNCHER_N,
};

/* The values of struct enc_launch (bit numbers of its .given and .found). */
enum enc_launch_field {
	ENC_LAUNCH_RANK,
	ENC_LAUNCH_WORLD_SIZE,
	ENC_LAUNCH_LOCAL_RANK,
	ENC_LAUNCH_ROOT,
	ENC_LAUNCH_FIELD_N,
};

/* "HOST:PORT" or "[v6]:PORT", numeric, as root_comm_id takes it. */
#define ENC_LAUNCH_ROOT_MAX	64
#define ENC_LAUNCH_VAR_MAX	32

/*
 * Without a port of their own, Slurm's steps root their world at
 * ENC_LAUNCH_SLURM_PORT_BASE + (SLURM_JOB_ID + SLURM_STEP_ID *
 * ENC_LAUNCH_SLURM_STEP_STRIDE) % ENC_LAUNCH_SLURM_PORT_SPAN (below Linux's
 * ephemeral ports; a step id of 0 without SLURM_STEP_ID), and torchrun's at
 * MASTER_PORT + 1: MASTER_PORT itself is torch's own store on that host.
 * The stride is prime to the span: the steps of one job that run at once
 * never share a port, nor do jobs whose ids are close.
 */
#define ENC_LAUNCH_SLURM_PORT_BASE	20000
#define ENC_LAUNCH_SLURM_PORT_SPAN	10000
#define ENC_LAUNCH_SLURM_STEP_STRIDE	997

struct enc_launch {
	/* In: the launchers to read (1 << enum enc_launcher); 0: all of them. */
	uint32_t launchers;
	/* In: the values (1 << enum enc_launch_field) set below by the caller. */
	uint32_t given;
	/* In, a port for the root when the launcher names a host but no port. */
	uint16_t port;

	uint32_t rank;			/* g_device_id */
	uint32_t world_size;
	uint32_t local_rank;		/* the rank among its host's: its vnc */
	char root[ENC_LAUNCH_ROOT_MAX];	/* root_comm_id, resolved */

	/* Out: the values found, given or derived (1 << enum enc_launch_field). */
	uint32_t found;
	/* Out: the launchers whose variables were present (1 << enum enc_launcher). */
	uint32_t present;
	/* Out: where each value came from: "SLURM_PROCID", "--root", ... */
	char from[ENC_LAUNCH_FIELD_N][2 * ENC_LAUNCH_VAR_MAX];
	/* Out: the root's host as the launcher named it ("node01", "10.0.0.1"). */
	char root_host[256];
};

/*
 * Fills @l from the environment @envp ("NAME=value" strings, NULL-ended;
 * NULL: this process's). NRT_SUCCESS once rank, world size and local rank
 * are known and the rank is inside the world; the root is resolved when
 * some launcher names it (not found otherwise: .found says). NRT_INVALID
 * (reason ENCD_REASON_ARGUMENT) and a sentence for no launcher, launchers
 * that disagree (naming each variable and value), a malformed value or host
 * list, or a root that does not resolve or resolves only to loopback while
 * the world spans hosts.
 */
NRT_STATUS enc_launch_from_env(char *const *envp, struct enc_launch *l);

/* "slurm", "torchrun", "openmpi", "pmix"; NULL for anything else. */
const char *enc_launcher_name(enum enc_launcher launcher);

/*
 * The first host of a Slurm host list ("node[01-04,07],gpu5": "node01")
 * into @out (@size bytes). 0, or -1 (errno EINVAL) for a malformed list,
 * ERANGE if the host does not fit.
 */
int enc_slurm_first_host(const char *list, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* _ENC_LAUNCH_H */
