/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc ps: build a small simulated system and list it as
 * `ps -eo pid,ppid,pgid,sid,stat,ni,comm` would; with --ns, a container
 * too, the pid namespace tree, and each process's numbers at each level
 * (the NSpid line of /proc/PID/status).
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
	"l multi-threaded.  --ns adds a container (a pid namespace with its own\n"
	"init, two services and a sandbox one level further down), prints the\n"
	"namespace tree and an NSPID column: the pid in each namespace from the\n"
	"root down to the process's own, as /proc/PID/status's NSpid.";

struct ps_args {
	uint64_t procs;
	int mode;			/* enum rp_sync_mode */
	bool json;
	bool ns;
};

static int parse_args(int argc, char **argv, struct ps_args *a)
{
	const struct cli_command cmd = { "ps", NULL, about, NULL, {
		{ "procs", 'p', CLI_U64, "N", "add N worker processes under the build; the\n"
		  "most, with the scene's own 11, fills the whole\n"
		  "pid space (pids 1 to 4194303)", "0", .min = 0, .max = PS_WORKERS_MAX,
		  .max_why = PS_WORKERS_MAX_WHY, .to = &a->procs },
		CLI_MODE(&a->mode),
		{ "ns", 'n', CLI_FLAG, NULL, "a container too; the namespace tree and each\n"
		  "process's pid at each level", .to = &a->ns },
		CLI_JSON(&a->json, "one JSON object per process (and per namespace)"),
	} };

	return cli_parse(&cmd, argc, argv, NULL);
}

/* The most levels of a pid: the root and 32 below (Linux's MAX_PID_NS_LEVEL). */
#define PS_LEVELS	33

/* One row: a process, and with --ns its numbers and namespace. */
struct ps_row {
	struct rp_ps_entry e;
	pid_t nspid[PS_LEVELS];
	int levels;			/* 0: not asked */
	unsigned int ns;		/* index in the namespace list */
};

/* A pid namespace seen in the listing. */
struct ps_ns {
	struct rp_pidns *handle;	/* identifies it; put at the end */
	pid_t init;			/* its init's pid, 0 if not listed */
	pid_t init_parent;		/* that init's parent's */
	unsigned int level;
	unsigned long procs;
};

struct ps_nslist {
	struct ps_ns *ns;
	unsigned int nr;
};

static void print_row(const struct ps_row *r, bool json)
{
	const struct rp_ps_entry *e = &r->e;
	char stat[8], nspid[PS_LEVELS * 8] = "";
	size_t used = 0;

	rp_ps_stat(e, stat);
	for (int i = 0; i < r->levels && i < PS_LEVELS; i++)
		used += (size_t)snprintf(nspid + used, sizeof(nspid) - used, "%s%d", i ? "," : "",
					 r->nspid[i]);
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
		if (r->levels) {
			json_array(&j, "nspid");
			for (int i = 0; i < r->levels && i < PS_LEVELS; i++)
				json_int(&j, NULL, r->nspid[i]);
			json_end(&j);
		}
		json_string(&j, "comm", e->comm);
		json_record_end(&j);
	} else if (r->levels) {
		printf("%7d %7d %7d %7d %-4s %3d %-16s %s\n", e->pid, e->ppid, e->pgid, e->sid,
		       stat, e->nice, nspid, e->comm);
	} else {
		printf("%7d %7d %7d %7d %-4s %3d %s\n", e->pid, e->ppid, e->pgid, e->sid,
		       stat, e->nice, e->comm);
	}
}

static int by_pid(const void *a, const void *b)
{
	const struct ps_row *x = a, *y = b;

	return (x->e.pid > y->e.pid) - (x->e.pid < y->e.pid);
}

/* The index of @h's namespace in @l, added if new (@h is then kept, else put). */
static int ns_index(struct ps_nslist *l, struct rp_pidns *h, unsigned int level)
{
	struct ps_ns *grown;

	for (unsigned int i = 0; i < l->nr; i++) {
		if (l->ns[i].handle == h) {
			rp_pidns_put(h);
			return (int)i;
		}
	}
	grown = realloc(l->ns, (l->nr + 1) * sizeof(*grown));
	if (!grown) {
		rp_pidns_put(h);
		return -1;
	}
	l->ns = grown;
	l->ns[l->nr] = (struct ps_ns){ .handle = h, .level = level };
	return (int)l->nr++;
}

/*
 * Each row's numbers and namespace, as @self sees them.  A process
 * reaped meanwhile cannot be (nothing runs).  0, or 1 if it could not.
 */
static int read_namespaces(struct rp_task *self, struct ps_row *rows, long n,
			   struct ps_nslist *l)
{
	for (long i = 0; i < n; i++) {
		struct ps_row *r = &rows[i];
		struct rp_pidns *h;
		int at;

		r->levels = rp_proc_nspid(self, r->e.pid, r->nspid, PS_LEVELS);
		if (r->levels <= 0 || rp_pidns_open(self, r->e.pid, 0, &h))
			return 1;
		at = ns_index(l, h, (unsigned int)r->levels - 1);
		if (at < 0)
			return 1;
		r->ns = (unsigned int)at;
		l->ns[at].procs++;
		if (r->levels > 1 && r->nspid[r->levels - 1] == 1) {
			l->ns[at].init = r->e.pid;
			l->ns[at].init_parent = r->e.ppid;
		}
	}
	return 0;
}

/* The namespace of process @pid in @rows, or -1. */
static int ns_of_pid(const struct ps_row *rows, long n, pid_t pid)
{
	for (long i = 0; i < n; i++)
		if (rows[i].e.pid == pid)
			return (int)rows[i].ns;
	return -1;
}

/*
 * Print namespace @at and those below it, depth first: a namespace's
 * parent is its init's parent's namespace (the init is made from there).
 */
static void print_ns_tree(const struct ps_nslist *l, const struct ps_row *rows, long n,
			  unsigned int at, bool json)
{
	const struct ps_ns *ns = &l->ns[at];

	if (json) {
		struct json j;

		json_record(&j, stdout, "namespace");
		json_uint(&j, "level", ns->level);
		json_int(&j, "init", ns->level ? ns->init : 1);
		json_uint(&j, "processes", ns->procs);
		json_record_end(&j);
	} else if (!ns->level) {
		printf("pid namespace: the root, %lu process%s\n", ns->procs,
		       ns->procs == 1 ? "" : "es");
	} else {
		printf("%*s`- level %u: init %d outside (1 inside), %lu process%s\n",
		       (int)ns->level * 2, "", ns->level, ns->init, ns->procs,
		       ns->procs == 1 ? "" : "es");
	}
	for (unsigned int i = 0; i < l->nr; i++)
		if (l->ns[i].init && ns_of_pid(rows, n, l->ns[i].init_parent) == (int)at && i != at)
			print_ns_tree(l, rows, n, i, json);
}

/* List @self's system in pid order, as ps does; 0, or 1 if it could not. */
static int list_table(struct rp_task *self, bool json, bool ns)
{
	long n = rp_ps_snapshot(self, NULL, 0);
	struct ps_nslist l = { NULL, 0 };
	struct rp_ps_entry *entries;
	struct ps_row *rows;
	int ret = 0;

	/* Room for processes forked since the count: nothing forks here. */
	entries = n > 0 ? calloc(n, sizeof(*entries)) : NULL;
	rows = n > 0 ? calloc(n, sizeof(*rows)) : NULL;
	if (!entries || !rows) {
		free(entries);
		free(rows);
		return 1;
	}
	n = rp_ps_snapshot(self, entries, n);
	for (long i = 0; i < n; i++)
		rows[i].e = entries[i];
	free(entries);
	qsort(rows, n, sizeof(*rows), by_pid);
	if (ns) {
		ret = read_namespaces(self, rows, n, &l);
		if (!ret)
			print_ns_tree(&l, rows, n, (unsigned int)rows[0].ns, json);
	}
	if (!json && !ret && ns)
		printf("%7s %7s %7s %7s %-4s %3s %-16s %s\n", "PID", "PPID", "PGID", "SID", "STAT",
		       "NI", "NSPID", "COMMAND");
	else if (!json && !ret)
		printf("%7s %7s %7s %7s %-4s %3s %s\n", "PID", "PPID", "PGID", "SID", "STAT", "NI",
		       "COMMAND");
	for (long i = 0; i < n && !ret; i++)
		print_row(&rows[i], json);
	for (unsigned int i = 0; i < l.nr; i++)
		rp_pidns_put(l.ns[i].handle);
	free(l.ns);
	free(rows);
	return ret;
}

int cmd_ps(int argc, char **argv)
{
	struct ps_args a = { .mode = RP_SYNC_RCU };
	int ret = parse_args(argc, argv, &a);
	struct scene scene;

	if (ret >= 0)
		return ret;
	rp_thread_register();
	ret = ps_scene_build(&scene, a.mode, a.procs, a.ns);
	if (ret) {
		fprintf(stderr, "rcuproc ps: could not build the system: %s\n", strerror(-ret));
		rp_thread_unregister();
		return 1;
	}
	ret = list_table(scene.init, a.json, a.ns);
	ps_scene_destroy(&scene);
	rp_thread_unregister();
	return ret;
}
