/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Random short delays inside multi-step updates, and torture points; see rcuproc/torture.h. */
#include <errno.h>
#include <rcuproc/torture.h>
#include <urcu/uatomic.h>

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

/* One installed hook per point: a test's, set before the racing threads start. */
static struct torture_hook {
	rp_torture_hook_fn fn;
	void *arg;
} hooks[RP_TP_NR];

int rp_torture_point_set(enum rp_torture_point pt, rp_torture_hook_fn fn, void *arg)
{
	if ((unsigned int)pt >= RP_TP_NR)
		return -EINVAL;
	/* The argument before the function: pairs with the loads in rp_torture_point. */
	CMM_STORE_SHARED(hooks[pt].arg, arg);
	cmm_smp_wmb();
	CMM_STORE_SHARED(hooks[pt].fn, fn);
	return 0;
}

void rp_torture_point(enum rp_torture_point pt, const void *obj)
{
	rp_torture_hook_fn fn = CMM_LOAD_SHARED(hooks[pt].fn);

	if (!fn)
		return;
	cmm_smp_rmb();	/* pairs with cmm_smp_wmb in rp_torture_point_set */
	fn(pt, obj, CMM_LOAD_SHARED(hooks[pt].arg));
}
#else
int rp_torture_point_set(enum rp_torture_point pt, rp_torture_hook_fn fn, void *arg)
{
	(void)pt;
	(void)fn;
	(void)arg;
	return -ENOSYS;
}
#endif
