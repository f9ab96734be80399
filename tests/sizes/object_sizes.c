/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The layout of the objects a process is made of: each field's offset and
 * size, the holes, each object's size and the heap it takes (glibc's chunk:
 * the size plus an 8-byte header, rounded up to 16, 32 at least), and the
 * heap of a single-threaded process (docs/performance.md, "Object sizes").
 * As a test it fails on a field the table lacks, and on a single-threaded
 * process that takes more heap than the contract's goal.
 *
 *	ninja -C build tests/object_sizes && build/tests/object_sizes
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "task/task.h"
#include "task/relations.h"

struct field {
	const char *name;
	size_t offset, size, align;
};

#define FIELD(type, member) { #member, offsetof(type, member), sizeof(((type *)0)->member), \
			      _Alignof(__typeof__(((type *)0)->member)) }

/*
 * The contract's heap bytes per single-threaded process (docs/performance.md,
 * "Memory per process, at most 512 bytes"; the memory row of `rcuproc bench --workload
 * targets`, which measures the same chunk with malloc's own figures).
 */
#define PROCESS_HEAP_GOAL	512

/* Bytes the table does not account for: a field it does not list. */
static int unlisted;

static size_t heap_chunk(size_t size)
{
	size_t chunk = (size + 8 + 15) & ~(size_t)15;

	return chunk < 32 ? 32 : chunk;
}

static int by_offset(const void *a, const void *b)
{
	const struct field *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/*
 * Print @fields of an object of @size bytes and alignment @align, in the
 * order of their offsets; its heap chunk.  A gap the compiler cannot have
 * left (as wide as the next field's alignment, or trailing padding as wide
 * as the object's) holds a field the list lacks: counted in unlisted.
 */
static size_t print_object(const char *name, size_t size, size_t align,
			   const struct field *listed, size_t n)
{
	struct field fields[64];
	size_t end = 0;

	if (n > sizeof(fields) / sizeof(fields[0]))
		abort();
	memcpy(fields, listed, n * sizeof(*fields));
	qsort(fields, n, sizeof(*fields), by_offset);
	printf("struct %s: %zu bytes, heap chunk %zu\n", name, size, heap_chunk(size));
	for (size_t i = 0; i < n; i++) {
		if (fields[i].offset > end) {
			printf("  %5zu %4zu  (hole)\n", end, fields[i].offset - end);
			unlisted += fields[i].offset - end >= fields[i].align;
		}
		printf("  %5zu %4zu  %s\n", fields[i].offset, fields[i].size, fields[i].name);
		end = fields[i].offset + fields[i].size;
	}
	if (size > end) {
		printf("  %5zu %4zu  (padding)\n", end, size - end);
		unlisted += size - end >= align;
	}
	printf("\n");
	return heap_chunk(size);
}

#define OBJECT(type, ...) ({							\
	static const struct field f_[] = { __VA_ARGS__ };			\
	print_object(#type, sizeof(struct type), _Alignof(struct type), f_,	\
		     sizeof(f_) / sizeof(f_[0]));					\
})

int main(void)
{
	size_t task, signal, sighand, pid, process;

	task = OBJECT(rp_task,
		FIELD(struct rp_task, usage), FIELD(struct rp_task, sys),
		FIELD(struct rp_task, pid), FIELD(struct rp_task, group_leader),
		FIELD(struct rp_task, real_parent), FIELD(struct rp_task, parent),
		FIELD(struct rp_task, children), FIELD(struct rp_task, sibling),
		FIELD(struct rp_task, ptrace_part),
		FIELD(struct rp_task, ptrace), FIELD(struct rp_task, tasks),
		FIELD(struct rp_task, thread_node), FIELD(struct rp_task, signal),
		FIELD(struct rp_task, sighand), FIELD(struct rp_task, cred),
		FIELD(struct rp_task, blocked), FIELD(struct rp_task, pending),
		FIELD(struct rp_task, jobctl), FIELD(struct rp_task, exit_state),
		FIELD(struct rp_task, exit_code), FIELD(struct rp_task, exit_signal),
		FIELD(struct rp_task, pgrp_jobc),
		FIELD(struct rp_task, self_exec_id), FIELD(struct rp_task, parent_exec_id),
		FIELD(struct rp_task, pdeath_signal), FIELD(struct rp_task, flags),
		FIELD(struct rp_task, nice), FIELD(struct rp_task, ioprio),
		FIELD(struct rp_task, stop_signr),
		FIELD(struct rp_task, comm), FIELD(struct rp_task, cputimers),
		FIELD(struct rp_task, cputime_tick),
		FIELD(struct rp_task, tree_lock),
		FIELD(struct rp_task, link_lock),
		FIELD(struct rp_task, member_lock),
		FIELD(struct rp_task, registry), FIELD(struct rp_task, rcu));
	signal = OBJECT(rp_signal,
		FIELD(struct rp_signal, sigcnt), FIELD(struct rp_signal, live),
		FIELD(struct rp_signal, nr_threads), FIELD(struct rp_signal, parts_live),
		FIELD(struct rp_signal, thread_head),
		FIELD(struct rp_signal, shared_pending),
		FIELD(struct rp_signal, flags), FIELD(struct rp_signal, group_exit_code),
		FIELD(struct rp_signal, group_stop_count),
		FIELD(struct rp_signal, is_child_subreaper),
		FIELD(struct rp_signal, has_child_subreaper), FIELD(struct rp_signal, dumpable),
		FIELD(struct rp_signal, group_lock),
		FIELD(struct rp_signal, pgrp),
		FIELD(struct rp_signal, session), FIELD(struct rp_signal, tty),
		FIELD(struct rp_signal, proxy), FIELD(struct rp_signal, member),
		FIELD(struct rp_signal, multiprocess),
		FIELD(struct rp_signal, extra), FIELD(struct rp_signal, cputimers));
	sighand = OBJECT(rp_sighand,
		FIELD(struct rp_sighand, siglock), FIELD(struct rp_sighand, count),
		FIELD(struct rp_sighand, actions));
	OBJECT(rp_exec_sighand,
		FIELD(struct rp_exec_sighand, sighand), FIELD(struct rp_exec_sighand, sys),
		FIELD(struct rp_exec_sighand, rcu));
	/* nr and in_process are bit fields of one int: offsetof cannot name them. */
	pid = OBJECT(rp_pid,
		{ "nr, in_process", 0, sizeof(int), _Alignof(int) },
		FIELD(struct rp_pid, users),
		FIELD(struct rp_pid, task), FIELD(struct rp_pid, hash),
		FIELD(struct rp_pid, members), FIELD(struct rp_pid, groups));
	OBJECT(rp_tid,
		FIELD(struct rp_tid, pid), FIELD(struct rp_tid, sys),
		FIELD(struct rp_tid, rcu));
	process = OBJECT(rp_process,
		FIELD(struct rp_process, signal), FIELD(struct rp_process, task),
		FIELD(struct rp_process, sighand), FIELD(struct rp_process, pid),
		FIELD(struct rp_process, in_session));
	OBJECT(rp_thread_cputime,
		FIELD(struct rp_thread_cputime, time), FIELD(struct rp_thread_cputime, folded),
		FIELD(struct rp_thread_cputime, armed));
	OBJECT(rp_ptrace_part,
		FIELD(struct rp_ptrace_part, task), FIELD(struct rp_ptrace_part, ptraced),
		FIELD(struct rp_ptrace_part, entry), FIELD(struct rp_ptrace_part, message),
		FIELD(struct rp_ptrace_part, last_siginfo), FIELD(struct rp_ptrace_part, event));
	OBJECT(rp_signal_extra,
		FIELD(struct rp_signal_extra, timers), FIELD(struct rp_signal_extra, rlim),
		FIELD(struct rp_signal_extra, group_exec_task));
	OBJECT(rp_group_timers,
		FIELD(struct rp_group_timers, exited), FIELD(struct rp_group_timers, armed),
		FIELD(struct rp_group_timers, itimer), FIELD(struct rp_group_timers, owned),
		FIELD(struct rp_group_timers, ignored), FIELD(struct rp_group_timers, next_id));
	OBJECT(rp_sigqueue,
		FIELD(struct rp_sigqueue, next), FIELD(struct rp_sigqueue, info),
		FIELD(struct rp_sigqueue, user), FIELD(struct rp_sigqueue, preallocated));
	OBJECT(rp_proxy,
		FIELD(struct rp_proxy, node), FIELD(struct rp_proxy, member));
	OBJECT(rp_cred,
		FIELD(struct rp_cred, refs), FIELD(struct rp_cred, uid),
		FIELD(struct rp_cred, euid), FIELD(struct rp_cred, suid),
		FIELD(struct rp_cred, column), FIELD(struct rp_cred, per_slot),
		FIELD(struct rp_cred, caps), FIELD(struct rp_cred, caps_permitted),
		FIELD(struct rp_cred, user), FIELD(struct rp_cred, sys),
		FIELD(struct rp_cred, owner), FIELD(struct rp_cred, rcu));
	printf("shared, not per process: struct rp_action_table %zu bytes (a private copy\n"
	       "once a handler is installed), struct rp_rlimits %zu bytes (a copy once a\n"
	       "limit is changed), struct rp_cred (fork shares the parent's); struct\n"
	       "rp_proxy is embedded in the thread group, once (setpgid and setsid\n"
	       "allocate one with a deferred release for each move); on first use (a\n"
	       "charge, a timer): struct rp_thread_cputime per thread, struct\n"
	       "rp_signal_extra per process (its timers, and its limits once changed,\n"
	       "its exec's claim while a multithreaded exec waits); on the first\n"
	       "attach, as tracer or tracee: struct rp_ptrace_part per task; struct\n"
	       "rp_sigqueue per queued signal\n\n",
	       sizeof(struct rp_action_table), sizeof(struct rp_rlimits));
	printf("the parts of struct rp_process: task %zu + signal %zu + sighand %zu + pid %zu"
	       " = %zu heap bytes, were they allocated apart\n", task, signal, sighand, pid,
	       task + signal + sighand + pid);
	printf("single-threaded process: one struct rp_process = %zu heap bytes\n", process);
	if (unlisted)
		fprintf(stderr, "object_sizes: %d gaps no compiler leaves: fields missing from "
			"the table above\n", unlisted);
	if (process > PROCESS_HEAP_GOAL)
		fprintf(stderr, "object_sizes: a single-threaded process takes %zu heap bytes, "
			"more than the goal of %d\n", process, PROCESS_HEAP_GOAL);
	return unlisted || process > PROCESS_HEAP_GOAL ? 1 : 0;
}
