/*
 * rng.h - a small deterministic random generator (xoshiro256**, seeded by
 * splitmix64) so that every randomized stage (Isolation Forest, reservoirs)
 * gives the same result for the same --seed on every platform.
 * The state is plain data: embed it, copy it, no allocation.
 */
#ifndef RV_BASE_RNG_H
#define RV_BASE_RNG_H

#include <stddef.h>
#include <stdint.h>

struct rv_rng {
	uint64_t s[4];
};

void rv_rng_seed(struct rv_rng *r, uint64_t seed);
uint64_t rv_rng_u64(struct rv_rng *r);
/* Uniform double in [0, 1). */
double rv_rng_uniform(struct rv_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t rv_rng_below(struct rv_rng *r, uint64_t n);

#endif
