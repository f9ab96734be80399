/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc ps: build a small simulated system and list it as
 * `ps -eo pid,ppid,pgid,sid,stat,ni,comm` would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rcuproc/rcuproc.h>
#include "common/cli.h"
#include "common/json.h"
#include "scene.h"

static const char about[] =
	"Builds a small simulated system (a daemon with threads, a login session\n"
	"running a build, a zombie, ...) and prints its process table like\n"
	"'ps -eo pid,ppid,pgid,sid,stat,ni,comm'.  STAT: S sleeping, T stopped,\n"
	"t traced, Z zombie; then s session leader, < high or N low priority,\n"
	"l multi-threaded.";

struct ps_args {
	uint64_t procs;
	int mode;			/* enum rp_sync_mode */
	bool json;
};

static int parse_args(int argc, char **argv, struct ps_args *a)
{
	const struct cli_command cmd = { "ps", NULL, about, NULL, {
		{ "procs", 'p', CLI_U64, "N", "add N worker processes under the build; the\n"
		  "most, with the scene's own 11, fills the whole\n"
		  "pid space (pids 1 to 4194303)", "0", .min = 0, .max = PS_WORKERS_MAX,
		  .max_why = PS_WORKERS_MAX_WHY, .to = &a->procs },
		CLI_MODE(&a->mode),
		CLI_JSON(&a->json, "one JSON object per process"),
	} };

	return cli_parse(&cmd, argc, argv, NULL);
}

static void print_entry(const struct rp_ps_entry *e, bool json)
{
	char stat[8];

	rp_ps_stat(e, stat);
	if (json) {
		struct json j;

		json_record(&j, stdout, "process");
		json_int(&j, "pid", e->pid);
		json_int(&j, "ppid", e->ppid);
		json_int(&j, "pgid", e->pgid);
		json_int(&j, "sid", e->sid);
		json_string(&j, "stat", stat);
		json_int(&j, "ni", e->nice);
		json_uint(&j, "threads", e->nr_threads);
		json_string(&j, "comm", e->comm);
		json_record_end(&j);
	} else {
		printf("%7d %7d %7d %7d %-4s %3d %s\n", e->pid, e->ppid, e->pgid, e->sid,
		       stat, e->nice, e->comm);
	}
}

static int by_pid(const void *a, const void *b)
{
	const struct rp_ps_entry *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* List @self's system in pid order, as ps does; 0, or 1 if it could not. */
static int list_table(struct rp_task *self, bool json)
{
	long n = rp_ps_snapshot(self, NULL, 0);
	struct rp_ps_entry *rows;

	/* Room for processes forked since the count: nothing forks here. */
	rows = n > 0 ? calloc(n, sizeof(*rows)) : NULL;
	if (!rows)
		return 1;
	n = rp_ps_snapshot(self, rows, n);
	qsort(rows, n, sizeof(*rows), by_pid);
	if (!json)
		printf("%7s %7s %7s %7s %-4s %3s %s\n", "PID", "PPID", "PGID", "SID", "STAT",
		       "NI", "COMMAND");
	for (long i = 0; i < n; i++)
		print_entry(&rows[i], json);
	free(rows);
	return 0;
}

int cmd_ps(int argc, char **argv)
{
	struct ps_args a = { .mode = RP_SYNC_RCU };
	int ret = parse_args(argc, argv, &a);
	struct scene scene;

	if (ret >= 0)
		return ret;
	rp_thread_register();
	ret = ps_scene_build(&scene, a.mode, a.procs);
	if (ret) {
		fprintf(stderr, "rcuproc ps: could not build the system: %s\n", strerror(-ret));
		rp_thread_unregister();
		return 1;
	}
	ret = list_table(scene.init, a.json);
	ps_scene_destroy(&scene);
	rp_thread_unregister();
	return ret;
}
