/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The progress bar on a terminal (tools/common/progress.c): the command runs
 * with stderr on a pseudo-terminal of a given width; no drawn line may be
 * wider than the terminal, an interrupted run leaves no bar behind, and
 * bench's bar counts its measurements with the time left.
 * RCUPROC names the built command (tests/bench/meson.build sets it).
 */
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>

struct tty_run {
	char out[1 << 16];
	size_t len;
	int status;
};

/*
 * Run `rcuproc @argv...` on a terminal @cols wide; with @interrupt, send
 * SIGINT as soon as a bar has arrived.
 */
static void run_argv_on_tty(unsigned short cols, char *const argv[], bool interrupt,
			    struct tty_run *r)
{
	struct winsize ws = { .ws_row = 24, .ws_col = cols };
	bool sent = false;
	int master;
	pid_t pid = forkpty(&master, NULL, NULL, &ws);

	cr_assert_geq(pid, 0, "forkpty");
	if (pid == 0) {
		execv(getenv("RCUPROC"), argv);
		_exit(127);
	}
	r->len = 0;
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 120000) <= 0)
			break;
		n = read(master, r->out + r->len, sizeof(r->out) - 1 - r->len);
		if (n <= 0)
			break;	/* EIO: the child closed the terminal */
		r->len += n;
		if (interrupt && !sent && memchr(r->out, '%', r->len)) {
			kill(pid, SIGINT);
			sent = true;
		}
	}
	r->out[r->len] = '\0';
	close(master);
	cr_assert_eq(waitpid(pid, &r->status, 0), pid);
}

/* `rcuproc torture --seconds @seconds --threads 2` on a terminal. */
static void run_on_tty(unsigned short cols, const char *seconds, bool interrupt,
		       struct tty_run *r)
{
	char *const argv[] = {
		"rcuproc", "torture", "--seconds", (char *)seconds, "--threads", "2", NULL,
	};

	run_argv_on_tty(cols, argv, interrupt, r);
}

Test(progress, fits_the_terminal, .timeout = 300)
{
	static struct tty_run r;
	unsigned short widths[] = { 24, 50 };

	for (int i = 0; i < 2; i++) {
		run_on_tty(widths[i], "1", false, &r);
		cr_assert(strchr(r.out, '%'), "no bar drawn at width %u:\n%s", widths[i], r.out);
		/* Each bar is drawn from a \r and ends in its percentage. */
		for (char *at = strchr(r.out, '\r'); at; at = strchr(at + 1, '\r')) {
			size_t n = strcspn(at + 1, "\r\n");

			if (n && at[n] == '%')
				cr_assert_lt(n, widths[i], "a %zu-column bar on a %u-column "
					     "terminal: %.*s", n, widths[i], (int)n, at + 1);
		}
	}
}

Test(progress, interrupted_leaves_no_bar, .timeout = 300)
{
	static struct tty_run r;
	const char *last;

	run_on_tty(60, "30", true, &r);
	cr_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGINT,
		  "status %#x", r.status);
	last = strrchr(r.out, '\r');
	cr_assert_not_null(last, "no bar drawn:\n%s", r.out);
	cr_assert_eq(strspn(last + 1, " \r"), strlen(last + 1),
		     "the bar is still on the line: '%s'", last + 1);
}

/* bench's bar counts the measurements and, once one has run, says the time left. */
Test(progress, bench_counts_and_estimates, .timeout = 300)
{
	static struct tty_run r;
	char *const argv[] = {
		"rcuproc", "bench", "--workload", "kill0,getpgid", "--mode", "rcu,rwlock",
		"--threads", "1", "--size", "100", "--seconds", "0.2", "--repeat", "1", NULL,
	};

	run_argv_on_tty(100, argv, false, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "status %#x:\n%s",
		  r.status, r.out);
	cr_expect(strstr(r.out, "\rkill0 1/4") != NULL, "no count of 4 measurements:\n%s",
		  r.out);
	cr_expect(strstr(r.out, "/4 ETA ") != NULL, "no time left:\n%s", r.out);
}
