/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/tty.h: a controlling terminal, enough for job control.
 *
 * A terminal is an object of a system.  A session leader acquires it with
 * TIOCSCTTY; its foreground process group is set with TIOCSPGRP.  The
 * "keyboard" turns ^C, ^\ and ^Z into SIGINT, SIGQUIT and SIGTSTP for the
 * foreground group; reads and writes from a background group get SIGTTIN
 * and SIGTTOU where Linux sends them.
 */
#ifndef RCUPROC_TTY_H
#define RCUPROC_TTY_H

#include <sys/ioctl.h>
#include <rcuproc/proc.h>
#include <rcuproc/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rp_tty;

/* The kernel's ERESTARTSYS: a background read or write was signalled. */
#define RP_ERESTARTSYS	512

/* 0 and *@out, or -ENOMEM. */
RP_API int rp_tty_create(struct rp_system *sys, struct rp_tty **out);
/* Before rp_system_destroy; no task may be using it. */
RP_API void rp_tty_destroy(struct rp_tty *tty);

/*
 * ioctl(2) on the terminal: TIOCSCTTY (@arg: the int "steal" flag itself,
 * as ioctl(2) passes it: (void *)(intptr_t)1 steals with CAP_SYS_ADMIN),
 * TIOCNOTTY, TIOCSPGRP and TIOCGPGRP (@arg: pid_t *), TIOCGSID (@arg:
 * pid_t *).  0 or -errno as Linux (ENOTTY, EPERM, EINVAL, ESRCH, ...).
 */
RP_API int rp_tty_ioctl(struct rp_task *self, struct rp_tty *tty, unsigned long request, void *arg);

/* Type character @c: ^C (0x03), ^\ (0x1c) and ^Z (0x1a) signal the
 * foreground group; other characters are input.  0, or -EINVAL. */
RP_API int rp_tty_keyboard(struct rp_tty *tty, int c);

/* Set the TOSTOP mode (background writes get SIGTTOU). */
RP_API void rp_tty_set_tostop(struct rp_tty *tty, int on);

/*
 * read(2) and write(2) of @len bytes by @self: @len, or -RP_ERESTARTSYS
 * after SIGTTIN/SIGTTOU was sent to a background group, or -EIO (an
 * orphaned background group, or one ignoring or blocking the signal, as
 * Linux), or -EAGAIN for a read with no input.
 */
RP_API long rp_tty_read(struct rp_task *self, struct rp_tty *tty, long len);
RP_API long rp_tty_write(struct rp_task *self, struct rp_tty *tty, long len);

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_TTY_H */
