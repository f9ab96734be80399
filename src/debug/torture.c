/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Random short delays inside multi-step updates; see torture.h. */
#include "torture.h"

#ifdef RP_DEBUG
#include <sched.h>
#include <stdint.h>
#include <urcu/arch.h>

/* Per thread, so no locking; xorshift, seeded differently per thread. */
static __thread uint32_t delay_state;

void rp_torture_delay(void)
{
	uint32_t x = delay_state ? delay_state : (uint32_t)(uintptr_t)&delay_state | 1;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	delay_state = x;
	if ((x & 0xff) == 0) {
		sched_yield();
	} else if ((x & 0xf) == 0) {
		for (int i = 0; i < 256; i++)
			caa_cpu_relax();
	}
}
#endif
