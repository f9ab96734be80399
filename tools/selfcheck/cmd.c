/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc selfcheck: run the list toolkit's concurrent self-checks. */
#include <stdio.h>
#include <string.h>
#include "verify/selfcheck.h"
#include "common/cli.h"
#include "common/json.h"

static const char about[] =
	"Runs reader threads against an updater for each check of the RCU list\n"
	"toolkit, in each synchronization mode, and counts broken promises.\n"
	"Exits 1 if any check saw a violation or leaked a node.";

struct selfcheck_args {
	int check;			/* -1: all */
	int mode;			/* -1: all */
	struct rp_check_opts opts;
	bool json;
};

/* The checks' names, for the option table. */
static const char *const *rp_check_names(void)
{
	static const char *names[RP_CHECK_NR + 1];

	for (int k = 0; k < RP_CHECK_NR; k++)
		names[k] = rp_check_name(k);
	return names;
}

static int parse_args(int argc, char **argv, struct selfcheck_args *a)
{
	const struct cli_command cmd = { "selfcheck", NULL, about, NULL, {
		{ "check", 'c', CLI_ENUM, "NAME", "one check", "all",
		  .names = rp_check_names(), .all = true, .to = &a->check },
		{ "mode", 'm', CLI_ENUM, "MODE", "one synchronization mode", "all",
		  .names = cli_mode_names(false), .all = true, .to = &a->mode },
		{ "seconds", 's', CLI_REAL, "S", "run time of each check in each mode", "1",
		  .limit = 86400, .to = &a->opts.seconds },
		{ "readers", 'r', CLI_UINT, "N", "reader threads", "2",
		  .min = 1, .max = 64, .to = &a->opts.readers },
		{ "seed", 0, CLI_U64, "N", "seed of the random choices", "1",
		  .min = 0, .max = UINT64_MAX, .to = &a->opts.seed },
		CLI_JSON(&a->json, "one JSON object per line instead of a table"),
	} };

	return cli_parse(&cmd, argc, argv, NULL);
}

static void print_result(const struct selfcheck_args *a, int check, int mode,
			 const struct rp_check_result *r)
{
	const char *verdict = r->report.violations || r->leaked ? "FAIL" : "ok";
	const char *mode_name = rp_check_uses_mode(check) ? rp_sync_mode_name(mode) : "-";

	if (a->json) {
		struct json j;

		json_record(&j, stdout, "check");
		json_string(&j, "check", rp_check_name(check));
		json_string(&j, "mode", mode_name);
		json_real(&j, "seconds", r->seconds, 3);
		json_uint(&j, "walks", r->walks);
		json_uint(&j, "updates", r->updates);
		json_uint(&j, "restarts", r->restarts);
		json_uint(&j, "violations", r->report.violations);
		json_uint(&j, "leaked", r->leaked);
		json_string(&j, "result", verdict);
		if (r->report.violations)
			json_string(&j, "first_violation", r->report.first[0]);
		json_record_end(&j);
	} else {
		printf("%-16s %-8s %12llu %10llu %10llu %10llu %6llu  %s\n",
		       rp_check_name(check), mode_name, (unsigned long long)r->walks,
		       (unsigned long long)r->updates, (unsigned long long)r->restarts,
		       (unsigned long long)r->report.violations, (unsigned long long)r->leaked,
		       verdict);
		if (r->report.violations)
			printf("    first violation: %s\n", r->report.first[0]);
	}
	fflush(stdout);
}

static int run_one(const struct selfcheck_args *a, int check, int mode)
{
	struct rp_check_opts opts = a->opts;
	struct rp_check_result r;
	int err;

	opts.mode = mode;
	err = rp_check_run(check, &opts, &r);
	if (err) {
		fprintf(stderr, "rcuproc selfcheck: %s in %s could not run: %s\n",
			rp_check_name(check), rp_sync_mode_name(mode), strerror(-err));
		return 1;
	}
	print_result(a, check, mode, &r);
	return r.report.violations || r.leaked;
}

int cmd_selfcheck(int argc, char **argv)
{
	struct selfcheck_args a = {
		.check = -1, .mode = -1,
		.opts = { .readers = 2, .seconds = 1.0, .seed = 1 },
	};
	int ret = parse_args(argc, argv, &a), failed = 0;

	if (ret >= 0)
		return ret;
	if (!a.json)
		printf("rcuproc selfcheck: %u readers, %.1f s each, seed %llu, RCU flavour %s\n"
		       "%-16s %-8s %12s %10s %10s %10s %6s  %s\n",
		       a.opts.readers, a.opts.seconds, (unsigned long long)a.opts.seed,
		       rp_rcu_flavour(), "check", "mode", "walks", "updates", "restarts",
		       "violations", "leaked", "result");
	for (int k = 0; k < RP_CHECK_NR; k++) {
		if (a.check >= 0 && a.check != k)
			continue;
		for (int m = 0; m < RP_SYNC_NR_MODES; m++) {
			if (a.mode >= 0 && a.mode != m)
				continue;
			failed |= run_one(&a, k, m);
			if (!rp_check_uses_mode(k))
				break;	/* the mode makes no difference */
		}
	}
	if (!a.json)
		printf("%s\n", failed ? "selfcheck: FAILED" : "selfcheck: all checks passed");
	return failed;
}
