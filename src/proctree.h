/* proctree: the process tree of a run's records. A record names its parent
 * by pid alone, and a pid may be reused within a run: the parent is the
 * record of that pid begun before the child (or at the same time, with a
 * lower id) and not ended before it began. A parent comes strictly before
 * its child in that order, so the links never form a circle, whatever a
 * recording says. Pure: records in, links out. */
#ifndef SPACETIME_PROCTREE_H
#define SPACETIME_PROCTREE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* No parent among the records (the run's root, or an orphan's). */
#define PROCTREE_NONE SIZE_MAX

/* Each record's parent: parent[i] the index in p[0..n) of the latest record
 * of p[i].ppid before p[i] by (start_ns, id) and not ended (end_ns 0:
 * alive) before p[i] began, or PROCTREE_NONE. Returns 0 or -ENOMEM. */
int proctree_parents(const struct proc_rec *p, size_t n, size_t *parent);

#endif
