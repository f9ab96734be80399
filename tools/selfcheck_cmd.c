/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rcuproc selfcheck: run the list toolkit's concurrent self-checks. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "lists/selfcheck.h"
#include "cli.h"

static void selfcheck_help(void)
{
	printf("usage: rcuproc selfcheck [OPTIONS]\n\n"
	       "Runs reader threads against an updater for each check of the RCU list\n"
	       "toolkit, in each synchronization mode, and counts broken promises.\n"
	       "Exits 1 if any check saw a violation or leaked a node.\n\n"
	       "  --check NAME    one check (default: all):");
	for (int k = 0; k < RP_CHECK_NR; k++)
		printf(" %s", rp_check_name(k));
	printf("\n  --mode MODE     rcu, rwlock, qrwlock or all (default: all)\n"
	       "  --seconds S     run time of each check in each mode (default: 1)\n"
	       "  --readers N     reader threads, 1 to 64 (default: 2)\n"
	       "  --seed N        seed of the random choices (default: 1)\n"
	       "  --json          one JSON object per line instead of a table\n"
	       "  --help          this text\n");
}

struct selfcheck_args {
	int check;			/* -1: all */
	int mode;			/* -1: all */
	struct rp_check_opts opts;
	bool json;
};

static int parse_args(int argc, char **argv, struct selfcheck_args *a)
{
	static const struct option longopts[] = {
		{ "check", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{ "readers", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (strcmp(optarg, "all") &&
			    rp_check_parse(optarg, (enum rp_check_kind *)&a->check))
				return cli_usage_error("selfcheck", "unknown check '%s'", optarg);
			break;
		case 'm':
			if (strcmp(optarg, "all") &&
			    rp_sync_mode_parse(optarg, (enum rp_sync_mode *)&a->mode))
				return cli_usage_error("selfcheck", "unknown mode '%s'", optarg);
			break;
		case 's':
			if (!cli_parse_seconds(optarg, &a->opts.seconds))
				return cli_usage_error("selfcheck", "bad --seconds '%s'", optarg);
			break;
		case 'r':
			if (!cli_parse_u64(optarg, 1, 64, &v))
				return cli_usage_error("selfcheck", "bad --readers '%s'", optarg);
			a->opts.readers = v;
			break;
		case 'S':
			if (!cli_parse_u64(optarg, 0, UINT64_MAX, &a->opts.seed))
				return cli_usage_error("selfcheck", "bad --seed '%s'", optarg);
			break;
		case 'j':
			a->json = true;
			break;
		case 'h':
			selfcheck_help();
			return 0;
		default:
			return cli_usage_error("selfcheck", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("selfcheck", "unexpected argument '%s'", argv[optind]);
	return -1;
}

static void print_result(const struct selfcheck_args *a, int check, int mode,
			 const struct rp_check_result *r)
{
	const char *verdict = r->violations || r->leaked ? "FAIL" : "ok";
	const char *mode_name = rp_check_uses_mode(check) ? rp_sync_mode_name(mode) : "-";

	if (a->json) {
		printf("{\"check\":\"%s\",\"mode\":\"%s\",\"seconds\":%.3f,\"walks\":%llu,"
		       "\"updates\":%llu,\"restarts\":%llu,\"violations\":%llu,"
		       "\"leaked\":%llu,\"result\":\"%s\"}\n",
		       rp_check_name(check), mode_name, r->seconds,
		       (unsigned long long)r->walks, (unsigned long long)r->updates,
		       (unsigned long long)r->restarts, (unsigned long long)r->violations,
		       (unsigned long long)r->leaked, verdict);
	} else {
		printf("%-16s %-8s %12llu %10llu %10llu %10llu %6llu  %s\n",
		       rp_check_name(check), mode_name, (unsigned long long)r->walks,
		       (unsigned long long)r->updates, (unsigned long long)r->restarts,
		       (unsigned long long)r->violations, (unsigned long long)r->leaked,
		       verdict);
		if (r->violations)
			printf("    first violation: %s\n", r->first_violation);
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
	return r.violations || r.leaked;
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
