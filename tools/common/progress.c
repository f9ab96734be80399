/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <unistd.h>
#include "progress.h"

#define BAR_WIDTH 30

bool progress_wanted(void)
{
	return isatty(STDERR_FILENO);
}

void progress_draw(const char *label, double done)
{
	int filled = (int)(done * BAR_WIDTH + 0.5);

	if (filled > BAR_WIDTH)
		filled = BAR_WIDTH;
	fprintf(stderr, "\r%-40.40s [%.*s%*s] %3d%%", label, filled,
		"##############################", BAR_WIDTH - filled, "",
		(int)(done * 100 + 0.5));
	fflush(stderr);
}

void progress_clear(void)
{
	fprintf(stderr, "\r%*s\r", 40 + BAR_WIDTH + 8, "");
	fflush(stderr);
}
