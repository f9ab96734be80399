/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/pgrp.h: process groups, sessions, group signals and priorities.
 *
 * Conventions as rcuproc/proc.h: the calling task first, the syscall's
 * arguments next, the syscall's result or -errno back.
 */
#ifndef RCUPROC_PGRP_H
#define RCUPROC_PGRP_H

#include <rcuproc/proc.h>
#include <rcuproc/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/* setpgid(2), getpgid(2), getpgrp(2), setsid(2), getsid(2). */
RP_API int rp_setpgid(struct rp_task *self, pid_t pid, pid_t pgid);
RP_API pid_t rp_getpgid(struct rp_task *self, pid_t pid);
RP_API pid_t rp_getpgrp(struct rp_task *self);
RP_API pid_t rp_setsid(struct rp_task *self);
RP_API pid_t rp_getsid(struct rp_task *self, pid_t pid);

/* killpg(3): kill(-@pgrp, @sig); -EINVAL for a negative @pgrp. */
RP_API int rp_killpg(struct rp_task *self, pid_t pgrp, int sig);

/*
 * The secure-attention-key path (the kernel's __do_SAK): @sig to every
 * process of session @sid, sent by the kernel (SI_KERNEL, no permission
 * check).  0, or -ESRCH if the session has no process.
 */
RP_API int rp_kill_session(struct rp_task *self, pid_t sid, int sig);

/*
 * setpriority(2) and getpriority(2) with PRIO_PROCESS, PRIO_PGRP and
 * PRIO_USER.  As the system call (not glibc's wrapper), rp_getpriority
 * returns 20 - nice, 1..40, so that no value collides with -errno.
 */
RP_API int rp_setpriority(struct rp_task *self, int which, id_t who, int niceval);
RP_API int rp_getpriority(struct rp_task *self, int which, id_t who);

/* ioprio_set(2) and ioprio_get(2): IOPRIO_WHO_PROCESS, _PGRP and _USER. */
#define RP_IOPRIO_WHO_PROCESS	1
#define RP_IOPRIO_WHO_PGRP	2
#define RP_IOPRIO_WHO_USER	3
#define RP_IOPRIO_CLASS_SHIFT	13
#define RP_IOPRIO_CLASS_NONE	0
#define RP_IOPRIO_CLASS_RT	1
#define RP_IOPRIO_CLASS_BE	2
#define RP_IOPRIO_CLASS_IDLE	3
#define RP_IOPRIO_PRIO_VALUE(class, data) (((class) << RP_IOPRIO_CLASS_SHIFT) | (data))
RP_API int rp_ioprio_set(struct rp_task *self, int which, int who, int ioprio);
RP_API int rp_ioprio_get(struct rp_task *self, int which, int who);

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_PGRP_H */
