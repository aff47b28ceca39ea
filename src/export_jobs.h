/* export_jobs: the job names of stored processes (jobname.h), and the
 * heaviest processes of a run, for the summary and the exports. */
#ifndef SPACETIME_EXPORT_JOBS_H
#define SPACETIME_EXPORT_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* Processes listed in the JSON summary's top_jobs_by_* arrays. */
#define EXPORT_TOP_JSON 20

/* The job name of interned argv argv_id (0: unknown, then comm alone) into
 * out (cap bytes, JOBNAME_MAX + 1 are enough). *buf (malloc'ed, *bufcap
 * bytes, may start NULL) holds the argv and grows as needed. Returns the
 * name's length: 0 when neither argv nor comm is known. */
size_t export_job_name(struct store *st, uint32_t argv_id, const char *comm, char **buf, size_t *bufcap,
		       char *out, size_t cap);
/* The same for a process record: its argv when it is its own (PROC_V_ARGV). */
size_t export_proc_job(struct store *st, const struct proc_rec *p, char **buf, size_t *bufcap, char *out,
		       size_t cap);

enum export_top_by {
	EXPORT_TOP_PSS, /* peak PSS; processes whose PSS was never measured are left out */
	EXPORT_TOP_CPU, /* user + system time; processes with unknown CPU are left out */
	EXPORT_TOP_MAJFLT, /* major faults (page-ins that needed I/O); none: left out */
};
/* Copies the n heaviest processes of the run (live and exited) by that
 * figure into out, heaviest first (equal figures: lower pid first). Returns
 * how many were copied, or -ENOMEM. */
long export_top_procs(struct store *st, enum export_top_by by, struct proc_rec *out, size_t n);

#endif
