// SPDX-License-Identifier: GPL-2.0
/*
 * Text and JSON output from the same calls; see print.h. JSON goes through
 * json-c, so strings are escaped and 64-bit values kept whole. The error
 * printer (encctl.h) is here too: with -j an error is the output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <json-c/json.h>

#include "encctl.h"
#include "print.h"

#define PRINT_DEPTH	16

static struct json_object *root;
static struct json_object *stack[PRINT_DEPTH];
static int depth;

bool print_json(void)
{
	return encctl_opts.json;
}

/* Adds @obj to the open container (or makes it the root) and owns it. */
static void json_add(const char *key, struct json_object *obj)
{
	struct json_object *top;

	if (!depth) {
		if (root)
			json_object_put(root);
		root = obj;
		return;
	}
	top = stack[depth - 1];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, obj);
	else
		json_object_object_add(top, key, obj);
}

static void open_container(const char *key, struct json_object *obj)
{
	if (!print_json())
		return;
	if (depth == PRINT_DEPTH) {
		encctl_err(ENCCTL_EXIT_FAIL, "JSON nested too deep");
		abort();
	}
	json_add(key, obj);
	stack[depth++] = obj;
}

void print_open_object(const char *key)
{
	if (print_json())
		open_container(key, json_object_new_object());
}

void print_open_array(const char *key)
{
	if (print_json())
		open_container(key, json_object_new_array());
}

void print_close(void)
{
	if (print_json() && depth)
		depth--;
}

/* Prints @doc as -p asks, one document on its own line(s). */
static void put_doc(struct json_object *doc)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= encctl_opts.pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
				      JSON_C_TO_STRING_PLAIN;
	puts(json_object_to_json_string_ext(doc, flags));
	fflush(stdout);
}

static void drop_doc(void)
{
	json_object_put(root);
	root = NULL;
	depth = 0;
}

void print_doc_end(void)
{
	if (!print_json() || !root)
		return;
	put_doc(root);
	drop_doc();
}

/* encctl_err() and encctl_err_status(): @status, @reason and @flags as the latter's. */
static __attribute__((format(printf, 5, 0))) int err_doc(int ret, const char *status,
							 const char *reason, unsigned int flags,
							 const char *fmt, va_list ap)
{
	struct json_object *doc;
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!print_json()) {
		if (status)
			fprintf(stderr, "encctl: %s (%s)\n", msg, status);
		else
			fprintf(stderr, "encctl: %s\n", msg);
		return ret;
	}
	doc = json_object_new_object();
	json_object_object_add(doc, "error", json_object_new_string(msg));
	if (status)
		json_object_object_add(doc, "status", json_object_new_string(status));
	if (reason)
		json_object_object_add(doc, "reason", json_object_new_string(reason));
	/*
	 * The output failed: what was built of it is not the answer, unless
	 * the command says it is the record of what it did before it failed.
	 */
	if ((flags & ENCCTL_ERR_KEEP_DOC) && root && json_object_is_type(root, json_type_object)) {
		json_object_object_foreach(root, key, val)
			json_object_object_add(doc, key, json_object_get(val));
	}
	drop_doc();
	put_doc(doc);
	json_object_put(doc);
	return ret;
}

int encctl_err(int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = err_doc(ret, NULL, NULL, 0, fmt, ap);
	va_end(ap);
	return ret;
}

int encctl_err_status(int ret, const char *status, const char *reason, unsigned int flags,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ret = err_doc(ret, status, reason, flags, fmt, ap);
	va_end(ap);
	return ret;
}

void encctl_warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "encctl: warning: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void text(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void print_uint(enum print_to to, const char *key, const char *fmt, uint64_t value)
{
	if (print_json()) {
		if (to & PRINT_JSON)
			json_add(key, json_object_new_uint64(value));
	} else if ((to & PRINT_FP) && fmt) {
		text(fmt, (unsigned long long)value);
	}
}

void print_int(enum print_to to, const char *key, const char *fmt, int64_t value)
{
	if (print_json()) {
		if (to & PRINT_JSON)
			json_add(key, json_object_new_int64(value));
	} else if ((to & PRINT_FP) && fmt) {
		text(fmt, (long long)value);
	}
}

void print_string(enum print_to to, const char *key, const char *fmt, const char *value)
{
	if (print_json()) {
		if (to & PRINT_JSON)
			json_add(key, json_object_new_string(value));
	} else if ((to & PRINT_FP) && fmt) {
		text(fmt, value);
	}
}

void print_bool(enum print_to to, const char *key, const char *fmt, bool value)
{
	if (print_json()) {
		if (to & PRINT_JSON)
			json_add(key, json_object_new_boolean(value));
	} else if ((to & PRINT_FP) && fmt) {
		text(fmt, value ? "on" : "off");
	}
}

void print_null(const char *key)
{
	if (print_json())
		json_add(key, NULL);
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (print_json())
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void encctl_sbuf_add(struct encctl_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof(b->s))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, sizeof(b->s) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += n;
}

const char *print_duration(uint64_t ns, char *buf, unsigned int len)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else if (ns < 60 * 1000000000ULL)
		snprintf(buf, len, "%.2fs", ns / 1e9);
	else if (ns < 3600 * 1000000000ULL)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(ns / 60000000000ULL),
			 (unsigned long long)(ns / 1000000000ULL % 60));
	else
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(ns / 3600000000000ULL),
			 (unsigned long long)(ns / 60000000000ULL % 60));
	return buf;
}
