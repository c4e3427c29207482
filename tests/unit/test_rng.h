/* SPDX-License-Identifier: MIT */
/* A seeded xorshift64 for the randomized tests: the same cases on every run, so a failure
 * can be replayed; each test file seeds its own sequence with test_rng_state. */
#pragma once

#include <stdint.h>

static uint64_t test_rng_state = 0x9E3779B97F4A7C15ull;

static inline uint64_t rnd(void)
{
	test_rng_state ^= test_rng_state << 13;
	test_rng_state ^= test_rng_state >> 7;
	test_rng_state ^= test_rng_state << 17;
	return test_rng_state;
}
