/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The option layer of the rcuproc command (cli.h): parsing, messages, usage. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rcuproc/rcuproc.h>
#include "cli.h"

#define LONG_ONLY	0x100		/* getopt_long's value of option i: LONG_ONLY + i */
#define HELP_COLUMN	24
#define USAGE_WIDTH	80

int cli_usage_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rcuproc %s: ", sub);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'rcuproc %s --help')\n", sub);
	return 2;
}

const char *const *cli_mode_names(bool none)
{
	static const char *names[2][RP_SYNC_NONE + 2];	/* the rest stays NULL */

	for (int m = 0; m < RP_SYNC_NR_NAMED + none; m++)
		names[none][m] = rp_sync_mode_name(m);
	return names[none];
}

/* Digits only, at least one: no sign, no space, no "0x". */
static bool is_decimal(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* cli_number, with @why said after the range of a value above @max (NULL: nothing). */
static int number_in(const char *sub, const char *what, const char *text, uint64_t min,
		     uint64_t max, const char *why, uint64_t *out)
{
	unsigned long long v;

	if (!is_decimal(text))
		return cli_usage_error(sub, "%s: '%s' is not a decimal number in %llu..%llu",
				       what, text, (unsigned long long)min,
				       (unsigned long long)max);
	errno = 0;
	v = strtoull(text, NULL, 10);
	if (errno || v < min || v > max)
		return cli_usage_error(sub, "%s: %s is out of range %llu..%llu%s%s", what, text,
				       (unsigned long long)min, (unsigned long long)max,
				       why && !errno && v > max ? ": " : "",
				       why && !errno && v > max ? why : "");
	*out = v;
	return 0;
}

int cli_number(const char *sub, const char *what, const char *text, uint64_t min,
	       uint64_t max, uint64_t *out)
{
	return number_in(sub, what, text, min, max, NULL, out);
}

/* Digits with at most one '.', at least one digit: no sign, exponent, "inf". */
static bool is_decimal_real(const char *s)
{
	bool digit = false, dot = false;

	for (; *s; s++) {
		if (*s == '.' && !dot)
			dot = true;
		else if (*s >= '0' && *s <= '9')
			digit = true;
		else
			return false;
	}
	return digit;
}

static int real_value(const char *sub, const char *what, const char *text, double limit,
		      double *out)
{
	double v;

	if (!is_decimal_real(text))
		return cli_usage_error(sub, "%s: '%s' is not a decimal number in (0, %g]",
				       what, text, limit);
	v = strtod(text, NULL);
	if (!(v > 0) || v > limit)
		return cli_usage_error(sub, "%s: %s is out of range (0, %g]", what, text, limit);
	*out = v;
	return 0;
}

/* "a, b, c or all": the names of a CLI_ENUM option, into @buf. */
static void join_names(const struct cli_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int i = 0; o->names[i] && n < len; i++) {
		bool last = !o->names[i + 1] && !o->all;

		n += snprintf(buf + n, len - n, "%s%s", i == 0 ? "" : last ? " or " : ", ",
			      o->names[i]);
	}
	if (o->all && n < len)
		snprintf(buf + n, len - n, " or all");
}

static unsigned int nr_names(const struct cli_opt *o)
{
	unsigned int n = 0;

	while (o->names[n])
		n++;
	return n;
}

/* Append @v to the option's values (its only value without a list). */
static int put_value(const char *sub, const struct cli_opt *o, int v)
{
	unsigned int i = o->list ? *o->count : 0;

	if (o->list && i == o->list)
		return cli_usage_error(sub, "--%s: more than %u values", o->name, o->list);
	((int *)o->to)[i] = v;
	if (o->list)
		(*o->count)++;
	return 0;
}

static int enum_value(const char *sub, const struct cli_opt *o, const char *text)
{
	char names[1024];
	int err = 0;

	for (unsigned int i = 0; o->names[i]; i++)
		if (!strcmp(text, o->names[i]))
			return put_value(sub, o, i);
	if (o->all && !strcmp(text, "all")) {
		if (!o->list)
			return put_value(sub, o, -1);
		for (unsigned int i = 0; i < nr_names(o) && !err; i++)
			err = put_value(sub, o, i);
		return err;
	}
	join_names(o, names, sizeof(names));
	return cli_usage_error(sub, "--%s: '%s' is not one of %s", o->name, text, names);
}

static int uint_value(const char *sub, const struct cli_opt *o, const char *what,
		      const char *text)
{
	unsigned int i = o->list ? *o->count : 0;
	uint64_t v = 0;		/* set unless err: said for gcc's -Wmaybe-uninitialized */
	int err = number_in(sub, what, text, o->min, o->max, o->max_why, &v);

	if (err)
		return err;
	if (o->list && i == o->list)
		return cli_usage_error(sub, "%s: more than %u values", what, o->list);
	if (o->kind == CLI_U64)
		((uint64_t *)o->to)[i] = v;
	else
		((unsigned int *)o->to)[i] = (unsigned int)v;
	if (o->list)
		(*o->count)++;
	return 0;
}

/* One value of @o (one item of a list): 0, or 2 said on stderr. */
static int take_value(const char *sub, const struct cli_opt *o, const char *text)
{
	char what[64];

	snprintf(what, sizeof(what), "--%s", o->name);
	switch (o->kind) {
	case CLI_UINT:
	case CLI_U64:
		return uint_value(sub, o, what, text);
	case CLI_REAL:
		return real_value(sub, what, text, o->limit, o->to);
	case CLI_STRING:
		*(const char **)o->to = text;
		return 0;
	case CLI_ENUM:
		return enum_value(sub, o, text);
	case CLI_FLAG:
		break;
	}
	*(bool *)o->to = true;
	return 0;
}

/* @o given with @arg (NULL for a flag); a list replaces earlier values. */
static int take_option(const char *sub, const struct cli_opt *o, char *arg)
{
	int err = 0;

	if (o->given)
		*o->given = true;
	if (!o->list)
		return take_value(sub, o, arg);
	*o->count = 0;
	for (char *item = arg, *next; item && !err; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = 0;
		err = take_value(sub, o, item);
	}
	return err;
}

/* The allowed values of @o, as the usage and the messages say them. */
static void describe_range(const struct cli_opt *o, char *buf, size_t len)
{
	buf[0] = 0;
	if (o->range)
		snprintf(buf, len, "%s", o->range);
	else if (o->kind == CLI_UINT || o->kind == CLI_U64)
		snprintf(buf, len, "%llu..%llu", (unsigned long long)o->min,
			 (unsigned long long)o->max);
	else if (o->kind == CLI_REAL)
		snprintf(buf, len, "(0, %g]", o->limit);
	else if (o->kind == CLI_ENUM)
		join_names(o, buf, len);
}

/* "[RANGE; default D]" to say after an option's help, or "". */
static void range_note(const struct cli_opt *o, char *buf, size_t len)
{
	const char *list = o->list ? "list of " : "";
	char range[1024];

	describe_range(o, range, sizeof(range));
	if (range[0] && o->def)
		snprintf(buf, len, "[%s%s; default %s]", list, range, o->def);
	else if (range[0])
		snprintf(buf, len, "[%s%s]", list, range);
	else if (o->def)
		snprintf(buf, len, "[default %s]", o->def);
	else
		buf[0] = 0;
}

/* An option's line: the option, its help, its range (on a line of its own
 * where it would make the line longer than USAGE_WIDTH). */
static void print_option(const struct cli_opt *o)
{
	char left[64], note[1100];
	int n = o->flag ? snprintf(left, sizeof(left), "-%c, --%s", o->flag, o->name) :
			  snprintf(left, sizeof(left), "    --%s", o->name);
	const char *line = o->help;

	if (o->value)
		snprintf(left + n, sizeof(left) - n, " %s", o->value);
	printf("  %-*s", HELP_COLUMN - 2, left);
	if (strlen(left) >= HELP_COLUMN - 2)
		printf("\n%*s", HELP_COLUMN, "");
	for (const char *nl; (nl = strchr(line, '\n')); line = nl + 1)
		printf("%.*s\n%*s", (int)(nl - line), line, HELP_COLUMN, "");
	range_note(o, note, sizeof(note));
	if (note[0] && HELP_COLUMN + strlen(line) + 1 + strlen(note) > USAGE_WIDTH)
		printf("%s\n%*s%s\n", line, HELP_COLUMN, "", note);
	else
		printf("%s%s%s\n", line, note[0] ? " " : "", note);
}

static void print_usage(const struct cli_command *cmd)
{
	printf("usage: rcuproc %s [OPTIONS]%s%s\n\n%s\n\noptions:\n", cmd->name,
	       cmd->operands ? " " : "", cmd->operands ? cmd->operands : "", cmd->about);
	for (const struct cli_opt *o = cmd->opts; o->name; o++)
		print_option(o);
	printf("  %-*s%s\n", HELP_COLUMN - 2, "-h, --help", "this text");
	if (cmd->notes)
		cmd->notes();
}

/* getopt_long's tables for @cmd's options, and --help. */
static void build_getopt(const struct cli_command *cmd, struct option *longopts,
			 char *shorts)
{
	unsigned int i, s = 0;

	shorts[s++] = ':';	/* a missing value returns ':' */
	for (i = 0; cmd->opts[i].name && i < CLI_MAX_OPTS; i++) {
		const struct cli_opt *o = &cmd->opts[i];

		longopts[i] = (struct option){ o->name, o->kind == CLI_FLAG ? no_argument :
					       required_argument, NULL, LONG_ONLY + i };
		if (o->flag) {
			shorts[s++] = o->flag;
			if (o->kind != CLI_FLAG)
				shorts[s++] = ':';
		}
	}
	longopts[i] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[i + 1] = (struct option){ 0 };
	shorts[s++] = 'h';
	shorts[s] = 0;
}

/* The table's entry for getopt_long's answer @c, or NULL. */
static const struct cli_opt *option_of(const struct cli_command *cmd, int c)
{
	for (unsigned int i = 0; cmd->opts[i].name; i++)
		if (c == (int)(LONG_ONLY + i) || c == cmd->opts[i].flag)
			return &cmd->opts[i];
	return NULL;
}

/* What getopt_long stopped at: the option as written. */
static const char *offender(char **argv)
{
	static char flag[3] = "-?";

	if (optopt > 0 && optopt < LONG_ONLY) {
		flag[1] = (char)optopt;
		return flag;
	}
	return argv[optind - 1];
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, int *first)
{
	struct option longopts[CLI_MAX_OPTS + 2];
	char shorts[3 * CLI_MAX_OPTS + 3];
	int c, err;

	build_getopt(cmd, longopts, shorts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		const struct cli_opt *o = option_of(cmd, c);

		if (c == 'h' && !o) {
			print_usage(cmd);
			return 0;
		}
		if (c == ':')
			return cli_usage_error(cmd->name, "%s: needs a value", offender(argv));
		if (!o)
			return cli_usage_error(cmd->name, "unknown option '%s'", offender(argv));
		err = take_option(cmd->name, o, optarg);
		if (err)
			return err;
	}
	if (!cmd->operands && optind < argc)
		return cli_usage_error(cmd->name, "unexpected argument '%s'", argv[optind]);
	if (first)
		*first = optind;
	return -1;
}
