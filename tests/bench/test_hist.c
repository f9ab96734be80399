/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The latency histogram's mean (tools/common/hist.h): exact, from the sum
 * of the values recorded, and kept by a merge.  The targets that compare
 * kinds of one run (kill0_ns's levels) divide these means: the kinds'
 * operation counts and wall time are equal by construction.
 */
#include <criterion/criterion.h>
#include "common/hist.h"

Test(hist, mean_is_exact_and_merged)
{
	struct hist a = { 0 }, b = { 0 };

	cr_assert_eq(hist_mean(&a), 0, "no sample: 0");
	/* Values inside one bucket (136 and 143 share one): the mean is not its midpoint. */
	hist_record(&a, 136);
	hist_record(&a, 136);
	hist_record(&a, 143);
	cr_assert_float_eq(hist_mean(&a), (136 + 136 + 143) / 3.0, 1e-9);
	hist_record(&b, 1000);
	hist_merge(&a, &b);
	cr_assert_eq(a.count, 4);
	cr_assert_float_eq(hist_mean(&a), (136 + 136 + 143 + 1000) / 4.0, 1e-9);
}
