/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The random numbers of the rcuproc command: xorshift64*, one stream per
 * thread (the state is the caller's), seeded by rng_seed.
 */
#ifndef RP_TOOLS_COMMON_RNG_H
#define RP_TOOLS_COMMON_RNG_H

#include <stdint.h>

/* The state of stream @stream of @seed: never 0, distinct per stream. */
static inline uint64_t rng_seed(uint64_t seed, unsigned int stream)
{
	return seed * 0x9e3779b97f4a7c15ULL + stream + 1;
}

/* The next number of the stream at *@state. */
static inline uint64_t rng_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

#endif /* RP_TOOLS_COMMON_RNG_H */
