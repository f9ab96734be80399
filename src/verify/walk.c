/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The consistency walk of the whole table, run while no operation does.
 *
 * The public API answers questions about one task at a time, so the walk
 * reads the table's objects directly, from the verification floor above
 * the object model, as the kernel's own consistency checks read
 * task_struct.  It records what it finds in a struct rp_verify_report.
 */
#include <stdlib.h>
#include "../task/jobc.h"
#include "../task/task.h"
#include "verify.h"

static void walk_error(struct rp_verify_report *r, struct rp_task *t, const char *what)
{
	rp_verify_record(r, "task %d (process %d): %s", t->pid ? t->pid->nr : -1,
			 rp_task_tgid(t), what);
}

/* A thread of @leader's group: found by its number, in the group, linked back. */
static void walk_thread(struct rp_system *sys, struct rp_task *leader, struct rp_task *t,
			struct rp_verify_report *r)
{
	if (t->signal != leader->signal)
		walk_error(r, t, "on a thread list of another group");
	if (t->group_leader != leader)
		walk_error(r, t, "its group_leader is not the leader of its thread list");
	if (!t->exit_state && (!t->pid || rp_find_task_rcu(sys, t->pid->nr) != t))
		walk_error(r, t, "not found by its tid");
	if (!t->exit_state && t->real_parent != leader->real_parent)
		walk_error(r, t, "a thread whose real_parent is not its leader's");
}

static void walk_children(struct rp_task *p, struct rp_verify_report *r)
{
	struct cds_hlist_node *last = (struct cds_hlist_node *)&p->children.head;
	struct rp_task *c;

	cds_hlist_for_each_entry_2(c, &p->children.head, sibling) {
		if (c->real_parent != p)
			walk_error(r, c, "on the children list of a task that is not its real_parent");
		if (!rp_thread_group_leader(c))
			walk_error(r, c, "a non-leader on a children list");
		last = &c->sibling;
	}
	if (p->children.last != last)
		walk_error(r, p, "its children list's last pointer is not its last child");
}

/* Is @t on its real parent's children list? */
static bool on_parents_list(struct rp_task *t)
{
	struct rp_task *c;

	cds_hlist_for_each_entry_2(c, &t->real_parent->children.head, sibling)
		if (c == t)
			return true;
	return false;
}

/* Is @sig's group on its session's list of groups (docs/process.md, protocol (i))? */
static bool group_in_session(const struct rp_signal *sig)
{
	struct rp_process *g = rp_id_block(sig->pgrp);
	struct cds_hlist_node *node;

	for (node = sig->session->groups.next; node; node = node->next)
		if (node == &g->in_session)
			return true;
	return false;
}

static void walk_group(struct rp_system *sys, struct rp_task *leader, struct rp_verify_report *r)
{
	struct rp_signal *sig = leader->signal;
	unsigned int threads = 0;
	struct rp_task *t;

	if (!rp_process_of(sig)->pid.in_process || !sig->pgrp || !sig->session)
		walk_error(r, leader, "a group without its tgid, pgrp or session");
	else if (!rp_pid_find_rcu(sys, sig->pgrp->nr) || !rp_pid_find_rcu(sys, sig->session->nr))
		walk_error(r, leader, "its process group or session number is not allocated");
	else if (!group_in_session(sig))
		walk_error(r, leader, "its process group is not on its session's list of groups");
	cds_list_for_each_entry(t, &sig->thread_head, thread_node) {
		walk_thread(sys, leader, t, r);
		walk_children(t, r);
		threads++;
	}
	if (threads != sig->nr_threads)
		walk_error(r, leader, "nr_threads disagrees with the thread list");
	/* Init's leader is its own parent, on no list (walk_init_reaper checks the reaper). */
	if (leader->real_parent != leader && !on_parents_list(leader))
		walk_error(r, leader, "missing from its real_parent's children list");
}

/*
 * I6: how many threads of @t's group use another signal-handler table than
 * its leader (0 if @t is gone).  A worker calls it while it drives no
 * other task, for a group in the middle of an operation (an exec).
 */
unsigned int rp_verify_walk_group_sighands(struct rp_task *t)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_task *leader, *o;
	unsigned int n = 0;

	rp_update_lock(sync);
	rp_read_lock(sync);
	if (t->sighand) {
		leader = t->group_leader;
		cds_list_for_each_entry(o, &t->signal->thread_head, thread_node)
			n += o->sighand != leader->sighand;
	}
	rp_read_unlock(sync);
	rp_update_unlock(sync);
	return n;
}

/*
 * I3: after an exec by a thread of init, sys->child_reaper must be @init,
 * the leader that exec made, alive; and @orphan (if not NULL), whose
 * parent has exited, must have gone to it.  The fields read are written
 * under the update lock.
 */
enum rp_verify_reaper rp_verify_walk_init_reaper(struct rp_task *init, struct rp_task *orphan)
{
	struct rp_sync *sync = &init->sys->sync;
	enum rp_verify_reaper f = RP_VERIFY_REAPER_OK;
	struct rp_task *reaper;

	rp_update_lock(sync);
	reaper = init->sys->child_reaper;
	if (!reaper->sighand || rp_task_exited(reaper))
		f = RP_VERIFY_REAPER_RELEASED;
	else if (reaper != init || !rp_thread_group_leader(reaper))
		f = RP_VERIFY_REAPER_NOT_LEADER;
	else if (orphan && orphan->real_parent != reaper)
		f = RP_VERIFY_REAPER_ORPHAN_ELSEWHERE;
	rp_update_unlock(sync);
	return f;
}

/* A process group met by the tie walk, and the ties it counted for it. */
struct group_ties {
	struct rp_pid *pgrp;
	unsigned int ties;
};

/* @pgrp's row of the open-addressed table @rows of @n rows (n > groups). */
static struct group_ties *group_row(struct group_ties *rows, size_t n, struct rp_pid *pgrp)
{
	size_t i = ((uintptr_t)pgrp >> 6) % n;

	while (rows[i].pgrp && rows[i].pgrp != pgrp)
		i = (i + 1) % n;
	rows[i].pgrp = pgrp;
	return &rows[i];
}

/*
 * Every group's count of ties (jobc.h) against the ties walked from the
 * fields: each process's pair with its real parent, as
 * will_become_orphaned_pgrp looks at it.
 */
static void walk_jobc(struct rp_system *sys, struct rp_verify_report *r)
{
	struct group_ties *rows;
	struct rp_task *leader;
	size_t n = 1;

	cds_list_for_each_entry(leader, &sys->tasks, tasks)
		n += 2;
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		rp_verify_record(r, "no memory to count the groups' ties");
		return;
	}
	cds_list_for_each_entry(leader, &sys->tasks, tasks) {
		struct rp_signal *sig = leader->signal;
		struct rp_pid *tied;

		group_row(rows, n, sig->pgrp);
		tied = rp_tie_group(sig, sig->pgrp, sig->session, leader->real_parent, NULL, NULL);
		if (tied)
			group_row(rows, n, tied)->ties++;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned int jobc;

		if (!rows[i].pgrp)
			continue;
		jobc = uatomic_read(rp_pgrp_jobc(rows[i].pgrp));
		if (jobc != rows[i].ties)
			rp_verify_record(r, "process group %d: jobc %u, but %u ties", rows[i].pgrp->nr,
					 jobc, rows[i].ties);
	}
	free(rows);
}

/* One nested namespace met by walk_pidns_counts, and its numbers counted. */
struct ns_count {
	const struct rp_pidns *ns;
	unsigned int numbers;
};

struct ns_counts {
	struct ns_count *rows;
	size_t n;
};

/* The row of nested namespace @ns, added with no numbers if new; NULL: no memory. */
static struct ns_count *ns_row(struct ns_counts *c, const struct rp_pidns *ns)
{
	struct ns_count *more;

	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].ns == ns)
			return &c->rows[i];
	more = realloc(c->rows, (c->n + 1) * sizeof(*more));
	if (!more)
		return NULL;
	c->rows = more;
	c->rows[c->n] = (struct ns_count){ ns, 0 };
	return &c->rows[c->n++];
}

/*
 * Each nested namespace's count of pids (nr_pids, which an init's end
 * waits on) against the numbers it has in the nested tables' by-number
 * hash: a pid is counted in a namespace exactly while it has a number
 * there (pidns.c, publish and unpublish).  The namespaces compared are
 * those with numbers and those of every process and their ancestors, so
 * that a count left above 0 with no number (a lost decrement, which
 * would keep an init's end waiting) is met too.  A count that lost an
 * add lets an init's end finish while a process of its namespace lives.
 */
static void walk_pidns_counts(struct rp_system *sys, struct rp_verify_report *r)
{
	struct rp_pidns_tables *tb = sys->pidns_tables;
	struct ns_counts c = { NULL, 0 };
	struct rp_task *leader;
	bool nomem = false;

	if (!tb)
		return;
	for (size_t b = 0; b < RP_NSPID_HASH_SIZE && !nomem; b++) {
		struct rp_upid *up;

		cds_hlist_for_each_entry_rcu_2(up, &tb->by_nr[b], hash) {
			struct ns_count *row = ns_row(&c, up->ns);

			if (!row) {
				nomem = true;
				break;
			}
			row->numbers++;
		}
	}
	cds_list_for_each_entry(leader, &sys->tasks, tasks)
		for (const struct rp_pidns *ns = rp_task_pidns(leader); ns->level && !nomem;
		     ns = ns->parent)
			nomem = !ns_row(&c, ns);
	if (nomem)
		rp_verify_record(r, "no memory to count the namespaces' pids");
	for (size_t i = 0; i < c.n && !nomem; i++)
		if (c.rows[i].ns->nr_pids != c.rows[i].numbers)
			rp_verify_record(r, "pid namespace at level %u: nr_pids %u, but %u numbers",
					 c.rows[i].ns->level, c.rows[i].ns->nr_pids, c.rows[i].numbers);
	free(c.rows);
}

unsigned long rp_verify_walk_table(struct rp_system *sys, struct rp_verify_report *r)
{
	unsigned long before = r->violations;
	struct rp_task *leader;

	rp_update_lock(&sys->sync);
	rp_read_lock(&sys->sync);
	cds_list_for_each_entry(leader, &sys->tasks, tasks) {
		if (!rp_thread_group_leader(leader))
			walk_error(r, leader, "a non-leader on the process list");
		walk_group(sys, leader, r);
	}
	walk_jobc(sys, r);
	walk_pidns_counts(sys, r);
	rp_read_unlock(&sys->sync);
	rp_update_unlock(&sys->sync);
	return r->violations - before;
}
