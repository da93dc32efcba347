// SPDX-License-Identifier: GPL-2.0
/*
 * encctl world: form or join a collective world for one rank through
 * libenc, or start N local ranks at once. For operators, demos, black-box
 * tests and the formation benchmark.
 *
 *   encctl world join --vnc V [--ctx C] --g-device-id G --world-size N
 *                     --root HOST:PORT [--program FILE.json] [--no-check-sigs]
 *                     [--barrier] [--barriers K [--barrier-group G]]
 *                     [--hold SECONDS] [--timeout-ms MS]
 *   encctl world join --from-env [--launcher L[,L..]] [--port P] [--dry-run]
 *                     [any option above, which wins over the launcher's]
 *   encctl world launch -n N --root HOST:PORT [--ranks FIRST:COUNT]
 *                     [--vnc-base B] [join options]
 *   encctl world check [--barriers K] [join options] (check.c)
 *
 * With -j, a join that formed prints one JSON object: "ok" (true), "error"
 * (null), "status" (NRT_SUCCESS), "reason" (null), then its record: "rank",
 * "rank_n", "phases" (microseconds), "groups" and, when this rank recorded
 * one, "mismatch". One that failed prints encctl's error document instead
 * (encctl_err_status()): its sentence as "error", libenc's NRT_STATUS as
 * "status", its enc_reason_name() as "reason", then the same record as far
 * as it got. launch runs `world join` for ranks 0..N-1 (or
 * FIRST..FIRST+COUNT-1) on vnc B, B+1, ... (a "%u" in --program becomes the
 * rank), passes their output through, and succeeds when all of them do;
 * otherwise it fails, after them, through encctl_err().
 *
 * --from-env takes what --vnc, --g-device-id, --world-size and --root
 * leave out from the launcher's environment (enc_launch_from_env());
 * --dry-run prints what a join would use, and where each value came from,
 * and touches nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <enc/enc.h>
#include <enc/bootstrap.h>
#include <enc/json.h>
#include <enc/launch.h>
#include <enc/program.h>

#include "args.h"
#include "encctl.h"
#include "print.h"
#include "world.h"

static int world_help(int argc, char **argv)
{
	int ret = encctl_no_args("world help", argc, argv);

	if (ret)
		return ret;
	printf("Usage: encctl [-j] world join --vnc V [--ctx C] --g-device-id G --world-size N\n"
	       "                          --root HOST:PORT [--program FILE.json] [--no-check-sigs]\n"
	       "                          [--barrier] [--barriers K [--barrier-group G]]\n"
	       "                          [--hold SECONDS] [--timeout-ms MS]\n"
	       "                          [--secret-file FILE] [--force-tcp] [--sig-all-groups]\n"
	       "       encctl [-j] world join --from-env [--launcher slurm|torchrun|openmpi|pmix[,...]]\n"
	       "                          [--port P] [--dry-run] [any join option, which wins]\n"
	       "       encctl [-j] world launch -n N --root HOST:PORT [--ranks FIRST:COUNT]\n"
	       "                          [--vnc-base B] [--ctx C]\n"
	       "                          [--program FILE%%u.json] [--no-check-sigs] [--barrier]\n"
	       "                          [--hold SECONDS] [--timeout-ms MS]\n"
	       "                          [--secret-file FILE] [--force-tcp] [--sig-all-groups]\n"
	       "       encctl [-j] world check [--barriers K] [any join option, --from-env too]\n"
	       "       encctl world help\n");
	return ENCCTL_EXIT_OK;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

enum { OPT_VNC, OPT_VNC_BASE, OPT_CTX, OPT_GID, OPT_WS, OPT_ROOT, OPT_PROGRAM, OPT_NOSIGS,
	OPT_BARRIER, OPT_HOLD, OPT_TIMEOUT, OPT_RANKS, OPT_BARRIERS, OPT_SECRET_FILE,
	OPT_FORCE_TCP, OPT_SIG_ALL_GROUPS, OPT_BARRIER_GROUP, OPT_FROM_ENV, OPT_LAUNCHER,
	OPT_PORT, OPT_DRY_RUN };

/* join's and launch's: launch's are a superset, and join takes them all. */
const struct encctl_opt encctl_world_opts[] = {
	{ "--vnc", true, OPT_VNC },
	{ "--vnc-base", true, OPT_VNC_BASE },
	{ "--ctx", true, OPT_CTX },
	{ "--g-device-id", true, OPT_GID },
	{ "--world-size", true, OPT_WS },
	{ "-n", true, OPT_WS },
	{ "--root", true, OPT_ROOT },
	{ "--program", true, OPT_PROGRAM },
	{ "--no-check-sigs", false, OPT_NOSIGS },
	{ "--barrier", false, OPT_BARRIER },
	{ "--barriers", true, OPT_BARRIERS },
	{ "--barrier-group", true, OPT_BARRIER_GROUP },
	{ "--hold", true, OPT_HOLD },
	{ "--timeout-ms", true, OPT_TIMEOUT },
	{ "--ranks", true, OPT_RANKS },
	{ "--secret-file", true, OPT_SECRET_FILE },
	{ "--force-tcp", false, OPT_FORCE_TCP },
	{ "--sig-all-groups", false, OPT_SIG_ALL_GROUPS },
	{ "--from-env", false, OPT_FROM_ENV },
	{ "--launcher", true, OPT_LAUNCHER },
	{ "--port", true, OPT_PORT },
	{ "--dry-run", false, OPT_DRY_RUN },
	{ NULL, false, 0 },
};

/* --ranks FIRST:COUNT; 0 or -1 after saying why. */
static int parse_ranks(const char *where, const char *val, struct join_opts *o)
{
	const char *colon = strchr(val, ':');
	char first[32];

	if (!colon || colon - val >= (int)sizeof(first))
		return encctl_err(-1, "%s: --ranks wants FIRST:COUNT, not '%s'", where, val);
	snprintf(first, sizeof(first), "%.*s", (int)(colon - val), val);
	if (encctl_parse_u32(where, "--ranks FIRST", first, UINT32_MAX, &o->first) ||
	    encctl_parse_u32(where, "--ranks COUNT", colon + 1, UINT32_MAX, &o->count))
		return -1;
	return 0;
}

/* --launcher slurm,pmix: the launchers to read; 0 or -1 after saying why. */
static int parse_launchers(const char *where, const char *val, uint32_t *mask)
{
	const char *s = val;

	*mask = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		int id;

		for (id = 0; id < ENC_LAUNCHER_N; id++)
			if (strlen(enc_launcher_name(id)) == len &&
			    !strncmp(s, enc_launcher_name(id), len))
				break;
		if (id == ENC_LAUNCHER_N)
			return encctl_err(-1,
					  "%s: --launcher '%.*s' is none of slurm, torchrun, openmpi, pmix",
					  where, (int)len, s);
		*mask |= 1u << id;
		s += len + (s[len] == ',');
	}
	if (!*mask)
		return encctl_err(-1, "%s: --launcher wants a launcher's name", where);
	return 0;
}

/*
 * --from-env: the values the command line left out, from the launcher's
 * environment; 0, or the exit code after saying what is wrong.
 */
static int from_env(const char *where, struct join_opts *o, bool *have_vnc, bool *have_gid)
{
	struct enc_launch *l = &o->launch;

	l->launchers = o->launchers;
	l->port = o->port;
	l->given = (*have_gid ? 1u << ENC_LAUNCH_RANK : 0) |
		   (o->world_size ? 1u << ENC_LAUNCH_WORLD_SIZE : 0) |
		   (*have_vnc ? 1u << ENC_LAUNCH_LOCAL_RANK : 0) |
		   (o->root ? 1u << ENC_LAUNCH_ROOT : 0);
	l->rank = o->g_device_id;
	l->world_size = o->world_size;
	l->local_rank = o->vnc;
	snprintf(l->from[ENC_LAUNCH_RANK], sizeof(l->from[0]), "--g-device-id");
	snprintf(l->from[ENC_LAUNCH_WORLD_SIZE], sizeof(l->from[0]), "--world-size");
	snprintf(l->from[ENC_LAUNCH_LOCAL_RANK], sizeof(l->from[0]), "--vnc");
	snprintf(l->from[ENC_LAUNCH_ROOT], sizeof(l->from[0]), "--root");
	if (o->root)
		snprintf(l->root, sizeof(l->root), "%s", o->root);
	if (enc_launch_from_env(NULL, l))
		return encctl_err_status(ENCCTL_EXIT_USAGE, enc_status_name(NRT_INVALID),
					 enc_reason_name(enc_last_reason()), 0, "%s: %s", where,
					 enc_last_error());
	o->g_device_id = l->rank;
	o->world_size = l->world_size;
	o->vnc = l->local_rank;
	*have_gid = *have_vnc = true;
	if (l->found & (1u << ENC_LAUNCH_ROOT))
		o->root = l->root;
	return 0;
}

int encctl_world_parse(const char *where, int argc, char **argv, struct join_opts *o,
		       bool *have_vnc, bool *have_gid)
{
	struct encctl_optparse p = {
		.where = where, .opts = encctl_world_opts, .argc = argc, .argv = argv,
	};
	const char *val;
	uint32_t *dst;
	int id;

	o->check_sigs = true;
	o->barrier_group = ENC_GROUP_GLOBAL;
	while ((id = encctl_opt_next(&p, &val)) != ENCCTL_OPT_END) {
		switch (id) {
		case ENCCTL_OPT_BAD:
			return ENCCTL_EXIT_USAGE;
		case ENCCTL_OPT_WORD:
			return encctl_err(ENCCTL_EXIT_USAGE,
					  "%s: unexpected argument '%s'; every value follows its option",
					  where, val);
		case OPT_VNC:
		case OPT_VNC_BASE:
			dst = &o->vnc;
			*have_vnc = true;
			break;
		case OPT_CTX:
			dst = &o->ctx;
			break;
		case OPT_GID:
			dst = &o->g_device_id;
			*have_gid = true;
			break;
		case OPT_WS:
			dst = &o->world_size;
			break;
		case OPT_HOLD:
			dst = &o->hold;
			break;
		case OPT_TIMEOUT:
			dst = &o->timeout_ms;
			break;
		case OPT_BARRIERS:
			dst = &o->barriers;
			break;
		case OPT_BARRIER_GROUP:
			if (encctl_parse_u32(where, "--barrier-group", val, ENCD_MAX_COMM_N - 1,
					     &o->barrier_group))
				return ENCCTL_EXIT_USAGE;
			continue;
		case OPT_ROOT:
			o->root = val;
			continue;
		case OPT_PROGRAM:
			o->program = val;
			continue;
		case OPT_NOSIGS:
			o->check_sigs = false;
			continue;
		case OPT_SECRET_FILE:
			o->secret_file = val;
			continue;
		case OPT_FORCE_TCP:
			o->force_tcp = true;
			continue;
		case OPT_SIG_ALL_GROUPS:
			o->sig_all_groups = true;
			continue;
		case OPT_BARRIER:
			o->barrier = true;
			continue;
		case OPT_FROM_ENV:
			o->from_env = true;
			continue;
		case OPT_DRY_RUN:
			o->dry_run = true;
			continue;
		case OPT_LAUNCHER:
			if (parse_launchers(where, val, &o->launchers))
				return ENCCTL_EXIT_USAGE;
			continue;
		case OPT_PORT:
			if (encctl_parse_u32(where, "--port", val, 65535, &o->port))
				return ENCCTL_EXIT_USAGE;
			if (!o->port)
				return encctl_err(ENCCTL_EXIT_USAGE, "%s: --port 0 is no port", where);
			continue;
		default:
			if (parse_ranks(where, val, o))
				return ENCCTL_EXIT_USAGE;
			continue;
		}
		if (encctl_parse_u32(where, p.opt->name, val, UINT32_MAX, dst))
			return ENCCTL_EXIT_USAGE;
	}
	if ((o->launchers || o->port) && !o->from_env)
		return encctl_err(ENCCTL_EXIT_USAGE, "%s: --launcher and --port go with --from-env",
				  where);
	if (o->port && o->root)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "%s: --port is the port of a root the launcher names; --root HOST:PORT has its own",
				  where);
	if ((o->from_env || o->dry_run) && !strcmp(where, "world launch"))
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "world launch: --from-env and --dry-run are for join: a launcher starts each rank itself");
	if (o->from_env) {
		int ret = from_env(where, o, have_vnc, have_gid);

		if (ret)
			return ret;
	}
	if (!o->root)
		return encctl_err(ENCCTL_EXIT_USAGE, "%s: --root HOST:PORT is required", where);
	if (!o->world_size)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "%s: --world-size (or -n) is required, and above 0", where);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static NRT_STATUS step(struct join_result *r, NRT_STATUS st, uint64_t t0, uint64_t *t)
{
	*t = now_us() - t0;
	r->st = st;
	if (st != NRT_SUCCESS) {
		snprintf(r->error, sizeof(r->error), "%s", enc_last_error());
		r->reason = enc_last_reason();
	}
	return st;
}

/*
 * The world secret from --secret-file: its bytes, up to the limit, a final
 * newline dropped (as a file written by echo has one).
 */
static NRT_STATUS read_secret(const char *path, char *buf, size_t size, uint32_t *len)
{
	size_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return enc_set_error(NRT_INVALID, "world join: cannot read the secret file %s: %s",
				     path, strerror(errno));
	n = fread(buf, 1, size, f);
	fclose(f);
	if (n && buf[n - 1] == '\n')
		n--;
	if (!n || n > ENCD_WORLD_SECRET_MAX)
		return enc_set_error_why(NRT_INVALID, ENCD_REASON_ARGUMENT,
					 "world join: the secret file %s holds %zu bytes; a world secret is 1 to %u",
					 path, n, ENCD_WORLD_SECRET_MAX);
	*len = n;
	return NRT_SUCCESS;
}

void encctl_world_run(const struct join_opts *o, struct join_result *r)
{
	struct enc_setup_opts so = {
		.timeout_ms = o->timeout_ms,
		.flags = (o->force_tcp ? ENC_SETUP_FORCE_TCP : 0) |
			 (o->sig_all_groups ? ENC_SETUP_SIG_ALL_GROUPS : 0),
	};
	struct enc_program *prog = NULL;
	char secret[ENCD_WORLD_SECRET_MAX + 2];
	uint8_t sig[ENC_SIG_LEN];
	uint64_t t0;

	t0 = now_us();
	if (step(r, enc_init(), t0, &r->t_build))
		return;
	if (step(r, enc_init_global_comm(o->vnc, o->g_device_id, o->world_size, o->ctx, o->root,
					 o->check_sigs), t0, &r->t_build))
		return;
	t0 = now_us();
	if (o->secret_file) {
		if (step(r, read_secret(o->secret_file, secret, sizeof(secret), &so.secret_len), t0,
			 &r->t_setup))
			return;
		so.secret = secret;
	}
	if (step(r, enc_setup_global_comm_opts(o->vnc, o->ctx, &so, &r->info), t0, &r->t_setup))
		return;
	if (o->program) {
		t0 = now_us();
		if (step(r, enc_program_from_json_file(o->program, &prog), t0, &r->t_load))
			return;
		r->st = enc_program_load(o->vnc, o->ctx, prog);
		enc_program_free(prog);
		if (step(r, r->st, t0, &r->t_load))
			goto node;
		if (step(r, enc_calculate_signature(o->vnc, o->ctx, 0, sig), t0, &r->t_load))
			goto node;
		t0 = now_us();
		r->have_groups = true;
		if (step(r, enc_init_replica_groups_ex(o->vnc, o->ctx, o->timeout_ms, &r->n_new,
						       &r->n_hits), t0, &r->t_init_groups))
			goto node;
	}
	if (o->barrier) {
		t0 = now_us();
		if (step(r, enc_comm_barrier(o->vnc, o->ctx, ENC_GROUP_GLOBAL, o->timeout_ms), t0,
			 &r->t_barrier))
			goto node;
		if (step(r, enc_local_barrier(o->vnc, o->ctx, ENC_GROUP_GLOBAL, o->timeout_ms), t0,
			 &r->t_barrier))
			goto node;
	}
	if (o->barriers) {
		uint64_t *us = calloc(o->barriers, sizeof(*us)), t;
		unsigned int i;

		for (i = 0; us && i < o->barriers; i++) {
			t0 = now_us();
			if (step(r, enc_comm_barrier(o->vnc, o->ctx, o->barrier_group,
						     o->timeout_ms), t0, &t))
				break;
			us[i] = t;
		}
		r->barriers_passed = i;
		if (us && i == o->barriers) {
			qsort(us, o->barriers, sizeof(*us), cmp_u64);
			r->barrier_median_us = us[o->barriers / 2];
		}
		free(us);
		if (r->st != NRT_SUCCESS)
			goto node;
	}
node:
	for (unsigned int g = 0; r->have_groups && g < ENCD_MAX_COMM_N; g++)
		r->have_group[g] = enc_comm_info(o->vnc, o->ctx, g, &r->groups[g]) == NRT_SUCCESS;
	/* The world's record of a mismatch outlives a failed group. */
	r->have_node = enc_comm_info(o->vnc, o->ctx, ENC_GROUP_GLOBAL, &r->node) == NRT_SUCCESS;
}

static void hex(char *out, const uint8_t *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/*
 * The JSON record of one join, built for print_doc_end() (a join that
 * formed) or kept by encctl_err_status() beside the error (one that failed).
 */
static void print_record(const struct join_opts *o, const struct join_result *r)
{
	static const char *const names[ENCD_PHASE_N] = {
		[ENCD_PHASE_RENDEZVOUS] = "rendezvous",
		[ENCD_PHASE_VALIDATE] = "validate",
		[ENCD_PHASE_BROADCAST] = "broadcast",
		[ENCD_PHASE_COMM_INIT] = "comm_init",
		[ENCD_PHASE_LOCAL_BARRIER] = "local_barrier",
	};
	int i;

	print_int(PRINT_JSON, "g_device_id", NULL, o->g_device_id);
	print_int(PRINT_JSON, "vnc", NULL, o->vnc);
	print_int(PRINT_JSON, "rank", NULL, r->info.rank);
	print_int(PRINT_JSON, "rank_n", NULL, r->info.rank_n);
	print_open_object("phases");
	print_int(PRINT_JSON, "build", NULL, r->t_build);
	print_int(PRINT_JSON, "setup", NULL, r->t_setup);
	for (i = 0; i < ENCD_PHASE_N; i++)
		print_int(PRINT_JSON, names[i], NULL, r->info.phase_ns[i] / 1000);
	print_int(PRINT_JSON, "load", NULL, r->t_load);
	print_int(PRINT_JSON, "init_groups", NULL, r->t_init_groups);
	print_int(PRINT_JSON, "barrier", NULL, r->t_barrier);
	print_close();
	if (o->barriers) {
		print_int(PRINT_JSON, "barrier_median_us", NULL, r->barrier_median_us);
		print_int(PRINT_JSON, "barriers_passed", NULL, r->barriers_passed);
	}
	if (r->have_groups) {
		static const char *const gph[ENCD_PHASE_N] = {
			[ENCD_PHASE_VALIDATE] = "validate",
			[ENCD_PHASE_BROADCAST] = "broadcast",
			[ENCD_PHASE_COMM_INIT] = "ring",
			[ENCD_PHASE_LOCAL_BARRIER] = "local_barrier",
		};

		print_open_object("groups");
		print_int(PRINT_JSON, "new", NULL, r->n_new);
		print_int(PRINT_JSON, "hits", NULL, r->n_hits);
		print_close();
		/* Each group's comm, with its own bootstrap's phases in microseconds. */
		print_open_array("group_comms");
		for (i = 0; i < ENCD_MAX_COMM_N; i++) {
			const struct encd_node_info *ni = &r->groups[i];
			int k;

			if (!r->have_group[i])
				continue;
			print_open_object(NULL);
			print_int(PRINT_JSON, "group_id", NULL, i);
			print_int(PRINT_JSON, "stream", NULL, ni->stream_id);
			print_int(PRINT_JSON, "rank", NULL, ni->rank);
			print_int(PRINT_JSON, "rank_n", NULL, ni->rank_n);
			print_bool(PRINT_JSON, "global", NULL, ni->out_flags & ENCD_NODE_OUT_GLOBAL);
			print_bool(PRINT_JSON, "bound", NULL, ni->out_flags & ENCD_NODE_OUT_BOUND);
			for (k = ENCD_PHASE_VALIDATE; k < ENCD_PHASE_N; k++)
				print_int(PRINT_JSON, gph[k], NULL, ni->phase_ns[k] / 1000);
			print_close();
		}
		print_close();
	}
	if (r->have_node) {
		uint32_t k;

		print_open_array("counters");
		for (k = 0; k < r->node.n_counters && k < ENCD_NODE_COUNTERS_MAX; k++) {
			print_open_object(NULL);
			print_int(PRINT_JSON, "type", NULL, r->node.counters[k].type);
			print_int(PRINT_JSON, "size", NULL, r->node.counters[k].size);
			print_int(PRINT_JSON, "tx", NULL, r->node.counters[k].tx);
			print_int(PRINT_JSON, "rx", NULL, r->node.counters[k].rx);
			print_close();
		}
		print_close();
	}
	if (r->have_node && r->node.mismatch.valid) {
		char a[33], b[33];

		hex(a, r->node.mismatch.local_sig, 16);
		hex(b, r->node.mismatch.child_sig, 16);
		print_open_object("mismatch");
		print_int(PRINT_JSON, "group_id", NULL, (int32_t)r->node.mismatch.group_id);
		print_int(PRINT_JSON, "child_rank", NULL, r->node.mismatch.child_rank);
		print_int(PRINT_JSON, "child_g_device_id", NULL,
			  r->node.mismatch.child_g_device_id);
		print_string(PRINT_JSON, "local_sig", NULL, a);
		print_string(PRINT_JSON, "child_sig", NULL, b);
		print_close();
	}
}

/* A root_comm_id on loopback, as the kernel reads one: 127/8, localhost, [::1]. */
static bool root_on_loopback(const char *root)
{
	return !strncmp(root, "127.", 4) || !strncmp(root, "localhost:", 10) ||
	       !strncmp(root, "[::1]:", 6);
}

/* --dry-run: what a join would use, and where each value came from. */
int encctl_world_print_dry_run(const struct join_opts *o)
{
	static const char *const keys[ENC_LAUNCH_FIELD_N] = {
		[ENC_LAUNCH_RANK] = "g_device_id", [ENC_LAUNCH_WORLD_SIZE] = "world_size",
		[ENC_LAUNCH_LOCAL_RANK] = "vnc", [ENC_LAUNCH_ROOT] = "root",
	};
	static const char *const opts[ENC_LAUNCH_FIELD_N] = {
		[ENC_LAUNCH_RANK] = "--g-device-id", [ENC_LAUNCH_WORLD_SIZE] = "--world-size",
		[ENC_LAUNCH_LOCAL_RANK] = "--vnc", [ENC_LAUNCH_ROOT] = "--root",
	};
	const struct enc_launch *l = &o->launch;
	const char *env = getenv(ENC_WORLD_SECRET_ENV);
	/* libenc takes an empty ENC_WORLD_SECRET for none. */
	const char *secret = o->secret_file ? "--secret-file" :
			     env && *env ? ENC_WORLD_SECRET_ENV : NULL;
	const char *from[ENC_LAUNCH_FIELD_N];
	int f, id;

	for (f = 0; f < ENC_LAUNCH_FIELD_N; f++)
		from[f] = o->from_env ? l->from[f] : opts[f];
	print_open_object(NULL);
	print_open_array("launchers");
	print_text("launchers:");
	for (id = 0; id < ENC_LAUNCHER_N; id++)
		if (l->present & (1u << id))
			print_string(PRINT_ANY, NULL, " %s", enc_launcher_name(id));
	print_close();
	print_text("%s\n", l->present ? "" : " none");
	print_uint(PRINT_ANY, keys[ENC_LAUNCH_RANK], "rank %u", o->g_device_id);
	print_text(" (%s)\n", from[ENC_LAUNCH_RANK]);
	print_uint(PRINT_ANY, keys[ENC_LAUNCH_WORLD_SIZE], "world size %u", o->world_size);
	print_text(" (%s)\n", from[ENC_LAUNCH_WORLD_SIZE]);
	print_uint(PRINT_ANY, keys[ENC_LAUNCH_LOCAL_RANK], "vnc %u", o->vnc);
	print_text(" (%s)\n", from[ENC_LAUNCH_LOCAL_RANK]);
	print_uint(PRINT_ANY, "ctx", "ctx %u\n", o->ctx);
	print_string(PRINT_ANY, keys[ENC_LAUNCH_ROOT], "root %s", o->root);
	print_text(" (%s", from[ENC_LAUNCH_ROOT]);
	if (l->root_host[0])
		print_string(PRINT_ANY, "root_host", ", host %s", l->root_host);
	print_text(")\n");
	if (secret)
		print_string(PRINT_ANY, "secret", "secret from %s\n", secret);
	else
		print_null("secret");
	if (!secret && (o->world_size == 1 || root_on_loopback(o->root)))
		print_text("no secret: a world on loopback is keyed by the kernel, for its user\n");
	else if (!secret)
		print_text("no secret: the kernel refuses a root off loopback without one, unless encd was loaded with allow_insecure_worlds=1\n");
	print_open_object("from");
	for (f = 0; f < ENC_LAUNCH_FIELD_N; f++)
		print_string(PRINT_JSON, keys[f], NULL, from[f]);
	print_close();
	print_doc_end();
	return ENCCTL_EXIT_OK;
}

int encctl_world_parse_rank(const char *where, int argc, char **argv, struct join_opts *o)
{
	bool have_vnc = false, have_gid = false;
	int ret;

	ret = encctl_world_parse(where, argc, argv, o, &have_vnc, &have_gid);
	if (ret)
		return ret;
	if (!have_vnc)
		return encctl_err(ENCCTL_EXIT_USAGE, "%s: --vnc is required", where);
	if (!have_gid)
		return encctl_err(ENCCTL_EXIT_USAGE, "%s: --g-device-id is required", where);
	return 0;
}

static int world_join(int argc, char **argv)
{
	struct join_opts o = {};
	struct join_result r = {};
	int ret;

	ret = encctl_world_parse_rank("world join", argc, argv, &o);
	if (ret)
		return ret;
	if (o.dry_run)
		return encctl_world_print_dry_run(&o);
	encctl_world_run(&o, &r);
	print_open_object(NULL);
	if (r.st != NRT_SUCCESS) {
		print_record(&o, &r);
		encctl_err_status(0, enc_status_name(r.st), enc_reason_name(r.reason),
				  ENCCTL_ERR_KEEP_DOC, "world join: rank %u: %s", o.g_device_id,
				  r.error);
	} else if (encctl_opts.json) {
		print_bool(PRINT_JSON, "ok", NULL, true);
		print_null("error");
		print_string(PRINT_JSON, "status", NULL, enc_status_name(r.st));
		print_null("reason");
		print_record(&o, &r);
		print_doc_end();
	} else {
		printf("rank %u of %u: world %s on vnc %u (rendezvous %llu us, validate %llu us, broadcast %llu us, comm init %llu us)\n",
		       r.info.rank, r.info.rank_n, r.info.formed ? "formed" : "joined", o.vnc,
		       (unsigned long long)r.info.phase_ns[ENCD_PHASE_RENDEZVOUS] / 1000,
		       (unsigned long long)r.info.phase_ns[ENCD_PHASE_VALIDATE] / 1000,
		       (unsigned long long)r.info.phase_ns[ENCD_PHASE_BROADCAST] / 1000,
		       (unsigned long long)(r.info.phase_ns[ENCD_PHASE_COMM_INIT] +
					    r.info.phase_ns[ENCD_PHASE_LOCAL_BARRIER]) / 1000);
		if (r.have_groups)
			printf("rank %u: %u replica group comms bootstrapped, %u from the pool\n",
			       r.info.rank, r.n_new, r.n_hits);
	}
	fflush(stdout);
	if (r.st == NRT_SUCCESS && o.hold)
		sleep(o.hold);
	enc_destroy_gcomm_locks();
	return r.st == NRT_SUCCESS ? ENCCTL_EXIT_OK : ENCCTL_EXIT_FAIL;
}

static int world_launch(int argc, char **argv)
{
	struct join_opts o = {};
	bool have_vnc = false, have_gid = false;
	unsigned int i, succeeded = 0;
	int ret, fork_err = 0;
	pid_t *pids;

	ret = encctl_world_parse("world launch", argc, argv, &o, &have_vnc, &have_gid);
	if (ret)
		return ret;
	if (have_gid)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "world launch: --g-device-id is for join; launch numbers its ranks itself (see --ranks)");

	/* By default every rank of the world, here; --ranks F:C only some. */
	if (!o.count) {
		o.first = 0;
		o.count = o.world_size;
	}
	if (o.first >= o.world_size || o.count > o.world_size - o.first)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "world launch: --ranks %u:%u is not inside a world of %u (ranks 0 to %u)",
				  o.first, o.count, o.world_size, o.world_size - 1);
	pids = calloc(o.count, sizeof(*pids));
	if (!pids)
		return encctl_err(ENCCTL_EXIT_FAIL, "world launch: out of memory");
	fflush(stdout);
	for (i = 0; i < o.count; i++) {
		char vnc[16], gid[16], ws[16], ctx[16], hold[16], tmo[16], nb[16], bg[16];
		char prog[4096];
		char *args[32];
		int a = 0;

		snprintf(vnc, sizeof(vnc), "%u", o.vnc + i);
		snprintf(gid, sizeof(gid), "%u", o.first + i);
		snprintf(ws, sizeof(ws), "%u", o.world_size);
		snprintf(ctx, sizeof(ctx), "%u", o.ctx);
		snprintf(hold, sizeof(hold), "%u", o.hold);
		snprintf(tmo, sizeof(tmo), "%u", o.timeout_ms);
		args[a++] = "encctl";
		if (encctl_opts.json)
			args[a++] = "-j";
		args[a++] = "world";
		args[a++] = "join";
		args[a++] = "--vnc";
		args[a++] = vnc;
		args[a++] = "--ctx";
		args[a++] = ctx;
		args[a++] = "--g-device-id";
		args[a++] = gid;
		args[a++] = "--world-size";
		args[a++] = ws;
		args[a++] = "--root";
		args[a++] = (char *)o.root;
		args[a++] = "--hold";
		args[a++] = hold;
		args[a++] = "--timeout-ms";
		args[a++] = tmo;
		snprintf(nb, sizeof(nb), "%u", o.barriers);
		args[a++] = "--barriers";
		args[a++] = nb;
		if (o.barrier_group != ENC_GROUP_GLOBAL) {
			snprintf(bg, sizeof(bg), "%u", o.barrier_group);
			args[a++] = "--barrier-group";
			args[a++] = bg;
		}
		if (o.program) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(prog, sizeof(prog), o.program, o.first + i);
#pragma GCC diagnostic pop
			args[a++] = "--program";
			args[a++] = prog;
		}
		if (!o.check_sigs)
			args[a++] = "--no-check-sigs";
		if (o.secret_file) {
			args[a++] = "--secret-file";
			args[a++] = (char *)o.secret_file;
		}
		if (o.force_tcp)
			args[a++] = "--force-tcp";
		if (o.sig_all_groups)
			args[a++] = "--sig-all-groups";
		if (o.barrier)
			args[a++] = "--barrier";
		args[a] = NULL;
		pids[i] = fork();
		if (pids[i] < 0) {
			fork_err = errno;
			break;
		}
		if (!pids[i]) {
			execv("/proc/self/exe", args);
			encctl_err(0, "world launch: exec: %s", strerror(errno));
			_exit(127);
		}
	}
	for (i = 0; i < o.count; i++) {
		int status;

		if (pids[i] <= 0)
			continue;
		if (waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status) &&
		    !WEXITSTATUS(status))
			succeeded++;
	}
	free(pids);
	if (succeeded == o.count) {
		if (!encctl_opts.json)
			printf("%u of %u ranks succeeded\n", o.count, o.count);
		return ENCCTL_EXIT_OK;
	}
	/* The ranks a failed fork() never started count as failed. */
	if (fork_err)
		return encctl_err(ENCCTL_EXIT_FAIL, "world launch: fork: %s; %u of %u ranks failed",
				  strerror(fork_err), o.count - succeeded, o.count);
	return encctl_err(ENCCTL_EXIT_FAIL, "world launch: %u of %u ranks failed",
			  o.count - succeeded, o.count);
}

static const struct cmd cmds[] = {
	{ "join", world_join },
	{ "launch", world_launch },
	{ "check", encctl_world_check },
	{ "help", world_help },
	{ NULL, NULL },
};

int do_world(int argc, char **argv)
{
	return cmd_select(cmds, "world", argc, argv, NULL);
}
