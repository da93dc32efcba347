// SPDX-License-Identifier: GPL-2.0
/*
 * Collective programs: the in-memory builder, the JSON reader, the encoder
 * of the binary description (uapi/linux/encd.h) and the PROGRAM_* ioctls.
 *
 * The kernel is the one validator of a program's meaning (ids against the
 * world, ranks, counts): the library only refuses what it cannot encode or,
 * for JSON, what has the wrong shape, so that a program is judged the same
 * way whichever way it was made.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include <enc/program.h>
#include "enc_internal.h"

/* The largest JSON file enc_program_from_json_file() reads. */
#define JSON_FILE_MAX	(256u << 20)

struct ids {
	uint32_t *v;
	uint32_t n;
};

struct group {
	struct enc_replica_group_desc d;	/* its lists point at the two below */
	struct ids participants;
	struct ids bootstrap;
};

struct stp {
	uint32_t id;
	struct ids participants;
	struct ids *pairs;
	uint32_t n_pairs;
	uint32_t cap_pairs;
};

struct enc_program {
	struct group *groups;
	uint32_t n_groups, cap_groups;
	struct stp *stps;
	uint32_t n_stps, cap_stps;
	struct enc_op_desc *ops;
	uint32_t n_ops, cap_ops;
};

static const char *const op_names[] = {
	[ENC_ALL_REDUCE] = "all_reduce",
	[ENC_ALL_GATHER] = "all_gather",
	[ENC_REDUCE_SCATTER] = "reduce_scatter",
	[ENC_ALL_TO_ALL] = "all_to_all",
	[ENC_PERMUTE] = "permute",
	[ENC_SEND] = "send",
	[ENC_RECV] = "recv",
	[ENC_BROADCAST] = "broadcast",
};

const char *enc_op_name(uint32_t op)
{
	return op < sizeof(op_names) / sizeof(op_names[0]) ? op_names[op] : NULL;
}

/* Makes room for one more element in *@arr of *@cap; false when out of memory. */
static bool grow(void **arr, uint32_t n, uint32_t *cap, size_t elem)
{
	uint32_t ncap;
	void *p;

	if (n < *cap)
		return true;
	if (n == UINT32_MAX)
		return false;
	ncap = *cap ? (*cap > UINT32_MAX / 2 ? UINT32_MAX : *cap * 2) : 8;
	p = reallocarray(*arr, ncap, elem);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

static bool ids_copy(struct ids *dst, const uint32_t *src, uint32_t n)
{
	dst->n = n;
	dst->v = malloc(n ? (size_t)n * sizeof(*src) : 1);
	if (!dst->v)
		return false;
	if (n)
		memcpy(dst->v, src, (size_t)n * sizeof(*src));
	return true;
}

struct enc_program *enc_program_new(void)
{
	return calloc(1, sizeof(struct enc_program));
}

void enc_program_free(struct enc_program *prog)
{
	uint32_t i, j;

	if (!prog)
		return;
	for (i = 0; i < prog->n_groups; i++) {
		free(prog->groups[i].participants.v);
		free(prog->groups[i].bootstrap.v);
	}
	for (i = 0; i < prog->n_stps; i++) {
		free(prog->stps[i].participants.v);
		for (j = 0; j < prog->stps[i].n_pairs; j++)
			free(prog->stps[i].pairs[j].v);
		free(prog->stps[i].pairs);
	}
	free(prog->groups);
	free(prog->stps);
	free(prog->ops);
	free(prog);
}

static NRT_STATUS no_mem(const char *what)
{
	return enc_set_error(NRT_FAIL_HOST_MEM_ALLOC, "%s: out of memory", what);
}

NRT_STATUS enc_program_add_replica_group(struct enc_program *prog,
					 const struct enc_replica_group_desc *rg)
{
	struct group *g;

	if (!prog || !rg || (rg->participants_n && !rg->participants) ||
	    (rg->bootstrap_participants_n && !rg->bootstrap_participants))
		return enc_set_error(NRT_INVALID, "%s: NULL program, group or list", __func__);
	if (!grow((void **)&prog->groups, prog->n_groups, &prog->cap_groups, sizeof(*g)))
		return no_mem(__func__);
	g = &prog->groups[prog->n_groups];
	memset(g, 0, sizeof(*g));
	g->d = *rg;
	if (!ids_copy(&g->participants, rg->participants, rg->participants_n) ||
	    !ids_copy(&g->bootstrap, rg->bootstrap_participants, rg->bootstrap_participants_n)) {
		free(g->participants.v);
		return no_mem(__func__);
	}
	g->d.participants = g->participants.v;
	g->d.bootstrap_participants = g->bootstrap.v;
	prog->n_groups++;
	return NRT_SUCCESS;
}

static struct stp *find_stp(struct enc_program *prog, uint32_t id)
{
	uint32_t i;

	/* The last one first: pairs are usually added right after their set. */
	for (i = prog->n_stps; i-- > 0;)
		if (prog->stps[i].id == id)
			return &prog->stps[i];
	return NULL;
}

NRT_STATUS enc_program_add_src_target_pairs(struct enc_program *prog, uint32_t id,
					    const uint32_t *participants, uint32_t participants_n)
{
	struct stp *s;

	if (!prog || (participants_n && !participants))
		return enc_set_error(NRT_INVALID, "%s: NULL program or list", __func__);
	if (!grow((void **)&prog->stps, prog->n_stps, &prog->cap_stps, sizeof(*s)))
		return no_mem(__func__);
	s = &prog->stps[prog->n_stps];
	memset(s, 0, sizeof(*s));
	s->id = id;
	if (!ids_copy(&s->participants, participants, participants_n))
		return no_mem(__func__);
	prog->n_stps++;
	return NRT_SUCCESS;
}

NRT_STATUS enc_program_add_pair(struct enc_program *prog, uint32_t stp_id,
				const uint32_t *ids, uint32_t n)
{
	struct stp *s;

	if (!prog || (n && !ids))
		return enc_set_error(NRT_INVALID, "%s: NULL program or list", __func__);
	s = find_stp(prog, stp_id);
	if (!s)
		return enc_set_error(NRT_INVALID, "%s: no src-target-pair set with id %u",
				     __func__, stp_id);
	if (!grow((void **)&s->pairs, s->n_pairs, &s->cap_pairs, sizeof(*s->pairs)))
		return no_mem(__func__);
	if (!ids_copy(&s->pairs[s->n_pairs], ids, n))
		return no_mem(__func__);
	s->n_pairs++;
	return NRT_SUCCESS;
}

NRT_STATUS enc_program_add_op(struct enc_program *prog, const struct enc_op_desc *op)
{
	if (!prog || !op)
		return enc_set_error(NRT_INVALID, "%s: NULL program or op", __func__);
	if (!grow((void **)&prog->ops, prog->n_ops, &prog->cap_ops, sizeof(*op)))
		return no_mem(__func__);
	prog->ops[prog->n_ops++] = *op;
	return NRT_SUCCESS;
}

/* ---- the binary description ---- */

struct writer {
	struct encd_prog_vec *pair_out;
	__le32 *ids;
	uint32_t id_at;
	uint32_t pair_at;
};

static void put_list(struct writer *w, struct encd_prog_vec *v, const struct ids *ids)
{
	uint32_t i;

	v->off = htole32(w->id_at);
	v->len = htole32(ids->n);
	for (i = 0; i < ids->n; i++)
		w->ids[w->id_at + i] = htole32(ids->v[i]);
	w->id_at += ids->n;
}

static uint32_t group_num_ops(const struct enc_program *prog, const struct group *g)
{
	uint32_t i, n = 0;

	if (g->d.num_ops >= 0)
		return (uint32_t)g->d.num_ops;
	for (i = 0; i < prog->n_ops; i++)
		n += !prog->ops[i].stp && prog->ops[i].owner == g->d.group_id;
	return n;
}

NRT_STATUS enc_program_encode(const struct enc_program *prog, void **bufp, size_t *lenp)
{
	struct encd_prog_header *hdr;
	struct encd_prog_group *gout;
	struct encd_prog_stp *sout;
	struct encd_prog_op *oout;
	struct writer w = { 0 };
	uint64_t n_ids = 0, n_pairs = 0, len;
	uint32_t i, j;
	char *buf;

	if (!prog || !bufp || !lenp)
		return enc_set_error(NRT_INVALID, "%s: NULL argument", __func__);
	for (i = 0; i < prog->n_groups; i++)
		n_ids += (uint64_t)prog->groups[i].participants.n + prog->groups[i].bootstrap.n;
	for (i = 0; i < prog->n_stps; i++) {
		n_ids += prog->stps[i].participants.n;
		n_pairs += prog->stps[i].n_pairs;
		for (j = 0; j < prog->stps[i].n_pairs; j++)
			n_ids += prog->stps[i].pairs[j].n;
	}
	len = sizeof(*hdr) + (uint64_t)prog->n_groups * sizeof(*gout) +
	      (uint64_t)prog->n_stps * sizeof(*sout) + n_pairs * sizeof(struct encd_prog_vec) +
	      (uint64_t)prog->n_ops * sizeof(*oout) + n_ids * sizeof(__le32);
	if (len > UINT32_MAX)
		return enc_set_error(NRT_INVALID, "%s: the program needs %llu bytes, more than %u",
				     __func__, (unsigned long long)len, UINT32_MAX);

	buf = calloc(1, len);
	if (!buf)
		return no_mem(__func__);
	hdr = (struct encd_prog_header *)buf;
	hdr->magic = htole32(ENCD_PROG_MAGIC);
	hdr->version = htole16(ENCD_PROG_VERSION);
	hdr->header_size = htole16(sizeof(*hdr));
	hdr->total_size = htole32(len);
	hdr->n_groups = htole32(prog->n_groups);
	hdr->n_stps = htole32(prog->n_stps);
	hdr->n_pairs = htole32(n_pairs);
	hdr->n_ops = htole32(prog->n_ops);
	hdr->n_ids = htole32(n_ids);

	gout = (struct encd_prog_group *)(hdr + 1);
	sout = (struct encd_prog_stp *)(gout + prog->n_groups);
	w.pair_out = (struct encd_prog_vec *)(sout + prog->n_stps);
	oout = (struct encd_prog_op *)(w.pair_out + n_pairs);
	w.ids = (__le32 *)(oout + prog->n_ops);

	/* The lists in the order the kernel reads them: uapi "Programs". */
	for (i = 0; i < prog->n_groups; i++) {
		const struct group *g = &prog->groups[i];
		uint32_t flags = 0;

		flags |= g->d.sendrecv ? ENCD_PROG_GROUP_SENDRECV : 0;
		flags |= g->d.nccl_mesh_supported ? ENCD_PROG_GROUP_NCCL_MESH_SUPPORTED : 0;
		flags |= g->d.must_use_ring_alg ? ENCD_PROG_GROUP_MUST_USE_RING_ALG : 0;
		gout[i].group_id = htole32(g->d.group_id);
		gout[i].rank = htole32((uint32_t)g->d.rank);
		gout[i].rank_n = htole32(g->d.rank_n);
		gout[i].src_target_pairs_id = htole32((uint32_t)g->d.src_target_pairs_id);
		gout[i].num_ops = htole32(group_num_ops(prog, g));
		gout[i].stream_id = htole32(g->d.stream_id);
		gout[i].bootstrap_rank = htole32(g->d.bootstrap_rank);
		gout[i].flags = htole32(flags);
		put_list(&w, &gout[i].participants, &g->participants);
		put_list(&w, &gout[i].bootstrap_participants, &g->bootstrap);
	}
	for (i = 0; i < prog->n_stps; i++) {
		const struct stp *s = &prog->stps[i];

		sout[i].id = htole32(s->id);
		put_list(&w, &sout[i].participants, &s->participants);
		sout[i].pairs.off = htole32(w.pair_at);
		sout[i].pairs.len = htole32(s->n_pairs);
		for (j = 0; j < s->n_pairs; j++)
			put_list(&w, &w.pair_out[w.pair_at++], &s->pairs[j]);
	}
	for (i = 0; i < prog->n_ops; i++) {
		const struct enc_op_desc *op = &prog->ops[i];

		oout[i].op = htole32(op->op);
		oout[i].flags = htole32(op->stp ? ENCD_PROG_OP_STP : 0);
		oout[i].size_n = htole64(op->size_n);
		oout[i].owner = htole32(op->owner);
		oout[i].peer = htole32(op->peer);
		oout[i].dtype = htole32(op->dtype);
		oout[i].alg = htole32(op->alg);
		oout[i].channel = htole32(op->channel);
	}
	*bufp = buf;
	*lenp = len;
	return NRT_SUCCESS;
}

/* ---- the ioctls ---- */

NRT_STATUS enc_program_load_binary(uint32_t vnc, uint32_t ctx_id, const void *buf, size_t len)
{
	struct encd_program_load cmd = {
		.vnc = vnc,
		.ctx_id = ctx_id,
		.prog_uptr = (uintptr_t)buf,
		.prog_len = len > UINT32_MAX ? UINT32_MAX : len,
	};

	return enc_ioctl(ENCD_IOC_PROGRAM_LOAD, &cmd, sizeof(cmd), "enc_program_load");
}

NRT_STATUS enc_program_load(uint32_t vnc, uint32_t ctx_id, const struct enc_program *prog)
{
	NRT_STATUS st;
	size_t len;
	void *buf;

	st = enc_program_encode(prog, &buf, &len);
	if (st != NRT_SUCCESS)
		return st;
	st = enc_program_load_binary(vnc, ctx_id, buf, len);
	free(buf);
	return st;
}

NRT_STATUS enc_calculate_signature(uint32_t vnc, uint32_t ctx_id, uint32_t flags,
				   uint8_t global[ENC_SIG_LEN])
{
	struct encd_program_sign cmd = {
		.head.flags = flags,
		.vnc = vnc,
		.ctx_id = ctx_id,
	};
	NRT_STATUS st;

	st = enc_ioctl(ENCD_IOC_PROGRAM_SIGN, &cmd, sizeof(cmd), __func__);
	if (st == NRT_SUCCESS && global)
		memcpy(global, cmd.signature, ENC_SIG_LEN);
	return st;
}

NRT_STATUS enc_program_seal(uint32_t vnc, uint32_t ctx_id)
{
	struct encd_program_seal cmd = { .vnc = vnc, .ctx_id = ctx_id };

	return enc_ioctl(ENCD_IOC_PROGRAM_SEAL, &cmd, sizeof(cmd), __func__);
}

void enc_program_signatures_free(struct enc_program_signatures *sigs)
{
	if (!sigs)
		return;
	free(sigs->groups);
	free(sigs->stps);
	free(sigs);
}

static void copy_sigs(struct enc_signature *dst, const struct encd_prog_sig *src, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		dst[i].id = src[i].id;
		dst[i].hashed = src[i].flags & ENCD_PROG_SIG_HASHED;
		memcpy(dst[i].digest, src[i].signature, ENC_SIG_LEN);
	}
}

NRT_STATUS enc_program_get_signatures(uint32_t vnc, uint32_t ctx_id,
				      struct enc_program_signatures **sigsp)
{
	struct encd_program_get_signatures cmd;
	struct encd_prog_sig *gs = NULL, *ss = NULL;
	struct enc_program_signatures *sigs;
	uint32_t n_groups = 0, n_stps = 0;
	NRT_STATUS st;

	if (!sigsp)
		return enc_set_error(NRT_INVALID, "%s: NULL result", __func__);
	/* The counts first; again if the program was replaced in between. */
	for (;;) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.vnc = vnc;
		cmd.ctx_id = ctx_id;
		cmd.groups_uptr = (uintptr_t)gs;
		cmd.stps_uptr = (uintptr_t)ss;
		cmd.n_groups = n_groups;
		cmd.n_stps = n_stps;
		st = enc_ioctl(ENCD_IOC_PROGRAM_GET_SIGNATURES, &cmd, sizeof(cmd), __func__);
		if (st != NRT_SUCCESS)
			goto fail;
		if (cmd.n_groups <= n_groups && cmd.n_stps <= n_stps && (gs || !n_groups))
			break;
		free(gs);
		free(ss);
		n_groups = cmd.n_groups;
		n_stps = cmd.n_stps;
		gs = calloc(n_groups + 1, sizeof(*gs));
		ss = calloc(n_stps + 1, sizeof(*ss));
		if (!gs || !ss) {
			st = no_mem(__func__);
			goto fail;
		}
	}

	sigs = calloc(1, sizeof(*sigs));
	if (sigs) {
		sigs->groups = calloc(cmd.n_groups + 1, sizeof(*sigs->groups));
		sigs->stps = calloc(cmd.n_stps + 1, sizeof(*sigs->stps));
	}
	if (!sigs || !sigs->groups || !sigs->stps) {
		enc_program_signatures_free(sigs);
		st = no_mem(__func__);
		goto fail;
	}
	memcpy(sigs->global, cmd.signature, ENC_SIG_LEN);
	sigs->flags = cmd.sig_flags;
	sigs->sealed = cmd.state == ENCD_PROGRAM_LOADED;
	sigs->n_groups = cmd.n_groups;
	sigs->n_stps = cmd.n_stps;
	copy_sigs(sigs->groups, gs, cmd.n_groups);
	copy_sigs(sigs->stps, ss, cmd.n_stps);
	*sigsp = sigs;
fail:
	free(gs);
	free(ss);
	return st;
}

/* ---- JSON ---- */

#define JSON_WHAT	"enc_program_from_json"

/* A JSON path for messages, like "replica_groups[2].rank". */
struct jpath {
	char buf[96];
};

/* Truncation is harmless here: the path only makes the sentence clearer. */
__attribute__((format(printf, 2, 3)))
static void jpath_fmt(struct jpath *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->buf, sizeof(p->buf), fmt, ap);
	va_end(ap);
}

static NRT_STATUS jerr(const struct jpath *p, const char *fmt, const char *detail)
{
	return enc_set_error(NRT_INVALID, "%s: %s: %s%s", JSON_WHAT, p->buf, fmt, detail);
}

static void jpath_set(struct jpath *p, const char *list, size_t idx, const char *key)
{
	if (key)
		jpath_fmt(p, "%s[%zu].%s", list, idx, key);
	else
		jpath_fmt(p, "%s[%zu]", list, idx);
}

/* Refuses keys not in @known, so a typo is not a silent default. */
static NRT_STATUS check_keys(json_object *obj, const char *const *known, const char *list,
			     size_t idx)
{
	struct jpath p;
	size_t i;

	json_object_object_foreach(obj, key, val) {
		(void)val;
		for (i = 0; known[i]; i++)
			if (!strcmp(key, known[i]))
				break;
		if (!known[i]) {
			if (list)
				jpath_set(&p, list, idx, key);
			else
				jpath_fmt(&p, "%s", key);
			return jerr(&p, "unknown key", "");
		}
	}
	return NRT_SUCCESS;
}

/* An integer in [@min, @max]; absent: @def, or an error if @required. */
static NRT_STATUS get_int(json_object *obj, const char *key, bool required, int64_t def,
			  int64_t min, int64_t max, int64_t *out, const struct jpath *at)
{
	struct jpath p;
	json_object *v;
	char range[64];
	int64_t x;

	jpath_fmt(&p, "%s.%s", at->buf, key);
	if (!json_object_object_get_ex(obj, key, &v)) {
		if (required)
			return jerr(&p, "is required", "");
		*out = def;
		return NRT_SUCCESS;
	}
	snprintf(range, sizeof(range), " from %lld to %lld", (long long)min, (long long)max);
	if (!json_object_is_type(v, json_type_int))
		return jerr(&p, "expected an integer", range);
	errno = 0;
	x = json_object_get_int64(v);
	if (errno || x < min || x > max)
		return jerr(&p, "expected an integer", range);
	*out = x;
	return NRT_SUCCESS;
}

static NRT_STATUS get_u64(json_object *obj, const char *key, uint64_t *out,
			  const struct jpath *at)
{
	struct jpath p;
	json_object *v;

	jpath_fmt(&p, "%s.%s", at->buf, key);
	if (!json_object_object_get_ex(obj, key, &v))
		return jerr(&p, "is required", "");
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return jerr(&p, "expected an integer from 0 to 2^64-1", "");
	errno = 0;
	*out = json_object_get_uint64(v);
	if (errno)
		return jerr(&p, "expected an integer from 0 to 2^64-1", "");
	return NRT_SUCCESS;
}

static NRT_STATUS get_bool(json_object *obj, const char *key, bool def, bool *out,
			   const struct jpath *at)
{
	struct jpath p;
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v)) {
		*out = def;
		return NRT_SUCCESS;
	}
	if (!json_object_is_type(v, json_type_boolean)) {
		jpath_fmt(&p, "%s.%s", at->buf, key);
		return jerr(&p, "expected true or false", "");
	}
	*out = json_object_get_boolean(v);
	return NRT_SUCCESS;
}

/* A list of global device ids; *@ids is malloc'd (never NULL on success). */
static NRT_STATUS get_ids(json_object *v, struct ids *ids, const struct jpath *p)
{
	size_t n, i;

	if (!json_object_is_type(v, json_type_array))
		return jerr(p, "expected an array of global device ids", "");
	n = json_object_array_length(v);
	if (n > UINT32_MAX)
		return jerr(p, "too many ids", "");
	ids->n = n;
	ids->v = malloc(n ? n * sizeof(uint32_t) : 1);
	if (!ids->v)
		return no_mem(JSON_WHAT);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(v, i);
		int64_t x;

		errno = 0;
		x = json_object_is_type(e, json_type_int) ? json_object_get_int64(e) : -1;
		if (errno || x < 0 || x > UINT32_MAX) {
			free(ids->v);
			ids->v = NULL;
			return jerr(p, "expected global device ids from 0 to 2^32-1", "");
		}
		ids->v[i] = x;
	}
	return NRT_SUCCESS;
}

static NRT_STATUS get_ids_key(json_object *obj, const char *key, bool *present, struct ids *ids,
			      const struct jpath *at)
{
	struct jpath p;
	json_object *v;

	*present = json_object_object_get_ex(obj, key, &v);
	if (!*present)
		return NRT_SUCCESS;
	jpath_fmt(&p, "%s.%s", at->buf, key);
	return get_ids(v, ids, &p);
}

static NRT_STATUS json_group(struct enc_program *prog, json_object *o, size_t idx)
{
	static const char *const keys[] = {
		"group_id", "rank", "rank_n", "src_target_pairs_id", "num_ops", "sendrecv",
		"nccl_mesh_supported", "must_use_ring_alg", "stream_id", "participants",
		"bootstrap_participants", "bootstrap_rank", NULL
	};
	struct enc_replica_group_desc d = { 0 };
	struct ids part = { 0 }, boot = { 0 };
	bool has_part, has_boot;
	struct jpath at;
	NRT_STATUS st;
	int64_t x;

	jpath_set(&at, "replica_groups", idx, NULL);
	if (!json_object_is_type(o, json_type_object))
		return jerr(&at, "expected an object", "");
	st = check_keys(o, keys, "replica_groups", idx);
	if (st == NRT_SUCCESS)
		st = get_ids_key(o, "participants", &has_part, &part, &at);
	if (st == NRT_SUCCESS && !has_part)
		st = jerr(&at, "participants is required", "");
	if (st == NRT_SUCCESS)
		st = get_ids_key(o, "bootstrap_participants", &has_boot, &boot, &at);
	if (st != NRT_SUCCESS)
		goto out;

	st = get_int(o, "group_id", true, 0, 0, UINT32_MAX, &x, &at);
	d.group_id = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "rank", true, 0, INT32_MIN, INT32_MAX, &x, &at);
	d.rank = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "rank_n", false, has_boot ? boot.n : part.n, 0, UINT32_MAX,
			     &x, &at);
	d.rank_n = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "src_target_pairs_id", false, -1, INT32_MIN, INT32_MAX, &x, &at);
	d.src_target_pairs_id = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "num_ops", false, -1, 0, UINT32_MAX, &d.num_ops, &at);
	if (st == NRT_SUCCESS)
		st = get_int(o, "stream_id", false, 0, 0, UINT32_MAX, &x, &at);
	d.stream_id = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "bootstrap_rank", false, d.rank >= 0 ? d.rank : 0, 0, UINT32_MAX,
			     &x, &at);
	d.bootstrap_rank = x;
	if (st == NRT_SUCCESS)
		st = get_bool(o, "sendrecv", d.rank == -1, &d.sendrecv, &at);
	if (st == NRT_SUCCESS)
		st = get_bool(o, "nccl_mesh_supported", false, &d.nccl_mesh_supported, &at);
	if (st == NRT_SUCCESS)
		st = get_bool(o, "must_use_ring_alg", false, &d.must_use_ring_alg, &at);
	if (st != NRT_SUCCESS)
		goto out;

	d.participants = part.v;
	d.participants_n = part.n;
	d.bootstrap_participants = has_boot ? boot.v : part.v;
	d.bootstrap_participants_n = has_boot ? boot.n : part.n;
	st = enc_program_add_replica_group(prog, &d);
out:
	free(part.v);
	free(boot.v);
	return st;
}

/* The distinct ids of the pairs, in order of first appearance. */
static NRT_STATUS pair_participants(const struct stp *s, struct ids *out)
{
	uint32_t i, j, k, total = 0;

	for (i = 0; i < s->n_pairs; i++)
		total += s->pairs[i].n;
	out->n = 0;
	out->v = malloc(total ? (size_t)total * sizeof(uint32_t) : 1);
	if (!out->v)
		return no_mem(JSON_WHAT);
	for (i = 0; i < s->n_pairs; i++)
		for (j = 0; j < s->pairs[i].n; j++) {
			uint32_t id = s->pairs[i].v[j];

			for (k = 0; k < out->n && out->v[k] != id; k++)
				;
			if (k == out->n)
				out->v[out->n++] = id;
		}
	return NRT_SUCCESS;
}

static NRT_STATUS json_stp(struct enc_program *prog, json_object *o, size_t idx)
{
	static const char *const keys[] = { "id", "pairs", "participants", NULL };
	struct ids part = { 0 }, pair;
	json_object *pairs;
	bool has_part;
	struct jpath at, p;
	struct stp *s;
	NRT_STATUS st;
	size_t i, n;
	int64_t id;

	jpath_set(&at, "src_target_pairs", idx, NULL);
	if (!json_object_is_type(o, json_type_object))
		return jerr(&at, "expected an object", "");
	st = check_keys(o, keys, "src_target_pairs", idx);
	if (st == NRT_SUCCESS)
		st = get_int(o, "id", true, 0, 0, UINT32_MAX, &id, &at);
	if (st != NRT_SUCCESS)
		return st;
	jpath_set(&p, "src_target_pairs", idx, "pairs");
	if (!json_object_object_get_ex(o, "pairs", &pairs))
		return jerr(&p, "is required", "");
	if (!json_object_is_type(pairs, json_type_array))
		return jerr(&p, "expected an array of arrays of global device ids", "");
	st = get_ids_key(o, "participants", &has_part, &part, &at);
	if (st == NRT_SUCCESS)
		st = enc_program_add_src_target_pairs(prog, id, part.v, part.n);
	free(part.v);
	if (st != NRT_SUCCESS)
		return st;

	n = json_object_array_length(pairs);
	for (i = 0; i < n; i++) {
		jpath_fmt(&p, "src_target_pairs[%zu].pairs[%zu]", idx, i);
		st = get_ids(json_object_array_get_idx(pairs, i), &pair, &p);
		if (st == NRT_SUCCESS)
			st = enc_program_add_pair(prog, id, pair.v, pair.n);
		free(pair.v);
		if (st != NRT_SUCCESS)
			return st;
	}
	if (has_part)
		return NRT_SUCCESS;
	s = &prog->stps[prog->n_stps - 1];
	free(s->participants.v);
	s->participants.v = NULL;
	return pair_participants(s, &s->participants);
}

static NRT_STATUS json_op_code(json_object *o, uint32_t *code, const struct jpath *at)
{
	struct jpath p;
	json_object *v;
	uint32_t i;
	int64_t x;

	jpath_fmt(&p, "%s.op", at->buf);
	if (!json_object_object_get_ex(o, "op", &v))
		return jerr(&p, "is required", "");
	if (json_object_is_type(v, json_type_string)) {
		for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
			if (op_names[i] && !strcmp(op_names[i], json_object_get_string(v))) {
				*code = i;
				return NRT_SUCCESS;
			}
		return jerr(&p, "unknown op ", json_object_get_string(v));
	}
	/* A number is taken as it is: the kernel judges it. */
	if (get_int(o, "op", true, 0, 0, UINT32_MAX, &x, at) != NRT_SUCCESS)
		return jerr(&p, "expected an op name such as \"all_reduce\" or its number", "");
	*code = x;
	return NRT_SUCCESS;
}

static NRT_STATUS json_op(struct enc_program *prog, json_object *o, size_t idx)
{
	static const char *const keys[] = {
		"op", "size_n", "peer", "dtype", "alg", "channel", "group", "stp", NULL
	};
	struct enc_op_desc d = { 0 };
	bool has_group, has_stp;
	struct jpath at;
	NRT_STATUS st;
	int64_t x;

	jpath_set(&at, "ops", idx, NULL);
	if (!json_object_is_type(o, json_type_object))
		return jerr(&at, "expected an object", "");
	st = check_keys(o, keys, "ops", idx);
	if (st == NRT_SUCCESS)
		st = json_op_code(o, &d.op, &at);
	if (st == NRT_SUCCESS)
		st = get_u64(o, "size_n", &d.size_n, &at);
	if (st == NRT_SUCCESS)
		st = get_int(o, "peer", false, 0, 0, UINT32_MAX, &x, &at);
	d.peer = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "dtype", false, 0, 0, UINT32_MAX, &x, &at);
	d.dtype = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "alg", false, 0, 0, UINT32_MAX, &x, &at);
	d.alg = x;
	if (st == NRT_SUCCESS)
		st = get_int(o, "channel", false, 0, 0, UINT32_MAX, &x, &at);
	d.channel = x;
	if (st != NRT_SUCCESS)
		return st;

	has_group = json_object_object_get_ex(o, "group", NULL);
	has_stp = json_object_object_get_ex(o, "stp", NULL);
	if (has_group == has_stp)
		return jerr(&at, "names its owner with exactly one of \"group\" and \"stp\"", "");
	d.stp = has_stp;
	st = get_int(o, has_stp ? "stp" : "group", true, 0, 0, UINT32_MAX, &x, &at);
	d.owner = x;
	return st != NRT_SUCCESS ? st : enc_program_add_op(prog, &d);
}

typedef NRT_STATUS (*json_item_fn)(struct enc_program *prog, json_object *o, size_t idx);

static NRT_STATUS json_list(struct enc_program *prog, json_object *top, const char *key,
			    json_item_fn fn)
{
	struct jpath p;
	json_object *arr;
	NRT_STATUS st;
	size_t i, n;

	if (!json_object_object_get_ex(top, key, &arr))
		return NRT_SUCCESS;
	if (!json_object_is_type(arr, json_type_array)) {
		jpath_fmt(&p, "%s", key);
		return jerr(&p, "expected an array", "");
	}
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		st = fn(prog, json_object_array_get_idx(arr, i), i);
		if (st != NRT_SUCCESS)
			return st;
	}
	return NRT_SUCCESS;
}

static NRT_STATUS from_json(const char *json, size_t len, struct enc_program **progp)
{
	static const char *const keys[] = { "replica_groups", "src_target_pairs", "ops", NULL };
	struct enc_program *prog;
	struct json_tokener *tok;
	enum json_tokener_error jerror;
	json_object *top;
	NRT_STATUS st;
	size_t end;

	tok = json_tokener_new();
	if (!tok)
		return no_mem(JSON_WHAT);
	top = json_tokener_parse_ex(tok, json, len);
	jerror = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!top || jerror != json_tokener_success) {
		json_object_put(top);
		return enc_set_error(NRT_INVALID, "%s: not JSON near byte %zu: %s", JSON_WHAT, end,
				     jerror == json_tokener_continue ? "unexpected end" :
				     json_tokener_error_desc(jerror));
	}
	for (; end < len; end++)
		if (!strchr(" \t\r\n", json[end])) {
			json_object_put(top);
			return enc_set_error(NRT_INVALID, "%s: text after the JSON at byte %zu",
					     JSON_WHAT, end);
		}
	if (!json_object_is_type(top, json_type_object)) {
		json_object_put(top);
		return enc_set_error(NRT_INVALID, "%s: the top level is not an object", JSON_WHAT);
	}

	prog = enc_program_new();
	if (!prog) {
		json_object_put(top);
		return no_mem(JSON_WHAT);
	}
	st = check_keys(top, keys, NULL, 0);
	if (st == NRT_SUCCESS)
		st = json_list(prog, top, "replica_groups", json_group);
	if (st == NRT_SUCCESS)
		st = json_list(prog, top, "src_target_pairs", json_stp);
	if (st == NRT_SUCCESS)
		st = json_list(prog, top, "ops", json_op);
	json_object_put(top);
	if (st != NRT_SUCCESS) {
		enc_program_free(prog);
		return st;
	}
	*progp = prog;
	return NRT_SUCCESS;
}

NRT_STATUS enc_program_from_json_string(const char *json, struct enc_program **progp)
{
	if (!json || !progp)
		return enc_set_error(NRT_INVALID, "%s: NULL argument", JSON_WHAT);
	return from_json(json, strlen(json), progp);
}

NRT_STATUS enc_program_from_json_file(const char *path, struct enc_program **progp)
{
	NRT_STATUS st;
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *nbuf;
	FILE *f;

	if (!path || !progp)
		return enc_set_error(NRT_INVALID, "%s: NULL argument", JSON_WHAT);
	f = fopen(path, "re");
	if (!f)
		return enc_set_error(NRT_INVALID, "%s: cannot open %s: %s", JSON_WHAT, path,
				     strerror(errno));
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > JSON_FILE_MAX) {
				st = enc_set_error(NRT_INVALID, "%s: %s is larger than %u bytes",
						   JSON_WHAT, path, JSON_FILE_MAX);
				goto out;
			}
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				st = no_mem(JSON_WHAT);
				goto out;
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		st = enc_set_error(NRT_INVALID, "%s: cannot read %s", JSON_WHAT, path);
		goto out;
	}
	st = from_json(buf, len, progp);
	if (st != NRT_SUCCESS) {
		char why[ENC_ERR_MAX];

		snprintf(why, sizeof(why), "%s", enc_last_error());
		enc_set_error(st, "%s (in %s)", why, path);
	}
out:
	free(buf);
	fclose(f);
	return st;
}
