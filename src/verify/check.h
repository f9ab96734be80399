/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internals shared by the list self-checks; see selfcheck.h. */
#ifndef RP_LISTS_CHECK_H
#define RP_LISTS_CHECK_H

#include "../sync/sync.h"	/* first: it picks the inline liburcu API */
#include "../debug/list_twins.h"
#include "selfcheck.h"

#define CHECK_LIVE	0x11fe11feU	/* a node readers may visit */
#define CHECK_DEAD	0xdeaddeadU	/* written when a node is released */
#define CHECK_HEAD	0x4ead4eadU	/* a list head dressed as a node */
#define CHECK_MAX_IDS	256		/* ids are below this */

/* Every check uses this node; only one of the links is in use per check. */
struct rp_check_node {
	union {
		struct cds_hlist_node h;
		struct rp_hlist_nulls_node n;
		struct cds_list_head l;
		struct rp_owned_link o;
	};
	unsigned int magic;		/* R: readers; W: updater, release */
	unsigned int id;		/* R: readers; W: at allocation */
	unsigned int group;		/* R: readers; W: at allocation */
	void *owner;			/* R, W: updater */
	struct rp_check_ctx *ctx;		/* R, W: at allocation */
	struct rp_deferred deferred;	/* W: rp_defer_release */
};

struct rp_check_ctx {
	struct rp_sync sync;
	const struct rp_check_opts *opts;
	struct rp_check_result *res;
	int stop;			/* uatomic: a violation was seen */
	unsigned long live;		/* uatomic: nodes not yet released */
	pthread_mutex_t report_lock;	/* res->report */
	pthread_mutex_t quarantine_lock;/* the quarantine ring */
	struct rp_check_node **quarantine;	/* released nodes kept poisoned */
	unsigned int quarantine_next;
	void *state;			/* the scenario's own */
};

/* A reader thread's private state. */
struct rp_check_reader {
	struct rp_check_ctx *ctx;
	uint64_t rng;
	uint64_t walks, restarts;
	unsigned int seen[CHECK_MAX_IDS];
};

struct rp_check_scenario {
	const char *name;
	const char *pattern;
	bool uses_sync;			/* readers and updater use the rp_sync */
	int (*setup)(struct rp_check_ctx *ctx);
	void (*read)(struct rp_check_reader *r);
	void (*update)(struct rp_check_ctx *ctx, uint64_t *rng);
	void (*teardown)(struct rp_check_ctx *ctx);
};

extern const struct rp_check_scenario rp_check_hlist_existence, rp_check_hlist_splice,
	rp_check_nulls_move, rp_check_list_retry, rp_check_list_splice, rp_check_seqcount;

uint64_t rp_check_random(uint64_t *state);
static inline unsigned int rp_check_below(uint64_t *state, unsigned int n)
{
	return (unsigned int)(rp_check_random(state) % n);
}

/* Record a violation in the result's report and stop the run. */
void rp_check_violation(struct rp_check_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct rp_check_node *rp_check_node_new(struct rp_check_ctx *ctx, unsigned int id,
				  unsigned int group);
/* Dress @n as a list head that readers must never visit as a node. */
void rp_check_node_make_head(struct rp_check_node *n);
/* Release @n after readers are done with it (rp_defer_release). */
void rp_check_node_retire(struct rp_check_node *n);
/* Release @n at once: teardown, with no readers left. */
void rp_check_node_free_now(struct rp_check_node *n);

/* A reader reached @n: false (and a violation) if it must not have. */
bool rp_check_node_visit(struct rp_check_reader *r, const struct rp_check_node *n);

/* Reset per-walk counts of the ids below @n. */
void rp_check_seen_reset(struct rp_check_reader *r, unsigned int n);

/* Bound on steps of one walk over @nodes nodes: past it, the walk loops. */
#define CHECK_MAX_STEPS(nodes) (4 * (nodes) + 16)

#endif /* RP_LISTS_CHECK_H */
