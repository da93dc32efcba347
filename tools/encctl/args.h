/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line's grammar, in one place: exact words (never
 * abbreviations: iproute2 gave up prefix matching for the trouble it
 * caused), numbers, and dash options. Every refusal is one sentence through
 * encctl_err() that says what would have worked.
 */
#ifndef _ENCCTL_ARGS_H
#define _ENCCTL_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The index of @arg in @words (ended by NULL), or -1. */
int encctl_word_index(const char *arg, const char *const *words);

/* "a, b or c" of @words (ended by NULL), in @buf. */
const char *encctl_words(char *buf, size_t size, const char *const *words);

/*
 * "WHERE: unknown WHAT 'ARG'; try ..." naming the words of @words that @arg
 * abbreviates, or all of them and then @more (NULL, or a last choice such as
 * "nothing"). @where NULL: the line itself. Returns ENCCTL_EXIT_USAGE.
 */
int encctl_bad_word(const char *where, const char *what, const char *arg,
		    const char *const *words, const char *more);

/*
 * The one number parser: @s in decimal (no leading zeros, which would read
 * as octal elsewhere) or in hex after 0x, from 0 to @max. 0, or -1 after
 * saying what is wrong with the value of @key (missing, not a number,
 * negative, above @max).
 */
int encctl_parse_u64(const char *where, const char *key, const char *s, uint64_t max,
		     uint64_t *out);
int encctl_parse_u32(const char *where, const char *key, const char *s, uint32_t max,
		     uint32_t *out);

/* 0 when @argc is 0; otherwise refuses argv[0] and returns ENCCTL_EXIT_USAGE. */
int encctl_no_args(const char *where, int argc, char **argv);

/*
 * A dash option of a command: "--name" (also "--name=VALUE") or "-n" (also
 * "-nVALUE"); @id is the caller's, at least 0. Tables end with a NULL name.
 */
struct encctl_opt {
	const char *name;
	bool arg;
	int id;
};

/* The options of encctl itself, which work before or after the object. */
extern const struct encctl_opt encctl_global_opts[];
/* The commands that have dash options, for saying where a misplaced one goes. */
extern const struct encctl_opt encctl_world_opts[];
extern const struct encctl_opt encctl_sign_opts[];
extern const struct encctl_opt encctl_topo_sync_opts[];

enum {
	ENCCTL_OPT_END = -1,	/* no more words */
	ENCCTL_OPT_WORD = -2,	/* not an option: "-", a word, anything after "--" */
	ENCCTL_OPT_BAD = -3,	/* refused and said; the exit code is ENCCTL_EXIT_USAGE */
};

struct encctl_optparse {
	const char *where;		/* "world join", for the sentences */
	const struct encctl_opt *opts;
	int argc;
	char **argv;
	int i;				/* the next word */
	bool words_only;		/* "--" was seen */
	const struct encctl_opt *opt;	/* the last option returned */
};

/*
 * The next option's id with its value (or NULL) in *@val, or one of the
 * ENCCTL_OPT_* above (the word in *@val for ENCCTL_OPT_WORD).
 */
int encctl_opt_next(struct encctl_optparse *p, const char **val);

/*
 * Refuses the dash word @arg where @opts (NULL: none but encctl's own) and
 * the words @words (NULL: none) are what works, saying what would have
 * worked: the option it abbreviates, the word it is with dashes, the
 * command it belongs after, or the options here. @where NULL: before the
 * object. Returns ENCCTL_EXIT_USAGE.
 */
int encctl_bad_option(const char *where, const char *arg, const struct encctl_opt *opts,
		      const char *const *words);

#endif /* _ENCCTL_ARGS_H */
