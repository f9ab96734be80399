/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc replay: replay strace recordings into rcuproc and compare. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/cli.h"
#include "common/json.h"
#include "replay.h"

static const char about[] =
	"Replays each recording (scripts/record.sh: strace -f of real programs)\n"
	"into rcuproc, as the recorded tasks with their pids mapped, and compares\n"
	"every result, errno, wait status, delivered signal and exit status with\n"
	"what the real kernel answered.  Prints one MISMATCH line per difference,\n"
	"naming the recording's line, then a summary per recording, and a total\n"
	"line when there are several (--json: one object per recording, then the\n"
	"total).\n"
	"Exits 1 if anything differs, 2 on a usage or format error, 3 when a\n"
	"replay stopped making progress (the watchdog names the line), 4 when a\n"
	"recording does what replay cannot follow (a user namespace, a child of\n"
	"another pid namespace recorded without strace --pidns-translation), which\n"
	"is refused.";

struct replay_args {
	int mode;			/* enum rp_sync_mode */
	bool verbose, json;
	unsigned int watchdog;		/* seconds */
};

/* Over all recordings: what was counted, and how each went. */
struct replay_total {
	struct replay_counts counts;
	int recordings, matched, unreadable, refused;
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
		CLI_JSON(&a->json, "one JSON object per recording, then one for the total"),
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

static void print_counts(struct json *j, const struct replay_counts *c)
{
	json_int(j, "tasks", c->tasks);
	json_int(j, "replayed", c->replayed);
	json_int(j, "skipped", c->skipped);
	json_int(j, "mismatches", c->mismatches);
}

/* By exit status; 3, a stuck replay, exits from the watchdog. */
static const char *const outcome[] = { "matched", "mismatch", "unreadable", NULL, "refused" };

/* One recording's JSON object: its counts, its outcome, and the lines of
 * its text report (MISMATCH lines; with --verbose skips and tasks too). */
static void print_json(const char *file, int status, const struct replay_counts *c,
		       const char *report, size_t len)
{
	const char *line = report, *end = report + len;
	struct json j;

	json_record(&j, stdout, "recording");
	json_string(&j, "file", file);
	json_string(&j, "outcome", outcome[status]);
	print_counts(&j, c);
	json_array(&j, "lines");
	while (line < end) {
		const char *nl = memchr(line, '\n', end - line);
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		/* The summary line is the counts above. */
		if (strncmp(line, "replay ", 7))
			json_string_len(&j, NULL, line, n);
		line += n + 1;
	}
	json_end(&j);
	json_record_end(&j);
}

/* 0 if it matched, 1 on a mismatch, 2 if it could not be read, 4 if refused. */
static int replay_file(const char *file, const struct replay_args *a, struct replay_total *total)
{
	struct replay_opts opts = { .mode = (enum rp_sync_mode)a->mode, .verbose = a->verbose,
				    .watchdog_seconds = a->watchdog };
	struct replay_counts counts = { 0 };
	struct replay_reader r;
	FILE *in = open_recording(file), *out = stdout;
	char *report = NULL;
	size_t len = 0;
	int mismatches = -1, status;

	if (in && a->json)
		out = open_memstream(&report, &len);
	if (in && out) {
		replay_reader_init(&r, in, file);
		mismatches = replay_run_trace(&r, &opts, out, &counts);
		replay_reader_free(&r);
	}
	if (in && in != stdin)
		fclose(in);
	if (out && out != stdout)
		fclose(out);
	status = mismatches == REPLAY_REFUSED ? 4 : mismatches < 0 ? 2 : mismatches > 0;
	if (a->json)
		print_json(file, status, &counts, report ? report : "", report ? len : 0);
	free(report);
	total->recordings++;
	total->matched += status == 0;
	total->unreadable += status == 2;
	total->refused += status == 4;
	total->counts.tasks += counts.tasks;
	total->counts.replayed += counts.replayed;
	total->counts.skipped += counts.skipped;
	total->counts.mismatches += counts.mismatches;
	return status;
}

static void print_total(const struct replay_total *t, bool json)
{
	const struct replay_counts *c = &t->counts;

	if (json) {
		struct json j;

		json_record(&j, stdout, "total");
		json_int(&j, "recordings", t->recordings);
		json_int(&j, "matched", t->matched);
		json_int(&j, "unreadable", t->unreadable);
		json_int(&j, "refused", t->refused);
		print_counts(&j, c);
		json_record_end(&j);
		return;
	}
	printf("total: %d recordings (%d matched, %d unreadable, %d refused), %ld tasks, %ld "
	       "calls replayed, %ld skipped, %ld mismatches\n", t->recordings, t->matched,
	       t->unreadable, t->refused, c->tasks, c->replayed, c->skipped, c->mismatches);
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a = { .mode = RP_SYNC_RCU, .watchdog = 60 };
	int first, ret = parse_args(argc, argv, &a, &first), worst = 0;
	struct replay_total total;

	if (ret >= 0)
		return ret;
	memset(&total, 0, sizeof(total));
	rp_thread_register();
	for (int i = first; i < argc; i++) {
		int r = replay_file(argv[i], &a, &total);

		worst = r > worst ? r : worst;
	}
	rp_thread_unregister();
	if (a.json || total.recordings > 1)
		print_total(&total, a.json);
	return worst;
}
