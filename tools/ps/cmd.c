/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc ps: build a small simulated system and list it as
 * `ps -eo pid,ppid,pgid,sid,stat,ni,comm` would.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rcuproc/rcuproc.h>
#include "common/cli.h"
#include "scene.h"

static void ps_help(void)
{
	printf("usage: rcuproc ps [OPTIONS]\n\n"
	       "Builds a small simulated system (a daemon with threads, a login session\n"
	       "running a build, a zombie, ...) and prints its process table like\n"
	       "'ps -eo pid,ppid,pgid,sid,stat,ni,comm'.  STAT: S sleeping, T stopped,\n"
	       "t traced, Z zombie; then s session leader, < high or N low priority,\n"
	       "l multi-threaded.\n\n"
	       "  --procs N   add N worker processes under the build (default 0)\n"
	       "  --mode M    rcu, rwlock or qrwlock (default rcu)\n"
	       "  --json      one JSON object per process\n"
	       "  --help      this text\n");
}

struct ps_args {
	uint64_t procs;
	enum rp_sync_mode mode;
	bool json;
};

static int parse_args(int argc, char **argv, struct ps_args *a)
{
	static const struct option longopts[] = {
		{ "procs", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!cli_parse_u64(optarg, 0, RP_PID_MAX_LIMIT / 2, &a->procs))
				return cli_usage_error("ps", "bad --procs '%s'", optarg);
			break;
		case 'm':
			if (rp_sync_mode_parse(optarg, &a->mode))
				return cli_usage_error("ps", "unknown mode '%s'", optarg);
			break;
		case 'j':
			a->json = true;
			break;
		case 'h':
			ps_help();
			return 0;
		default:
			return cli_usage_error("ps", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("ps", "unexpected argument '%s'", argv[optind]);
	return -1;
}

static void print_entry(const struct rp_ps_entry *e, bool json)
{
	char stat[8];

	rp_ps_stat(e, stat);
	if (json)
		printf("{\"pid\":%d,\"ppid\":%d,\"pgid\":%d,\"sid\":%d,\"stat\":\"%s\","
		       "\"ni\":%d,\"threads\":%u,\"comm\":\"%s\"}\n", e->pid, e->ppid,
		       e->pgid, e->sid, stat, e->nice, e->nr_threads, e->comm);
	else
		printf("%7d %7d %7d %7d %-4s %3d %s\n", e->pid, e->ppid, e->pgid, e->sid,
		       stat, e->nice, e->comm);
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
	ret = scene_build(&scene, a.mode, a.procs);
	if (ret) {
		fprintf(stderr, "rcuproc ps: could not build the system: %s\n", strerror(-ret));
		rp_thread_unregister();
		return 1;
	}
	ret = list_table(scene.init, a.json);
	scene_destroy(&scene);
	rp_thread_unregister();
	return ret;
}
