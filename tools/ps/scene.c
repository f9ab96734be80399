/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A few daemons (one with threads, one niced down, one up), a login session
 * running a build as a job of its own, a zombie, and for `ps --ns` a
 * container: a pid namespace with its own init and services, and one more
 * below it.
 */
#include <errno.h>
#include <string.h>
#include "scene.h"

#define THREAD_FLAGS	(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)

/* Clone a child of @parent with @flags running @comm; its handle is kept in @s. */
static int spawn_with(struct scene *s, struct rp_task *parent, unsigned long flags,
		      const char *comm, struct rp_task **out)
{
	struct rp_task *child;
	pid_t pid;

	if (s->nr_held == sizeof(s->held) / sizeof(s->held[0]))
		return -ENOMEM;
	pid = rp_clone(parent, flags, &child);
	if (pid < 0)
		return pid;
	s->held[s->nr_held++] = child;
	*out = child;
	return rp_execve(child, comm);
}

/* Fork a child of @parent running @comm; its handle is kept in @s. */
static int spawn(struct scene *s, struct rp_task *parent, const char *comm,
		 struct rp_task **out)
{
	return spawn_with(s, parent, SIGCHLD, comm, out);
}

/* A daemon in a session of its own, at @nice. */
static int spawn_daemon(struct scene *s, const char *comm, int nice, struct rp_task **out)
{
	int err = spawn(s, s->init, comm, out);
	pid_t sid = err ? err : rp_setsid(*out);

	if (sid < 0)
		return sid;
	return rp_setpriority(*out, PRIO_PROCESS, 0, nice);
}

/* sshd with two more threads, the login shell under it, cron and a watchdog. */
static int build_daemons(struct scene *s, struct rp_task **shell)
{
	struct rp_task *sshd, *cron, *watchdog;
	int err = spawn_daemon(s, "sshd", 0, &sshd);
	pid_t sid;

	for (int i = 0; !err && i < 2; i++) {
		pid_t tid = rp_clone(sshd, THREAD_FLAGS, NULL);

		err = tid < 0 ? tid : 0;
	}
	if (!err)
		err = spawn(s, sshd, "bash", shell);
	sid = err ? err : rp_setsid(*shell);
	err = sid < 0 ? sid : spawn_daemon(s, "cron", 5, &cron);
	return err ? err : spawn_daemon(s, "watchdog", -5, &watchdog);
}

/* make under the shell, its compilers, and a linker that exited unreaped. */
static int build_session(struct scene *s, struct rp_task *shell, unsigned long workers)
{
	struct rp_task *make, *ld;
	int err = spawn(s, shell, "make", &make);

	if (!err)	/* a job of its own, as a shell's child does */
		err = rp_setpgid(make, 0, 0);

	for (unsigned long i = 0; !err && i < workers; i++) {
		struct rp_task *cc;
		pid_t pid = rp_fork(make, &cc);

		if (pid < 0)
			return pid;
		err = rp_execve(cc, "cc1");
		rp_task_put(cc);
	}
	if (!err)
		err = spawn(s, make, "ld", &ld);
	return err ? err : rp_exit(ld, 0);
}

/*
 * A container: its init (pid 1 inside) under a runtime's shim, a web
 * server and a database, and the database's sandbox, pid 1 of a namespace
 * below.
 */
static int build_container(struct scene *s)
{
	struct rp_task *shim, *cinit, *web, *db, *sandbox;
	int err = spawn_daemon(s, "containerd-shim", 0, &shim);

	if (!err)
		err = spawn_with(s, shim, CLONE_NEWPID | SIGCHLD, "tini", &cinit);
	if (!err)
		err = spawn(s, cinit, "nginx", &web);
	if (!err)
		err = spawn(s, cinit, "postgres", &db);
	return err ? err : spawn_with(s, db, CLONE_NEWPID | SIGCHLD, "sandbox", &sandbox);
}

int ps_scene_build(struct scene *s, enum rp_sync_mode mode, unsigned long workers,
		   bool container)
{
	struct rp_system_opts opts = { .mode = mode, .pid_max = RP_PID_MAX_LIMIT };
	struct rp_task *shell = NULL;
	int err;

	memset(s, 0, sizeof(*s));
	err = rp_system_create(&opts, &s->sys);
	if (err)
		return err;
	s->init = rp_system_init(s->sys);
	err = build_daemons(s, &shell);
	if (!err)
		err = build_session(s, shell, workers + 2);
	if (!err && container)
		err = build_container(s);
	if (err)
		ps_scene_destroy(s);
	return err;
}

void ps_scene_destroy(struct scene *s)
{
	for (unsigned int i = 0; i < s->nr_held; i++)
		rp_task_put(s->held[i]);
	rp_task_put(s->init);
	rp_system_destroy(s->sys);
	memset(s, 0, sizeof(*s));
}
