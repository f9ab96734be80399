/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the process-group tests share: a system, processes, handlers, draining. */
#ifndef RP_TESTS_PGRP_HELPERS_H
#define RP_TESTS_PGRP_HELPERS_H

#include <errno.h>
#include <criterion/criterion.h>
#include "../common.h"
#include "../core/expect.h"
#include "task/task.h"
#include "pgrp/pgrp.h"
#include <rcuproc/rcuproc.h>	/* after task.h: src/debug/list_twins.h */


struct pgrp_env {
	struct rp_system *sys;
	struct rp_task *init;
};

static inline void env_start(struct pgrp_env *e, enum rp_sync_mode mode)
{
	rp_thread_register();
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .mode = mode }, &e->sys), 0);
	e->init = rp_system_init(e->sys);
}

/* Tear down; every object goes, reaped or not. */
static inline void env_stop(struct pgrp_env *e)
{
	rp_task_put(e->init);
	rp_system_destroy(e->sys);
	rp_thread_unregister();
}

/* I7 with proxies: only init's objects, and init's two proxies. */
static inline void expect_only_init(struct rp_system *sys)
{
	struct rp_system_counts c;

	expect_only_init_left(sys);
	rp_system_counts(sys, &c);
	cr_assert_eq(c.proxies, 2, "proxies %lu", c.proxies);
}

static inline struct rp_task *child_of(struct rp_task *parent)
{
	struct rp_task *c = NULL;

	cr_assert_gt(rp_fork(parent, &c), 1);
	return c;
}

static inline struct rp_task *thread_of(struct rp_task *t)
{
	struct rp_task *c = NULL;

	cr_assert_gt(rp_clone(t, THREAD_FLAGS, &c), 1);
	return c;
}

/* A handler "in user space": never called, its address says "handled". */
static inline void user_handler(int sig)
{
	(void)sig;
}

static inline void handle(struct rp_task *t, int sig)
{
	struct sigaction sa = { .sa_handler = user_handler };

	cr_assert_eq(rp_sigaction(t, sig, &sa, NULL), 0);
}

/* End @p (exit_group as itself) and reap it as @parent. */
static inline void end_child(struct rp_task *parent, struct rp_task *p)
{
	pid_t pid = rp_getpid(p);

	cr_assert_eq(rp_exit_group(p, 0), 0);
	cr_assert_eq(rp_wait4(parent, pid, NULL, 0, NULL), pid);
	rp_task_put(p);
}

#endif /* RP_TESTS_PGRP_HELPERS_H */
