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

/* A job's figures on one side: in one run, or the median over the runs of
 * that side that have it (and the least and most of its peak). */
struct compare_fig {
	uint32_t present; /* in how many of the side's runs (0: none) */
	uint32_t known;   /* in how many of them its peak PSS is known (a process
			   * gone before any read of it has none) */
	uint64_t peak_pss_kib, cpu_us, wall_us;
	uint64_t faults; /* minor and major page faults */
	uint64_t peak_lo_kib, peak_hi_kib;
	/* its high-water RSS (exact at its exit with taskstats: steadier from
	 * run to run than a short job's peak PSS, read between ticks) */
	uint32_t rss_known;
	uint64_t peak_rss_kib, rss_lo_kib, rss_hi_kib;
	uint32_t nth; /* the k-th of its key in a run, by start (0-based) */
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
/* The same with several runs a side (na, nb >= 1): each job's figures the
 * medians over the runs of a side that have it. */
ssize_t compare_jobs_n(struct store *const *a, size_t na, struct store *const *b, size_t nb, struct compare_job **out);

/* What the jobs can be sorted by (--sort): the size of the change in it,
 * largest first. compare_jobs sorts by the peak PSS. */
enum compare_sort { CMP_SORT_PEAK_PSS, CMP_SORT_CPU, CMP_SORT_WALL, CMP_SORT_FAULTS, CMP_NSORTS };
/* Its name as --sort and the JSON take it ("peak_pss", "cpu", "wall",
 * "faults"); the metric whose unit it has. */
const char *compare_sort_name(enum compare_sort s);
enum compare_metric compare_sort_metric(enum compare_sort s);
/* The sort named name, or -1. */
int compare_sort_parse(const char *name);
/* A side's figure a sort is by (a side without the job: 0). */
uint64_t compare_fig_value(const struct compare_fig *f, enum compare_sort s);
/* Sorts jobs by the size of the change in s, largest first, then by key. */
void compare_jobs_sort(struct compare_job *jobs, size_t n, enum compare_sort s);

/* A figure over the runs of a side: its median, and its spread: the least
 * and most of it (from five runs on, without the lowest and the highest). */
struct compare_stat {
	uint64_t med, lo, hi;
};
/* Of v[0..n) (sorted in place). n 0: all 0. */
void compare_stat_of(uint64_t *v, size_t n, struct compare_stat *out);
/* Whether a change from a to b is more than noise: past the spread of
 * either side. With one run a side (no spread) every change counts. */
int compare_past_noise(const struct compare_stat *a, const struct compare_stat *b);

/* A program's jobs together (all of cc1's): on each side the medians over
 * its runs of how many, their CPU, the largest peak PSS, and the
 * memory-seconds (each job's PSS over its life, from its per-process
 * samples, summed). */
struct compare_prog_fig {
	uint32_t runs; /* of the side's runs, those that ran it */
	uint64_t count, cpu_us, peak_pss_kib, kib_s;
};
struct compare_prog {
	char name[16];
	struct compare_prog_fig side[2];
};
/* Runs a side a program's figures are taken over at most. */
#define COMPARE_PROG_RUNS 64
/* Each process's PSS over its life in KiB-seconds, from its per-process
 * samples (each held until the next, the last until its end), added into
 * kib_s (parallel to ids, sorted ascending, and to their ends, 0 while
 * alive: up to the last sample). Returns 0 or -ENOMEM. */
int compare_kib_seconds(struct store *st, const uint64_t *ids, const uint64_t *end_ns, size_t n, double *kib_s);

/* The programs of both sides, largest change in memory-seconds first;
 * *out malloc'd. Returns how many, or -ENOMEM. */
ssize_t compare_programs(struct store *const *a, size_t na, struct store *const *b, size_t nb,
			 struct compare_prog **out);

/* How much a job's peak must move to be called changed (and, with several
 * runs a side, past the noise): its peak PSS and, where known, its
 * high-water RSS both. */
#define COMPARE_JOB_PCT 5.0
int compare_job_changed(const struct compare_job *j);

/* --fail-above METRIC=PCT[,...]: thresholds parsed into pct[] (negative:
 * none). Returns 0, or -EINVAL with the bad part in bad (one line). */
int compare_gate_parse(const char *spec, double pct[CMP_NMETRICS], char *bad, size_t cap);
/* The first metric that grew past its threshold from a to b, or -1. */
int compare_gate(const struct store_summary *a, const struct store_summary *b, const double pct[CMP_NMETRICS]);
/* The same over several runs a side: a metric fails when its median grew
 * past the threshold and past the noise (compare_past_noise). */
int compare_gate_stats(const struct compare_stat a[CMP_NMETRICS], const struct compare_stat b[CMP_NMETRICS],
		       const double pct[CMP_NMETRICS]);

#endif
