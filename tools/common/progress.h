/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A one-line progress bar on stderr, drawn only when stderr is a terminal. */
#ifndef RP_TOOLS_COMMON_PROGRESS_H
#define RP_TOOLS_COMMON_PROGRESS_H

#include <stdbool.h>

/* Is stderr a terminal (and so worth drawing on)? */
bool progress_wanted(void);

/*
 * Draw "@label [#####.....] NN%" for @done in [0, 1], fitted to the
 * terminal's width.  While a bar is up, SIGINT, SIGTERM and SIGHUP (unless
 * the command handles them) erase it before the command dies of them.
 */
void progress_draw(const char *label, double done);

/* Erase the bar. */
void progress_clear(void);

#endif /* RP_TOOLS_COMMON_PROGRESS_H */
