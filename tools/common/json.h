/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON every subcommand writes: one record (object) per line, opened
 * with its "type", so that a reader of a mixed stream can tell the records
 * apart.  Strings are escaped as RFC 8259 requires (quotes, backslashes,
 * every control character) and bytes that are not UTF-8 become U+FFFD; a
 * number that is not finite is written as null; keys are [a-z0-9_] only.
 *
 * A member's @key is NULL inside an array.  A writer is not shared between
 * threads.
 */
#ifndef RP_TOOLS_COMMON_JSON_H
#define RP_TOOLS_COMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	8

struct json {
	FILE *out;
	unsigned int depth;			/* open objects and arrays */
	char close[JSON_MAX_DEPTH];		/* what ends each: '}' or ']' */
	bool members[JSON_MAX_DEPTH];		/* has one been written at that depth */
};

/* Start a record on @out: '{' and "type":@type. */
void json_record(struct json *j, FILE *out, const char *type);
/* End it: '}', a newline, and a flush (a reader sees whole records). */
void json_record_end(struct json *j);

void json_string(struct json *j, const char *key, const char *s);
/* @len bytes of @s, which may hold NULs. */
void json_string_len(struct json *j, const char *key, const char *s, size_t len);
void json_int(struct json *j, const char *key, int64_t v);
void json_uint(struct json *j, const char *key, uint64_t v);
/* @v with @decimals digits after the point; null if it is not finite. */
void json_real(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

/* Open a nested object or array; json_end closes the innermost. */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j);

#endif /* RP_TOOLS_COMMON_JSON_H */
