/* forecast_rec: a recorded run as the forecast's job list (forecast.h).
 *
 * The jobs: the build tool's processes (make, ninja, cargo and their kin;
 * with none, the command itself) run recipes; each child of a tool that is
 * no tool, and runs none, is a job, with all it ran (a compiler driver's
 * cc1 and as): its wall time, its CPU time, the sum of its processes' PSS
 * curves (forecast_curve.h) on a common step, named after its heaviest
 * process. A process that is no tool but runs one (a recipe's shell around
 * a sub-make) belongs to the tool's side, and what it ran one after
 * another stays in that order (a barrier between them).
 *
 * Dependencies: a -j1 recording shows none (each job follows the one
 * before), so the jobs under one make are taken as independent. At -jN a
 * job that started as another ended, while a slot was free, waited on it;
 * other recordings of the same build at -jN add theirs.
 *
 * The recorded -j: the outermost tool's command line (-jN, -j N, --jobs=N,
 * a MAKEFLAGS=... word before it), else the most jobs that ran at once;
 * FORECAST_SLOTS_MAX at most (the most a forecast runs).
 *
 * File-backed pages: each job's share of them is the tree's at the
 * instants of its life (the tree's samples split PSS into anonymous and
 * file-backed pages); as one copy alone would hold them, counting the
 * copies of its program that split them then. The build tool's own
 * processes: their highest sum at an instant, a constant. */
#ifndef SPACETIME_FORECAST_REC_H
#define SPACETIME_FORECAST_REC_H

#include <stddef.h>
#include <stdint.h>

#include "forecast.h"
#include "jobname.h"
#include "store.h"

struct forecast_rec;

/* Where the recorded -j was read. */
enum forecast_slots_from {
	FORECAST_FROM_ARGV = 1, /* the tool's command line */
	FORECAST_FROM_MOST,     /* the most jobs that ran at once */
};

struct forecast_rec_info {
	size_t njobs;             /* jobs (barriers not counted) */
	size_t ndeps_seen;        /* dependencies read from a -jN recording */
	size_t ndeps_runs;        /* and carried over from the other recordings */
	size_t nbarriers;         /* sub-makes a recipe ran one after another */
	unsigned recorded_slots;  /* the recorded -j (0: unlimited, -j alone), FORECAST_SLOTS_MAX at most */
	unsigned slots_over;      /* the recorded -j when past FORECAST_SLOTS_MAX (0: it was not) */
	int slots_from;           /* enum forecast_slots_from */
	unsigned slots_said;      /* FORECAST_FROM_ARGV: the -j it says (0: unlimited; more may have run) */
	char slots_word[32];      /* the word that said it ("-j8"), from the command line */
	unsigned most_at_once;    /* jobs that ran at once at most */
	char tool[16];            /* the outermost tool ("" none: the command's children) */
	uint64_t tool_kib;        /* the tool's own processes, their highest sum */
	uint64_t step_ns;         /* of the jobs' curves */
	uint64_t dep_window_ns;   /* how soon after an end a start counts as waiting on it */
	size_t unknown_pss;       /* processes of jobs whose PSS was never read (0 then) */
	uint64_t dropped_samples; /* per-process samples the load let go of */
	double file_share;        /* the jobs' file-backed share, over their PSS (their time) */
	uint64_t measured_peak_kib, measured_wall_ns;
};

/* The forecast's job list of the recorded run in st, with the
 * dependencies the recorded runs more[0..nmore) of the same build show
 * (forecast_match.h). Returns 0, -ENODATA (no job: no process ran under
 * the command) or -ENOMEM. */
int forecast_rec_build(struct store *st, struct store *const *more, size_t nmore, struct forecast_rec **out);
void forecast_rec_free(struct forecast_rec *fr);
/* The model (cores 1: the caller sets its own in a copy). */
const struct forecast_model *forecast_rec_model(const struct forecast_rec *fr);
const struct forecast_rec_info *forecast_rec_info(const struct forecast_rec *fr);
/* Job j's name (jobname.h: its heaviest process's), "" for a barrier. */
const char *forecast_rec_job(const struct forecast_rec *fr, size_t j);

/* This machine: the memory the command may use (the cgroup's memory.max
 * when one binds, else MemTotal: *by_cgroup says which) and the CPUs it
 * may run on. Returns 0, or -errno when the memory could not be read. */
int forecast_rec_machine(uint64_t *ram_kib, int *by_cgroup, unsigned *cpus);

#endif
