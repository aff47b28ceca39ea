/* export: snapshots of a run written to files (JSON, CSV, Chrome trace, SVG).
 *
 * export_snapshot() copies what the store holds (the whole run, or a time
 * window of it) into a struct export_snap, hands it to each format's writer,
 * and publishes the files atomically: each is written to an unnamed (or
 * hidden) temporary file in the target directory, checked, fsync'ed, then
 * linked to its final name, which is never an existing file. Either every
 * requested file appears, complete, or none does. */
#ifndef SPACETIME_EXPORT_H
#define SPACETIME_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "store.h"

/* Formats, a bitmask for struct export_opts.formats. */
enum {
	EXPORT_F_JSON = 1u << 0,  /* NAME.json: summary, samples, processes, events */
	EXPORT_F_CSV = 1u << 1,   /* NAME.csv: the samples */
	EXPORT_F_TRACE = 1u << 2, /* NAME.trace.json: Chrome trace event format */
	EXPORT_F_SVG = 1u << 3,   /* NAME.svg: the chart */
	EXPORT_F_ALL = 0xfu,
};

struct export_opts {
	const char *dir;       /* directory to write into; NULL or "" = "." */
	unsigned formats;      /* EXPORT_F_* bits; 0 = all */
	uint64_t t0_ns, t1_ns; /* window on the store's clock (CLOCK_MONOTONIC, absolute,
				* like struct sample.t_ns); 0, 0 = the whole run */
	uint64_t start_wall_ns; /* a recorded run's start (CLOCK_REALTIME): its clock is
				 * not today's, so it is over at its last sample; 0 for
				 * a run of this process */
	struct store *against;     /* another run whose tree PSS the SVG draws as a ghost
				    * line, aligned at the start (NULL: none) */
	const char *against_label; /* its name in the legend ("run 41") */
};

/* One row of the exported time series: a store bucket (one sample at the
 * finest tier, an aggregate of several in older, coarser tiers) and the rates
 * derived from the previous row. */
struct export_row {
	struct bucket b;
	double minflt_per_s, majflt_per_s; /* valid with has_rates */
	double cpu_pct;                    /* user + system, percent of one core */
	int has_rates;
};

/* A consistent copy of the run, what every writer reads. Times in the files
 * are relative to start_ns. */
struct export_snap {
	struct store *st;           /* for store_str_get() only */
	char *const *argv;          /* the command */
	struct store_summary sum;
	uint64_t start_ns;          /* time zero: the command's start */
	uint64_t t0_ns, t1_ns;      /* the window exported (absolute) */
	int windowed;               /* a window was asked for */
	uint64_t now_ns;            /* when the snapshot was taken */
	struct timespec start_wall; /* the command's start, CLOCK_REALTIME */
	struct export_row *rows;
	size_t nrows;
	uint64_t nsamples;          /* samples aggregated in rows (sum of b.n) */
	struct proc_rec *procs;     /* processes overlapping the window, start order */
	size_t nprocs;
	struct store_event *events; /* events in the window, oldest first */
	size_t nevents;
	uint64_t events_dropped;    /* events the store's ring had already lost */
	/* the SVG's ghost line (export_opts.against): the other run's buckets
	 * over the same time from its start, on its own clock (ghost_start_ns
	 * its time zero), and its peak */
	struct bucket *ghost;
	size_t nghost;
	uint64_t ghost_start_ns, ghost_end_ns;
	struct sample ghost_peak;
	const char *ghost_label;
};

/* Copies the store into sn: the window [t0_ns, t1_ns] (0, 0 = whole run) of
 * the series at the finest resolution the store still has for each part,
 * the processes alive in it and its events. start_wall_ns: as in struct
 * export_opts. Returns 0 or -errno (ENOMEM, EINVAL for t1_ns < t0_ns). */
int export_snap_take(struct export_snap *sn, struct store *st, char *const argv[],
		     uint64_t t0_ns, uint64_t t1_ns, uint64_t start_wall_ns);
void export_snap_free(struct export_snap *sn);
/* Adds another run's tree PSS to sn, over the same time from its start as
 * sn's window (the whole of it when sn is the whole run). Returns 0 or
 * -ENOMEM. */
int export_snap_ghost(struct export_snap *sn, struct store *ghost, const char *label);

/* t_ns relative to the snapshot's start, in µs (0 for earlier times). */
uint64_t export_rel_us(const struct export_snap *sn, uint64_t t_ns);
/* Where a process's slice ends: end_ns, or the snapshot's end while alive. */
uint64_t export_proc_end(const struct export_snap *sn, const struct proc_rec *p);
/* Copies interned string id into *buf, growing it (malloc'ed, *cap bytes) as
 * needed. Returns its length, or -ENOENT / -ENOMEM. */
ssize_t export_str(const struct export_snap *sn, uint32_t id, char **buf, size_t *cap);
/* Writes the argv string id as a JSON array of strings, or null when unknown. */
void export_argv_json(FILE *f, const struct export_snap *sn, uint32_t id, char **buf, size_t *cap);
/* A display name for a process: the basename of argv[0] when the command line
 * is known, else comm, else "pid N". Writes at most cap - 1 bytes plus a NUL. */
void export_proc_name(const struct export_snap *sn, const struct proc_rec *p, char *out,
		      size_t cap);

/* Parses a comma-separated list of json, csv, trace, svg (or all) into
 * EXPORT_F_* bits. Returns 0, or -EINVAL naming nothing known. */
int export_formats_parse(const char *list, unsigned *formats);

/* Writes a snapshot of the run into o->dir, one file per format, named
 * COMMAND-YYYYMMDD-HHMMSS[-N].{json,csv,trace.json,svg} after the command's
 * basename and its start (local time), N > 1 avoiding existing files, with
 * -tA-B added for a window (seconds after the start). argv is the command.
 * Returns the number of files written, with their paths in msg separated by
 * spaces; or -errno with one line in msg saying what failed (without a
 * program-name prefix), in which case no file was left behind. msg may be
 * NULL; it is truncated to cap bytes. */
int export_snapshot(struct store *st, char *const argv[], const struct export_opts *o,
		    char *msg, size_t cap);

/* Checks, before a run, that export_snapshot() could write into dir (NULL or
 * "" = "."): it is a directory this process can create files in, on a
 * writable file system. Leaves nothing behind (an O_TMPFILE file, or
 * faccessat() where the file system has none). Returns 0 or -errno
 * (ENOENT, ENOTDIR, EACCES, EROFS, ...). Space is not checked: it can change
 * during the run, and export_snapshot() reports it. */
int export_dir_check(const char *dir);

#endif
