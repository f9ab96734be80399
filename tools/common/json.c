/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The JSON writer of the rcuproc command (json.h). */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "json.h"

/* Keys are written as they are, so they must need no escaping (and carry
 * no space, which scripts reading the output split on). */
static bool plain_key(const char *key)
{
	if (!*key)
		return false;
	for (; *key; key++)
		if (!((*key >= 'a' && *key <= 'z') || (*key >= '0' && *key <= '9') || *key == '_'))
			return false;
	return true;
}

/* The separator before a member, and its key unless inside an array. */
static void member(struct json *j, const char *key)
{
	assert(j->depth > 0);
	assert((key != NULL) == (j->close[j->depth - 1] == '}'));
	if (j->members[j->depth - 1])
		fputc(',', j->out);
	j->members[j->depth - 1] = true;
	if (key) {
		assert(plain_key(key));
		fprintf(j->out, "\"%s\":", key);
	}
}

/*
 * The length of the well-formed UTF-8 sequence at @s (at most @len bytes),
 * or 0 if it is not one: a stray continuation byte, a truncated sequence,
 * an overlong form, a surrogate or a code point past U+10FFFF.
 */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;	/* the second byte's range */
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;			/* overlong below U+0800 */
	else if (s[0] == 0xed)
		hi = 0x9f;			/* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;			/* overlong below U+10000 */
	else if (s[0] == 0xf4)
		hi = 0x8f;			/* past U+10FFFF */
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void quoted(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	fputc('"', out);
	while (p < end) {
		size_t n = utf8_sequence(p, end - p);

		if (n == 0) {
			fputs("\\ufffd", out);
			p++;
		} else if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p++);
		} else if (*p == '\n') {
			fputs("\\n", out);
			p++;
		} else if (*p == '\t') {
			fputs("\\t", out);
			p++;
		} else if (*p < 0x20 || *p == 0x7f) {
			/* DEL needs no escape, but a terminal shows it no better. */
			fprintf(out, "\\u%04x", *p++);
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
	fputc('"', out);
}

static void open_nested(struct json *j, char open, char close)
{
	assert(j->depth < JSON_MAX_DEPTH);
	fputc(open, j->out);
	j->close[j->depth] = close;
	j->members[j->depth] = false;
	j->depth++;
}

void json_object(struct json *j, const char *key)
{
	member(j, key);
	open_nested(j, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	member(j, key);
	open_nested(j, '[', ']');
}

void json_end(struct json *j)
{
	assert(j->depth > 0);
	fputc(j->close[--j->depth], j->out);
}

void json_record(struct json *j, FILE *out, const char *type)
{
	j->out = out;
	j->depth = 0;
	open_nested(j, '{', '}');
	json_string(j, "type", type);
}

void json_record_end(struct json *j)
{
	json_end(j);
	assert(j->depth == 0);
	fputc('\n', j->out);
	fflush(j->out);
}

void json_string_len(struct json *j, const char *key, const char *s, size_t len)
{
	member(j, key);
	quoted(j->out, s, len);
}

void json_string(struct json *j, const char *key, const char *s)
{
	json_string_len(j, key, s, strlen(s));
}

void json_int(struct json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRId64, v);
}

void json_uint(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

void json_real(struct json *j, const char *key, double v, int decimals)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.*f", decimals, v);
	else
		fputs("null", j->out);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}
