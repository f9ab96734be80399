/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Printing bench results: a table for people, JSON lines for scripts. */
#ifndef RP_TOOLS_REPORT_H
#define RP_TOOLS_REPORT_H

#include <stdbool.h>
#include "bench.h"

/* Where the run is: version, commit, build, flavour, kernel, CPU, load; and a
 * warning on stderr if the library is a debug build. */
void bench_report_environment(bool json);
void bench_report_header(bool json);
/* One row (or JSON object) per kind the result counted. */
void bench_report_result(const struct bench_result *res, bool json);

/* Operations of @kind per second, and the mean cost of one in ns. */
double bench_result_rate(const struct bench_result *res, unsigned int kind);
double bench_result_mean_ns(const struct bench_result *res, unsigned int kind);

#endif /* RP_TOOLS_REPORT_H */
