/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The workloads, and the operations the mixes share. */
#ifndef RP_TOOLS_WORKLOADS_H
#define RP_TOOLS_WORKLOADS_H

#include "bench.h"

/* Setup that forks SIZE processes from init. */
int bench_setup_table(struct bench_run *r);

/* Operations counted as @kind. */
void bench_op_kill0(struct bench_thread *t, unsigned int kind);
void bench_op_kill_all(struct bench_thread *t, unsigned int kind);
void bench_op_ps(struct bench_thread *t, unsigned int kind);

extern const struct bench_workload bench_kill0, bench_kill0_hot, bench_getppid, bench_kill_all,
	bench_ps, bench_wait_scan, bench_fork_exit, bench_lookups_under_storm,
	bench_fork_vs_kill_all, bench_fork_vs_ps, bench_kill0_under_ps;

/* workloads_pgrp.c */
extern const struct bench_workload bench_getpgid, bench_killpg, bench_kill_session,
	bench_setpriority, bench_setpgid, bench_timer_gettime;

#endif /* RP_TOOLS_WORKLOADS_H */
