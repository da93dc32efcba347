/* SPDX-License-Identifier: GPL-2.0 */
/*
 * encctl: what every part of the command shares: the options that work
 * anywhere on the line, the exit codes, the verb tables and the one error
 * printer.
 */
#ifndef _ENCCTL_H
#define _ENCCTL_H

#include <stdbool.h>

/* -j, -p: main() reads them from anywhere on the line before anything runs. */
struct encctl_opts {
	bool json;	/* -j */
	bool pretty;	/* -p */
};

extern struct encctl_opts encctl_opts;

#define ENCCTL_EXIT_OK		0
#define ENCCTL_EXIT_FAIL	1
#define ENCCTL_EXIT_USAGE	2

/*
 * One word of the command line and what it runs, in bpftool's shape: main()
 * has a table of objects, each object a table of its commands. func() gets
 * the words after its own and returns the exit code.
 */
struct cmd {
	const char *cmd;
	int (*func)(int argc, char **argv);
};

/*
 * Runs the entry of @cmds (ended by a NULL cmd) whose word is exactly
 * argv[0]. With no word left it runs @dflt, or, when @dflt is NULL, says
 * that @object needs a command. A word that is no entry's is refused with
 * a sentence naming the words that work (the ones it abbreviates, if any).
 * @object is NULL for main()'s table of objects.
 */
int cmd_select(const struct cmd *cmds, const char *object, int argc, char **argv,
	       int (*dflt)(int argc, char **argv));

/* The objects: `encctl OBJECT ...` runs do_OBJECT() with the words after OBJECT. */
int do_status(int argc, char **argv);
int do_comm(int argc, char **argv);
int do_topo(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_world(int argc, char **argv);
int do_program(int argc, char **argv);

/*
 * The one way encctl reports an error: with -j a JSON document
 * {"error": "..."} on stdout, where the output would have been (a document
 * half built is dropped); without, "encctl: ..." on stderr. Returns @ret, so
 * that `return encctl_err(ENCCTL_EXIT_USAGE, ...)` ends a command.
 */
__attribute__((format(printf, 2, 3))) int encctl_err(int ret, const char *fmt, ...);
/*
 * The same for a failure of libenc, with what callers branch on beside the
 * sentence people read: @status, libenc's NRT_STATUS name, and @reason, the
 * enc_reason_name() of its enc_last_reason() (NULL: none). With -j
 * {"error": "...", "status": "NRT_TIMEOUT", "reason": "timeout"}; without,
 * "encctl: ... (NRT_TIMEOUT)". With ENCCTL_ERR_KEEP_DOC, the keys of the
 * JSON object the command has built follow those instead of being dropped:
 * the record of what it did before it failed (world join's phases, counters
 * and mismatch).
 */
#define ENCCTL_ERR_KEEP_DOC	1
__attribute__((format(printf, 5, 6))) int encctl_err_status(int ret, const char *status,
							    const char *reason,
							    unsigned int flags,
							    const char *fmt, ...);
/* Something the user should know that does not fail the command: stderr, always. */
__attribute__((format(printf, 1, 2))) void encctl_warn(const char *fmt, ...);

#endif /* _ENCCTL_H */
