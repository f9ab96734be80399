/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One measurement: build the system, run the threads, collect their counts. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <urcu/uatomic.h>
#include "bench.h"
#include "common/progress.h"

/* Backlog samples and the progress bar are redrawn this often. */
#define TICK_NS		10000000ULL

/* Set by SIGINT (bench_catch_interrupt): the run ends early and is dropped. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

void bench_catch_interrupt(void)
{
	struct sigaction sa = { .sa_handler = on_interrupt };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

bool bench_interrupted(void)
{
	return interrupted;
}

/* "N/M ETA 1m05s" for the overall progress, or the workload's name alone. */
static void progress_label(const struct bench_run *r, double done, char *buf, size_t len)
{
	const struct bench_progress *p = r->cfg.overall;
	double overall, elapsed, eta;

	if (!p || !p->total) {
		snprintf(buf, len, "%s", r->cfg.w->name);
		return;
	}
	overall = (p->done + done) / p->total;
	if (overall <= 0) {		/* nothing to extrapolate from yet */
		snprintf(buf, len, "%s %u/%u", r->cfg.w->name, p->done + 1, p->total);
		return;
	}
	elapsed = (bench_clock_ns() - p->start_ns) / 1e9;
	eta = elapsed / overall * (1 - overall);
	snprintf(buf, len, "%s %u/%u ETA %um%02us", r->cfg.w->name, p->done + 1, p->total,
		 (unsigned int)(eta / 60), (unsigned int)eta % 60);
}

/* The bar's fraction: of the whole run when it is counted, else of this measurement. */
static double progress_done(const struct bench_run *r, double done)
{
	const struct bench_progress *p = r->cfg.overall;

	return p && p->total ? (p->done + done) / p->total : done;
}

struct measure {
	struct bench_run run;
	struct bench_thread *threads;
	pthread_barrier_t ready;	/* every thread set up: start */
	uint64_t begin;			/* bench_clock_ns() before the set-up */
	int setup_err;			/* uatomic: a thread's setup failed */
};

int bench_fork_table(struct bench_run *r, struct rp_task *parent, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		pid_t pid = rp_fork(parent, NULL);

		if (pid < 0)
			return pid;
		r->table_pids[r->nr_table++] = pid;
	}
	return 0;
}

/*
 * The cycle: fork a child of the thread's process, let it exec (@exec) and
 * exit, reap it.  Kind @op_kind times the fork, or with @exec the exec;
 * @cycle_kind the whole cycle, whose shared writes it counts; with
 * @phases, the two kinds after it the exit and the wait.
 */
static void fork_cycle(struct bench_thread *t, bool exec, unsigned int op_kind,
		       unsigned int cycle_kind, bool phases)
{
	unsigned long shared[RP_SHARED_NR];
	uint64_t t0, t1, op0, t2 = 0, t3 = 0;
	struct rp_task *child;
	pid_t pid;
	int status;

	bench_shared_begin(shared);
	t0 = op0 = bench_clock_ns();
	pid = rp_fork(t->self, &child);
	t1 = bench_clock_ns();
	if (pid < 0)
		return;		/* EAGAIN at pid_max: nothing counted */
	if (exec) {
		op0 = t1;
		rp_execve(child, "bench");
		t1 = bench_clock_ns();
	}
	if (phases)
		t2 = bench_clock_ns();
	rp_exit(child, 0);
	rp_task_put(child);
	if (phases)
		t3 = bench_clock_ns();
	rp_wait4(t->self, pid, &status, 0, NULL);
	if (phases) {
		uint64_t t4 = bench_clock_ns();

		t->kinds[cycle_kind + 1].ops++;
		bench_record(t, cycle_kind + 1, t3 - t2);
		t->kinds[cycle_kind + 2].ops++;
		bench_record(t, cycle_kind + 2, t4 - t3);
	}
	bench_shared_end(t, cycle_kind, shared);
	t->kinds[op_kind].ops++;
	bench_record(t, op_kind, t1 - op0);
	if (cycle_kind != op_kind) {
		t->kinds[cycle_kind].ops++;
		bench_record(t, cycle_kind, bench_clock_ns() - t0);
	}
}

void bench_fork_exit_reap(struct bench_thread *t, unsigned int fork_kind,
			  unsigned int cycle_kind)
{
	fork_cycle(t, false, fork_kind, cycle_kind, false);
}

void bench_fork_exit_reap_phases(struct bench_thread *t)
{
	fork_cycle(t, false, 0, 1, true);
}

void bench_fork_exec_exit_reap(struct bench_thread *t, unsigned int exec_kind,
			       unsigned int cycle_kind)
{
	fork_cycle(t, true, exec_kind, cycle_kind, false);
}

/* Heap bytes in use (small blocks and mmapped ones). */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static unsigned int pid_max_for(const struct bench_config *cfg)
{
	unsigned long want = cfg->size * 2 + cfg->threads * 64 + 4096;

	if (cfg->w->pid_max)
		return cfg->w->pid_max;
	if (want < RP_PID_MAX_DEFAULT)
		return RP_PID_MAX_DEFAULT;
	return want > RP_PID_MAX_LIMIT ? RP_PID_MAX_LIMIT : want;
}

static int build_system(struct measure *m, struct bench_result *res)
{
	struct bench_run *r = &m->run;
	struct rp_system_opts opts = { .mode = r->cfg.mode, .pid_max = pid_max_for(&r->cfg) };
	size_t before;
	int err = rp_system_create(&opts, &r->sys);

	if (err)
		return err;
	r->init = rp_system_init(r->sys);
	r->table_pids = calloc(r->cfg.size + 1, sizeof(*r->table_pids));
	if (!r->table_pids)
		return -ENOMEM;
	before = heap_in_use();
	err = r->cfg.w->setup ? r->cfg.w->setup(r) : 0;
	if (r->nr_table)
		res->bytes_per_process = (double)(heap_in_use() - before) / r->nr_table;
	return err;
}

/*
 * The thread's operations: --ops of them, or until the run's end, and at
 * least one: a thread that the scheduler kept off its CPU for a whole short
 * run still measures something, so that no rate of a run is 0 by chance and
 * no ratio divides by it.
 */
static void run_ops(struct bench_thread *t)
{
	const struct bench_workload *w = t->run->cfg.w;
	uint64_t ops = t->run->cfg.ops;

	if (ops) {
		while (t->iter < ops) {
			w->op(t);
			t->iter++;
		}
	} else {
		/* Pairs with CMM_STORE_SHARED of stop in wait_for_end. */
		do {
			w->op(t);
			t->iter++;
		} while (!CMM_LOAD_SHARED(t->run->stop));
	}
}

static void *thread_main(void *arg)
{
	struct bench_thread *t = arg;
	struct measure *m = caa_container_of(t->run, struct measure, run);
	const struct bench_workload *w = t->run->cfg.w;
	int err;

	/* Registered only while working: a QSBR thread parked online at the
	 * barrier would hold up the grace periods of the others' setup. */
	rp_thread_register();
	err = w->thread_setup ? w->thread_setup(t) : 0;
	rp_thread_unregister();
	if (err)
		uatomic_set(&m->setup_err, err);
	pthread_barrier_wait(&m->ready);
	rp_thread_register();
	if (!uatomic_read(&m->setup_err))
		run_ops(t);
	if (w->thread_end)
		w->thread_end(t);
	rp_thread_unregister();
	return NULL;
}

static int fork_thread_tasks(struct measure *m)
{
	struct bench_run *r = &m->run;

	for (unsigned int i = 0; i < r->cfg.threads; i++) {
		struct bench_thread *t = &m->threads[i];
		pid_t pid = rp_fork(r->init, &t->self);

		if (pid < 0)
			return pid;
		t->run = r;
		t->index = i;
		t->rng = rng_seed(1, i);
	}
	return 0;
}

/* Sample the backlog and draw progress until the run is over. */
static void wait_for_end(struct measure *m, struct bench_result *res, uint64_t start)
{
	struct bench_run *r = &m->run;
	uint64_t end = start + (uint64_t)(r->cfg.seconds * 1e9);
	struct timespec tick = { 0, TICK_NS };

	if (r->cfg.ops)
		return;		/* the threads stop by themselves */
	for (uint64_t now = start; now < end && !interrupted; now = bench_clock_ns()) {
		unsigned long backlog = rp_deferred_backlog();
		double done = (double)(now - start) / (end - start);
		char label[64];

		if (backlog > res->backlog_max)
			res->backlog_max = backlog;
		if (r->cfg.progress) {
			progress_label(r, done, label, sizeof(label));
			progress_draw(label, progress_done(r, done));
		}
		nanosleep(&tick, NULL);
	}
	CMM_STORE_SHARED(r->stop, 1);
	if (r->cfg.progress)
		progress_clear();
}

static int run_threads(struct measure *m, struct bench_result *res)
{
	unsigned int n = m->run.cfg.threads;
	pthread_t tids[BENCH_MAX_THREADS];
	uint64_t start;

	pthread_barrier_init(&m->ready, NULL, n + 1);
	for (unsigned int i = 0; i < n; i++)
		pthread_create(&tids[i], NULL, thread_main, &m->threads[i]);
	pthread_barrier_wait(&m->ready);
	start = bench_clock_ns();
	res->setup_seconds = (start - m->begin) / 1e9;
	if (!uatomic_read(&m->setup_err))
		wait_for_end(m, res, start);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	res->seconds = (bench_clock_ns() - start) / 1e9;
	pthread_barrier_destroy(&m->ready);
	return uatomic_read(&m->setup_err);
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_maxrss;
}

static void collect(struct measure *m, struct bench_result *res)
{
	res->maxrss_kb = peak_rss_kb();
	for (unsigned int i = 0; i < m->run.cfg.threads; i++) {
		for (unsigned int k = 0; k < BENCH_MAX_KINDS; k++) {
			res->kinds[k].ops += m->threads[i].kinds[k].ops;
			hist_merge(&res->kinds[k].hist, &m->threads[i].kinds[k].hist);
		}
		for (unsigned int k = 0; k < BENCH_MAX_KINDS; k++) {
			for (unsigned int l = 0; l < RP_SHARED_NR; l++)
				res->shared[k][l] += m->threads[i].shared[k][l];
			res->shared_ops[k] += m->threads[i].shared_ops[k];
		}
	}
}

static void tear_down(struct measure *m)
{
	struct bench_run *r = &m->run;

	for (unsigned int i = 0; i < r->cfg.threads; i++) {
		free(m->threads[i].priv);
		if (m->threads[i].self)
			rp_task_put(m->threads[i].self);
	}
	if (r->init)
		rp_task_put(r->init);
	if (r->sys)
		rp_system_destroy(r->sys);
	/*
	 * The table's memory back before the next is built, to the system too:
	 * a thread's forks (wait_scan) allocate from its own malloc arena, which
	 * cannot reuse the main arena's free memory.  Two tables of a million
	 * would not fit.
	 */
	rp_deferred_barrier();
	malloc_trim(0);
	free(r->priv);
	free(r->table_pids);
	free(m->threads);
}

int bench_measure(const struct bench_config *cfg, struct bench_result *res)
{
	struct measure m = { .run = { .cfg = *cfg } };
	int err;

	if (cfg->threads < 1 || cfg->threads > BENCH_MAX_THREADS ||
	    (cfg->mode == RP_SYNC_NONE && cfg->threads != 1))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->cfg = *cfg;
	m.threads = calloc(cfg->threads, sizeof(*m.threads));
	if (!m.threads)
		return -ENOMEM;
	rp_thread_register();
	m.begin = bench_clock_ns();
	err = build_system(&m, res);
	if (!err)
		err = fork_thread_tasks(&m);
	rp_thread_unregister();
	if (!err)
		err = run_threads(&m, res);
	rp_thread_register();
	if (!err) {
		collect(&m, res);
		res->backlog_end = rp_deferred_backlog();
	}
	tear_down(&m);
	rp_thread_unregister();
	/* Cut short, its figures are not a measurement. */
	return err ? err : interrupted ? -EINTR : 0;
}
