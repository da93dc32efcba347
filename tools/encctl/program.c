// SPDX-License-Identifier: GPL-2.0
/*
 * encctl program: collective programs through libenc.
 *
 *   encctl [-j] program sign FILE.json --vnc V [--ctx C]
 *                        [--g-device-id G --world-size N] [--all-groups]
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enc/enc.h>
#include <enc/json.h>
#include <enc/program.h>

#include "args.h"
#include "encctl.h"
#include "print.h"

struct sign_opts {
	const char *file;
	uint32_t vnc, ctx, g_device_id, world_size;
	bool has_vnc, has_identity, all_groups;
};

enum { SIGN_VNC, SIGN_CTX, SIGN_G_DEVICE_ID, SIGN_WORLD_SIZE, SIGN_ALL_GROUPS };

const struct encctl_opt encctl_sign_opts[] = {
	{ "--vnc", true, SIGN_VNC },
	{ "--ctx", true, SIGN_CTX },
	{ "--g-device-id", true, SIGN_G_DEVICE_ID },
	{ "--world-size", true, SIGN_WORLD_SIZE },
	{ "--all-groups", false, SIGN_ALL_GROUPS },
	{ NULL, false, 0 },
};

static int program_help(int argc, char **argv)
{
	int ret = encctl_no_args("program help", argc, argv);

	if (ret)
		return ret;
	printf("Usage: encctl [-j [-p]] program sign FILE.json --vnc V [--ctx C]\n"
	       "                         [--g-device-id G --world-size N] [--all-groups]\n"
	       "       encctl program help\n"
	       "\n"
	       "Loads FILE.json (Documentation/program-format.rst) for the global comm on\n"
	       "core V, context C (default 0), building that comm as global device G of N\n"
	       "when it does not exist, and prints the op-signatures the kernel computes.\n"
	       "--all-groups also hashes the replica groups whose rank is not -1.\n");
	return ENCCTL_EXIT_OK;
}

/* 0, or the exit code after saying what is wrong with the line. */
static int parse_sign(int argc, char **argv, struct sign_opts *o)
{
	struct encctl_optparse p = {
		.where = "program sign", .opts = encctl_sign_opts, .argc = argc, .argv = argv,
	};
	bool has_g = false, has_n = false;
	const char *val;
	uint32_t *dst;
	int id;

	while ((id = encctl_opt_next(&p, &val)) != ENCCTL_OPT_END) {
		switch (id) {
		case ENCCTL_OPT_BAD:
			return ENCCTL_EXIT_USAGE;
		case ENCCTL_OPT_WORD:
			if (o->file)
				return encctl_err(ENCCTL_EXIT_USAGE,
						  "program sign: give exactly one FILE.json, not '%s' and '%s'",
						  o->file, val);
			o->file = val;
			continue;
		case SIGN_ALL_GROUPS:
			o->all_groups = true;
			continue;
		case SIGN_VNC:
			dst = &o->vnc;
			o->has_vnc = true;
			break;
		case SIGN_CTX:
			dst = &o->ctx;
			break;
		case SIGN_G_DEVICE_ID:
			dst = &o->g_device_id;
			has_g = true;
			break;
		default:
			dst = &o->world_size;
			has_n = true;
			break;
		}
		if (encctl_parse_u32(p.where, p.opt->name, val, UINT32_MAX, dst))
			return ENCCTL_EXIT_USAGE;
	}
	if (!o->file)
		return encctl_err(ENCCTL_EXIT_USAGE, "program sign: FILE.json is missing");
	if (!o->has_vnc)
		return encctl_err(ENCCTL_EXIT_USAGE, "program sign: --vnc is required");
	if (has_g != has_n)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "program sign: --g-device-id and --world-size go together");
	o->has_identity = has_g;
	return 0;
}

/*
 * Makes this process a holder of the comm on (vnc, ctx), building it if asked;
 * *@no_comm when there is none to attach to (the kernel's reason says so)
 * and nothing to build it from.
 */
static NRT_STATUS attach(const struct sign_opts *o, bool *no_comm)
{
	uint32_t g_device_id, world_size;
	NRT_STATUS st;

	if (o->has_identity)
		return enc_init_global_comm(o->vnc, o->g_device_id, o->world_size, o->ctx, "",
					    false);
	st = enc_get_glb_device_id_and_cnt(o->vnc, o->ctx, &g_device_id, &world_size);
	if (st != NRT_SUCCESS) {
		*no_comm = enc_last_reason() == ENCD_REASON_NO_COMM;
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
	bool no_comm = false;
	NRT_STATUS st;
	int rc;

	rc = parse_sign(argc, argv, &o);
	if (rc)
		return rc;

	st = enc_init();
	if (st == NRT_SUCCESS)
		st = attach(&o, &no_comm);
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
	else if (no_comm)
		encctl_err_status(0, enc_status_name(st), enc_reason_name(enc_last_reason()), 0,
				  "%s; to build a global comm on core %u context %u, give --g-device-id and --world-size",
				  enc_last_error(), o.vnc, o.ctx);
	else
		encctl_err_status(0, enc_status_name(st), enc_reason_name(enc_last_reason()), 0,
				  "%s", enc_last_error());

	enc_program_signatures_free(sigs);
	enc_program_free(prog);
	enc_destroy_gcomm_locks();
	return st == NRT_SUCCESS ? ENCCTL_EXIT_OK : ENCCTL_EXIT_FAIL;
}

static const struct cmd cmds[] = {
	{ "sign", program_sign },
	{ "help", program_help },
	{ NULL, NULL },
};

int do_program(int argc, char **argv)
{
	return cmd_select(cmds, "program", argc, argv, NULL);
}
