// SPDX-License-Identifier: GPL-2.0
/*
 * The two-level MD5 op-signature of a program: libnrt's
 * enc_calculate_signature and md5_enc_op_args, byte for byte as
 * Documentation/signature.rst gives them.
 *
 * Level 1 hashes a group's or stp's id lists and then the fixed-size views
 * of its ops; level 2 hashes the level-1 digests in order. The two levels run
 * side by side: each level-1 digest goes into the level-2 hash as soon as it
 * is final, which is the same as hashing their concatenation without a
 * buffer sized by the program.
 *
 * The bytes a level-1 digest covers depend only on the program and on this
 * rank's global device id, both fixed when the program is loaded, so they
 * are laid out then (encd_signature_prepare()). Signing is one MD5 per group
 * and stp over contiguous bytes, plus the level-2 MD5: as fast as the
 * kernel's MD5 goes. Building the 16- and 20-byte views at signing time
 * would cost about as much again as hashing them.
 *
 * One MD5 transform serves every caller: an unkeyed shash keeps all of its
 * state in the per-call descriptor, and looking "md5" up per program would
 * cost more than hashing a small one.
 */
#include <crypto/hash.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "encd_private.h"

static struct crypto_shash *encd_md5;

static u8 *put32(u8 *p, u32 v)
{
	__le32 le = cpu_to_le32(v);

	memcpy(p, &le, sizeof(le));
	return p + sizeof(le);
}

static u8 *put64(u8 *p, u64 v)
{
	__le64 le = cpu_to_le64(v);

	memcpy(p, &le, sizeof(le));
	return p + sizeof(le);
}

static size_t view_len(const struct encd_queue_op *op)
{
	return op->op == ENCD_OP_SEND || op->op == ENCD_OP_RECV ? 16 : 20;
}

/*
 * md5_enc_op_args. RECV is hashed as a SEND carrying this rank's global
 * device id, which is what its sender hashes as the target (the stp
 * projection's peer, or the group projection's channel): so the two ends of
 * a point-to-point edge agree.
 */
static u8 *put_op(u8 *p, const struct encd_queue_op *op, bool stp_view, u32 g_device_id)
{
	switch (op->op) {
	case ENCD_OP_SEND:
		p = put32(p, ENCD_OP_SEND);
		p = put64(p, op->size_n);
		return put32(p, stp_view ? op->peer : op->channel);
	case ENCD_OP_RECV:
		p = put32(p, ENCD_OP_SEND);
		p = put64(p, op->size_n);
		return put32(p, g_device_id);
	default:
		p = put32(p, op->op);
		p = put64(p, op->size_n);
		p = put32(p, op->dtype);
		return put32(p, op->alg);
	}
}

/* The length of one owner's bytes: @n_lists id lists, then its ops. */
static size_t owner_len(const struct encd_program *prog, const struct encd_ids *lists,
			u32 n_lists, u32 first_op)
{
	size_t len = 0;
	u32 i;

	for (i = 0; i < n_lists; i++)
		len += lists[i].n * sizeof(u32);
	for (i = first_op; i != ENCD_OP_CHAIN_END; i = prog->ops[i].next)
		len += view_len(&prog->ops[i]);
	return len;
}

static u8 *put_owner(u8 *p, const struct encd_program *prog, const struct encd_ids *lists,
		     u32 n_lists, u32 first_op, bool stp_view)
{
	u32 i, j;

	for (i = 0; i < n_lists; i++)
		for (j = 0; j < lists[i].n; j++)
			p = put32(p, lists[i].id[j]);
	for (i = first_op; i != ENCD_OP_CHAIN_END; i = prog->ops[i].next)
		p = put_op(p, &prog->ops[i], stp_view, prog->g_device_id);
	return p;
}

/**
 * encd_signature_prepare() - lays out what each level-1 digest covers
 * @prog: a parsed program
 *
 * The bytes depend only on the program and this rank's global device id,
 * both fixed at load, so they are laid out once.
 *
 * Return: 0 or -ENOMEM.
 */
int encd_signature_prepare(struct encd_program *prog)
{
	size_t total = 0;
	u8 *p;
	u32 i;

	for (i = 0; i < prog->n_groups; i++) {
		struct encd_replica_group *rg = &prog->groups[i];

		rg->sig_off = total;
		rg->sig_len = owner_len(prog, &rg->participants, 1, rg->first_op);
		total += rg->sig_len;
	}
	for (i = 0; i < prog->n_stps; i++) {
		struct encd_src_target_pairs *stp = &prog->stps[i];

		stp->sig_off = total;
		stp->sig_len = owner_len(prog, stp->pairs, stp->n_pairs, stp->first_op);
		total += stp->sig_len;
	}

	p = kvmalloc(total ?: 1, GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	prog->sig_bytes = p;
	for (i = 0; i < prog->n_groups; i++) {
		struct encd_replica_group *rg = &prog->groups[i];

		p = put_owner(p, prog, &rg->participants, 1, rg->first_op, false);
	}
	for (i = 0; i < prog->n_stps; i++) {
		struct encd_src_target_pairs *stp = &prog->stps[i];

		p = put_owner(p, prog, stp->pairs, stp->n_pairs, stp->first_op, true);
	}
	return 0;
}

static int sign(struct shash_desc *inner, struct shash_desc *outer, struct encd_program *prog,
		u32 flags)
{
	u32 n_hashed = 0, i;
	int err;

	err = crypto_shash_init(outer);
	for (i = 0; !err && i < prog->n_groups; i++) {
		struct encd_replica_group *rg = &prog->groups[i];

		/* libnrt hashes sendrecv groups only; see signature.rst. */
		rg->hashed = rg->rank == -1 || (flags & ENCD_SIG_ALL_GROUPS);
		memset(rg->signature, 0, sizeof(rg->signature));
		if (!rg->hashed)
			continue;
		err = crypto_shash_digest(inner, prog->sig_bytes + rg->sig_off, rg->sig_len,
					  rg->signature);
		if (!err)
			err = crypto_shash_update(outer, rg->signature, sizeof(rg->signature));
		n_hashed++;
	}
	for (i = 0; !err && i < prog->n_stps; i++) {
		struct encd_src_target_pairs *stp = &prog->stps[i];

		stp->hashed = true;
		err = crypto_shash_digest(inner, prog->sig_bytes + stp->sig_off, stp->sig_len,
					  stp->signature);
		if (!err)
			err = crypto_shash_update(outer, stp->signature, sizeof(stp->signature));
		n_hashed++;
	}
	if (err)
		return err;
	/*
	 * Nothing to hash: libnrt asserts that it hashed something and would
	 * abort; encd leaves the global signature zero (signature.rst).
	 */
	if (!n_hashed) {
		memset(prog->signature, 0, sizeof(prog->signature));
		return 0;
	}
	return crypto_shash_final(outer, prog->signature);
}

/**
 * encd_program_sign() - libnrt's enc_calculate_signature
 * @ucmd: the command, for the failure sentence
 * @prog: the program; the caller holds the lock that guards it
 * @flags: ENCD_SIG_ALL_GROUPS to hash collective groups too
 *
 * The two-level MD5 op-signature (Documentation/signature.rst), stored in
 * each hashed group and stp and in the program. Only in the PARSE state.
 *
 * Return: 0, or -EINVAL "cannot calculate CC signature: not in parse
 * state", -ENOMEM, or the crypto API's error.
 */
int encd_program_sign(struct encd_ucmd *ucmd, struct encd_program *prog, u32 flags)
{
	size_t desc_size = sizeof(struct shash_desc) + crypto_shash_descsize(encd_md5);
	struct shash_desc *inner, *outer;
	int err;

	lockdep_assert_held(&ucmd->file->lock);
	if (prog->state != ENCD_PROGRAM_PARSE)
		return encd_fail(ucmd, -EINVAL, "cannot calculate CC signature: not in parse state");

	inner = kzalloc(2 * desc_size, GFP_KERNEL);
	if (!inner)
		return encd_fail(ucmd, -ENOMEM, "Out of memory calculating a CC signature");
	outer = (void *)inner + desc_size;
	inner->tfm = encd_md5;
	outer->tfm = encd_md5;

	prog->is_signed = false;
	err = sign(inner, outer, prog, flags);
	kfree(inner);
	if (err)
		return encd_fail_why(ucmd, err, ENCD_REASON_INTERNAL,
				     "MD5 failed calculating a CC signature");
	prog->is_signed = true;
	prog->sig_flags = flags;
	return 0;
}

/**
 * encd_signature_init() - allocates the module's MD5 transform
 *
 * Return: 0 or the crypto API's error.
 */
int encd_signature_init(void)
{
	encd_md5 = crypto_alloc_shash("md5", 0, 0);
	if (IS_ERR(encd_md5)) {
		int err = PTR_ERR(encd_md5);

		pr_err("no md5 in the kernel crypto API (%d)\n", err);
		encd_md5 = NULL;
		return err;
	}
	return 0;
}

/**
 * encd_signature_exit() - frees the module's MD5 transform
 */
void encd_signature_exit(void)
{
	crypto_free_shash(encd_md5);
}
