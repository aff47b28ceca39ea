/* oomkill: which of the run's processes the kernel's OOM killer killed. The
 * kernel counts its kills (/proc/vmstat oom_kill; the summary keeps when the
 * first ones came, coll_mem.h) but does not say whom to anyone but its log:
 * a process of the tree that ended by SIGKILL within OOMKILL_NEAR_NS of a
 * kill (of the interval before the tick that saw it) was its. Pure. */
#ifndef SPACETIME_OOMKILL_H
#define SPACETIME_OOMKILL_H

#include "store.h"

#define OOMKILL_NEAR_NS 1500000000ull

/* Whether r was killed by the OOM killer (by the rule above). */
int oomkill_of(const struct store_summary *s, const struct proc_rec *r);

#endif
