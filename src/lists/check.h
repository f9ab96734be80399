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
struct check_node {
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
	struct check_ctx *ctx;		/* R, W: at allocation */
	struct rp_deferred deferred;	/* W: rp_defer_release */
};

struct check_ctx {
	struct rp_sync sync;
	const struct rp_check_opts *opts;
	struct rp_check_result *res;
	int stop;			/* uatomic: a violation was seen */
	unsigned long live;		/* uatomic: nodes not yet released */
	pthread_mutex_t report_lock;	/* first_violation */
	pthread_mutex_t quarantine_lock;/* the quarantine ring */
	struct check_node **quarantine;	/* released nodes kept poisoned */
	unsigned int quarantine_next;
	void *state;			/* the scenario's own */
};

/* A reader thread's private state. */
struct check_reader {
	struct check_ctx *ctx;
	uint64_t rng;
	uint64_t walks, restarts;
	unsigned int seen[CHECK_MAX_IDS];
};

struct check_scenario {
	const char *name;
	const char *pattern;
	bool uses_sync;			/* readers and updater use the rp_sync */
	int (*setup)(struct check_ctx *ctx);
	void (*read)(struct check_reader *r);
	void (*update)(struct check_ctx *ctx, uint64_t *rng);
	void (*teardown)(struct check_ctx *ctx);
};

extern const struct check_scenario check_hlist_existence, check_hlist_splice,
	check_nulls_move, check_list_retry, check_list_splice, check_seqcount;

uint64_t check_random(uint64_t *state);
static inline unsigned int check_below(uint64_t *state, unsigned int n)
{
	return (unsigned int)(check_random(state) % n);
}

/* Record a violation (the first one's text is kept) and stop the run. */
void check_violation(struct check_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct check_node *check_node_new(struct check_ctx *ctx, unsigned int id,
				  unsigned int group);
/* Dress @n as a list head that readers must never visit as a node. */
void check_node_make_head(struct check_node *n);
/* Release @n after readers are done with it (rp_defer_release). */
void check_node_retire(struct check_node *n);
/* Release @n at once: teardown, with no readers left. */
void check_node_free_now(struct check_node *n);

/* A reader reached @n: false (and a violation) if it must not have. */
bool check_node_visit(struct check_reader *r, const struct check_node *n);

/* Reset per-walk counts of the ids below @n. */
void check_seen_reset(struct check_reader *r, unsigned int n);

/* Bound on steps of one walk over @nodes nodes: past it, the walk loops. */
#define CHECK_MAX_STEPS(nodes) (4 * (nodes) + 16)

#endif /* RP_LISTS_CHECK_H */
