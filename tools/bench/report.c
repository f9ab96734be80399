/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <rcuproc/version.h>
#include "build_info.h"
#include "common/json.h"
#include "report.h"

static unsigned int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

double bench_result_rate(const struct bench_result *res, unsigned int kind)
{
	return res->seconds > 0 ? res->kinds[kind].ops / res->seconds : 0;
}

/* Wall time per operation of one thread doing it. */
double bench_result_mean_ns(const struct bench_result *res, unsigned int kind)
{
	double rate = bench_result_rate(res, kind);

	return rate > 0 ? 1e9 / rate : 0;
}

/* The CPU's model name from /proc/cpuinfo, or "unknown". */
static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon) {
			snprintf(buf, len, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	if (f)
		fclose(f);
}

/* Did the library come with its debug checks (race windows, poisoning)? */
static bool debug_build(void)
{
#ifdef RP_DEBUG
	return true;
#else
	return false;
#endif
}

/*
 * Every run starts with where it ran: a figure from a debug build, or from
 * a machine with a load average of 20, is not one to compare with.
 */
void bench_report_environment(bool json)
{
	struct utsname u;
	char model[128];
	double load[3] = { -1, -1, -1 };

	uname(&u);
	cpu_model(model, sizeof(model));
	if (getloadavg(load, 3) < 0)
		load[0] = load[1] = load[2] = -1;
	if (debug_build())
		fprintf(stderr, "rcuproc bench: WARNING: this is a debug build (race-window "
			"delays, lock-order checks, poisoning): its figures do not measure the "
			"library users install; build it with 'meson setup' (release, the "
			"default) to measure\n");
	if (json) {
		struct json j;

		json_record(&j, stdout, "environment");
		json_string(&j, "version", rp_version());
		json_string(&j, "commit", RP_BUILD_COMMIT);
		json_string(&j, "buildtype", RP_BUILD_TYPE);
		json_bool(&j, "debug_checks", debug_build());
		json_string(&j, "flavour", rp_rcu_flavour());
		json_string(&j, "kernel", u.release);
		json_string(&j, "cpu_model", model);
		json_uint(&j, "cpus_online", online_cpus());
		json_array(&j, "loadavg");
		for (int i = 0; i < 3; i++)
			json_real(&j, NULL, load[i] < 0 ? NAN : load[i], 2);
		json_end(&j);
		json_record_end(&j);
		return;
	}
	printf("rcuproc bench %s (commit %s), %s build, debug checks %s, RCU flavour %s\n"
	       "  kernel %s, %s, %u CPUs online, load average %.2f %.2f %.2f\n",
	       rp_version(), RP_BUILD_COMMIT, RP_BUILD_TYPE,
	       debug_build() ? "ON (not for measuring)" : "off", rp_rcu_flavour(),
	       u.release, model, online_cpus(), load[0], load[1], load[2]);
}

void bench_report_header(bool json)
{
	if (json)
		return;
	printf("latencies in ns (lookups timed 1 call in %d); '*' marks more threads than "
	       "CPUs\n", BENCH_SAMPLE);
	printf("%-8s %-13s %4s %8s %-15s %12s %9s %9s %9s %7s %8s %7s %7s\n",
	       "mode", "workload", "thr", "size", "kind", "ops/s", "p50", "p99",
	       "p999", "B/proc", "backlog", "setup_s", "RSS_MB");
}

static void print_row(const struct bench_result *res, unsigned int k)
{
	const struct bench_config *c = &res->cfg;
	const struct hist *h = &res->kinds[k].hist;

	printf("%-8s %-13s %3u%c %8lu %-15s %12.0f %9llu %9llu %9llu %7.0f %8lu %7.1f %7ld\n",
	       rp_sync_mode_name(c->mode), c->w->name, c->threads,
	       c->threads > online_cpus() ? '*' : ' ', c->size, c->w->kinds[k],
	       bench_result_rate(res, k), (unsigned long long)hist_percentile(h, 0.50),
	       (unsigned long long)hist_percentile(h, 0.99),
	       (unsigned long long)hist_percentile(h, 0.999), res->bytes_per_process,
	       res->backlog_max, res->setup_seconds, res->maxrss_kb / 1024);
}

/* The percentiles JSON reports, then max_ns. */
static const struct {
	const char *key;
	double q;
} json_percentiles[] = {
	{ "p10_ns", 0.10 }, { "p25_ns", 0.25 }, { "p50_ns", 0.50 }, { "p75_ns", 0.75 },
	{ "p90_ns", 0.90 }, { "p99_ns", 0.99 }, { "p999_ns", 0.999 }, { "p9999_ns", 0.9999 },
};

static void print_json(const struct bench_result *res, unsigned int k)
{
	const struct bench_config *c = &res->cfg;
	const struct hist *h = &res->kinds[k].hist;

	struct json j;

	json_record(&j, stdout, "result");
	json_string(&j, "mode", rp_sync_mode_name(c->mode));
	json_string(&j, "flavour", rp_rcu_flavour());
	json_string(&j, "workload", c->w->name);
	json_uint(&j, "threads", c->threads);
	json_bool(&j, "oversubscribed", c->threads > online_cpus());
	json_uint(&j, "size", c->size);
	json_string(&j, "kind", c->w->kinds[k]);
	json_uint(&j, "ops", res->kinds[k].ops);
	json_real(&j, "seconds", res->seconds, 4);
	json_real(&j, "ops_per_sec", bench_result_rate(res, k), 1);
	json_uint(&j, "samples", h->count);
	for (size_t i = 0; i < sizeof(json_percentiles) / sizeof(json_percentiles[0]); i++)
		json_uint(&j, json_percentiles[i].key, hist_percentile(h, json_percentiles[i].q));
	json_uint(&j, "max_ns", h->max);
	json_real(&j, "bytes_per_process", res->bytes_per_process, 1);
	json_uint(&j, "backlog_max", res->backlog_max);
	json_uint(&j, "backlog_end", res->backlog_end);
	json_real(&j, "setup_seconds", res->setup_seconds, 3);
	json_int(&j, "maxrss_kb", res->maxrss_kb);
	json_record_end(&j);
}

void bench_report_result(const struct bench_result *res, bool json)
{
	for (unsigned int k = 0; k < BENCH_MAX_KINDS && res->cfg.w->kinds[k]; k++) {
		if (json)
			print_json(res, k);
		else
			print_row(res, k);
	}
	fflush(stdout);
}
