/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The "targets" table: each ratio of the performance contract
 * (docs/performance.md, "The performance contract"), measured in one run of
 * every mode, against its goal.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common/json.h"
#include "report.h"
#include "targets.h"
#include "workloads.h"

/* One measurement; a failure is said on stderr. */
static int measure_once(const struct target_env *env, const struct bench_workload *w,
			enum rp_sync_mode mode, unsigned int threads, unsigned long size,
			struct bench_result *res)
{
	struct bench_config cfg = {
		.w = w, .mode = mode, .threads = threads, .size = size,
		.seconds = env->seconds, .progress = env->progress,
	};
	int err = bench_measure(&cfg, res);

	/* Interrupted, it did not fail: bench says so once. */
	if (err && err != -EINTR)
		fprintf(stderr, "rcuproc bench: %s in %s could not run: %s\n", w->name,
			rp_sync_mode_name(mode), strerror(-err));
	return err;
}

/* One side of a comparison: a mode and a table size. */
struct side {
	enum rp_sync_mode mode;
	unsigned long size;
};

/*
 * Which round of a side counts, the least disturbed by the machine's other
 * load: the one with the highest rate of @kind, or (q > 0) the one with the
 * lowest q-quantile of @kind's latency.
 */
struct pick {
	unsigned int kind;
	double q;
};

#define FASTEST(kind)		((struct pick){ (kind), 0 })
#define STEADIEST(kind, q)	((struct pick){ (kind), (q) })

static bool better(const struct bench_result *x, const struct bench_result *best,
		   struct pick pick)
{
	if (!pick.q)
		return bench_result_rate(x, pick.kind) > bench_result_rate(best, pick.kind);
	return hist_percentile(&x->kinds[pick.kind].hist, pick.q) <
	       hist_percentile(&best->kinds[pick.kind].hist, pick.q);
}

/*
 * @w on two sides, in env->rounds rounds alternating between them (so that a
 * burst of other load hits both alike); each side's best round by @pick is
 * kept in *@a and *@b and reported.
 */
static int measure_pair(const struct target_env *env, const struct bench_workload *w,
			unsigned int threads, struct side sa, struct side sb, struct pick pick,
			struct bench_result *a, struct bench_result *b)
{
	static struct bench_result cand;	/* big: kept off the stack */

	for (unsigned int r = 0; r < env->rounds; r++) {
		for (unsigned int i = 0; i < 2; i++) {
			struct side s = i ? sb : sa;
			struct bench_result *best = i ? b : a;
			int err = measure_once(env, w, s.mode, threads, s.size, &cand);

			if (err)
				return err;
			if (r == 0 || better(&cand, best, pick))
				*best = cand;
		}
	}
	/* The sides, in the text table only: the other formats keep to the targets. */
	if (bench_report_is(BENCH_TEXT)) {
		bench_report_result(a, NULL);
		bench_report_result(b, NULL);
	}
	return 0;
}

/* A pair that several rows read: measured by the first that asks. */
struct shared_pair {
	bool measured;
	int err;
	struct bench_result a, b;
};

static int measure_shared(const struct target_env *env, struct shared_pair *p,
			  const struct bench_workload *w, unsigned int threads, struct side sa,
			  struct side sb, struct pick pick)
{
	if (!p->measured)
		p->err = measure_pair(env, w, threads, sa, sb, pick, &p->a, &p->b);
	p->measured = true;
	return p->err;
}

static struct bench_result ra, rb;	/* big: kept off the stack */

/* A lookup's ops/s in rcu mode over the unsynchronized baseline's. */
static double lookup_vs_none(const struct target_env *env, const void *arg, char *note,
			     size_t len)
{
	const struct bench_workload *w = arg;
	unsigned long size = target_size(env, 10000, 1000);
	int err = measure_pair(env, w, 1, (struct side){ RP_SYNC_RCU, size },
			       (struct side){ RP_SYNC_NONE, size }, FASTEST(0), &ra, &rb);

	snprintf(note, len, "%s ops/s, rcu (%s) / none, 1 thread, %lu procs", w->kinds[0],
		 rp_rcu_flavour(), size);
	return err ? err : bench_result_rate(&ra, 0) / bench_result_rate(&rb, 0);
}

/* A latency quantile of a mix's kind 0, in a lock mode and in rcu mode. */
struct latency_cmp {
	const struct bench_workload *w;	/* its kind 2 is the scan */
	enum rp_sync_mode lock_mode;
	const char *quantile;		/* "p99" */
	double q;			/* 0.99 */
};

/* The lock mode's quantile over rcu's, while thread 0 scans 100,000 processes. */
static double latency_under_scan(const struct target_env *env, const void *arg, char *note,
				 size_t len)
{
	const struct latency_cmp *c = arg;
	unsigned long size = target_size(env, 100000, 2000);
	int err = measure_pair(env, c->w, c->w->min_threads,
			       (struct side){ c->lock_mode, size }, (struct side){ RP_SYNC_RCU, size },
			       STEADIEST(0, c->q), &ra, &rb);
	uint64_t lock_ns = hist_percentile(&ra.kinds[0].hist, c->q);
	uint64_t rcu_ns = hist_percentile(&rb.kinds[0].hist, c->q);

	snprintf(note, len, "%s %s %s %llu ns / rcu %llu ns, %s over %lu procs", c->w->kinds[0],
		 c->quantile, rp_sync_mode_name(c->lock_mode), (unsigned long long)lock_ns,
		 (unsigned long long)rcu_ns, c->w->kinds[2], size);
	return err ? err : rcu_ns ? (double)lock_ns / rcu_ns : 0;
}

static const struct latency_cmp read_p999_rwlock = {
	&bench_kill0_under_ps, RP_SYNC_RWLOCK, "p999", 0.999,
};
static const struct latency_cmp read_p999_qrwlock = {
	&bench_kill0_under_ps, RP_SYNC_QRWLOCK, "p999", 0.999,
};
static const struct latency_cmp fork_p99_kill_all = {
	&bench_fork_vs_kill_all, RP_SYNC_RWLOCK, "p99", 0.99,
};
static const struct latency_cmp fork_p99_ps = {
	&bench_fork_vs_ps, RP_SYNC_RWLOCK, "p99", 0.99,
};

static double fork_exit_cost(const struct target_env *env, const void *arg, char *note,
			     size_t len)
{
	(void)arg;
	int err = measure_pair(env, &bench_fork_exit, 1, (struct side){ RP_SYNC_RCU, 0 },
			       (struct side){ RP_SYNC_RWLOCK, 0 }, FASTEST(1), &ra, &rb);

	snprintf(note, len, "fork+exit+wait ns, rcu %.0f / rwlock %.0f, 1 thread",
		 bench_result_mean_ns(&ra, 1), bench_result_mean_ns(&rb, 1));
	return err ? err : bench_result_mean_ns(&ra, 1) / bench_result_mean_ns(&rb, 1);
}

/*
 * The lookup storm, rcu (a) against qrwlock (b): one reader, and a writer
 * forking and reaping as fast as it can; the round with the most forks
 * counts.  Four rows read it.
 */
static struct shared_pair storm;

static int storm_measured(const struct target_env *env)
{
	unsigned long size = target_size(env, 10000, 1000);

	return measure_shared(env, &storm, &bench_lookups_under_storm, 2,
			      (struct side){ RP_SYNC_RCU, size },
			      (struct side){ RP_SYNC_QRWLOCK, size }, FASTEST(1));
}

/* The storm's rate of kind *@arg, rcu over qrwlock. */
static double storm_rate(const struct target_env *env, const void *arg, char *note, size_t len)
{
	unsigned int kind = *(const unsigned int *)arg;
	int err = storm_measured(env);

	snprintf(note, len, "%s/s, lookup_storm, %lu procs, rcu %.0f / qrwlock %.0f",
		 bench_lookups_under_storm.kinds[kind], storm.a.cfg.size,
		 bench_result_rate(&storm.a, kind), bench_result_rate(&storm.b, kind));
	return err ? err : bench_result_rate(&storm.a, kind) / bench_result_rate(&storm.b, kind);
}

/* The storm's kinds. */
static const unsigned int storm_reads = 0, storm_forks = 1;

static double storm_fork_p99(const struct target_env *env, const void *arg, char *note,
                             size_t len)
{
	int err = storm_measured(env);
	uint64_t rcu_ns = hist_percentile(&storm.a.kinds[1].hist, 0.99);
	uint64_t lock_ns = hist_percentile(&storm.b.kinds[1].hist, 0.99);

	(void)arg;
	snprintf(note, len, "fork p99 during lookup_storm, rcu %llu ns / qrwlock %llu ns",
		 (unsigned long long)rcu_ns, (unsigned long long)lock_ns);
	return err ? err : lock_ns ? (double)rcu_ns / lock_ns : 0;
}

static double storm_backlog(const struct target_env *env, const void *arg, char *note,
                            size_t len)
{
	int err = storm_measured(env);

	(void)arg;
	snprintf(note, len, "deferred frees queued, peak (sampled every 10 ms), rcu, "
		 "lookup_storm at %.0f forks/s", bench_result_rate(&storm.a, 1));
	return err ? err : (double)storm.a.backlog_max;
}

/*
 * kill(pid, 0) of a hot set spread over a big table (pid_max 4,194,304)
 * over the same in a small one: the hash walk, not the cache misses that
 * random pids of a big table add (bench-sizes plots those).  The big
 * table's heap per process is a row of its own.
 */
static struct shared_pair flat;

static int flat_measured(const struct target_env *env)
{
	unsigned long big = target_size(env, 100000, 10000), small = 1000;

	return measure_shared(env, &flat, &bench_kill0_hot, 1, (struct side){ RP_SYNC_RCU, big },
			      (struct side){ RP_SYNC_RCU, small }, FASTEST(0));
}

static double kill_pid_flat(const struct target_env *env, const void *arg, char *note,
                            size_t len)
{
	int err = flat_measured(env);

	(void)arg;
	snprintf(note, len, "kill(pid,0) of a hot set ns, rcu, %lu procs %.0f / %lu procs %.0f",
		 flat.a.cfg.size, bench_result_mean_ns(&flat.a, 0), flat.b.cfg.size,
		 bench_result_mean_ns(&flat.b, 0));
	return err ? err : bench_result_mean_ns(&flat.a, 0) / bench_result_mean_ns(&flat.b, 0);
}

static double bytes_per_process(const struct target_env *env, const void *arg, char *note,
                                size_t len)
{
	int err = flat_measured(env);

	(void)arg;
	snprintf(note, len, "heap bytes per single-threaded process, %lu procs",
		 flat.a.cfg.size);
	return err ? err : flat.a.bytes_per_process;
}

/* Free memory, in bytes (not counting the page cache the kernel could drop). */
static double free_memory(void)
{
	return (double)sysconf(_SC_AVPHYS_PAGES) * sysconf(_SC_PAGESIZE);
}

/*
 * killpg's cost per member in a group of 1,000,000 over that in one of
 * 10,000: both beyond the caches, so that what is compared is the walk's
 * growth.  The big group is built only if it fits in free memory at the
 * heap per process measured above (its row has the figure).
 */
static double killpg_linear(const struct target_env *env, const void *arg, char *note,
                            size_t len)
{
	unsigned long big = target_size(env, 1000000, 2000), small = target_size(env, 10000, 200);
	int err = flat_measured(env);
	double need = flat.a.bytes_per_process * big, per_small, per_big;

	(void)arg;
	if (!err && need > free_memory()) {
		snprintf(note, len, "not run: a group of %lu needs %.1f GB, %.1f GB free",
			 big, need / 1e9, free_memory() / 1e9);
		return -ENOMEM;
	}
	if (!err)
		err = measure_pair(env, &bench_killpg, 1, (struct side){ RP_SYNC_RCU, big },
				   (struct side){ RP_SYNC_RCU, small }, FASTEST(0), &ra, &rb);
	per_small = bench_result_mean_ns(&rb, 0) / small;
	per_big = bench_result_mean_ns(&ra, 0) / big;
	snprintf(note, len, "killpg ns per member, rcu, group of %lu %.1f / of %lu %.1f",
		 big, per_big, small, per_small);
	return err ? err : per_big / per_small;
}

/* Deferred frees queued at most: the library warns beyond (docs/sync.md). */
#define BACKLOG_WARNING		131072

static const struct target core_targets[] = {
	{ "kill(pid,0): rcu vs unsynchronized", 0.7, 0.95, false, lookup_vs_none, &bench_kill0 },
	{ "getpgid: rcu vs unsynchronized", 0.7, 0.95, false, lookup_vs_none, &bench_getpgid },
	{ "kill(pid,0) p999 ps+forks: rwlock/rcu", 1000, 0, false, latency_under_scan,
	  &read_p999_rwlock },
	{ "kill(pid,0) p999 ps+forks: qrwlock/rcu", 1000, 0, false, latency_under_scan,
	  &read_p999_qrwlock },
	{ "fork p99 under kill(-1): rwlock / rcu", 100, 0, false, latency_under_scan,
	  &fork_p99_kill_all },
	{ "fork p99 under ps: rwlock / rcu", 100, 0, false, latency_under_scan, &fork_p99_ps },
	{ "fork+exit, no readers: rcu / rwlock", 1.0, 0, true, fork_exit_cost, NULL },
	{ "lookup_storm forks/s: rcu / qrwlock", 1.0, 0, false, storm_rate, &storm_forks },
	{ "lookup_storm reads/s: rcu / qrwlock", 1.0, 0, false, storm_rate, &storm_reads },
	{ "lookup_storm fork p99: rcu / qrwlock", 2.0, 0, true, storm_fork_p99, NULL },
	{ "deferred-free backlog, peak (objects)", BACKLOG_WARNING, 0, true, storm_backlog, NULL },
	{ "kill(pid) O(1): big / small table", 2.0, 0, true, kill_pid_flat, NULL },
	{ "memory per process (bytes)", 512, 0, true, bytes_per_process, NULL },
	{ "killpg linear: per member big / small", 1.5, 0, true, killpg_linear, NULL },
};

struct target_row {
	const struct target *t;
	double goal;
	double measured;
	char note[200];
};

static void print_row(const struct target_env *env, const struct target_row *r)
{
	bool met = r->t->at_most ? r->measured <= r->goal : r->measured >= r->goal;
	const char *verdict = r->measured < 0 ? "error" : met ? "met" : "short";

	if (bench_report_is(BENCH_JSON)) {
		struct json j;

		json_record(&j, stdout, "target");
		json_bool(&j, "quick", env->quick);
		json_string(&j, "target", r->t->what);
		json_string(&j, "flavour", rp_rcu_flavour());
		/* The goal is met by a measured value on its side: "<=" or ">=". */
		json_string(&j, "comparison", r->t->at_most ? "<=" : ">=");
		json_real(&j, "goal", r->goal, 2);
		json_real(&j, "measured", r->measured < 0 ? NAN : r->measured, 3);
		json_string(&j, "result", verdict);
		json_string(&j, "note", r->note);
		json_record_end(&j);
	} else if (bench_report_is(BENCH_CSV)) {
		/* The result's columns stay empty (report.c's csv_header). */
		printf("target,%s,%s,,,,,,,,,,,,,,,,,,,,", env->quick ? "true" : "false",
		       rp_rcu_flavour());
		bench_csv_field(r->t->what);
		printf(",%s,%.2f,", r->t->at_most ? "<=" : ">=", r->goal);
		if (r->measured >= 0)
			printf("%.3f", r->measured);
		printf(",%s,", verdict);
		bench_csv_field(r->note);
		printf("\n");
	} else if (bench_report_is(BENCH_MARKDOWN)) {
		printf("| %s | %s %.2f | %.2f | %s | %s |\n", r->t->what,
		       r->t->at_most ? "<=" : ">=", r->goal, r->measured, verdict, r->note);
	} else {
		printf("%-40s %2s %9.2f %10.2f  %-5s  %s\n", r->t->what,
		       r->t->at_most ? "<=" : ">=", r->goal, r->measured, verdict, r->note);
	}
}

static int measure_all(const struct target_env *env, const struct target *ts, size_t n,
		       struct target_row *rows)
{
	int failed = 0;

	for (size_t i = 0; i < n && !bench_interrupted(); i++) {
		rows[i].t = &ts[i];
		rows[i].goal = ts[i].goal;
		if (ts[i].goal_qsbr && !strcmp(rp_rcu_flavour(), "qsbr"))
			rows[i].goal = ts[i].goal_qsbr;
		rows[i].measured = ts[i].measure(env, ts[i].arg, rows[i].note,
						 sizeof(rows[i].note));
		/* Cut short, the row was not measured: it is left out. */
		if (bench_interrupted()) {
			rows[i].t = NULL;
			break;
		}
		failed |= rows[i].measured < 0;
	}
	return failed;
}

int bench_targets(const struct target_env *env)
{
	size_t n = sizeof(core_targets) / sizeof(core_targets[0]);
	struct target_row rows[n];
	int failed;

	memset(rows, 0, sizeof(rows));
	failed = measure_all(env, core_targets, n, rows);
	if (bench_report_is(BENCH_TEXT))
		printf("\ntargets (performance contract: docs/performance.md), RCU flavour %s%s\n"
		       "%-40s %2s %9s %10s  %-5s  %s\n", rp_rcu_flavour(),
		       env->quick ? ", QUICK: tiny tables, not meaningful" : "",
		       "target", "", "goal", "measured", "", "what was compared");
	if (bench_report_is(BENCH_MARKDOWN))
		printf("\nTargets (performance contract: docs/performance.md), RCU flavour %s%s:\n\n"
		       "| target | goal | measured | result | what was compared |\n"
		       "|---|---|---|---|---|\n", rp_rcu_flavour(),
		       env->quick ? " (QUICK run: tiny tables, not meaningful)" : "");
	for (size_t i = 0; i < n && rows[i].t; i++)
		print_row(env, &rows[i]);
	return failed;
}
