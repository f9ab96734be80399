/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc bench: every workload in every mode, then the targets table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cli.h"
#include "common/progress.h"
#include "report.h"
#include "targets.h"
#include "workloads.h"

const struct bench_workload *const bench_workloads[] = {
	&bench_kill0, &bench_kill0_hot, &bench_getppid, &bench_kill_all, &bench_ps, &bench_wait_scan,
	&bench_fork_exit, &bench_lookups_under_storm, &bench_fork_vs_kill_all,
	&bench_fork_vs_ps, &bench_getpgid, &bench_killpg, &bench_kill_session,
	&bench_setpriority, &bench_setpgid, &bench_timer_gettime, NULL,
};

const struct bench_workload *bench_workload_find(const char *name)
{
	for (const struct bench_workload *const *w = bench_workloads; *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}

#define MAX_LIST	16

struct bench_args {
	const struct bench_workload *chosen[MAX_LIST + 1];	/* NULL-terminated */
	bool all, targets;
	unsigned int threads[MAX_LIST], nr_threads;
	unsigned long sizes[MAX_LIST];
	unsigned int nr_sizes;
	enum rp_sync_mode modes[RP_SYNC_NONE + 1];
	unsigned int nr_modes;
	double seconds;
	uint64_t ops;
	unsigned int repeat;
	bool json, quick;
};

static void bench_help(void)
{
	printf("usage: rcuproc bench [OPTIONS]\n\n"
	       "Runs each workload against a simulated system in each mode and prints\n"
	       "throughput, latency percentiles (log-bucket histogram), heap bytes per\n"
	       "process and the peak deferred-free backlog; then measures the\n"
	       "performance contract (docs/performance.md) as a targets table (met or short).\n"
	       "Build with -Dbuildtype=release -Ddebug_checks=false (bench/run.sh does).\n\n"
	       "  --workload LIST  comma-separated, 'suite' (every workload), 'targets'\n"
	       "                   or 'all' (both; default).  Workloads:\n");
	for (const struct bench_workload *const *w = bench_workloads; *w; w++)
		printf("                     %-13s %s\n", (*w)->name, (*w)->summary);
	printf("  --threads LIST   thread counts, 1 to %d (default 1,2); a mix runs with\n"
	       "                   at least 2; more than the CPUs is allowed and marked '*'\n"
	       "  --size LIST      processes in the table, 1 to 4194304 (default 1000,100000)\n"
	       "  --mode LIST      rcu, rwlock, qrwlock, none (unsynchronized, 1 thread)\n"
	       "                   or all (default)\n"
	       "  --seconds S      length of each measurement (default 0.3)\n"
	       "  --ops N          each thread runs exactly N operations instead (callgrind)\n"
	       "  --repeat N       measure each N times and keep the best, the least disturbed\n"
	       "                   by other load; a target alternates its two sides (default 3)\n"
	       "  --quick          tiny tables and runs: checks that everything works\n"
	       "  --json           one JSON object per line\n"
	       "  --help           this text\n", BENCH_MAX_THREADS);
}

static bool add_workloads(struct bench_args *a, char *list)
{
	unsigned int n = 0;

	for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		if (!strcmp(name, "all")) {
			a->all = a->targets = true;
		} else if (!strcmp(name, "suite")) {
			a->all = true;
		} else if (!strcmp(name, "targets")) {
			a->targets = true;
		} else if (n < MAX_LIST && bench_workload_find(name)) {
			a->chosen[n++] = bench_workload_find(name);
		} else {
			cli_usage_error("bench", "unknown workload '%s'", name);
			return false;
		}
	}
	a->chosen[n] = NULL;
	return true;
}

/* A comma-separated list of numbers in [min, max]. */
static bool parse_list(char *list, uint64_t min, uint64_t max, unsigned long *out,
		       unsigned int *n)
{
	*n = 0;
	for (char *s = strtok(list, ","); s; s = strtok(NULL, ",")) {
		uint64_t v;

		if (*n == MAX_LIST || !cli_parse_u64(s, min, max, &v))
			return false;
		out[(*n)++] = v;
	}
	return *n > 0;
}

static bool parse_threads(struct bench_args *a, char *list)
{
	unsigned long v[MAX_LIST];

	if (!parse_list(list, 1, BENCH_MAX_THREADS, v, &a->nr_threads))
		return false;
	for (unsigned int i = 0; i < a->nr_threads; i++)
		a->threads[i] = v[i];
	return true;
}

static bool parse_modes(struct bench_args *a, char *list)
{
	a->nr_modes = 0;
	for (char *s = strtok(list, ","); s; s = strtok(NULL, ",")) {
		enum rp_sync_mode m;

		if (!strcmp(s, "all")) {
			for (m = 0; m <= RP_SYNC_NONE; m++)
				a->modes[m] = m;
			a->nr_modes = RP_SYNC_NONE + 1;
			continue;
		}
		if (strcmp(s, "none") == 0)
			m = RP_SYNC_NONE;
		else if (rp_sync_mode_parse(s, &m))
			return false;
		if (a->nr_modes <= RP_SYNC_NONE)
			a->modes[a->nr_modes++] = m;
	}
	return a->nr_modes > 0;
}

static void apply_quick(struct bench_args *a)
{
	a->seconds = 0.05;
	a->sizes[0] = 100;
	a->nr_sizes = 1;
}

static int parse_args(int argc, char **argv, struct bench_args *a)
{
	static const struct option longopts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "threads", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool sized = false, timed = false, repeated = false;
	uint64_t v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (!add_workloads(a, optarg))
				return 2;
			break;
		case 't':
			if (!parse_threads(a, optarg))
				return cli_usage_error("bench", "bad --threads '%s'", optarg);
			break;
		case 'n':
			if (!parse_list(optarg, 1, RP_PID_MAX_LIMIT, a->sizes, &a->nr_sizes))
				return cli_usage_error("bench", "bad --size '%s'", optarg);
			sized = true;
			break;
		case 'm':
			if (!parse_modes(a, optarg))
				return cli_usage_error("bench", "bad --mode '%s'", optarg);
			break;
		case 's':
			if (!cli_parse_seconds(optarg, &a->seconds))
				return cli_usage_error("bench", "bad --seconds '%s'", optarg);
			timed = true;
			break;
		case 'o':
			if (!cli_parse_u64(optarg, 1, UINT64_MAX, &a->ops))
				return cli_usage_error("bench", "bad --ops '%s'", optarg);
			break;
		case 'r':
			if (!cli_parse_u64(optarg, 1, 100, &v))
				return cli_usage_error("bench", "bad --repeat '%s'", optarg);
			a->repeat = v;
			repeated = true;
			break;
		case 'q':
			a->quick = true;
			break;
		case 'j':
			a->json = true;
			break;
		case 'h':
			bench_help();
			return 0;
		default:
			return cli_usage_error("bench", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (a->quick) {
		unsigned long sizes[MAX_LIST];
		unsigned int n = a->nr_sizes;
		double s = a->seconds;

		memcpy(sizes, a->sizes, sizeof(sizes));
		apply_quick(a);
		if (sized) {	/* explicit values win over --quick's */
			memcpy(a->sizes, sizes, sizeof(sizes));
			a->nr_sizes = n;
		}
		if (timed)
			a->seconds = s;
		if (!repeated)
			a->repeat = 1;
	}
	return -1;
}

static bool runs_in(const struct bench_workload *w, enum rp_sync_mode mode,
		    unsigned int threads)
{
	if (mode == RP_SYNC_NONE)
		return w->unsynchronized_ok && threads == 1;
	return threads >= (w->min_threads ? w->min_threads : 1);
}

/* A mix needs min_threads: smaller counts run at that minimum, once. */
static unsigned int threads_for(const struct bench_workload *w, unsigned int threads)
{
	return threads < w->min_threads ? w->min_threads : threads;
}

static int run_one(const struct bench_args *a, const struct bench_workload *w,
		   enum rp_sync_mode mode, unsigned int threads, unsigned long size)
{
	struct bench_config cfg = {
		.w = w, .mode = mode, .threads = threads, .size = size,
		.seconds = a->seconds, .ops = a->ops,
		.progress = !a->json && progress_wanted(),
	};
	static struct bench_result res, best;	/* large: off the stack */

	for (unsigned int r = 0; r < a->repeat; r++) {
		int err = bench_measure(&cfg, &res);

		if (err) {
			fprintf(stderr, "rcuproc bench: %s in %s, %u threads, size %lu: %s\n",
				w->name, rp_sync_mode_name(mode), threads, size, strerror(-err));
			return 1;
		}
		if (r == 0 || result_rate(&res, 0) > result_rate(&best, 0))
			best = res;
	}
	report_result(&best, a->json);
	return 0;
}

/* Every chosen workload in every chosen mode, thread count and size. */
static int run_suite(const struct bench_args *a)
{
	int failed = 0;

	for (const struct bench_workload *const *w = a->chosen; *w; w++)
		for (unsigned int m = 0; m < a->nr_modes; m++)
			for (unsigned int t = 0; t < a->nr_threads; t++) {
				unsigned int threads = threads_for(*w, a->threads[t]);

				if (!runs_in(*w, a->modes[m], threads) ||
				    (t && threads == threads_for(*w, a->threads[t - 1])))
					continue;
				for (unsigned int s = 0; s < a->nr_sizes; s++) {
					/* An unsized workload runs once, with no table. */
					failed |= run_one(a, *w, a->modes[m], threads,
							  (*w)->sized ? a->sizes[s] : 0);
					if (!(*w)->sized)
						break;
				}
			}
	return failed;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_args a = {
		.threads = { 1, 2 }, .nr_threads = 2,
		.sizes = { 1000, 100000 }, .nr_sizes = 2,
		.modes = { RP_SYNC_RCU, RP_SYNC_RWLOCK, RP_SYNC_QRWLOCK, RP_SYNC_NONE },
		.nr_modes = 4, .seconds = 0.3, .repeat = 3,
	};
	int ret = parse_args(argc, argv, &a), failed;

	if (ret >= 0)
		return ret;
	if (!a.chosen[0] && !a.all && !a.targets)
		a.all = a.targets = true;
	if (a.all)
		memcpy(a.chosen, bench_workloads, sizeof(bench_workloads));
	report_header(a.json);
	failed = run_suite(&a);
	if (a.targets) {
		struct target_env env = {
			.seconds = a.seconds, .rounds = a.repeat, .quick = a.quick, .json = a.json,
			.progress = !a.json && progress_wanted(),
		};

		if (!a.json)
			printf("\nmeasurements for the targets:\n");
		failed |= bench_targets(&env);
	}
	return failed;
}
