/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared helpers of the rcuproc command's subcommands. */
#ifndef RP_TOOLS_COMMON_CLI_H
#define RP_TOOLS_COMMON_CLI_H

#include <stdbool.h>
#include <stdint.h>

/* Print "rcuproc SUB: MESSAGE" to stderr; returns the usage exit code 2. */
int cli_usage_error(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse a whole number in [min, max]; false on anything else. */
bool cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Parse a positive number of seconds (at most a day); false otherwise. */
bool cli_parse_seconds(const char *s, double *out);

int cmd_selfcheck(int argc, char **argv);
int cmd_torture(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_ps(int argc, char **argv);

#endif /* RP_TOOLS_COMMON_CLI_H */
