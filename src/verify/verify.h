/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The verification folder's result type, and the table-consistency walk.
 *
 * A check records each violation it finds in a struct rp_verify_report:
 * the report counts them all and keeps the text of the first few.  The list
 * self-checks (selfcheck.h) and the walk (walk.c) both report this way; the
 * torture harness and the tests read the report.
 */
#ifndef RP_VERIFY_VERIFY_H
#define RP_VERIFY_VERIFY_H

#include <stdarg.h>

#define RP_VERIFY_KEPT		4	/* messages kept: the first ones */
#define RP_VERIFY_MSG_LEN	256

struct rp_verify_report {
	unsigned long violations;	/* every violation recorded */
	char first[RP_VERIFY_KEPT][RP_VERIFY_MSG_LEN];	/* the first ones' text */
};

/* Count one violation; keep its text if it is among the first few. */
void rp_verify_record(struct rp_verify_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rp_verify_vrecord(struct rp_verify_report *r, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

struct rp_task;
struct rp_system;

/* How sys->child_reaper looks after an exec by a thread of init. */
enum rp_verify_reaper {
	RP_VERIFY_REAPER_OK,
	RP_VERIFY_REAPER_RELEASED,	/* it names a released or exiting task */
	RP_VERIFY_REAPER_NOT_LEADER,	/* a live thread, but not init's leader */
	RP_VERIFY_REAPER_ORPHAN_ELSEWHERE, /* an orphan's parent is another task */
	RP_VERIFY_REAPER_NR
};

/*
 * walk.c: the consistency walk of the whole table, run while no operation
 * does; records into @r and returns the violations it found.
 */
unsigned long rp_verify_walk_table(struct rp_system *sys, struct rp_verify_report *r);
unsigned int rp_verify_walk_group_sighands(struct rp_task *t);
enum rp_verify_reaper rp_verify_walk_init_reaper(struct rp_task *init, struct rp_task *orphan);

#endif /* RP_VERIFY_VERIFY_H */
