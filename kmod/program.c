// SPDX-License-Identifier: GPL-2.0
/*
 * A loaded collective program: what a NEFF declares about its collectives
 * (replica groups, src-target-pair sets, the op queue), read from the binary
 * description of uapi/linux/encd.h and kept per open file and slot.
 *
 * Nothing in a description is trusted. The counts are checked against its
 * length before anything else is read; every list must start exactly where
 * the one before it ended, so lists can neither overlap nor leave holes; and
 * every id is checked against the world of the global comm the program is
 * loaded for. The kernel keeps a native copy and drops the caller's bytes.
 *
 * Locking: a file's programs are guarded by that file's lock (encd_file.lock),
 * which also guards what it holds. Nothing here touches user memory under
 * that lock: the fd's mmap handler takes it with mmap_lock held, so a fault
 * under it could deadlock.
 */
#include <linux/bsearch.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "encd_private.h"

#define GROUP_FLAGS	(ENCD_PROG_GROUP_SENDRECV | ENCD_PROG_GROUP_NCCL_MESH_SUPPORTED | \
			 ENCD_PROG_GROUP_MUST_USE_RING_ALG)

/* Lists at most this long are checked for repeats without sorting. */
#define SMALL_LIST	16

struct stp_key {
	u32 id;
	u32 idx;
};

/* One parse of one description. */
struct parser {
	struct encd_ucmd *ucmd;
	struct encd_program *prog;
	const struct encd_prog_group *groups;
	const struct encd_prog_stp *stps;
	const struct encd_prog_vec *pairs;
	const struct encd_prog_op *ops;
	u32 id_cursor;		/* where the next list must start */
	u32 pair_cursor;	/* where the next stp's pairs must start */
	u32 *scratch;		/* a sorted copy of a long list */
	u32 scratch_n;
	struct stp_key *stp_keys;	/* sorted by id */
};

#define bad(ps, fmt, ...) \
	encd_fail_why((ps)->ucmd, -EINVAL, ENCD_REASON_BAD_PROGRAM, "Invalid program: " fmt, \
		      ##__VA_ARGS__)

static void program_free(struct encd_program *prog)
{
	if (!prog)
		return;
	kvfree(prog->stps);
	kvfree(prog->pairs);
	kvfree(prog->ops);
	kvfree(prog->ids);
	kvfree(prog->sig_bytes);
	encd_gcomm_put(prog->g);
	kfree(prog);
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static int cmp_stp_key(const void *a, const void *b)
{
	return cmp_u32(&((const struct stp_key *)a)->id, &((const struct stp_key *)b)->id);
}

/* Whether @ids repeats an id; *@dup gets it. -ENOMEM if it cannot tell. */
static int find_repeat(struct parser *ps, const u32 *ids, u32 n, u32 *dup)
{
	u32 i, j;

	if (n <= SMALL_LIST) {
		for (i = 1; i < n; i++)
			for (j = 0; j < i; j++)
				if (ids[i] == ids[j]) {
					*dup = ids[i];
					return 1;
				}
		return 0;
	}
	if (n > ps->scratch_n) {
		kvfree(ps->scratch);
		ps->scratch_n = 0;
		ps->scratch = kvmalloc_array(n, sizeof(u32), GFP_KERNEL_ACCOUNT);
		if (!ps->scratch)
			return -ENOMEM;
		ps->scratch_n = n;
	}
	memcpy(ps->scratch, ids, n * sizeof(u32));
	sort(ps->scratch, n, sizeof(u32), cmp_u32, NULL);
	for (i = 1; i < n; i++)
		if (ps->scratch[i] == ps->scratch[i - 1]) {
			*dup = ps->scratch[i];
			return 1;
		}
	return 0;
}

/*
 * Takes the next list of global device ids out of the pool: it must start
 * where the last one ended, fit, have at least @min_len ids, all in the
 * world and none twice. @fmt names the list in the failure sentence.
 */
static __printf(5, 6) int take_list(struct parser *ps, const struct encd_prog_vec *v,
				    u32 min_len, struct encd_ids *out, const char *fmt, ...)
{
	struct encd_program *prog = ps->prog;
	u32 off = le32_to_cpu(v->off), len = le32_to_cpu(v->len);
	char where[48], why[96];
	const u32 *ids;
	va_list ap;
	u32 i, dup;
	int rep;

	if (off != ps->id_cursor) {
		snprintf(why, sizeof(why), "starts at id %u, not at %u where the list before it ends",
			 off, ps->id_cursor);
		goto fail;
	}
	if (len > prog->n_ids - off) {
		snprintf(why, sizeof(why), "has %u ids from %u, past the end of the %u-id pool",
			 len, off, prog->n_ids);
		goto fail;
	}
	if (len < min_len) {
		snprintf(why, sizeof(why), "has %u ids, fewer than %u", len, min_len);
		goto fail;
	}
	ids = prog->ids + off;
	for (i = 0; i < len; i++)
		if (ids[i] >= prog->g_device_cnt) {
			snprintf(why, sizeof(why), "id %u is not below the world size %u",
				 ids[i], prog->g_device_cnt);
			goto fail;
		}
	rep = find_repeat(ps, ids, len, &dup);
	if (rep < 0)
		return encd_fail(ps->ucmd, rep, "Out of memory checking a program");
	if (rep) {
		snprintf(why, sizeof(why), "has id %u twice", dup);
		goto fail;
	}
	out->id = ids;
	out->n = len;
	ps->id_cursor += len;
	return 0;

fail:
	va_start(ap, fmt);
	vsnprintf(where, sizeof(where), fmt, ap);
	va_end(ap);
	return bad(ps, "%s %s", where, why);
}

/*
 * Checks the header and that the parts the counts announce add up to the
 * length exactly, then locates them.
 */
static int parse_header(struct parser *ps, const void *blob, size_t len)
{
	const struct encd_prog_header *hdr = blob;
	struct encd_program *prog = ps->prog;
	size_t need, at;

	if (len < sizeof(*hdr))
		return bad(ps, "%zu bytes is shorter than the %zu-byte header", len, sizeof(*hdr));
	if (le32_to_cpu(hdr->magic) != ENCD_PROG_MAGIC)
		return bad(ps, "bad magic 0x%08x", le32_to_cpu(hdr->magic));
	if (le16_to_cpu(hdr->version) != ENCD_PROG_VERSION)
		return bad(ps, "version %u, this kernel reads version %u",
			   le16_to_cpu(hdr->version), ENCD_PROG_VERSION);
	if (le16_to_cpu(hdr->header_size) != sizeof(*hdr))
		return bad(ps, "header_size %u, expected %zu", le16_to_cpu(hdr->header_size),
			   sizeof(*hdr));
	if (le32_to_cpu(hdr->total_size) != len)
		return bad(ps, "total_size %u but %zu bytes were given",
			   le32_to_cpu(hdr->total_size), len);
	if (hdr->flags || hdr->__reserved)
		return bad(ps, "header flags and reserved fields must be 0");

	prog->n_groups = le32_to_cpu(hdr->n_groups);
	prog->n_stps = le32_to_cpu(hdr->n_stps);
	prog->n_pairs = le32_to_cpu(hdr->n_pairs);
	prog->n_ops = le32_to_cpu(hdr->n_ops);
	prog->n_ids = le32_to_cpu(hdr->n_ids);
	if (prog->n_groups > ENCD_MAX_COMM_N)
		return bad(ps, "%u replica groups, at most %u", prog->n_groups, ENCD_MAX_COMM_N);

	/* Saturating arithmetic: any overflow ends up unequal to len. */
	need = sizeof(*hdr);
	need = size_add(need, array_size(prog->n_groups, sizeof(*ps->groups)));
	need = size_add(need, array_size(prog->n_stps, sizeof(*ps->stps)));
	need = size_add(need, array_size(prog->n_pairs, sizeof(*ps->pairs)));
	need = size_add(need, array_size(prog->n_ops, sizeof(*ps->ops)));
	need = size_add(need, array_size(prog->n_ids, sizeof(__le32)));
	if (need != len)
		return bad(ps, "counts (%u groups, %u stps, %u pairs, %u ops, %u ids) need %zu bytes, not %zu",
			   prog->n_groups, prog->n_stps, prog->n_pairs, prog->n_ops,
			   prog->n_ids, need, len);

	at = sizeof(*hdr);
	ps->groups = blob + at;
	at += prog->n_groups * sizeof(*ps->groups);
	ps->stps = blob + at;
	at += prog->n_stps * sizeof(*ps->stps);
	ps->pairs = blob + at;
	at += prog->n_pairs * sizeof(*ps->pairs);
	ps->ops = blob + at;
	at += prog->n_ops * sizeof(*ps->ops);
	return 0;
}

static int alloc_tables(struct parser *ps, const void *blob)
{
	struct encd_program *prog = ps->prog;
	const __le32 *raw;
	u32 i;

	prog->stps = kvcalloc(prog->n_stps, sizeof(*prog->stps), GFP_KERNEL_ACCOUNT);
	prog->pairs = kvcalloc(prog->n_pairs, sizeof(*prog->pairs), GFP_KERNEL_ACCOUNT);
	prog->ops = kvcalloc(prog->n_ops, sizeof(*prog->ops), GFP_KERNEL_ACCOUNT);
	prog->ids = kvcalloc(prog->n_ids, sizeof(*prog->ids), GFP_KERNEL_ACCOUNT);
	ps->stp_keys = kvcalloc(prog->n_stps, sizeof(*ps->stp_keys), GFP_KERNEL_ACCOUNT);
	if (!prog->stps || !prog->pairs || !prog->ops || !prog->ids || !ps->stp_keys)
		return encd_fail(ps->ucmd, -ENOMEM, "Out of memory for a program of %u ops",
				 prog->n_ops);

	raw = (const __le32 *)(ps->ops + prog->n_ops);
	for (i = 0; i < prog->n_ids; i++)
		prog->ids[i] = le32_to_cpu(raw[i]);
	return 0;
}

static int parse_group(struct parser *ps, u32 i, u16 *seen)
{
	const struct encd_prog_group *in = &ps->groups[i];
	struct encd_replica_group *rg = &ps->prog->groups[i];
	int err;

	rg->group_id = le32_to_cpu(in->group_id);
	rg->rank = (s32)le32_to_cpu(in->rank);
	rg->rank_n = le32_to_cpu(in->rank_n);
	rg->src_target_pairs_id = (s32)le32_to_cpu(in->src_target_pairs_id);
	rg->stp_idx = U32_MAX;
	rg->num_ops = le32_to_cpu(in->num_ops);
	rg->stream_id = le32_to_cpu(in->stream_id);
	rg->bootstrap_rank = le32_to_cpu(in->bootstrap_rank);
	rg->flags = le32_to_cpu(in->flags);
	rg->first_op = ENCD_OP_CHAIN_END;
	rg->last_op = ENCD_OP_CHAIN_END;

	if (rg->group_id >= ENCD_MAX_COMM_N)
		return bad(ps, "group_id %u is not below %u", rg->group_id, ENCD_MAX_COMM_N);
	if (*seen & BIT(rg->group_id))
		return bad(ps, "group_id %u appears twice", rg->group_id);
	*seen |= BIT(rg->group_id);
	if (!rg->rank_n)
		return bad(ps, "group %u has rank_n 0", rg->group_id);
	if (rg->rank != -1 && (rg->rank < 0 || (u32)rg->rank >= rg->rank_n))
		return bad(ps, "group %u rank %d is neither -1 nor below rank_n %u",
			   rg->group_id, rg->rank, rg->rank_n);
	if (rg->flags & ~GROUP_FLAGS)
		return bad(ps, "group %u has unknown flags 0x%x", rg->group_id,
			   rg->flags & ~GROUP_FLAGS);
	if (!(rg->flags & ENCD_PROG_GROUP_SENDRECV) != (rg->rank != -1))
		return bad(ps, "group %u is %sa sendrecv group but its rank is %d",
			   rg->group_id, rg->flags & ENCD_PROG_GROUP_SENDRECV ? "" : "not ",
			   rg->rank);
	if (rg->stream_id >= ENCD_MAX_STREAM_N)
		return bad(ps, "group %u stream_id %u is not below %u", rg->group_id,
			   rg->stream_id, ENCD_MAX_STREAM_N);
	if (rg->bootstrap_rank >= rg->rank_n)
		return bad(ps, "group %u bootstrap_rank %u is not below rank_n %u",
			   rg->group_id, rg->bootstrap_rank, rg->rank_n);

	err = take_list(ps, &in->participants, 1, &rg->participants,
			"group %u participants", rg->group_id);
	if (err)
		return err;
	err = take_list(ps, &in->bootstrap_participants, 1, &rg->bootstrap_participants,
			"group %u bootstrap_participants", rg->group_id);
	if (err)
		return err;
	if (rg->bootstrap_participants.n != rg->rank_n)
		return bad(ps, "group %u has %u bootstrap_participants, rank_n is %u",
			   rg->group_id, rg->bootstrap_participants.n, rg->rank_n);
	return 0;
}

static int parse_stp(struct parser *ps, u32 i)
{
	const struct encd_prog_stp *in = &ps->stps[i];
	struct encd_src_target_pairs *stp = &ps->prog->stps[i];
	struct encd_ids *pairs;
	u32 off, j;
	int err;

	stp->id = le32_to_cpu(in->id);
	stp->first_op = ENCD_OP_CHAIN_END;
	stp->last_op = ENCD_OP_CHAIN_END;
	if (stp->id > S32_MAX)
		return bad(ps, "stp id %u is above %d", stp->id, S32_MAX);
	if (in->__reserved)
		return bad(ps, "stp %u reserved field must be 0", stp->id);
	ps->stp_keys[i].id = stp->id;
	ps->stp_keys[i].idx = i;

	err = take_list(ps, &in->participants, 1, &stp->participants,
			"stp %u participants", stp->id);
	if (err)
		return err;

	off = le32_to_cpu(in->pairs.off);
	stp->n_pairs = le32_to_cpu(in->pairs.len);
	if (off != ps->pair_cursor)
		return bad(ps, "stp %u pairs start at %u, not at %u where the stp before ends",
			   stp->id, off, ps->pair_cursor);
	if (stp->n_pairs > ps->prog->n_pairs - off)
		return bad(ps, "stp %u has %u pairs from %u, past the end of the %u-pair table",
			   stp->id, stp->n_pairs, off, ps->prog->n_pairs);
	if (!stp->n_pairs)
		return bad(ps, "stp %u has no pairs", stp->id);
	ps->pair_cursor += stp->n_pairs;

	pairs = ps->prog->pairs + off;
	stp->pairs = pairs;
	for (j = 0; j < stp->n_pairs; j++) {
		err = take_list(ps, &ps->pairs[off + j], 2, &pairs[j],
				"stp %u pair %u", stp->id, j);
		if (err)
			return err;
	}
	return 0;
}

static struct stp_key *find_stp(struct parser *ps, u32 id)
{
	struct stp_key key = { .id = id };

	return bsearch(&key, ps->stp_keys, ps->prog->n_stps, sizeof(key), cmp_stp_key);
}

/* Sorts the stp ids so that ops can name them in O(log n), and finds repeats. */
static int index_stps(struct parser *ps)
{
	struct encd_program *prog = ps->prog;
	struct stp_key *k;
	u32 i;

	sort(ps->stp_keys, prog->n_stps, sizeof(*ps->stp_keys), cmp_stp_key, NULL);
	for (i = 1; i < prog->n_stps; i++)
		if (ps->stp_keys[i].id == ps->stp_keys[i - 1].id)
			return bad(ps, "stp id %u appears twice", ps->stp_keys[i].id);

	for (i = 0; i < prog->n_groups; i++) {
		struct encd_replica_group *rg = &prog->groups[i];

		if (rg->src_target_pairs_id == -1)
			continue;
		k = rg->src_target_pairs_id < 0 ? NULL : find_stp(ps, rg->src_target_pairs_id);
		if (!k)
			return bad(ps, "group %u src_target_pairs_id %d names no stp",
				   rg->group_id, rg->src_target_pairs_id);
		rg->stp_idx = k->idx;
	}
	return 0;
}

/* Appends op @i to its owner's chain. */
static void chain_op(struct encd_program *prog, u32 *first, u32 *last, u32 i)
{
	if (*last == ENCD_OP_CHAIN_END)
		*first = i;
	else
		prog->ops[*last].next = i;
	*last = i;
}

static int parse_ops(struct parser *ps)
{
	struct encd_program *prog = ps->prog;
	struct encd_replica_group *by_id[ENCD_MAX_COMM_N] = {};
	u32 counted[ENCD_MAX_COMM_N] = {};
	u32 i;

	for (i = 0; i < prog->n_groups; i++)
		by_id[prog->groups[i].group_id] = &prog->groups[i];

	for (i = 0; i < prog->n_ops; i++) {
		const struct encd_prog_op *in = &ps->ops[i];
		struct encd_queue_op *op = &prog->ops[i];
		u32 flags = le32_to_cpu(in->flags);
		u32 owner = le32_to_cpu(in->owner);

		op->op = le32_to_cpu(in->op);
		op->size_n = le64_to_cpu(in->size_n);
		op->peer = le32_to_cpu(in->peer);
		op->dtype = le32_to_cpu(in->dtype);
		op->alg = le32_to_cpu(in->alg);
		op->channel = le32_to_cpu(in->channel);
		op->next = ENCD_OP_CHAIN_END;

		if (op->op < ENCD_OP_ALL_REDUCE || op->op > ENCD_OP_BROADCAST)
			return bad(ps, "op %u has unknown op code %u", i, op->op);
		if (flags & ~ENCD_PROG_OP_STP)
			return bad(ps, "op %u has unknown flags 0x%x", i, flags & ~ENCD_PROG_OP_STP);
		if (in->__reserved)
			return bad(ps, "op %u reserved field must be 0", i);
		if (op->peer >= prog->g_device_cnt)
			return bad(ps, "op %u peer %u is not below the world size %u", i,
				   op->peer, prog->g_device_cnt);

		if (flags & ENCD_PROG_OP_STP) {
			struct stp_key *k = find_stp(ps, owner);
			struct encd_src_target_pairs *stp;

			if (!k)
				return bad(ps, "op %u names stp %u, which does not exist", i, owner);
			stp = &prog->stps[k->idx];
			chain_op(prog, &stp->first_op, &stp->last_op, i);
		} else {
			struct encd_replica_group *rg;

			rg = owner < ENCD_MAX_COMM_N ? by_id[owner] : NULL;
			if (!rg)
				return bad(ps, "op %u names group %u, which does not exist", i, owner);
			chain_op(prog, &rg->first_op, &rg->last_op, i);
			counted[owner]++;
		}
	}

	for (i = 0; i < prog->n_groups; i++) {
		struct encd_replica_group *rg = &prog->groups[i];

		if (rg->num_ops != counted[rg->group_id])
			return bad(ps, "group %u says num_ops %u but %u ops name it",
				   rg->group_id, rg->num_ops, counted[rg->group_id]);
	}
	return 0;
}

static int parse_lists(struct parser *ps)
{
	struct encd_program *prog = ps->prog;
	u16 seen = 0;
	u32 i;
	int err;

	for (i = 0; i < prog->n_groups; i++) {
		err = parse_group(ps, i, &seen);
		if (err)
			return err;
	}
	for (i = 0; i < prog->n_stps; i++) {
		err = parse_stp(ps, i);
		if (err)
			return err;
	}
	if (ps->id_cursor != prog->n_ids)
		return bad(ps, "ids %u..%u of the pool belong to no list", ps->id_cursor,
			   prog->n_ids - 1);
	if (ps->pair_cursor != prog->n_pairs)
		return bad(ps, "pairs %u..%u of the table belong to no stp", ps->pair_cursor,
			   prog->n_pairs - 1);
	return 0;
}

/*
 * Reads a description of @len bytes into a new program bound to @g (the
 * program takes its own reference) in the PARSE state.
 */
static int program_parse(struct encd_ucmd *ucmd, const void *blob, size_t len,
			 struct encd_gcomm *g, struct encd_program **progp)
{
	struct parser ps = { .ucmd = ucmd };
	struct encd_program *prog;
	int err;

	prog = kzalloc(sizeof(*prog), GFP_KERNEL_ACCOUNT);
	if (!prog)
		return encd_fail(ucmd, -ENOMEM, "Out of memory for a program");
	prog->state = ENCD_PROGRAM_PARSE;
	prog->g = encd_gcomm_get(g);
	prog->g_device_id = g->g_device_id;
	prog->g_device_cnt = g->g_device_cnt;
	ps.prog = prog;

	err = parse_header(&ps, blob, len);
	if (!err)
		err = alloc_tables(&ps, blob);
	if (!err)
		err = parse_lists(&ps);
	if (!err)
		err = index_stps(&ps);
	if (!err)
		err = parse_ops(&ps);
	if (!err && encd_signature_prepare(prog))
		err = encd_fail(ucmd, -ENOMEM, "Out of memory for the signature of a program of %u ops",
				prog->n_ops);

	kvfree(ps.scratch);
	kvfree(ps.stp_keys);
	if (err) {
		program_free(prog);
		return err;
	}
	*progp = prog;
	return 0;
}

/**
 * encd_program_find() - the program a file loaded on a core and context
 * @ucmd: the command; its failure sentence is set on error
 * @vnc: the virtual NeuronCore the caller named
 * @ctx_id: the context the caller named
 *
 * The program must still be bound to the global comm the file holds there.
 * The caller holds ucmd->file->lock for as long as it uses the program.
 *
 * Return: the program, or an ERR_PTR() (-ENODEV, -EINVAL, -ENOENT).
 */
struct encd_program *encd_program_find(struct encd_ucmd *ucmd, u32 vnc, u32 ctx_id)
{
	struct encd_file *file = ucmd->file;
	struct encd_program *prog;
	struct encd_gcomm *g;
	unsigned int slot;
	int err;

	lockdep_assert_held(&file->lock);
	err = encd_ucmd_slot(ucmd, vnc, ctx_id, &slot);
	if (err)
		return ERR_PTR(err);
	prog = file->programs[slot];
	if (!prog)
		return ERR_PTR(encd_fail_why(ucmd, -ENOENT, ENCD_REASON_NO_PROGRAM,
					     "No program is loaded on core %u context %u", vnc, ctx_id));
	g = encd_ucmd_get_gcomm(ucmd, vnc, ctx_id, ENCD_UCMD_HELD | ENCD_UCMD_LOCKED);
	if (IS_ERR(g))
		return ERR_CAST(g);
	encd_gcomm_put(g);
	/* Our reference kept prog->g's address from being reused. */
	if (g != prog->g)
		return ERR_PTR(encd_fail(ucmd, -ENOENT,
					 "The global comm the program on core %u context %u was loaded for is gone; load it again",
					 vnc, ctx_id));
	return prog;
}

/**
 * encd_program_seal() - PARSE -> LOADED
 * @ucmd: the command, for the failure sentence
 * @prog: the program; the caller holds its file's lock
 *
 * Return: 0, or -EINVAL in any other state.
 */
int encd_program_seal(struct encd_ucmd *ucmd, struct encd_program *prog)
{
	lockdep_assert_held(&ucmd->file->lock);
	if (prog->state != ENCD_PROGRAM_PARSE)
		return encd_fail(ucmd, -EINVAL, "Cannot seal a program that is not in parse state");
	prog->state = ENCD_PROGRAM_LOADED;
	return 0;
}

/**
 * encd_program_release_file() - frees every program of a file that is going
 * @file: the file; nobody else can reach it any more
 */
void encd_program_release_file(struct encd_file *file)
{
	unsigned int slot;

	for (slot = 0; slot < ENCD_SLOTS; slot++) {
		program_free(file->programs[slot]);
		file->programs[slot] = NULL;
	}
}

/**
 * encd_program_ioctl_load() - ENCD_IOC_PROGRAM_LOAD: parses and keeps a program
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_program_ioctl_load(struct encd_ucmd *ucmd)
{
	struct encd_program_load *cmd = ucmd->cmd;
	struct encd_file *file = ucmd->file;
	struct encd_program *prog = NULL, *old;
	struct encd_gcomm *g;
	unsigned int slot;
	void *blob;
	int err;

	if (cmd->__reserved)
		return encd_fail(ucmd, -EINVAL, "encd_program_load.__reserved must be 0");
	err = encd_ucmd_slot(ucmd, cmd->vnc, cmd->ctx_id, &slot);
	if (err)
		return err;
	if (cmd->prog_len > ENCD_PROG_MAX_SIZE)
		return encd_fail_why(ucmd, -EINVAL, ENCD_REASON_BAD_PROGRAM,
				     "Invalid program: %u bytes, at most %u", cmd->prog_len,
				     ENCD_PROG_MAX_SIZE);
	if (cmd->prog_len < sizeof(struct encd_prog_header))
		return encd_fail_why(ucmd, -EINVAL, ENCD_REASON_BAD_PROGRAM,
				     "Invalid program: %u bytes is shorter than the %zu-byte header",
				     cmd->prog_len, sizeof(struct encd_prog_header));

	/* Copied before the file lock is taken: see the top of this file. */
	blob = kvmalloc(cmd->prog_len, GFP_KERNEL_ACCOUNT);
	if (!blob)
		return encd_fail(ucmd, -ENOMEM, "Out of memory for a %u-byte program",
				 cmd->prog_len);
	if (copy_from_user(blob, u64_to_user_ptr(cmd->prog_uptr), cmd->prog_len)) {
		kvfree(blob);
		return encd_fail(ucmd, -EFAULT, "Cannot read the program at 0x%llx",
				 cmd->prog_uptr);
	}

	mutex_lock(&file->lock);
	g = encd_ucmd_get_gcomm(ucmd, cmd->vnc, cmd->ctx_id, ENCD_UCMD_HELD | ENCD_UCMD_LOCKED);
	if (IS_ERR(g)) {
		err = PTR_ERR(g);
		goto out;
	}
	old = file->programs[slot];
	/* A sealed program may own replica groups; one for a dead comm does not. */
	if (old && old->state != ENCD_PROGRAM_PARSE && old->g == g) {
		err = encd_fail(ucmd, -EBUSY,
				"The program on core %u context %u is sealed and cannot be replaced",
				cmd->vnc, cmd->ctx_id);
		goto out_put;
	}
	err = program_parse(ucmd, blob, cmd->prog_len, g, &prog);
	if (!err) {
		file->programs[slot] = prog;
		prog = old;
	}
out_put:
	encd_gcomm_put(g);
out:
	mutex_unlock(&file->lock);
	program_free(prog);
	kvfree(blob);
	return err;
}

/**
 * encd_program_ioctl_sign() - ENCD_IOC_PROGRAM_SIGN: signs the file's program
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_program_ioctl_sign(struct encd_ucmd *ucmd)
{
	struct encd_program_sign *cmd = ucmd->cmd;
	struct encd_file *file = ucmd->file;
	struct encd_program *prog;
	u32 i;
	int err;

	mutex_lock(&file->lock);
	prog = encd_program_find(ucmd, cmd->vnc, cmd->ctx_id);
	err = PTR_ERR_OR_ZERO(prog);
	if (!err)
		err = encd_program_sign(ucmd, prog, cmd->head.flags);
	if (!err) {
		memcpy(cmd->signature, prog->signature, sizeof(cmd->signature));
		cmd->n_groups_hashed = 0;
		for (i = 0; i < prog->n_groups; i++)
			cmd->n_groups_hashed += prog->groups[i].hashed;
		cmd->n_stps_hashed = prog->n_stps;
	}
	mutex_unlock(&file->lock);
	return err ?: encd_ucmd_respond(ucmd, sizeof(*cmd));
}

static void fill_sig(struct encd_prog_sig *s, u32 id, bool hashed, const u8 *sig)
{
	s->id = id;
	s->flags = hashed ? ENCD_PROG_SIG_HASHED : 0;
	memcpy(s->signature, sig, sizeof(s->signature));
}

/**
 * encd_program_ioctl_get_signatures() - ENCD_IOC_PROGRAM_GET_SIGNATURES: the last signing's digests
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_program_ioctl_get_signatures(struct encd_ucmd *ucmd)
{
	struct encd_program_get_signatures *cmd = ucmd->cmd;
	struct encd_file *file = ucmd->file;
	struct encd_prog_sig gsig[ENCD_MAX_COMM_N];
	struct encd_prog_sig *ssig = NULL;
	struct encd_program *prog;
	u32 n_groups = 0, n_stps = 0, i;
	int err;

	mutex_lock(&file->lock);
	prog = encd_program_find(ucmd, cmd->vnc, cmd->ctx_id);
	err = PTR_ERR_OR_ZERO(prog);
	if (err)
		goto unlock;
	if (!prog->is_signed) {
		err = encd_fail_why(ucmd, -EINVAL, ENCD_REASON_NO_PROGRAM,
				    "The program on core %u context %u has no CC signature yet",
				    cmd->vnc, cmd->ctx_id);
		goto unlock;
	}
	/* Copied out after the lock is dropped: see the top of this file. */
	n_groups = min(cmd->n_groups, prog->n_groups);
	n_stps = min(cmd->n_stps, prog->n_stps);
	if (n_stps) {
		ssig = kvmalloc_array(n_stps, sizeof(*ssig), GFP_KERNEL_ACCOUNT);
		if (!ssig) {
			err = encd_fail(ucmd, -ENOMEM, "Out of memory for %u signatures", n_stps);
			goto unlock;
		}
	}
	for (i = 0; i < n_groups; i++)
		fill_sig(&gsig[i], prog->groups[i].group_id, prog->groups[i].hashed,
			 prog->groups[i].signature);
	for (i = 0; i < n_stps; i++)
		fill_sig(&ssig[i], prog->stps[i].id, prog->stps[i].hashed,
			 prog->stps[i].signature);
	cmd->n_groups = prog->n_groups;
	cmd->n_stps = prog->n_stps;
	memcpy(cmd->signature, prog->signature, sizeof(cmd->signature));
	cmd->sig_flags = prog->sig_flags;
	cmd->state = prog->state;
unlock:
	mutex_unlock(&file->lock);
	if (err)
		goto out;

	if (copy_to_user(u64_to_user_ptr(cmd->groups_uptr), gsig, n_groups * sizeof(*gsig)) ||
	    copy_to_user(u64_to_user_ptr(cmd->stps_uptr), ssig, n_stps * sizeof(*ssig))) {
		err = encd_fail(ucmd, -EFAULT, "Cannot write the signatures back");
		goto out;
	}
	err = encd_ucmd_respond(ucmd, sizeof(*cmd));
out:
	kvfree(ssig);
	return err;
}

/**
 * encd_program_ioctl_seal() - ENCD_IOC_PROGRAM_SEAL: PARSE -> LOADED
 * @ucmd: the command
 *
 * Return: 0 or a negative errno, with the sentence in @ucmd.
 */
int encd_program_ioctl_seal(struct encd_ucmd *ucmd)
{
	struct encd_program_seal *cmd = ucmd->cmd;
	struct encd_file *file = ucmd->file;
	struct encd_program *prog;
	int err;

	mutex_lock(&file->lock);
	prog = encd_program_find(ucmd, cmd->vnc, cmd->ctx_id);
	err = PTR_ERR_OR_ZERO(prog);
	if (!err)
		err = encd_program_seal(ucmd, prog);
	mutex_unlock(&file->lock);
	return err;
}
