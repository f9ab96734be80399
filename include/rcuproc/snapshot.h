/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/snapshot.h: a ps(1)-style listing of every process.
 *
 * The walk runs under the table's read side alone (RCU in rcu mode), as a
 * read of /proc does: each row is one process as it was at some moment of
 * the walk; processes forked or reaped meanwhile may or may not appear.
 */
#ifndef RCUPROC_SNAPSHOT_H
#define RCUPROC_SNAPSHOT_H

#include <stddef.h>
#include <rcuproc/proc.h>
#include <rcuproc/export.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RP_PS_COMM_LEN	16

/* One process, in the columns of `ps -eo pid,ppid,pgid,sid,stat,ni,comm`. */
struct rp_ps_entry {
	pid_t pid;			/* the thread group id */
	pid_t ppid;			/* the real parent's, 0 for init */
	pid_t pgid;
	pid_t sid;
	char state;			/* R, S, T (stopped), t (traced), Z (zombie) */
	int nice;
	unsigned int nr_threads;
	char comm[RP_PS_COMM_LEN];
};

/*
 * List the processes of @self's system into @out (at most @max rows), in the
 * order of the process list: those @self's pid namespace numbers, by those
 * numbers (a parent, group or session outside it reads 0), as /proc shows
 * them in a namespace.  Returns how many processes the walk saw (more
 * than @max means the listing was cut short), or -ESRCH if @self has exited.
 * @out may be NULL when @max is 0: a count.
 */
RP_API long rp_ps_snapshot(struct rp_task *self, struct rp_ps_entry *out, size_t max);

/*
 * /proc/PID/status's NSpid: the numbers of the task @pid (as @self numbers
 * it) in @self's pid namespace and in each below it down to the task's own,
 * into @out (at most @max, @self's namespace's number first).  Returns how
 * many levels that is, or -ESRCH (no such task in @self's namespace, or
 * @self has exited).
 */
RP_API int rp_proc_nspid(struct rp_task *self, pid_t pid, pid_t *out, size_t max);

/*
 * /proc/PID/stat's state of the task @pid (as @self numbers it), a thread
 * too, as /proc/TID/stat is its own: S, T (stopped), t (traced) or Z, as
 * struct rp_ps_entry's state.  Returns the letter, or -ESRCH (no such task
 * in @self's namespace, or @self has exited).
 */
RP_API int rp_proc_state(struct rp_task *self, pid_t pid);

/* ps's STAT column: the state, then s (session leader), < or N (nice),
 * l (multi-threaded), written to @buf (at least 6 bytes). */
RP_API void rp_ps_stat(const struct rp_ps_entry *e, char *buf);

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_SNAPSHOT_H */
