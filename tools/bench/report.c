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

/* The mean of @kind's recorded latencies (what the workload timed). */
double bench_result_latency_mean_ns(const struct bench_result *res, unsigned int kind)
{
	return hist_mean(&res->kinds[kind].hist);
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

const char *const bench_format_names[] = { "text", "csv", "json", "markdown", NULL };

/* What the run prints: set once by bench_report_begin. */
static struct {
	enum bench_format format;
	bool quick;
	struct side_row *rows;		/* the side-by-side table, in run order */
	size_t nr_rows;
} report;

/* What a release build says in place of the count: it has none. */
static const char shared_na[] = "n/a (release build)";

static const char quick_note[] =
	"QUICK run: tiny tables and short measurements, to check that it works; "
	"its figures mean nothing";

/*
 * Every run starts with where it ran: a figure from a debug build, or from
 * a machine with a load average of 20, is not one to compare with.  CSV
 * keeps its rows alone on stdout: there it goes to stderr.
 */
static void print_environment(void)
{
	FILE *out = report.format == BENCH_CSV ? stderr : stdout;
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
	if (report.format == BENCH_JSON) {
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
		json_bool(&j, "quick", report.quick);
		json_record_end(&j);
		return;
	}
	fprintf(out, "rcuproc bench %s (commit %s), %s build, debug checks %s, RCU flavour %s\n"
		"  kernel %s, %s, %u CPUs online, load average %.2f %.2f %.2f\n",
		rp_version(), RP_BUILD_COMMIT, RP_BUILD_TYPE,
		debug_build() ? "ON (not for measuring)" : "off", rp_rcu_flavour(),
		u.release, model, online_cpus(), load[0], load[1], load[2]);
	if (report.quick)
		fprintf(out, "%s%s%s\n", report.format == BENCH_MARKDOWN ? "\n**" : "",
			quick_note, report.format == BENCH_MARKDOWN ? "**\n" : "");
}

/* The CSV columns: a result's, then a target's (tools/bench/targets.c). */
static const char csv_header[] =
	"type,quick,flavour,mode,workload,threads,oversubscribed,size,kind,ops_per_sec,"
	"ops_per_sec_median,ops_per_sec_min,ops_per_sec_max,repeats,p50_ns,p99_ns,p999_ns,"
	"max_ns,bytes_per_process,backlog_max,setup_seconds,maxrss_kb,shared_writes_per_op,"
	"target,comparison,goal,measured,measured_median,measured_min,measured_max,result,"
	"note";

void bench_report_begin(enum bench_format format, bool quick)
{
	report.format = format;
	report.quick = quick;
	print_environment();
	switch (format) {
	case BENCH_TEXT:
		printf("latencies in ns (lookups timed 1 call in %d); '*' marks more threads "
		       "than CPUs; ops/s is the best of the repeats, then their median and "
		       "range\n", BENCH_SAMPLE);
		if (!debug_build())
			printf("shared writes per operation: %s, only debug builds count them\n",
			       shared_na);
		printf("%-8s %-13s %4s %8s %-15s %12s %7s %15s %9s %9s %9s %7s %8s %7s %7s\n",
		       "mode", "workload", "thr", "size", "kind", "ops/s", "median", "min-max",
		       "p50", "p99", "p999", "B/proc", "backlog", "setup_s", "RSS_MB");
		break;
	case BENCH_MARKDOWN:
		printf("\nLatencies in ns; ops/s is the best of the repeats, then their median "
		       "and range.\n\n"
		       "| mode | workload | threads | size | kind | ops/s | median | min-max | "
		       "p50 | p99 | p999 |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
		break;
	case BENCH_CSV:
		printf("%s\n", csv_header);
		break;
	case BENCH_JSON:
		break;
	}
	fflush(stdout);
}

bool bench_report_is(enum bench_format format)
{
	return report.format == format;
}

bool bench_report_quick(void)
{
	return report.quick;
}

/* @x ops/s in 4 to 6 characters: 950, 12.3k, 4.56M (in a buffer this long). */
#define HUMAN_LEN	16
static const char *human(double x, char *buf, size_t len)
{
	if (x >= 1e6)
		snprintf(buf, len, "%.2fM", x / 1e6);
	else if (x >= 1e3)
		snprintf(buf, len, "%.1fk", x / 1e3);
	else
		snprintf(buf, len, "%.0f", x);
	return buf;
}

/* The median and the range of the repeats, or "-" for a single side. */
static void spread_text(const struct bench_spread *sp, unsigned int k,
			char median[HUMAN_LEN], char range[2 * HUMAN_LEN])
{
	char lo[HUMAN_LEN], hi[HUMAN_LEN];

	if (!sp) {
		snprintf(median, HUMAN_LEN, "-");
		snprintf(range, 2 * HUMAN_LEN, "-");
		return;
	}
	human(sp->median[k], median, HUMAN_LEN);
	snprintf(range, 2 * HUMAN_LEN, "%s-%s", human(sp->min[k], lo, sizeof(lo)),
		 human(sp->max[k], hi, sizeof(hi)));
}

static void print_row(const struct bench_result *res, const struct bench_spread *sp,
		      unsigned int k)
{
	const struct bench_config *c = &res->cfg;
	const struct hist *h = &res->kinds[k].hist;
	char median[HUMAN_LEN], range[2 * HUMAN_LEN];

	spread_text(sp, k, median, range);
	if (report.format == BENCH_MARKDOWN) {
		printf("| %s | %s | %u%s | %lu | %s | %.0f | %s | %s | %llu | %llu | %llu |\n",
		       rp_sync_mode_name(c->mode), c->w->name, c->threads,
		       c->threads > online_cpus() ? "*" : "", c->size, c->w->kinds[k],
		       bench_result_rate(res, k), median, range,
		       (unsigned long long)hist_percentile(h, 0.50),
		       (unsigned long long)hist_percentile(h, 0.99),
		       (unsigned long long)hist_percentile(h, 0.999));
		return;
	}
	printf("%-8s %-13s %3u%c %8lu %-15s %12.0f %7s %15s %9llu %9llu %9llu %7.0f %8lu %7.1f "
	       "%7ld\n", rp_sync_mode_name(c->mode), c->w->name, c->threads,
	       c->threads > online_cpus() ? '*' : ' ', c->size, c->w->kinds[k],
	       bench_result_rate(res, k), median, range,
	       (unsigned long long)hist_percentile(h, 0.50),
	       (unsigned long long)hist_percentile(h, 0.99),
	       (unsigned long long)hist_percentile(h, 0.999), res->bytes_per_process,
	       res->backlog_max, res->setup_seconds, res->maxrss_kb / 1024);
}

/*
 * The shared writes per operation of @kind (src/debug/shared.h), as the
 * threads that ran them counted them (docs/performance.md, "Shared
 * writes"; frees that liburcu's worker ran are on its count, not theirs):
 * the sum in *@locks and *@rmws and the total back.  NaN if none was
 * counted: a kind the workload does not count, or a release build, which
 * has no counts.
 */
static double shared_per_op(const struct bench_result *res, unsigned int kind, double *locks,
			    double *rmws)
{
	double n = (double)res->shared_ops[kind];

	*locks = *rmws = 0;
	if (!debug_build() || !res->shared_ops[kind])
		return NAN;
	for (unsigned int l = 0; l < RP_SHARED_NR; l++)
		*(l < RP_SHARED_FIRST_RMW ? locks : rmws) += res->shared[kind][l] / n;
	return *locks + *rmws;
}

/* Of them, the object locks handed over between threads (src/debug/handover.c):
   the lock lines from the first hand-over on (src/debug/shared.h). */
static double handovers_per_op(const struct bench_result *res, unsigned int kind)
{
	double sum = 0;

	for (unsigned int l = RP_SHARED_HANDOVER_GROUP; l < RP_SHARED_FIRST_RMW; l++)
		sum += res->shared[kind][l] / (double)res->shared_ops[kind];
	return sum;
}

/*
 * Under a text row: the shared writes per operation of the kinds counted,
 * line by line.  A release build has none to print: its header says so.
 */
static void print_shared_writes(const struct bench_result *res)
{
	const struct bench_config *c = &res->cfg;

	for (unsigned int k = 0; k < BENCH_MAX_KINDS && c->w->kinds[k]; k++) {
		double locks, rmws, total = shared_per_op(res, k, &locks, &rmws);

		if (isnan(total))
			continue;
		printf("  %s: shared writes per %s %.2f (%.2f lock acquisitions, %.2f atomics):",
		       rp_sync_mode_name(c->mode), c->w->kinds[k], total, locks, rmws);
		for (unsigned int l = 0; l < RP_SHARED_NR; l++)
			if (res->shared[k][l])
				printf(" %s %.2f;", rp_debug_shared_name(l),
				       res->shared[k][l] / (double)res->shared_ops[k]);
		printf("\n");
	}
}

/* The percentiles JSON reports, then max_ns. */
static const struct {
	const char *key;
	double q;
} json_percentiles[] = {
	{ "p10_ns", 0.10 }, { "p25_ns", 0.25 }, { "p50_ns", 0.50 }, { "p75_ns", 0.75 },
	{ "p90_ns", 0.90 }, { "p99_ns", 0.99 }, { "p999_ns", 0.999 }, { "p9999_ns", 0.9999 },
};

/* JSON: the shared writes per operation of @kind, where it is counted. */
static void shared_json(struct json *j, const struct bench_result *res, unsigned int kind)
{
	double locks, rmws, shared = shared_per_op(res, kind, &locks, &rmws);

	if (!res->shared_ops[kind])
		return;
	if (isnan(shared)) {
		json_string(j, "shared_writes_per_op", shared_na);
		return;
	}
	json_real(j, "shared_writes_per_op", shared, 2);
	json_real(j, "shared_locks_per_op", locks, 2);
	json_real(j, "shared_atomics_per_op", rmws, 2);
	json_real(j, "shared_handovers_per_op", handovers_per_op(res, kind), 2);
	json_real(j, "shared_marked_per_op", shared - handovers_per_op(res, kind), 2);
}

static void print_json(const struct bench_result *res, const struct bench_spread *sp,
		       unsigned int k)
{
	const struct bench_config *c = &res->cfg;
	const struct hist *h = &res->kinds[k].hist;
	struct json j;

	json_record(&j, stdout, "result");
	json_bool(&j, "quick", report.quick);
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
	json_uint(&j, "repeats", sp->repeats);
	json_real(&j, "ops_per_sec_median", sp->median[k], 1);
	json_real(&j, "ops_per_sec_min", sp->min[k], 1);
	json_real(&j, "ops_per_sec_max", sp->max[k], 1);
	json_uint(&j, "samples", h->count);
	for (size_t i = 0; i < sizeof(json_percentiles) / sizeof(json_percentiles[0]); i++)
		json_uint(&j, json_percentiles[i].key, hist_percentile(h, json_percentiles[i].q));
	json_uint(&j, "max_ns", h->max);
	json_real(&j, "bytes_per_process", res->bytes_per_process, 1);
	json_uint(&j, "backlog_max", res->backlog_max);
	json_uint(&j, "backlog_end", res->backlog_end);
	json_real(&j, "setup_seconds", res->setup_seconds, 3);
	json_int(&j, "maxrss_kb", res->maxrss_kb);
	shared_json(&j, res, k);
	json_record_end(&j);
}

void bench_csv_field(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(const struct bench_result *res, const struct bench_spread *sp,
		      unsigned int k)
{
	const struct bench_config *c = &res->cfg;
	const struct hist *h = &res->kinds[k].hist;
	double locks, rmws, shared = shared_per_op(res, k, &locks, &rmws);

	printf("result,%s,%s,%s,", report.quick ? "true" : "false", rp_rcu_flavour(),
	       rp_sync_mode_name(c->mode));
	bench_csv_field(c->w->name);
	printf(",%u,%s,%lu,", c->threads, c->threads > online_cpus() ? "true" : "false",
	       c->size);
	bench_csv_field(c->w->kinds[k]);
	printf(",%.1f,%.1f,%.1f,%.1f,%u,%llu,%llu,%llu,%llu,%.1f,%lu,%.3f,%ld,",
	       bench_result_rate(res, k), sp->median[k], sp->min[k], sp->max[k], sp->repeats,
	       (unsigned long long)hist_percentile(h, 0.50),
	       (unsigned long long)hist_percentile(h, 0.99),
	       (unsigned long long)hist_percentile(h, 0.999), (unsigned long long)h->max,
	       res->bytes_per_process, res->backlog_max, res->setup_seconds, res->maxrss_kb);
	/* Empty where the kind is not counted. */
	if (!isnan(shared))
		printf("%.2f", shared);
	else if (res->shared_ops[k])
		printf("%s", shared_na);
	printf(",,,,,,,,,\n");
}

void bench_report_result(const struct bench_result *res, const struct bench_spread *spread)
{
	for (unsigned int k = 0; k < BENCH_MAX_KINDS && res->cfg.w->kinds[k]; k++) {
		if (report.format == BENCH_JSON)
			print_json(res, spread, k);
		else if (report.format == BENCH_CSV)
			print_csv(res, spread, k);
		else
			print_row(res, spread, k);
	}
	if (report.format == BENCH_TEXT)
		print_shared_writes(res);
	fflush(stdout);
}

/* One row of the side-by-side table: a measurement's best ops/s in each mode. */
struct side_row {
	const struct bench_workload *w;
	unsigned int kind, threads;
	unsigned long size;
	bool measured[RP_SYNC_NONE + 1];
	double rate[RP_SYNC_NONE + 1];
};

static struct side_row *side_row(const struct bench_config *c, unsigned int kind)
{
	struct side_row *rows;

	for (size_t i = 0; i < report.nr_rows; i++) {
		struct side_row *r = &report.rows[i];

		if (r->w == c->w && r->kind == kind && r->threads == c->threads &&
		    r->size == c->size)
			return r;
	}
	rows = realloc(report.rows, (report.nr_rows + 1) * sizeof(*rows));
	if (!rows)
		return NULL;
	report.rows = rows;
	rows += report.nr_rows++;
	*rows = (struct side_row){ .w = c->w, .kind = kind, .threads = c->threads,
				   .size = c->size };
	return rows;
}

void bench_report_tabulate(const struct bench_result *res)
{
	for (unsigned int k = 0; k < BENCH_MAX_KINDS && res->cfg.w->kinds[k]; k++) {
		struct side_row *r = side_row(&res->cfg, k);

		if (r) {
			r->measured[res->cfg.mode] = true;
			r->rate[res->cfg.mode] = bench_result_rate(res, k);
		}
	}
}

/* Text and Markdown end with the modes side by side; CSV and JSON rows hold it. */
void bench_report_side_by_side(void)
{
	bool md = report.format == BENCH_MARKDOWN;

	if (!report.nr_rows || (report.format != BENCH_TEXT && !md))
		return;
	printf(md ? "\nBest ops/s, mode by mode%s:\n\n| workload | kind | threads | size |"
		  : "\nbest ops/s, mode by mode%s:\n%-13s %-15s %4s %8s",
	       report.quick ? " (QUICK run: not meaningful)" : "",
	       "workload", "kind", "thr", "size");
	for (int m = 0; m <= RP_SYNC_NONE; m++)
		printf(md ? " %s |" : " %9s", rp_sync_mode_name(m));
	if (md) {
		printf("\n|---|---|---|---|");
		for (int m = 0; m <= RP_SYNC_NONE; m++)
			printf("---|");
	}
	printf("\n");
	for (size_t i = 0; i < report.nr_rows; i++) {
		const struct side_row *r = &report.rows[i];

		printf(md ? "| %s | %s | %u | %lu |" : "%-13s %-15s %4u %8lu", r->w->name,
		       r->w->kinds[r->kind], r->threads, r->size);
		for (int m = 0; m <= RP_SYNC_NONE; m++) {
			char buf[HUMAN_LEN];

			printf(md ? " %s |" : " %9s",
			       r->measured[m] ? human(r->rate[m], buf, sizeof(buf)) : "-");
		}
		printf("\n");
	}
	fflush(stdout);
}

/* The row of @r's workload, kind and size measured with @threads threads, or NULL. */
static const struct side_row *side_row_at(const struct side_row *r, unsigned int threads)
{
	for (size_t i = 0; i < report.nr_rows; i++) {
		const struct side_row *o = &report.rows[i];

		if (o->w == r->w && o->kind == r->kind && o->size == r->size &&
		    o->threads == threads)
			return o;
	}
	return NULL;
}

/* @num's rate in @num_mode over @den's in @den_mode; NaN unless both were measured. */
static double rate_ratio(const struct side_row *num, enum rp_sync_mode num_mode,
			 const struct side_row *den, enum rp_sync_mode den_mode)
{
	if (!num || !den || !num->measured[num_mode] || !den->measured[den_mode] ||
	    den->rate[den_mode] <= 0)
		return NAN;
	return num->rate[num_mode] / den->rate[den_mode];
}

/* The two speed-ups, by name (text headers, JSON keys, CSV's comparison column). */
static const char *const speedup_names[2] = { "rcu(T=2)/rcu(T=1)", "rcu(T=2)/qrwlock(T=2)" };
static const char *const speedup_keys[2] = { "rcu_t2_over_rcu_t1", "rcu_t2_over_qrwlock_t2" };

static void print_speedup(const struct side_row *r, const double ratio[2])
{
	char text[2][HUMAN_LEN];
	struct json j;

	for (int i = 0; i < 2; i++)
		snprintf(text[i], HUMAN_LEN, isnan(ratio[i]) ? "-" : "%.2f", ratio[i]);
	switch (report.format) {
	case BENCH_TEXT:
		printf("%-13s %-15s %8lu %21s %21s\n", r->w->name, r->w->kinds[r->kind], r->size,
		       text[0], text[1]);
		break;
	case BENCH_MARKDOWN:
		printf("| %s | %s | %lu | %s | %s |\n", r->w->name, r->w->kinds[r->kind], r->size,
		       text[0], text[1]);
		break;
	case BENCH_JSON:
		json_record(&j, stdout, "speedup");
		json_bool(&j, "quick", report.quick);
		json_string(&j, "flavour", rp_rcu_flavour());
		json_string(&j, "workload", r->w->name);
		json_string(&j, "kind", r->w->kinds[r->kind]);
		json_uint(&j, "size", r->size);
		for (int i = 0; i < 2; i++)
			json_real(&j, speedup_keys[i], ratio[i], 3);
		json_record_end(&j);
		break;
	case BENCH_CSV:
		/* A row per ratio: its name in "target", its value in "measured". */
		for (int i = 0; i < 2; i++) {
			printf("speedup,%s,%s,rcu,", report.quick ? "true" : "false",
			       rp_rcu_flavour());
			bench_csv_field(r->w->name);
			printf(",2,%s,%lu,", 2 > online_cpus() ? "true" : "false", r->size);
			bench_csv_field(r->w->kinds[r->kind]);
			printf(",,,,,,,,,,,,,,,%s,,,%s,,,,,\n", speedup_names[i],
			       isnan(ratio[i]) ? "" : text[i]);
		}
		break;
	}
}

void bench_report_speedups(void)
{
	bool header = false;

	for (size_t i = 0; i < report.nr_rows; i++) {
		const struct side_row *r = &report.rows[i];
		double ratio[2];

		if (!r->w->scaling || r->threads != 2)
			continue;
		ratio[0] = rate_ratio(r, RP_SYNC_RCU, side_row_at(r, 1), RP_SYNC_RCU);
		ratio[1] = rate_ratio(r, RP_SYNC_RCU, r, RP_SYNC_QRWLOCK);
		if (!header && report.format == BENCH_TEXT)
			printf("\nupdate-side scaling, ratios of this run's best ops/s%s:\n"
			       "%-13s %-15s %8s %21s %21s\n",
			       report.quick ? " (QUICK run: not meaningful)" : "", "workload", "kind",
			       "size", speedup_names[0], speedup_names[1]);
		if (!header && report.format == BENCH_MARKDOWN)
			printf("\nUpdate-side scaling, ratios of this run's best ops/s%s:\n\n"
			       "| workload | kind | size | %s | %s |\n|---|---|---|---|---|\n",
			       report.quick ? " (QUICK run: not meaningful)" : "", speedup_names[0],
			       speedup_names[1]);
		header = true;
		print_speedup(r, ratio);
	}
	fflush(stdout);
}

void bench_report_interrupted(void)
{
	static const char note[] = "interrupted: the results above are those measured before";

	if (report.format == BENCH_JSON) {
		struct json j;

		json_record(&j, stdout, "interrupted");
		json_string(&j, "note", note);
		json_record_end(&j);
	} else {
		fprintf(report.format == BENCH_CSV ? stderr : stdout, "\n%s\n", note);
	}
	fflush(stdout);
}
