/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The performance contract (docs/performance.md), measured: each ratio against its goal. */
#ifndef RP_TOOLS_TARGETS_H
#define RP_TOOLS_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include "bench.h"

struct target_env {
	double seconds;			/* of each measurement */
	unsigned int rounds;		/* of each comparison: the best counts */
	bool quick;			/* small tables: checks that it runs */
	bool progress;
};

/* A table size: @full normally, @quick with --quick. */
static inline unsigned long target_size(const struct target_env *env,
					unsigned long full, unsigned long quick)
{
	return env->quick ? quick : full;
}

/*
 * A row's figure in each round's pair (round k of one side against round k
 * of the other): how far it moves from round to round.  No rounds (NaN) if
 * the row could not be measured.
 */
struct target_spread {
	unsigned int rounds;
	double median, min, max;
};

struct target {
	const char *what;
	double goal;
	double goal_qsbr;		/* 0: the same with the QSBR flavour */
	bool at_most;			/* met when measured <= goal (else >=) */
	/* The measured ratio (its best rounds'), or a negative errno; @note says what
	 * was compared, *@spread the ratio round by round. */
	double (*measure)(const struct target_env *env, const void *arg, char *note, size_t len,
			  struct target_spread *spread);
	const void *arg;		/* the row's own, for measure */
};

/* Measure every target and print the table; 0, or 1 if one could not run. */
int bench_targets(const struct target_env *env);

#endif /* RP_TOOLS_TARGETS_H */
