// SPDX-License-Identifier: BSD-3-Clause
/*
 * Output of optincctl: every value is printed with one call that writes
 * text (with a printf format; NULL: nothing) or, with -j, adds the value
 * under a key to a JSON document printed at the end (key NULL: nothing).
 */
#include <stdarg.h>
#include <stdio.h>
#include "optincctl.h"

#define PRINT_DEPTH	16

static json_object *print_stack[PRINT_DEPTH];
static int print_depth = -1;

static bool print_json(void)
{
	return optincctl_opts.json && print_depth >= 0;
}

static void print_add(const char *key, json_object *v)
{
	json_object *top = print_stack[print_depth];

	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, v);
	else if (key)
		json_object_object_add(top, key, v);
	else
		json_object_put(v);
}

/* Begin a document: a JSON object, or an array for lists. */
void optincctl_print_start(bool array)
{
	if (!optincctl_opts.json)
		return;
	print_depth = 0;
	print_stack[0] = array ? json_object_new_array() :
				 json_object_new_object();
}

void optincctl_print_end(void)
{
	int flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;

	if (!print_json())
		return;
	if (optincctl_opts.pretty)
		flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE;
	puts(json_object_to_json_string_ext(print_stack[0], flags));
	json_object_put(print_stack[0]);
	print_depth = -1;
}

void optincctl_print_open(const char *key, bool array)
{
	json_object *c;

	if (!print_json() || print_depth + 1 >= PRINT_DEPTH)
		return;
	c = array ? json_object_new_array() : json_object_new_object();
	print_add(key, c);
	print_stack[++print_depth] = c;
}

void optincctl_print_close(void)
{
	if (print_json() && print_depth > 0)
		print_depth--;
}

void optincctl_print_u64(const char *key, const char *fmt, uint64_t v)
{
	if (print_json())
		print_add(key, json_object_new_uint64(v));
	else if (fmt)
		printf(fmt, v);
}

void optincctl_print_str(const char *key, const char *fmt, const char *s)
{
	if (print_json())
		print_add(key, json_object_new_string(s ? s : ""));
	else if (fmt)
		printf(fmt, s ? s : "-");
}

void optincctl_print_double(const char *key, const char *fmt, double v)
{
	if (print_json())
		print_add(key, json_object_new_double(v));
	else if (fmt)
		printf(fmt, v);
}

/* Text only: labels, separators, newlines. */
void optincctl_print_text(const char *fmt, ...)
{
	va_list ap;

	if (optincctl_opts.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}
