/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Circular-list self-checks.
 *
 * retry (Group 3, the ptraced lists): NLISTS lists, each with stable nodes that
 * never leave, and mover nodes the updater detaches (mark obsolete, unlink)
 * and attaches at once to the head of a list, perhaps the same one.  A retry
 * reader must finish its last pass having seen each stable node of its list,
 * never reach a stable node or the head of another list, and never walk
 * without end.  Attaching
 * at the head is what makes "seen" hold: a reader standing on a node that
 * rejoins its own list cannot tell, and follows it back to the start, so it
 * may see nodes twice but misses none (the article's "the former is
 * preferred"); attaching further along would let it skip nodes.
 *
 * splice: the updater empties a source list onto a destination list with
 * rp_list_splice_init_pub, then brings the nodes back one by one.  A reader of
 * the source must never reach the destination's own nodes or head, never see
 * a node twice, and always end.
 */
#include <errno.h>
#include <stdlib.h>
#include "../debug/list_twins.h"
#include "check.h"

#define NLISTS		4
#define NSTABLE		6	/* per list */
#define NMOVERS		6
#define MOVER_ID	(NLISTS * NSTABLE)
#define MAX_RESTARTS	100000	/* then give up quietly: updater too busy */

struct retry {
	struct rp_check_node *heads[NLISTS];	/* heads dressed as nodes */
	struct rp_check_node *stable[NLISTS * NSTABLE];
	struct rp_check_node *movers[NMOVERS];
};

static struct rp_check_node *new_head(struct rp_check_ctx *ctx)
{
	struct rp_check_node *h = rp_check_node_new(ctx, 0, 0);

	if (h) {
		rp_check_node_make_head(h);
		CDS_INIT_LIST_HEAD(&h->l);
	}
	return h;
}

static int retry_setup(struct rp_check_ctx *ctx)
{
	struct retry *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	ctx->state = s;
	for (unsigned int l = 0; l < NLISTS; l++)
		if (!(s->heads[l] = new_head(ctx)))
			return -ENOMEM;
	for (unsigned int i = 0; i < NLISTS * NSTABLE; i++) {
		struct rp_check_node *h = s->heads[i / NSTABLE];

		if (!(s->stable[i] = rp_check_node_new(ctx, i, i / NSTABLE)))
			return -ENOMEM;
		s->stable[i]->o.owner = h;
		cds_list_add_tail_rcu(&s->stable[i]->o.node, &h->l);
	}
	for (unsigned int m = 0; m < NMOVERS; m++) {
		struct rp_check_node *h = s->heads[m % NLISTS];

		if (!(s->movers[m] = rp_check_node_new(ctx, MOVER_ID + m, 0)))
			return -ENOMEM;
		rp_owned_add_pub(&s->movers[m]->o, &h->l, h);
	}
	return 0;
}

static void retry_update(struct rp_check_ctx *ctx, uint64_t *rng)
{
	struct retry *s = ctx->state;
	struct rp_check_node *n = s->movers[rp_check_below(rng, NMOVERS)];
	struct rp_check_node *to = s->heads[rp_check_below(rng, NLISTS)];

	rp_owned_del_pub(&n->o);
	rp_owned_add_pub(&n->o, &to->l, to);
}

static void retry_read(struct rp_check_reader *r)
{
	struct retry *s = r->ctx->state;
	unsigned int list = rp_check_below(&r->rng, NLISTS);
	struct rp_check_node *head = s->heads[list], *n;
	unsigned long restarts = 0, pass = 0;
	unsigned int steps = 0;

	rp_check_seen_reset(r, NLISTS * NSTABLE);
	rp_owned_for_each_entry_rcu(n, &head->l, head, o, &restarts) {
		if (restarts != pass) {		/* a new pass began */
			if (restarts > MAX_RESTARTS)
				goto out;
			pass = restarts;
			steps = 0;
			rp_check_seen_reset(r, NLISTS * NSTABLE);
		}
		if (!rp_check_node_visit(r, n))
			goto out;
		if (++steps > CHECK_MAX_STEPS(NLISTS * NSTABLE + NMOVERS)) {
			rp_check_violation(r->ctx, "retry walk of list %u does not end", list);
			goto out;
		}
		if (n->id >= MOVER_ID)
			continue;	/* a mover may be seen just after it left */
		if (n->group != list) {
			rp_check_violation(r->ctx, "retry walk of list %u reached stable "
					"node %u of list %u", list, n->id, n->group);
			goto out;
		}
		r->seen[n->id]++;
	}
	for (unsigned int i = list * NSTABLE; i < (list + 1) * NSTABLE; i++)
		if (r->seen[i] == 0)
			rp_check_violation(r->ctx, "retry: stable node %u missed", i);
out:
	r->restarts += restarts;
}

static void free_list(struct rp_check_node *head)
{
	struct rp_check_node *n, *tmp;

	cds_list_for_each_entry_safe(n, tmp, &head->l, l)
		rp_check_node_free_now(n);
	rp_check_node_free_now(head);
}

static void retry_teardown(struct rp_check_ctx *ctx)
{
	struct retry *s = ctx->state;

	if (!s)
		return;
	for (unsigned int l = 0; l < NLISTS; l++)
		if (s->heads[l])
			free_list(s->heads[l]);
	free(s);
}

const struct rp_check_scenario rp_check_list_retry = {
	.name = "list-retry",
	.pattern = "Group 3: mark obsolete + retry readers (ptraced lists)",
	.uses_sync = true,
	.setup = retry_setup,
	.read = retry_read,
	.update = retry_update,
	.teardown = retry_teardown,
};

#define NSOURCE		24	/* nodes that travel, group 0 */
#define NNATIVE		8	/* the destination's own nodes, group 1 */

struct lsplice {
	struct rp_check_node *src, *dst;		/* heads */
	struct rp_check_node *travellers[NSOURCE];
	unsigned int nback;			/* W: updater: travellers on src */
};

static int lsplice_setup(struct rp_check_ctx *ctx)
{
	struct lsplice *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	ctx->state = s;
	if (!(s->src = new_head(ctx)) || !(s->dst = new_head(ctx)))
		return -ENOMEM;
	for (unsigned int i = 0; i < NNATIVE; i++) {
		struct rp_check_node *n = rp_check_node_new(ctx, NSOURCE + i, 1);

		if (!n)
			return -ENOMEM;
		cds_list_add_tail_rcu(&n->l, &s->dst->l);
	}
	for (unsigned int i = 0; i < NSOURCE; i++) {
		if (!(s->travellers[i] = rp_check_node_new(ctx, i, 0)))
			return -ENOMEM;
		s->travellers[i]->owner = s->src;
		cds_list_add_tail_rcu(&s->travellers[i]->l, &s->src->l);
	}
	s->nback = NSOURCE;
	return 0;
}

static void lsplice_update(struct rp_check_ctx *ctx, uint64_t *rng)
{
	struct lsplice *s = ctx->state;

	if (s->nback == NSOURCE || (s->nback && rp_check_below(rng, 8) == 0)) {
		if (rp_check_below(rng, 2))
			rp_list_splice_init_pub(&s->src->l, &s->dst->l,
						rp_sync_synchronize_cb, &ctx->sync);
		else
			rp_list_splice_tail_init_pub(&s->src->l, &s->dst->l,
						     rp_sync_synchronize_cb, &ctx->sync);
		for (unsigned int i = 0; i < NSOURCE; i++)
			s->travellers[i]->owner = s->dst;
		s->nback = 0;
		return;
	}
	/* Bring back the next traveller still on dst; src readers never see dst. */
	for (unsigned int i = 0; i < NSOURCE; i++) {
		struct rp_check_node *n = s->travellers[i];

		if (n->owner == s->src)
			continue;
		cds_list_del_rcu(&n->l);
		cds_list_add_tail_rcu(&n->l, &s->src->l);
		n->owner = s->src;	/* updater-only here: who is back on src */
		s->nback++;
		return;
	}
}

static void lsplice_read(struct rp_check_reader *r)
{
	struct lsplice *s = r->ctx->state;
	struct rp_check_node *n;
	unsigned int steps = 0;

	rp_check_seen_reset(r, NSOURCE + NNATIVE);
	cds_list_for_each_entry_rcu(n, &s->src->l, l) {
		if (!rp_check_node_visit(r, n))
			return;
		if (n->group != 0 || r->seen[n->id]++ ||
		    ++steps > CHECK_MAX_STEPS(NSOURCE)) {
			rp_check_violation(r->ctx, "list splice: reader of the source reached "
					"node %u of group %u", n->id, n->group);
			return;
		}
	}
}

static void lsplice_teardown(struct rp_check_ctx *ctx)
{
	struct lsplice *s = ctx->state;

	if (!s)
		return;
	if (s->src)
		free_list(s->src);
	if (s->dst)
		free_list(s->dst);
	free(s);
}

const struct rp_check_scenario rp_check_list_splice = {
	.name = "list-splice",
	.pattern = "splice_init_rcu: empty, wait for readers, then link",
	.uses_sync = true,
	.setup = lsplice_setup,
	.read = lsplice_read,
	.update = lsplice_update,
	.teardown = lsplice_teardown,
};
