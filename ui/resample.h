/* resample: store buckets -> one value per graph column, pure.
 *
 * Levels (PSS, counts) take the bucket with the highest maximum in each column,
 * so spikes survive any zoom, and hold the last value across columns narrower
 * than the sampling interval. Rates (faults, CPU) interpolate the cumulative
 * counter at the column edges, so they are exact averages at every zoom. */
#ifndef SPACETIME_RESAMPLE_H
#define SPACETIME_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

enum resample_field {
	RS_PSS,
	RS_ANON,
	RS_FILE,
	RS_SHMEM,
	RS_RSS,
	RS_MINFLT,
	RS_MAJFLT,
	RS_UTIME,
	RS_STIME,
	RS_LIVE_PROCS,
	RS_LIVE_THREADS,
	RS_TOTAL_PROCS,
	RS_TOTAL_THREADS,
	RS_PSI_MEM,
	RS_PSI_CPU,
};

/* The field's value in a sample. */
double resample_value(const struct sample *s, enum resample_field f);
/* The struct sample valid bit that covers the field. */
uint32_t resample_valid_bit(enum resample_field f);
/* For each of ncols columns splitting [t0, t1], the index of the bucket to show
 * (the highest max of f among the buckets centred in it); a column with none
 * holds the newest bucket before it while later data exists or within hold_ns
 * of it, else -1. Buckets before t0 seed the hold. */
void resample_pick(const struct bucket *b, size_t n, uint64_t t0_ns, uint64_t t1_ns, size_t ncols,
		   enum resample_field f, uint64_t hold_ns, int32_t *idx);
/* Per-second rate of the cumulative field f in each column; known[c] is 0 where
 * no data covers the column. */
void resample_rate(const struct bucket *b, size_t n, uint64_t t0_ns, uint64_t t1_ns, size_t ncols,
		   enum resample_field f, double *rate, uint8_t *known);

#endif
