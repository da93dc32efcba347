// SPDX-License-Identifier: GPL-2.0
/*
 * The install test's reader of a JSON program (tools/pkg/install-test.sh),
 * built in the VM against the installed libenc-json with `pkg-config --cflags
 * --libs libenc-json`. It reads FILE.json into a program, builds the global
 * comm on NeuronCore VNC, context 0, as global device G of a world of WORLD
 * ranks (signing needs no formed world), loads the program there and prints
 * the global signature the kernel computes, as 32 hex digits; the test
 * compares that with what the installed encctl's `program sign` prints and
 * with selftests/programs/sign.py's.
 *
 *   install-test-sign FILE.json VNC G WORLD
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <enc/enc.h>
#include <enc/json.h>
#include <enc/program.h>

static int parse_uint(const char *s, unsigned int max, unsigned int *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || n > max)
		return -1;
	*v = n;
	return 0;
}

static int fail(const char *call, NRT_STATUS st)
{
	fprintf(stderr, "install-test-sign: %s: %s: %s\n", call, enc_status_name(st),
		enc_last_error());
	return 1;
}

int main(int argc, char **argv)
{
	uint8_t global[ENC_SIG_LEN];
	struct enc_program *prog;
	unsigned int vnc, g, world;
	NRT_STATUS st;
	int i;

	if (argc != 5 || parse_uint(argv[2], 255, &vnc) || parse_uint(argv[4], 256, &world) ||
	    world == 0 || parse_uint(argv[3], world - 1, &g)) {
		fprintf(stderr, "usage: %s FILE.json VNC G WORLD\n"
			"(VNC 0-255, WORLD 1-256, G below WORLD)\n", argv[0]);
		return 2;
	}

	st = enc_program_from_json_file(argv[1], &prog);
	if (st != NRT_SUCCESS)
		return fail("enc_program_from_json_file", st);
	st = enc_init();
	if (st != NRT_SUCCESS)
		return fail("enc_init", st);
	st = enc_init_global_comm(vnc, g, world, 0, "", false);
	if (st != NRT_SUCCESS)
		return fail("enc_init_global_comm", st);
	st = enc_program_load(vnc, 0, prog);
	enc_program_free(prog);
	if (st != NRT_SUCCESS)
		return fail("enc_program_load", st);
	st = enc_calculate_signature(vnc, 0, 0, global);
	if (st != NRT_SUCCESS)
		return fail("enc_calculate_signature", st);
	for (i = 0; i < ENC_SIG_LEN; i++)
		printf("%02x", global[i]);
	printf("\n");

	st = enc_release_global_comm(vnc, 0);
	if (st != NRT_SUCCESS)
		return fail("enc_release_global_comm", st);
	enc_destroy_gcomm_locks();
	return 0;
}
