// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/encd: the ioctl dispatcher, mmap of the semaphore buffers, and what
 * each open file holds.
 *
 * The ioctls follow iommufd: every argument struct starts with its size, is
 * copied with copy_struct_from_user() so it can grow, and is served from one
 * table. A failing command leaves a sentence in the caller's buffer (see
 * struct encd_head in the uapi).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "encd_private.h"

static __printf(4, 0) int ucmd_vfail(struct encd_ucmd *ucmd, int err, u32 reason,
				     const char *fmt, va_list args)
{
	encd_why_set(&ucmd->why, err, reason, fmt, args);
	pr_info_ratelimited("%s (%d)\n", ucmd->why.msg, err);
	return err;
}

/**
 * encd_fail() - records why a command failed
 * @ucmd: the command
 * @err: the negative errno it fails with; its reason is encd_reason_of(@err)
 * @fmt: the sentence, printf-style
 *
 * The sentence goes to the caller (struct encd_head.msg_uptr), with the
 * reason (struct encd_head.reason) and, rate limited, to the kernel log.
 *
 * Return: @err, so that callers can write ``return encd_fail(...)``.
 */
int encd_fail(struct encd_ucmd *ucmd, int err, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	ucmd_vfail(ucmd, err, 0, fmt, args);
	va_end(args);
	return err;
}

/**
 * encd_fail_why() - records why a command failed, for an errno of several causes
 * @ucmd: the command
 * @err: the negative errno it fails with
 * @reason: which of @err's causes it is, enum encd_reason
 * @fmt: the sentence, printf-style
 *
 * Return: @err.
 */
int encd_fail_why(struct encd_ucmd *ucmd, int err, u32 reason, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	ucmd_vfail(ucmd, err, reason, fmt, args);
	va_end(args);
	return err;
}

/**
 * encd_fail_kept() - a command fails with a failure kept from before
 * @ucmd: the command
 * @why: the failure: a rank's, a comm node's, a world's
 *
 * Return: @why's errno.
 */
int encd_fail_kept(struct encd_ucmd *ucmd, const struct encd_why *why)
{
	return encd_fail_why(ucmd, why->err, why->reason, "%s", why->msg);
}

/**
 * encd_ucmd_respond() - copies a command's answer back to user space
 * @ucmd: the command
 * @cmd_len: the kernel's size of the command struct
 *
 * Copies as much as both sides know of (the caller's size may be smaller).
 *
 * Return: 0, or -EFAULT.
 */
int encd_ucmd_respond(struct encd_ucmd *ucmd, size_t cmd_len)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd, min_t(size_t, ucmd->user_size, cmd_len)))
		return -EFAULT;
	return 0;
}

static struct encd_head *ucmd_head(struct encd_ucmd *ucmd)
{
	return ucmd->cmd;
}

/*
 * Hands the caller the reason and the sentence behind a failure (the
 * sentence if it asked for one). A failure without a sentence (a fault
 * copying the answer back, a signal while waiting for a lock) still has a
 * reason: the one its errno stands for.
 */
static void ucmd_report(struct encd_ucmd *ucmd, int err)
{
	struct encd_head *head = ucmd_head(ucmd);
	struct encd_head __user *uhead = ucmd->ubuffer;
	char *msg = ucmd->why.msg;
	u32 reason;
	size_t len;

	reason = msg[0] && ucmd->why.err == err ? ucmd->why.reason : encd_reason_of(err);
	/* The caller's head and buffer are advisory: a bad one cannot mask the error. */
	if (put_user(reason, &uhead->reason))
		pr_debug("failure reason not delivered\n");
	if (!head->msg_len || !msg[0])
		return;
	len = min_t(size_t, strlen(msg) + 1, head->msg_len);
	msg[len - 1] = '\0';
	if (copy_to_user(u64_to_user_ptr(head->msg_uptr), msg, len))
		pr_debug("failure sentence not delivered\n");
}

/* The fd now holds the comm; a second hold by the same fd is folded. */
static void file_hold(struct encd_file *file, u32 nec_dev, u32 ctx_id)
{
	bool already;

	mutex_lock(&file->lock);
	already = test_and_set_bit(encd_slot(nec_dev, ctx_id), file->held);
	mutex_unlock(&file->lock);
	if (already)
		encd_gcomm_unhold(nec_dev, ctx_id);
}

/**
 * encd_file_holds() - whether an open file holds the comm of a slot
 * @file: the open file
 * @slot: the slot, encd_slot(nec_dev, ctx_id)
 *
 * Return: true when it does. The answer may change as soon as the file's
 * lock is dropped; callers that act on it re-check under that lock.
 */
bool encd_file_holds(struct encd_file *file, unsigned int slot)
{
	bool held;

	mutex_lock(&file->lock);
	held = test_bit(slot, file->held);
	mutex_unlock(&file->lock);
	return held;
}

/**
 * encd_ucmd_slot() - the registry slot a command names
 * @ucmd: the command; its failure sentence is set on error
 * @vnc: the virtual NeuronCore the caller named
 * @ctx_id: the context the caller named
 * @slot: out: encd_slot() of the core and context
 *
 * A core a topology sync took away still names the comm built on it, so
 * that its holders can look at it and release it (a core's nec_dev_id is
 * its number in either source).
 *
 * Return: 0, -ENODEV for an unknown core or -EINVAL for a bad context,
 * with the sentences every command gives.
 */
int encd_ucmd_slot(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, unsigned int *slot)
{
	struct encd_vcore vcore;
	struct encd_gcomm *g;

	if (encd_topology_get_vcore(vnc, &vcore)) {
		g = vnc < ENCD_NEC_MAX_DEVICES && ctx_id < ENCD_MAX_CONTEXTS ?
		    encd_get_global_comm(vnc, ctx_id) : NULL;
		if (!g)
			return encd_fail(ucmd, -ENODEV, "Failed to find core %u", vnc);
		encd_gcomm_put(g);
		*slot = encd_slot(vnc, ctx_id);
		return 0;
	}
	if (ctx_id >= ENCD_MAX_CONTEXTS)
		return encd_fail(ucmd, -EINVAL, "Invalid context id %u (there are %u)",
				 ctx_id, ENCD_MAX_CONTEXTS);
	*slot = encd_slot(vcore.nec_dev_id, ctx_id);
	return 0;
}

/**
 * encd_ucmd_get_gcomm() - the global comm a command names
 * @ucmd: the command; its failure sentence is set on error
 * @vnc: the virtual NeuronCore the caller named
 * @ctx_id: the context the caller named
 * @flags: ENCD_UCMD_HELD: the calling file must hold the comm;
 *	ENCD_UCMD_LOCKED: the caller holds the file's lock
 *
 * Resolves (@vnc, @ctx_id) to a registry slot and looks its comm up, as
 * every command that names a comm does, with the same sentences.
 *
 * Return: a counted reference (encd_gcomm_put() it), or an ERR_PTR():
 * -ENODEV for an unknown core, -EINVAL for a bad context, -ENOENT when
 * there is no comm or the file does not hold it.
 */
struct encd_gcomm *encd_ucmd_get_gcomm(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id,
				       unsigned int flags)
{
	struct encd_file *file = ucmd->file;
	struct encd_gcomm *g;
	unsigned int slot;
	bool held = true;
	int err;

	err = encd_ucmd_slot(ucmd, vnc, ctx_id, &slot);
	if (err)
		return ERR_PTR(err);
	if (flags & ENCD_UCMD_LOCKED) {
		lockdep_assert_held(&file->lock);
		held = test_bit(slot, file->held);
	} else if (flags & ENCD_UCMD_HELD) {
		held = encd_file_holds(file, slot);
	}
	if ((flags & ENCD_UCMD_HELD) && !held)
		goto not_held;
	g = encd_get_global_comm(slot / ENCD_MAX_CONTEXTS, ctx_id);
	/*
	 * A held comm stays in the registry until its file lets go, so a
	 * held one found missing was released by this file meanwhile (a
	 * RELEASE racing this command): say so, as if it came first.
	 */
	if (!g && (flags & ENCD_UCMD_HELD))
		goto not_held;
	/*
	 * Another namespace's comm is none of this caller's business, unless
	 * its file holds it (it built or attached to it in that namespace).
	 */
	if (g && !(flags & (ENCD_UCMD_HELD | ENCD_UCMD_LOCKED)) &&
	    !net_eq(g->net, current->nsproxy->net_ns)) {
		encd_gcomm_put(g);
		g = NULL;
	}
	if (!g)
		return ERR_PTR(encd_fail(ucmd, -ENOENT, "No global comm on core %u context %u",
					 vnc, ctx_id));
	return g;

not_held:
	return ERR_PTR(encd_fail(ucmd, -ENOENT,
				 "This file does not hold the global comm of core %u context %u",
				 vnc, ctx_id));
}

static int encd_ioctl_version(struct encd_ucmd *ucmd)
{
	struct encd_version *cmd = ucmd->cmd;

	cmd->api_version = ENCD_API_VERSION;
	cmd->num_vcores = encd_topology_num_vcores();
	cmd->max_contexts = ENCD_MAX_CONTEXTS;
	cmd->sem_values_size = ENCD_SEM_VALUES_SIZE;
	return encd_ucmd_respond(ucmd, sizeof(*cmd));
}

typedef struct encd_gcomm *(*gcomm_fn)(struct encd_ucmd *ucmd, const struct encd_gcomm_args *a,
					bool *created);

static int gcomm_request(struct encd_ucmd *ucmd, gcomm_fn fn)
{
	struct encd_global_comm_req *cmd = ucmd->cmd;
	struct encd_gcomm_args args = {
		.vnc = cmd->vnc,
		.g_device_id = cmd->g_device_id,
		.g_device_cnt = cmd->g_device_cnt,
		.ctx_id = cmd->ctx_id,
		.root_comm_id = cmd->root_comm_id,
		.check_sigs = cmd->head.flags & ENCD_GCOMM_CHECK_SIGS,
	};
	struct encd_gcomm *g;
	bool created;

	if (!memchr(cmd->root_comm_id, '\0', sizeof(cmd->root_comm_id)))
		return encd_fail(ucmd, -EINVAL, "root_comm_id is longer than %d bytes",
				 ENCD_ROOT_COMM_ID_MAX - 1);

	g = fn(ucmd, &args, &created);
	if (IS_ERR(g))
		return PTR_ERR(g);

	file_hold(ucmd->file, g->nec_dev_id, g->ctx_id);
	cmd->out_flags = created ? ENCD_GCOMM_OUT_CREATED : 0;
	cmd->nec_dev_id = g->nec_dev_id;
	encd_gcomm_put(g);
	/*
	 * The fd holds the comm even if the answer cannot be copied back:
	 * RELEASE or close lets go of it as of any other.
	 */
	return encd_ucmd_respond(ucmd, sizeof(*cmd));
}

static int encd_ioctl_build(struct encd_ucmd *ucmd)
{
	return gcomm_request(ucmd, encd_gcomm_build);
}

static int encd_ioctl_validate(struct encd_ucmd *ucmd)
{
	return gcomm_request(ucmd, encd_gcomm_validate);
}

static int encd_ioctl_get(struct encd_ucmd *ucmd)
{
	struct encd_get_global_comm *cmd = ucmd->cmd;
	struct encd_gcomm *g;

	g = encd_ucmd_get_gcomm(ucmd, cmd->vnc, cmd->ctx_id, 0);
	if (IS_ERR(g))
		return PTR_ERR(g);
	encd_gcomm_fill_header(g, &cmd->hdr);
	encd_gcomm_put(g);
	return encd_ucmd_respond(ucmd, sizeof(*cmd));
}

static int encd_ioctl_release(struct encd_ucmd *ucmd)
{
	struct encd_release_global_comm *cmd = ucmd->cmd;
	struct encd_file *file = ucmd->file;
	unsigned int slot;
	u32 nec_dev;
	bool held;
	int err;

	err = encd_ucmd_slot(ucmd, cmd->vnc, cmd->ctx_id, &slot);
	if (err)
		return err;
	nec_dev = slot / ENCD_MAX_CONTEXTS;

	mutex_lock(&file->lock);
	held = test_and_clear_bit(slot, file->held);
	mutex_unlock(&file->lock);
	if (!held)
		return encd_fail(ucmd, -ENOENT,
				 "This file does not hold the global comm of core %u context %u",
				 cmd->vnc, cmd->ctx_id);
	encd_world_release(file, nec_dev, cmd->ctx_id);
	encd_gcomm_unhold(nec_dev, cmd->ctx_id);
	return 0;
}

struct encd_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	unsigned int ioctl_num;
	u32 flags;		/* the head flags the command knows */
	int (*execute)(struct encd_ucmd *ucmd);
};

#define IOCTL_OP(_ioctl, _fn, _struct, _last, _flags)			\
	[_IOC_NR(_ioctl) - ENCD_CMD_BASE] = {				\
		.size = sizeof(_struct),				\
		.min_size = offsetofend(_struct, _last),		\
		.ioctl_num = _ioctl,					\
		.flags = _flags,					\
		.execute = _fn,						\
	}

static const struct encd_ioctl_op encd_ioctl_ops[] = {
	IOCTL_OP(ENCD_IOC_VERSION, encd_ioctl_version, struct encd_version,
		 sem_values_size, 0),
	IOCTL_OP(ENCD_IOC_BUILD_GLOBAL_COMM, encd_ioctl_build, struct encd_global_comm_req,
		 nec_dev_id, ENCD_GCOMM_CHECK_SIGS),
	IOCTL_OP(ENCD_IOC_VALIDATE_GLOBAL_COMM, encd_ioctl_validate,
		 struct encd_global_comm_req, nec_dev_id, ENCD_GCOMM_CHECK_SIGS),
	IOCTL_OP(ENCD_IOC_GET_GLOBAL_COMM, encd_ioctl_get, struct encd_get_global_comm,
		 hdr, 0),
	IOCTL_OP(ENCD_IOC_RELEASE_GLOBAL_COMM, encd_ioctl_release,
		 struct encd_release_global_comm, ctx_id, 0),
	IOCTL_OP(ENCD_IOC_PROGRAM_LOAD, encd_program_ioctl_load, struct encd_program_load,
		 prog_len, 0),
	IOCTL_OP(ENCD_IOC_PROGRAM_SIGN, encd_program_ioctl_sign, struct encd_program_sign,
		 ctx_id, ENCD_SIG_ALL_GROUPS),
	IOCTL_OP(ENCD_IOC_PROGRAM_GET_SIGNATURES, encd_program_ioctl_get_signatures,
		 struct encd_program_get_signatures, n_stps, 0),
	IOCTL_OP(ENCD_IOC_PROGRAM_SEAL, encd_program_ioctl_seal, struct encd_program_seal,
		 ctx_id, 0),
	IOCTL_OP(ENCD_IOC_SETUP_GLOBAL_COMM, encd_world_ioctl_setup,
		 struct encd_setup_global_comm, phase_ns,
		 ENCD_SETUP_FORCE_TCP | ENCD_SETUP_SIG_ALL_GROUPS),
	IOCTL_OP(ENCD_IOC_INIT_REPLICA_GROUPS, encd_world_ioctl_init_groups,
		 struct encd_init_replica_groups, __reserved, 0),
	IOCTL_OP(ENCD_IOC_COMM_BARRIER, encd_world_ioctl_barrier, struct encd_comm_barrier,
		 duration_ns, ENCD_BARRIER_LOCAL),
	IOCTL_OP(ENCD_IOC_NODE_INFO, encd_world_ioctl_node_info, struct encd_node_info,
		 mismatch, 0),
};

static long encd_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	const struct encd_ioctl_op *op;
	struct encd_ucmd ucmd = {
		.file = filp->private_data,
		.ubuffer = (void __user *)arg,
	};
	struct encd_head *head;
	unsigned int nr;
	int err;

	nr = _IOC_NR(cmd);
	if (_IOC_TYPE(cmd) != ENCD_TYPE || nr < ENCD_CMD_BASE ||
	    nr - ENCD_CMD_BASE >= ARRAY_SIZE(encd_ioctl_ops))
		return -ENOTTY;
	op = &encd_ioctl_ops[nr - ENCD_CMD_BASE];
	if (op->ioctl_num != cmd)
		return -ENOTTY;

	if (get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer))
		return -EFAULT;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;

	ucmd.cmd = kzalloc(op->size, GFP_KERNEL);
	if (!ucmd.cmd)
		return -ENOMEM;
	err = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuffer, ucmd.user_size);
	if (err)
		goto out;

	head = ucmd_head(&ucmd);
	/* An answer copied back says no reason; only ucmd_report() sets one. */
	head->reason = ENCD_REASON_NONE;
	if (head->flags & ~op->flags)
		err = encd_fail(&ucmd, -EOPNOTSUPP, "Unknown flags 0x%x",
				head->flags & ~op->flags);
	else
		err = op->execute(&ucmd);
	if (err)
		ucmd_report(&ucmd, err);
out:
	kfree(ucmd.cmd);
	return err;
}

static int encd_fops_open(struct inode *inode, struct file *filp)
{
	struct encd_file *file;

	file = kvzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	mutex_init(&file->lock);
	filp->private_data = file;
	return 0;
}

static int encd_fops_release(struct inode *inode, struct file *filp)
{
	struct encd_file *file = filp->private_data;
	unsigned int slot;

	/* The last reference to the file is gone: nobody else can touch it. */
	encd_program_release_file(file);
	for_each_set_bit(slot, file->held, ENCD_SLOTS) {
		encd_world_release(file, slot / ENCD_MAX_CONTEXTS, slot % ENCD_MAX_CONTEXTS);
		encd_gcomm_unhold(slot / ENCD_MAX_CONTEXTS, slot % ENCD_MAX_CONTEXTS);
	}
	mutex_destroy(&file->lock);
	kvfree(file);
	return 0;
}

/* The page offset selects the slot: see ENCD_SEM_MMAP_OFFSET. */
static int encd_fops_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct encd_file *file = filp->private_data;
	struct encd_gcomm *g;
	unsigned long slot = vma->vm_pgoff;
	u32 nec_dev, ctx_id;
	int err;

	if (slot >= ENCD_SLOTS)
		return -EINVAL;
	nec_dev = slot / ENCD_MAX_CONTEXTS;
	ctx_id = slot % ENCD_MAX_CONTEXTS;

	if (!encd_file_holds(file, slot))
		return -ENOENT;

	/* Held by this fd, so published; a reference keeps it while we map. */
	g = encd_get_global_comm(nec_dev, ctx_id);
	if (!g)
		return -ENOENT;
	err = encd_sembuf_mmap(g->sem_page, vma);
	encd_gcomm_put(g);
	return err;
}

static const struct file_operations encd_fops = {
	.owner = THIS_MODULE,
	.open = encd_fops_open,
	.release = encd_fops_release,
	.unlocked_ioctl = encd_fops_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = encd_fops_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice encd_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = ENCD_DEVICE_NAME,
	.fops = &encd_fops,
	.mode = 0600,
};

int encd_cdev_init(void)
{
	return misc_register(&encd_misc);
}

void encd_cdev_exit(void)
{
	misc_deregister(&encd_misc);
}
