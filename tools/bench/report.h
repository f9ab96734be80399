/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Printing bench results: a table for people (text, or Markdown for a
 * page), CSV for a spreadsheet, JSON lines for scripts (tools/common/json.h).
 */
#ifndef RP_TOOLS_REPORT_H
#define RP_TOOLS_REPORT_H

#include <stdbool.h>
#include "bench.h"

enum bench_format { BENCH_TEXT, BENCH_CSV, BENCH_JSON, BENCH_MARKDOWN };

/* The names of --format, in enum bench_format order; NULL-terminated. */
extern const char *const bench_format_names[];

/* The ops/s of each kind over a measurement's repeats. */
struct bench_spread {
	unsigned int repeats;
	double median[BENCH_MAX_KINDS], min[BENCH_MAX_KINDS], max[BENCH_MAX_KINDS];
};

/*
 * Start the report in @format: where the run is (version, commit, build,
 * flavour, kernel, CPU, load; a warning on stderr if the library is a debug
 * build), the @quick mark, and the table's header.
 */
void bench_report_begin(enum bench_format format, bool quick);
bool bench_report_is(enum bench_format format);
bool bench_report_quick(void);

/* One row (or record) per kind the result counted; @spread NULL: a single
 * measurement (text and Markdown only: a target's sides). */
void bench_report_result(const struct bench_result *res, const struct bench_spread *spread);
/* Keep @res's ops/s for the side-by-side table. */
void bench_report_tabulate(const struct bench_result *res);
/* The modes side by side (text and Markdown; the rows of CSV and JSON hold it). */
void bench_report_side_by_side(void);
/*
 * The speed-ups of the update-side scaling workloads (bench_workload's
 * scaling): rcu with 2 threads over rcu with 1, and over qrwlock with 2,
 * from this run's best ops/s; where a side was not measured, none ("-",
 * null, an empty field).
 */
void bench_report_speedups(void);
/* Say that SIGINT cut the run short. */
void bench_report_interrupted(void);

/* @s as one quoted CSV field. */
void bench_csv_field(const char *s);

/* Operations of @kind per second, and the mean cost of one in ns. */
double bench_result_rate(const struct bench_result *res, unsigned int kind);
double bench_result_mean_ns(const struct bench_result *res, unsigned int kind);
/*
 * The mean of @kind's recorded latencies: the figure to compare between
 * kinds of one run that share its operations and its wall time (kill0_ns's
 * levels), whose bench_result_mean_ns are equal by construction.
 */
double bench_result_latency_mean_ns(const struct bench_result *res, unsigned int kind);

#endif /* RP_TOOLS_REPORT_H */
