// SPDX-License-Identifier: GPL-2.0
/* The command line's grammar: see args.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "encctl.h"
#include "print.h"

/* encctl's own options, as sentences name them. */
#define GLOBAL_OPTS	"-j (--json), -p (--pretty), -V (--version) and -h (--help)"

/* "a, b or c": @n items, then @more as the last choice when not NULL. */
static const char *sb_list(struct encctl_sbuf *b, const char *const *items, size_t n,
			   const char *more, const char *quote)
{
	size_t i, total = n + (more ? 1 : 0);

	for (i = 0; i < total; i++)
		encctl_sbuf_add(b, "%s%s%s%s", i == 0 ? "" : i + 1 == total ? " or " : ", ",
				quote, i < n ? items[i] : more, i < n ? quote : "");
	return b->s;
}

/* @arg is a strict abbreviation of @word: what is refused, and named in the refusal. */
static bool abbreviates(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len < strlen(word) && !strncmp(arg, word, len);
}

static size_t count_words(const char *const *words)
{
	size_t n = 0;

	while (words && words[n])
		n++;
	return n;
}

static size_t count_opts(const struct encctl_opt *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

const char *encctl_words(char *buf, size_t size, const char *const *words)
{
	struct encctl_sbuf b = {};

	snprintf(buf, size, "%s", sb_list(&b, words, count_words(words), NULL, ""));
	return buf;
}

int encctl_word_index(const char *arg, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(arg, words[i]))
			return i;
	return -1;
}

int encctl_bad_word(const char *where, const char *what, const char *arg,
		    const char *const *words, const char *more)
{
	size_t n = count_words(words), i, k = 0;
	const char *hits[n + 1];
	struct encctl_sbuf b = {};

	for (i = 0; i < n; i++)
		if (abbreviates(arg, words[i]))
			hits[k++] = words[i];
	if (k)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "%s%sunknown %s '%s' (words are never abbreviated); did you mean %s?",
				  where ? where : "", where ? ": " : "", what, arg,
				  sb_list(&b, hits, k, NULL, ""));
	return encctl_err(ENCCTL_EXIT_USAGE, "%s%sunknown %s '%s'; try %s", where ? where : "",
			  where ? ": " : "", what, arg, sb_list(&b, words, n, more, ""));
}

int encctl_parse_u64(const char *where, const char *key, const char *s, uint64_t max,
		     uint64_t *out)
{
	const char *digits = s;
	unsigned long long v;
	int base = 10;
	char *end;

	if (!s)
		return encctl_err(-1, "%s%s%s needs a value", where ? where : "", where ? ": " : "",
				  key);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		digits = s + 2;
	}
	/* strtoull() alone would take blanks, a sign, and octal after a leading 0. */
	if (base == 16 ? !isxdigit((unsigned char)digits[0]) :
			 !isdigit((unsigned char)digits[0]) || (digits[0] == '0' && digits[1]))
		goto not_a_number;
	errno = 0;
	v = strtoull(digits, &end, base);
	if (*end)
		goto not_a_number;
	if (errno == ERANGE || v > max)
		return encctl_err(-1, "%s%s%s: %s is above %llu", where ? where : "",
				  where ? ": " : "", key, s, (unsigned long long)max);
	*out = v;
	return 0;

not_a_number:
	return encctl_err(-1,
			  "%s%s%s: '%s' is not a number from 0 to %llu (decimal without leading zeros, or hex after 0x)",
			  where ? where : "", where ? ": " : "", key, s, (unsigned long long)max);
}

int encctl_parse_u32(const char *where, const char *key, const char *s, uint32_t max,
		     uint32_t *out)
{
	uint64_t v;

	if (encctl_parse_u64(where, key, s, max, &v))
		return -1;
	*out = v;
	return 0;
}

int encctl_no_args(const char *where, int argc, char **argv)
{
	if (!argc)
		return 0;
	if (argv[0][0] == '-' && argv[0][1])
		return encctl_bad_option(where, argv[0], NULL, NULL);
	return encctl_err(ENCCTL_EXIT_USAGE, "%s: unexpected argument '%s'; %s takes none", where,
			  argv[0], where);
}

int encctl_opt_next(struct encctl_optparse *p, const char **val)
{
	const struct encctl_opt *o;
	const char *arg, *eq;
	size_t len;

	*val = NULL;
	for (;;) {
		if (p->i >= p->argc)
			return ENCCTL_OPT_END;
		arg = p->argv[p->i++];
		if (p->words_only || arg[0] != '-' || !arg[1]) {
			*val = arg;
			return ENCCTL_OPT_WORD;
		}
		if (strcmp(arg, "--"))
			break;
		p->words_only = true;
	}
	eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
	len = eq ? (size_t)(eq - arg) : strlen(arg);
	for (o = p->opts; o->name; o++) {
		bool is_long = o->name[1] == '-';

		if (is_long ? strncmp(arg, o->name, len) || o->name[len] :
			      strncmp(arg, o->name, 2) || (arg[2] && !o->arg))
			continue;
		p->opt = o;
		if (!o->arg) {
			if (eq) {
				encctl_err(ENCCTL_EXIT_USAGE, "%s: %s takes no value ('%s')", p->where,
					   o->name, arg);
				return ENCCTL_OPT_BAD;
			}
			return o->id;
		}
		if (eq) {
			*val = eq + 1;
		} else if (!is_long && arg[2]) {
			*val = arg + 2;
		} else if (p->i < p->argc) {
			*val = p->argv[p->i++];
		} else {
			encctl_err(ENCCTL_EXIT_USAGE, "%s: %s needs a value", p->where, o->name);
			return ENCCTL_OPT_BAD;
		}
		return o->id;
	}
	encctl_bad_option(p->where, arg, p->opts, NULL);
	return ENCCTL_OPT_BAD;
}

/* The commands whose options a misplaced one may be. */
static const struct {
	const char *const *commands;
	const struct encctl_opt *opts;
} owners[] = {
	{ (const char *const[]){ "world join", "world launch", NULL }, encctl_world_opts },
	{ (const char *const[]){ "program sign", NULL }, encctl_sign_opts },
	{ (const char *const[]){ "topo sync", NULL }, encctl_topo_sync_opts },
};

/* Adds the names of @opts that @match(@name, option) to @hits. */
static size_t opt_hits(const struct encctl_opt *opts, const char *name,
		       bool (*match)(const char *name, const char *opt), const char **hits,
		       size_t k)
{
	for (; opts && opts->name; opts++)
		if (match(name, opts->name))
			hits[k++] = opts->name;
	return k;
}

static bool same(const char *name, const char *opt)
{
	return !strcmp(name, opt);
}

/* The same name with other dashes: "-vnc" for "--vnc". */
static bool same_but_dashes(const char *name, const char *opt)
{
	return !strcmp(name + strspn(name, "-"), opt + strspn(opt, "-"));
}

int encctl_bad_option(const char *where, const char *arg, const struct encctl_opt *opts,
		      const char *const *words)
{
	size_t n_opts = count_opts(opts), n_words = count_words(words), n_owners = 0, i, k;
	const char *hits[n_opts + n_words + count_opts(encctl_global_opts) + 1];
	const char *owner_cmds[8];
	const char *here = where ? where : "";
	const char *sep = where ? ": " : "";
	const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
	char name[128];
	struct encctl_sbuf b = {};

	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);

	/* "--" where nothing ends with it: no option to suggest. */
	if (!name[strspn(name, "-")])
		goto unknown;

	/* A word of this command, or one of its options, with dashes it does not have. */
	k = opt_hits(opts, name, same_but_dashes, hits, 0);
	k = opt_hits(encctl_global_opts, name, same_but_dashes, hits, k);
	for (i = 0; i < n_words; i++)
		if (!strcmp(name + strspn(name, "-"), words[i]))
			hits[k++] = words[i];
	if (k)
		return encctl_err(ENCCTL_EXIT_USAGE, "%s%s'%s' is not an option; did you mean %s?",
				  here, sep, arg, sb_list(&b, hits, k, NULL, ""));

	k = opt_hits(opts, name, abbreviates, hits, 0);
	k = opt_hits(encctl_global_opts, name, abbreviates, hits, k);
	if (k)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "%s%s'%s' is not an option (options are never abbreviated); did you mean %s?",
				  here, sep, arg, sb_list(&b, hits, k, NULL, ""));

	for (i = 0; i < sizeof(owners) / sizeof(owners[0]); i++) {
		const struct encctl_opt *o = owners[i].opts;

		if (o == opts || !opt_hits(o, name, same, hits, 0))
			continue;
		for (k = 0; owners[i].commands[k]; k++)
			owner_cmds[n_owners++] = owners[i].commands[k];
	}
	if (n_owners && where)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "%s: '%s' is not an option of %s; it goes after %s", where, arg,
				  where, sb_list(&b, owner_cmds, n_owners, NULL, "'"));
	if (n_owners)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "'%s' goes after %s; before the object only " GLOBAL_OPTS " work",
				  arg, sb_list(&b, owner_cmds, n_owners, NULL, "'"));

unknown:
	if (!where)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "unknown option '%s'; before the object only " GLOBAL_OPTS " work",
				  arg);
	if (!n_opts)
		return encctl_err(ENCCTL_EXIT_USAGE,
				  "%s: unknown option '%s'; %s takes no options but " GLOBAL_OPTS,
				  where, arg, where);
	for (i = 0; i < n_opts; i++)
		hits[i] = opts[i].name;
	return encctl_err(ENCCTL_EXIT_USAGE,
			  "%s: unknown option '%s'; %s takes %s, and " GLOBAL_OPTS, where, arg,
			  where, sb_list(&b, hits, n_opts, NULL, ""));
}

static size_t count_cmds(const struct cmd *cmds)
{
	size_t n = 0;

	while (cmds[n].cmd)
		n++;
	return n;
}

int cmd_select(const struct cmd *cmds, const char *object, int argc, char **argv,
	       int (*dflt)(int argc, char **argv))
{
	size_t n = count_cmds(cmds), i;
	const char *names[n + 1];
	struct encctl_sbuf b = {};

	for (i = 0; i < n; i++)
		names[i] = cmds[i].cmd;
	names[n] = NULL;

	if (argc < 1) {
		if (dflt)
			return dflt(argc, argv);
		if (!object)
			return encctl_err(ENCCTL_EXIT_USAGE, "no object given; try %s",
					  sb_list(&b, names, n, NULL, ""));
		return encctl_err(ENCCTL_EXIT_USAGE, "%s needs a command; try %s", object,
				  sb_list(&b, names, n, NULL, ""));
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[0], cmds[i].cmd))
			return cmds[i].func(argc - 1, argv + 1);
	if (argv[0][0] == '-' && argv[0][1])
		return encctl_bad_option(object, argv[0], NULL, names);
	return encctl_bad_word(object, object ? "command" : "object", argv[0], names,
			       dflt ? "nothing" : NULL);
}
