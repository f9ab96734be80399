/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hlist self-checks.
 *
 * existence (Group 2): readers walk one hlist while the updater adds nodes
 * before, behind and at the head, deletes them and replaces nodes with copies.
 * Every stable identity (ids below NSTABLE, present for the whole run, possibly
 * as a replacement copy) must be seen exactly once per walk; no released node
 * may be reached.
 *
 * splice (Group 4): blocks of nodes move between lists only as whole lists,
 * appended to another's tail with rp_hlist_tail_splice_pub.  A reader notes, under a sequence count, which
 * blocks its list holds as it loads the list's first node; it must then see
 * every node of those blocks exactly once, and no node twice.
 */
#include <errno.h>
#include <stdlib.h>
#include "../debug/list_twins.h"
#include "../debug/seqcount_twin.h"
#include "check.h"

#define NSTABLE		16
#define NCHURN		48
#define CHURN_ID	100	/* churn nodes have ids from here */

struct existence {
	struct cds_hlist_head head;
	struct rp_check_node *stable[NSTABLE];	/* W: updater */
	struct rp_check_node *churn[NCHURN];	/* W: updater */
	unsigned int nchurn;			/* W: updater */
};

static int existence_setup(struct rp_check_ctx *ctx)
{
	struct existence *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	ctx->state = e;
	for (unsigned int i = NSTABLE; i-- > 0;) {
		e->stable[i] = rp_check_node_new(ctx, i, 0);
		if (!e->stable[i])
			return -ENOMEM;
		cds_hlist_add_head_rcu(&e->stable[i]->h, &e->head);
	}
	return 0;
}

static struct rp_check_node *existence_pick(struct existence *e, uint64_t *rng)
{
	unsigned int i = rp_check_below(rng, NSTABLE + e->nchurn);

	return i < NSTABLE ? e->stable[i] : e->churn[i - NSTABLE];
}

static void existence_add(struct rp_check_ctx *ctx, struct existence *e, uint64_t *rng)
{
	struct rp_check_node *n, *at;

	if (e->nchurn == NCHURN)
		return;
	n = rp_check_node_new(ctx, CHURN_ID, 1);
	if (!n)
		return;
	at = existence_pick(e, rng);
	switch (rp_check_below(rng, 3)) {
	case 0:
		rp_hlist_add_before_pub(&n->h, &at->h);
		break;
	case 1:
		rp_hlist_add_behind_pub(&n->h, &at->h);
		break;
	default:
		cds_hlist_add_head_rcu(&n->h, &e->head);
		break;
	}
	e->churn[e->nchurn++] = n;
}

static void existence_replace(struct rp_check_ctx *ctx, struct rp_check_node **slot)
{
	struct rp_check_node *old = *slot, *copy = rp_check_node_new(ctx, old->id, old->group);

	if (!copy)
		return;
	rp_hlist_replace_pub(&old->h, &copy->h);
	*slot = copy;
	rp_check_node_retire(old);
}

static void existence_update(struct rp_check_ctx *ctx, uint64_t *rng)
{
	struct existence *e = ctx->state;
	unsigned int i;

	switch (rp_check_below(rng, 4)) {
	case 0:
		existence_add(ctx, e, rng);
		break;
	case 1:
		if (!e->nchurn)
			break;
		i = rp_check_below(rng, e->nchurn);
		rp_hlist_del_init_pub(&e->churn[i]->h);
		rp_check_node_retire(e->churn[i]);
		e->churn[i] = e->churn[--e->nchurn];
		break;
	case 2:
		existence_replace(ctx, &e->stable[rp_check_below(rng, NSTABLE)]);
		break;
	default:
		if (e->nchurn)
			existence_replace(ctx, &e->churn[rp_check_below(rng, e->nchurn)]);
		break;
	}
}

static void existence_read(struct rp_check_reader *r)
{
	struct existence *e = r->ctx->state;
	struct rp_check_node *n;
	unsigned int steps = 0;

	rp_check_seen_reset(r, NSTABLE);
	cds_hlist_for_each_entry_rcu_2(n, &e->head, h) {
		if (!rp_check_node_visit(r, n))
			return;
		if (++steps > CHECK_MAX_STEPS(NSTABLE + NCHURN)) {
			rp_check_violation(r->ctx, "existence walk does not end");
			return;
		}
		if (n->id < NSTABLE)
			r->seen[n->id]++;
	}
	for (unsigned int i = 0; i < NSTABLE; i++)
		if (r->seen[i] != 1)
			rp_check_violation(r->ctx, "existence: stable node %u seen %u times",
					i, r->seen[i]);
}

static void free_hlist(struct cds_hlist_head *head)
{
	struct rp_check_node *n, *tmp;

	cds_hlist_for_each_entry_safe_2(n, tmp, head, h)
		rp_check_node_free_now(n);
	head->next = NULL;
}

static void existence_teardown(struct rp_check_ctx *ctx)
{
	struct existence *e = ctx->state;

	if (!e)
		return;
	free_hlist(&e->head);
	free(e);
}

const struct rp_check_scenario rp_check_hlist_existence = {
	.name = "hlist-existence",
	.pattern = "Group 2: RCU existence locks (add before/behind, del, replace)",
	.uses_sync = true,
	.setup = existence_setup,
	.read = existence_read,
	.update = existence_update,
	.teardown = existence_teardown,
};

#define NLISTS		4
#define NBLOCKS		4
#define BLOCK_SIZE	12

struct splice {
	struct rp_hlist_tail_head heads[NLISTS];
	struct rp_seqcount seq;		/* W: updater; covers owner[] and splices */
	unsigned int owner[NBLOCKS];	/* R: readers (seqcount); W: updater */
};

static int splice_setup(struct rp_check_ctx *ctx)
{
	struct splice *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	ctx->state = s;
	for (unsigned int l = 0; l < NLISTS; l++)
		rp_hlist_tail_init(&s->heads[l]);
	for (unsigned int b = 0; b < NBLOCKS; b++) {
		s->owner[b] = b % NLISTS;
		for (unsigned int i = 0; i < BLOCK_SIZE; i++) {
			struct rp_check_node *n = rp_check_node_new(ctx, b * BLOCK_SIZE + i, b);

			if (!n)
				return -ENOMEM;
			rp_hlist_tail_add_pub(&n->h, &s->heads[s->owner[b]]);
		}
	}
	return 0;
}

static void splice_update(struct rp_check_ctx *ctx, uint64_t *rng)
{
	struct splice *s = ctx->state;
	unsigned int from = s->owner[rp_check_below(rng, NBLOCKS)];
	unsigned int to = (from + 1 + rp_check_below(rng, NLISTS - 1)) % NLISTS;

	rp_write_seqcount_begin(&s->seq);
	rp_hlist_tail_splice_pub(&s->heads[from], &s->heads[to]);
	for (unsigned int b = 0; b < NBLOCKS; b++)
		if (s->owner[b] == from)
			CMM_STORE_SHARED(s->owner[b], to);
	rp_write_seqcount_end(&s->seq);
}

static void splice_read(struct rp_check_reader *r)
{
	struct splice *s = r->ctx->state;
	unsigned int list = rp_check_below(&r->rng, NLISTS), owner[NBLOCKS], steps = 0;
	struct cds_hlist_node *pos;
	unsigned long seq;

	/* Snapshot owners and the first node together: retry pairs with splice_update. */
	do {
		seq = rp_read_seqcount_begin(&s->seq);
		for (unsigned int b = 0; b < NBLOCKS; b++)
			owner[b] = CMM_LOAD_SHARED(s->owner[b]);
		pos = rcu_dereference(s->heads[list].head.next);
	} while (rp_read_seqcount_retry(&s->seq, seq));

	rp_check_seen_reset(r, NBLOCKS * BLOCK_SIZE);
	for (; pos; pos = rcu_dereference(pos->next)) {
		struct rp_check_node *n = caa_container_of(pos, struct rp_check_node, h);

		if (!rp_check_node_visit(r, n))
			return;
		if (++steps > CHECK_MAX_STEPS(NBLOCKS * BLOCK_SIZE) || r->seen[n->id]++) {
			rp_check_violation(r->ctx, "splice: node %u seen twice or walk loops", n->id);
			return;
		}
	}
	for (unsigned int id = 0; id < NBLOCKS * BLOCK_SIZE; id++)
		if (owner[id / BLOCK_SIZE] == list && r->seen[id] != 1)
			rp_check_violation(r->ctx, "splice: node %u of list %u missed", id, list);
}

static void splice_teardown(struct rp_check_ctx *ctx)
{
	struct splice *s = ctx->state;

	if (!s)
		return;
	for (unsigned int l = 0; l < NLISTS; l++)
		free_hlist(&s->heads[l].head);
	free(s);
}

const struct rp_check_scenario rp_check_hlist_splice = {
	.name = "hlist-splice",
	.pattern = "Group 4: move a whole hlist as one block (children to the reaper)",
	.uses_sync = true,
	.setup = splice_setup,
	.read = splice_read,
	.update = splice_update,
	.teardown = splice_teardown,
};
