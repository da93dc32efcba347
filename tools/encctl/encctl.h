/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ENCCTL_H
#define _ENCCTL_H

#include <stdbool.h>

/* Options every command understands. */
struct encctl_opts {
	bool json;	/* -j */
	bool pretty;	/* -p */
};

extern struct encctl_opts encctl_opts;

/*
 * One object of the command line: `encctl OBJECT [ARGS...]`. run() gets the
 * arguments after OBJECT and returns the exit code: 0 success, 1 failure,
 * 2 usage.
 */
struct encctl_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*usage)(void);
};

#define ENCCTL_EXIT_OK		0
#define ENCCTL_EXIT_FAIL	1
#define ENCCTL_EXIT_USAGE	2

#endif /* _ENCCTL_H */
