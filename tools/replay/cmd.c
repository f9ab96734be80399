/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc replay: replay strace recordings into rcuproc and compare. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "common/cli.h"
#include "replay.h"

static const char about[] =
	"Replays each recording (scripts/record.sh: strace -f of real programs)\n"
	"into rcuproc, as the recorded tasks with their pids mapped, and compares\n"
	"every result, errno, wait status, delivered signal and exit status with\n"
	"what the real kernel answered.  Prints one MISMATCH line per difference,\n"
	"naming the recording's line, then a summary per recording.\n"
	"Exits 1 if anything differs, 2 on a usage or format error, 3 when a\n"
	"replay stopped making progress (the watchdog names the line).";

struct replay_args {
	int mode;			/* enum rp_sync_mode */
	bool verbose;
	unsigned int watchdog;		/* seconds */
};

/* -1 and the first recording's index in *@first, or the exit status. */
static int parse_args(int argc, char **argv, struct replay_args *a, int *first)
{
	const struct cli_command cmd = { "replay", "FILE...", about, NULL, {
		CLI_MODE(&a->mode),
		{ "verbose", 'v', CLI_FLAG, NULL, "every task's summary and every skipped call",
		  .to = &a->verbose },
		{ "watchdog", 'w', CLI_UINT, "S", "end a replay that makes no progress for S "
		  "seconds (0: never)", "60", .max = 86400, .to = &a->watchdog },
	} };
	int ret = cli_parse(&cmd, argc, argv, first);

	if (ret < 0 && *first == argc)
		return cli_usage_error("replay", "no recording given");
	return ret;
}

/* @file opened for reading ("-": standard input), or NULL, said on stderr. */
static FILE *open_recording(const char *file)
{
	FILE *in = strcmp(file, "-") ? fopen(file, "r") : stdin;
	struct stat st;

	if (!in) {
		fprintf(stderr, "rcuproc replay: %s: %s\n", file, strerror(errno));
		return NULL;
	}
	if (!fstat(fileno(in), &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rcuproc replay: %s: %s\n", file, strerror(EISDIR));
		fclose(in);
		return NULL;
	}
	return in;
}

/* 0 if it matched, 1 on a mismatch, 2 if it could not be read. */
static int replay_file(const char *file, const struct replay_args *a)
{
	struct replay_opts opts = { .mode = (enum rp_sync_mode)a->mode, .verbose = a->verbose,
				    .watchdog_seconds = a->watchdog };
	struct replay_reader r;
	FILE *in = open_recording(file);
	int mismatches;

	if (!in)
		return 2;
	replay_reader_init(&r, in, file);
	mismatches = replay_run_trace(&r, &opts, stdout);
	replay_reader_free(&r);
	if (in != stdin)
		fclose(in);
	return mismatches < 0 ? 2 : mismatches > 0;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a = { .mode = RP_SYNC_RCU, .watchdog = 60 };
	int first, ret = parse_args(argc, argv, &a, &first), worst = 0;

	if (ret >= 0)
		return ret;
	rp_thread_register();
	for (int i = first; i < argc; i++) {
		int r = replay_file(argv[i], &a);

		worst = r > worst ? r : worst;
	}
	rp_thread_unregister();
	return worst;
}
