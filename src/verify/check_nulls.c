/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nulls-list self-check: NCHAINS hash chains, each ending in a marker with its
 * chain's id.  Each chain has one anchor node at its tail that never moves;
 * mover nodes jump between chains (del_init + add_head, no grace period) and
 * are now and then released and replaced.  A reader looks up its chain's
 * anchor; a walk that ends on another chain's marker restarts.  Missing the
 * anchor is a violation.
 */
#include <errno.h>
#include <stdlib.h>
#include "check.h"

#define NCHAINS		8
#define NMOVERS		24
#define MOVER_ID	NCHAINS		/* movers have ids from here */
#define MAX_RESTARTS	100000		/* then give up quietly: updater too busy */

struct nulls {
	struct rp_hlist_nulls_head chains[NCHAINS];
	struct rp_check_node *movers[NMOVERS];	/* W: updater */
};

static int nulls_setup(struct rp_check_ctx *ctx)
{
	struct nulls *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	ctx->state = s;
	for (unsigned int c = 0; c < NCHAINS; c++) {
		struct rp_check_node *anchor = rp_check_node_new(ctx, c, c);

		if (!anchor)
			return -ENOMEM;
		rp_hlist_nulls_head_init(&s->chains[c], c);
		rp_hlist_nulls_add_tail_pub(&anchor->n, &s->chains[c]);
	}
	for (unsigned int m = 0; m < NMOVERS; m++) {
		s->movers[m] = rp_check_node_new(ctx, MOVER_ID + m, 0);
		if (!s->movers[m])
			return -ENOMEM;
		rp_hlist_nulls_add_head_pub(&s->movers[m]->n, &s->chains[m % NCHAINS]);
	}
	return 0;
}

static void nulls_update(struct rp_check_ctx *ctx, uint64_t *rng)
{
	struct nulls *s = ctx->state;
	struct rp_check_node **slot = &s->movers[rp_check_below(rng, NMOVERS)];
	struct rp_hlist_nulls_head *to = &s->chains[rp_check_below(rng, NCHAINS)];
	struct rp_check_node *fresh;

	rp_hlist_nulls_del_init_pub(&(*slot)->n);
	if (rp_check_below(rng, 16) == 0 &&
	    (fresh = rp_check_node_new(ctx, (*slot)->id, 0)) != NULL) {
		rp_check_node_retire(*slot);
		*slot = fresh;
	}
	rp_hlist_nulls_add_head_pub(&(*slot)->n, to);
}

static void nulls_read(struct rp_check_reader *r)
{
	struct nulls *s = r->ctx->state;
	unsigned int chain = rp_check_below(&r->rng, NCHAINS);
	struct rp_hlist_nulls_node *pos;
	struct rp_check_node *n;

	for (unsigned int tries = 0; tries < MAX_RESTARTS; tries++) {
		unsigned int steps = 0;

		rp_hlist_nulls_for_each_entry_rcu(n, pos, &s->chains[chain], n) {
			if (!rp_check_node_visit(r, n))
				return;
			if (n->id == chain)
				return;		/* found the anchor */
			if (++steps > CHECK_MAX_STEPS(NMOVERS + NCHAINS)) {
				rp_check_violation(r->ctx, "nulls walk does not end");
				return;
			}
		}
		/* Ended on another chain's marker: pairs with the updater's move. */
		if (!rp_hlist_nulls_moved_off(pos, chain)) {
			rp_check_violation(r->ctx, "nulls: anchor of chain %u missed", chain);
			return;
		}
		r->restarts++;
	}
}

static void nulls_teardown(struct rp_check_ctx *ctx)
{
	struct nulls *s = ctx->state;

	if (!s)
		return;
	for (unsigned int c = 0; c < NCHAINS; c++) {
		struct rp_hlist_nulls_node *pos = s->chains[c].first, *next;

		for (; !rp_is_a_nulls(pos); pos = next) {
			next = pos->next;
			rp_check_node_free_now(caa_container_of(pos, struct rp_check_node, n));
		}
	}
	free(s);
}

const struct rp_check_scenario rp_check_nulls_move = {
	.name = "nulls-move",
	.pattern = "hlist_nulls: nodes move between chains, readers restart",
	.uses_sync = true,
	.setup = nulls_setup,
	.read = nulls_read,
	.update = nulls_update,
	.teardown = nulls_teardown,
};
