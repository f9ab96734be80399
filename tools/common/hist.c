/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "hist.h"

void hist_merge(struct hist *dst, const struct hist *src)
{
	for (unsigned int b = 0; b < HIST_BUCKETS; b++)
		dst->buckets[b] += src->buckets[b];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_bucket_low(unsigned int b)
{
	unsigned int e, sub;

	if (b < HIST_LINEAR)
		return b;
	e = (b - HIST_LINEAR) / (1 << HIST_SUB_BITS) + 4;
	sub = (b - HIST_LINEAR) % (1 << HIST_SUB_BITS);
	return (1ULL << e) + ((uint64_t)sub << (e - HIST_SUB_BITS));
}

uint64_t hist_bucket_width(unsigned int b)
{
	if (b < HIST_LINEAR)
		return 1;
	return 1ULL << ((b - HIST_LINEAR) / (1 << HIST_SUB_BITS) + 4 - HIST_SUB_BITS);
}

uint64_t hist_percentile(const struct hist *h, double q)
{
	uint64_t rank = (uint64_t)(q * h->count), seen = 0;

	if (!h->count)
		return 0;
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen > rank) {
			uint64_t mid = hist_bucket_low(b) + hist_bucket_width(b) / 2;

			return mid < h->max ? mid : h->max;
		}
	}
	return h->max;
}
