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
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "bootstrap.h"
#include "cdev.h"
#include "gcomm.h"
#include "program.h"
#include "registry.h"
#include "sembuf.h"
#include "topology.h"

int encd_fail(struct encd_ucmd *ucmd, int err, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(ucmd->msg, sizeof(ucmd->msg), fmt, args);
	va_end(args);
	pr_info_ratelimited("%s (%d)\n", ucmd->msg, err);
	return err;
}

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

/* Hands the caller the sentence behind a failure, if it asked for one. */
static void ucmd_report(struct encd_ucmd *ucmd)
{
	struct encd_head *head = ucmd_head(ucmd);
	size_t len;

	if (!head->msg_len || !ucmd->msg[0])
		return;
	len = min_t(size_t, strlen(ucmd->msg) + 1, head->msg_len);
	ucmd->msg[len - 1] = '\0';
	/* The caller's buffer is advisory: a bad one cannot mask the error. */
	if (copy_to_user(u64_to_user_ptr(head->msg_uptr), ucmd->msg, len))
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
		enc_glb_comm_unhold(nec_dev, ctx_id);
}

static int check_vnc_ctx(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id, struct enc_vcore *vcore)
{
	if (enc_topology_get_vcore(vnc, vcore))
		return encd_fail(ucmd, -ENODEV, "Failed to find core %u", vnc);
	if (ctx_id >= ENCD_MAX_CONTEXTS)
		return encd_fail(ucmd, -EINVAL, "Invalid context id %u (there are %u)",
				 ctx_id, ENCD_MAX_CONTEXTS);
	return 0;
}

static int encd_ioctl_version(struct encd_ucmd *ucmd)
{
	struct encd_version *cmd = ucmd->cmd;

	cmd->api_version = ENCD_API_VERSION;
	cmd->num_vcores = enc_topology_num_vcores();
	cmd->max_contexts = ENCD_MAX_CONTEXTS;
	cmd->sem_values_size = ENCD_SEM_VALUES_SIZE;
	return encd_ucmd_respond(ucmd, sizeof(*cmd));
}

typedef int (*gcomm_fn)(struct encd_ucmd *ucmd, const struct enc_gcomm_args *a,
			struct enc_glb_comm **gp, bool *created);

static int gcomm_request(struct encd_ucmd *ucmd, gcomm_fn fn)
{
	struct encd_global_comm_req *cmd = ucmd->cmd;
	struct enc_gcomm_args args = {
		.vnc = cmd->vnc,
		.g_device_id = cmd->g_device_id,
		.g_device_cnt = cmd->g_device_cnt,
		.ctx_id = cmd->ctx_id,
		.root_comm_id = cmd->root_comm_id,
		.check_sigs = cmd->head.flags & ENCD_GCOMM_CHECK_SIGS,
	};
	struct enc_glb_comm *g;
	bool created;
	int err;

	if (!memchr(cmd->root_comm_id, '\0', sizeof(cmd->root_comm_id)))
		return encd_fail(ucmd, -EINVAL, "root_comm_id is longer than %d bytes",
				 ENCD_ROOT_COMM_ID_MAX - 1);

	err = fn(ucmd, &args, &g, &created);
	if (err)
		return err;

	file_hold(ucmd->file, g->nec_dev_id, g->ctx_id);
	cmd->out_flags = created ? ENCD_GCOMM_OUT_CREATED : 0;
	cmd->nec_dev_id = g->nec_dev_id;
	enc_glb_comm_put(g);
	/*
	 * The fd holds the comm even if the answer cannot be copied back:
	 * RELEASE or close lets go of it as of any other.
	 */
	return encd_ucmd_respond(ucmd, sizeof(*cmd));
}

static int encd_ioctl_build(struct encd_ucmd *ucmd)
{
	return gcomm_request(ucmd, enc_init_global_comm);
}

static int encd_ioctl_validate(struct encd_ucmd *ucmd)
{
	return gcomm_request(ucmd, enc_validate_global_comm);
}

static int encd_ioctl_get(struct encd_ucmd *ucmd)
{
	struct encd_get_global_comm *cmd = ucmd->cmd;
	struct enc_glb_comm *g;
	struct enc_vcore vcore;
	int err;

	err = check_vnc_ctx(ucmd, cmd->vnc, cmd->ctx_id, &vcore);
	if (err)
		return err;
	g = encd_get_global_comm(vcore.nec_dev_id, cmd->ctx_id);
	if (!g)
		return encd_fail(ucmd, -ENOENT, "No global comm on core %u context %u",
				 cmd->vnc, cmd->ctx_id);
	enc_glb_comm_fill_header(g, &cmd->hdr);
	enc_glb_comm_put(g);
	return encd_ucmd_respond(ucmd, sizeof(*cmd));
}

static int encd_ioctl_release(struct encd_ucmd *ucmd)
{
	struct encd_release_global_comm *cmd = ucmd->cmd;
	struct encd_file *file = ucmd->file;
	struct enc_vcore vcore;
	bool held;
	int err;

	err = check_vnc_ctx(ucmd, cmd->vnc, cmd->ctx_id, &vcore);
	if (err)
		return err;

	mutex_lock(&file->lock);
	held = test_and_clear_bit(encd_slot(vcore.nec_dev_id, cmd->ctx_id), file->held);
	mutex_unlock(&file->lock);
	if (!held)
		return encd_fail(ucmd, -ENOENT,
				 "This file does not hold the global comm of core %u context %u",
				 cmd->vnc, cmd->ctx_id);
	enc_bootstrap_release(file, vcore.nec_dev_id, cmd->ctx_id);
	enc_glb_comm_unhold(vcore.nec_dev_id, cmd->ctx_id);
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
	IOCTL_OP(ENCD_IOC_PROGRAM_LOAD, enc_program_ioctl_load, struct encd_program_load,
		 prog_len, 0),
	IOCTL_OP(ENCD_IOC_PROGRAM_SIGN, enc_program_ioctl_sign, struct encd_program_sign,
		 ctx_id, ENCD_SIG_ALL_GROUPS),
	IOCTL_OP(ENCD_IOC_PROGRAM_GET_SIGNATURES, enc_program_ioctl_get_signatures,
		 struct encd_program_get_signatures, n_stps, 0),
	IOCTL_OP(ENCD_IOC_PROGRAM_SEAL, enc_program_ioctl_seal, struct encd_program_seal,
		 ctx_id, 0),
	IOCTL_OP(ENCD_IOC_SETUP_GLOBAL_COMM, enc_bootstrap_ioctl_setup,
		 struct encd_setup_global_comm, phase_ns, 0),
	IOCTL_OP(ENCD_IOC_INIT_REPLICA_GROUPS, enc_bootstrap_ioctl_init_groups,
		 struct encd_init_replica_groups, __reserved, 0),
	IOCTL_OP(ENCD_IOC_COMM_BARRIER, enc_bootstrap_ioctl_barrier, struct encd_comm_barrier,
		 duration_ns, ENCD_BARRIER_LOCAL),
	IOCTL_OP(ENCD_IOC_NODE_INFO, enc_bootstrap_ioctl_node_info, struct encd_node_info,
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
	if (head->__reserved)
		err = encd_fail(&ucmd, -EINVAL, "encd_head.__reserved must be 0");
	else if (head->flags & ~op->flags)
		err = encd_fail(&ucmd, -EOPNOTSUPP, "Unknown flags 0x%x",
				head->flags & ~op->flags);
	else
		err = op->execute(&ucmd);
	if (err)
		ucmd_report(&ucmd);
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
	enc_program_release_file(file);
	for_each_set_bit(slot, file->held, ENCD_SLOTS) {
		enc_bootstrap_release(file, slot / ENCD_MAX_CONTEXTS, slot % ENCD_MAX_CONTEXTS);
		enc_glb_comm_unhold(slot / ENCD_MAX_CONTEXTS, slot % ENCD_MAX_CONTEXTS);
	}
	mutex_destroy(&file->lock);
	kvfree(file);
	return 0;
}

/* The page offset selects the slot: see ENCD_SEM_MMAP_OFFSET. */
static int encd_fops_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct encd_file *file = filp->private_data;
	struct enc_glb_comm *g;
	unsigned long slot = vma->vm_pgoff;
	u32 nec_dev, ctx_id;
	bool held;
	int err;

	if (slot >= ENCD_SLOTS)
		return -EINVAL;
	nec_dev = slot / ENCD_MAX_CONTEXTS;
	ctx_id = slot % ENCD_MAX_CONTEXTS;

	mutex_lock(&file->lock);
	held = test_bit(slot, file->held);
	mutex_unlock(&file->lock);
	if (!held)
		return -ENOENT;

	/* Held by this fd, so published; a reference keeps it while we map. */
	g = encd_get_global_comm(nec_dev, ctx_id);
	if (!g)
		return -ENOENT;
	err = enc_sembuf_mmap(g->sem_page, vma);
	enc_glb_comm_put(g);
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

int enc_cdev_init(void)
{
	return misc_register(&encd_misc);
}

void enc_cdev_exit(void)
{
	misc_deregister(&encd_misc);
}
