/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command's JSON writer (tools/common/json.c) against hostile input:
 * every byte value, bytes that are not UTF-8, a NUL inside a string, numbers
 * that are not finite.  jq (scripts/deps.sh installs it) reads the output
 * back; the bytes themselves are checked for raw control characters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "common/json.h"

static char path[] = "/tmp/rcuproc-json-XXXXXX";

/* The records the tests read back, written once into path. */
static void write_records(void)
{
	static const char not_utf8[] = "\xff\xc0\x80\xed\xa0\x80" "a" "\xf4\x90\x80\x80" "\xe2\x82";
	char ascii[128];
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");
	struct json j;

	cr_assert_not_null(out);
	for (int c = 1; c < 128; c++)
		ascii[c - 1] = (char)c;
	ascii[127] = '\0';

	json_record(&j, out, "hostile");
	json_string(&j, "ascii", ascii);
	json_string(&j, "utf8", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	json_string(&j, "not_utf8", not_utf8);
	json_string_len(&j, "nul", "a\0b", 3);
	json_record_end(&j);

	json_record(&j, out, "numbers");
	json_real(&j, "nan", NAN, 2);
	json_real(&j, "inf", INFINITY, 2);
	json_real(&j, "minus_inf", -INFINITY, 2);
	json_real(&j, "half", 1.5, 1);
	json_int(&j, "negative", -42);
	json_uint(&j, "big", UINT64_MAX);
	json_array(&j, "list");
	json_bool(&j, NULL, true);
	json_null(&j, NULL);
	json_object(&j, NULL);
	json_string(&j, "quote", "\"\\/");
	json_end(&j);
	json_end(&j);
	json_record_end(&j);
	cr_assert_eq(fclose(out), 0);
}

/* `jq -e @filter` over the records, slurped into one array: true? */
static void expect_jq(const char *filter)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "jq -e -s '%s' %s >/dev/null", filter, path);
	cr_expect_eq(system(cmd), 0, "jq -s '%s' was not true of %s", filter, path);
}

static void cleanup(void)
{
	unlink(path);
}

TestSuite(json, .init = write_records, .fini = cleanup);

Test(json, records_parse_and_are_typed)
{
	expect_jq("map(.type) == [\"hostile\", \"numbers\"]");
}

Test(json, every_ascii_character_round_trips)
{
	expect_jq(".[0].ascii | explode == [range(1; 128)]");
}

Test(json, utf8_kept_and_other_bytes_replaced)
{
	expect_jq(".[0].utf8 | explode == [233, 8364, 128512]");
	/* Each byte that starts no well-formed sequence is one U+FFFD. */
	expect_jq(".[0].not_utf8 | explode == "
		  "[65533, 65533, 65533, 65533, 65533, 65533, 97, "
		  "65533, 65533, 65533, 65533, 65533, 65533]");
	expect_jq(".[0].nul | explode == [97, 0, 98]");
}

Test(json, numbers_are_numbers_and_non_finite_is_null)
{
	expect_jq(".[1] | [.nan, .inf, .minus_inf] == [null, null, null]");
	expect_jq(".[1] | .half == 1.5 and .negative == -42 and (.big | type) == \"number\"");
	expect_jq(".[1].list == [true, null, {\"quote\": \"\\\"\\\\/\"}]");
}

/* JSON allows no raw control character: only the newline ending each record. */
Test(json, no_raw_control_character)
{
	FILE *in = fopen(path, "r");
	int c, prev = '\n', records = 0;

	cr_assert_not_null(in);
	while ((c = fgetc(in)) != EOF) {
		if (c == '\n') {
			cr_expect_eq(prev, '}', "a newline inside a record");
			records++;
		} else {
			cr_expect(c >= 0x20 && c != 0x7f, "raw byte 0x%02x in the output", c);
		}
		prev = c;
	}
	fclose(in);
	cr_expect_eq(records, 2);
}
