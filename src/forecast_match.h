/* forecast_match: dependencies from other recordings of the same build. A
 * -j1 recording shows none; one at -jN shows some (forecast_rec.h says
 * how). Its jobs are matched to the forecast's as compare matches jobs
 * across runs (compare.h: the job name with temporary names made stable,
 * the k-th of a name in one run with the k-th in the other, by start), and
 * each "job waited on job" it shows is carried over where both are
 * matched and the one waited on came first in the forecast's run too. */
#ifndef SPACETIME_FORECAST_MATCH_H
#define SPACETIME_FORECAST_MATCH_H

#include <stddef.h>
#include <sys/types.h>

#include "forecast_tree.h"
#include "jobname.h"

/* Adds to t's edges the dependencies the recorded run in `other` shows
 * (window_ns as forecast_tree_new takes it); names[j]: t's job j's name.
 * Returns how many were added (0 for a run with no job, or at -j1), or
 * -ENOMEM. */
ssize_t forecast_match_deps(struct forecast_tree *t, const char (*names)[JOBNAME_MAX + 1], struct store *other,
			    uint64_t window_ns);

#endif
