// SPDX-License-Identifier: GPL-2.0
/*
 * encctl program: collective programs through libenc.
 *
 *   encctl [-j] program sign FILE.json --vnc V [--ctx C]
 *                        [--g-device-id G --world-size N] [--all-groups] [-j]
 *
 * sign attaches to the global comm on (V, C), building it first as global
 * device G of a world of N when there is none, loads the program there and
 * has the kernel sign it, then prints every digest. With -j the output is
 * {"global": "<32 hex>", "replica_groups": [{"group_id": N, "signature":
 * "<32 hex>"}, ...], "src_target_pairs": [{"id": N, "signature": "<32 hex>"},
 * ...]}; a replica group the signing skipped (rank != -1, no --all-groups)
 * has an all-zero signature. The comm and the program live as long as this
 * process, unless another holder keeps the comm.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enc/enc.h>
#include <enc/json.h>
#include <enc/program.h>

#include "encctl.h"
#include "print.h"

struct sign_opts {
	const char *file;
	unsigned int vnc, ctx, g_device_id, world_size;
	bool has_vnc, has_identity, all_groups;
};

static void program_usage(void)
{
	fprintf(stderr,
		"Usage: encctl [-j] program sign FILE.json --vnc V [--ctx C]\n"
		"                         [--g-device-id G --world-size N] [--all-groups] [-j]\n"
		"\n"
		"Loads FILE.json (Documentation/program-format.rst) for the global comm on\n"
		"core V, context C (default 0), building that comm as global device G of N\n"
		"when it does not exist, and prints the op-signatures the kernel computes.\n"
		"--all-groups also hashes the replica groups whose rank is not -1.\n");
}

static bool parse_uint(const char *s, unsigned int *v)
{
	unsigned long x;
	char *end;

	if (!*s || *s == '-')
		return false;
	x = strtoul(s, &end, 0);
	if (*end || x > UINT32_MAX)
		return false;
	*v = x;
	return true;
}

static int parse_sign(int argc, char **argv, struct sign_opts *o)
{
	static const struct option longopts[] = {
		{ "vnc", required_argument, NULL, 'v' },
		{ "ctx", required_argument, NULL, 'c' },
		{ "g-device-id", required_argument, NULL, 'g' },
		{ "world-size", required_argument, NULL, 'n' },
		{ "all-groups", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool has_g = false, has_n = false;
	int c;

	/* 0, not 1: main() already ran getopt, whose state must start over. */
	optind = 0;
	while ((c = getopt_long(argc, argv, "jph", longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (!parse_uint(optarg, &o->vnc))
				goto bad_number;
			o->has_vnc = true;
			break;
		case 'c':
			if (!parse_uint(optarg, &o->ctx))
				goto bad_number;
			break;
		case 'g':
			if (!parse_uint(optarg, &o->g_device_id))
				goto bad_number;
			has_g = true;
			break;
		case 'n':
			if (!parse_uint(optarg, &o->world_size))
				goto bad_number;
			has_n = true;
			break;
		case 'a':
			o->all_groups = true;
			break;
		case 'j':
			encctl_opts.json = true;
			break;
		case 'p':
			encctl_opts.pretty = true;
			break;
		case 'h':
			program_usage();
			return ENCCTL_EXIT_OK;
		default:
			program_usage();
			return ENCCTL_EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !o->has_vnc || has_g != has_n) {
		fprintf(stderr, "encctl program sign: %s\n",
			optind > argc - 1 ? "FILE.json is missing" :
			optind < argc - 1 ? "give exactly one FILE.json" :
			!o->has_vnc ? "--vnc is required" :
			"--g-device-id and --world-size go together");
		program_usage();
		return ENCCTL_EXIT_USAGE;
	}
	o->file = argv[optind];
	o->has_identity = has_g;
	return -1;

bad_number:
	fprintf(stderr, "encctl program sign: '%s' is not a number from 0 to %u\n", optarg,
		UINT32_MAX);
	return ENCCTL_EXIT_USAGE;
}

/* Makes this process a holder of the comm on (vnc, ctx), building it if asked. */
static NRT_STATUS attach(const struct sign_opts *o)
{
	uint32_t g_device_id, world_size;
	NRT_STATUS st;

	if (o->has_identity)
		return enc_init_global_comm(o->vnc, o->g_device_id, o->world_size, o->ctx, "",
					    false);
	st = enc_get_glb_device_id_and_cnt(o->vnc, o->ctx, &g_device_id, &world_size);
	if (st != NRT_SUCCESS) {
		char why[512];

		snprintf(why, sizeof(why), "%s", enc_last_error());
		fprintf(stderr, "encctl: %s\n", why);
		fprintf(stderr,
			"encctl: to build a global comm on core %u context %u, give --g-device-id and --world-size\n",
			o->vnc, o->ctx);
		return st;
	}
	/* The same world again only attaches. */
	return enc_init_global_comm(o->vnc, g_device_id, world_size, o->ctx, "", false);
}

static const char *hex(const uint8_t *d, char *buf)
{
	int i;

	for (i = 0; i < ENC_SIG_LEN; i++)
		sprintf(buf + 2 * i, "%02x", d[i]);
	return buf;
}

static void print_sigs(const struct enc_program_signatures *sigs)
{
	char h[2 * ENC_SIG_LEN + 1];
	uint32_t i;

	print_open_object(NULL);
	print_string(PRINT_ANY, "global", "global %s\n", hex(sigs->global, h));
	print_open_array("replica_groups");
	for (i = 0; i < sigs->n_groups; i++) {
		print_open_object(NULL);
		print_uint(PRINT_ANY, "group_id", "replica_group %-4llu",
			   sigs->groups[i].id);
		print_string(PRINT_ANY, "signature", " %s", hex(sigs->groups[i].digest, h));
		print_text("%s\n", sigs->groups[i].hashed ? "" : " (not hashed)");
		print_close();
	}
	print_close();
	print_open_array("src_target_pairs");
	for (i = 0; i < sigs->n_stps; i++) {
		print_open_object(NULL);
		print_uint(PRINT_ANY, "id", "src_target_pairs %-4llu", sigs->stps[i].id);
		print_string(PRINT_ANY, "signature", " %s\n", hex(sigs->stps[i].digest, h));
		print_close();
	}
	print_close();
	print_close();
	print_doc_end();
}

static int program_sign(int argc, char **argv)
{
	struct enc_program_signatures *sigs = NULL;
	struct sign_opts o = { 0 };
	struct enc_program *prog = NULL;
	NRT_STATUS st;
	int rc;

	rc = parse_sign(argc, argv, &o);
	if (rc >= 0)
		return rc;

	st = enc_init();
	if (st == NRT_SUCCESS)
		st = attach(&o);
	if (st == NRT_SUCCESS)
		st = enc_program_from_json_file(o.file, &prog);
	if (st == NRT_SUCCESS)
		st = enc_program_load(o.vnc, o.ctx, prog);
	if (st == NRT_SUCCESS)
		st = enc_calculate_signature(o.vnc, o.ctx, o.all_groups ? ENC_SIG_ALL_GROUPS : 0,
					     NULL);
	if (st == NRT_SUCCESS)
		st = enc_program_get_signatures(o.vnc, o.ctx, &sigs);
	if (st == NRT_SUCCESS)
		print_sigs(sigs);
	else
		fprintf(stderr, "encctl: %s (%s)\n", enc_last_error(), enc_status_name(st));

	enc_program_signatures_free(sigs);
	enc_program_free(prog);
	enc_destroy_gcomm_locks();
	return st == NRT_SUCCESS ? ENCCTL_EXIT_OK : ENCCTL_EXIT_FAIL;
}

static int program_run(int argc, char **argv)
{
	if (argc < 1) {
		program_usage();
		return ENCCTL_EXIT_USAGE;
	}
	if (!strcmp(argv[0], "sign"))
		return program_sign(argc, argv);
	fprintf(stderr, "encctl program: unknown command '%s'\n", argv[0]);
	program_usage();
	return ENCCTL_EXIT_USAGE;
}

const struct encctl_cmd encctl_cmd_program = {
	.name = "program",
	.summary = "sign a collective program (JSON) through the kernel",
	.run = program_run,
	.usage = program_usage,
};
