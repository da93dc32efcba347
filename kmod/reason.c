// SPDX-License-Identifier: GPL-2.0
/*
 * Why things fail. Every failure a caller sees has an errno, a sentence and
 * a reason (enum encd_reason, the uapi's): the sentence is for people, the
 * reason for programs. Most errnos say their reason alone; the few that
 * stand for several causes (an EINVAL that means "another world is here",
 * an ENOENT that means "no program is loaded", an ECONNABORTED that means
 * "released here" rather than "a rank departed") are given theirs where
 * they are made, and a kept failure carries its reason to every later
 * caller and, over the wire, to other hosts.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <asm/byteorder.h>

#include "encd_private.h"

/**
 * encd_reason_of() - the reason an errno stands for when nothing says more
 * @err: a negative errno
 *
 * Return: an enum encd_reason; ENCD_REASON_INTERNAL for an errno that no
 * reason explains.
 */
u32 encd_reason_of(int err)
{
	switch (err) {
	case 0:
		return ENCD_REASON_NONE;
	case -EINVAL:
	case -EOPNOTSUPP:
	case -E2BIG:
	case -ERANGE:
	case -EFAULT:
	case -EOVERFLOW:
		return ENCD_REASON_ARGUMENT;
	case -ENODEV:
		return ENCD_REASON_NO_CORE;
	case -ENOENT:
		return ENCD_REASON_NO_COMM;
	case -EBUSY:
		return ENCD_REASON_BUSY;
	case -EBADE:
		return ENCD_REASON_SIGNATURE_MISMATCH;
	case -ETIMEDOUT:
		return ENCD_REASON_TIMEOUT;
	case -EINTR:
	case -ERESTARTSYS:
		return ENCD_REASON_INTERRUPTED;
	case -ECONNABORTED:
		return ENCD_REASON_DEPARTED;
	case -ECONNRESET:
	case -ECONNREFUSED:
	case -EPIPE:
	case -ENOTCONN:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -ENETDOWN:
	case -EHOSTDOWN:
	case -ENOBUFS:
		return ENCD_REASON_HOST_LOST;
	case -EPROTO:
	case -EMSGSIZE:
		return ENCD_REASON_PROTOCOL;
	case -EACCES:
	case -EPERM:
	case -EBADMSG:
		return ENCD_REASON_AUTH;
	case -EADDRINUSE:
	case -EADDRNOTAVAIL:
		return ENCD_REASON_ADDRESS;
	case -ENOMEM:
		return ENCD_REASON_NO_MEMORY;
	case -EDQUOT:
		return ENCD_REASON_USER_CAP;
	default:
		return ENCD_REASON_INTERNAL;
	}
}

/**
 * encd_reason_of_link_down() - the reason a link of the world going gives
 * @err: why it went, a negative errno
 *
 * Its peer broke the protocol, or failed authentication, or this host is
 * out of memory; any other way, the host at its other end is lost.
 *
 * Return: an enum encd_reason.
 */
u32 encd_reason_of_link_down(int err)
{
	u32 reason = encd_reason_of(err);

	if (reason == ENCD_REASON_PROTOCOL || reason == ENCD_REASON_AUTH ||
	    reason == ENCD_REASON_NO_MEMORY)
		return reason;
	return ENCD_REASON_HOST_LOST;
}

/**
 * encd_why_set() - fills a failure in
 * @why: the failure
 * @err: its negative errno
 * @reason: its enum encd_reason; ENCD_REASON_NONE for the one @err stands for
 * @fmt: the sentence
 * @args: the sentence's arguments
 */
void encd_why_set(struct encd_why *why, int err, u32 reason, const char *fmt, va_list args)
{
	vscnprintf(why->msg, sizeof(why->msg), fmt, args);
	why->err = err;
	why->reason = reason ?: encd_reason_of(err);
}

/**
 * encd_reason_from_wire() - the reason of a failure another host sent
 * @reason: as it came (struct encd_wire_reject, struct encd_wire_death)
 * @err: the failure's negative errno, already made one
 *
 * Return: @reason, or for one this host does not know (0, or one a newer
 * peer added), the one @err stands for.
 */
u32 encd_reason_from_wire(__be32 reason, int err)
{
	u32 r = be32_to_cpu(reason);

	return r && r < __ENCD_REASON_CNT ? r : encd_reason_of(err);
}
