/* recdb: the recording database, an SQLite file of runs.
 *
 * One file holds many runs. Each run is what the store held: the fine samples,
 * events, process records, execs and summary, plus per-process samples (the
 * process list at any instant) and the command's output lines. The schema is
 * one SQL block in recdb.c; its version is the row key = 'schema_version' of
 * the table meta(key, value), with key = 'application' = 'spacetime' naming
 * the file's writer. Times in the tables are ns relative to runs.base_ns (the
 * run's CLOCK_MONOTONIC origin); the API takes and returns absolute
 * CLOCK_MONOTONIC times, as the store does.
 *
 * Every call returns >= 0 or -errno and never prints; after a failure
 * recdb_errmsg() tells what failed in one line. The codes:
 *   -EBADMSG          not an SQLite file, or a truncated or corrupt one
 *   -EMEDIUMTYPE      an SQLite file that is not a spacetime recording (or empty)
 *   -EPROTONOSUPPORT  written by a newer spacetime (higher schema_version)
 *   -ENOPROTOOPT      (read-only) written by an older one: a writer's open
 *                     migrates it to this version
 *   -ENOSPC           disk (or database) full
 *   -EROFS, -EACCES   not writable
 *   -EBUSY            locked by another writer past the busy timeout
 *   -ENOENT           no such file (read-only open) or run
 *   -EIO, -ENOMEM     the rest
 * One struct recdb is for one thread at a time. The writer, checks and
 * pruning are in recdb.c, the reader in recdb_read.c. */
#ifndef SPACETIME_RECDB_H
#define SPACETIME_RECDB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "store.h"

/* The schema this spacetime writes; files with a higher one are refused. */
#define RECDB_SCHEMA_VERSION 2

enum {
	RECDB_RDONLY = 1u << 0,  /* read only; the file must exist */
	RECDB_NOCHECK = 1u << 1, /* read only: skip PRAGMA quick_check (big files) */
	RECDB_PRIVATE = 1u << 2, /* writer: an existing file (and its -wal, -shm) that
				  * others may read is made the user's alone (0600) */
};

struct recdb;
struct peakmaps_row;

/* Opens (creating it and its schema unless RECDB_RDONLY) a recording database
 * in WAL mode. A writer creates the file 0600 without following a symbolic
 * link, and takes an existing one only when it is a regular file of its own
 * user, as are its -wal and -shm if they exist (-ELOOP for a link, -EPERM for
 * another user's file). On failure *out is NULL and msg (if non-NULL) holds
 * one line. */
int recdb_open(const char *path, unsigned flags, struct recdb **out, char *msg, size_t msglen);
void recdb_close(struct recdb *db);
/* From any thread while db is open: on, the statement running on db fails at
 * once (SQLite's interrupt) and so does every later one, waits for another
 * writer's lock included; off, statements run again. */
void recdb_abort(struct recdb *db, int on);
/* From any thread while db is open: whether a statement on db is waiting for
 * another connection's write lock now. */
int recdb_waiting_lock(struct recdb *db);
/* The last failure's one-line message ("" when none). */
const char *recdb_errmsg(const struct recdb *db);

/* How a run ended (runs.end_state). */
enum recdb_end {
	RECDB_END_RUNNING = 0, /* not finished: the recorder stopped or crashed */
	RECDB_END_EXITED,      /* the command ended */
	RECDB_END_DETACHED,    /* detached from attached processes */
	RECDB_END_INTERRUPTED, /* spacetime was stopped before the command ended */
	RECDB_END_FAILED,      /* the command could not be started */
};
const char *recdb_end_name(enum recdb_end e);

/* What is known of a run when it begins. */
struct recdb_run_info {
	uint64_t start_wall_ns; /* CLOCK_REALTIME at the start */
	uint64_t base_ns;       /* CLOCK_MONOTONIC origin of the run's times */
	const char *argv;       /* command line, NUL-separated bytes */
	size_t argv_len;
	const char *cwd, *host; /* may be NULL */
	int attached;           /* runs.source: 'attached' (spacetime -p) or 'spawned' */
	/* labels, "KEY=VALUE" each (recdb_label_ok): kept as run_summary rows
	 * keyed label.KEY, which a spacetime that knows none leaves alone */
	const char *const *labels;
	size_t nlabels;
};
/* Labels a run carries at most, and their parts' bounds. */
#define RECDB_LABELS_MAX 16
#define RECDB_LABEL_KEY_MAX 32
#define RECDB_LABEL_VALUE_MAX 200
/* Whether "KEY=VALUE" is a label: KEY of letters, digits, _ . - (1 to 32),
 * VALUE of up to 200 bytes with no control character. */
int recdb_label_ok(const char *label);
/* Inserts the run, incomplete until recdb_run_finish(); *run_id gets its id. */
int recdb_run_begin(struct recdb *db, const struct recdb_run_info *info, int64_t *run_id);

/* A process record with its command line's bytes (argv NULL: none, or, for an
 * update, keep the bytes already written). seq is its insertion index in the
 * store (the STORE_PROCS_ALL order). */
struct recdb_proc {
	struct proc_rec rec;
	uint64_t seq;
	const char *argv;
	size_t argv_len;
};
/* An exec with its index in the store and its command line's bytes. */
struct recdb_exec {
	struct store_exec ex;
	uint64_t idx;
	const char *argv;
	size_t argv_len;
};
/* One line of the command's output (bytes without the newline). */
struct recdb_line {
	uint64_t t_ns;
	const char *bytes;
	size_t len;
};
/* What one recdb_write() appends; any count may be 0. */
/* How a run ended: its state, whether anything was lost (incomplete), and
 * why (note, NULL for none). */
struct recdb_end_info {
	enum recdb_end end;
	int incomplete;
	const char *note;
};

struct recdb_batch {
	const struct sample *samples;
	size_t nsamples;
	const struct store_event *events;
	size_t nevents;
	const struct recdb_proc *procs; /* upserted by (run, id) */
	size_t nprocs;
	const struct recdb_exec *execs; /* upserted by (run, idx) */
	size_t nexecs;
	const struct store_proc_sample *psamples;
	size_t npsamples;
	const struct recdb_line *lines;
	size_t nlines;
	/* the peak's maps, in place of the run's (peak_maps_set: they changed) */
	int peak_maps_set;
	const struct peakmaps_row *peak_maps;
	size_t npeak_maps;
	const struct store_summary *summary; /* NULL: unchanged */
	/* the summary's last sample is written only by the final write: until
	 * then the last of the samples says it (a row per field each second
	 * saved, half of the summary's writes) */
	int final;
	/* non-NULL: the run's end, written in the same transaction (the last
	 * write of a run, one commit instead of two: recdb_run_finish) */
	const struct recdb_end_info *end;
};
/* The peak's maps of a run (peakmaps.h), bounded as read back; *out
 * malloc'd (NULL when none). Returns the count, -EBADMSG (a value out of
 * its bounds: recdb_errmsg says which), or -errno. */
ssize_t recdb_peak_maps(struct recdb *db, int64_t run_id, struct peakmaps_row **out);
/* Writes the batch in one transaction, all or nothing. */
int recdb_write(struct recdb *db, int64_t run_id, const struct recdb_batch *b);
/* Writes the final summary (if non-NULL), the end state and the incomplete
 * flag, in one transaction; note (NULL for none) says why a run is incomplete. */
int recdb_run_finish(struct recdb *db, int64_t run_id, const struct store_summary *sum,
		     enum recdb_end end, int incomplete, const char *note);

/* One line of `spacetime runs`. */
struct recdb_run_row {
	int64_t id;
	uint64_t start_wall_ns, base_ns, wall_ns, peak_pss_kib;
	char *argv; /* NUL-separated, argv_len bytes (NULL when unknown) */
	size_t argv_len;
	char *cwd, *host, *note; /* NULL when unknown */
	int attached, incomplete;
	int exit_known, exit_status; /* wait(2) status */
	uint64_t updated_wall_ns;    /* CLOCK_REALTIME of the last write (0: unknown):
				      * a run still being recorded is written every second */
	enum recdb_end end;
	char *damage; /* non-NULL: a value of the row broke its bound, as this line
		       * says; the row's other fields are then not to be used */
	char *labels; /* "KEY=VALUE" NUL-terminated each, labels_len bytes (NULL: none) */
	size_t labels_len;
};
/* Lists the runs, oldest first; free with recdb_runs_free(). Returns the
 * count. A row whose values break their bounds is listed with its id and
 * damage only. */
ssize_t recdb_runs(struct recdb *db, struct recdb_run_row **out);
void recdb_runs_free(struct recdb_run_row *rows, size_t n);
/* Resolves "last" or a decimal run id; -ENOENT for no such run, -EINVAL for
 * anything else. */
int recdb_resolve(struct recdb *db, const char *spec, int64_t *run_id);
/* Loads a run into a new store (every fine sample kept), so the front ends
 * and exports read it as a live run. Its per-process samples and output
 * lines are loaded as far as they can be: a row of theirs that breaks a
 * bound is left out, not the run (recdb_warning says what), and at most
 * RECDB_LOAD_PSAMPLES per-process samples are kept (the last ones). */
#define RECDB_LOAD_PSAMPLES (1u << 20)
int recdb_load(struct recdb *db, int64_t run_id, struct store **out);
/* What the last recdb_load left out, in one line ("" when nothing). */
const char *recdb_warning(const struct recdb *db);

/* Following a run still being recorded (by another spacetime): what was
 * read so far. Zero it before the first call. */
struct recdb_follow {
	int started;
	int64_t t_rel, event_rowid, exec_idx, seq, psample_rowid, line_rowid;
	int ended; /* the run has finished (or was never running) */
	uint64_t updated_wall_ns; /* CLOCK_REALTIME of its recorder's last write */
};
/* Adds to st (a store of its own, from store_new) what the run has that was
 * not read yet: new samples, events, execs, per-process samples, output
 * lines, new or changed process records, and the summary; the first call reads it all. Returns 1 when something
 * came, 0 when nothing did, or -errno. */
int recdb_follow(struct recdb *db, int64_t run_id, struct store *st, struct recdb_follow *f);

/* Writes run run_id of src into a new recording at path (which must not
 * exist), the rows as they are; RECDB_COPY_NO_OUTPUT leaves the command's
 * output and working directory out. Returns 0, or -errno with one line in
 * msg (and no file left behind). */
#define RECDB_COPY_NO_OUTPUT (1u << 0)
int recdb_copy_run(struct recdb *src, int64_t run_id, const char *path, unsigned flags, char *msg, size_t cap);

/* Deletes the oldest runs until at most keep_runs remain (0: no limit) and
 * the file's used bytes are at most max_bytes (0: no limit), never the newest
 * run; returns how many were deleted. */
int recdb_prune(struct recdb *db, size_t keep_runs, uint64_t max_bytes);

#endif
