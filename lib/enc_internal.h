/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of libenc share and do not export: the device, the ioctl
 * wrapper that turns the kernel's failure sentence into the caller's last
 * error, and the errno -> NRT_STATUS mapping. Hidden from the shared
 * library's dynamic symbols; a static link still resolves them.
 */
#ifndef _ENC_INTERNAL_H
#define _ENC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <enc/enc.h>

#define ENC_HIDDEN	__attribute__((visibility("hidden")))

/* The longest sentence kept for enc_last_error(), with its NUL. */
#define ENC_ERR_MAX	512

/*
 * The open /dev/encd, or -1 with *@st set to NRT_UNINITIALIZED or NRT_CLOSED
 * and the last error saying so. The fd may be closed by a concurrent
 * enc_destroy_gcomm_locks(), as with any fd another thread may close.
 */
ENC_HIDDEN int enc_fd_get(NRT_STATUS *st);

/*
 * Issues @cmd with @arg, a struct of @size bytes that starts with struct
 * encd_head (whose flags the caller has set). On failure the last error
 * becomes "<what>: <the kernel's sentence or strerror> (<errno name>)", the
 * last reason the kernel's (head.reason), and the errno is mapped to an
 * NRT_STATUS.
 */
ENC_HIDDEN NRT_STATUS enc_ioctl(unsigned long cmd, void *arg, size_t size, const char *what);

/*
 * NRT_FAIL_HOST_MEM_ALLOC, with "<what>: out of memory" as the last error
 * and ENCD_REASON_NO_MEMORY as its reason.
 */
ENC_HIDDEN NRT_STATUS enc_no_mem(const char *what);

ENC_HIDDEN NRT_STATUS enc_status_from_errno(int err);

/*
 * For calls that must keep the device open across several steps (an ioctl
 * then an mmap of the same fd): the fd with the device lock held shared, or
 * -1 as enc_fd_get() without it. enc_dev_unlock() ends the hold.
 */
ENC_HIDDEN int enc_dev_lock(NRT_STATUS *st);
ENC_HIDDEN void enc_dev_unlock(void);
ENC_HIDDEN NRT_STATUS enc_ioctl_locked(int fd, unsigned long cmd, void *arg, size_t size,
				       const char *what);

/*
 * The two halves of enc_ioctl_locked(), for a caller that decides from the
 * kernel's answer whether a failure is one: enc_ioctl_raw() issues the
 * command and returns 0 or the errno, with the kernel's sentence in @msg
 * ("" if it gave none) and its reason in the head's reason (zeroed before
 * the call, so ENCD_REASON_NONE if it gave none), and sets no last error;
 * enc_ioctl_fail() turns an errno, that reason and that sentence into the
 * last error and the NRT_STATUS. Decide by the errno and the reason, never
 * by the sentence: its words may change.
 */
ENC_HIDDEN int enc_ioctl_raw(int fd, unsigned long cmd, void *arg, size_t size,
			     char msg[ENC_ERR_MAX]);
ENC_HIDDEN NRT_STATUS enc_ioctl_fail(int err, uint32_t reason, const char *msg,
				     const char *what);

/* Unmaps every semaphore buffer; the caller holds the device lock exclusively. */
ENC_HIDDEN void enc_sem_unmap_all(void);

#endif /* _ENC_INTERNAL_H */
