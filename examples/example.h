/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every example does around its own steps: register the thread,
 * create a system in rcu mode and take init; then tear it all down.  Each
 * example prints "NAME: what it showed" and exits 0, or says what answer
 * was not Linux's and exits 1.
 */
#ifndef RCUPROC_EXAMPLE_H
#define RCUPROC_EXAMPLE_H

#include <stdio.h>
#include <string.h>
#include <rcuproc/rcuproc.h>

/* Say what went wrong: 1, for main's exit status. */
static inline int example_fail(const char *example, const char *what, long got)
{
	fprintf(stderr, "%s: %s (got %ld)\n", example, what, got);
	return 1;
}

/* A system in rcu mode and a reference to its init, or NULL. */
static inline struct rp_task *example_start(struct rp_system **sys)
{
	struct rp_system_opts opts;
	int err;

	memset(&opts, 0, sizeof(opts));
	opts.mode = RP_SYNC_RCU;
	opts.size = sizeof(opts);	/* so that an older library refuses new options */
	rp_thread_register();
	err = rp_system_create(&opts, sys);
	if (err) {
		example_fail("example", "rp_system_create", err);
		rp_thread_unregister();
		return NULL;
	}
	return rp_system_init(*sys);
}

static inline void example_stop(struct rp_system *sys, struct rp_task *init)
{
	rp_task_put(init);
	rp_system_destroy(sys);
	rp_thread_unregister();
}

#endif /* RCUPROC_EXAMPLE_H */
