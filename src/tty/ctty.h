/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The controlling terminal: the call the exit path makes. */
#ifndef RP_TTY_CTTY_H
#define RP_TTY_CTTY_H

#include "../task/task.h"

/*
 * The last thread of @t's process exits (update lock held): if the process
 * leads a session with a terminal, the foreground group gets SIGHUP and
 * every process of the session loses the terminal (Linux's
 * disassociate_ctty(1)).
 */
void rp_tty_session_exit(struct rp_task *t);

#endif /* RP_TTY_CTTY_H */
