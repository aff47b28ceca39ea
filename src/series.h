/* series: the multi-resolution time series behind the store.
 *
 * Tier 0 keeps the last tier0_len samples as they came. Tier k >= 1 keeps the
 * last tier_len buckets of fixed time slots of base_ns * factor^k, plus the one
 * still open, each holding min, max and mean of every field. Every sample goes
 * to every tier, so memory is fixed at creation and the newest data is in all
 * of them. Not thread-safe: the store locks around it. Never allocates after
 * series_new(). */
#ifndef SPACETIME_SERIES_H
#define SPACETIME_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

#define SERIES_MAXTIERS 16

struct series_config {
	uint32_t tier0_len, ntiers, tier_factor, tier_len; /* all > 0 */
	uint64_t base_ns;                                   /* > 0 */
};

struct series;

/* Returns NULL + errno (EINVAL for a bad config or slot widths beyond 64 bits,
 * ENOMEM). */
struct series *series_new(const struct series_config *cfg);
void series_free(struct series *se);
/* Appends a sample. A sample older than the previous one is stamped with the
 * previous one's time, so the series stays in order. */
void series_push(struct series *se, const struct sample *s);
/* See store_query(). */
size_t series_query(const struct series *se, uint64_t t0_ns, uint64_t t1_ns,
		    struct bucket *out, size_t max_out);
/* See store_span(). */
int series_span(const struct series *se, uint64_t *t0_ns, uint64_t *t1_ns);
/* See store_samples(). */
size_t series_samples(const struct series *se, uint64_t *cursor, struct sample *out,
		      size_t max, uint64_t *dropped);
size_t series_mem_bytes(const struct series *se);

#endif
