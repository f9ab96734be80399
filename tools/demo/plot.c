/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The demo's plot: a data file and a gnuplot script, rendered by gnuplot. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "demo.h"

extern char **environ;

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

/* mkdir -p @dir: 0, or -1 with the reason on stderr. */
int demo_plot_dir(const char *dir)
{
	char path[4096];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(path)) {
		fprintf(stderr, "rcuproc demo: bad output directory '%s'\n", dir);
		return -1;
	}
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; ; p++) {
		bool last = *p == '\0';

		if (*p != '/' && !last)
			continue;
		*p = '\0';
		if (mkdir(path, 0777) && errno != EEXIST) {
			fprintf(stderr, "rcuproc demo: cannot create %s: %s\n", path,
				strerror(errno));
			return -1;
		}
		if (last)
			break;
		*p = '/';
	}
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "rcuproc demo: cannot write in %s: %s\n", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* gnuplot demo.gp, run in @dir: no shell, so any name is safe. */
static int run_gnuplot(const char *dir)
{
	char *argv[] = { "gnuplot", "demo.gp", NULL };
	posix_spawn_file_actions_t actions;
	int err, status;
	pid_t pid;

	if (posix_spawn_file_actions_init(&actions))
		return -1;
	err = posix_spawn_file_actions_addchdir_np(&actions, dir);
	if (!err)
		err = posix_spawnp(&pid, "gnuplot", &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (err) {
		fprintf(stderr, "rcuproc demo: cannot run gnuplot: %s\n", strerror(err));
		return -1;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "rcuproc demo: gnuplot failed (is gnuplot installed?)\n");
		return -1;
	}
	return 0;
}

int demo_plot(const char *dir, const int *modes, unsigned int nr_modes,
	      double seconds, const struct demo_stats *by_mode)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/demo.dat", dir);
	if (write_data(path, nr_modes, seconds, by_mode))
		goto cannot_write;
	snprintf(path, sizeof(path), "%s/demo.gp", dir);
	if (write_script(path, modes, nr_modes))
		goto cannot_write;
	if (run_gnuplot(dir)) {
		fprintf(stderr, "rcuproc demo: the data and the script are in %s\n", dir);
		return -1;
	}
	return 0;
cannot_write:
	fprintf(stderr, "rcuproc demo: cannot write %s: %s\n", path, strerror(errno));
	return -1;
}
