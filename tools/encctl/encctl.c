// SPDX-License-Identifier: GPL-2.0
/*
 * encctl: look at and drive encd. main() takes encctl's own options from
 * anywhere on the line (bpftool accepts them before or after the command),
 * then hands the words left to the table of objects; each object (status,
 * comm, topo, monitor, world, program) lives in its own file, with its own
 * table of commands.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "encctl.h"
#include "print.h"

#ifndef ENCCTL_VERSION
#define ENCCTL_VERSION "0"
#endif

struct encctl_opts encctl_opts;

/* What each of encctl's own options asks for; -jp is -j -p. */
enum {
	OPT_JSON = 1,
	OPT_PRETTY = 2,
	OPT_VERSION = 4,
	OPT_HELP = 8,
};

const struct encctl_opt encctl_global_opts[] = {
	{ "-j", false, OPT_JSON },
	{ "--json", false, OPT_JSON },
	{ "-p", false, OPT_PRETTY },
	{ "--pretty", false, OPT_PRETTY },
	{ "-V", false, OPT_VERSION },
	{ "--version", false, OPT_VERSION },
	{ "-h", false, OPT_HELP },
	{ "--help", false, OPT_HELP },
	{ NULL, false, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: encctl [-j [-p]] [-V] OBJECT [COMMAND] [ARGS...]\n"
		"       encctl OBJECT help\n"
		"\n"
		"Objects:\n"
		"  status     one screen: is every world on this host healthy?\n"
		"  comm       global comms and their comm nodes\n"
		"  topo       the host's topology and virtual NeuronCores; set it (admin)\n"
		"  monitor    print encd's events as they happen\n"
		"  world      form or join a collective world (join, launch)\n"
		"  program    sign a collective program (JSON) through the kernel\n"
		"\n"
		"-j (--json), -p (--pretty, with -j) and -V (--version) work before or after\n"
		"the object; -h (--help) gives this text before it and the object's after it.\n"
		"Words and options are never abbreviated. 'encctl OBJECT help' tells more.\n");
}

static int do_help(int argc, char **argv)
{
	int ret = encctl_no_args("help", argc, argv);

	if (!ret)
		usage(stdout);
	return ret;
}

static const struct cmd objects[] = {
	{ "status", do_status },
	{ "comm", do_comm },
	{ "topo", do_topo },
	{ "monitor", do_monitor },
	{ "world", do_world },
	{ "program", do_program },
	{ "help", do_help },
	{ NULL, NULL },
};

/* The OPT_* that @arg asks for: one of the names above, or a cluster of j, p, V, h; 0: none. */
static int global_opt(const char *arg)
{
	const struct encctl_opt *o;
	int flags = 0;

	for (o = encctl_global_opts; o->name; o++)
		if (!strcmp(arg, o->name))
			return o->id;
	if (arg[0] != '-' || !arg[1] || arg[1] == '-')
		return 0;
	for (arg++; *arg; arg++) {
		for (o = encctl_global_opts; o->name; o++)
			if (o->name[1] == *arg && !o->name[2])
				break;
		if (!o->name)
			return 0;
		flags |= o->id;
	}
	return flags;
}

int main(int argc, char **argv)
{
	static char help[] = "help";
	char **words = argv + 1;	/* what is left once encctl's options are taken out */
	bool object_seen = false, words_only = false, object_help = false;
	int i, n = 0, flags, ret;

	/*
	 * -j and -p first, wherever they are: they decide how even the errors
	 * below look. A "--" after the object ends them (the object's words
	 * follow it); one before the object is only skipped.
	 */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--") && object_seen)
			break;
		flags = global_opt(argv[i]);
		encctl_opts.json |= flags & OPT_JSON;
		encctl_opts.pretty |= flags & OPT_PRETTY;
		object_seen |= !flags && (argv[i][0] != '-' || !argv[i][1]);
	}

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (words_only) {
			words[n++] = argv[i];
			continue;
		}
		if (!strcmp(arg, "--")) {
			words_only = n > 0;
			if (n)
				words[n++] = argv[i];
			continue;
		}
		flags = global_opt(arg);
		if (flags & OPT_VERSION) {
			printf("encctl %s\n", ENCCTL_VERSION);
			return ENCCTL_EXIT_OK;
		}
		if ((flags & OPT_HELP) && !n) {
			usage(stdout);
			return ENCCTL_EXIT_OK;
		}
		object_help |= flags & OPT_HELP;
		if (flags)
			continue;
		if (!n && arg[0] == '-' && arg[1])
			return encctl_bad_option(NULL, arg, NULL, NULL);
		words[n++] = argv[i];
	}
	/* -h after the object, wherever: that object's help, whatever else is there. */
	if (object_help) {
		words[1] = help;
		n = strcmp(words[0], help) ? 2 : 1;
	}
	words[n] = NULL;

	ret = cmd_select(objects, NULL, n, words, NULL);
	if (!n && !encctl_opts.json)
		usage(stderr);
	return ret;
}
