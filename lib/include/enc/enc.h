/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libenc: libnrt's enc_* global-communicator API over /dev/encd
 * (Documentation/libnrt.rst describes the runtime behaviour it reproduces).
 *
 * Every function is thread-safe and returns an NRT_STATUS. A failure also
 * leaves a sentence saying what failed, read with enc_last_error() on the
 * failing thread, and a reason saying why, read with enc_last_reason()
 * (like errno, a success leaves both as they were). The sentence is for
 * people and may change between versions; programs branch on the status
 * and the reason.
 *
 * The library has three states: before enc_init() every call returns
 * NRT_UNINITIALIZED; after enc_destroy_gcomm_locks() every call returns
 * NRT_CLOSED until enc_init() opens the device again.
 *
 * A global comm lives in the kernel while some open /dev/encd holds it. This
 * library opens /dev/encd once per process; a comm that this process built
 * or validated is held until enc_release_global_comm() or
 * enc_destroy_gcomm_locks(), or until the process exits. A child made by
 * fork() shares the parent's open device; to hold comms of its own it calls
 * enc_destroy_gcomm_locks() and enc_init() first.
 */
#ifndef _ENC_ENC_H
#define _ENC_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/encd.h>
#include <enc/nrt_status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens /dev/encd and checks that the module speaks ENCD_API_VERSION. */
NRT_STATUS enc_init(void);

/*
 * libnrt's enc_init_global_comm: makes this process a rank of a world of
 * @g_device_count ranks on core @vnc, context @ctx_id. Calling it again with
 * the same world succeeds; with another world it is NRT_INVALID.
 */
NRT_STATUS enc_init_global_comm(uint32_t vnc, uint32_t g_device_id, uint32_t g_device_count,
				uint32_t ctx_id, const char *root_comm_id, bool check_sigs);

/*
 * libnrt's enc_validate_global_comm: checks a NEFF's world (@dev_count)
 * against the core's global comm, building the comm when there is none.
 */
NRT_STATUS enc_validate_global_comm(uint32_t vnc, uint32_t dev_id, uint32_t dev_count,
				    uint32_t ctx_id, const char *root_comm_id, bool check_sigs);

NRT_STATUS enc_get_glb_device_id_and_cnt(uint32_t vnc, uint32_t ctx_id,
					 uint32_t *g_device_id, uint32_t *g_device_cnt);

/* The whole read-only header of the core's global comm. */
NRT_STATUS enc_get_global_comm_header(uint32_t vnc, uint32_t ctx_id,
				      struct encd_glb_comm_header *hdr);

/*
 * Maps the semaphore-increment value buffer of a global comm this process
 * holds: *@buf gets ENCD_SEM_VALUES_N read-only u32 values, *@size their size
 * in bytes. Repeated calls for the same comm return the same pointer; it stays
 * readable until enc_destroy_gcomm_locks(), even after the comm is released.
 */
NRT_STATUS enc_map_sem_values(uint32_t vnc, uint32_t ctx_id, const uint32_t **buf, size_t *size);

/* Lets go of the core's global comm; the last holder on the host destroys it. */
NRT_STATUS enc_release_global_comm(uint32_t vnc, uint32_t ctx_id);

/* The sentence behind this thread's last failure, "" if there was none. */
const char *enc_last_error(void);

/*
 * The reason of this thread's last failure, an enum encd_reason
 * (<linux/encd.h>), to branch on; ENCD_REASON_NONE if the thread has had
 * none. It is set by every failure, with the sentence:
 *
 *  - the kernel refused the call: the reason the kernel gave, or
 *    ENCD_REASON_NONE when it gave none (a failure before the kernel read
 *    the request: EFAULT, ENOTTY, or EINTR while waiting for the core's
 *    lock). A newer module may give a value this library has no name for.
 *  - libenc found the failure itself: ENCD_REASON_ARGUMENT for a wrong
 *    argument (a NULL pointer, a root_comm_id or world secret too long, an
 *    unknown src-target-pair set), ENCD_REASON_BAD_PROGRAM for a program
 *    too large to encode, ENCD_REASON_NO_MEMORY when the process is out of
 *    memory, and ENCD_REASON_NONE for the rest (the library not
 *    initialized or closed, /dev/encd that cannot be opened or speaks
 *    another API version, an mmap that failed).
 *  - libenc-json: ENCD_REASON_BAD_PROGRAM for JSON that is not a program,
 *    ENCD_REASON_ARGUMENT for a NULL argument, ENCD_REASON_NO_MEMORY, and
 *    ENCD_REASON_NONE for a file that cannot be read.
 *
 * Documentation/troubleshooting.rst says what each reason means and what
 * to do about it.
 */
uint32_t enc_last_reason(void);

/*
 * The stable name of @reason, an enum encd_reason, for programs and JSON:
 * "none", "argument", "no-core", ... (the uapi name, lowercase, without
 * ENCD_REASON_, with '-' for '_'); "unknown" for a value this library does
 * not know. A string the caller must not free or change.
 */
const char *enc_reason_name(uint32_t reason);

/*
 * Sets this thread's last error (printf-style, truncated at 511 bytes),
 * with ENCD_REASON_NONE as its reason, and returns @st: for code layered on
 * libenc to report its own failures the way libenc does.
 */
NRT_STATUS enc_set_error(NRT_STATUS st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * enc_set_error() with @reason (an enum encd_reason) as the reason
 * enc_last_reason() gives: what libenc-json does for a program that is not
 * one (ENCD_REASON_BAD_PROGRAM) or out of memory.
 */
NRT_STATUS enc_set_error_why(NRT_STATUS st, uint32_t reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "NRT_INVALID" for NRT_INVALID, and so on. */
const char *enc_status_name(NRT_STATUS st);

/*
 * libnrt's nrt_close path: unmaps every buffer enc_map_sem_values() gave,
 * closes /dev/encd (releasing every comm this process holds) and leaves the
 * library CLOSED.
 */
void enc_destroy_gcomm_locks(void);

#ifdef __cplusplus
}
#endif

#endif /* _ENC_ENC_H */
