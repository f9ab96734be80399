/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The option layer of the rcuproc command: each subcommand declares its
 * options in a table, and cli_parse reads argv against it, prints the same
 * messages for bad input everywhere, and answers -h/--help with a usage
 * made from the table.  Numbers are base 10 only.
 */
#ifndef RP_TOOLS_COMMON_CLI_H
#define RP_TOOLS_COMMON_CLI_H

#include <stdbool.h>
#include <stdint.h>

/* What an option's value is, and where it goes (struct cli_opt.to). */
enum cli_kind {
	CLI_FLAG,			/* bool: true when given; takes no value */
	CLI_UINT,			/* unsigned int in [min, max] */
	CLI_U64,			/* uint64_t in [min, max] */
	CLI_REAL,			/* double in (0, limit] */
	CLI_STRING,			/* const char *: the text as given */
	CLI_ENUM,			/* int: the index of one of names; -1: "all" */
};

struct cli_opt {
	const char *name;		/* the long name, without "--"; NULL ends */
	char flag;			/* the short flag, or 0 */
	enum cli_kind kind;
	const char *value;		/* the value's name in the usage: N, S, MODE */
	const char *help;		/* what it does; '\n' starts another line */
	const char *def;		/* the default, for the usage; NULL: none said */
	const char *range;		/* the allowed values for the usage, instead of
					   the ones made from min/max, limit or names */
	uint64_t min, max;		/* CLI_UINT, CLI_U64 */
	const char *max_why;		/* optional: why a value above max is refused,
					   said after the range */
	double limit;			/* CLI_REAL */
	const char *const *names;	/* CLI_ENUM: NULL-terminated */
	bool all;			/* CLI_ENUM: "all" stands for every name */
	unsigned int list;		/* > 0: comma-separated, at most this many
					   values (all of names with "all") */
	unsigned int *count;		/* with list: how many values to[] holds */
	void *to;			/* the value (an array of them with list) */
	bool *given;			/* optional: set when the option is given */
};

#define CLI_MAX_OPTS	16

struct cli_command {
	const char *name;		/* the subcommand */
	const char *operands;		/* the usage's words after [OPTIONS];
					   NULL: no operand is taken */
	const char *about;		/* the paragraph after the usage line */
	void (*notes)(void);		/* optional: more text after the options */
	struct cli_opt opts[CLI_MAX_OPTS + 1];	/* the table; the rest stays 0 */
};

/* The options every subcommand that has them spells the same way. */
#define CLI_JSON(to_, help_) { "json", 'j', CLI_FLAG, NULL, help_, .to = to_ }
#define CLI_MODE(to_) { "mode", 'm', CLI_ENUM, "MODE", "synchronization mode", "rcu", \
			.names = cli_mode_names(false), .to = to_ }

/*
 * Read @argv against @cmd's table into the options' places.  -1: go on,
 * with the operands from argv[*@first] (@first may be NULL where no operand
 * is taken); otherwise the exit status: 0 after the usage (-h, --help), 2
 * after a usage error said on stderr.
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, int *first);

/* Print "rcuproc SUB: MESSAGE" and a pointer to --help to stderr; returns 2. */
int cli_usage_error(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * @text as a base-10 number in [min, max] into *@out: 0, or 2 after saying
 * on stderr "rcuproc SUB: WHAT: ..." with the range.  For values inside an
 * option's own syntax (torture's --weights); cli_parse uses it too.
 */
int cli_number(const char *sub, const char *what, const char *text, uint64_t min,
	       uint64_t max, uint64_t *out);

/* The names of the synchronization modes, in enum rp_sync_mode order
 * (rcu-global after the three the tests loop over); with @none, "none"
 * (RP_SYNC_NONE) last.  NULL-terminated, for CLI_ENUM. */
const char *const *cli_mode_names(bool none);

int cmd_selfcheck(int argc, char **argv);
int cmd_torture(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_ps(int argc, char **argv);

#endif /* RP_TOOLS_COMMON_CLI_H */
