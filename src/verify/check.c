/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The harness of the list self-checks: reader threads and one updater thread
 * run a scenario for a while; released nodes are poisoned and kept in a
 * quarantine so that a reader touching one is seen even without a sanitizer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"

#define QUARANTINE_SIZE 4096

static const struct rp_check_scenario *const scenarios[RP_CHECK_NR] = {
	[RP_CHECK_HLIST_EXISTENCE] = &rp_check_hlist_existence,
	[RP_CHECK_HLIST_SPLICE] = &rp_check_hlist_splice,
	[RP_CHECK_NULLS_MOVE] = &rp_check_nulls_move,
	[RP_CHECK_LIST_RETRY] = &rp_check_list_retry,
	[RP_CHECK_LIST_SPLICE] = &rp_check_list_splice,
	[RP_CHECK_SEQCOUNT] = &rp_check_seqcount,
};

const char *rp_check_name(enum rp_check_kind kind)
{
	return (unsigned int)kind < RP_CHECK_NR ? scenarios[kind]->name : NULL;
}

const char *rp_check_pattern(enum rp_check_kind kind)
{
	return (unsigned int)kind < RP_CHECK_NR ? scenarios[kind]->pattern : NULL;
}

int rp_check_parse(const char *name, enum rp_check_kind *kind)
{
	for (int k = 0; k < RP_CHECK_NR; k++) {
		if (strcmp(name, scenarios[k]->name) == 0) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

bool rp_check_uses_mode(enum rp_check_kind kind)
{
	return (unsigned int)kind < RP_CHECK_NR && scenarios[kind]->uses_sync;
}

/* splitmix64: small, fast, and good enough to pick list positions. */
uint64_t rp_check_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rp_check_violation(struct rp_check_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&ctx->report_lock);
	va_start(ap, fmt);
	rp_verify_vrecord(&ctx->res->report, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&ctx->report_lock);
	uatomic_set(&ctx->stop, 1);
}

struct rp_check_node *rp_check_node_new(struct rp_check_ctx *ctx, unsigned int id,
				  unsigned int group)
{
	struct rp_check_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->magic = CHECK_LIVE;
	n->id = id;
	n->group = group;
	n->ctx = ctx;
	uatomic_inc(&ctx->live);
	return n;
}

void rp_check_node_make_head(struct rp_check_node *n)
{
	n->magic = CHECK_HEAD;
	n->id = CHECK_MAX_IDS;
	uatomic_dec(&n->ctx->live);	/* heads are not counted as nodes */
}

void rp_check_node_free_now(struct rp_check_node *n)
{
	if (n->magic != CHECK_HEAD)
		uatomic_dec(&n->ctx->live);
	free(n);
}

/*
 * Poison a released node and keep it for QUARANTINE_SIZE more releases, so a
 * reader that still holds it (only possible if the grace period was skipped)
 * sees CHECK_DEAD rather than memory reused by someone else.  The links are
 * left intact so that such a reader is reported, not crashed.
 */
static void release_node(struct rp_deferred *d)
{
	struct rp_check_node *n = caa_container_of(d, struct rp_check_node, deferred);
	struct rp_check_ctx *ctx = n->ctx;
	struct rp_check_node *evicted;

	CMM_STORE_SHARED(n->magic, CHECK_DEAD);
	pthread_mutex_lock(&ctx->quarantine_lock);
	evicted = ctx->quarantine[ctx->quarantine_next];
	ctx->quarantine[ctx->quarantine_next] = n;
	ctx->quarantine_next = (ctx->quarantine_next + 1) % QUARANTINE_SIZE;
	pthread_mutex_unlock(&ctx->quarantine_lock);
	uatomic_dec(&ctx->live);
	free(evicted);
}

void rp_check_node_retire(struct rp_check_node *n)
{
	rp_defer_release(&n->ctx->sync, &n->deferred, release_node);
}

bool rp_check_node_visit(struct rp_check_reader *r, const struct rp_check_node *n)
{
	unsigned int magic = CMM_LOAD_SHARED(n->magic);

	if (magic == CHECK_LIVE)
		return true;
	rp_check_violation(r->ctx, "reader reached a %s (id %u)",
			magic == CHECK_DEAD ? "released node" :
			magic == CHECK_HEAD ? "list head not its own" : "non-node",
			n->id);
	return false;
}

void rp_check_seen_reset(struct rp_check_reader *r, unsigned int n)
{
	memset(r->seen, 0, n * sizeof(r->seen[0]));
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A check that did not run must not pass: past the deadline the run goes on
 * until every thread (each reader and the updater) has completed at least
 * one step, and gives up only the grace later (RUN_GRACE unless the options
 * say), as a violation.  On a loaded machine a thread may get no CPU for a
 * short run's whole length.
 */
#define RUN_GRACE 60.0

struct rp_check_run {
	struct rp_check_ctx *ctx;
	const struct rp_check_scenario *sc;
	double deadline;
	double give_up;		/* past it, a thread that has not stepped is not waited for */
	struct rp_check_reader *readers;
	uint64_t updates;
	unsigned int idle;	/* threads that have not completed a step yet */
};

static bool should_stop(struct rp_check_run *run, uint64_t iteration)
{
	double now;

	if (uatomic_read(&run->ctx->stop))
		return true;
	if ((iteration & 63) != 0)
		return false;
	now = now_seconds();
	return now >= run->deadline &&
	       (uatomic_read(&run->idle) == 0 || now >= run->give_up);
}

/* The calling thread has completed its first step. */
static void first_step_done(struct rp_check_run *run)
{
	uatomic_dec(&run->idle);
}

struct reader_arg {
	struct rp_check_run *run;
	struct rp_check_reader *reader;
};

static void *reader_thread(void *p)
{
	struct reader_arg *a = p;
	struct rp_check_run *run = a->run;
	struct rp_check_reader *r = a->reader;
	struct rp_sync *sync = &run->ctx->sync;

	RP_RACE_POINT(RP_RACE_CHECK_READER_STARTS, NULL);
	rp_thread_register();
	for (uint64_t i = 0; !should_stop(run, i); i++) {
		if (run->sc->uses_sync)
			rp_read_lock(sync);
		run->sc->read(r);
		if (run->sc->uses_sync)
			rp_read_unlock(sync);
		rp_sync_quiescent();
		if (r->walks++ == 0)
			first_step_done(run);
	}
	rp_thread_unregister();
	return NULL;
}

static void *updater_thread(void *p)
{
	struct rp_check_run *run = p;
	struct rp_sync *sync = &run->ctx->sync;
	uint64_t rng = run->ctx->opts->seed ^ 0x5eedULL;

	rp_thread_register();
	for (uint64_t i = 0; !should_stop(run, i); i++) {
		if (run->sc->uses_sync)
			rp_update_lock(sync);
		run->sc->update(run->ctx, &rng);
		if (run->sc->uses_sync)
			rp_update_unlock(sync);
		rp_sync_quiescent();
		if (run->updates++ == 0)
			first_step_done(run);
	}
	/* This thread queued every deferred release: wait for them all. */
	rp_deferred_barrier();
	rp_thread_unregister();
	return NULL;
}

static int run_threads(struct rp_check_run *run, unsigned int nreaders)
{
	pthread_t *tids = calloc(nreaders + 1, sizeof(*tids));
	struct reader_arg *args = calloc(nreaders, sizeof(*args));
	unsigned int started = 0;
	int err = 0;

	if (!tids || !args) {
		err = -ENOMEM;
		goto out;
	}
	if (pthread_create(&tids[0], NULL, updater_thread, run) != 0) {
		err = -EAGAIN;
		goto out;
	}
	for (; started < nreaders; started++) {
		args[started] = (struct reader_arg){ run, &run->readers[started] };
		if (pthread_create(&tids[started + 1], NULL, reader_thread,
				   &args[started]) != 0) {
			err = -EAGAIN;
			uatomic_set(&run->ctx->stop, 1);
			break;
		}
	}
	for (unsigned int i = 0; i <= started; i++)
		pthread_join(tids[i], NULL);
out:
	free(tids);
	free(args);
	return err;
}

static void drain_quarantine(struct rp_check_ctx *ctx)
{
	for (unsigned int i = 0; i < QUARANTINE_SIZE; i++)
		free(ctx->quarantine[i]);
	free(ctx->quarantine);
}

static int run_scenario(struct rp_check_ctx *ctx, const struct rp_check_scenario *sc,
			const struct rp_check_opts *opts)
{
	struct rp_check_run run = { .ctx = ctx, .sc = sc };
	double start;
	int err;

	run.readers = calloc(opts->readers, sizeof(*run.readers));
	if (!run.readers)
		return -ENOMEM;
	for (unsigned int i = 0; i < opts->readers; i++) {
		run.readers[i].ctx = ctx;
		run.readers[i].rng = opts->seed + 1 + i;
	}
	err = sc->setup(ctx);
	if (err == 0) {
		start = now_seconds();
		run.deadline = start + opts->seconds;
		run.give_up = run.deadline + (opts->grace > 0 ? opts->grace : RUN_GRACE);
		run.idle = opts->readers + 1;
		err = run_threads(&run, opts->readers);
		ctx->res->seconds = now_seconds() - start;
		if (!err && run.idle && !uatomic_read(&ctx->stop))
			rp_verify_record(&ctx->res->report, "did not run: %u of %u threads "
					 "completed no step in %.1f s", run.idle,
					 opts->readers + 1, ctx->res->seconds);
	}
	sc->teardown(ctx);	/* also undoes a setup that failed half way */
	ctx->res->updates = run.updates;
	for (unsigned int i = 0; i < opts->readers; i++) {
		ctx->res->walks += run.readers[i].walks;
		ctx->res->restarts += run.readers[i].restarts;
	}
	free(run.readers);
	return err;
}

int rp_check_run(enum rp_check_kind kind, const struct rp_check_opts *opts,
		 struct rp_check_result *res)
{
	struct rp_check_ctx ctx = { .opts = opts, .res = res };
	int err;

	if ((unsigned int)kind >= RP_CHECK_NR || !opts || !res ||
	    (unsigned int)opts->mode >= RP_SYNC_NR_NAMED || opts->readers == 0 ||
	    !(opts->seconds > 0) || !(opts->grace >= 0))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	ctx.quarantine = calloc(QUARANTINE_SIZE, sizeof(*ctx.quarantine));
	if (!ctx.quarantine)
		return -ENOMEM;
	rp_sync_init(&ctx.sync, opts->mode);
	pthread_mutex_init(&ctx.report_lock, NULL);
	pthread_mutex_init(&ctx.quarantine_lock, NULL);

	err = run_scenario(&ctx, scenarios[kind], opts);
	res->leaked = uatomic_read(&ctx.live);
	drain_quarantine(&ctx);
	pthread_mutex_destroy(&ctx.quarantine_lock);
	pthread_mutex_destroy(&ctx.report_lock);
	rp_sync_destroy(&ctx.sync);
	return err;
}
