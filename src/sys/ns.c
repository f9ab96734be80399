/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pid namespace calls of the caller: unshare(CLONE_NEWPID) as Linux's
 * ksys_unshare and copy_pid_ns (kernel/fork.c, kernel/pid_namespace.c),
 * setns(fd, CLONE_NEWPID) as pidns_install, the handles that
 * /proc/PID/ns/pid and pid_for_children are (pidns_get,
 * pidns_for_children_get), opened as proc_ns_get_link opens them (ptrace
 * read access), and their ioctl NS_GET_PARENT (pidns_get_parent), as of
 * v6.18; the per-namespace sysctls
 * pid_max and ns_last_pid as pid_table_root_permissions,
 * pid_ns_ctl_handler and the pid_max table of kernel/pid.c and
 * kernel/pid_namespace.c (v6.18).  docs/namespaces.md.
 */
#include <errno.h>
#include <sched.h>
#include "../task/task.h"
#include "../proc/ptrace.h"

/* Is @ns @self's namespace or below it (what setns may enter)? */
static bool reachable(struct rp_task *self, struct rp_pidns *ns)
{
	bool below;

	rp_read_lock(&self->sys->sync);
	below = ns->sys == self->sys && rp_pidns_within(ns, rp_task_pidns(self));
	rp_read_unlock(&self->sys->sync);
	return below;
}

int rp_unshare(struct rp_task *self, unsigned long flags)
{
	struct rp_pidns *own, *ns;
	int err = 0;

	rp_sync_quiescent();
	if (flags & ~(unsigned long)CLONE_NEWPID)
		return -EINVAL;
	if (rp_task_exited(self))
		return -ESRCH;
	if (!flags)
		return 0;
	if (!rp_cred_capable(self->cred, RP_CAP_SYS_ADMIN))
		return -EPERM;
	/* Only @self changes its pid_for_children: no lock needed between reading and setting it. */
	rp_read_lock(&self->sys->sync);
	own = rp_task_pidns(self);
	if (rp_task_ns_children_rcu(self) != own)
		err = -EINVAL;		/* copy_pid_ns: unshared already, no child yet */
	rp_read_unlock(&self->sys->sync);
	if (err)
		return err;
	ns = rp_pidns_create(own, &err);
	if (!ns)
		return err;
	err = rp_task_set_ns_children(self, ns);
	rp_pidns_put(ns);
	return err;
}

int rp_pidns_open(struct rp_task *self, pid_t pid, int for_children, struct rp_pidns **out)
{
	struct rp_pidns *ns;
	struct rp_task *t;
	int err = -ESRCH;

	rp_sync_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	rp_read_lock(&self->sys->sync);
	t = pid > 0 ? rp_find_task_vnr_rcu(self, pid) : NULL;
	/* proc_ns_get_link: ptrace read access first, with fs credentials. */
	if (t && !rp_ptrace_may_access(self, t, RP_PTRACE_READ_FSCREDS)) {
		err = -EACCES;
	} else if (t && for_children && rp_task_exited(t)) {
		err = -ENOENT;		/* its nsproxy is gone with its exit */
	} else if (t) {
		ns = for_children ? rp_task_ns_children_rcu(t) : rp_task_pidns(t);
		if (ns && for_children && !rp_pidns_had_init_rcu(ns)) {
			err = -ENOENT;	/* pidns_for_children_get: no child_reaper yet */
		} else if (ns) {	/* else released meanwhile: ESRCH */
			*out = rp_pidns_get(ns);
			err = 0;
		}
	}
	rp_read_unlock(&self->sys->sync);
	return err;
}

int rp_setns(struct rp_task *self, struct rp_pidns *ns, int nstype)
{
	struct rp_pidns *own;

	rp_sync_quiescent();
	if (nstype && nstype != CLONE_NEWPID)
		return -EINVAL;
	if (rp_task_exited(self))
		return -ESRCH;
	if (!rp_cred_capable(self->cred, RP_CAP_SYS_ADMIN))
		return -EPERM;
	/* pidns_install: only into the caller's namespace or one below it. */
	if (!reachable(self, ns))
		return -EINVAL;
	/* @self's own namespace cannot change under it: read it again. */
	rp_read_lock(&self->sys->sync);
	own = rp_task_pidns(self);
	rp_read_unlock(&self->sys->sync);
	return rp_task_set_ns_children(self, ns == own ? NULL : ns);
}

int rp_pidns_parent(struct rp_task *self, struct rp_pidns *ns, struct rp_pidns **parent)
{
	rp_sync_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	/* pidns_get_parent: none above the root, nor above the caller's own. */
	if (!ns->parent || !reachable(self, ns->parent))
		return -EPERM;
	*parent = rp_pidns_get(ns->parent);
	return 0;
}

int rp_pidns_pid_max(struct rp_pidns *ns)
{
	return (int)uatomic_read(&ns->pidmap.max);
}

/* May @self reach @ns's sysctls at all?  0, -ESRCH (exited) or -EINVAL (not @self's nor below). */
static int sysctl_reachable(struct rp_task *self, struct rp_pidns *ns)
{
	rp_sync_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	return reachable(self, ns) ? 0 : -EINVAL;
}

int rp_pidns_set_pid_max(struct rp_task *self, struct rp_pidns *ns, int pid_max)
{
	int err = sysctl_reachable(self, ns);

	if (err)
		return err;
	/* pid_table_root_permissions: the file is writable by root or CAP_SYS_ADMIN. */
	if (self->cred->euid != 0 && !rp_cred_capable(self->cred, RP_CAP_SYS_ADMIN))
		return -EACCES;
	if (pid_max < RP_PID_MAX_MIN || pid_max > RP_PID_MAX_LIMIT)
		return -EINVAL;
	/* No lock: forks that allocate meanwhile use the old or the new value. */
	rp_pidmap_set_max(&ns->pidmap, (unsigned int)pid_max);
	return 0;
}

int rp_pidns_last_pid(struct rp_pidns *ns)
{
	return rp_pidmap_last(&ns->pidmap);
}

int rp_pidns_set_last_pid(struct rp_task *self, struct rp_pidns *ns, int last)
{
	int err = sysctl_reachable(self, ns);

	if (err)
		return err;
	/* pid_ns_ctl_handler: checkpoint_restore_ns_capable, then the range 0..pid_max. */
	if (!rp_cred_checkpoint_restore_capable(self->cred))
		return -EPERM;
	if (last < 0 || last > rp_pidns_pid_max(ns))
		return -EINVAL;
	rp_pidmap_set_last(&ns->pidmap, last);
	return 0;
}
