/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Same answers as Linux (I8), from real programs: every recording of
 * tests/replay/corpus replays into rcuproc with no mismatch, in each mode;
 * a recording with one answer altered is reported, at the altered line.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../common.h"
#include "../../tools/replay/replay.h"

/* Replay @path in @mode; the report goes to @report (may be NULL). */
static int replay_path(const char *path, enum rp_sync_mode mode, char **report)
{
	/* A replay that hangs fails the test instead of holding it. */
	struct replay_opts opts = { .mode = mode, .watchdog_seconds = 300 };
	struct replay_reader r;
	size_t len;
	FILE *in = fopen(path, "r"), *out;
	int mismatches;

	cr_assert(in, "cannot open %s", path);
	replay_reader_init(&r, in, path);
	out = open_memstream(report, &len);
	mismatches = replay_run_trace(&r, &opts, out, NULL);
	fclose(out);
	replay_reader_free(&r);
	fclose(in);
	cr_assert_geq(mismatches, 0, "%s cannot be replayed (see stderr)", path);
	return mismatches;
}

static void replay_corpus(enum rp_sync_mode mode)
{
	DIR *dir = opendir(REPLAY_CORPUS);
	struct dirent *de;
	int files = 0;

	cr_assert(dir, "no corpus at %s", REPLAY_CORPUS);
	rp_thread_register();
	while ((de = readdir(dir))) {
		char path[512], *report = NULL;
		int mismatches;

		if (!strstr(de->d_name, ".strace"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", REPLAY_CORPUS, de->d_name);
		mismatches = replay_path(path, mode, &report);
		cr_expect_eq(mismatches, 0, "%s", report);
		free(report);
		files++;
	}
	closedir(dir);
	rp_thread_unregister();
	cr_assert_geq(files, 20, "only %d recordings", files);
}

TEST_EACH_MODE(corpus, replay_corpus)

/*
 * Copy corpus/@name to a temporary file with the first line containing
 * @match (and @also) changed: @from replaced by @to.  Returns its line.
 */
static int altered_copy(const char *name, const char *match, const char *also,
			const char *from, const char *to, char *out_path)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	int n = 0, altered = 0, fd;
	FILE *in, *out;

	snprintf(path, sizeof(path), "%s/%s", REPLAY_CORPUS, name);
	strcpy(out_path, "/tmp/rcuproc-replay-XXXXXX");
	fd = mkstemp(out_path);
	in = fopen(path, "r");
	out = fdopen(fd, "w");
	cr_assert(in && out);
	while (getline(&line, &cap, in) >= 0) {
		char *at = strstr(line, from);

		n++;
		if (!altered && strstr(line, match) && strstr(line, also) && at) {
			fprintf(out, "%.*s%s%s", (int)(at - line), line, to, at + strlen(from));
			altered = n;
			continue;
		}
		fputs(line, out);
	}
	free(line);
	fclose(in);
	fclose(out);
	cr_assert(altered, "%s has no line with %s", name, match);
	return altered;
}

static void expect_reported(const char *name, const char *match, const char *also,
			    const char *from, const char *to)
{
	char path[64], where[96], *report = NULL;
	int line = altered_copy(name, match, also, from, to, path);
	int mismatches;

	rp_thread_register();
	mismatches = replay_path(path, RP_SYNC_RCU, &report);
	rp_thread_unregister();
	unlink(path);
	snprintf(where, sizeof(where), "%s:%d:", path, line);
	cr_expect_eq(mismatches, 1, "%s", report);
	cr_expect(strstr(report, where), "the report does not name %s:\n%s", where, report);
	free(report);
}

Test(altered, return_value)
{
	expect_reported("proc_errors.strace", "kill(", "= -1 ESRCH", "ESRCH", "EPERM");
}

Test(altered, signal)
{
	expect_reported("dash_pipeline.strace", "--- SIGCHLD", "si_code=0x1", "si_code=0x1",
			"si_code=0x2");
}

/* A death's and a stop's wait status, each with another signal. */
Test(altered, wait_status)
{
	expect_reported("bash_stop_cont.strace", "wait4(", "WTERMSIG(s) == SIGTERM", "SIGTERM",
			"SIGINT");
	expect_reported("bash_stop_cont.strace", "wait4(", "WSTOPSIG(s) == SIGTSTP", "SIGTSTP",
			"SIGTTIN");
}

/*
 * The child trace_child seizes is replayed, not skipped: its trap's notice
 * (CLD_STOPPED), the siginfo of its signal's stop, and the stop its seize
 * leaves for the very next WNOHANG wait (PTRACE_EVENT_STOP).
 */
Test(altered, traced_child)
{
	expect_reported("trace_child.strace", "--- SIGCHLD", "si_status=0,", "si_code=0x5",
			"si_code=0x4");
	expect_reported("trace_child.strace", "ptrace(0x4202", "si_signo=10", "si_code=0",
			"si_code=-6");
	expect_reported("trace_child.strace", "wait4(", "0x40000001", "|0x80<<16]", "]");
}

/*
 * In a pid namespace below strace's, pids are compared as the caller
 * there sees them: a getpid, a getppid, a wait's result, a signal's
 * sender, and a noted argument, each with a number Linux did not give.
 */
Test(altered, namespace_pids)
{
	expect_reported("pidns_clone.strace", "getpid()", "= 2 /*", "= 2 /*", "= 4 /*");
	expect_reported("pidns_clone.strace", "getppid()", "= 0", "= 0", "= 1");
	expect_reported("pidns_clone.strace", "wait4(3 /*", "NULL) = 3", "NULL) = 3", "NULL) = 5");
	expect_reported("pidns_clone.strace", "--- SIGUSR1", "si_pid=3 /*", "si_pid=3", "si_pid=2");
	expect_reported("unshare_sh.strace", "kill(1 /*", ", 0)", "kill(1 /*", "kill(2 /*");
}

/*
 * clone3's set_tid: the numbers a program asks for are rcuproc's too, so
 * a number other than the one asked (as Linux never gives) is reported,
 * and so is an EEXIST for 0, which is no number (EINVAL).
 */
Test(altered, set_tid)
{
	expect_reported("clone3_set_tid.strace", "set_tid=[700]", "= 700 /*", "= 700 /*",
			"= 701 /*");
	expect_reported("clone3_set_tid.strace", "set_tid=[0]", "EINVAL", "EINVAL", "EEXIST");
}

/*
 * setns through a pidfd puts the next child in the pidfd's process's pid
 * namespace: its number there is compared, and so are the ESRCH of a
 * setns through the pidfd of a process that is gone and the siginfo of
 * a waitid(P_PIDFD).
 */
Test(altered, pidfd)
{
	expect_reported("pidfd_setns.strace", "getpid()", "= 2 /*", "= 2 /*", "= 1 /*");
	expect_reported("pidfd_setns.strace", "setns(", "ESRCH", "= -1 ESRCH (No such process)",
			"= 0");
	expect_reported("pidfd_setns.strace", "waitid(0x3,", "si_code=0x2", "si_code=0x2",
			"si_code=0x1");
}
