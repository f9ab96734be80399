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
/* fork+exit+wait of a child of the thread's process: kinds 0 (the fork) and 1 (the cycle). */
void bench_op_fork_exit(struct bench_thread *t);

extern const struct bench_workload bench_kill0, bench_kill0_hot, bench_getppid, bench_kill_all,
	bench_ps, bench_wait_scan, bench_fork_exit, bench_lookups_under_storm,
	bench_fork_vs_kill_all, bench_fork_vs_ps, bench_kill0_under_ps, bench_thread_own;

/* workloads_pgrp.c */
extern const struct bench_workload bench_getpgid, bench_killpg, bench_kill_session,
	bench_setpriority, bench_setpgid, bench_timer_gettime, bench_fork_own, bench_fork_ownsess, bench_fork_onepg,
	bench_setpgid_own, bench_setpgid_onepg, bench_setpgid_threads, bench_exec_own;

/*
 * The update-side scaling workloads (docs/performance.md, "Update-side
 * scaling") drive a subtree per thread: each thread's process leads a
 * group of its own (_own: bench_own_group, its thread_setup's first step),
 * or every thread's process joins the one group that
 * bench_setup_one_group makes (_onepg: bench_join_one_group).  0 or -errno.
 */
int bench_own_group(struct bench_thread *t);
int bench_setup_one_group(struct bench_run *r);
int bench_join_one_group(struct bench_thread *t);

/* workloads_ns.c */
extern const struct bench_workload bench_kill0_ns;
extern const struct bench_workload bench_fork_ns, bench_fork_ns_tree;

/* workloads_ptrace.c */
extern const struct bench_workload bench_ptrace_own, bench_ptrace_onepg, bench_ptrace_requests,
	bench_ptrace_eventmsg, bench_ptrace_threads;

/* workloads_stop.c */
extern const struct bench_workload bench_stop_own;
extern const struct bench_workload bench_thread_exec;

#endif /* RP_TOOLS_WORKLOADS_H */
