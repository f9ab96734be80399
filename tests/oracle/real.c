/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The Linux side of the oracle: each process of a scenario is a real process
 * ("puppet") that reads commands from a pipe, makes the real system call and
 * writes back what it returned.
 *
 * Pipes.  The driver makes one command pipe and one reply pipe per name
 * (P0..P7) before forking P0; every puppet inherits the puppet-side ends of
 * all of them (a fork child takes over the ends of the name it is given) and
 * none of the driver's ends, so that when the driver closes its ends or dies,
 * every puppet reads end-of-file and exits.
 *
 * Settling.  A process dies asynchronously after kill(), _exit() or its
 * parent's death.  After each step the driver pings every live puppet: a
 * puppet with a pending fatal signal dies instead of answering, and a caught
 * signal runs its handler before the puppet reads its next command.  A dead
 * one is watched in /proc until it is a zombie whose exit has been fully
 * processed, or gone (reaped).  Timing never enters an answer: every wait is
 * for a state, bounded only to turn a hang into a reported failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/nsfs.h>
#include "oracle.h"

struct real_cmd {
	int op;
	long a, b, c;
};

struct real_run {
	int cmd[OR_MAX_PROCS][2];	/* [0] puppet reads, [1] driver writes */
	int rep[OR_MAX_PROCS][2];	/* [0] driver reads, [1] puppet writes */
	bool dead[OR_MAX_PROCS];	/* exited: a zombie or gone */
	bool gone[OR_MAX_PROCS];	/* reaped: no longer in /proc */
	bool failed;			/* a wait timed out */
	int owed[OR_MAX_PROCS];		/* replies a stopped puppet will send once resumed */
	int fork_err[OR_MAX_PROCS];	/* why a name has no process */
	int image;			/* this program, for a puppet's execve */
	struct or_pidmap map;
	char dir[32];			/* the puppets' working directory (cores) */
	ino_t own_ns;			/* the driver's pid namespace (its inode) */
	int nsfd[OR_MAX_PROCS * OR_MAX_LEVELS];	/* the namespaces of the places, */
	int nsfds;			/* held open: their inodes stay theirs */
};

/* ---- the puppet (each one is a process of its own: plain globals) ---- */

static volatile sig_atomic_t puppet_ncaught;
static volatile sig_atomic_t puppet_caught[OR_MAX_SIGS];
static siginfo_t puppet_last;	/* the siginfo of the last one caught */

static void puppet_catch(int sig, siginfo_t *si, void *ucontext)
{
	int n = puppet_ncaught;

	(void)ucontext;
	if (n < OR_MAX_SIGS) {
		puppet_caught[n] = sig;
		puppet_ncaught = n + 1;
	}
	puppet_last = *si;
}

/* A fork child starts a record of its own. */
static void puppet_forget_caught(void)
{
	puppet_ncaught = 0;
	memset(&puppet_last, 0, sizeof(puppet_last));
}

/* Read exactly @len bytes: 0, or -1 at end of file. */
static int read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;	/* a caught signal: its handler ran */
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static long puppet_sigaction(long sig, long act)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = act == ACT_IGN ? SIG_IGN : SIG_DFL;
	if (or_act_catches(act))
		sa.sa_sigaction = puppet_catch;
	sa.sa_flags = or_act_flags(act);
	return sigaction((int)sig, &sa, NULL);
}

/* Raw rt_sigprocmask: glibc's wrapper would hide its own signals from the set. */
static long puppet_sigprocmask(long how, long sig)
{
	uint64_t set = sig > 0 && sig <= 64 ? 1ULL << (sig - 1) : 0;

	return syscall(SYS_rt_sigprocmask, how, &set, NULL, sizeof(set));
}

/*
 * The run's pty: the driver holds the master for the whole run; a puppet
 * opens the slave, without making it its terminal, at its first terminal
 * call (TIOCSCTTY makes it one).
 */
static int pty_master = -1;
static char pty_slave[64];
static int puppet_tty = -1;

static long puppet_tty_ioctl(unsigned long request, void *arg)
{
	if (puppet_tty < 0 && (puppet_tty = open(pty_slave, O_RDWR | O_NOCTTY)) < 0)
		return -1;
	return ioctl(puppet_tty, request, arg);
}

/* tcgetpgrp(3) on the pty's slave (not the master: only the slave's answer
 * depends on its being the caller's controlling terminal). */
static long puppet_tcgetpgrp(void)
{
	pid_t pgrp;
	long ret = puppet_tty_ioctl(TIOCGPGRP, &pgrp);

	return ret ? ret : pgrp;
}

static long puppet_waitid(const struct real_cmd *c, struct or_reply *r)
{
	siginfo_t si;
	long ret;

	memset(&si, 0, sizeof(si));
	ret = waitid((idtype_t)c->a, (id_t)c->b, &si, (int)c->c | WNOHANG);
	or_reply_siginfo(r, &si);
	return ret;
}

/* The raw call: glibc's wrapper treats the PEEK requests' data differently. */
static long puppet_ptrace(const struct real_cmd *c, struct or_reply *r)
{
	void *data = c->a == PTRACE_GETEVENTMSG ? (void *)&r->msg : (void *)c->c;
	siginfo_t si;
	long ret;

	if (c->a != PTRACE_GETSIGINFO && c->a != PTRACE_SETSIGINFO)
		return syscall(SYS_ptrace, c->a, (pid_t)c->b, NULL, data);
	memset(&si, 0, sizeof(si));
	ret = syscall(SYS_ptrace, PTRACE_GETSIGINFO, (pid_t)c->b, NULL, &si);
	if (ret || c->a == PTRACE_GETSIGINFO) {
		or_reply_siginfo(r, &si);
		return ret;
	}
	si.si_signo = (int)c->c;
	si.si_code = SI_QUEUE;
	return syscall(SYS_ptrace, PTRACE_SETSIGINFO, (pid_t)c->b, NULL, &si);
}

/* Spin until this thread has used @ns more of CPU time. */
static long puppet_burn(long ns)
{
	struct timespec ts;
	long start;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	start = ts.tv_sec * 1000000000L + ts.tv_nsec;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while (ts.tv_sec * 1000000000L + ts.tv_nsec - start < ns);
	return 0;
}

/* The raw timer calls: glibc's wrappers keep ids of their own for SIGEV_THREAD. */
static long puppet_timer_create(long sig)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = (int)sig };
	int id;
	long ret = syscall(SYS_timer_create, CLOCK_PROCESS_CPUTIME_ID, &sev, &id);

	return ret ? ret : id;
}

static long puppet_timer_set(long id, long abs_ns, long interval_ns)
{
	struct itimerspec its = {
		{ interval_ns / 1000000000L, interval_ns % 1000000000L },
		{ abs_ns / 1000000000L, abs_ns % 1000000000L },
	};

	return syscall(SYS_timer_settime, (int)id, TIMER_ABSTIME, &its, NULL);
}

/* Raw rt_sigpending (glibc's would hide its own signals), into @r's signal list. */
static long puppet_sigpending(struct or_reply *r)
{
	uint64_t set = 0;
	long ret = syscall(SYS_rt_sigpending, &set, sizeof(set));

	or_reply_sigset(r, set);
	return ret;
}

/* NSpid of /proc/@pid/status into @nr: how many levels (0 if unreadable). */
static int read_nspid(pid_t pid, pid_t nr[OR_MAX_LEVELS])
{
	char path[64], line[256], *p, *end;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && strncmp(line, "NSpid:", 6))
		;
	fclose(f);
	if (strncmp(line, "NSpid:", 6))
		return 0;
	for (p = line + 6; n <= OR_MAX_LEVELS; p = end, n++) {
		long level_nr = strtol(p, &end, 10);

		if (end == p)
			break;
		if (n == OR_MAX_LEVELS)
			return 0;	/* deeper than a place holds */
		nr[n] = (pid_t)level_nr;
	}
	return n;
}

/*
 * setns(2) into the pid namespace (or pid_for_children) of the process the
 * driver numbers @pid: through /proc, which every puppet shares with the
 * driver (none mounts its own).
 */
static long puppet_setns(long pid, long for_children)
{
	char path[64];
	long ret;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%ld/ns/%s", pid,
		 for_children ? "pid_for_children" : "pid");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = setns(fd, CLONE_NEWPID);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/* The NSpid line of process @pid (of /proc, the driver's), into @r. */
static long puppet_nspid(long pid, struct or_reply *r)
{
	r->nspids = read_nspid((pid_t)pid, r->nspid);
	if (r->nspids)
		return 0;
	/* No such process: /proc has no such entry, which rcuproc answers as ESRCH. */
	errno = ESRCH;
	return -1;
}

static long puppet_children_cpu(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_CHILDREN, &ru) ? -1 : or_rusage_ns(&ru);
}

static void puppet_do(const struct real_cmd *c, struct or_reply *r)
{
	errno = 0;
	switch (c->op) {
	case OP_WAIT4:
		r->ret = wait4((pid_t)c->a, &r->status, (int)c->b | WNOHANG, NULL);
		break;
	case OP_WAITID:
		r->ret = puppet_waitid(c, r);
		break;
	case OP_KILL:
		r->ret = kill((pid_t)c->a, (int)c->b);
		break;
	case OP_TGKILL:
		r->ret = syscall(SYS_tgkill, c->a, c->b, c->c);
		break;
	case OP_SIGACTION:
		r->ret = puppet_sigaction(c->a, c->b);
		break;
	case OP_SIGPROCMASK:
		r->ret = puppet_sigprocmask(c->a, c->b);
		break;
	case OP_SETRESUID:
		r->ret = syscall(SYS_setresuid, c->a, c->b, c->c);
		break;
	case OP_PRCTL:
		r->ret = prctl((int)c->a, (unsigned long)c->b, 0UL, 0UL, 0UL);
		break;
	case OP_SETPGID:
		r->ret = setpgid((pid_t)c->a, (pid_t)c->b);
		break;
	case OP_IOPRIO_SET:
		r->ret = syscall(SYS_ioprio_set, c->a, c->b, c->c);
		break;
	case OP_IOPRIO_GET:
		r->ret = syscall(SYS_ioprio_get, c->a, c->b);
		break;
	case OP_SETRLIMIT:
		r->ret = setrlimit((int)c->a, &(struct rlimit){ (rlim_t)c->b, (rlim_t)c->b });
		break;
	case OP_GETPID:
		r->ret = getpid();
		break;
	case OP_SETSID:
		r->ret = setsid();
		break;
	case OP_TIOCSCTTY:
		r->ret = puppet_tty_ioctl(TIOCSCTTY, (void *)0L);
		break;
	case OP_TIOCSPGRP:
		r->ret = puppet_tty_ioctl(TIOCSPGRP, &(pid_t){ (pid_t)c->a });
		break;
	case OP_TIOCNOTTY:
		r->ret = puppet_tty_ioctl(TIOCNOTTY, NULL);
		break;
	case OP_TIOCGPGRP:
		r->ret = puppet_tcgetpgrp();
		break;
	case OP_GETPPID:
		r->ret = getppid();
		break;
	case OP_SIGS:
		r->nsigs = puppet_ncaught;
		for (int i = 0; i < r->nsigs; i++)
			r->sigs[i] = puppet_caught[i];
		break;
	case OP_SIGINFO:
		or_reply_siginfo(r, &puppet_last);
		break;
	case OP_PTRACE:
		r->ret = puppet_ptrace(c, r);
		break;
	case OP_BURN:
		r->ret = puppet_burn(c->a);
		break;
	case OP_TIMER_CREATE:
		r->ret = puppet_timer_create(c->a);
		break;
	case OP_TIMER_SET:
		r->ret = puppet_timer_set(c->a, c->b, c->c);
		break;
	case OP_TIMER_GETOVERRUN:
		r->ret = syscall(SYS_timer_getoverrun, (int)c->a);
		break;
	case OP_TIMER_DELETE:
		r->ret = syscall(SYS_timer_delete, (int)c->a);
		break;
	case OP_SIGPENDING:
		r->ret = puppet_sigpending(r);
		break;
	case OP_CHILDREN_CPU:
		r->ret = puppet_children_cpu();
		break;
	case OP_UNSHARE:
		r->ret = unshare((int)c->a);
		break;
	case OP_SETNS:
		r->ret = puppet_setns(c->a, c->b);
		break;
	case OP_NSPID:
		r->ret = puppet_nspid(c->a, r);
		break;
	case OP_ATTACH_POLL:
		r->ret = syscall(SYS_ptrace, c->a, (pid_t)c->b, NULL, NULL);
		if (r->ret == 0)
			r->ret = wait4((pid_t)c->b, &r->status, __WALL | WNOHANG, NULL);
		break;
	default:		/* OP_PING */
		break;
	}
	r->err = r->ret < 0 ? errno : 0;
}

/* fork(), or the raw clone(2) with @c's flags and no stack, which forks as well. */
static long puppet_fork(const struct real_cmd *c)
{
	if (c->op == OP_FORK)
		return fork();
	return syscall(SYS_clone, (unsigned long)c->b, 0L, NULL, NULL, 0L);
}

static void puppet_reply(const struct real_run *run, int self, const struct or_reply *r)
{
	if (write(run->rep[self][1], r, sizeof(*r)) != (ssize_t)sizeof(*r))
		_exit(0);
}

#define PUPPET_ENV	"RP_ORACLE_PUPPET"

/*
 * Run this program again as puppet @self: its name, the image's fd and every
 * puppet-side fd go in the environment, for puppet_after_exec.  The image is
 * an anonymous copy of the program (oracle_image), so that a puppet which
 * became an unprivileged user can execute it wherever the build tree is and
 * whatever its mode.  Returns only on failure.
 */
static void puppet_exec(const struct real_run *run, int self, struct or_reply *r)
{
	char env[32 + OR_MAX_PROCS * 24];
	char *argv[] = { "oracle-puppet", NULL }, *envp[] = { env, NULL };
	size_t n = (size_t)snprintf(env, sizeof(env), PUPPET_ENV "=%d %d",
				    self, run->image);

	for (int i = 0; i < OR_MAX_PROCS; i++)
		n += (size_t)snprintf(env + n, sizeof(env) - n, " %d %d",
				      run->cmd[i][0], run->rep[i][1]);
	fexecve(run->image, argv, envp);
	r->ret = -1;
	r->err = errno;
}

static __attribute__((noreturn)) void puppet_loop(struct real_run *run, int self);

struct puppet_thread {
	struct real_run *run;
	int self;
	pid_t tid;
	sem_t started;
};

static void *puppet_thread_main(void *arg)
{
	struct puppet_thread *pt = arg;
	struct real_run *run = pt->run;
	int self = pt->self;

	pt->tid = gettid();
	sem_post(&pt->started);		/* @pt is gone from here on */
	puppet_loop(run, self);
}

/* A new thread of this puppet that answers to name @self: its tid, or -1. */
static long puppet_thread(struct real_run *run, int self)
{
	struct puppet_thread pt = { .run = run, .self = self };
	pthread_t th;
	int err;

	sem_init(&pt.started, 0, 0);
	err = pthread_create(&th, NULL, puppet_thread_main, &pt);
	if (err) {
		errno = err;
		pt.tid = -1;
	} else {
		while (sem_wait(&pt.started) && errno == EINTR)
			;
	}
	sem_destroy(&pt.started);
	return pt.tid;
}

static __attribute__((noreturn)) void puppet_loop(struct real_run *run, int self)
{
	for (;;) {
		struct real_cmd c;
		struct or_reply r;

		if (read_full(run->cmd[self][0], &c, sizeof(c)))
			_exit(0);	/* the driver is gone */
		memset(&r, 0, sizeof(r));
		if (c.op == OP_EXIT)
			_exit((int)c.a);
		if (c.op == OP_THREAD_EXIT)
			syscall(SYS_exit, c.a);	/* this thread only, as rcuproc's rp_exit */
		if (c.op == OP_EXEC) {
			puppet_exec(run, self, &r);
		} else if (c.op == OP_THREAD) {
			r.ret = puppet_thread(run, (int)c.a);
			r.err = r.ret < 0 ? errno : 0;
		} else if (c.op == OP_FORK || c.op == OP_CLONE) {
			r.ret = puppet_fork(&c);
			if (r.ret == 0) {
				self = (int)c.a;	/* the child answers to its own name */
				puppet_forget_caught();
				continue;
			}
			r.err = r.ret < 0 ? errno : 0;
		} else {
			puppet_do(&c, &r);
		}
		puppet_reply(run, self, &r);
	}
}

/*
 * Runs before main in every image of this program: one that a puppet's
 * execve started answers that call (0) and goes on as the same puppet.
 */
static __attribute__((constructor)) void puppet_after_exec(void)
{
	static struct real_run run;
	const char *env = getenv(PUPPET_ENV);
	const struct or_reply ok = { .ret = 0 };
	char *p;
	int self;

	if (!env)
		return;
	self = (int)strtol(env, &p, 10);
	run.image = (int)strtol(p, &p, 10);
	for (int i = 0; i < OR_MAX_PROCS; i++) {
		run.cmd[i][0] = (int)strtol(p, &p, 10);
		run.rep[i][1] = (int)strtol(p, &p, 10);
	}
	puppet_reply(&run, self, &ok);
	puppet_loop(&run, self);
}

static bool is_puppet_fd(const struct real_run *run, int fd)
{
	if (fd == run->image)
		return true;
	for (int i = 0; i < OR_MAX_PROCS; i++)
		if (fd == run->cmd[i][0] || fd == run->rep[i][1])
			return true;
	return false;
}

/* P0: a clean process (default actions, nothing blocked, no stray fds) that
 * stands in for init as the scenario's child subreaper. */
static __attribute__((noreturn)) void puppet_start(struct real_run *run, pid_t driver)
{
	uint64_t none = 0;

	for (int fd = 3; fd < 1024; fd++)
		if (!is_puppet_fd(run, fd))
			close(fd);
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);	/* fails harmlessly for glibc's 32, 33 */
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0UL, 0UL, 0UL);
	if (getppid() != driver || chdir(run->dir))
		_exit(0);	/* the driver died before the line above */
	prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
	puppet_loop(run, P0);
}

/* ---- the driver ---- */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ms * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * /proc/<pid>/stat read into @buf of @size, from the ')' that ends the
 * command name (which may hold anything); NULL if gone.
 */
static const char *stat_after_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strrchr(buf, ')');
}

/* The state letter of /proc/<pid>/stat ('R', 'S', 'Z', 'X', ...), 0 if gone. */
static int proc_state(pid_t pid)
{
	char buf[512];
	const char *p = stat_after_comm(pid, buf, sizeof(buf));

	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Is @pid past its exit point (PF_EXITING, the ninth field of
 * /proc/PID/stat) and asleep?  A namespace's init sleeps so in its exit
 * (zap_pid_ns_processes) until every other pid of its namespace is freed.
 */
static bool asleep_in_exit(pid_t pid)
{
	char buf[512];
	const char *p = stat_after_comm(pid, buf, sizeof(buf));
	unsigned long flags = 0;

	if (!p || sscanf(p + 1, " S %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & 0x4;	/* PF_EXITING */
}

static bool state_dead(int st)
{
	return st == 0 || st == 'Z' || st == 'X';
}

/* A group stop or a ptrace stop: it stays so until someone resumes it. */
static bool state_stopped(int st)
{
	return st == 'T' || st == 't';
}

/*
 * Wait for every tasklist_lock section running now to end.  setpgid() takes
 * the lock for writing before anything else; moving ourselves to our own
 * group changes nothing.  exit_notify() marks a task a zombie, notifies the
 * parent and, if the parent does not wait, marks it dead (EXIT_DEAD), all
 * inside one such section.
 */
static void tasklist_barrier(void)
{
	setpgid(0, getpgrp());
}

/*
 * Wait until dead @i's exit is complete: a zombie that will stay one, or
 * gone (reaped, or released because its parent does not wait).  False if
 * it stopped on the way instead (PTRACE_EVENT_EXIT): not dead yet.
 */
static bool await_settled_death(struct real_run *run, int i)
{
	pid_t pid = run->map.pid[i];
	long end = now_ms() + OR_HANG_MS;

	run->dead[i] = true;
	while (now_ms() < end) {
		int st = proc_state(pid);

		if (st == 0) {
			run->gone[i] = true;
			return true;
		}
		if (st == 'Z') {
			tasklist_barrier();
			if (proc_state(pid) == 'Z')
				return true;
		}
		if (state_stopped(st)) {
			run->dead[i] = false;	/* its tracer lets it go on */
			return false;
		}
		if (st == 'S' && asleep_in_exit(pid))
			return true;	/* an init waiting for its namespace's pids */
		sleep_ms(1);
	}
	run->failed = true;
	return true;
}

/*
 * Wait for @i's reply, or its death, or its stop: OR_OK, OR_KILLED,
 * OR_STOPPED or OR_TIMEOUT.  A stopped puppet owes the reply: it reads the
 * command once resumed, and that reply is skipped when it comes.
 */
static int await_reply(struct real_run *run, int i, struct or_reply *r)
{
	struct pollfd pfd = { .fd = run->rep[i][0], .events = POLLIN };
	long end = now_ms() + OR_HANG_MS;
	int st = 'R';

	while (now_ms() < end) {
		/* Once dead or stopped, one last look: it may have answered just before. */
		bool last = state_dead(st) || state_stopped(st);
		int ready = poll(&pfd, 1, last ? 0 : 10);

		if (ready > 0 && (pfd.revents & POLLIN) &&
		    read_full(run->rep[i][0], r, sizeof(*r)) == 0) {
			if (run->owed[i] == 0)
				return OR_OK;
			/* An answer owed since a stop: it runs again, look afresh. */
			run->owed[i]--;
			st = 'R';
			continue;
		}
		if (state_dead(st))
			return OR_KILLED;
		if (state_stopped(st)) {
			run->owed[i]++;
			return OR_STOPPED;
		}
		st = proc_state(run->map.pid[i]);
	}
	run->failed = true;
	return OR_TIMEOUT;
}

/* Send @c to @i and collect the answer in @r (r->how says how it went). */
static void real_ask(struct real_run *run, int i, const struct real_cmd *c,
		     struct or_reply *r)
{
	memset(r, 0, sizeof(*r));
	if (!run->map.pid[i] || run->dead[i]) {
		r->how = OR_NOPROC;
		r->err = run->fork_err[i];
		return;
	}
	if (state_stopped(proc_state(run->map.pid[i]))) {
		r->how = OR_STOPPED;	/* it would read the command only once resumed */
		return;
	}
	if (write(run->cmd[i][1], c, sizeof(*c)) != (ssize_t)sizeof(*c)) {
		r->how = OR_NOPROC;
		return;
	}
	if (c->op == OP_EXIT || c->op == OP_THREAD_EXIT) {
		if (!await_settled_death(run, i))
			r->how = OR_STOPPED;
		return;
	}
	r->how = await_reply(run, i, r);
	if (r->how == OR_KILLED)
		await_settled_death(run, i);
}

/* One pass of settling @i; true if it died or was reaped meanwhile. */
static bool settle_one(void *arg, int i)
{
	struct real_run *run = arg;
	const struct real_cmd ping = { .op = OP_PING };
	bool was_dead = run->dead[i], was_gone = run->gone[i];
	struct or_reply r;

	if (!run->map.pid[i] || run->gone[i])
		return false;
	if (!run->dead[i])
		real_ask(run, i, &ping, &r);
	else
		await_settled_death(run, i);	/* a zombie may be released later */
	return run->dead[i] != was_dead || run->gone[i] != was_gone;
}

/*
 * The child that stopped fork @s made, from /proc's list of its parent's
 * children: the one no name has yet.  The fork stopped for its tracer (a
 * traced fork event) before it answered; its child's pid is needed now.
 */
static pid_t stopped_fork_child(const struct real_run *run, const struct or_step *s)
{
	pid_t parent = run->map.pid[s->who], pid, found = 0;
	char path[64];
	FILE *f;
	bool named;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", parent, parent);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fscanf(f, "%d", &pid) == 1) {
		named = false;
		for (int i = 0; i < OR_MAX_PROCS; i++)
			named |= run->map.pid[i] == pid;
		if (!named)
			found = pid;
	}
	fclose(f);
	return found;
}

/*
 * Where the process (or thread) numbered @pid by the driver is: NSpid, and
 * each level's namespace from /proc/@pid/ns/pid up by NS_GET_PARENT, held
 * open.  0, or -1 if it cannot be told (the level 0 found must be the
 * driver's own namespace, and /proc the driver's: @pid its first number).
 */
static int real_place(struct real_run *run, pid_t pid, struct or_place *pl)
{
	char path[64];
	struct stat st;
	int n = read_nspid(pid, pl->nr), fd;

	if (n == 0 || pl->nr[0] != pid)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (int l = n - 1; l >= 0; l--) {
		if (fd < 0 || run->nsfds == OR_MAX_PROCS * OR_MAX_LEVELS || fstat(fd, &st)) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		run->nsfd[run->nsfds++] = fd;
		pl->ns[l] = (uintptr_t)st.st_ino;
		if (l > 0)
			fd = ioctl(fd, NS_GET_PARENT);
	}
	pl->levels = n;
	return pl->ns[0] == (uintptr_t)run->own_ns ? 0 : -1;
}

/*
 * The driver's number of the child fork @s made, which answered @ret: the
 * caller's own number for it, the driver's unless the caller is in a
 * namespace below; then the caller's child that no name has yet (a thread
 * there is not supported: 0).
 */
static pid_t real_child_pid(const struct real_run *run, const struct or_step *s, long ret)
{
	if (run->map.place[s->who].levels <= 1)
		return (pid_t)ret;
	return s->op == OP_THREAD ? 0 : stopped_fork_child(run, s);
}

static void real_step(struct real_run *run, const struct or_step *s, struct or_reply *r)
{
	struct or_pidmap view;
	long arg[3];
	struct real_cmd c;

	or_view(&run->map, s->who, &view);
	or_resolve_args(s, &view, arg);
	if (s->op == OP_SETNS)
		arg[0] = run->map.pid[s->a];	/* a name: its /proc entry */
	c = (struct real_cmd){ .op = s->op, .a = arg[0], .b = arg[1], .c = arg[2] };
	real_ask(run, s->who, &c, r);
	if (s->op != OP_FORK && s->op != OP_CLONE && s->op != OP_THREAD)
		return;
	if (r->how == OR_OK && r->ret > 0)
		run->map.pid[s->a] = real_child_pid(run, s, r->ret);
	else if (r->how == OR_OK)
		run->fork_err[s->a] = r->err;
	else if (r->how == OR_STOPPED && s->op != OP_THREAD)
		run->map.pid[s->a] = stopped_fork_child(run, s);
	if (r->how == OR_OK && r->ret > 0 && !run->map.pid[s->a]) {
		fprintf(stderr, "oracle: P%ld, made in a pid namespace below, has no number here\n",
			s->a);
		run->failed = true;
	} else if (run->map.pid[s->a] &&
		   real_place(run, run->map.pid[s->a], &run->map.place[s->a])) {
		fprintf(stderr, "oracle: cannot tell where P%ld (pid %d) is from /proc\n",
			s->a, run->map.pid[s->a]);
		run->failed = true;
	}
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The program a puppet's execve runs: a copy of this one in an anonymous
 * file, made once per test process (every run's puppets inherit the fd; it
 * stays open across their execve).  Executing /proc/self/exe directly would
 * need the user a puppet became (setresuid) to have search permission on
 * every directory above the build tree and execute permission on the file,
 * which a private checkout or a umask of 077 denies; the program links
 * librcuproc statically for the same reason (tests/meson.build).
 */
static int oracle_image(void)
{
	static int image = -1;
	char buf[65536];
	ssize_t n;
	int src;

	if (image >= 0)
		return image;
	src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	image = memfd_create("oracle-puppet", 0);
	if (src < 0 || image < 0 || fchmod(image, 0755))
		goto fail;
	while ((n = read(src, buf, sizeof(buf))) > 0)
		if (write(image, buf, (size_t)n) != n)
			goto fail;
	if (n < 0)
		goto fail;
	close(src);
	return image;
fail:
	if (src >= 0)
		close(src);
	if (image >= 0)
		close(image);
	image = -1;
	return -1;
}

static int real_setup(struct real_run *run)
{
	pid_t driver = getpid(), pid;
	struct stat st;

	memset(run, 0, sizeof(*run));
	run->image = oracle_image();
	if (run->image < 0)
		return -1;
	memset(run->cmd, -1, sizeof(run->cmd));
	memset(run->rep, -1, sizeof(run->rep));
	for (int i = 0; i < OR_MAX_PROCS; i++)
		if (pipe(run->cmd[i]) || pipe(run->rep[i]))
			return -1;
	if (stat("/proc/self/ns/pid", &st))
		return -1;
	run->own_ns = st.st_ino;
	run->map.ext = driver;
	/* A core_pattern naming a file writes a puppet's core here. */
	snprintf(run->dir, sizeof(run->dir), "/tmp/rp-oracle-XXXXXX");
	if (!mkdtemp(run->dir))
		return -1;
	/* Orphans of killed puppets come back to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL);
	signal(SIGPIPE, SIG_IGN);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		puppet_start(run, driver);
	run->map.pid[P0] = pid;
	for (int i = 0; i < OR_MAX_PROCS; i++) {
		close_fd(&run->cmd[i][0]);
		close_fd(&run->rep[i][1]);
	}
	return real_place(run, pid, &run->map.place[P0]);
}

/* Remove the puppets' working directory and the cores in it. */
static void remove_dir(struct real_run *run)
{
	DIR *d = run->dir[0] ? opendir(run->dir) : NULL;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(run->dir);
}

/* Kill every puppet and reap them all, with their orphans. */
static void real_teardown(struct real_run *run)
{
	long end = now_ms() + OR_HANG_MS;

	for (int i = 0; i < OR_MAX_PROCS; i++) {
		if (run->map.pid[i] && !run->gone[i])
			kill(run->map.pid[i], SIGKILL);
		for (int end = 0; end < 2; end++) {
			/* Any puppet we missed reads end-of-file and exits. */
			close_fd(&run->cmd[i][end]);
			close_fd(&run->rep[i][end]);
		}
	}
	for (int i = 0; i < run->nsfds; i++)
		close_fd(&run->nsfd[i]);
	while (now_ms() < end) {
		pid_t r = waitpid(-1, NULL, __WALL | WNOHANG);

		if (r < 0 && errno == ECHILD) {
			remove_dir(run);
			return;
		}
		if (r == 0)
			sleep_ms(1);
	}
	run->failed = true;
	remove_dir(run);
}

int or_run_linux(const struct or_scenario *sc, struct or_results *res)
{
	struct real_run run;
	struct or_reply r;
	struct or_pidmap view;
	int i;

	memset(res, 0, sizeof(*res));
	pty_master = posix_openpt(O_RDWR | O_NOCTTY);
	if (pty_master < 0 || grantpt(pty_master) || unlockpt(pty_master) ||
	    ptsname_r(pty_master, pty_slave, sizeof(pty_slave))) {
		close_fd(&pty_master);
		return -1;
	}
	if (real_setup(&run)) {
		close_fd(&pty_master);
		real_teardown(&run);
		return -1;
	}
	or_settle(&run, settle_one);
	for (i = 0; sc->steps[i].op != OP_END && i < OR_MAX_STEPS; i++) {
		real_step(&run, &sc->steps[i], &r);
		or_settle(&run, settle_one);
		or_view(&run.map, sc->steps[i].who, &view);
		or_format(&sc->steps[i], &r, &view, res->step[i], OR_RESULT_LEN);
	}
	res->n = i;
	real_teardown(&run);
	close_fd(&pty_master);
	return run.failed ? -1 : 0;
}
