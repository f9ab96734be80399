/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test's world: one system with init, set up and torn down per test, and
 * the small calls most process tests make.  Include it in one test file.
 */
#ifndef RP_TESTS_CORE_WORLD_H
#define RP_TESTS_CORE_WORLD_H

#include <signal.h>
#include "expect.h"

static struct rp_system *sys __attribute__((unused));
static struct rp_task *init __attribute__((unused));

static inline void start(enum rp_sync_mode mode)
{
	rp_thread_register();
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .mode = mode }, &sys), 0);
	init = rp_system_init(sys);
}

/* Reap every child of init, then I7: only init's objects are left. */
static inline void finish(void)
{
	int status;

	while (rp_wait4(init, -1, &status, __WALL, NULL) > 0)
		;
	rp_task_put(init);
	expect_only_init_left(sys);
	rp_system_destroy(sys);
	rp_thread_unregister();
}

static inline struct rp_task *spawn(struct rp_task *parent, unsigned long flags)
{
	struct rp_task *child;

	cr_assert_gt(rp_clone(parent, flags, &child), 0);
	return child;
}

/* A handler "in user space": never called, its address says "handled". */
static inline void user_handler(int sig)
{
	(void)sig;
}

static inline void set_action(struct rp_task *t, int sig, void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	cr_assert_eq(rp_sigaction(t, sig, &sa, NULL), 0);
}

/* sigprocmask(@how) of the one signal @sig. */
static inline void mask_signal(struct rp_task *t, int how, int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	cr_assert_eq(rp_sigprocmask(t, how, &set, NULL), 0);
}

#endif /* RP_TESTS_CORE_WORLD_H */
