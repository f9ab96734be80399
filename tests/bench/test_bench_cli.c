/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `rcuproc bench`, `demo` and `ps` work: short runs exit 0 and print
 * well-formed output.  No timing is asserted: these machines are shared.
 * RCUPROC names the built command (tests/bench/meson.build sets it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../common.h"

/* Run `rcuproc @args`; its output in a malloc'd *@out, its exit code back. */
static int run_rcuproc(const char *args, char **out)
{
	char cmd[1024];
	size_t len = 0, cap = 1 << 16;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "'%s' %s 2>/dev/null", getenv("RCUPROC"), args);
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

/* Run `rcuproc @args`, which must exit 0; its output (malloc'd). */
static char *run_ok(const char *args)
{
	char *out;
	int rc = run_rcuproc(args, &out);

	cr_assert_eq(rc, 0, "rcuproc %s: exit %d:\n%s", args, rc, out);
	return out;
}

/* `rcuproc @args` prints at least @min lines, each a JSON object holding @key. */
static void expect_json_lines(const char *args, const char *key, int min)
{
	char *out = run_ok(args);
	int lines = 0;

	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		size_t len = strlen(line);

		cr_expect(len > 2 && line[0] == '{' && line[len - 1] == '}', "not JSON: %s", line);
		cr_expect(strstr(line, key) != NULL, "no %s in: %s", key, line);
		lines++;
	}
	cr_expect_geq(lines, min, "rcuproc %s: %d lines", args, lines);
	free(out);
}

Test(bench, suite_quick_json)
{
	expect_json_lines("bench --quick --json --workload suite", "\"ops_per_sec\":", 20);
}

Test(bench, targets_quick)
{
	char *out = run_ok("bench --quick --workload targets");

	cr_expect(strstr(out, "targets (performance contract: docs/performance.md)") != NULL);
	cr_expect(strstr(out, "memory per process") != NULL);
	cr_expect(strstr(out, " error ") == NULL, "a target could not run:\n%s", out);
	free(out);
}

Test(bench, fixed_ops)
{
	char *out = run_ok("bench --workload kill0 --mode none --threads 1 --size 50 "
			     "--ops 1000 --json");

	cr_expect(strstr(out, "\"ops\":1000,") != NULL, "%s", out);
	free(out);
}

Test(bench, bad_flags)
{
	static const char *const bad[] = {
		"bench --threads 0", "bench --mode fast", "bench --workload nosuch",
		"bench --size x", "bench extra", "demo --seconds -1", "ps --procs many",
		"demo --mode none",
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
