// SPDX-License-Identifier: GPL-2.0
/*
 * encctl: look at and drive encd. Each object (status, comm, topo, monitor,
 * program, ...) lives in its own file and registers in the table below.
 */
#include <stdio.h>
#include <string.h>
#include <getopt.h>

#include "encctl.h"
#include "commands.h"

#ifndef ENCCTL_VERSION
#define ENCCTL_VERSION "0"
#endif

struct encctl_opts encctl_opts;

static const struct encctl_cmd *const commands[] = {
	ENCCTL_COMMANDS
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: encctl [-j] [-p] [-V] OBJECT [ARGS...]\n\nObjects:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\n'encctl OBJECT --help' tells more.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "+jpVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			encctl_opts.json = true;
			break;
		case 'p':
			encctl_opts.pretty = true;
			break;
		case 'V':
			printf("encctl %s\n", ENCCTL_VERSION);
			return ENCCTL_EXIT_OK;
		case 'h':
			usage(stdout);
			return ENCCTL_EXIT_OK;
		default:
			usage(stderr);
			return ENCCTL_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return ENCCTL_EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct encctl_cmd *cmd = commands[i];

		if (strcmp(argv[optind], cmd->name))
			continue;
		if (argc > optind + 1 && (!strcmp(argv[optind + 1], "--help") ||
					  !strcmp(argv[optind + 1], "help"))) {
			cmd->usage();
			return ENCCTL_EXIT_OK;
		}
		return cmd->run(argc - optind - 1, argv + optind + 1);
	}
	fprintf(stderr, "encctl: unknown object '%s'\n", argv[optind]);
	usage(stderr);
	return ENCCTL_EXIT_USAGE;
}
