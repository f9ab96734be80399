/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exit, reparenting and release: the calls other subsystems make. */
#ifndef RP_PROC_EXIT_H
#define RP_PROC_EXIT_H

#include "../task/task.h"

/*
 * End thread @t with wait status @code (as the kernel's do_exit: an exit
 * status shifted left by 8, or a signal number, | 0x80 for a core dump).
 * @t becomes a zombie or is released at once.  Called as @t, with no lock held.
 */
void rp_do_exit(struct rp_task *t, int code);

/* Kill the whole thread group of @t with @code (exit_group, fatal signals). */
void rp_do_group_exit(struct rp_task *t, int code);

/* Unlink dead @t from every list, drop its tid and sighand (update lock held). */
void rp_release_task(struct rp_task *t);

/*
 * May the release of zombie or dead @p run under the update gate shared
 * (rp_release_task's plain case), with G of its group and T of its real
 * parent held?  Asked under that T, the gate shared.
 */
bool rp_release_may_be_shared(const struct rp_task *p);

#endif /* RP_PROC_EXIT_H */
