/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `rcuproc bench`, `demo` and `ps` work: short runs exit 0 and print
 * well-formed output.  No timing is asserted: these machines are shared.
 * Every subcommand answers --help and says what is wrong with a bad
 * number the same way (tools/common/cli.c).
 * RCUPROC names the built command (tests/bench/meson.build sets it).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rcuproc/version.h>
#include "../common.h"

/*
 * Run `rcuproc @args @redirect`; what reaches the pipe in a malloc'd *@out,
 * the exit code back.
 */
static int run_redirected(const char *args, const char *redirect, char **out)
{
	char cmd[1024];
	size_t len = 0, cap = 1 << 16;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "'%s' %s %s", getenv("RCUPROC"), args, redirect);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	*out = malloc(cap);
	for (size_t n; (n = fread(*out + len, 1, cap - len - 1, p)) > 0;) {
		len += n;
		if (len + 1 == cap)
			*out = realloc(*out, cap *= 2);
	}
	(*out)[len] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run `rcuproc @args`; its output in a malloc'd *@out, its exit code back. */
static int run_rcuproc(const char *args, char **out)
{
	return run_redirected(args, "2>/dev/null", out);
}

/* Run `rcuproc @args`, which must exit 0; its output (malloc'd). */
static char *run_ok(const char *args)
{
	char *out;
	int rc = run_rcuproc(args, &out);

	cr_assert_eq(rc, 0, "rcuproc %s: exit %d:\n%s", args, rc, out);
	return out;
}

/*
 * `rcuproc @args` prints at least @min lines, each a JSON object holding
 * @key, besides the environment and the speed-ups (bench/scaling_quick
 * checks those).
 */
/*
 * A quick run whose measurements last 10 ms: these tests check the output's
 * form, not its figures (each thread runs at least one operation however
 * short the run, so a ratio always has two numbers).
 */
#define QUICK "bench --quick --seconds 0.01 "

/* The record bench starts with: version, commit, build, machine, load. */
#define ENVIRONMENT_RECORD "{\"type\":\"environment\","
#define SPEEDUP_RECORD "{\"type\":\"speedup\","

static void expect_json_lines(const char *args, const char *key, int min)
{
	char *out = run_ok(args);
	int lines = 0;

	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		size_t len = strlen(line);

		cr_expect(len > 2 && line[0] == '{' && line[len - 1] == '}', "not JSON: %s", line);
		if (strstr(line, ENVIRONMENT_RECORD) || strstr(line, SPEEDUP_RECORD))
			continue;
		cr_expect(strstr(line, key) != NULL, "no %s in: %s", key, line);
		lines++;
	}
	cr_expect_geq(lines, min, "rcuproc %s: %d lines", args, lines);
	free(out);
}

Test(bench, suite_quick_json)
{
	expect_json_lines(QUICK "--json --workload suite", "\"ops_per_sec\":", 20);
}

Test(bench, targets_quick)
{
	char *out = run_ok(QUICK "--workload targets");

	cr_expect(strstr(out, "targets (performance contract: docs/performance.md)") != NULL);
	cr_expect(strstr(out, "memory per process") != NULL);
	cr_expect(strstr(out, " measured    median             min-max ") != NULL, "%s", out);
	cr_expect(strstr(out, "kill(pid,0) p999 ps+forks: qrwlock/rcu") != NULL, "%s", out);
	cr_expect(strstr(out, "lookup_storm fork p99: rcu / qrwlock") != NULL, "%s", out);
	cr_expect(strstr(out, "deferred-free backlog") != NULL, "%s", out);
	cr_expect(strstr(out, "kill(pid,0) level 2 / root namespace") != NULL, "%s", out);
	cr_expect(strstr(out, " error ") == NULL, "a target could not run:\n%s", out);
	free(out);
}

/* `rcuproc @args` exits 0 and prints @text. */
static void expect_output(const char *args, const char *text)
{
	char *out = run_ok(args);

	cr_expect(strstr(out, text) != NULL, "rcuproc %s:\n%s", args, out);
	free(out);
}

/*
 * Every run starts with where it ran; a debug build (as this suite's) says
 * on stderr that its figures are not for measuring.
 */
Test(bench, environment_record)
{
	static const char *const keys[] = {
		"\"commit\":\"", "\"buildtype\":\"", "\"debug_checks\":true,", "\"kernel\":\"",
		"\"cpu_model\":\"", "\"cpus_online\":", "\"loadavg\":[",
	};
	char *out;
	int rc = run_redirected("bench --workload kill0 --mode none --threads 1 --size 50 "
				"--ops 100 --json", "2>&1", &out);

	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "WARNING: this is a debug build") != NULL, "%s", out);
	cr_expect(strstr(out, ENVIRONMENT_RECORD "\"version\":\"") != NULL, "%s", out);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_expect(strstr(out, keys[i]) != NULL, "no %s in:\n%s", keys[i], out);
	free(out);
	out = run_ok("bench --workload kill0 --mode none --threads 1 --size 50 --ops 100");
	cr_expect(strstr(out, "debug checks ON (not for measuring)") != NULL, "%s", out);
	free(out);
}

/*
 * kill0_ns: the same processes looked up from the root, level 1 and level
 * 2, the levels in turn, 32 lookups a step: 100 steps of each level.
 */
Test(bench, kill0_ns_levels)
{
	static const char *const kinds[] = { "kill0 root", "kill0 level1", "kill0 level2" };
	char *out = run_ok("bench --workload kill0_ns --mode rcu,qrwlock --threads 1 --size 100 "
			   "--ops 300 --json");
	char want[128];

	for (size_t i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "\"kind\":\"%s\",\"ops\":3200,", kinds[i]);
		cr_expect(strstr(out, want) != NULL, "no %s in:\n%s", want, out);
	}
	free(out);
}

Test(bench, fixed_ops)
{
	expect_output("bench --workload kill0 --mode none --threads 1 --size 50 --ops 1000 --json",
		      "\"ops\":1000,");
}

/* The reader's tail under a scan: three threads whatever --threads says. */
Test(bench, kill0_ps_quick)
{
	char *out = run_ok(QUICK "--json --workload kill0_ps --threads 1 "
			     "--mode rcu,qrwlock,none");
	int rows = 0;

	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		if (strstr(line, ENVIRONMENT_RECORD))
			continue;
		cr_expect(strstr(line, "\"workload\":\"kill0_ps\",\"threads\":3,") != NULL,
			  "%s", line);
		cr_expect(strstr(line, "\"mode\":\"none\"") == NULL, "a mix unsynchronized: %s",
			  line);
		rows++;
	}
	cr_expect_eq(rows, 6, "kill(pid,0), fork and ps in rcu and qrwlock: %d rows", rows);
	free(out);
}

/* Each result says how long its set-up took and the peak RSS so far. */
Test(bench, setup_and_rss)
{
	char *out = run_ok("bench --workload ps --mode rcu --threads 1 --size 2000 "
			     "--ops 2 --json");

	cr_expect(strstr(out, "\"setup_seconds\":") != NULL, "%s", out);
	cr_expect(strstr(out, "\"maxrss_kb\":") != NULL && strstr(out, "\"maxrss_kb\":0}") == NULL,
		  "%s", out);
	cr_expect(strstr(out, "\"size\":2000,") != NULL, "%s", out);
	free(out);
}

/* The usage says the workloads and how far the sizes go. */
Test(bench, help)
{
	expect_output("bench -h", "kill0_ps ");
	expect_output("bench -h", "[list of 1..4194301; default 1000,100000]");
	expect_output("ps --help", "[0..4194292; default 0]");
}

/*
 * The largest sizes that fill the whole pid space (pids 1 to 4194303) with
 * the bench's own processes are taken (--list: parsed, nothing built); one
 * more is a usage error that says why (pid_space_exceeded).
 */
Test(bench, whole_pid_space_accepted)
{
	expect_output("bench --workload kill0 --threads 1 --size 1,4194301 --list", "kill0 ");
	expect_output("bench --workload kill0 --threads 4 --size 4194298 --list", "kill0 ");
	expect_output("bench --workload lookup_storm --threads 1 --size 4194298 --list",
		      "lookup_storm ");
	expect_output("bench --workload getppid --threads 1 --size 4194301 --list", "getppid ");
}

Test(bench, bad_flags)
{
	static const char *const bad[] = {
		"bench --threads 0", "bench --mode fast", "bench --workload nosuch",
		"bench --size x", "bench extra", "demo --seconds -1", "ps --procs many",
		"demo --mode none", "bench --size 0", "bench --size 1000,4194302",
		"bench --size 1000,", "bench --threads 65", "bench --workload kill0_ps,",
	};
	char *out;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(run_rcuproc(bad[i], &out), 2, "rcuproc %s", bad[i]);
		free(out);
	}
}

Test(demo, short_run)
{
	char *out, args[256], dir[] = "/tmp/rcuproc-demo-XXXXXX";

	cr_assert_not_null(mkdtemp(dir));
	snprintf(args, sizeof(args), "demo --seconds 0.3 --procs 500 --out %s", dir);
	out = run_ok(args);
	cr_expect(strstr(out, "operations per second") != NULL);
	cr_expect(strstr(out, "FAIL") == NULL, "%s", out);
	/* Each table is followed by what its surprising rows mean. */
	cr_expect(strstr(out, "Reading it: p999 is the wait") != NULL, "%s", out);
	cr_expect(strstr(out, "docs/performance.md explains the rows") != NULL, "%s", out);
	/* What each role's CPU time bought: a row behind may be a role with less CPU. */
	cr_expect(strstr(out, "operations per CPU-second of the role that does them") != NULL,
		  "%s", out);
	cr_expect(strstr(out, "Reading it: the roles share the CPUs") != NULL, "%s", out);
	cr_expect(strstr(out, "docs/verification.md") != NULL, "%s", out);
	/* The container role: its services numbered inside their namespace, checked. */
	cr_expect(strstr(out, "container service") != NULL, "%s", out);
	cr_expect(strstr(out, "container pids inside") != NULL, "%s", out);
	free(out);
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	cr_expect_eq(system(args), 0);
}

/*
 * --out: missing directories are created, a quote in the name is only a
 * character (gnuplot runs without a shell), and a directory that cannot be
 * written fails before the run, with a non-zero exit.
 */
Test(demo, out_directory)
{
	char *out, args[512], dir[] = "/tmp/rcuproc-demo-XXXXXX", png[384];
	int rc;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(args, sizeof(args), "demo --seconds 0.2 --procs 100 --mode rcu "
		 "--out \"%s/new/it's here\"", dir);
	out = run_ok(args);
	free(out);
	snprintf(png, sizeof(png), "%s/new/it's here/demo.png", dir);
	cr_expect_eq(access(png, R_OK), 0, "no plot at %s", png);
	snprintf(args, sizeof(args), "demo --seconds 0.2 --procs 100 --mode rcu --out /proc/nope");
	rc = run_redirected(args, "2>&1", &out);
	cr_expect_eq(rc, 1, "exit %d:\n%s", rc, out);
	cr_expect(strstr(out, "cannot create /proc/nope") != NULL, "%s", out);
	cr_expect(strstr(out, "operations per second") == NULL, "ran before failing:\n%s", out);
	free(out);
	snprintf(args, sizeof(args), "rm -rf '%s'", dir);
	cr_expect_eq(system(args), 0);
}

Test(demo, json)
{
	expect_json_lines("demo --seconds 0.2 --mode rcu --procs 100 --no-plot --json",
			  "\"mode\":\"rcu\"", 8);
}

Test(ps, lists_the_table)
{
	char *out = run_ok("ps --procs 5");

	cr_expect(strstr(out, "PID    PPID    PGID     SID STAT  NI COMMAND") != NULL, "%s", out);
	cr_expect(strstr(out, " init\n") != NULL && strstr(out, " Z ") != NULL, "%s", out);
	cr_expect(strstr(out, " SsN ") != NULL && strstr(out, " Ssl ") != NULL, "%s", out);
	free(out);
}

/*
 * ps --ns: the container's namespace one level down with its init, the
 * sandbox two levels down, and each process's pid at each level.
 */
Test(ps, namespaces)
{
	static const char *const lines[] = {
		"pid namespace: the root, 10 processes\n",
		"  `- level 1: init 13 outside (1 inside), 3 processes\n",
		"    `- level 2: init 16 outside (1 inside), 1 process\n",
		" NSPID            COMMAND\n", " 13,1             tini\n",
		" 15,3             postgres\n", " 16,4,1           sandbox\n",
		" 1                init\n",
	};
	char *out = run_ok("ps --ns");

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		cr_expect(strstr(out, lines[i]) != NULL, "no '%s' in:\n%s", lines[i], out);
	free(out);
}

/* `rcuproc @args | jq -s @filter`, the records in one array, is true. */
static void expect_jq(const char *args, const char *filter)
{
	char *out;
	char redirect[512];
	int rc;

	snprintf(redirect, sizeof(redirect), "2>/dev/null | jq -e -s '%s'", filter);
	rc = run_redirected(args, redirect, &out);
	cr_expect_eq(rc, 0, "rcuproc %s | jq -s '%s': %d\n%s", args, filter, rc, out);
	free(out);
}

#define ALL_TYPED "length > 0 and all(.[]; (keys_unsorted | .[0]) == \"type\")"

/* Every subcommand's JSON goes through one writer: each record opens with its type. */
Test(cli, json_records_typed)
{
	expect_jq(QUICK "--json --workload kill0 --mode rcu", ALL_TYPED);
	expect_jq("demo --seconds 0.1 --mode rcu --procs 50 --no-plot --json", ALL_TYPED);
	expect_jq("ps --procs 5 --json", ALL_TYPED);
	expect_jq("ps --ns --json", ALL_TYPED " and any(.[]; .nspid == [16, 4, 1])");
	expect_jq("selfcheck --check seqcount --mode rcu --seconds 0.1 --json", ALL_TYPED);
	expect_jq("torture --seconds 0.2 --threads 2 --procs 8 --json", ALL_TYPED);
}

#define SPREAD_RUN QUICK "--workload targets --repeat 3 "

/*
 * Each target has the spread of its ratio over the 3 rounds, in order, in
 * JSON and in CSV (where each row has the header's 32 fields); its goal and
 * measure are numbers, its comparison apart.
 */
Test(bench, targets_spread)
{
	expect_jq(SPREAD_RUN "--format json",
		  "map(select(.type == \"target\")) | length >= 10 and all(.[]; .rounds == 3 "
		  "and (.measured_median | type) == \"number\" and .measured_min <= "
		  ".measured_median and .measured_median <= .measured_max and "
		  "(.goal | type) == \"number\" and (.comparison == \"<=\" or "
		  ".comparison == \">=\") and (.measured | type) == \"number\")");
	expect_jq(SPREAD_RUN "--format csv | python3 -c '"
		  "import csv, json, sys; r = list(csv.DictReader(sys.stdin)); "
		  "print(json.dumps(r))'",
		  ".[0] | map(select(.type == \"target\")) | length >= 10 and "
		  "all(.[]; (keys | length) == 32 and (.measured_min | tonumber) <= "
		  "(.measured_median | tonumber) and (.measured_median | tonumber) <= "
		  "(.measured_max | tonumber))");
}

Test(bench, list)
{
	char *out = run_ok("bench --list");

	cr_expect(strncmp(out, "  kill0 ", 8) == 0, "%s", out);
	cr_expect(strstr(out, "\n  timer_gettime ") != NULL, "%s", out);
	cr_expect(strstr(out, "rcuproc bench") == NULL, "measured instead of listing:\n%s", out);
	free(out);
}

#define FORMAT_RUN QUICK "--workload kill0,getpgid --mode rcu,none --repeat 3 "

/* Every row has the header's number of fields; the quick column says so. */
Test(bench, format_csv)
{
	expect_jq(FORMAT_RUN "--format csv | python3 -c '"
		  "import csv, json, sys; print(json.dumps([len(x) for x in csv.reader(sys.stdin)]))'",
		  ".[0] | length >= 7 and all(.[]; . == 32)");
	expect_jq(FORMAT_RUN "--format csv | python3 -c '"
		  "import csv, json, sys; r = list(csv.DictReader(sys.stdin)); "
		  "print(json.dumps(r))'",
		  ".[0] | length >= 6 and all(.[]; .type == \"result\" and .quick == \"true\" "
		  "and (.ops_per_sec | tonumber) > 0 and (.ops_per_sec_min | tonumber) <= "
		  "(.ops_per_sec_max | tonumber) and .repeats == \"3\" and (keys | length) == 32)");
}

Test(bench, format_json)
{
	expect_jq(FORMAT_RUN "--format json", "map(select(.type == \"result\")) | length >= 6 "
		  "and all(.[]; .quick == true and .repeats == 3 and .ops_per_sec_min <= "
		  ".ops_per_sec_median and .ops_per_sec_median <= .ops_per_sec_max)");
	/* --json is the same. */
	expect_jq(FORMAT_RUN "--json", "map(.type) | index(\"result\") != null");
}

/*
 * A fixed count of operations, not 0.01 s: on a loaded machine a thread
 * may get no operation done in 0.01 s, and a ratio whose one side is a
 * few operations can print as 0.00.
 */
#define SCALING_RUN "bench --quick --ops 200 --workload fork_own,fork_onepg,setpgid_own," \
	"setpgid_onepg,ptrace_own,ptrace_onepg,exec_own,stop_own --threads 1,2 --mode rcu,qrwlock "

/*
 * The update-side scaling workloads: every one in both modes with 1 and 2
 * threads, the shared writes of each counted operation (the cycle, not
 * its fork alone; this suite's is a debug build: a number, and a
 * fork+exit+wait makes some), and both
 * speed-ups of each of its kinds, numbers from this run's rows.
 */
Test(bench, scaling_quick)
{
	char *out;

	expect_jq(SCALING_RUN "--json",
		  "(map(select(.type == \"result\")) | length == 52 and "
		  "all(.[] | select(.kind != \"fork\" and .kind != \"exec\" and "
		  ".kind != \"exit\" and .kind != \"wait\"); "
		  "(.shared_writes_per_op | type) == \"number\") and "
		  "all(.[] | select(.kind == \"fork+exit+wait\" or .kind == \"fork+exec+exit+wait\"); "
		  ".shared_writes_per_op >= 1)) and "
		  "(map(select(.type == \"speedup\")) | length == 13 and "
		  "all(.[]; (.rcu_t2_over_rcu_t1 | type) == \"number\" and "
		  "(.rcu_t2_over_qrwlock_t2 | type) == \"number\"))");
	expect_jq(SCALING_RUN "--format csv | python3 -c '"
		  "import csv, json, sys; r = list(csv.DictReader(sys.stdin)); "
		  "print(json.dumps(r))'",
		  ".[0] | map(select(.type == \"speedup\")) | length == 26 and "
		  "all(.[]; (keys | length) == 32 and (.measured | tonumber) > 0)");
	out = run_ok(SCALING_RUN);
	cr_expect(strstr(out, "update-side scaling, ratios of this run's best ops/s (QUICK run") !=
		  NULL, "%s", out);
	cr_expect(strstr(out, "rcu: shared writes per setpgid ") != NULL, "%s", out);
	cr_expect(strstr(out, "rcu: shared writes per attach+detach ") != NULL, "%s", out);
	cr_expect(strstr(out, "rcu: shared writes per fork+exec+exit+wait ") != NULL, "%s", out);
	cr_expect(strstr(out, "rcu: shared writes per stop+cont cycle ") != NULL, "%s", out);
	free(out);
}

/*
 * The ptrace requests on a stopped tracee take the gate shared in rcu
 * mode: a GETEVENTMSG makes no shared write there, and one, the update
 * lock, in rcu-global; a seize..detach cycle no more than two, the
 * tracer's waits for its traps.  The marked lines: the tracee's siglock,
 * which the tracer and the tracee's thread take in turn, is handed over
 * some 8 to 14 times a cycle besides, as often as the schedule has it.
 */
Test(bench, ptrace_requests_shared_writes)
{
	expect_jq(QUICK "--workload ptrace_eventmsg,ptrace_requests --threads 1,2 "
		  "--mode rcu,rcu-global --json",
		  "map(select(.type == \"result\")) | length == 8 and "
		  "all(.[] | select(.mode == \"rcu\" and .workload == \"ptrace_eventmsg\"); "
		  ".shared_marked_per_op == 0) and "
		  "all(.[] | select(.mode == \"rcu-global\" and .workload == \"ptrace_eventmsg\"); "
		  ".shared_marked_per_op == 1) and "
		  "all(.[] | select(.mode == \"rcu\" and .workload == \"ptrace_requests\"); "
		  ".shared_marked_per_op <= 2)");
}

/*
 * Every workload then the targets: the list of every workload has room for
 * all of them.  It once had room for 17 entries, and a suite of 17 and the
 * NULL after them overwrote the flags that follow: the targets never ran.
 */
Test(bench, all_runs_the_targets)
{
	expect_jq(QUICK "--json --workload all --mode none --threads 1",
		  "map(select(.type == \"target\")) | length > 0");
}

/*
 * Markdown: each table is a header row, a separator row of as many
 * columns, and rows of as many; the side-by-side table names each mode.
 */
Test(bench, format_markdown)
{
	char *out = run_ok(FORMAT_RUN "--format markdown");
	int columns = 0, tables = 0, rows = 0, separator_next = 0;

	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		int n = 0;

		if (line[0] != '|') {
			columns = 0;
			continue;
		}
		for (char *c = line; *c; c++)
			n += *c == '|';
		if (!columns) {
			columns = n;
			tables++;
			separator_next = 1;
			continue;
		}
		cr_expect_eq(n, columns, "a row of %d columns in a table of %d: %s", n - 1,
			     columns - 1, line);
		if (separator_next)
			cr_expect(strncmp(line, "|---|", 5) == 0, "no separator: %s", line);
		else
			rows++;
		separator_next = 0;
	}
	cr_expect_eq(tables, 2, "the results and the modes side by side");
	cr_expect_geq(rows, 6 + 4);
	free(out);
	out = run_ok(FORMAT_RUN "--format markdown");
	cr_expect(strstr(out, "| workload | kind | threads | size | rcu | rwlock | qrwlock | rcu-global | none |")
		  != NULL, "%s", out);
	cr_expect(strstr(out, "QUICK run") != NULL, "%s", out);
	free(out);
}

Test(bench, text_side_by_side_and_quick)
{
	char *out = run_ok(FORMAT_RUN);

	cr_expect(strstr(out, "QUICK run") != NULL, "%s", out);
	cr_expect(strstr(out, "best ops/s, mode by mode (QUICK run: not meaningful):") != NULL,
		  "%s", out);
	cr_expect(strstr(out, "  median ") != NULL, "%s", out);
	free(out);
	out = run_ok("bench --workload kill0 --mode rcu --threads 1 --size 50 --ops 100");
	cr_expect(strstr(out, "QUICK") == NULL, "not a quick run:\n%s", out);
	free(out);
}

/*
 * SIGINT once the first result is out (read from the pipe, not waited
 * for): bench prints what it measured, then the interruption, and exits 130.
 * The whole suite takes minutes, far longer than the signal takes.
 */
Test(bench, sigint_prints_partial_results)
{
	int fds[2], status;
	pid_t pid;
	FILE *in;
	char line[4096];
	bool seen_result = false, interrupted = false;
	int results = 0;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(getenv("RCUPROC"), "rcuproc", "bench", "--format", "json", "--workload",
		      "suite", "--seconds", "0.2", "--size", "1000", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (fgets(line, sizeof(line), in)) {
		bool result = strstr(line, "{\"type\":\"result\"") == line;

		results += result;
		if (result && !seen_result)
			kill(pid, SIGINT);
		seen_result |= result;
		interrupted = strstr(line, "{\"type\":\"interrupted\"") == line;
	}
	fclose(in);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status 0x%x", status);
	cr_expect(seen_result && results >= 1);
	cr_expect(interrupted, "the last record is not the interruption");
}

static const char *const subcommands[] = {
	"selfcheck", "torture", "replay", "bench", "demo", "ps",
};

/* --version names the command's version, then the library's it runs on. */
Test(cli, version)
{
	static const char expect[] = "rcuproc " RCUPROC_VERSION_STRING " (library "
		RCUPROC_VERSION_STRING ", liburcu flavour ";
	char *out = run_ok("--version");

	cr_expect(strncmp(out, expect, strlen(expect)) == 0, "%s", out);
	free(out);
}

Test(cli, help_on_every_subcommand)
{
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		char args[64], usage[64], *out;

		snprintf(usage, sizeof(usage), "usage: rcuproc %s [OPTIONS]", subcommands[i]);
		for (int longer = 0; longer < 2; longer++) {
			snprintf(args, sizeof(args), "%s %s", subcommands[i],
				 longer ? "--help" : "-h");
			out = run_ok(args);
			cr_expect(strstr(out, usage) != NULL, "rcuproc %s:\n%s", args, out);
			cr_expect(strstr(out, "-h, --help") != NULL, "rcuproc %s:\n%s", args, out);
			free(out);
		}
	}
}

/* `rcuproc @args` exits 2 and says @message on stderr. */
static void expect_usage_error(const char *args, const char *message)
{
	char *err;
	int rc = run_redirected(args, "2>&1 >/dev/null", &err);

	cr_expect_eq(rc, 2, "rcuproc %s: exit %d", args, rc);
	cr_expect(strstr(err, message) != NULL, "rcuproc %s said:\n%s\nnot: %s", args, err,
		  message);
	free(err);
}

Test(cli, number_out_of_range)
{
	expect_usage_error("selfcheck --readers 65",
			   "selfcheck: --readers: 65 is out of range 1..64");
	expect_usage_error("torture --threads 0", "torture: --threads: 0 is out of range 1..64");
	expect_usage_error("torture --seed 18446744073709551616", "torture: --seed: "
			   "18446744073709551616 is out of range 0..18446744073709551615");
	expect_usage_error("bench --threads 0", "bench: --threads: 0 is out of range 1..64");
	expect_usage_error("bench --size 1,4294967296",
			   "bench: --size: 4294967296 is out of range 1..4194301: with init");
	expect_usage_error("demo --procs 1000001", "demo: --procs: 1000001 is out of range "
			   "0..1000000");
	expect_usage_error("demo --seconds 0", "demo: --seconds: 0 is out of range (0, 86400]");
}

/* One process past the whole pid space, and why (whole_pid_space_accepted). */
Test(cli, pid_space_exceeded)
{
	expect_usage_error("bench --workload kill0 --threads 1 --size 1,4194302 --list",
			   "bench: --size: 4194302 is out of range 1..4194301: with init and one "
			   "thread's process, 4194301 fill the whole pid space: with pid_max at "
			   "its limit, 4194304, the pids are 1 to 4194303");
	expect_usage_error("bench --workload kill0 --threads 1,4 --size 4194299 --list",
			   "bench: --size: 4194299 is more than the pid space holds: kill0 with 4 "
			   "threads takes 5 pids besides (init, its threads' processes), and with "
			   "pid_max at its limit, 4194304, the pids are 1 to 4194303; at most "
			   "4194298");
	expect_usage_error("bench --workload lookup_storm --threads 1 --size 4194299 --list",
			   "lookup_storm with 2 threads takes 5 pids besides (init, its threads' "
			   "processes and a child each)");
	expect_usage_error("ps --procs 4194293", "ps: --procs: 4194293 is out of range "
			   "0..4194292: with the scene's own 11 processes, 4194292 fill the whole "
			   "pid space: with pid_max at its limit, 4194304, the pids are 1 to "
			   "4194303");
	expect_usage_error("torture --weights fork=1001",
			   "torture: --weights: fork: 1001 is out of range 0..1000");
}

Test(cli, number_not_decimal)
{
	expect_usage_error("selfcheck --readers 0x10",
			   "selfcheck: --readers: '0x10' is not a decimal number in 1..64");
	expect_usage_error("torture --procs 12abc",
			   "torture: --procs: '12abc' is not a decimal number in 2..100000");
	expect_usage_error("bench --repeat ''", "bench: --repeat: '' is not a decimal number "
			   "in 1..100");
	expect_usage_error("bench --seconds 1e3", "bench: --seconds: '1e3' is not a decimal "
			   "number in (0, 86400]");
	expect_usage_error("demo --procs -1", "demo: --procs: '-1' is not a decimal number in "
			   "0..1000000");
	expect_usage_error("ps --procs 010x", "ps: --procs: '010x' is not a decimal number in "
			   "0..4194292");
}

Test(cli, names_and_options)
{
	expect_usage_error("replay --mode fast x",
			   "replay: --mode: 'fast' is not one of rcu, rwlock, qrwlock or rcu-global");
	expect_usage_error("demo --mode rcu,none",
			   "demo: --mode: 'none' is not one of rcu, rwlock, qrwlock, rcu-global or all");
	expect_usage_error("torture --nosuch", "torture: unknown option '--nosuch'");
	expect_usage_error("ps --procs", "ps: --procs: needs a value");
	expect_usage_error("selfcheck extra", "selfcheck: unexpected argument 'extra'");
}
