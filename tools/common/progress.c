/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "progress.h"

#define BAR_MAX		30	/* cells of the bar on a wide terminal */
#define LABEL_MAX	40
#define PERCENT_LEN	5	/* " NNN%" */

/* Columns the last bar took: what progress_clear and an interruption erase. */
static volatile sig_atomic_t drawn;

bool progress_wanted(void)
{
	return isatty(STDERR_FILENO);
}

/* The terminal's width, 80 when it does not say. */
static int columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* Erase @n columns of the current line; async-signal-safe. */
static void erase(int n)
{
	char blanks[256];

	if (n <= 0)
		return;
	if (n > (int)sizeof(blanks))
		n = sizeof(blanks);
	memset(blanks, ' ', n);
	if (write(STDERR_FILENO, "\r", 1) < 0 || write(STDERR_FILENO, blanks, n) < 0 ||
	    write(STDERR_FILENO, "\r", 1) < 0)
		return;
}

/* Ctrl-C or a kill while a bar is up: leave a clean line, then die of it. */
static void on_interrupt(int sig)
{
	erase(drawn);
	drawn = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_interrupts(void)
{
	static bool caught;
	struct sigaction sa = { .sa_handler = on_interrupt };

	if (caught)
		return;
	caught = true;
	sigemptyset(&sa.sa_mask);
	for (int i = 0, sigs[] = { SIGINT, SIGTERM, SIGHUP }; i < 3; i++) {
		struct sigaction old;

		/* A command that handles the signal itself keeps its handler. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
}

/*
 * "@label [#####.....] NN%", fitted to the terminal: the bar shrinks
 * first, then the label; on a very narrow terminal only the percentage.
 */
void progress_draw(const char *label, double done)
{
	int width = columns() - 1;	/* the last column would wrap */
	int label_len = (int)strlen(label), cells, filled;
	char bar[BAR_MAX + 1];

	catch_interrupts();
	if (done < 0)
		done = 0;
	if (done > 1)
		done = 1;
	if (label_len > LABEL_MAX)
		label_len = LABEL_MAX;
	cells = width - label_len - 3 - PERCENT_LEN;	/* " [" "]" */
	if (cells < 10) {
		label_len -= 10 - cells;
		cells = 10;
	}
	/* drawn is set before the bar is: an interruption mid-draw erases it all. */
	if (label_len < 0 || width < 10 + 3 + PERCENT_LEN) {
		drawn = PERCENT_LEN;
		fprintf(stderr, "\r%3d%%", (int)(done * 100 + 0.5));
		fflush(stderr);
		return;
	}
	if (cells > BAR_MAX)
		cells = BAR_MAX;
	filled = (int)(done * cells + 0.5);
	memset(bar, '#', filled);
	memset(bar + filled, '.', cells - filled);
	bar[cells] = '\0';
	drawn = label_len + cells + 3 + PERCENT_LEN;
	fprintf(stderr, "\r%.*s [%s] %3d%%", label_len, label, bar, (int)(done * 100 + 0.5));
	fflush(stderr);
}

void progress_clear(void)
{
	fflush(stderr);
	erase(drawn);
	drawn = 0;
}
