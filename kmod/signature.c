// SPDX-License-Identifier: GPL-2.0
/*
 * The two-level MD5 op-signature of a program: the seed's
 * enc_calculate_signature and md5_enc_op_args, byte for byte as
 * Documentation/signature.rst gives them.
 *
 * Level 1 hashes a group's or stp's id lists and then the fixed-size views
 * of its ops; level 2 hashes the level-1 digests in order. The two levels run
 * side by side: each level-1 digest goes into the level-2 hash as soon as it
 * is final, which is the same as hashing their concatenation without a
 * buffer sized by the program.
 *
 * The views are tiny (16 or 20 bytes), so they are packed into a page and
 * handed to the hash a page at a time: a crypto call per op costs more than
 * the MD5 of the op.
 *
 * One MD5 transform serves every caller: an unkeyed shash keeps all of its
 * state in the per-call descriptor, and looking "md5" up per program would
 * cost more than hashing a small one.
 */
#include <crypto/hash.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cdev.h"
#include "program.h"
#include "signature.h"

#define STREAM_SIZE	PAGE_SIZE
#define VIEW_MAX	20	/* the longest per-op view */

static struct crypto_shash *enc_md5;

/* Little-endian bytes on their way into one level-1 hash. */
struct sig_stream {
	struct shash_desc *desc;
	u8 *buf;
	size_t len;
};

static int stream_flush(struct sig_stream *s)
{
	int err = 0;

	if (s->len)
		err = crypto_shash_update(s->desc, s->buf, s->len);
	s->len = 0;
	return err;
}

/* Makes room for @n more bytes. */
static int stream_room(struct sig_stream *s, size_t n)
{
	return s->len + n > STREAM_SIZE ? stream_flush(s) : 0;
}

static void put32(struct sig_stream *s, u32 v)
{
	__le32 le = cpu_to_le32(v);

	memcpy(s->buf + s->len, &le, sizeof(le));
	s->len += sizeof(le);
}

static void put64(struct sig_stream *s, u64 v)
{
	__le64 le = cpu_to_le64(v);

	memcpy(s->buf + s->len, &le, sizeof(le));
	s->len += sizeof(le);
}

static int put_ids(struct sig_stream *s, const struct enc_ids *ids)
{
	u32 i;
	int err;

	for (i = 0; i < ids->n; i++) {
		err = stream_room(s, sizeof(u32));
		if (err)
			return err;
		put32(s, ids->id[i]);
	}
	return 0;
}

/*
 * md5_enc_op_args. RECV is hashed as a SEND carrying this rank's global
 * device id, which is what its sender hashes as the target (the stp
 * projection's peer, or the group projection's channel): so the two ends of
 * a point-to-point edge agree.
 */
static int put_op(struct sig_stream *s, const struct enc_op *op, bool stp_view, u32 g_device_id)
{
	int err = stream_room(s, VIEW_MAX);

	if (err)
		return err;
	switch (op->op) {
	case ENCD_OP_SEND:
		put32(s, ENCD_OP_SEND);
		put64(s, op->size_n);
		put32(s, stp_view ? op->peer : op->channel);
		break;
	case ENCD_OP_RECV:
		put32(s, ENCD_OP_SEND);
		put64(s, op->size_n);
		put32(s, g_device_id);
		break;
	default:
		put32(s, op->op);
		put64(s, op->size_n);
		put32(s, op->dtype);
		put32(s, op->alg);
		break;
	}
	return 0;
}

/* One level-1 digest: @n_lists id lists, then the ops chained from @first_op. */
static int hash_owner(struct sig_stream *s, const struct enc_program *prog,
		      const struct enc_ids *lists, u32 n_lists, u32 first_op, bool stp_view,
		      u8 *out)
{
	u32 i;
	int err;

	err = crypto_shash_init(s->desc);
	for (i = 0; !err && i < n_lists; i++)
		err = put_ids(s, &lists[i]);
	for (i = first_op; !err && i != ENC_OP_NONE; i = prog->ops[i].next)
		err = put_op(s, &prog->ops[i], stp_view, prog->g_device_id);
	if (!err)
		err = stream_flush(s);
	return err ?: crypto_shash_final(s->desc, out);
}

static int sign(struct sig_stream *s, struct shash_desc *outer, struct enc_program *prog,
		u32 flags)
{
	u32 n_hashed = 0, i;
	int err;

	err = crypto_shash_init(outer);
	for (i = 0; !err && i < prog->n_groups; i++) {
		struct enc_replica_group *rg = &prog->groups[i];

		/* The seed hashes sendrecv groups only; see signature.rst. */
		rg->hashed = rg->rank == -1 || (flags & ENCD_SIG_ALL_GROUPS);
		memset(rg->signature, 0, sizeof(rg->signature));
		if (!rg->hashed)
			continue;
		err = hash_owner(s, prog, &rg->participants, 1, rg->first_op, false,
				 rg->signature);
		if (!err)
			err = crypto_shash_update(outer, rg->signature, sizeof(rg->signature));
		n_hashed++;
	}
	for (i = 0; !err && i < prog->n_stps; i++) {
		struct enc_src_target_pairs *stp = &prog->stps[i];

		stp->hashed = true;
		err = hash_owner(s, prog, stp->pairs, stp->n_pairs, stp->first_op, true,
				 stp->signature);
		if (!err)
			err = crypto_shash_update(outer, stp->signature, sizeof(stp->signature));
		n_hashed++;
	}
	if (err)
		return err;
	/* Nothing to hash: the seed leaves the global signature zero. */
	if (!n_hashed) {
		memset(prog->signature, 0, sizeof(prog->signature));
		return 0;
	}
	return crypto_shash_final(outer, prog->signature);
}

int enc_calculate_signature(struct encd_ucmd *ucmd, struct enc_program *prog, u32 flags)
{
	size_t desc_size = sizeof(struct shash_desc) + crypto_shash_descsize(enc_md5);
	struct shash_desc *inner, *outer;
	struct sig_stream s = {};
	int err;

	if (prog->state != ENCD_PROGRAM_PARSE)
		return encd_fail(ucmd, -EINVAL, "cannot calculate CC signature: not in parse state");

	inner = kzalloc(2 * desc_size, GFP_KERNEL);
	s.buf = kmalloc(STREAM_SIZE, GFP_KERNEL);
	if (!inner || !s.buf) {
		err = encd_fail(ucmd, -ENOMEM, "Out of memory calculating a CC signature");
		goto out;
	}
	outer = (void *)inner + desc_size;
	inner->tfm = enc_md5;
	outer->tfm = enc_md5;
	s.desc = inner;

	prog->is_signed = false;
	err = sign(&s, outer, prog, flags);
	if (err) {
		encd_fail(ucmd, err, "MD5 failed calculating a CC signature");
		goto out;
	}
	prog->is_signed = true;
	prog->sig_flags = flags;
out:
	kfree(inner);
	kfree(s.buf);
	return err;
}

int enc_signature_init(void)
{
	enc_md5 = crypto_alloc_shash("md5", 0, 0);
	if (IS_ERR(enc_md5)) {
		int err = PTR_ERR(enc_md5);

		pr_err("no md5 in the kernel crypto API (%d)\n", err);
		enc_md5 = NULL;
		return err;
	}
	return 0;
}

void enc_signature_exit(void)
{
	crypto_free_shash(enc_md5);
}
