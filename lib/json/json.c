// SPDX-License-Identifier: GPL-2.0
/*
 * libenc-json: reads the JSON form of a collective program
 * (Documentation/program-format.rst) into an enc_program through libenc's
 * public builder calls, so that libenc itself never needs json-c.
 *
 * It refuses only what has the wrong shape (a missing or unknown key, a
 * value of the wrong type or out of range), naming the field; the kernel
 * judges the program's meaning when it is loaded. Failures are reported
 * through libenc's enc_last_error(), like libenc's own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include <enc/json.h>

/* The largest JSON file enc_program_from_json_file() reads. */
#define JSON_FILE_MAX	(256u << 20)

/* As much of libenc's last error as its enc_set_error() keeps. */
#define JSON_ERR_MAX	512

#define JSON_WHAT	"enc_program_from_json"

/* A list of global device ids; v is malloc'd and never NULL once read. */
struct ids {
	uint32_t *v;
	uint32_t n;
};

static NRT_STATUS no_mem(void)
{
	return enc_set_error_why(NRT_FAIL_HOST_MEM_ALLOC, ENCD_REASON_NO_MEMORY, "%s: out of memory",
				 JSON_WHAT);
}

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
	return enc_set_error_why(NRT_INVALID, ENCD_REASON_BAD_PROGRAM, "%s: %s: %s%s", JSON_WHAT,
				 p->buf, fmt, detail);
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
		return no_mem();
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
static NRT_STATUS pair_participants(const struct ids *pairs, size_t n_pairs, struct ids *out)
{
	size_t i, total = 0;
	uint32_t j, k;

	for (i = 0; i < n_pairs; i++)
		total += pairs[i].n;
	out->n = 0;
	out->v = malloc(total ? total * sizeof(uint32_t) : 1);
	if (!out->v)
		return no_mem();
	for (i = 0; i < n_pairs; i++)
		for (j = 0; j < pairs[i].n; j++) {
			uint32_t id = pairs[i].v[j];

			for (k = 0; k < out->n && out->v[k] != id; k++)
				;
			if (k == out->n)
				out->v[out->n++] = id;
		}
	return NRT_SUCCESS;
}

/*
 * A src-target-pair set. Its pairs are read first: without "participants",
 * the set's participants are the ids its pairs name.
 */
static NRT_STATUS json_stp(struct enc_program *prog, json_object *o, size_t idx)
{
	static const char *const keys[] = { "id", "pairs", "participants", NULL };
	struct ids part = { 0 }, *pair = NULL;
	json_object *pairs;
	bool has_part;
	struct jpath at, p;
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
	if (st != NRT_SUCCESS)
		return st;

	n = json_object_array_length(pairs);
	pair = calloc(n + 1, sizeof(*pair));
	if (!pair) {
		st = no_mem();
		goto out;
	}
	for (i = 0; i < n && st == NRT_SUCCESS; i++) {
		jpath_fmt(&p, "src_target_pairs[%zu].pairs[%zu]", idx, i);
		st = get_ids(json_object_array_get_idx(pairs, i), &pair[i], &p);
	}
	if (st == NRT_SUCCESS && !has_part)
		st = pair_participants(pair, n, &part);
	if (st == NRT_SUCCESS)
		st = enc_program_add_src_target_pairs(prog, id, part.v, part.n);
	for (i = 0; i < n && st == NRT_SUCCESS; i++)
		st = enc_program_add_pair(prog, id, pair[i].v, pair[i].n);
out:
	for (i = 0; pair && i < n; i++)
		free(pair[i].v);
	free(pair);
	free(part.v);
	return st;
}

static NRT_STATUS json_op_code(json_object *o, uint32_t *code, const struct jpath *at)
{
	struct jpath p;
	json_object *v;
	const char *name;
	uint32_t i;
	int64_t x;

	jpath_fmt(&p, "%s.op", at->buf);
	if (!json_object_object_get_ex(o, "op", &v))
		return jerr(&p, "is required", "");
	if (json_object_is_type(v, json_type_string)) {
		/* The codes run on from ENC_ALL_REDUCE without a gap (uapi enum encd_op). */
		for (i = ENC_ALL_REDUCE; (name = enc_op_name(i)); i++)
			if (!strcmp(name, json_object_get_string(v))) {
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
		return no_mem();
	top = json_tokener_parse_ex(tok, json, len);
	jerror = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!top || jerror != json_tokener_success) {
		json_object_put(top);
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_BAD_PROGRAM,
					 "%s: not JSON near byte %zu: %s", JSON_WHAT, end,
					 jerror == json_tokener_continue ? "unexpected end" :
					 json_tokener_error_desc(jerror));
	}
	for (; end < len; end++)
		if (!strchr(" \t\r\n", json[end])) {
			json_object_put(top);
			return enc_set_error_why(NRT_INVALID, ENCD_REASON_BAD_PROGRAM,
						 "%s: text after the JSON at byte %zu", JSON_WHAT, end);
		}
	if (!json_object_is_type(top, json_type_object)) {
		json_object_put(top);
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_BAD_PROGRAM,
					 "%s: the top level is not an object", JSON_WHAT);
	}

	prog = enc_program_new();
	if (!prog) {
		json_object_put(top);
		return no_mem();
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
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: NULL argument",
					 JSON_WHAT);
	return from_json(json, strlen(json), progp);
}

NRT_STATUS enc_program_from_json_file(const char *path, struct enc_program **progp)
{
	NRT_STATUS st;
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *nbuf;
	FILE *f;

	if (!path || !progp)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT, "%s: NULL argument",
					 JSON_WHAT);
	f = fopen(path, "re");
	if (!f)
		return enc_set_error(NRT_INVALID, "%s: cannot open %s: %s", JSON_WHAT, path,
				     strerror(errno));
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > JSON_FILE_MAX) {
				st = enc_set_error_why(NRT_INVALID, ENCD_REASON_BAD_PROGRAM,
						       "%s: %s is larger than %u bytes", JSON_WHAT,
						       path, JSON_FILE_MAX);
				goto out;
			}
			nbuf = realloc(buf, cap);
			if (!nbuf) {
				st = no_mem();
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
		char why[JSON_ERR_MAX];

		snprintf(why, sizeof(why), "%s", enc_last_error());
		enc_set_error_why(st, enc_last_reason(), "%s (in %s)", why, path);
	}
out:
	free(buf);
	fclose(f);
	return st;
}
