// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of the install test's world (tools/pkg/install-test.sh), built in
 * the VM against the installed libenc with `pkg-config --cflags --libs
 * libenc`. Rank RANK of a world of WORLD ranks, on NeuronCore RANK, context
 * 0, with its root at 127.0.0.1:PORT: it forms the world, says so, and holds
 * its global comm until its standard input closes, so that encctl can show
 * the world meanwhile; then it lets go.
 *
 *   install-test-world RANK WORLD PORT
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <enc/bootstrap.h>
#include <enc/enc.h>

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

static int fail(unsigned int rank, const char *call, NRT_STATUS st)
{
	fprintf(stderr, "rank %u: %s: %s: %s\n", rank, call, enc_status_name(st),
		enc_last_error());
	return 1;
}

int main(int argc, char **argv)
{
	unsigned int rank, world, port;
	char root[32], buf[64];
	NRT_STATUS st;
	ssize_t n;

	if (argc != 4 || parse_uint(argv[2], 256, &world) || world == 0 ||
	    parse_uint(argv[1], world - 1, &rank) || parse_uint(argv[3], 65535, &port) ||
	    port == 0) {
		fprintf(stderr, "usage: %s RANK WORLD PORT (RANK below WORLD, PORT 1-65535)\n",
			argv[0]);
		return 2;
	}
	snprintf(root, sizeof(root), "127.0.0.1:%u", port);

	st = enc_init();
	if (st != NRT_SUCCESS)
		return fail(rank, "enc_init", st);
	st = enc_init_global_comm(rank, rank, world, 0, root, false);
	if (st != NRT_SUCCESS)
		return fail(rank, "enc_init_global_comm", st);
	st = enc_setup_global_comm(rank, 0);
	if (st != NRT_SUCCESS)
		return fail(rank, "enc_setup_global_comm", st);
	printf("rank %u: world of %u formed\n", rank, world);
	fflush(stdout);

	do
		n = read(STDIN_FILENO, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));

	st = enc_release_global_comm(rank, 0);
	if (st != NRT_SUCCESS)
		return fail(rank, "enc_release_global_comm", st);
	enc_destroy_gcomm_locks();
	return 0;
}
