/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Assertions shared by the process-table tests. */
#ifndef RP_TESTS_CORE_EXPECT_H
#define RP_TESTS_CORE_EXPECT_H

#include <criterion/criterion.h>
#include <rcuproc/proc.h>
#include "../common.h"

/*
 * I7: once every deferred free has run (rp_deferred_barrier drains frees
 * that queue further frees), only init's objects are left.
 */
static inline void expect_only_init_left(struct rp_system *sys)
{
	struct rp_system_counts c;

	rp_deferred_barrier();
	rp_system_counts(sys, &c);
	cr_assert_eq(c.tasks, 1, "tasks %lu", c.tasks);
	cr_assert_eq(c.signals, 1, "signals %lu", c.signals);
	cr_assert_eq(c.sighands, 1, "sighands %lu", c.sighands);
	cr_assert_eq(c.creds, 1, "creds %lu", c.creds);
	cr_assert_eq(c.pids, 1, "pids %lu", c.pids);
	cr_assert_eq(c.sigqueues, 0, "sigqueues %lu", c.sigqueues);
}

#endif /* RP_TESTS_CORE_EXPECT_H */
