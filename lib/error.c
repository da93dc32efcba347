// SPDX-License-Identifier: GPL-2.0
/*
 * The last error, one per thread: its sentence and its reason (enum
 * encd_reason); the reasons' names; the errno -> NRT_STATUS mapping.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "enc_internal.h"

static __thread char enc_err[ENC_ERR_MAX];
static __thread uint32_t enc_reason;

__attribute__((format(printf, 3, 0)))
static NRT_STATUS set_error(NRT_STATUS st, uint32_t reason, const char *fmt, va_list ap)
{
	vsnprintf(enc_err, sizeof(enc_err), fmt, ap);
	enc_reason = reason;
	return st;
}

NRT_STATUS enc_set_error(NRT_STATUS st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st = set_error(st, ENCD_REASON_NONE, fmt, ap);
	va_end(ap);
	return st;
}

NRT_STATUS enc_set_error_why(NRT_STATUS st, uint32_t reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	st = set_error(st, reason, fmt, ap);
	va_end(ap);
	return st;
}

NRT_STATUS enc_no_mem(const char *what)
{
	return enc_set_error_why(NRT_FAIL_HOST_MEM_ALLOC, ENCD_REASON_NO_MEMORY,
				 "%s: out of memory", what);
}

const char *enc_last_error(void)
{
	return enc_err;
}

uint32_t enc_last_reason(void)
{
	return enc_reason;
}

/*
 * Every enum encd_reason has its name here, by the rule of enc.h (the uapi
 * name without ENCD_REASON_, lowercase, '-' for '_'): a value without one
 * is "unknown", and tools/check-troubleshooting.py (make check-docs) fails
 * on it. The names are those of Documentation/troubleshooting.rst's
 * "Reasons", and stable, as the values are: programs and encctl -j's
 * "reason" compare them.
 */
static const char *const enc_reason_names[__ENCD_REASON_CNT] = {
	[ENCD_REASON_NONE] = "none",
	[ENCD_REASON_ARGUMENT] = "argument",
	[ENCD_REASON_NO_CORE] = "no-core",
	[ENCD_REASON_NO_COMM] = "no-comm",
	[ENCD_REASON_WORLD_DIFFERS] = "world-differs",
	[ENCD_REASON_BUSY] = "busy",
	[ENCD_REASON_TOPOLOGY] = "topology",
	[ENCD_REASON_NO_PROGRAM] = "no-program",
	[ENCD_REASON_BAD_PROGRAM] = "bad-program",
	[ENCD_REASON_SIGNATURE_MISMATCH] = "signature-mismatch",
	[ENCD_REASON_TIMEOUT] = "timeout",
	[ENCD_REASON_INTERRUPTED] = "interrupted",
	[ENCD_REASON_DEPARTED] = "departed",
	[ENCD_REASON_RELEASED] = "released",
	[ENCD_REASON_HOST_LOST] = "host-lost",
	[ENCD_REASON_PROTOCOL] = "protocol",
	[ENCD_REASON_AUTH] = "auth",
	[ENCD_REASON_ADDRESS] = "address",
	[ENCD_REASON_NO_MEMORY] = "no-memory",
	[ENCD_REASON_INTERNAL] = "internal",
	[ENCD_REASON_DEVICE_LOST] = "device-lost",
	[ENCD_REASON_NOT_OWNER] = "not-owner",
	[ENCD_REASON_USER_CAP] = "user-cap",
};

const char *enc_reason_name(uint32_t reason)
{
	if (reason >= __ENCD_REASON_CNT || !enc_reason_names[reason])
		return "unknown";
	return enc_reason_names[reason];
}

NRT_STATUS enc_status_from_errno(int err)
{
	switch (err) {
	case 0:
		return NRT_SUCCESS;
	case EINVAL:
	case E2BIG:
	case ERANGE:
	case ENODEV:
	case ENOENT:
		return NRT_INVALID;
	case ENOMEM:
		return NRT_FAIL_HOST_MEM_ALLOC;
	case ETIMEDOUT:
		return NRT_TIMEOUT;
	case EBUSY:
	case EAGAIN:
	case ENOSPC:
	case EMFILE:
	case EDQUOT:
		return NRT_RESOURCE;
	case EBADF:
		return NRT_INVALID_HANDLE;
	default:
		return NRT_FAILURE;
	}
}

const char *enc_status_name(NRT_STATUS st)
{
	switch (st) {
	case NRT_SUCCESS:
		return "NRT_SUCCESS";
	case NRT_FAILURE:
		return "NRT_FAILURE";
	case NRT_INVALID:
		return "NRT_INVALID";
	case NRT_INVALID_HANDLE:
		return "NRT_INVALID_HANDLE";
	case NRT_RESOURCE:
		return "NRT_RESOURCE";
	case NRT_TIMEOUT:
		return "NRT_TIMEOUT";
	case NRT_FAIL_HOST_MEM_ALLOC:
		return "NRT_FAIL_HOST_MEM_ALLOC";
	case NRT_UNINITIALIZED:
		return "NRT_UNINITIALIZED";
	case NRT_CLOSED:
		return "NRT_CLOSED";
	}
	return "NRT_STATUS(unknown)";
}
