/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCD_CDEV_H
#define _ENCD_CDEV_H

#include <linux/bitmap.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/encd.h>

#define ENCD_SLOTS	(ENCD_NEC_MAX_DEVICES * ENCD_MAX_CONTEXTS)
#define ENCD_MSG_MAX	256

struct enc_program;

/* One open file of /dev/encd. */
struct encd_file {
	struct mutex lock;	/* guards held and programs */
	/* slot (nec_dev * ENCD_MAX_CONTEXTS + ctx_id) -> this fd holds the comm */
	DECLARE_BITMAP(held, ENCD_SLOTS);
	struct enc_program *programs[ENCD_SLOTS];
};

/* One ioctl call in flight. */
struct encd_ucmd {
	struct encd_file *file;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
	char msg[ENCD_MSG_MAX];
};

static inline unsigned int encd_slot(u32 nec_dev, u32 ctx_id)
{
	return nec_dev * ENCD_MAX_CONTEXTS + ctx_id;
}

/*
 * Records why a command failed, for the caller (struct encd_head.msg_uptr)
 * and the kernel log, and evaluates to @err.
 */
__printf(3, 4) int encd_fail(struct encd_ucmd *ucmd, int err, const char *fmt, ...);

/* Copies the command struct back to user space, up to the caller's size. */
int encd_ucmd_respond(struct encd_ucmd *ucmd, size_t cmd_len);

int enc_cdev_init(void);
void enc_cdev_exit(void);

#endif /* _ENCD_CDEV_H */
