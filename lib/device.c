// SPDX-License-Identifier: GPL-2.0
/*
 * The process's one open /dev/encd and the library's state machine:
 * UNINITIALIZED -> (enc_init) OPEN -> (enc_destroy_gcomm_locks) CLOSED ->
 * (enc_init) OPEN ...
 *
 * Every call that uses the fd holds enc_dev_rwlock shared for as long as it
 * does, so enc_destroy_gcomm_locks() (exclusive) never closes the fd under a
 * call in flight, and an fd number that close() freed is never reused by a
 * late caller for some other file. The lock prefers writers so that a steady
 * stream of calls cannot hold off the close; no path takes it recursively.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "enc_internal.h"

#define ENCD_DEV_PATH	"/dev/" ENCD_DEVICE_NAME

static pthread_rwlock_t enc_dev_rwlock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static int enc_dev_fd = -1;
static bool enc_dev_closed;	/* enc_destroy_gcomm_locks() ran since the last enc_init() */

/* Why there is no fd, when enc_dev_fd is -1. */
static NRT_STATUS enc_dev_unusable(void)
{
	if (enc_dev_closed)
		return enc_set_error(NRT_CLOSED,
				     "libenc is closed: enc_destroy_gcomm_locks() was called");
	return enc_set_error(NRT_UNINITIALIZED, "libenc is not initialized: call enc_init() first");
}

int enc_dev_lock(NRT_STATUS *st)
{
	pthread_rwlock_rdlock(&enc_dev_rwlock);
	if (enc_dev_fd < 0) {
		*st = enc_dev_unusable();
		pthread_rwlock_unlock(&enc_dev_rwlock);
		return -1;
	}
	return enc_dev_fd;
}

void enc_dev_unlock(void)
{
	pthread_rwlock_unlock(&enc_dev_rwlock);
}

int enc_fd_get(NRT_STATUS *st)
{
	int fd = enc_dev_lock(st);

	if (fd >= 0)
		enc_dev_unlock();
	return fd;
}

int enc_ioctl_raw(int fd, unsigned long cmd, void *arg, size_t size, char msg[ENC_ERR_MAX])
{
	struct encd_head *head = arg;
	int err;

	msg[0] = '\0';
	head->size = size;
	head->msg_uptr = (uintptr_t)msg;
	head->msg_len = ENC_ERR_MAX;
	/* a failure before the kernel reads the head leaves it as it is */
	head->reason = ENCD_REASON_NONE;
	err = ioctl(fd, cmd, arg) ? errno : 0;
	/* msg belongs to the caller's frame: leave no pointer to it in @arg */
	head->msg_uptr = 0;
	head->msg_len = 0;
	return err;
}

NRT_STATUS enc_ioctl_fail(int err, uint32_t reason, const char *msg, const char *what)
{
	const char *name = strerrorname_np(err);

	return enc_set_error_why(enc_status_from_errno(err), reason, "%s: %s (%s)", what,
				 msg[0] ? msg : strerror(err), name ? name : "unknown errno");
}

NRT_STATUS enc_ioctl_locked(int fd, unsigned long cmd, void *arg, size_t size, const char *what)
{
	struct encd_head *head = arg;
	char msg[ENC_ERR_MAX];
	int err;

	err = enc_ioctl_raw(fd, cmd, arg, size, msg);
	return err ? enc_ioctl_fail(err, head->reason, msg, what) : NRT_SUCCESS;
}

NRT_STATUS enc_ioctl(unsigned long cmd, void *arg, size_t size, const char *what)
{
	NRT_STATUS st;
	int fd;

	fd = enc_dev_lock(&st);
	if (fd < 0)
		return st;
	st = enc_ioctl_locked(fd, cmd, arg, size, what);
	enc_dev_unlock();
	return st;
}

NRT_STATUS enc_init(void)
{
	struct encd_version ver = { 0 };
	NRT_STATUS st = NRT_SUCCESS;
	const char *name;
	int fd, err;

	pthread_rwlock_wrlock(&enc_dev_rwlock);
	if (enc_dev_fd >= 0)
		goto out;

	/*
	 * The open device is what stands for libnrt's global comm locks (the
	 * kernel serialises each core's global comm), so failing to open it is
	 * worded as libnrt's failure to create them.
	 */
	fd = open(ENCD_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		name = strerrorname_np(err);
		st = enc_set_error(enc_status_from_errno(err),
				   "Failed to create global comm init lock (ret=%d): %s: cannot open %s: %s (%s); is the encd module loaded?",
				   -err, __func__, ENCD_DEV_PATH, strerror(err),
				   name ? name : "unknown errno");
		goto out;
	}

	st = enc_ioctl_locked(fd, ENCD_IOC_VERSION, &ver, sizeof(ver), __func__);
	if (st == NRT_SUCCESS && ver.api_version != ENCD_API_VERSION)
		st = enc_set_error(NRT_FAILURE,
				   "%s: %s speaks encd API version %u, libenc was built for %u",
				   __func__, ENCD_DEV_PATH, ver.api_version, ENCD_API_VERSION);
	if (st != NRT_SUCCESS) {
		close(fd);
		goto out;
	}
	enc_dev_fd = fd;
	enc_dev_closed = false;
out:
	pthread_rwlock_unlock(&enc_dev_rwlock);
	return st;
}

void enc_destroy_gcomm_locks(void)
{
	pthread_rwlock_wrlock(&enc_dev_rwlock);
	if (enc_dev_fd >= 0) {
		enc_sem_unmap_all();
		/* the kernel lets go of every comm this fd holds */
		close(enc_dev_fd);
		enc_dev_fd = -1;
	}
	enc_dev_closed = true;
	pthread_rwlock_unlock(&enc_dev_rwlock);
}
