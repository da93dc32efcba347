// SPDX-License-Identifier: GPL-2.0
/*
 * A program's life in the kernel: the PROGRAM_LOAD, PROGRAM_SIGN,
 * PROGRAM_GET_SIGNATURES and PROGRAM_SEAL ioctls. The kernel validates the
 * program against the world, signs it and words every failure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <enc/program.h>
#include "enc_internal.h"

NRT_STATUS enc_program_load_binary(uint32_t vnc, uint32_t ctx_id, const void *buf, size_t len)
{
	struct encd_program_load cmd = {
		.vnc = vnc,
		.ctx_id = ctx_id,
		.prog_uptr = (uintptr_t)buf,
		.prog_len = len > UINT32_MAX ? UINT32_MAX : len,
	};

	return enc_ioctl(ENCD_IOC_PROGRAM_LOAD, &cmd, sizeof(cmd), "enc_program_load");
}

NRT_STATUS enc_program_load(uint32_t vnc, uint32_t ctx_id, const struct enc_program *prog)
{
	NRT_STATUS st;
	size_t len;
	void *buf;

	st = enc_program_encode(prog, &buf, &len);
	if (st != NRT_SUCCESS)
		return st;
	st = enc_program_load_binary(vnc, ctx_id, buf, len);
	free(buf);
	return st;
}

/*
 * Whether PROGRAM_SIGN failed only because no program is loaded on the
 * core and context. ENOENT alone does not say it (it also means that the
 * program's global comm is no longer held): the kernel's reason does.
 */
static bool no_program_loaded(int err, uint32_t reason)
{
	return err == ENOENT && reason == ENCD_REASON_NO_PROGRAM;
}

NRT_STATUS enc_calculate_signature(uint32_t vnc, uint32_t ctx_id, uint32_t flags,
				   uint8_t global[ENC_SIG_LEN])
{
	struct encd_program_sign cmd = {
		.head.flags = flags,
		.vnc = vnc,
		.ctx_id = ctx_id,
	};
	char msg[ENC_ERR_MAX];
	NRT_STATUS st;
	int fd, err;

	fd = enc_dev_lock(&st);
	if (fd < 0)
		return st;
	err = enc_ioctl_raw(fd, ENCD_IOC_PROGRAM_SIGN, &cmd, sizeof(cmd), msg);
	enc_dev_unlock();
	/* libnrt: "if (!enc_ctx || !ccop_owner) return NRT_SUCCESS;" */
	if (no_program_loaded(err, cmd.head.reason)) {
		if (global)
			memset(global, 0, ENC_SIG_LEN);
		return NRT_SUCCESS;
	}
	if (err)
		return enc_ioctl_fail(err, cmd.head.reason, msg, __func__);
	if (global)
		memcpy(global, cmd.signature, ENC_SIG_LEN);
	return NRT_SUCCESS;
}

NRT_STATUS enc_program_seal(uint32_t vnc, uint32_t ctx_id)
{
	struct encd_program_seal cmd = { .vnc = vnc, .ctx_id = ctx_id };

	return enc_ioctl(ENCD_IOC_PROGRAM_SEAL, &cmd, sizeof(cmd), __func__);
}

void enc_program_signatures_free(struct enc_program_signatures *sigs)
{
	if (!sigs)
		return;
	free(sigs->groups);
	free(sigs->stps);
	free(sigs);
}

static void copy_sigs(struct enc_signature *dst, const struct encd_prog_sig *src, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		dst[i].id = src[i].id;
		dst[i].hashed = src[i].flags & ENCD_PROG_SIG_HASHED;
		memcpy(dst[i].digest, src[i].signature, ENC_SIG_LEN);
	}
}

NRT_STATUS enc_program_get_signatures(uint32_t vnc, uint32_t ctx_id,
				      struct enc_program_signatures **sigsp)
{
	struct encd_program_get_signatures cmd;
	struct encd_prog_sig *gs = NULL, *ss = NULL;
	struct enc_program_signatures *sigs;
	uint32_t n_groups = 0, n_stps = 0;
	NRT_STATUS st;

	if (!sigsp)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: NULL result",
					 __func__);
	/* The counts first; again if the program was replaced in between. */
	for (;;) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.vnc = vnc;
		cmd.ctx_id = ctx_id;
		cmd.groups_uptr = (uintptr_t)gs;
		cmd.stps_uptr = (uintptr_t)ss;
		cmd.n_groups = n_groups;
		cmd.n_stps = n_stps;
		st = enc_ioctl(ENCD_IOC_PROGRAM_GET_SIGNATURES, &cmd, sizeof(cmd), __func__);
		if (st != NRT_SUCCESS)
			goto fail;
		if (cmd.n_groups <= n_groups && cmd.n_stps <= n_stps && (gs || !n_groups))
			break;
		free(gs);
		free(ss);
		n_groups = cmd.n_groups;
		n_stps = cmd.n_stps;
		gs = calloc(n_groups + 1, sizeof(*gs));
		ss = calloc(n_stps + 1, sizeof(*ss));
		if (!gs || !ss) {
			st = enc_no_mem(__func__);
			goto fail;
		}
	}

	sigs = calloc(1, sizeof(*sigs));
	if (sigs) {
		sigs->groups = calloc(cmd.n_groups + 1, sizeof(*sigs->groups));
		sigs->stps = calloc(cmd.n_stps + 1, sizeof(*sigs->stps));
	}
	if (!sigs || !sigs->groups || !sigs->stps) {
		enc_program_signatures_free(sigs);
		st = enc_no_mem(__func__);
		goto fail;
	}
	memcpy(sigs->global, cmd.signature, ENC_SIG_LEN);
	sigs->flags = cmd.sig_flags;
	sigs->sealed = cmd.state == ENCD_PROGRAM_LOADED;
	sigs->n_groups = cmd.n_groups;
	sigs->n_stps = cmd.n_stps;
	copy_sigs(sigs->groups, gs, cmd.n_groups);
	copy_sigs(sigs->stps, ss, cmd.n_stps);
	*sigsp = sigs;
fail:
	free(gs);
	free(ss);
	return st;
}
