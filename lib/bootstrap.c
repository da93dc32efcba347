// SPDX-License-Identifier: GPL-2.0
/*
 * The bootstrap calls: thin wrappers of the kernel's SETUP_GLOBAL_COMM,
 * INIT_REPLICA_GROUPS, COMM_BARRIER and NODE_INFO. The kernel runs the whole
 * protocol and words the failures.
 */
#include <stdlib.h>
#include <string.h>

#include <enc/bootstrap.h>
#include "enc_internal.h"

static bool env_on(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

NRT_STATUS enc_setup_global_comm_opts(uint32_t vnc, uint32_t ctx_id,
				      const struct enc_setup_opts *opts,
				      struct enc_world_info *info)
{
	struct encd_setup_global_comm req = {
		.vnc = vnc,
		.ctx_id = ctx_id,
		.timeout_ms = opts ? opts->timeout_ms : 0,
	};
	const char *secret = opts && opts->secret ? opts->secret : getenv(ENC_WORLD_SECRET_ENV);
	NRT_STATUS st;

	req.head.flags = opts ? opts->flags : 0;
	if (!req.head.flags)
		req.head.flags = (env_on(ENC_FORCE_TCP_ENV) ? ENC_SETUP_FORCE_TCP : 0) |
				 (env_on(ENC_SIG_ALL_GROUPS_ENV) ? ENC_SETUP_SIG_ALL_GROUPS : 0);
	if (opts && opts->secret)
		req.secret_len = opts->secret_len;
	else if (secret)
		req.secret_len = strlen(secret);
	if (req.secret_len) {
		if (req.secret_len > ENCD_WORLD_SECRET_MAX)
			return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
						 "enc_setup_global_comm: the world secret is %u bytes long, the limit is %u",
						 req.secret_len, ENCD_WORLD_SECRET_MAX);
		req.secret_uptr = (uintptr_t)secret;
	}
	st = enc_ioctl(ENCD_IOC_SETUP_GLOBAL_COMM, &req, sizeof(req), "enc_setup_global_comm");
	if (st == NRT_SUCCESS && info) {
		info->rank = req.rank;
		info->rank_n = req.rank_n;
		info->formed = req.out_flags & ENCD_SETUP_OUT_FORMED;
		memcpy(info->phase_ns, req.phase_ns, sizeof(info->phase_ns));
	}
	return st;
}

NRT_STATUS enc_setup_global_comm_ex(uint32_t vnc, uint32_t ctx_id, uint32_t timeout_ms,
				    struct enc_world_info *info)
{
	struct enc_setup_opts opts = { .timeout_ms = timeout_ms };

	return enc_setup_global_comm_opts(vnc, ctx_id, &opts, info);
}

NRT_STATUS enc_setup_global_comm(uint32_t vnc, uint32_t ctx_id)
{
	return enc_setup_global_comm_ex(vnc, ctx_id, 0, NULL);
}

NRT_STATUS enc_init_replica_groups_ex(uint32_t vnc, uint32_t ctx_id, uint32_t timeout_ms,
				      uint32_t *n_new, uint32_t *n_hits)
{
	struct encd_init_replica_groups req = {
		.vnc = vnc,
		.ctx_id = ctx_id,
		.timeout_ms = timeout_ms,
	};
	NRT_STATUS st;

	st = enc_ioctl(ENCD_IOC_INIT_REPLICA_GROUPS, &req, sizeof(req), "enc_init_replica_groups");
	if (st == NRT_SUCCESS) {
		if (n_new)
			*n_new = req.n_new;
		if (n_hits)
			*n_hits = req.n_hits;
	}
	return st;
}

NRT_STATUS enc_init_replica_groups(uint32_t vnc, uint32_t ctx_id)
{
	return enc_init_replica_groups_ex(vnc, ctx_id, 0, NULL, NULL);
}

static NRT_STATUS barrier(uint32_t vnc, uint32_t ctx_id, uint32_t group_id, uint32_t timeout_ms,
			  uint32_t flags, const char *what)
{
	struct encd_comm_barrier req = {
		.head.flags = flags,
		.vnc = vnc,
		.ctx_id = ctx_id,
		.group_id = group_id,
		.timeout_ms = timeout_ms,
	};

	return enc_ioctl(ENCD_IOC_COMM_BARRIER, &req, sizeof(req), what);
}

NRT_STATUS enc_comm_barrier(uint32_t vnc, uint32_t ctx_id, uint32_t group_id,
			    uint32_t timeout_ms)
{
	return barrier(vnc, ctx_id, group_id, timeout_ms, 0, __func__);
}

NRT_STATUS enc_local_barrier(uint32_t vnc, uint32_t ctx_id, uint32_t group_id,
			     uint32_t timeout_ms)
{
	return barrier(vnc, ctx_id, group_id, timeout_ms, ENCD_BARRIER_LOCAL, __func__);
}

NRT_STATUS enc_comm_info(uint32_t vnc, uint32_t ctx_id, uint32_t group_id,
			 struct encd_node_info *info)
{
	if (!info)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: info is NULL",
					 __func__);
	memset(info, 0, sizeof(*info));
	info->vnc = vnc;
	info->ctx_id = ctx_id;
	info->group_id = group_id;
	return enc_ioctl(ENCD_IOC_NODE_INFO, info, sizeof(*info), __func__);
}
