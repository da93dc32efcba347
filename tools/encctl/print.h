/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output that serves text and JSON from one call, as iproute2's print_*()
 * do: each value has a JSON key and a text format, and goes to whichever
 * the command line asked for (-j). A JSON document is built whole and
 * printed by print_doc_end(), pretty with -p; monitor prints one document
 * per event, on one line.
 */
#ifndef _ENCCTL_PRINT_H
#define _ENCCTL_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum print_to {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = 3,
};

bool print_json(void);

/*
 * Containers. The first one opened is the document's root (its key is
 * ignored); inside an object every value needs a key, inside an array none.
 */
void print_open_object(const char *key);
void print_open_array(const char *key);
void print_close(void);
/* Prints the JSON document, if there is one, and forgets it. */
void print_doc_end(void);

/* @fmt is the text format (printf, one conversion for the value) or NULL. */
void print_uint(enum print_to to, const char *key, const char *fmt, uint64_t value);
void print_int(enum print_to to, const char *key, const char *fmt, int64_t value);
void print_string(enum print_to to, const char *key, const char *fmt, const char *value);
void print_bool(enum print_to to, const char *key, const char *fmt, bool value);
void print_null(const char *key);
/* Text only. */
__attribute__((format(printf, 1, 2))) void print_text(const char *fmt, ...);

/* A sentence built in pieces, for encctl_err(); what does not fit is cut. */
struct encctl_sbuf {
	char s[2048];
	size_t len;
};

__attribute__((format(printf, 2, 3))) void encctl_sbuf_add(struct encctl_sbuf *b,
							   const char *fmt, ...);

/* "1.25ms", "3.2s", "2m05s": a duration in nanoseconds for people. */
const char *print_duration(uint64_t ns, char *buf, unsigned int len);

#endif /* _ENCCTL_PRINT_H */
