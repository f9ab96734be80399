/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A system: its pid space, its task lists, and init. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../debug/cache.h"
#include "../task/task.h"
#include "../task/objects.h"
#include "../pgrp/pgrp.h"
#include <rcuproc/version.h>

/* Every capability rcuproc knows: what root's processes start with. */
#define ALL_CAPS ((1ULL << RP_CAP_KILL) | (1ULL << RP_CAP_SETUID) |		\
		  (1ULL << RP_CAP_SYS_PTRACE) | (1ULL << RP_CAP_SYS_ADMIN) |	\
		  (1ULL << RP_CAP_SYS_NICE) | (1ULL << RP_CAP_SYS_RESOURCE) |	\
		  (1ULL << RP_CAP_CHECKPOINT_RESTORE))

/*
 * Init: pid 1, its own process group and session, root, default actions,
 * the default limits (rp_default_rlimits: RLIMIT_NICE 0 as Linux boots
 * with).
 */
static int create_init(struct rp_system *sys)
{
	struct rp_process *proc = rp_process_alloc(sys);
	struct rp_task *t = proc ? &proc->task : NULL;
	struct rp_pid_levels *lv;
	int err = -ENOMEM;

	if (t) {
		t->sighand = rp_process_sighand(proc);
		t->cred = rp_cred_alloc(sys, t, 0, 0, 0, ALL_CAPS);
		if (t->cred)
			t->pid = rp_pid_alloc_for(t, &sys->pidns, NULL, &lv, &err);
		if (t->pid)
			rp_pid_publish(t->pid, lv);
	}
	if (!t || !t->pid) {
		if (t) {
			rp_sighand_put(t->sighand);
			rp_task_free_now(t);
		}
		return err;
	}
	t->group_leader = t->real_parent = t->parent = t;
	t->pid->task = t;
	RP_DEBUG_BUG_ON(t->pid != rp_signal_leader_pid(t->signal));
	t->pid->users++;
	rp_pgrp_init_leader(t->signal, t->pid);
	t->signal->nr_threads = t->signal->live = 1;
	cds_list_add_tail_rcu(&t->thread_node, &t->signal->thread_head);
	cds_list_add_tail_rcu(&t->tasks, &sys->tasks);
	snprintf(t->comm, sizeof(t->comm), "init");
	t->usage = 2;		/* the table's reference and sys->child_reaper's */
	sys->child_reaper = t;
	sys->init_signal = t->signal;
	return 0;
}

/*
 * The caller's struct may be larger than ours (built with a later header):
 * the fields we do not know must be zero, as Linux's copy_struct_from_user
 * wants of a newer clone_args.  A size of 0 is the first layout, ours.
 */
static int opts_size_check(const struct rp_system_opts *opts)
{
	const unsigned char *extra = (const unsigned char *)opts;

	if (opts->size == 0)
		return 0;
	if (opts->size < offsetof(struct rp_system_opts, size) + sizeof(opts->size))
		return -EINVAL;
	for (size_t at = sizeof(*opts); at < opts->size; at++)
		if (extra[at])
			return -E2BIG;
	return 0;
}

/* malloc aligns to 16 bytes: the first cache line that starts in @block. */
static void *first_line(void *block)
{
	return (void *)(((uintptr_t)block + RP_CACHE_LINE - 1) & ~(uintptr_t)(RP_CACHE_LINE - 1));
}

int rp_system_create(const struct rp_system_opts *opts, struct rp_system **out)
{
	unsigned int pid_max = opts && opts->pid_max ? opts->pid_max : RP_PID_MAX_DEFAULT;
	struct rp_system *sys;
	int err;

	if (!opts || !rp_sync_mode_name(opts->mode) || pid_max < 2 ||
	    pid_max > RP_PID_MAX_LIMIT)
		return -EINVAL;
	err = opts_size_check(opts);
	if (err)
		return err;
	sys = rp_zalloc(sizeof(*sys));
	if (!sys)
		return -ENOMEM;
	err = rp_pidns_init_root(sys, pid_max);
	sys->pid_hash = rp_zalloc(RP_PID_HASH_SIZE * sizeof(*sys->pid_hash));
	sys->counts_block = rp_zalloc(RP_SLOT_ROWS * sizeof(*sys->counts) + RP_CACHE_LINE);
	sys->registry_block = rp_zalloc(RP_REGISTRY_SHARDS * sizeof(*sys->registry) +
					RP_CACHE_LINE);
	/* A thread past the slots counts in the shared counts: no row for it. */
	sys->ref_rows_block = rp_zalloc(RP_THREAD_SLOTS * sizeof(*sys->ref_rows) + RP_CACHE_LINE);
	if (err || !sys->pid_hash || !sys->counts_block || !sys->registry_block ||
	    !sys->ref_rows_block) {
		rp_pidns_destroy_root(sys);
		rp_free(sys->pid_hash);
		rp_free(sys->counts_block);
		rp_free(sys->registry_block);
		rp_free(sys->ref_rows_block);
		rp_free(sys);
		return -ENOMEM;
	}
	sys->counts = first_line(sys->counts_block);
	sys->registry = first_line(sys->registry_block);
	sys->ref_rows = first_line(sys->ref_rows_block);
	rp_sync_init(&sys->sync, opts->mode);
	CDS_INIT_LIST_HEAD(&sys->tasks);
	for (unsigned int k = 0; k < RP_REGISTRY_SHARDS; k++) {
		CDS_INIT_LIST_HEAD(&sys->registry[k].tasks);
		pthread_mutex_init(&sys->registry[k].lock, NULL);
	}
	pthread_mutex_init(&sys->users_lock, NULL);
	/* rp_pid_publish's precondition, as for every later pid. */
	rp_update_lock(&sys->sync);
	err = create_init(sys);
	rp_update_unlock(&sys->sync);
	if (err) {
		rp_system_destroy(sys);
		return err;
	}
	*out = sys;
	return 0;
}

struct rp_task *rp_system_init(struct rp_system *sys)
{
	return rp_task_get(sys->child_reaper);
}

int rp_system_set_pid_max(struct rp_system *sys, unsigned int pid_max)
{
	if (pid_max < 2 || pid_max > RP_PID_MAX_LIMIT)
		return -EINVAL;
	/* No lock: forks that allocate meanwhile use the old or the new value. */
	rp_pidmap_set_max(&sys->pidns.pidmap, pid_max);
	return 0;
}

/* Exact when no operation runs (src/debug/threadslot.h). */
void rp_system_counts(struct rp_system *sys, struct rp_system_counts *out)
{
	*out = (struct rp_system_counts){ 0 };
	for (unsigned int k = 0; k < RP_SLOT_ROWS; k++) {
		const struct rp_count_row *row = &sys->counts[k];

		out->tasks += CMM_LOAD_SHARED(row->tasks);
		out->signals += CMM_LOAD_SHARED(row->signals);
		out->sighands += CMM_LOAD_SHARED(row->sighands);
		out->pids += CMM_LOAD_SHARED(row->pids);
		out->creds += CMM_LOAD_SHARED(row->creds);
		out->sigqueues += CMM_LOAD_SHARED(row->sigqueues);
		out->proxies += CMM_LOAD_SHARED(row->proxies);
		out->pidns += CMM_LOAD_SHARED(row->pidns);
	}
}

/* A task never released: drop what release would have dropped. */
static void force_release(struct rp_task *t)
{
	struct rp_signal *sig = t->signal;

	rp_flush_sigqueue(t->sys, &t->pending);
	rp_sighand_put(t->sighand);
	t->sighand = NULL;
	rp_task_drop_ns_children(t);
	rp_pid_detach(t->pid);
	if (--sig->nr_threads == 0) {
		rp_pgrp_exit(sig);	/* off the member lists first: they lead to the tgid */
		rp_pid_detach(rp_signal_leader_pid(sig));
	}
}

/*
 * @t, not released, is the last thread of a namespace's init whose exit
 * waits for the namespace's other pids: it completes no more, or its
 * completion would be queued as the pids go below, and run when this
 * section ends, on a namespace freed by then (in the lock modes a free
 * is at once).
 */
static void cancel_init_wait(struct rp_task *t)
{
	struct rp_pidns *ns = rp_task_pidns(t);

	rp_assert_update_held(&t->sys->sync);
	if (ns && ns->waiter == t) {
		ns->waiter = NULL;
		ns->settle_at = 0;
	}
}

void rp_system_destroy(struct rp_system *sys)
{
	struct rp_task *t, *tmp;

	rp_thread_register();
	/* Let frees already queued run first: they take their tasks off the registry. */
	rp_deferred_barrier();
	/* No operation runs: the update lock is taken for the assertions only. */
	rp_update_lock(&sys->sync);
	for (unsigned int k = 0; k < RP_REGISTRY_SHARDS; k++)
		cds_list_for_each_entry(t, &sys->registry[k].tasks, registry)
			if (t->sighand)
				cancel_init_wait(t);
	for (unsigned int k = 0; k < RP_REGISTRY_SHARDS; k++)
		cds_list_for_each_entry(t, &sys->registry[k].tasks, registry)
			if (t->sighand)
				force_release(t);
	rp_update_unlock(&sys->sync);
	for (unsigned int k = 0; k < RP_REGISTRY_SHARDS; k++)
		cds_list_for_each_entry_safe(t, tmp, &sys->registry[k].tasks, registry)
			rp_task_free_now(t);
	/* The frees queued just now refer to sys: let them run too. */
	rp_deferred_barrier();
	rp_thread_unregister();
	for (unsigned int i = 0; i < sizeof(sys->users) / sizeof(sys->users[0]); i++) {
		struct rp_user *u, *next;

		cds_hlist_for_each_entry_safe_2(u, next, &sys->users[i], node)
			rp_free(u);
	}
	pthread_mutex_destroy(&sys->users_lock);
	for (unsigned int k = 0; k < RP_REGISTRY_SHARDS; k++)
		pthread_mutex_destroy(&sys->registry[k].lock);
	rp_sync_destroy(&sys->sync);
	rp_free(sys->counts_block);
	rp_free(sys->registry_block);
	rp_free(sys->ref_rows_block);
	rp_pidns_destroy_root(sys);
	rp_free(sys->pid_hash);
	rp_free(sys);
	/* A table gone: the objects cached for the next one go back to malloc. */
	rp_cache_shrink_all();
}

const char *rp_version(void)
{
	return RCUPROC_VERSION_STRING;
}
