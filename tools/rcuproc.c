/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc: the command-line tool around the library. */
#include <stdio.h>
#include <string.h>
#include <rcuproc/version.h>
#include "common/cli.h"

struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct subcommand subcommands[] = {
	{ "selfcheck", "concurrent self-check of the RCU list toolkit", cmd_selfcheck },
	{ "torture", "random operations from many threads, then an invariant check", cmd_torture },
	{ "replay", "replay strace recordings of real programs and compare with Linux", cmd_replay },
	{ "bench", "every workload in every mode, and the performance targets", cmd_bench },
	{ "demo", "a lively simulated system in each mode, side by side", cmd_demo },
	{ "ps", "a simulated system's table, as ps -eo pid,ppid,pgid,sid,stat,ni,comm", cmd_ps },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: rcuproc SUBCOMMAND [OPTIONS]\n   or: rcuproc --version\n\n"
		"subcommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'rcuproc SUBCOMMAND --help' describes each one.\n");
}

/* The command's version, the library's it runs on, and how that was built. */
static void version(void)
{
#ifdef RP_RCU_QSBR
	const char *flavour = "qsbr";
#else
	const char *flavour = "memb";
#endif
#ifdef RP_DEBUG
	const char *checks = "on: a test build, not for measuring";
#else
	const char *checks = "off";
#endif

	printf("rcuproc %s (library %s, liburcu flavour %s, debug checks %s)\n",
	       RCUPROC_VERSION_STRING, rp_version(), flavour, checks);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		version();
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "rcuproc: unknown subcommand '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
