/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc bench: every workload in every mode, then the targets table. */
#include <errno.h>
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
	&bench_fork_vs_ps, &bench_kill0_under_ps, &bench_getpgid, &bench_killpg, &bench_kill_session,
	&bench_setpriority, &bench_setpgid, &bench_timer_gettime, &bench_fork_own, &bench_exec_own,
	&bench_fork_ownsess, &bench_fork_onepg,
	&bench_setpgid_own, &bench_setpgid_onepg, &bench_setpgid_threads, &bench_ptrace_own, &bench_ptrace_onepg,
	&bench_stop_own,
	&bench_ptrace_threads, &bench_ptrace_requests, &bench_ptrace_eventmsg,
	&bench_kill0_ns, &bench_thread_own, &bench_fork_ns, &bench_fork_ns_tree, &bench_thread_exec,
	NULL,
};

static const char about[] =
	"Runs each workload against a simulated system in each mode and prints\n"
	"throughput, latency percentiles (log-bucket histogram), heap bytes per\n"
	"process and the peak deferred-free backlog; then measures the\n"
	"performance contract (docs/performance.md) as a targets table (met or short).\n"
	"Build with -Dbuildtype=release -Ddebug_checks=false (bench/run.sh does).";

#define MAX_LIST	16
#define MAX_REPEAT	100

/* Room for every workload (--workload suite) or MAX_LIST picks, and the NULL. */
#define NR_ENTRIES	(sizeof(bench_workloads) / sizeof(bench_workloads[0]))
#define MAX_CHOSEN	(NR_ENTRIES > MAX_LIST + 1 ? NR_ENTRIES : MAX_LIST + 1)

struct bench_args {
	const struct bench_workload *chosen[MAX_CHOSEN];	/* NULL-terminated */
	bool all, targets;
	int picks[MAX_LIST];		/* --workload: see workload_names */
	unsigned int nr_picks;
	unsigned int threads[MAX_LIST], nr_threads;
	unsigned int sizes[MAX_LIST], nr_sizes;
	int modes[RP_SYNC_NONE + 1];	/* enum rp_sync_mode */
	unsigned int nr_modes;
	double seconds;
	uint64_t ops;
	unsigned int repeat;
	int format;			/* enum bench_format */
	bool json, quick, list;
	bool sized, timed, repeated;	/* given explicitly: not --quick's */
};

/* The choices of --workload: each workload, then these three. */
enum { PICK_SUITE, PICK_TARGETS, PICK_ALL, NR_GROUP_PICKS };

static unsigned int nr_workloads(void)
{
	unsigned int n = 0;

	while (bench_workloads[n])
		n++;
	return n;
}

static const char *const *workload_names(void)
{
	static const char *names[NR_ENTRIES + NR_GROUP_PICKS];
	unsigned int n = nr_workloads();

	for (unsigned int i = 0; i < n; i++)
		names[i] = bench_workloads[i]->name;
	names[n + PICK_SUITE] = "suite";
	names[n + PICK_TARGETS] = "targets";
	names[n + PICK_ALL] = "all";
	return names;
}

/* Each workload's name and what it does, one a line. */
static void list_workloads(void)
{
	for (const struct bench_workload *const *w = bench_workloads; *w; w++)
		printf("  %-13s %s\n", (*w)->name, (*w)->summary);
}

static void usage_notes(void)
{
	printf("\nworkloads:\n");
	list_workloads();
}

/* --workload's picks into chosen[], all (the suite) and targets. */
static void apply_picks(struct bench_args *a)
{
	unsigned int n = 0, nr = nr_workloads();

	for (unsigned int i = 0; i < a->nr_picks; i++) {
		int p = a->picks[i] - (int)nr;

		if (p < 0)
			a->chosen[n++] = bench_workloads[a->picks[i]];
		a->all |= p == PICK_SUITE || p == PICK_ALL;
		a->targets |= p == PICK_TARGETS || p == PICK_ALL;
	}
	a->chosen[n] = NULL;
}

static void apply_quick(struct bench_args *a)
{
	if (!a->sized) {
		a->sizes[0] = 100;
		a->nr_sizes = 1;
	}
	if (!a->timed)
		a->seconds = 0.05;
	if (!a->repeated)
		a->repeat = 1;
}

/* The figures --size's help and max_why say. */
_Static_assert(BENCH_SIZE_MAX == 4194301 && BENCH_PID_SPACE == 4194303 &&
	       RP_PID_MAX_LIMIT == 4194304, "--size's help: the whole pid space");

/* A mix needs min_threads: smaller counts run at that minimum, once. */
static unsigned int threads_for(const struct bench_workload *w, unsigned int threads)
{
	return threads < w->min_threads ? w->min_threads : threads;
}

/* The thread count of @a's that @w runs with that takes the most pids besides its table. */
static unsigned int most_pids_threads(const struct bench_args *a, const struct bench_workload *w)
{
	unsigned int most = 0;

	for (unsigned int t = 0; t < a->nr_threads; t++)
		if (threads_for(w, a->threads[t]) > most)
			most = threads_for(w, a->threads[t]);
	return most;
}

/*
 * Every size fits in the whole pid space with the pids its measurements
 * take besides (bench_pids_needed): -1, or 2 after saying why not.  The
 * option's own maximum is for one thread; this is for more threads and
 * for the mixes, whose threads fork while they run.
 */
static int check_pid_space(const struct bench_args *a)
{
	const struct bench_workload *most = NULL;
	unsigned long own = 0;
	unsigned int threads = 0;

	for (const struct bench_workload *const *w = a->chosen; *w; w++) {
		unsigned int t = most_pids_threads(a, *w);

		if ((*w)->sized && bench_pids_needed(*w, t, 0) > own) {
			most = *w;
			threads = t;
			own = bench_pids_needed(*w, t, 0);
		}
	}
	for (unsigned int s = 0; most && s < a->nr_sizes; s++)
		if (a->sizes[s] + own > BENCH_PID_SPACE)
			return cli_usage_error("bench", "--size: %u is more than the pid space "
					       "holds: %s with %u thread%s takes %lu pids besides "
					       "(init, its threads' processes%s), and with pid_max "
					       "at its limit, %u, the pids are 1 to %u; at most %lu",
					       a->sizes[s], most->name, threads, threads == 1 ? "" : "s",
					       own, most->children_in_run ? " and a child each" : "",
					       RP_PID_MAX_LIMIT, BENCH_PID_SPACE,
					       BENCH_PID_SPACE - own);
	return -1;
}

static int parse_args(int argc, char **argv, struct bench_args *a)
{
	const struct cli_command cmd = { "bench", NULL, about, usage_notes, {
		{ "workload", 'w', CLI_ENUM, "LIST", "workloads, 'suite' (every workload),\n"
		  "'targets' or 'all' (both)", "all", .range = "the names below",
		  .names = workload_names(), .list = MAX_LIST, .count = &a->nr_picks,
		  .to = a->picks },
		{ "threads", 't', CLI_UINT, "LIST", "thread counts; a mix runs with at least 2;\n"
		  "more than the CPUs is allowed and marked '*'", "1,2", .min = 1,
		  .max = BENCH_MAX_THREADS, .list = MAX_LIST, .count = &a->nr_threads,
		  .to = a->threads },
		{ "size", 'n', CLI_UINT, "LIST", "processes in the table (or the group); with\n"
		  "init and a process per thread (two for the\n"
		  "mixes that fork), up to the whole pid space,\n"
		  "pids 1 to 4194303", "1000,100000", .min = 1, .max = BENCH_SIZE_MAX,
		  .max_why = "with init and one thread's process, 4194301 fill the whole pid "
		  "space: with pid_max at its limit, 4194304, the pids are 1 to 4194303",
		  .list = MAX_LIST, .count = &a->nr_sizes, .to = a->sizes, .given = &a->sized },
		{ "mode", 'm', CLI_ENUM, "LIST", "modes; none is unsynchronized, 1 thread", "all",
		  .names = cli_mode_names(true), .all = true, .list = RP_SYNC_NONE + 1,
		  .count = &a->nr_modes, .to = a->modes },
		{ "seconds", 's', CLI_REAL, "S", "length of each measurement", "0.3",
		  .limit = 86400, .to = &a->seconds, .given = &a->timed },
		{ "ops", 'o', CLI_U64, "N", "each thread runs exactly N operations instead\n"
		  "(callgrind)", .min = 1, .max = UINT64_MAX, .to = &a->ops },
		{ "repeat", 'r', CLI_UINT, "N", "measure each N times and keep the best, the\n"
		  "least disturbed by other load, with the median\nand range beside it; a target "
		  "alternates its\ntwo sides", "3",
		  .min = 1, .max = MAX_REPEAT, .to = &a->repeat, .given = &a->repeated },
		{ "quick", 'q', CLI_FLAG, NULL, "tiny tables and runs: checks that everything\n"
		  "works", .to = &a->quick },
		{ "format", 'f', CLI_ENUM, "F", "the output: a text table, CSV, JSON lines\n"
		  "or Markdown tables", "text", .names = bench_format_names, .to = &a->format },
		CLI_JSON(&a->json, "the same as --format json"),
		{ "list", 'l', CLI_FLAG, NULL, "list the workloads and exit", .to = &a->list },
	} };
	int ret = cli_parse(&cmd, argc, argv, NULL);

	if (ret >= 0)
		return ret;
	apply_picks(a);
	if (a->json)
		a->format = BENCH_JSON;
	if (a->quick)
		apply_quick(a);
	return check_pid_space(a);
}

static bool runs_in(const struct bench_workload *w, enum rp_sync_mode mode,
		    unsigned int threads)
{
	if (mode == RP_SYNC_NONE)
		return w->unsynchronized_ok && threads == 1;
	return threads >= (w->min_threads ? w->min_threads : 1);
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median and range of @n rates (sorted in place). */
static void spread_of(double *rates, unsigned int n, unsigned int k, struct bench_spread *sp)
{
	qsort(rates, n, sizeof(*rates), by_value);
	sp->median[k] = n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
	sp->min[k] = rates[0];
	sp->max[k] = rates[n - 1];
}

/* Measure a->repeat times; report the best by its first kind's ops/s and the
 * spread of each kind.  0, 1 on an error, or -EINTR. */
static int run_one(const struct bench_args *a, const struct bench_workload *w,
		   enum rp_sync_mode mode, unsigned int threads, unsigned long size,
		   struct bench_progress *overall)
{
	struct bench_config cfg = {
		.w = w, .mode = mode, .threads = threads, .size = size,
		.seconds = a->seconds, .ops = a->ops,
		.progress = a->format != BENCH_JSON && progress_wanted(), .overall = overall,
	};
	static struct bench_result res, best;	/* large: off the stack */
	double rates[BENCH_MAX_KINDS][MAX_REPEAT];
	struct bench_spread sp = { .repeats = a->repeat };

	for (unsigned int r = 0; r < a->repeat; r++) {
		int err = bench_measure(&cfg, &res);

		if (err == -EINTR)
			return err;
		if (err) {
			fprintf(stderr, "rcuproc bench: %s in %s, %u threads, size %lu: %s\n",
				w->name, rp_sync_mode_name(mode), threads, size, strerror(-err));
			return 1;
		}
		for (unsigned int k = 0; k < BENCH_MAX_KINDS; k++)
			rates[k][r] = bench_result_rate(&res, k);
		if (r == 0 || bench_result_rate(&res, 0) > bench_result_rate(&best, 0))
			best = res;
	}
	for (unsigned int k = 0; k < BENCH_MAX_KINDS && w->kinds[k]; k++)
		spread_of(rates[k], a->repeat, k, &sp);
	bench_report_result(&best, &sp);
	bench_report_tabulate(&best);
	overall->done++;
	return 0;
}

/*
 * Every chosen workload in every chosen mode, thread count and size; with
 * @count, only count them into overall->total.  0, 1 if one failed, or
 * -EINTR at once if interrupted.
 */
static int run_suite(const struct bench_args *a, struct bench_progress *overall, bool count)
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
					int ret = count ? 0 : run_one(a, *w, a->modes[m], threads,
								      (*w)->sized ? a->sizes[s] : 0,
								      overall);

					if (ret < 0)
						return ret;
					failed |= ret;
					overall->total += count;
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
		.modes = { RP_SYNC_RCU, RP_SYNC_RWLOCK, RP_SYNC_QRWLOCK, RP_SYNC_RCU_GLOBAL,
			   RP_SYNC_NONE },
		.nr_modes = 5, .seconds = 0.3, .repeat = 3,
	};
	struct bench_progress overall = { 0 };
	int ret = parse_args(argc, argv, &a), failed;

	if (ret >= 0)
		return ret;
	if (a.list) {
		list_workloads();
		return 0;
	}
	if (!a.nr_picks)
		a.all = a.targets = true;
	if (a.all)
		memcpy(a.chosen, bench_workloads, sizeof(bench_workloads));
	bench_catch_interrupt();
	bench_report_begin(a.format, a.quick);
	run_suite(&a, &overall, true);
	overall.start_ns = bench_clock_ns();
	failed = run_suite(&a, &overall, false);
	bench_report_side_by_side();
	bench_report_speedups();
	if (failed >= 0 && a.targets) {
		struct target_env env = {
			.seconds = a.seconds, .rounds = a.repeat, .quick = a.quick,
			.progress = a.format != BENCH_JSON && progress_wanted(),
		};

		if (a.format == BENCH_TEXT)
			printf("\nmeasurements for the targets:\n");
		failed |= bench_targets(&env);
	}
	if (bench_interrupted()) {
		bench_report_interrupted();
		return 130;	/* as a shell reports a command SIGINT ended */
	}
	return failed;
}
