/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * seqcount self-check: the updater rewrites NWORDS words that always satisfy
 * word[k] == word[0] + k; lock-free readers copy them under the sequence count
 * and must never keep a torn copy.  Readers take no lock in any mode.
 */
#include <errno.h>
#include <stdlib.h>
#include "../debug/seqcount_twin.h"
#include "check.h"

#define NWORDS 8

struct seqstate {
	struct rp_seqcount seq;		/* W: updater */
	unsigned long word[NWORDS];	/* R: readers (seqcount); W: updater */
	unsigned long next;		/* W: updater */
};

static int seq_setup(struct rp_check_ctx *ctx)
{
	struct seqstate *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (unsigned int k = 0; k < NWORDS; k++)
		s->word[k] = k;
	ctx->state = s;
	return 0;
}

static void seq_update(struct rp_check_ctx *ctx, uint64_t *rng)
{
	struct seqstate *s = ctx->state;

	(void)rng;
	s->next++;
	rp_write_seqcount_begin(&s->seq);
	for (unsigned int k = 0; k < NWORDS; k++)
		CMM_STORE_SHARED(s->word[k], s->next + k);
	rp_write_seqcount_end(&s->seq);
}

static void seq_read(struct rp_check_reader *r)
{
	struct seqstate *s = r->ctx->state;
	unsigned long copy[NWORDS], seq;

	/* Retry while a change overlapped: pairs with seq_update's count. */
	do {
		seq = rp_read_seqcount_begin(&s->seq);
		for (unsigned int k = 0; k < NWORDS; k++)
			copy[k] = CMM_LOAD_SHARED(s->word[k]);
	} while (rp_read_seqcount_retry(&s->seq, seq) && ++r->restarts);

	for (unsigned int k = 1; k < NWORDS; k++)
		if (copy[k] != copy[0] + k) {
			rp_check_violation(r->ctx, "seqcount: torn copy, word %u is %lu "
					"with word 0 at %lu", k, copy[k], copy[0]);
			return;
		}
}

static void seq_teardown(struct rp_check_ctx *ctx)
{
	free(ctx->state);
}

const struct rp_check_scenario rp_check_seqcount = {
	.name = "seqcount",
	.pattern = "Global Version Number / Retry Readers (seqcount)",
	.uses_sync = false,
	.setup = seq_setup,
	.read = seq_read,
	.update = seq_update,
	.teardown = seq_teardown,
};
