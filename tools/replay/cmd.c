/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc replay: replay strace recordings into rcuproc and compare. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "common/cli.h"
#include "replay.h"

static void replay_help(void)
{
	printf("usage: rcuproc replay [OPTIONS] FILE...\n\n"
	       "Replays each recording (scripts/record.sh: strace -f of real programs)\n"
	       "into rcuproc, as the recorded tasks with their pids mapped, and compares\n"
	       "every result, errno, wait status, delivered signal and exit status with\n"
	       "what the real kernel answered.  Prints one MISMATCH line per difference,\n"
	       "naming the recording's line, then a summary per recording.\n"
	       "Exits 1 if anything differs, 2 on a usage or format error.\n\n"
	       "  --mode MODE     rcu, rwlock or qrwlock (default: rcu)\n"
	       "  --verbose       every task's summary and every skipped call\n"
	       "  --help          this text\n");
}

struct replay_args {
	enum rp_sync_mode mode;
	bool verbose;
};

static int parse_args(int argc, char **argv, struct replay_args *a)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (rp_sync_mode_parse(optarg, &a->mode))
				return cli_usage_error("replay", "unknown mode '%s'", optarg);
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'h':
			replay_help();
			return 0;
		default:
			return cli_usage_error("replay", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind == argc)
		return cli_usage_error("replay", "no recording given");
	return -1;
}

/* 0 if it matched, 1 on a mismatch, 2 if it could not be read. */
static int replay_file(const char *file, const struct replay_args *a)
{
	struct replay_trace tr;
	FILE *in = fopen(file, "r");
	int mismatches;

	if (!in) {
		perror(file);
		return 2;
	}
	mismatches = replay_parse(in, file, &tr) ? -1 :
		     replay_run_trace(&tr, file, a->mode, a->verbose, stdout);
	fclose(in);
	replay_trace_free(&tr);
	return mismatches < 0 ? 2 : mismatches > 0;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a = { .mode = RP_SYNC_RCU };
	int ret = parse_args(argc, argv, &a), worst = 0;

	if (ret >= 0)
		return ret;
	rp_thread_register();
	for (int i = optind; i < argc; i++) {
		int r = replay_file(argv[i], &a);

		worst = r > worst ? r : worst;
	}
	rp_thread_unregister();
	return worst;
}
