/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The status codes libenc returns. The values are the Neuron SDK's
 * (nrt_status.h), so code written against libnrt compares them unchanged.
 */
#ifndef _ENC_NRT_STATUS_H
#define _ENC_NRT_STATUS_H

typedef enum {
	NRT_SUCCESS = 0,
	NRT_FAILURE = 1,		/* anything not listed below */
	NRT_INVALID = 2,		/* a bad argument or a state that forbids the call */
	NRT_INVALID_HANDLE = 3,		/* a file descriptor that is not /dev/encd's */
	NRT_RESOURCE = 4,		/* busy, or out of a countable resource */
	NRT_TIMEOUT = 5,
	NRT_FAIL_HOST_MEM_ALLOC = 11,	/* out of memory, in the process or the kernel */
	NRT_UNINITIALIZED = 13,		/* enc_init() has not been called */
	NRT_CLOSED = 14,		/* enc_destroy_gcomm_locks() closed the library */
} NRT_STATUS;

#endif /* _ENC_NRT_STATUS_H */
