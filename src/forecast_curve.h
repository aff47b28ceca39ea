/* forecast_curve: each recorded process's PSS over its life, from the
 * store's per-process samples, for the forecast (forecast_rec.h). A
 * process's curve starts at 0 at its start, passes through each sample
 * (and its peak, where the record says when), and ends at its end. Between
 * two points it climbs in a straight line when the second is higher (a
 * compiler grows as it goes) and holds the first when lower (a process
 * read as it exits, its pages going, would otherwise seem to shrink all
 * along): between samples, the curve errs high, as a forecast of memory
 * should. After the last point it holds to the end. */
#ifndef SPACETIME_FORECAST_CURVE_H
#define SPACETIME_FORECAST_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct forecast_curve;

/* The curves of the n records p (their indices are the processes'
 * numbers below), each ending at its end_ns or, while it had none (a
 * recording cut short), at end_ns. NULL + errno. */
struct forecast_curve *forecast_curve_new(struct store *st, const struct proc_rec *p, size_t n, uint64_t end_ns);
void forecast_curve_free(struct forecast_curve *c);
/* Process i's PSS at t_ns (0 outside its life). */
double forecast_curve_at(const struct forecast_curve *c, size_t i, uint64_t t_ns);
/* Whether anything is known of process i's PSS (a sample or a peak). */
int forecast_curve_known(const struct forecast_curve *c, size_t i);
/* Per-process samples the store had let go of (a recording past the
 * load's bound keeps the last ones). */
uint64_t forecast_curve_dropped(const struct forecast_curve *c);

/* The sum of the processes procs[0..np) over [start_ns, end_ns) on a step:
 * out[k] the most in [start + k step, start + (k + 1) step), for k up to
 * nout (the bins past the end are 0). A sweep in time: each instant sums
 * the processes alive then only. Returns 0 or -ENOMEM. */
int forecast_curve_bins(const struct forecast_curve *c, const size_t *procs, size_t np, uint64_t start_ns,
			 uint64_t end_ns, uint64_t step_ns, uint32_t *out, size_t nout);

#endif
