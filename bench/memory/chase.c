/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The memory system's floor for a walk like killpg's: SIZE blocks of 736
 * bytes (a process's heap chunk) in one allocation, linked in descending
 * address order as fork links a group's members (each child right behind
 * the leader), and walked reading 1, 2, 4 or 7 distinct lines of each
 * block, the first holding the link.  Thread CPU time per block, best of
 * 3 walks.  No process table: what any walk of such a list costs at best.
 * docs/performance.md, "killpg per member: where the time goes".
 *
 *   BUILD/bench/memory/chase SIZE   (built with the library)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK		736
#define LINE_STEP	96	/* apart by more than a line: each read is a line of its own */

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Where the walk's reads go, so that the compiler keeps them. */
static volatile long sink;

/* One walk from the highest block down, reading @lines lines of each: ns. */
static double walk(char *top, int lines)
{
	double t0 = cpu_ns();

	for (char *b = top; b; b = *(char **)b)
		for (int l = 1; l < lines; l++)
			sink += *(long *)(b + l * LINE_STEP);
	return cpu_ns() - t0;
}

int main(int argc, char **argv)
{
	static const int lines[] = { 1, 2, 4, 7 };
	long n = argc == 2 ? atol(argv[1]) : 0;
	char *m = n > 0 ? malloc((size_t)n * BLOCK) : NULL;

	if (!m) {
		fprintf(stderr, "usage: chase SIZE (SIZE > 0, and memory for it)\n");
		return 1;
	}
	memset(m, 1, (size_t)n * BLOCK);
	*(char **)m = NULL;
	for (long i = 1; i < n; i++)
		*(char **)(m + i * BLOCK) = m + (i - 1) * BLOCK;
	for (unsigned int k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		double best = 1e300;

		for (int rep = 0; rep < 3; rep++) {
			double t = walk(m + (n - 1) * BLOCK, lines[k]);

			best = t < best ? t : best;
		}
		printf("%ld blocks, %d line%s each: %.1f ns a block\n", n, lines[k],
		       lines[k] == 1 ? "" : "s", best / n);
	}
	free(m);
	return 0;
}
