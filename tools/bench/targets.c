/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The "targets" table: each ratio of the performance contract
 * (docs/performance.md, "The performance contract"), measured in one run of
 * every mode, against its goal.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
 * A comparison's two sides, every round of each kept in order (round k of
 * one side ran just before round k of the other), and which round of each
 * side was its best.
 */
struct pair {
	unsigned int rounds;
	struct bench_result *round[2];	/* big: on the heap */
	unsigned int best[2];
};

static const struct bench_result *side_a(const struct pair *p)
{
	return &p->round[0][p->best[0]];
}

static const struct bench_result *side_b(const struct pair *p)
{
	return &p->round[1][p->best[1]];
}

static int pair_alloc(struct pair *p, unsigned int rounds)
{
	for (unsigned int i = 0; i < 2; i++) {
		struct bench_result *r = realloc(p->round[i], rounds * sizeof(*r));

		if (!r)
			return -ENOMEM;
		p->round[i] = r;
		/* Zero: a note may read a side that an error left unmeasured. */
		memset(r, 0, rounds * sizeof(*r));
	}
	p->rounds = rounds;
	p->best[0] = p->best[1] = 0;
	return 0;
}

static void pair_free(struct pair *p)
{
	free(p->round[0]);
	free(p->round[1]);
	*p = (struct pair){ 0 };
}

/*
 * @w on two sides, in env->rounds rounds alternating between them (so that a
 * burst of other load hits both alike), each round kept in *@p; each side's
 * best round by @pick is reported.
 */
static int measure_pair(const struct target_env *env, const struct bench_workload *w,
			unsigned int threads, struct side sa, struct side sb, struct pick pick,
			struct pair *p)
{
	int err = pair_alloc(p, env->rounds);

	for (unsigned int r = 0; r < env->rounds && !err; r++) {
		for (unsigned int i = 0; i < 2 && !err; i++) {
			struct side s = i ? sb : sa;
			struct bench_result *cand = &p->round[i][r];

			err = measure_once(env, w, s.mode, threads, s.size, cand);
			if (!err && (r == 0 || better(cand, &p->round[i][p->best[i]], pick)))
				p->best[i] = r;
		}
	}
	if (err)
		return err;
	/* The sides, in the text table only: the other formats keep to the targets. */
	if (bench_report_is(BENCH_TEXT)) {
		bench_report_result(side_a(p), NULL);
		bench_report_result(side_b(p), NULL);
	}
	return 0;
}

/* A row's figure from one pair of results: side a's and side b's. */
typedef double figure_fn(const struct bench_result *a, const struct bench_result *b,
			 const void *arg);

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * @f of each round's pair (round k of side a with round k of side b): its
 * median and range say how much the best-vs-best figure could owe to
 * chance.  With an error, there is none (NaN).
 */
static void round_spread(const struct pair *p, int err, figure_fn *f, const void *arg,
			 struct target_spread *sp)
{
	double v[p->rounds ? p->rounds : 1];
	unsigned int n = p->rounds;

	sp->rounds = err ? 0 : n;
	sp->median = sp->min = sp->max = NAN;
	if (err || !n)
		return;
	for (unsigned int r = 0; r < n; r++)
		v[r] = f(&p->round[0][r], &p->round[1][r], arg);
	qsort(v, n, sizeof(*v), by_value);
	sp->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	sp->min = v[0];
	sp->max = v[n - 1];
}

/* The best-vs-best figure (or @err, negative), with the rounds' spread. */
static double pair_figure(const struct pair *p, int err, figure_fn *f, const void *arg,
			  struct target_spread *sp)
{
	round_spread(p, err, f, arg, sp);
	return err ? err : f(side_a(p), side_b(p), arg);
}

/* A pair that several rows read: measured by the first that asks. */
struct shared_pair {
	bool measured;
	int err;
	struct pair p;
};

static int measure_shared(const struct target_env *env, struct shared_pair *s,
			  const struct bench_workload *w, unsigned int threads, struct side sa,
			  struct side sb, struct pick pick)
{
	if (!s->measured)
		s->err = measure_pair(env, w, threads, sa, sb, pick, &s->p);
	s->measured = true;
	return s->err;
}

static struct pair solo;	/* the pair of a row that reads its own */

static double rate0_ratio(const struct bench_result *a, const struct bench_result *b,
			  const void *arg)
{
	(void)arg;
	return bench_result_rate(a, 0) / bench_result_rate(b, 0);
}

/* A lookup's ops/s in rcu mode over the unsynchronized baseline's. */
static double lookup_vs_none(const struct target_env *env, const void *arg, char *note,
			     size_t len, struct target_spread *sp)
{
	const struct bench_workload *w = arg;
	unsigned long size = target_size(env, 10000, 1000);
	int err = measure_pair(env, w, 1, (struct side){ RP_SYNC_RCU, size },
			       (struct side){ RP_SYNC_NONE, size }, FASTEST(0), &solo);

	snprintf(note, len, "%s ops/s, rcu (%s) / none, 1 thread, %lu procs", w->kinds[0],
		 rp_rcu_flavour(), size);
	return pair_figure(&solo, err, rate0_ratio, NULL, sp);
}

/* A latency quantile of a mix's kind 0, in a lock mode and in rcu mode. */
struct latency_cmp {
	const struct bench_workload *w;	/* its kind 2 is the scan */
	enum rp_sync_mode lock_mode;
	const char *quantile;		/* "p99" */
	double q;			/* 0.99 */
};

/* Kind 0's quantile *@arg (a double) in @a over that in @b; 0 if @b's is 0. */
static double quantile0_ratio(const struct bench_result *a, const struct bench_result *b,
			      const void *arg)
{
	double q = *(const double *)arg;
	uint64_t b_ns = hist_percentile(&b->kinds[0].hist, q);

	return b_ns ? (double)hist_percentile(&a->kinds[0].hist, q) / b_ns : 0;
}

/* The lock mode's quantile over rcu's, while thread 0 scans 100,000 processes. */
static double latency_under_scan(const struct target_env *env, const void *arg, char *note,
				 size_t len, struct target_spread *sp)
{
	const struct latency_cmp *c = arg;
	unsigned long size = target_size(env, 100000, 2000);
	int err = measure_pair(env, c->w, c->w->min_threads,
			       (struct side){ c->lock_mode, size }, (struct side){ RP_SYNC_RCU, size },
			       STEADIEST(0, c->q), &solo);
	uint64_t lock_ns = hist_percentile(&side_a(&solo)->kinds[0].hist, c->q);
	uint64_t rcu_ns = hist_percentile(&side_b(&solo)->kinds[0].hist, c->q);

	snprintf(note, len, "%s %s %s %llu ns / rcu %llu ns, %s over %lu procs", c->w->kinds[0],
		 c->quantile, rp_sync_mode_name(c->lock_mode), (unsigned long long)lock_ns,
		 (unsigned long long)rcu_ns, c->w->kinds[2], size);
	return pair_figure(&solo, err, quantile0_ratio, &c->q, sp);
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

/* The mean cost of kind *@arg in @a over that in @b. */
static double mean_ratio(const struct bench_result *a, const struct bench_result *b,
			 const void *arg)
{
	unsigned int kind = *(const unsigned int *)arg;

	return bench_result_mean_ns(a, kind) / bench_result_mean_ns(b, kind);
}

static const unsigned int kind0 = 0, kind1 = 1, kind2 = 2;

static double fork_exit_cost(const struct target_env *env, const void *arg, char *note,
			     size_t len, struct target_spread *sp)
{
	int err = measure_pair(env, &bench_fork_exit, 1, (struct side){ RP_SYNC_RCU, 0 },
			       (struct side){ RP_SYNC_RWLOCK, 0 }, FASTEST(1), &solo);

	(void)arg;
	snprintf(note, len, "fork+exit+wait ns, rcu %.0f / rwlock %.0f, 1 thread",
		 bench_result_mean_ns(side_a(&solo), 1), bench_result_mean_ns(side_b(&solo), 1));
	return pair_figure(&solo, err, mean_ratio, &kind1, sp);
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

/* The rate of kind *@arg in @a over that in @b. */
static double rate_ratio(const struct bench_result *a, const struct bench_result *b,
			 const void *arg)
{
	unsigned int kind = *(const unsigned int *)arg;

	return bench_result_rate(a, kind) / bench_result_rate(b, kind);
}

/* The storm's rate of kind *@arg, rcu over qrwlock. */
static double storm_rate(const struct target_env *env, const void *arg, char *note, size_t len,
			 struct target_spread *sp)
{
	unsigned int kind = *(const unsigned int *)arg;
	int err = storm_measured(env);
	const struct bench_result *a = side_a(&storm.p), *b = side_b(&storm.p);

	snprintf(note, len, "%s/s, lookup_storm, %lu procs, rcu %.0f / qrwlock %.0f",
		 bench_lookups_under_storm.kinds[kind], a->cfg.size,
		 bench_result_rate(a, kind), bench_result_rate(b, kind));
	return pair_figure(&storm.p, err, rate_ratio, arg, sp);
}

/* The storm's kinds. */
static const unsigned int storm_reads = 0, storm_forks = 1;

/* Kind 1's p99 in @a over that in @b; 0 if @b's is 0. */
static double fork_p99_ratio(const struct bench_result *a, const struct bench_result *b,
			     const void *arg)
{
	uint64_t b_ns = hist_percentile(&b->kinds[1].hist, 0.99);

	(void)arg;
	return b_ns ? (double)hist_percentile(&a->kinds[1].hist, 0.99) / b_ns : 0;
}

static double storm_fork_p99(const struct target_env *env, const void *arg, char *note,
                             size_t len, struct target_spread *sp)
{
	int err = storm_measured(env);
	uint64_t rcu_ns = hist_percentile(&side_a(&storm.p)->kinds[1].hist, 0.99);
	uint64_t lock_ns = hist_percentile(&side_b(&storm.p)->kinds[1].hist, 0.99);

	(void)arg;
	snprintf(note, len, "fork p99 during lookup_storm, rcu %llu ns / qrwlock %llu ns",
		 (unsigned long long)rcu_ns, (unsigned long long)lock_ns);
	return pair_figure(&storm.p, err, fork_p99_ratio, NULL, sp);
}

/* Side a's own figures, not ratios: their spread is over side a's rounds. */
static double backlog_of_a(const struct bench_result *a, const struct bench_result *b,
			   const void *arg)
{
	(void)b;
	(void)arg;
	return (double)a->backlog_max;
}

static double storm_backlog(const struct target_env *env, const void *arg, char *note,
                            size_t len, struct target_spread *sp)
{
	int err = storm_measured(env);

	(void)arg;
	snprintf(note, len, "deferred frees queued, peak (sampled every 10 ms), rcu, "
		 "lookup_storm at %.0f forks/s", bench_result_rate(side_a(&storm.p), 1));
	return pair_figure(&storm.p, err, backlog_of_a, NULL, sp);
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
                            size_t len, struct target_spread *sp)
{
	int err = flat_measured(env);
	const struct bench_result *a = side_a(&flat.p), *b = side_b(&flat.p);

	(void)arg;
	snprintf(note, len, "kill(pid,0) of a hot set ns, rcu, %lu procs %.0f / %lu procs %.0f",
		 a->cfg.size, bench_result_mean_ns(a, 0), b->cfg.size, bench_result_mean_ns(b, 0));
	return pair_figure(&flat.p, err, mean_ratio, &kind0, sp);
}

static double bytes_of_a(const struct bench_result *a, const struct bench_result *b,
			 const void *arg)
{
	(void)b;
	(void)arg;
	return a->bytes_per_process;
}

static double bytes_per_process(const struct target_env *env, const void *arg, char *note,
                                size_t len, struct target_spread *sp)
{
	int err = flat_measured(env);

	(void)arg;
	snprintf(note, len, "heap bytes per single-threaded process, %lu procs",
		 side_a(&flat.p)->cfg.size);
	return pair_figure(&flat.p, err, bytes_of_a, NULL, sp);
}

/* Free memory, in bytes (not counting the page cache the kernel could drop). */
static double free_memory(void)
{
	return (double)sysconf(_SC_AVPHYS_PAGES) * sysconf(_SC_PAGESIZE);
}

/* Kind 0's mean cost per member of the group (the table's size). */
static double per_member_ns(const struct bench_result *r)
{
	return bench_result_mean_ns(r, 0) / r->cfg.size;
}

static double per_member_ratio(const struct bench_result *a, const struct bench_result *b,
			       const void *arg)
{
	(void)arg;
	return per_member_ns(a) / per_member_ns(b);
}

/*
 * killpg's cost per member in a group of 1,000,000 over that in one of
 * 10,000.  At 736 bytes a process the small group fits in a last-level
 * cache of 32 MB and the big one does not, so on such a machine the row
 * compares the cache with memory; killpg per member is flat from 100,000
 * up (docs/performance.md, "killpg per member").  The big group is built
 * only if it fits in free memory at the heap per process measured above
 * (its row has the figure).
 */
static double killpg_linear(const struct target_env *env, const void *arg, char *note,
                            size_t len, struct target_spread *sp)
{
	unsigned long big = target_size(env, 1000000, 2000), small = target_size(env, 10000, 200);
	int err = flat_measured(env);
	double need = side_a(&flat.p)->bytes_per_process * big;

	(void)arg;
	if (!err && need > free_memory()) {
		snprintf(note, len, "not run: a group of %lu needs %.1f GB, %.1f GB free",
			 big, need / 1e9, free_memory() / 1e9);
		return pair_figure(&solo, -ENOMEM, per_member_ratio, NULL, sp);
	}
	if (!err)
		err = measure_pair(env, &bench_killpg, 1, (struct side){ RP_SYNC_RCU, big },
				   (struct side){ RP_SYNC_RCU, small }, FASTEST(0), &solo);
	snprintf(note, len, "killpg ns per member, rcu, group of %lu %.1f / of %lu %.1f",
		 big, err ? 0 : per_member_ns(side_a(&solo)), small,
		 err ? 0 : per_member_ns(side_b(&solo)));
	return pair_figure(&solo, err, per_member_ratio, NULL, sp);
}

/*
 * kill(pid, 0) of processes of a level-2 namespace by the number a caller
 * at level 1 or 2 sees, over the same by their root numbers, in one run
 * (kill0_ns, 10,000 processes, one thread): a lookup in a nested namespace
 * is one more hash probe than the root's (docs/namespaces.md).  Side a is
 * rcu, side b qrwlock (in the note).
 */
static struct shared_pair nested;

static double level_over_root(const struct bench_result *a, const struct bench_result *b,
			      const void *arg)
{
	(void)b;
	return bench_result_latency_mean_ns(a, *(const unsigned int *)arg) /
	       bench_result_latency_mean_ns(a, 0);
}

static double nested_lookup(const struct target_env *env, const void *arg, char *note,
			    size_t len, struct target_spread *sp)
{
	unsigned long size = target_size(env, 10000, 1000);
	int err = measure_shared(env, &nested, &bench_kill0_ns, 1, (struct side){ RP_SYNC_RCU, size },
				 (struct side){ RP_SYNC_QRWLOCK, size }, FASTEST(0));
	const struct bench_result *a = side_a(&nested.p), *b = side_b(&nested.p);
	unsigned int level = *(const unsigned int *)arg;

	snprintf(note, len, "kill(pid,0) mean ns, level %u / root, %lu procs: rcu %.1f / %.1f, "
		 "qrwlock %.1f / %.1f", level, size,
		 err ? 0 : bench_result_latency_mean_ns(a, level),
		 err ? 0 : bench_result_latency_mean_ns(a, 0),
		 err ? 0 : bench_result_latency_mean_ns(b, level),
		 err ? 0 : bench_result_latency_mean_ns(b, 0));
	return pair_figure(&nested.p, err, level_over_root, arg, sp);
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
	{ "kill(pid,0) level 1 / root namespace", 1.2, 0, true, nested_lookup, &kind1 },
	{ "kill(pid,0) level 2 / root namespace", 1.2, 0, true, nested_lookup, &kind2 },
};

struct target_row {
	const struct target *t;
	double goal;
	double measured;		/* best round against best round */
	struct target_spread spread;	/* round against round */
	char note[200];
};

/* The rounds' median and range, or "-" where there is none. */
static void spread_text(const struct target_spread *sp, char *median, char *range, size_t len)
{
	if (!sp->rounds) {
		snprintf(median, len, "-");
		snprintf(range, len, "-");
		return;
	}
	snprintf(median, len, "%.2f", sp->median);
	snprintf(range, len, "%.2f-%.2f", sp->min, sp->max);
}

/* A CSV field of @x, empty where there is none. */
static void csv_real(const struct target_spread *sp, double x)
{
	if (sp->rounds)
		printf("%.3f", x);
	printf(",");
}

static void print_row(const struct target_env *env, const struct target_row *r)
{
	bool met = r->t->at_most ? r->measured <= r->goal : r->measured >= r->goal;
	const char *verdict = r->measured < 0 ? "error" : met ? "met" : "short";
	const struct target_spread *sp = &r->spread;
	char median[32], range[64];

	spread_text(sp, median, range, sizeof(median));
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
		json_uint(&j, "rounds", sp->rounds);
		json_real(&j, "measured_median", sp->median, 3);
		json_real(&j, "measured_min", sp->min, 3);
		json_real(&j, "measured_max", sp->max, 3);
		json_string(&j, "result", verdict);
		json_string(&j, "note", r->note);
		json_record_end(&j);
	} else if (bench_report_is(BENCH_CSV)) {
		/* The result's columns stay empty (report.c's csv_header). */
		printf("target,%s,%s,,,,,,,,,,,,,,,,,,,,,", env->quick ? "true" : "false",
		       rp_rcu_flavour());
		bench_csv_field(r->t->what);
		printf(",%s,%.2f,", r->t->at_most ? "<=" : ">=", r->goal);
		if (r->measured >= 0)
			printf("%.3f", r->measured);
		printf(",");
		csv_real(sp, sp->median);
		csv_real(sp, sp->min);
		csv_real(sp, sp->max);
		printf("%s,", verdict);
		bench_csv_field(r->note);
		printf("\n");
	} else if (bench_report_is(BENCH_MARKDOWN)) {
		printf("| %s | %s %.2f | %.2f | %s | %s | %s | %s |\n", r->t->what,
		       r->t->at_most ? "<=" : ">=", r->goal, r->measured, median, range, verdict,
		       r->note);
	} else {
		printf("%-40s %2s %9.2f %10.2f %9s %19s  %-5s  %s\n", r->t->what,
		       r->t->at_most ? "<=" : ">=", r->goal, r->measured, median, range, verdict,
		       r->note);
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
						 sizeof(rows[i].note), &rows[i].spread);
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
		       "measured: best round against best round; median, min-max: of round k "
		       "against round k\n"
		       "%-40s %2s %9s %10s %9s %19s  %-5s  %s\n", rp_rcu_flavour(),
		       env->quick ? ", QUICK: tiny tables, not meaningful" : "",
		       "target", "", "goal", "measured", "median", "min-max", "",
		       "what was compared");
	if (bench_report_is(BENCH_MARKDOWN))
		printf("\nTargets (performance contract: docs/performance.md), RCU flavour %s%s; "
		       "measured is best round against best round, median and min-max those "
		       "of round k against round k:\n\n"
		       "| target | goal | measured | median | min-max | result | what was compared |\n"
		       "|---|---|---|---|---|---|---|\n", rp_rcu_flavour(),
		       env->quick ? " (QUICK run: tiny tables, not meaningful)" : "");
	for (size_t i = 0; i < n && rows[i].t; i++)
		print_row(env, &rows[i]);
	pair_free(&solo);
	pair_free(&storm.p);
	pair_free(&flat.p);
	return failed;
}
