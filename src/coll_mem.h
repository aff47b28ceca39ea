/* coll_mem: the collector's job that watches the memory left (memwarn.h):
 * the machine's MemAvailable and, where the command's cgroups have a limit
 * (cglimit.h), the room they leave; each tick
 * the lesser into the sample, and whether the run is running out (with the
 * processes growing fastest) into the summary. */
#ifndef SPACETIME_COLL_MEM_H
#define SPACETIME_COLL_MEM_H

#include <stdint.h>
#include <sys/types.h>

#include "memwarn.h"

struct cglimit;
struct collector;
struct sample;

#define COLL_MEM_GROW_NS 2000000000ull /* a process's growth is measured over this */

struct coll_mem {
	int meminfo_fd, vmstat_fd;
	struct cglimit *cg; /* the command's cgroups with a limit (NULL: none) */
	uint64_t oom_seen; /* /proc/vmstat's oom_kill at the last tick */
	int oom_known;
	struct memwarn_hist hist;
	char buf[8192];
};

/* Opens /proc/meminfo and the cgroup's usage of process pid (0: spacetime's,
 * whose cgroup the command shares). */
void coll_mem_start(struct collector *c, pid_t pid);
/* Memory left into s (SAMPLE_MEMLEFT) and the verdict into the summary. */
void coll_mem_tick(struct collector *c, struct sample *s, uint64_t now);
void coll_mem_free(struct collector *c);

#endif
