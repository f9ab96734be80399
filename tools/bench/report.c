/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <rcuproc/version.h>
#include "build_info.h"
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
		printf("{\"type\":\"environment\",\"version\":\"%s\",\"commit\":\"%s\","
		       "\"buildtype\":\"%s\",\"debug_checks\":%s,\"flavour\":\"%s\","
		       "\"kernel\":\"%s\",\"cpu_model\":\"%s\",\"cpus_online\":%u,"
		       "\"loadavg\":[%.2f,%.2f,%.2f]}\n",
		       rp_version(), RP_BUILD_COMMIT, RP_BUILD_TYPE,
		       debug_build() ? "true" : "false", rp_rcu_flavour(), u.release, model,
		       online_cpus(), load[0], load[1], load[2]);
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

/* The percentiles JSON reports: "pNN_ns" keys, then max_ns. */
static const struct {
	const char *key;
	double q;
} json_percentiles[] = {
	{ "p10", 0.10 }, { "p25", 0.25 }, { "p50", 0.50 }, { "p75", 0.75 }, { "p90", 0.90 },
	{ "p99", 0.99 }, { "p999", 0.999 }, { "p9999", 0.9999 },
};

static void print_json(const struct bench_result *res, unsigned int k)
{
	const struct bench_config *c = &res->cfg;
	const struct hist *h = &res->kinds[k].hist;

	printf("{\"mode\":\"%s\",\"flavour\":\"%s\",\"workload\":\"%s\",\"threads\":%u,"
	       "\"oversubscribed\":%s,\"size\":%lu,\"kind\":\"%s\",\"ops\":%llu,"
	       "\"seconds\":%.4f,\"ops_per_sec\":%.1f,\"samples\":%llu,",
	       rp_sync_mode_name(c->mode), rp_rcu_flavour(), c->w->name, c->threads,
	       c->threads > online_cpus() ? "true" : "false", c->size, c->w->kinds[k],
	       (unsigned long long)res->kinds[k].ops, res->seconds, bench_result_rate(res, k),
	       (unsigned long long)h->count);
	for (size_t i = 0; i < sizeof(json_percentiles) / sizeof(json_percentiles[0]); i++)
		printf("\"%s_ns\":%llu,", json_percentiles[i].key,
		       (unsigned long long)hist_percentile(h, json_percentiles[i].q));
	printf("\"max_ns\":%llu,\"bytes_per_process\":%.1f,\"backlog_max\":%lu,"
	       "\"backlog_end\":%lu,\"setup_seconds\":%.3f,\"maxrss_kb\":%ld}\n",
	       (unsigned long long)h->max, res->bytes_per_process, res->backlog_max,
	       res->backlog_end, res->setup_seconds, res->maxrss_kb);
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
