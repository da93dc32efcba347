// SPDX-License-Identifier: GPL-2.0
/*
 * The global-communicator calls. The kernel makes every decision libnrt's
 * enc_init_global_comm / enc_validate_global_comm make, and words the
 * failures; the library only checks what cannot cross the ioctl boundary
 * (NULL pointers, a root_comm_id too long for the fixed-size field).
 */
#include <string.h>

#include "enc_internal.h"

static NRT_STATUS gcomm_req(unsigned long cmd, const char *what, uint32_t vnc,
			    uint32_t g_device_id, uint32_t g_device_cnt, uint32_t ctx_id,
			    const char *root_comm_id, bool check_sigs)
{
	struct encd_global_comm_req req = {
		.head.flags = check_sigs ? ENCD_GCOMM_CHECK_SIGS : 0,
		.vnc = vnc,
		.g_device_id = g_device_id,
		.g_device_cnt = g_device_cnt,
		.ctx_id = ctx_id,
	};
	size_t len;

	if (!root_comm_id)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "%s: root_comm_id is NULL", what);
	len = strlen(root_comm_id);
	if (len >= sizeof(req.root_comm_id))
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "%s: root_comm_id is %zu bytes long, the limit is %zu",
					 what, len, sizeof(req.root_comm_id) - 1);
	memcpy(req.root_comm_id, root_comm_id, len);

	return enc_ioctl(cmd, &req, sizeof(req), what);
}

NRT_STATUS enc_init_global_comm(uint32_t vnc, uint32_t g_device_id, uint32_t g_device_count,
				uint32_t ctx_id, const char *root_comm_id, bool check_sigs)
{
	return gcomm_req(ENCD_IOC_BUILD_GLOBAL_COMM, __func__, vnc, g_device_id,
			 g_device_count, ctx_id, root_comm_id, check_sigs);
}

NRT_STATUS enc_validate_global_comm(uint32_t vnc, uint32_t dev_id, uint32_t dev_count,
				    uint32_t ctx_id, const char *root_comm_id, bool check_sigs)
{
	return gcomm_req(ENCD_IOC_VALIDATE_GLOBAL_COMM, __func__, vnc, dev_id, dev_count,
			 ctx_id, root_comm_id, check_sigs);
}

static NRT_STATUS get_header(uint32_t vnc, uint32_t ctx_id, struct encd_glb_comm_header *hdr,
			     const char *what)
{
	struct encd_get_global_comm get = { .vnc = vnc, .ctx_id = ctx_id };
	NRT_STATUS st;

	st = enc_ioctl(ENCD_IOC_GET_GLOBAL_COMM, &get, sizeof(get), what);
	if (st == NRT_SUCCESS)
		*hdr = get.hdr;
	return st;
}

NRT_STATUS enc_get_global_comm_header(uint32_t vnc, uint32_t ctx_id,
				      struct encd_glb_comm_header *hdr)
{
	if (!hdr)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: hdr is NULL",
					 __func__);
	return get_header(vnc, ctx_id, hdr, __func__);
}

NRT_STATUS enc_get_glb_device_id_and_cnt(uint32_t vnc, uint32_t ctx_id,
					 uint32_t *g_device_id, uint32_t *g_device_cnt)
{
	struct encd_glb_comm_header hdr;
	NRT_STATUS st;

	if (!g_device_id || !g_device_cnt)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: %s is NULL",
					 __func__, g_device_id ? "g_device_cnt" : "g_device_id");
	st = get_header(vnc, ctx_id, &hdr, __func__);
	if (st != NRT_SUCCESS)
		return st;
	*g_device_id = hdr.g_device_id;
	*g_device_cnt = hdr.g_device_cnt;
	return NRT_SUCCESS;
}

NRT_STATUS enc_release_global_comm(uint32_t vnc, uint32_t ctx_id)
{
	struct encd_release_global_comm rel = { .vnc = vnc, .ctx_id = ctx_id };

	return enc_ioctl(ENCD_IOC_RELEASE_GLOBAL_COMM, &rel, sizeof(rel), __func__);
}
