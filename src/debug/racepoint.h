/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Race points: named places inside a multi-step update or scan where a test
 * may hold the calling thread, so that another thread acts inside that
 * window on purpose instead of by chance.  RP_TORTURE_DELAY widens windows
 * at random; a race point lets a test put a step in one every time, so that
 * a test of a race fails on every run of the broken code, not usually.
 *
 * Debug builds (RP_DEBUG) only; elsewhere RP_RACE_POINT is nothing.  One
 * hook for the whole process, set while no operation runs.  The hook runs
 * on the thread that reached the point, with whatever that thread holds
 * (each point below says what), so it must not call back into the table
 * in a way that needs those locks.
 */
#ifndef RP_DEBUG_RACEPOINT_H
#define RP_DEBUG_RACEPOINT_H

#include <stdbool.h>

struct rp_task;

enum rp_race_point {
	/* de_thread is about to sleep for the other threads (no lock held). */
	RP_RACE_EXEC_WAITS,
	/* take_leadership: the new leader is on every list, the old one not
	   yet released (update lock held); @t the new leader. */
	RP_RACE_EXEC_PUBLISHED,
	/* take_leadership: the tgid's pid names the new leader, whose (and
	   every thread's) ->group_leader still names the old one (update
	   lock held); @t the new leader. */
	RP_RACE_EXEC_TGID_MOVED,
	/* reap_zombie: a tracer claimed a zombie it hands back to its real
	   parent, not yet unlinked (update lock held); @t the zombie. */
	RP_RACE_REAP_HANDBACK,
	/* wait's scan stands on child @t, not yet considered (read section). */
	RP_RACE_WAIT_VISIT,
	/* wait found candidate @t, referenced, and is about to claim it (no
	   lock, no read section). */
	RP_RACE_WAIT_CLAIM,
	/* kill(-1) and setpriority(PRIO_USER)'s walk of all processes stands
	   on the node of task @t, not yet locked (read section); an exec may
	   have replaced that node. */
	RP_RACE_PROCESS_WALK_NODE,
	/* kill(pid) found task @t (NULL: none) through the pid it looked up,
	   not yet signalled (read section). */
	RP_RACE_KILL_FOUND,
	/* A sender loaded task @t's ->sighand and has not locked it yet
	   (read section); exec may switch @t to a new table meanwhile. */
	RP_RACE_SIGHAND_LOADED,
	/* A CPU tick of task @t stands on a timer it collected, not yet
	   locked or fired (read section and @t's tick lock held, no siglock). */
	RP_RACE_TIMER_FIRING,
	/* timer_delete or settime found a tick firing the timer of target
	   @t, cancelled it and waits for the tick (no lock held). */
	RP_RACE_TIMER_CANCEL_WAITS,
	/* rp_get_signal took a POSIX timer's signal off task @t's queue and
	   dropped its siglock; the timer is not locked yet, to be re-armed
	   or dropped (no lock held, no read section). */
	RP_RACE_TIMER_DELIVERS,
	/* The release of task @t is about to lock @t's siglock and detach its
	   sighand (update lock held). */
	RP_RACE_RELEASE_DETACHES,
	/* A thread's batch of deferred releases does not fit under the
	   backlog's bound: it is about to wait for a grace period and release
	   the batch itself (no lock held, no read section); @t NULL. */
	RP_RACE_DEFERRED_BOUND,
	/* The list toolkit is between two steps of a multi-step update
	   (RP_LIST_STEP, list_twins.h; the updater's locks held); @t NULL. */
	RP_RACE_LIST_STEP,
	/* fork set up its child, which nobody can see yet, and is about to
	   take the update lock to link it (no lock held, no read section);
	   @t the caller. */
	RP_RACE_FORK_LINKS,
	/* A self-check's reader thread is about to register and take its
	   first step (src/verify/check.c; no lock, not registered); @t NULL. */
	RP_RACE_CHECK_READER_STARTS,
	/* A thread whose hand-over filled the reclaim batch has taken it and
	   is about to wait for its grace period and release it (no lock held,
	   no read section); @t NULL. */
	RP_RACE_DEFERRED_RECLAIM,
	/* Tracee @t is about to take a ptrace trap: a group stop's, an
	   event's, PTRACE_INTERRUPT's (no lock held). */
	RP_RACE_PTRACE_TRAP,
	/* Tracee @t is in a ptrace stop its tracer's wait can see and has
	   told nobody of it yet (no lock held). */
	RP_RACE_PTRACE_NOTIFY,
	/* A tracer found tracee @t not yet in its stop or not yet told of
	   it, after an attach or before a request, and is about to sleep
	   until it is (no lock held). */
	RP_RACE_PTRACE_AWAIT,
	/* The grace-period thread took the reclaim batches handed to it and
	   is about to wait for their grace period (sync.c; no lock held, not
	   a reader); @t NULL. */
	RP_RACE_DEFERRED_GP,
	/* The pid allocator found a number free in the bitmap word it loaded
	   and is about to claim it (task/pidmap.c; no lock held, maybe in a
	   read section); @t NULL. */
	RP_RACE_PID_CLAIM,
	/* The last thread @t of a pid namespace's init is exiting and is
	   about to take the update lock that closes its namespace, kills
	   the namespace's other tasks and reads how many pids its exit
	   waits for (proc/exit.c; no lock held). */
	RP_RACE_NS_INIT_EXITS,
	/* Exiting task @t is about to take the update lock in which it
	   picks a reaper for its children (proc/exit.c; no lock held). */
	RP_RACE_EXIT_REPARENTS,
	/* An attach made task @t's ptrace part and is about to publish it:
	   initialised, unless RP_BREAK_PTRACE_PART_EARLY published it first
	   (proc/ptrace.c; update lock held, or the gate shared and the
	   attach's tree locks). */
	RP_RACE_PTRACE_PART,
	/* The ptrace access check read task @t's credentials and has not
	   read its dumpable flag yet, unless RP_BREAK_DUMPABLE_BEFORE_CREDS
	   read the flag first (proc/ptrace.c; read section, or the update
	   lock held for an attach). */
	RP_RACE_PTRACE_ACCESS,
	/* A plain attach or detach of tracee @t read its real parent under
	   RCU and has not taken its T yet (proc/ptrace.c; rcu mode, the gate
	   shared, read section, no tree lock). */
	RP_RACE_PTRACE_LINK_PARENT,
	/* setpgid or setsid moved process @t (its leader) to its new ids
	   and has counted the ties the move makes, not yet taken away those
	   it breaks (pgrp/setpgid.c; update lock held). */
	RP_RACE_JOBC_MOVED,
	/* liburcu's callback of the carrier (sync.c), a grace period after
	   its call_rcu, is about to take its load; batches queued meanwhile
	   wait for its next call (no lock held, not a reader: liburcu's
	   call_rcu worker thread); @t NULL. */
	RP_RACE_DEFERRED_CARRIER,
	/* Stopped thread @t is about to look whether its stop goes on, on
	   its way to sleep or woken (jobctl.c's sleep_stopped; no lock held,
	   no read section). */
	RP_RACE_STOP_LOOKS,
	/* An insert into a hash chain (the pid hash, a nested namespace's
	   table) read the chain's first node and has not yet put its own
	   before it (task/bucket.c; the chain's bucket lock held in rcu
	   mode, the update lock in the lock modes); @t NULL. */
	RP_RACE_BUCKET_ADD,
	/* A writer of a hash chain found its bucket lock held and is about
	   to wait for it (task/bucket.c, rcu mode; no lock held but the
	   caller's); @t NULL. */
	RP_RACE_BUCKET_WAITS,
	/* A fork by @t counted its child against its user's RLIMIT_NPROC,
	   from its thread's reserve or in the shared count, and has not
	   compared the count with the limit yet, unless
	   RP_BREAK_NPROC_CHECK_FIRST compared first (task/cred.c; no lock
	   held, no read section). */
	RP_RACE_NPROC_COUNTED,
	/* A commit of credentials by @t published them and has not yet
	   taken @t from its old user's RLIMIT_NPROC count (task/cred.c; no
	   lock held). */
	RP_RACE_CREDS_PUBLISHED,
	/* A get or put of credentials found them counted per thread slot and
	   has not added to its slot's row yet (task/cred.c; in a read
	   section, whatever the caller holds); @t NULL. */
	RP_RACE_CRED_PER_SLOT,
	/* A shared taker of rcu mode's update gate published its row and has
	   not read the gate's flag yet (RP_BREAK_GATE_CHECK_FIRST: read the
	   flag and not yet published; sync.c; no lock held); @t NULL. */
	RP_RACE_GATE_SHARED,
	/* A shared taker found the gate closed and took its row back, and is
	   about to wait for the exclusive holder (sync.c; no lock held); @t
	   NULL. */
	RP_RACE_GATE_BACKS_OUT,
	/* An exclusive taker of rcu mode's update gate closed it and found
	   shared holders inside; it is about to wait for them (sync.c; the
	   update mutex held); @t NULL. */
	RP_RACE_GATE_EXCL_WAITS,
	/* An exclusive taker of the update side (rp_update_lock, the modes
	   with an update mutex) found the mutex held and is about to wait
	   for it (sync.h; no lock held); @t NULL. */
	RP_RACE_UPDATE_WAITS,
	/* A group kill (kill(0), kill(-pgrp), kill(-1)) by sender @t made
	   its first pass (order_cut) and has not begun its second
	   (signal/kill.c; read section; in rcu mode the set of receivers
	   held: passes_hold). */
	RP_RACE_KILL_BETWEEN_PASSES,
	/* The creator of a namespace found the nested tables published and
	   not yet settled, and is about to wait for a grace period
	   (task/pidns.c, tables_settle; no lock held); @t NULL. */
	RP_RACE_FIRST_NS_WAITS,
	/* prctl(PR_SET_CHILD_SUBREAPER)'s walk marked process @t as having
	   a subreaper above it and has not marked @t's children yet
	   (sys/ids.c; the update gate held shared, read section). */
	RP_RACE_SUBREAPER_WALK,
	/* An exclusive taker of rcu mode's update gate holds the update
	   mutex and has not closed the gate yet (RP_BREAK_GATE_USED_FIRST:
	   and has read the high-water mark of thread slots; sync.c); @t
	   NULL. */
	RP_RACE_GATE_CLOSES,
	/* A fork attaching a new member to process group or session id @t's
	   pid (@t: the task of that pid's block) read the pid's count of
	   attachments and has not stored it yet (task/pid.c; the pid's M
	   held in rcu mode under the gate shared, else the update lock). */
	RP_RACE_MEMBER_ATTACH,
	/* A writer of a member lock found @t's (the task of the pid's block)
	   M held and is about to wait for it (task/task.h; rcu mode). */
	RP_RACE_MEMBER_WAITS,
	/* A fork by @t copied its parent's has_child_subreaper into the new
	   process and has not linked it on the parent's children list yet
	   (proc/fork.c; the parent's T and siglock held in rcu mode under
	   the gate shared, else the update lock and the siglock). */
	RP_RACE_FORK_SUBREAPER_COPY,
	/* wait's claim under the gate shared found zombie @t still a zombie,
	   in its read section, and is about to take G of @t's group and T of
	   its real parent (proc/wait.c; the gate held shared). */
	RP_RACE_CLAIM_ZOMBIE,
	/* wait's claim under the gate shared holds G of zombie @t's group and
	   T of its real parent, has rechecked that the link leads to a thread
	   of the caller's group, and has not yet claimed @t by its
	   compare-and-swap (proc/wait.c; read section). */
	RP_RACE_CLAIM_LINKED,
	/* The release of leader @t under the gate shared read the
	   predecessor of its node on sys->tasks and has not locked it yet
	   (pgrp/membership.c; G of @t's group and T of its real parent held,
	   read section). */
	RP_RACE_TASKS_UNLINK,
	/* A plain exit of @t (the update gate shared) set @t DEAD under its
	   parent's T, nobody being to wait for it, let every lock go, and is
	   about to take the gate exclusive to release @t (proc/exit.c; no
	   lock held, no read section). */
	RP_RACE_EXIT_RELEASES,
	/* A plain exit of @t took its own tie from its process group's count
	   and has not yet acted on the decrement's answer (orphaned or not;
	   RP_BREAK_ORPHAN_LOAD_AFTER: has not loaded the count yet)
	   (proc/exit.c; the gate shared, T of @t's parent, read section). */
	RP_RACE_EXIT_UNTIED,
	/* @t's exit orphaned its process group, or a reparenting by @t a
	   child's, found a member stopped and is about to send the group
	   SIGHUP and SIGCONT (signal/orphan.c; read section, and the update
	   lock or the gate shared with T of the parent of the pair). */
	RP_RACE_ORPHAN_KILLS,
	/* A plain exit of @t, which has children, found their reaper under
	   RCU and has not taken its T yet (proc/exit.c; the gate shared,
	   read section, no tree lock). */
	RP_RACE_EXIT_REAPER_FOUND,
	/* A plain exit of @t found every child alive under its T and has not
	   given them away yet (proc/exit.c; the gate shared, read section,
	   T of @t, of its parent and of the reaper). */
	RP_RACE_EXIT_CHILDREN_CHECKED,
	/* A writer of task @t's tree lock (T) found it held and is about to
	   wait for it (task/task.h; rcu mode, whatever the caller holds). */
	RP_RACE_TREE_WAITS,
	/* A plain fork by @t read its process's group and session under
	   @t's T and has not taken their M yet (proc/fork.c; rcu mode, the
	   update gate shared): a move of @t's process waits for that T. */
	RP_RACE_FORK_IDS_READ,
	/* A plain exit of @t, whose decrement orphaned its process group,
	   holds the group and is about to take the gate exclusive for the
	   kill (proc/exit.c; no lock held, no read section). */
	RP_RACE_EXIT_KILLS_LATER,
	/* A writer of the group lock (G) of the process whose block task is
	   @t found it held and is about to wait for it (task/task.h; rcu
	   mode, whatever the caller holds). */
	RP_RACE_GROUP_WAITS,
	/* The death notice of @t chose its signal by its parent's count of
	   execs and has not sent it yet (signal/notify.c; T of the parent
	   held under the gate shared, else the update lock; read section). */
	RP_RACE_NOTIFY_CHOSEN,
	/* A plain exec by @t read its real parent under RCU and has not
	   taken its T yet (proc/exec.c; the gate shared, G of @t's group,
	   read section): a reparenting may move @t meanwhile. */
	RP_RACE_EXEC_PARENT_READ,
	/* A thread fork by @t under the gate shared holds G of its group and
	   read the group's real parent under RCU, and has not taken its T
	   yet (proc/fork.c; read section): a reparenting may move the group
	   meanwhile. */
	RP_RACE_THREAD_PARENT_READ,
	/* A thread fork by @t under the gate shared holds G of its group and
	   T of the group's real parent, checked, and has not taken its
	   siglock for the link yet (proc/fork.c; read section). */
	RP_RACE_THREAD_LOCKED,
	/* wait's stopped or continued report of @t under the gate shared
	   holds T of @t's real parent, has found the link leading to the
	   caller's group and @t with the same to report, and has not taken
	   @t's siglock yet (proc/wait.c; read section): a SIGCONT or a new
	   stop may come meanwhile, a reparenting, an attach or @t's exit
	   waits for that T. */
	RP_RACE_REPORT_LINKED,
	/* A ptrace request other than an attach or a detach found tracee @t
	   linked to its caller, its tracer, and has not checked its stop nor
	   made its change yet (proc/ptrace.c; the update lock held, or the
	   gate shared, T of the tracer and a read section;
	   RP_BREAK_PTRACE_UNFROZEN: the stop already checked). */
	RP_RACE_PTRACE_REQUEST,
	/* A fork publishing a pid's numbers in the nested namespaces
	   (task/pidns.c, rp_pid_levels_publish) is about to count it in
	   the namespace at one level (the update lock held, or the gate
	   shared; RP_BREAK_NS_COUNT_UNLOCKED: between its load and its
	   store); @t NULL. */
	RP_RACE_NS_COUNT,
	/* wait's report of tracee @t's stop under the gate shared read @t's
	   real parent and tracer under RCU and has not taken their T yet
	   (proc/wait.c; read section): a detach and an attach may move the
	   link meanwhile. */
	RP_RACE_REPORT_TRACER_READ,
	/* A PTRACE_DETACH of tracee @t put its signal in @t's exit_code in
	   one hold of @t's siglock, @t still in its stop, and has not
	   unlinked it yet (proc/ptrace.c, stopped_request; the update lock
	   held, or the gate shared, T of the tracer and of @t's real parent,
	   a read section): a wait that read the stop now would report the
	   detach's signal. */
	RP_RACE_PTRACE_DETACH_UNLINKS,
	/* The last detach of a nested pid is about to take it off its
	   namespace's count at one level (task/pidns.c, pid_gone; the update
	   lock held, or the gate shared for a plain release;
	   RP_BREAK_NS_UNCOUNT_UNLOCKED: between its load and its store);
	   @t NULL. */
	RP_RACE_NS_UNCOUNT,
	/* de_thread of a non-leader: its shared look found the others
	   released and dropped the claim, and it has not taken the update
	   lock for its exclusive look yet (proc/exec.c; nothing held). */
	RP_RACE_EXEC_SWITCH_LOOK,
	/* A move of @t's process under the gate shared walked its thread
	   list (under G) and has not taken the threads' T yet
	   (pgrp/setpgid.c, hold_trees; G held, read section). */
	RP_RACE_SETPGID_THREADS_READ,
	/* setpgid by @t under the gate shared made its first look up of the
	   target by number and has taken no lock (pgrp/setpgid.c,
	   setpgid_shared; read section). */
	RP_RACE_SETPGID_FIRST_LOOK,
	/* A group lost its last member (a release or a move) and is about
	   to leave its session's list of groups; @t is the task of the block
	   whose pid is the session's id, whose M is held (pgrp/membership.c,
	   group_gone; or the update lock). */
	RP_RACE_GROUP_GONE,
	/* setsid stored the process's new session and not yet its new group
	   (Linux's order); @t is the task of the process's block
	   (pgrp/membership.c, rp_pgrp_move; its siglock and M held). */
	RP_RACE_SESSION_STORED,
};

typedef void (*rp_race_hook_fn)(enum rp_race_point where, struct rp_task *t);

#ifdef RP_DEBUG
/* Install @fn (NULL: none); returns the previous hook. */
rp_race_hook_fn rp_debug_race_hook(rp_race_hook_fn fn);
void rp_race_point(enum rp_race_point where, struct rp_task *t);
/*
 * Is a thread inside the hook now?  A hook may hold its thread in a read
 * section until another thread has acted: that thread must not wait for a
 * grace period meanwhile (src/sync/sync.c).
 */
bool rp_race_point_busy(void);
#define RP_RACE_POINT(where, t) rp_race_point(where, t)
#else
#define RP_RACE_POINT(where, t) do { (void)(t); } while (0)
#endif

#endif /* RP_DEBUG_RACEPOINT_H */
