// SPDX-License-Identifier: GPL-2.0
/* Command-line words: see args.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "encctl.h"

bool encctl_matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncmp(arg, word, len);
}

int encctl_arg_u64(const char *key, const char *value, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!value) {
		fprintf(stderr, "encctl: %s needs a value\n", key);
		return -1;
	}
	errno = 0;
	v = strtoull(value, &end, 0);
	if (errno || end == value || *end || value[0] == '-') {
		fprintf(stderr, "encctl: %s: '%s' is not a number\n", key, value);
		return -1;
	}
	*out = v;
	return 0;
}

int encctl_arg_u32(const char *key, const char *value, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (encctl_arg_u64(key, value, &v))
		return -1;
	if (v > max) {
		fprintf(stderr, "encctl: %s: %llu is above %u\n", key, (unsigned long long)v, max);
		return -1;
	}
	*out = v;
	return 0;
}

int encctl_bad_arg(const char *object, const char *arg)
{
	fprintf(stderr, "encctl: %s: unknown argument '%s'; try 'encctl %s --help'\n", object,
		arg, object);
	return ENCCTL_EXIT_USAGE;
}
