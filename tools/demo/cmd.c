/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc demo: run the simulated system in each mode, side by side. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu/uatomic.h>
#include "../bench/bench.h"
#include "common/progress.h"
#include "common/cli.h"
#include "common/json.h"
#include "demo.h"

const char *const demo_kind_names[K_NR] = {
	[K_FORK] = "fork", [K_REAP] = "wait4 (reap)", [K_PIPELINE] = "pipeline run",
	[K_INTERRUPT] = "^C (keyboard)", [K_RTSIG] = "sigqueue RT",
	[K_PS] = "ps scan", [K_LOOKUP] = "kill(pid,0)", [K_TIMER] = "CPU timer fired",
	[K_SERVICE] = "container service",
};

const char *const demo_check_names[C_NR] = {
	[C_REAPED] = "every fork reaped once", [C_STATUS] = "wait statuses right",
	[C_RT_ONCE] = "RT signals exactly once", [C_TIMER_ONCE] = "timer expiries once",
	[C_COUNTS_ZERO] = "object counts back to 0",
	[C_NS_PIDS] = "container pids inside",
};

static const char about[] =
	"Runs a lively simulated system for a few seconds in each mode: a build\n"
	"farm forking and reaping compilers, a shell running pipelines under job\n"
	"control on its terminal and interrupting them with ^C, a supervisor\n"
	"queueing numbered real-time signals to a worker, a monitor scanning the\n"
	"table, a process whose CPU-time timer fires on each tick, a container\n"
	"(a pid namespace) whose init starts and reaps services.  Prints\n"
	"operations per second and latency percentiles by kind, side by side,\n"
	"and the invariants checked; writes a plot (gnuplot, PNG and SVG).\n"
	"Exits 1 if an invariant broke (or was never checked).";

struct demo_args {
	int modes[RP_SYNC_NR_NAMED];	/* enum rp_sync_mode */
	unsigned int nr_modes;
	double seconds;
	uint64_t idle;			/* sleeping processes the monitor scans */
	const char *out;
	bool no_plot, json;
};

static int parse_args(int argc, char **argv, struct demo_args *a)
{
	const struct cli_command cmd = { "demo", NULL, about, NULL, {
		{ "seconds", 's', CLI_REAL, "S", "run time in each mode", "3",
		  .limit = 86400, .to = &a->seconds },
		{ "procs", 'p', CLI_U64, "N", "sleeping processes in the table besides the\n"
		  "roles': what the monitor scans", "5000", .min = 0, .max = 1000000,
		  .to = &a->idle },
		{ "mode", 'm', CLI_ENUM, "LIST", "modes", "rcu,rwlock,qrwlock",
		  .names = cli_mode_names(false),
		  .all = true, .list = RP_SYNC_NR_NAMED, .count = &a->nr_modes, .to = a->modes },
		{ "out", 'o', CLI_STRING, "DIR", "where the plot goes", "./demo-out",
		  .to = &a->out },
		{ "no-plot", 0, CLI_FLAG, NULL, "no plot", .to = &a->no_plot },
		CLI_JSON(&a->json, "one JSON object per mode and kind instead of tables"),
	} };

	return cli_parse(&cmd, argc, argv, NULL);
}

struct role_thread {
	pthread_t tid;
	struct demo_world *world;
	const struct demo_role *role;
	struct rp_task *self;
	struct demo_stats stats;
};

/* The calling thread's CPU time, in ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void *role_main(void *arg)
{
	struct role_thread *r = arg;
	uint64_t cpu0;

	rp_thread_register();
	cpu0 = thread_cpu_ns();
	r->role->run(r->world, r->self, &r->stats);
	r->stats.cpu_ns[r->role->kind] += thread_cpu_ns() - cpu0;
	rp_exit(r->self, 0);
	rp_thread_unregister();
	return NULL;
}

/* Fork each role's process from init and let it prepare: 0 or -errno. */
static int start_roles(struct demo_world *w, struct rp_task *init, struct role_thread *rt)
{
	for (unsigned int i = 0; i < demo_nr_roles; i++) {
		pid_t pid = rp_fork(init, &rt[i].self);
		int err = pid < 0 ? pid : rp_execve(rt[i].self, demo_roles[i].name);

		if (!err && demo_roles[i].prepare)
			err = demo_roles[i].prepare(w, rt[i].self);
		if (err)
			return err;
		rt[i].world = w;
		rt[i].role = &demo_roles[i];
	}
	return 0;
}

/* Let the roles run for @seconds, drawing progress through the whole demo. */
static void run_for(struct demo_world *w, double seconds, double done, double share)
{
	uint64_t start = bench_clock_ns(), end = start + (uint64_t)(seconds * 1e9);
	struct timespec tick = { 0, 20000000 };
	bool bar = progress_wanted();

	for (uint64_t now = start; now < end; now = bench_clock_ns()) {
		if (bar)
			progress_draw("rcuproc demo", done + share * (now - start) / (end - start));
		nanosleep(&tick, NULL);
	}
	CMM_STORE_SHARED(w->stop, 1);
	if (bar)
		progress_clear();
}

/* init reaps the roles' processes; then only init's objects may be left. */
static void reap_and_count(struct rp_task *init, struct rp_system *sys, struct demo_stats *st)
{
	struct rp_system_counts c;
	int status;

	while (rp_wait4(init, -1, &status, 0, NULL) > 0)
		;
	rp_deferred_barrier();
	rp_system_counts(sys, &c);
	demo_check(st, C_COUNTS_ZERO, c.tasks == 1 && c.signals == 1 && c.sighands == 1 &&
		   c.pids == 1 && c.creds == 1 && c.sigqueues == 0);
}

static void merge(struct demo_stats *dst, const struct demo_stats *src)
{
	for (unsigned int k = 0; k < K_NR; k++) {
		dst->ops[k] += src->ops[k];
		dst->cpu_ns[k] += src->cpu_ns[k];
		hist_merge(&dst->hist[k], &src->hist[k]);
	}
	for (unsigned int c = 0; c < C_NR; c++) {
		dst->checked[c] += src->checked[c];
		dst->violations[c] += src->violations[c];
	}
}

/* Fork @n sleeping processes from init; their handles in *@out. */
static int add_sleepers(struct rp_task *init, uint64_t n, struct rp_task ***out)
{
	struct rp_task **procs = calloc(n + 1, sizeof(*procs));

	*out = procs;
	if (!procs)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		pid_t pid = rp_fork(init, &procs[i]);

		if (pid < 0)
			return pid;
		rp_execve(procs[i], "sleep");
	}
	return 0;
}

/* The sleepers exit (init reaps them with the roles). */
static void end_sleepers(struct rp_task **procs)
{
	for (struct rp_task **p = procs; p && *p; p++) {
		rp_exit(*p, 0);
		rp_task_put(*p);
	}
	free(procs);
}

static void start_threads(struct role_thread *rt)
{
	for (unsigned int i = 0; i < demo_nr_roles; i++)
		pthread_create(&rt[i].tid, NULL, role_main, &rt[i]);
}

static void join_threads(struct role_thread *rt, struct demo_stats *st)
{
	for (unsigned int i = 0; i < demo_nr_roles; i++) {
		pthread_join(rt[i].tid, NULL);
		merge(st, &rt[i].stats);
	}
}

/* Mode @m of @a: its merged stats in *@st; 0 or -errno. */
static int run_mode(const struct demo_args *a, unsigned int m, struct demo_stats *st)
{
	struct rp_system_opts opts = { .mode = a->modes[m], .pid_max = RP_PID_MAX_LIMIT };
	struct role_thread *rt = calloc(demo_nr_roles, sizeof(*rt));
	struct demo_world w = { 0 };
	struct rp_task *init, **sleepers = NULL;
	int err = rt ? rp_system_create(&opts, &w.sys) : -ENOMEM;

	if (err) {
		free(rt);
		return err;
	}
	rp_thread_register();
	init = rp_system_init(w.sys);
	err = add_sleepers(init, a->idle, &sleepers);
	if (!err)
		err = start_roles(&w, init, rt);
	rp_thread_unregister();		/* QSBR: not online while it sleeps */
	if (!err) {
		start_threads(rt);
		run_for(&w, a->seconds, (double)m / a->nr_modes, 1.0 / a->nr_modes);
		join_threads(rt, st);
	}
	rp_thread_register();
	for (unsigned int i = 0; i < demo_nr_roles; i++)
		if (rt[i].self)
			rp_task_put(rt[i].self);
	end_sleepers(sleepers);
	if (!err)
		reap_and_count(init, w.sys, st);
	if (w.tty)
		rp_tty_destroy(w.tty);
	rp_task_put(init);
	rp_system_destroy(w.sys);
	rp_thread_unregister();
	free(rt);
	return err;
}

/* @ns with a unit: 850ns, 12.3us, 4.56ms, 1.20s. */
static const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

/* A table's title and its header: the first column, then one per mode. */
static void print_head(const struct demo_args *a, const char *title, const char *first)
{
	printf("\n%s\n%-24s", title, first);
	for (unsigned int m = 0; m < a->nr_modes; m++)
		printf(" %26s", rp_sync_mode_name(a->modes[m]));
}

/* "p50 / p99 / p999" of @h, in units. */
static void latency_cell(char *cell, size_t len, const struct hist *h)
{
	char b1[16], b2[16], b3[16];

	snprintf(cell, len, "%s / %s / %s", fmt_ns(b1, sizeof(b1), hist_percentile(h, 0.5)),
		 fmt_ns(b2, sizeof(b2), hist_percentile(h, 0.99)),
		 fmt_ns(b3, sizeof(b3), hist_percentile(h, 0.999)));
}

/*
 * Under the throughput table: the row that surprises most is the slowest
 * mode's fork rate, when it is far behind the fastest.  Say what it is.
 */
static void explain_forks(const struct demo_args *a, const struct demo_stats *st)
{
	unsigned int slow = 0, fast = 0;

	for (unsigned int m = 1; m < a->nr_modes; m++) {
		if (st[m].ops[K_FORK] < st[slow].ops[K_FORK])
			slow = m;
		if (st[m].ops[K_FORK] > st[fast].ops[K_FORK])
			fast = m;
	}
	printf("\n\n  Reading it: ");
	if (a->modes[slow] == RP_SYNC_RWLOCK && st[slow].ops[K_FORK] * 10 < st[fast].ops[K_FORK])
		printf("rwlock forks %.0f/s against %s's %.0f/s: glibc's rwlock prefers "
		       "readers, so\n  the monitor's lookups and scans keep the writer out "
		       "(writer starvation);\n  qrwlock queues them in order, rcu's readers take "
		       "no lock.", st[slow].ops[K_FORK] / a->seconds,
		       rp_sync_mode_name(a->modes[fast]), st[fast].ops[K_FORK] / a->seconds);
	else
		printf("the same work in each mode; a row far behind is a side waiting for "
		       "the other\n  (readers for a writer, or a writer for readers).");
	printf("  docs/performance.md explains the rows.");
}

/*
 * What the operations cost: each role's thread CPU time against what it
 * did.  The roles share the machine's CPUs, so a rate per second also says
 * how much CPU a role got: a mode whose other roles wait for a lock (off
 * the CPU) leaves more of it to the rest.
 */
static void print_cpu_table(const struct demo_args *a, const struct demo_stats *st)
{
	print_head(a, "\noperations per CPU-second of the role that does them", "kind");
	for (unsigned int k = 0; k < K_NR; k++) {
		if (!st[0].cpu_ns[k])
			continue;	/* its role's time is charged to another kind */
		printf("\n%-24s", demo_kind_names[k]);
		for (unsigned int m = 0; m < a->nr_modes; m++)
			printf(" %26.0f", st[m].cpu_ns[k] ? st[m].ops[k] * 1e9 / st[m].cpu_ns[k] : 0.0);
	}
	printf("\n%-24s", "CPU seconds, all roles");
	for (unsigned int m = 0; m < a->nr_modes; m++) {
		uint64_t ns = 0;

		for (unsigned int k = 0; k < K_NR; k++)
			ns += st[m].cpu_ns[k];
		printf(" %26.2f", ns / 1e9);
	}
	printf("\n\n  Reading it: the roles share the CPUs; a role waiting for a lock leaves "
	       "its CPU\n  to the others, so a row behind per second may be a role that got less "
	       "CPU.\n  sigqueue RT is the supervisor's and the worker's time together; "
	       "kill(pid,0)\n  the monitor's, its scans included.");
}

static void print_tables(const struct demo_args *a, const struct demo_stats *st)
{
	char cell[64];

	print_head(a, "operations per second", "kind");
	for (unsigned int k = 0; k < K_NR; k++) {
		printf("\n%-24s", demo_kind_names[k]);
		for (unsigned int m = 0; m < a->nr_modes; m++)
			printf(" %26.0f", st[m].ops[k] / a->seconds);
	}
	explain_forks(a, st);
	print_cpu_table(a, st);
	print_head(a, "\nlatency p50 / p99 / p999", "kind");
	for (unsigned int k = 0; k < K_NR; k++) {
		printf("\n%-24s", demo_kind_names[k]);
		for (unsigned int m = 0; m < a->nr_modes; m++) {
			latency_cell(cell, sizeof(cell), &st[m].hist[k]);
			printf(" %26s", cell);
		}
	}
	printf("\n\n  Reading it: p999 is the wait behind others: in the lock modes a lookup "
	       "queues\n  behind a writer that queues behind a scan; rcu's lookups wait for "
	       "nothing.");
	print_head(a, "\ninvariants (checks made / broken)", "invariant");
	for (unsigned int c = 0; c < C_NR; c++) {
		printf("\n%-24s", demo_check_names[c]);
		for (unsigned int m = 0; m < a->nr_modes; m++) {
			snprintf(cell, sizeof(cell), "%s %llu/%llu",
				 st[m].violations[c] ? "FAIL" : "ok",
				 (unsigned long long)st[m].checked[c],
				 (unsigned long long)st[m].violations[c]);
			printf(" %26s", cell);
		}
	}
	printf("\n\n  Reading it: each invariant is checked as the run goes (docs/verification.md);"
	       "\n  one never checked, or broken once, fails the demo.\n");
}

static void print_json(const struct demo_args *a, const struct demo_stats *st)
{
	struct json j;

	for (unsigned int m = 0; m < a->nr_modes; m++) {
		const char *mode = rp_sync_mode_name(a->modes[m]);

		for (unsigned int k = 0; k < K_NR; k++) {
			const struct hist *h = &st[m].hist[k];

			json_record(&j, stdout, "throughput");
			json_string(&j, "mode", mode);
			json_string(&j, "kind", demo_kind_names[k]);
			json_real(&j, "ops_per_sec", st[m].ops[k] / a->seconds, 1);
			json_uint(&j, "p50_ns", hist_percentile(h, 0.5));
			json_uint(&j, "p99_ns", hist_percentile(h, 0.99));
			json_uint(&j, "p999_ns", hist_percentile(h, 0.999));
			json_real(&j, "role_cpu_seconds", st[m].cpu_ns[k] / 1e9, 3);
			json_record_end(&j);
		}
		for (unsigned int c = 0; c < C_NR; c++) {
			json_record(&j, stdout, "invariant");
			json_string(&j, "mode", mode);
			json_string(&j, "invariant", demo_check_names[c]);
			json_uint(&j, "checked", st[m].checked[c]);
			json_uint(&j, "violations", st[m].violations[c]);
			json_record_end(&j);
		}
	}
}

static bool any_violation(const struct demo_args *a, const struct demo_stats *st)
{
	for (unsigned int m = 0; m < a->nr_modes; m++)
		for (unsigned int c = 0; c < C_NR; c++)
			if (st[m].violations[c] || !st[m].checked[c])
				return true;
	return false;
}

int cmd_demo(int argc, char **argv)
{
	struct demo_args a = {
		.modes = { RP_SYNC_RCU, RP_SYNC_RWLOCK, RP_SYNC_QRWLOCK },
		.nr_modes = RP_SYNC_NR_MODES, .seconds = 3, .idle = 5000, .out = "demo-out",
	};
	static struct demo_stats st[RP_SYNC_NR_NAMED];	/* large: off the stack */
	int ret = parse_args(argc, argv, &a);
	bool plot_failed = false;

	if (ret >= 0)
		return ret;
	/* Before the run: a bad --out must not cost the user the run's time. */
	if (!a.no_plot && demo_plot_dir(a.out))
		return 1;
	if (!a.json)
		printf("rcuproc demo: %.1f s in each of %u modes, RCU flavour %s, %u roles, "
		       "%llu sleeping processes\n", a.seconds, a.nr_modes, rp_rcu_flavour(),
		       demo_nr_roles, (unsigned long long)a.idle);
	for (unsigned int m = 0; m < a.nr_modes; m++) {
		int err = run_mode(&a, m, &st[m]);

		if (err) {
			fprintf(stderr, "rcuproc demo: %s could not run: %s\n",
				rp_sync_mode_name(a.modes[m]), strerror(-err));
			return 1;
		}
	}
	if (a.json)
		print_json(&a, st);
	else
		print_tables(&a, st);
	if (!a.no_plot) {
		plot_failed = demo_plot(a.out, a.modes, a.nr_modes, a.seconds, st) != 0;
		if (!plot_failed && !a.json)
			printf("plot: %s/demo.png and %s/demo.svg\n", a.out, a.out);
	}
	if (any_violation(&a, st)) {
		fprintf(stderr, "rcuproc demo: an invariant was broken (or never checked)\n");
		return 1;
	}
	return plot_failed;
}
