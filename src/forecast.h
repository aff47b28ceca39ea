/* forecast: a recorded build replayed through N job slots, as make and
 * ninja run it: a job starts when a slot is free, in the order the jobs
 * became ready in the recording, once the jobs it waits for have ended. On
 * the machine's cores: when the CPU the running jobs ask for passes the
 * cores, each job's CPU-bound part is stretched by as much. At every step
 * the PSS of the running jobs (each at its point of progress on its
 * recorded curve) is summed, with the build tool's own processes on top;
 * file-backed pages of one program are counted once over its copies
 * running at once (they share them: a second cc1 maps the same cc1).
 * Pure: a job list in, per-N figures out (forecast_rec.h builds the list
 * from a recording). */
#ifndef SPACETIME_FORECAST_H
#define SPACETIME_FORECAST_H

#include <stddef.h>
#include <stdint.h>

/* Jobs named in a result's at_peak at most. */
#define FORECAST_PEAK_JOBS 8
/* Slots tried at most (-j). */
#define FORECAST_SLOTS_MAX 4096

/* Bits of struct forecast_job.flags. */
enum {
	/* no slot and no time: a point the jobs after it wait on (the end of
	 * a sub-make a recipe's shell ran before its next command) */
	FORECAST_BARRIER = 1u << 0,
};

/* One job: a recipe's command and all it ran (the compiler driver, cc1,
 * as), as recorded. */
struct forecast_job {
	uint64_t dur_ns; /* its wall time */
	uint64_t cpu_ns; /* the CPU time of its processes together */
	/* its PSS over its life: pss_kib[k] the most in [k, k + 1) steps from
	 * its start (npss 0: none known, 0) */
	const uint32_t *pss_kib;
	size_t npss;
	/* of each KiB of its PSS: the part that is its own (anonymous), and
	 * its file-backed pages as one copy of its program alone would hold
	 * them (more than the part counted in its PSS when copies ran at once
	 * in the recording and split them) */
	float anon_share, file_mult;
	uint32_t prog;          /* its program (< the model's nprogs) */
	const uint32_t *deps;   /* the jobs it waits for: indices below its own */
	uint32_t ndeps;
	unsigned flags;
};

struct forecast_model {
	const struct forecast_job *jobs; /* in the order they became ready */
	size_t njobs;
	uint32_t nprogs;
	uint64_t step_ns;          /* the step of the jobs' curves */
	uint64_t tool_kib;         /* the build tool's own processes: a constant */
	uint64_t head_ns, tail_ns; /* before the first job and after the last */
	double cores;              /* CPUs the jobs share (> 0) */
};

/* A job of the peak: its index and its part of the peak (a program's
 * file-backed pages counted with its largest copy). */
struct forecast_peak_job {
	size_t job;
	uint64_t pss_kib;
};

struct forecast_result {
	unsigned slots;
	uint64_t peak_kib;  /* the most at one instant, the tool's included */
	uint64_t peak_t_ns; /* when, from the build's start */
	uint64_t wall_ns;   /* the build's start to its end */
	unsigned most_running;    /* jobs running at once at most */
	unsigned running_at_peak; /* and at the peak */
	struct forecast_peak_job at_peak[FORECAST_PEAK_JOBS]; /* largest first */
	size_t n_at_peak;
};

/* Replays the model through slots slots (1..FORECAST_SLOTS_MAX) into out.
 * Returns 0, -EINVAL (no slot, no step, no cores, a job waiting on one not
 * before it, a program out of range) or -ENOMEM. */
int forecast_run(const struct forecast_model *m, unsigned slots, struct forecast_result *out);

#endif
