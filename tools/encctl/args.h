/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line words, iproute2 style: `KEYWORD VALUE` pairs. */
#ifndef _ENCCTL_ARGS_H
#define _ENCCTL_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* @arg is @word or an abbreviation of it at least one letter long. */
bool encctl_matches(const char *arg, const char *word);

/*
 * Reads the value of @key (the next word): 0, or -1 after saying on stderr
 * what is wrong with it (missing, not a number, above @max).
 */
int encctl_arg_u32(const char *key, const char *value, uint32_t max, uint32_t *out);
int encctl_arg_u64(const char *key, const char *value, uint64_t *out);

/* Says on stderr that @arg makes no sense to @object; returns ENCCTL_EXIT_USAGE. */
int encctl_bad_arg(const char *object, const char *arg);

#endif /* _ENCCTL_ARGS_H */
