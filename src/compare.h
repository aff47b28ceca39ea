/* compare: two runs side by side, for a person and for CI. The totals of
 * each (from its summary) with the change, and its jobs matched across the
 * two by what they are, not by pid: the job name the process lists show
 * (jobname.h: a compiler job by its source file, make by its directory),
 * temporary names made stable (compare_key), the k-th of a name in one run
 * with the k-th in the other (by start). Pure but for reading the stores. */
#ifndef SPACETIME_COMPARE_H
#define SPACETIME_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "jobname.h"
#include "store.h"

/* The totals compared, in this order (compare_metric_name). */
enum compare_metric {
	CMP_WALL, CMP_USER, CMP_SYS, CMP_PEAK_PSS, CMP_PEAK_ANON, CMP_PEAK_FILE, CMP_PEAK_SHMEM,
	CMP_PEAK_RSS, CMP_PROCS, CMP_THREADS, CMP_EXECS, CMP_MINFLT, CMP_MAJFLT, CMP_CSW,
	CMP_BLOCK_IO, CMP_NMETRICS
};
/* Its name as --fail-above and the JSON take it ("peak_pss"), its unit. */
const char *compare_metric_name(enum compare_metric m);
const char *compare_metric_unit(enum compare_metric m); /* "us", "KiB" or "" */
/* The metric of a run's summary. */
uint64_t compare_metric_of(const struct store_summary *s, enum compare_metric m);

/* A job's figures in one run. */
struct compare_fig {
	int present;
	uint64_t peak_pss_kib, cpu_us, wall_us;
	uint32_t nth; /* the k-th of its key in that run, by start (0-based) */
};
/* A job of either run: its key and its figures on each side. */
struct compare_job {
	char key[JOBNAME_MAX + 16];
	struct compare_fig side[2];
};

/* A job name made comparable across runs: the six random characters of a
 * temporary name (mkstemp's: /tmp/ccAbC123.s, tmp.XyZ987) become "*", so a
 * job is keyed by what it is. Returns the key's length. */
size_t compare_key(const char *job, char *out, size_t cap);
/* The jobs of runs a and b matched: *out malloc'd (free()), sorted by the
 * size of the change in peak PSS, largest first (jobs of one run only
 * count their whole peak). Returns how many, or -ENOMEM. */
ssize_t compare_jobs(struct store *a, struct store *b, struct compare_job **out);

/* --fail-above METRIC=PCT[,...]: thresholds parsed into pct[] (negative:
 * none). Returns 0, or -EINVAL with the bad part in bad (one line). */
int compare_gate_parse(const char *spec, double pct[CMP_NMETRICS], char *bad, size_t cap);
/* The first metric that grew past its threshold from a to b, or -1. */
int compare_gate(const struct store_summary *a, const struct store_summary *b, const double pct[CMP_NMETRICS]);

#endif
