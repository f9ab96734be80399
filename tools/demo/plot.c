/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The demo's plot: a data file and a gnuplot script, rendered by gnuplot. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "demo.h"

/* One row per kind: its name, then ops/s and p99 (ns) of each mode. */
static int write_data(const char *path, unsigned int nr_modes, double seconds,
		      const struct demo_stats *st)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (unsigned int k = 0; k < K_NR; k++) {
		fprintf(f, "\"%s\"", demo_kind_names[k]);
		for (unsigned int m = 0; m < nr_modes; m++)
			fprintf(f, " %.1f %llu", st[m].ops[k] / seconds,
				(unsigned long long)hist_percentile(&st[m].hist[k], 0.99));
		fprintf(f, "\n");
	}
	return fclose(f);
}

/* Both panels for one terminal; the bars of mode m are columns 2m+2 and 2m+3. */
static void write_panels(FILE *f, const int *modes, unsigned int nr_modes)
{
	static const char *const panel[2][2] = {
		{ "throughput (operations per second)", "2" },
		{ "latency p99 (ns)", "3" },
	};

	fprintf(f, "set multiplot layout 1,2 title 'rcuproc demo: each mode, side by side'\n");
	for (unsigned int p = 0; p < 2; p++) {
		fprintf(f, "set title '%s'\nplot ", panel[p][0]);
		for (unsigned int m = 0; m < nr_modes; m++)
			fprintf(f, "%s'demo.dat' using %u:xtic(1) title '%s'",
				m ? ", " : "", 2 * m + atoi(panel[p][1]),
				rp_sync_mode_name(modes[m]));
		fprintf(f, "\n");
	}
	fprintf(f, "unset multiplot\n");
}

static int write_script(const char *path, const int *modes,
			unsigned int nr_modes)
{
	static const char *const terminals[2][2] = {
		{ "pngcairo noenhanced size 1400,600 font ',10'", "demo.png" },
		{ "svg noenhanced size 1400,600 dynamic font ',10'", "demo.svg" },
	};
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "# rcuproc demo plot: gnuplot demo.gp (in this directory)\n"
		"set style data histograms\nset style histogram clustered gap 1\n"
		"set style fill solid 0.8 border -1\nset logscale y\nset grid ytics\n"
		"set xtics rotate by -30\nset key top left\n");
	for (unsigned int t = 0; t < 2; t++) {
		fprintf(f, "set terminal %s\nset output '%s'\n", terminals[t][0],
			terminals[t][1]);
		write_panels(f, modes, nr_modes);
	}
	return fclose(f);
}

int demo_plot(const char *dir, const int *modes, unsigned int nr_modes,
	      double seconds, const struct demo_stats *by_mode)
{
	char path[4096], cmd[4200];

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rcuproc demo: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/demo.dat", dir);
	if (write_data(path, nr_modes, seconds, by_mode))
		return -1;
	snprintf(path, sizeof(path), "%s/demo.gp", dir);
	if (write_script(path, modes, nr_modes))
		return -1;
	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot demo.gp", dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "rcuproc demo: gnuplot failed (is gnuplot installed?); "
			"the data is in %s\n", dir);
		return -1;
	}
	return 0;
}
