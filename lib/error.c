// SPDX-License-Identifier: GPL-2.0
/*
 * The last error, one per thread, and the errno -> NRT_STATUS mapping.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "enc_internal.h"

static __thread char enc_err[ENC_ERR_MAX];

NRT_STATUS enc_set_error(NRT_STATUS st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(enc_err, sizeof(enc_err), fmt, ap);
	va_end(ap);
	return st;
}

NRT_STATUS enc_no_mem(const char *what)
{
	return enc_set_error(NRT_FAIL_HOST_MEM_ALLOC, "%s: out of memory", what);
}

const char *enc_last_error(void)
{
	return enc_err;
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
	case ENOSPC:
	case EMFILE:
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
