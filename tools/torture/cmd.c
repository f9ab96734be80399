/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc torture: options, the run, the summary. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu/uatomic.h>
#include "debug/fault.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/progress.h"
#include <rcuproc/pgrp.h>
#include "torture.h"

static const char *const inv_names[8] = {
	"table consistency", "I1 exactly once", "I2 fork atomicity", "I3 wait completeness",
	"I4 termination", "I5 existence", "I6 sighand", "I7 no leaks",
};

static const char about[] =
	"OS threads drive simulated processes through a random mix of operations,\n"
	"log every send, receipt, fork, exec and reap, then check the invariants\n"
	"(docs/verification.md) and walk the table.  Exits 1 on any violation.";

static void list_op_kinds(void)
{
	printf("\noperation kinds:");
	for (int k = 0; k < OP_NR; k++)
		printf(" %s", tt_op_names[k]);
	printf("\n");
}

/* --weights KIND=W,...: 0, or 2 said on stderr. */
static int parse_weights(char *spec, struct torture_config *cfg)
{
	for (char *save, *item = strtok_r(spec, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), what[64];
		uint64_t w;
		int k;

		if (!eq)
			return cli_usage_error("torture", "--weights: '%s' is not KIND=W", item);
		*eq = 0;
		for (k = 0; k < OP_NR && strcmp(tt_op_names[k], item); k++)
			;
		if (k == OP_NR)
			return cli_usage_error("torture", "--weights: unknown operation kind '%s'",
					       item);
		snprintf(what, sizeof(what), "--weights: %s", item);
		if (cli_number("torture", what, eq + 1, 0, 1000, &w))
			return 2;
		cfg->weights[k] = (unsigned int)w;
	}
	return 0;
}

/* What the table cannot say: the weights, and options that exclude each other. */
static int check_config(struct torture_config *cfg, char *weights)
{
	int k;

	if (weights && parse_weights(weights, cfg))
		return 2;
	if (cfg->overlap_given && !cfg->overlap)
		tt_disjoint_weights(cfg);
	for (k = 0; k < OP_NR && !cfg->weights[k]; k++)
		;
	if (k == OP_NR)
		return cli_usage_error("torture", "--weights: every operation has weight 0");
	if (cfg->until_caught > 0 && cfg->ops)
		return cli_usage_error("torture",
				       "--until-caught repeats timed runs: not with --ops");
	return -1;
}

/* -1: run; otherwise the exit status (0 after --help, 2 on a usage error). */
static int parse_args(int argc, char **argv, struct torture_config *cfg)
{
	int mode = cfg->mode, ret;
	const char *weights = NULL;
	bool no_poison = false;
	const struct cli_command cmd = { "torture", NULL, about, list_op_kinds, {
		{ "threads", 't', CLI_UINT, "N", "OS threads", "2", .min = 1, .max = 64,
		  .to = &cfg->threads },
		{ "procs", 'p', CLI_UINT, "N", "target number of tasks", "32", .min = 2,
		  .max = 100000, .to = &cfg->procs },
		{ "seed", 0, CLI_U64, "S", "seed of the random choices", "1", .min = 0,
		  .max = UINT64_MAX, .to = &cfg->seed },
		{ "seconds", 's', CLI_REAL, "T", "run time", "1", .limit = 86400,
		  .to = &cfg->seconds },
		{ "ops", 'o', CLI_U64, "N", "stop after N operations instead", .min = 1,
		  .max = UINT64_MAX, .to = &cfg->ops },
		{ "until-caught", 0, CLI_REAL, "B", "repeat runs (seed 1 more each time) until\n"
		  "one finds a violation or B seconds have passed;\nexits 1 if caught",
		  .limit = 86400, .to = &cfg->until_caught },
		CLI_MODE(&mode),
		{ "weights", 'w', CLI_STRING, "K=W,..", "weight of each operation kind, 0..1000;\n"
		  "claim waits for a grace period", "1 each, 3 drain, 0 claim", .to = &weights },
		{ "overlap", 0, CLI_UINT, "P", "percent of operations on the shared part of the\n"
		  "tree (several workers on one parent, group and\n"
		  "process); 0: each worker's processes alone", "weights", .min = 0, .max = 100,
		  .to = &cfg->overlap, .given = &cfg->overlap_given },
		{ "fail-rate", 'f', CLI_REAL, "R", "fail table allocations at random with rate R",
		  .limit = 1, .to = &cfg->fail_rate },
		{ "no-poison", 0, CLI_FLAG, NULL, "do not poison freed objects (they are in debug\n"
		  "builds)", .to = &no_poison },
		CLI_JSON(&cfg->json, "the summary as one JSON object"),
	} };

	ret = cli_parse(&cmd, argc, argv, NULL);
	if (ret >= 0)
		return ret;
	cfg->mode = mode;
	if (no_poison)
		rp_debug_set_poison(false);
	return check_config(cfg, (char *)weights);	/* argv's own text: ours to cut */
}

static void default_config(struct torture_config *cfg)
{
	*cfg = (struct torture_config){ .threads = 2, .procs = 32, .seed = 1,
					.seconds = 1, .mode = RP_SYNC_RCU };
	for (int k = 0; k < OP_NR; k++)
		cfg->weights[k] = 1;
	cfg->weights[OP_DRAIN] = 3;
	/*
	 * Each claim waits for every deferred free (rp_deferred_barrier),
	 * 10 to 30 ms against 20 us for the others: on by --weights only.
	 */
	cfg->weights[OP_CLAIM] = 0;
}

/* ---- the run ---- */

static void on_stall(int sig);

struct run {
	struct torture_config cfg;
	struct rp_system *sys;
	struct worker *ws;		/* cfg.threads workers, then init's log */
	pthread_barrier_t resume;
	unsigned int paused, finished;	/* atomic: workers past each phase */
	int stop;			/* atomic */
	unsigned long backlog_max;
	struct init_proc init;		/* its leader changes with init_exec */
	struct hot_proc hot;		/* shared by the workers (ops_hot.c) */
	uint64_t ns_scenes;		/* namespace scenes checked (ops_ns.c) */
	struct violation_report report;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t quota = w->cfg->ops ? w->cfg->ops / w->cfg->threads + 1 : UINT64_MAX;

	rp_thread_register();
	/* nh 0: a failed exec (--fail-rate) killed the root; nothing left to drive. */
	while (!uatomic_read(w->stop) && w->done_ops < quota && w->nh)
		tt_worker_run_op(w);
	/* Unregistered while paused: QSBR grace periods must not wait for us. */
	rp_thread_unregister();
	uatomic_inc(w->paused);		/* the walk runs now */
	pthread_barrier_wait(w->resume);
	rp_thread_register();
	tt_worker_teardown(w);
	tt_hot_leave(w);
	rp_thread_unregister();
	uatomic_inc(w->finished);
	return NULL;
}

static uint64_t ops_done(struct run *run)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < run->cfg.threads; i++)
		n += uatomic_read(&run->ws[i].done_ops);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * I4: a walk that never ends shows as workers that stop making progress.
 * The bound is generous: on a machine loaded with other work a worker can
 * wait seconds for a CPU, and that is not a livelock.
 */
#define STALL_SECONDS	60

/*
 * I7: a registered thread online for this long without a quiescent state
 * (debug builds count them: rp_thread_stalls) holds back every grace
 * period under QSBR; the thread of init that stays registered and idle
 * must announce one with each call (bug 7).  Generous too: the harness's
 * threads call rcuproc without pause, or wait offline.
 */
#define QUIET_STALL_SECONDS	10

static void quiescent_stall(struct run *run)
{
	char name[64];

	if (rp_thread_stalls(QUIET_STALL_SECONDS, name, sizeof(name)) <= 0)
		return;
	fprintf(stderr, "VIOLATION I7 no leaks: seed %lu: registered thread \"%s\" online "
		"for %d s without a quiescent state: no deferred free can run\n",
		(unsigned long)run->cfg.seed, name, QUIET_STALL_SECONDS);
	fflush(stdout);
	_exit(1);
}

static void stalled(struct run *run, const char *where)
{
	fprintf(stderr, "VIOLATION I4 termination: seed %lu: no worker progress for %d s in %s\n",
		(unsigned long)run->cfg.seed, STALL_SECONDS, where);
	fflush(stdout);
	_exit(1);
}

/* Wait until every worker has counted itself in @count. */
static void wait_for_workers(struct run *run, unsigned int *count, const char *where)
{
	double start = now();
	struct timespec tick = { 0, 1000 * 1000 };

	while (uatomic_read(count) < run->cfg.threads) {
		if (now() - start > STALL_SECONDS)
			stalled(run, where);
		quiescent_stall(run);
		nanosleep(&tick, NULL);
	}
}

/* Namespace scenes checked so far, all workers. */
static uint64_t ns_scenes(struct run *run)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < run->cfg.threads; i++)
		n += uatomic_read(&run->ws[i].ns_scenes);
	return n;
}

/*
 * A timed run that may draw ns owes one scene checked to the end; a run
 * by --ops stops at its count.
 */
bool tt_may_draw_ns(const struct torture_config *cfg)
{
	return cfg->weights[OP_NS] && cfg->fail_rate <= 0 && !(cfg->overlap_given && cfg->overlap == 100);
}

static bool ns_owed(struct run *run)
{
	return !run->cfg.ops && tt_may_draw_ns(&run->cfg) && !ns_scenes(run);
}

/* Workers that have not run one operation yet. */
static unsigned int idle_workers(struct run *run)
{
	unsigned int idle = 0;

	for (unsigned int i = 0; i < run->cfg.threads; i++)
		idle += uatomic_read(&run->ws[i].done_ops) == 0;
	return idle;
}

/*
 * Until the time or the operations run out: draw progress, sample the
 * backlog.  A run in which a worker did nothing checked nothing of it: past
 * the time, the run goes on until every worker has run an operation, and
 * one namespace scene has been checked (ns_owed), and STALL_SECONDS later
 * counts as a run that did not run (I4).
 */
static void watch(struct run *run)
{
	double start = now(), done = 0, progressed = start;
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	bool bar = progress_wanted() && !run->cfg.json;
	uint64_t last = 0;
	unsigned int idle;

	while (done < 1 || (((idle = idle_workers(run)) || ns_owed(run)) &&
			    now() - start < run->cfg.seconds + STALL_SECONDS)) {
		unsigned long backlog = rp_deferred_backlog();
		uint64_t ops = ops_done(run);

		if (ops != last)
			progressed = now();
		else if (now() - progressed > STALL_SECONDS)
			stalled(run, "the operations");
		quiescent_stall(run);
		last = ops;

		if (backlog > run->backlog_max)
			run->backlog_max = backlog;
		done = run->cfg.ops ? (double)ops / run->cfg.ops :
				      (now() - start) / run->cfg.seconds;
		if (bar)
			progress_draw("torture", done > 1 ? 1 : done);
		nanosleep(&tick, NULL);
	}
	if (bar)
		progress_clear();
	uatomic_set(&run->stop, 1);
	idle = idle_workers(run);
	if (idle)
		tt_report_violation(&run->report, 4, "seed %lu: did not run: %u of %u workers "
				    "ran no operation in %.1f s", (unsigned long)run->cfg.seed,
				    idle, run->cfg.threads, now() - start);
	else if (ns_owed(run))
		tt_report_violation(&run->report, 4, "seed %lu: did not run: no namespace scene "
				    "was checked in %.1f s", (unsigned long)run->cfg.seed,
				    now() - start);
	run->ns_scenes = ns_scenes(run);
}

static int start_workers(struct run *run, struct rp_task *init)
{
	for (unsigned int i = 0; i < run->cfg.threads; i++) {
		struct worker *w = &run->ws[i];
		struct rp_task *root;
		struct event *e;
		pid_t pid = rp_fork(init, &root);

		e = tt_log_event(&run->ws[run->cfg.threads], EV_FORK);
		e->start = e->end = tt_clock_tick();
		e->a = 1;
		e->b = pid;
		if (pid < 0 || tt_worker_setup(w, root))
			return -1;
		w->cfg = &run->cfg;
		w->stop = &run->stop;
		w->paused = &run->paused;
		w->finished = &run->finished;
		w->resume = &run->resume;
		w->init = &run->init;
		w->rng = rng_seed(run->cfg.seed, i);
		/*
		 * Disjoint: a session and group of its own, or its killpg,
		 * setpriority(PRIO_PGRP) and session kill reach every
		 * worker's processes in init's group and session.
		 */
		if (tt_disjoint(&run->cfg) && rp_setsid(root) < 0)
			return -1;
	}
	if (tt_hot_start(&run->hot, init, run->ws, run->cfg.threads))
		return -1;
	for (unsigned int i = 0; i < run->cfg.threads; i++)
		if (pthread_create(&run->ws[i].thread, NULL, worker_main, &run->ws[i]))
			return -1;
	return 0;
}

static void *barrier_main(void *arg)
{
	rp_thread_register();
	rp_deferred_barrier();
	uatomic_set((int *)arg, 1);
	rp_thread_unregister();
	return NULL;
}

/*
 * rp_deferred_barrier on a thread of its own, while this one, unregistered,
 * watches for a registered thread that holds it back (I7) and for a barrier
 * that never ends (I4).
 */
static void watched_barrier(struct run *run)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	double start = now();
	pthread_t thread;
	int done = 0;

	rp_thread_unregister();
	if (pthread_create(&thread, NULL, barrier_main, &done))
		abort();
	while (!uatomic_read(&done)) {
		if (now() - start > STALL_SECONDS)
			on_stall(SIGALRM);
		quiescent_stall(run);
		nanosleep(&tick, NULL);
	}
	pthread_join(thread, NULL);
	rp_thread_register();
}

/*
 * I7: the backlog comes down to 0 while the quiet thread of init is still
 * registered; once it has exited too, only init is left, and no pid
 * namespace below the root (the scenes' namespaces hold the root's).
 */
static void check_counts(struct run *run)
{
	struct rp_system_counts c;

	watched_barrier(run);
	if (rp_deferred_backlog())
		tt_report_violation(&run->report, 7, "deferred backlog %lu after the barrier, "
				 "with a thread of init registered", rp_deferred_backlog());
	tt_init_stop(&run->init);
	rp_deferred_barrier();
	rp_system_counts(run->sys, &c);
	if (c.tasks != 1 || c.signals != 1 || c.sighands != 1 || c.pids != 1 ||
	    c.creds != 1 || c.sigqueues != 0 || c.pidns != 0)
		tt_report_violation(&run->report, 7, "seed %lu: after teardown: tasks %lu signals %lu "
				 "sighands %lu pids %lu creds %lu sigqueues %lu pid namespaces %lu "
				 "(want 1 1 1 1 1 0 0)", (unsigned long)run->cfg.seed, c.tasks,
				 c.signals, c.sighands, c.pids, c.creds, c.sigqueues, c.pidns);
	if (rp_deferred_backlog())
		tt_report_violation(&run->report, 7, "deferred backlog %lu after the barrier",
				 rp_deferred_backlog());
}

/* init reaps the roots; group sends to its group and session reach it too. */
static void reap_roots(struct run *run)
{
	struct handle ih = { .t = run->init.leader, .tid = 1, .tgid = 1 };

	tt_reap_all(&run->ws[run->cfg.threads], &ih);
	tt_drain(&run->ws[run->cfg.threads], &ih);
}

/* The consistency walk of the quiet table, counted as "table consistency". */
static void walk_table(struct run *run)
{
	struct rp_verify_report walk = {0};

	rp_verify_walk_table(run->sys, &walk);
	tt_report_walk(&run->report, &walk);
}

static int run_torture(struct run *run, unsigned long live_before)
{
	struct rp_system_opts opts = { .mode = run->cfg.mode, .pid_max = RP_PID_MAX_LIMIT };
	struct rp_task *init;

	if (rp_system_create(&opts, &run->sys))
		return -1;
	tt_ops_forget_recent();
	init = rp_system_init(run->sys);
	tt_install_handlers(init);
	pthread_barrier_init(&run->resume, NULL, run->cfg.threads + 1);
	tt_hold_install();
	if (tt_init_start(&run->init, init) || start_workers(run, init))
		return -1;
	if (run->cfg.fail_rate > 0)
		rp_debug_fail_random(run->cfg.fail_rate, run->cfg.seed);
	/* Idle until the walk: unregistered, or QSBR grace periods would wait for us. */
	rp_thread_unregister();
	watch(run);
	wait_for_workers(run, &run->paused, "their last operation");
	rp_thread_register();
	rp_debug_fail_none();
	walk_table(run);
	rp_thread_unregister();
	pthread_barrier_wait(&run->resume);
	wait_for_workers(run, &run->finished, "teardown");
	rp_thread_register();
	for (unsigned int i = 0; i < run->cfg.threads; i++)
		pthread_join(run->ws[i].thread, NULL);
	tt_hold_remove();
	alarm(STALL_SECONDS);	/* on_stall, if a final wait never ends */
	tt_hot_end(&run->hot, &run->ws[run->cfg.threads]);
	reap_roots(run);
	alarm(0);
	check_counts(run);
	rp_task_put(run->init.leader);
	rp_system_destroy(run->sys);
	if (rp_debug_live_objects() != live_before)
		tt_report_violation(&run->report, 7, "%lu table objects still allocated after "
				 "rp_system_destroy (%lu before)", rp_debug_live_objects(), live_before);
	return 0;
}

/* ---- the summary ---- */

static unsigned long total_violations(const struct violation_report *r)
{
	unsigned long n = 0;

	for (int i = 0; i < 8; i++)
		n += r->count[i];
	return n;
}

static void summary_json(struct run *run, const uint64_t *ops)
{
	struct json j;

	json_record(&j, stdout, "summary");
	json_uint(&j, "seed", run->cfg.seed);
	json_string(&j, "mode", rp_sync_mode_name(run->cfg.mode));
	json_uint(&j, "threads", run->cfg.threads);
	json_uint(&j, "procs", run->cfg.procs);
	json_uint(&j, "backlog_max", run->backlog_max);
	json_uint(&j, "alloc_failures", rp_debug_alloc_failures());
	json_uint(&j, "ns_scenes", run->ns_scenes);
	json_object(&j, "ops");
	for (int k = 0; k < OP_NR; k++)
		json_uint(&j, tt_op_names[k], ops[k]);
	json_end(&j);
	/* An array: the invariants' names are text, not keys. */
	json_array(&j, "violations");
	for (int i = 0; i < 8; i++) {
		json_object(&j, NULL);
		json_string(&j, "invariant", inv_names[i]);
		json_uint(&j, "count", run->report.count[i]);
		json_string(&j, "first", run->report.first[i]);
		json_end(&j);
	}
	json_end(&j);
	json_record_end(&j);
}

static void summary_text(struct run *run, const uint64_t *ops)
{
	printf("torture: mode %s, seed %lu, %u threads, %u tasks, deferred backlog at most %lu, "
	       "%lu allocations failed on purpose\n",
	       rp_sync_mode_name(run->cfg.mode), (unsigned long)run->cfg.seed, run->cfg.threads,
	       run->cfg.procs, run->backlog_max, rp_debug_alloc_failures());
	for (int k = 0; k < OP_NR; k++)
		if (ops[k])
			printf("  %-14s %12lu\n", tt_op_names[k], (unsigned long)ops[k]);
	if (ops[OP_NS])
		printf("  %lu namespace scenes checked to their end\n",
		       (unsigned long)run->ns_scenes);
	for (int i = 0; i < 8; i++)
		if (run->report.count[i])
			printf("VIOLATION %s: %lu, first:\n  %s\n", inv_names[i],
			       run->report.count[i], run->report.first[i]);
	printf("%s\n", total_violations(&run->report) ? "FAILED" : "ok: no violation");
}

/*
 * I5: a reader that followed a poisoned pointer faults, and the library's
 * debug checks abort at a freed object read as alive: say so, then fail.
 */
static void on_fault(int sig)
{
	static const char fault[] = "VIOLATION I5 existence: a fault (freed, poisoned memory "
				    "read?); rerun with the same --seed under ASan\n";
	static const char aborted[] = "VIOLATION I5 existence: the library aborted (a freed "
				      "object read as alive?); rerun with the same --seed under ASan\n";
	const char *msg = sig == SIGABRT ? aborted : fault;
	size_t len = sig == SIGABRT ? sizeof(aborted) - 1 : sizeof(fault) - 1;

	if (write(STDERR_FILENO, msg, len) < 0)
		_exit(1);
	_exit(1);
}

static void free_run(struct run *run)
{
	for (unsigned int i = 0; i <= run->cfg.threads; i++) {
		free(run->ws[i].ev);
		free(run->ws[i].h);
	}
	free(run->ws);
	free(run);
}

static void on_stall(int sig)
{
	static const char msg[] = "VIOLATION I4 termination: the hot process's wait for its "
				  "children, init's for the roots, or rp_deferred_barrier, "
				  "never ended\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/* One run: a fresh system, the workers, the walk, the log check, the summary. */
static int torture_round(const struct torture_config *cfg, unsigned long *violations)
{
	struct run *run = calloc(1, sizeof(*run));
	uint64_t ops[OP_NR] = { 0 };
	unsigned long live_before = rp_debug_live_objects();

	if (!run)
		return -1;
	run->cfg = *cfg;
	run->ws = calloc(run->cfg.threads + 1, sizeof(*run->ws));
	rp_thread_register();
	if (!run->ws || run_torture(run, live_before)) {
		fprintf(stderr, "rcuproc torture: could not set the system up\n");
		return -1;
	}
	rp_thread_unregister();
	tt_check_logs(run->ws, run->cfg.threads + 1, run->cfg.seed, &run->report);
	for (unsigned int i = 0; i < run->cfg.threads; i++)
		for (int k = 0; k < OP_NR; k++)
			ops[k] += run->ws[i].ops[k];
	if (run->cfg.json)
		summary_json(run, ops);
	else
		summary_text(run, ops);
	*violations = total_violations(&run->report);
	free_run(run);
	return 0;
}

/*
 * --until-caught: rounds of --seconds each, the seed one higher each round,
 * until a round finds a violation or the bound has passed.  A broken build's
 * test uses it, so that the catch does not hang on one round's luck; the
 * time the catch took is printed (the matrix report reads it).  A fault or a
 * stall ends the process from its handler, which counts as caught too.
 */
static int torture_until_caught(struct torture_config *cfg)
{
	double start = now(), elapsed = 0;
	unsigned long violations = 0;
	unsigned int round;

	for (round = 1; elapsed < cfg->until_caught; round++) {
		if (torture_round(cfg, &violations))
			return 1;
		elapsed = now() - start;
		if (violations) {
			printf("caught: a violation in round %u, after %.2f s\n", round, elapsed);
			return 1;
		}
		cfg->seed++;
	}
	printf("not caught: %u rounds, %.2f s, no violation\n", round - 1, elapsed);
	return 0;
}

int cmd_torture(int argc, char **argv)
{
	struct torture_config cfg;
	unsigned long violations;
	int err;

	default_config(&cfg);
	err = parse_args(argc, argv, &cfg);
	if (err >= 0)
		return err;
	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);
	signal(SIGABRT, on_fault);
	signal(SIGALRM, on_stall);
	if (cfg.until_caught > 0)
		return torture_until_caught(&cfg);
	if (torture_round(&cfg, &violations))
		return 1;
	return violations ? 1 : 0;
}
