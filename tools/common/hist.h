/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A log-bucket latency histogram: 8 buckets per power of two (an error of at
 * most 1/16 around a bucket's midpoint), exact below 16 ns.  Written here:
 * Debian ships no C HdrHistogram.
 */
#ifndef RP_TOOLS_COMMON_HIST_H
#define RP_TOOLS_COMMON_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS	3
#define HIST_LINEAR	16		/* values below are their own bucket */
#define HIST_MAX_LOG2	47		/* about 39 hours in ns: enough */
#define HIST_BUCKETS	(HIST_LINEAR + (HIST_MAX_LOG2 - 4 + 1) * (1 << HIST_SUB_BITS))

struct hist {
	uint64_t count;
	uint64_t max;
	uint64_t sum;			/* of the values recorded, exact */
	uint64_t buckets[HIST_BUCKETS];
};

static inline unsigned int hist_bucket(uint64_t v)
{
	unsigned int e;

	if (v < HIST_LINEAR)
		return v;
	e = 63 - __builtin_clzll(v);
	if (e > HIST_MAX_LOG2)
		return HIST_BUCKETS - 1;
	return HIST_LINEAR + (e - 4) * (1 << HIST_SUB_BITS) +
	       ((v >> (e - HIST_SUB_BITS)) & ((1 << HIST_SUB_BITS) - 1));
}

static inline void hist_record(struct hist *h, uint64_t ns)
{
	h->buckets[hist_bucket(ns)]++;
	h->count++;
	h->sum += ns;
	if (ns > h->max)
		h->max = ns;
}

void hist_merge(struct hist *dst, const struct hist *src);

/* The mean of the values recorded (0 if none). */
static inline double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

/* The value below which a fraction @q of the samples lie (a bucket's midpoint). */
uint64_t hist_percentile(const struct hist *h, double q);

/* The lowest value of bucket @b, and its width. */
uint64_t hist_bucket_low(unsigned int b);
uint64_t hist_bucket_width(unsigned int b);

#endif /* RP_TOOLS_COMMON_HIST_H */
