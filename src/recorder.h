/* recorder: the thread that copies a running store into a recording.
 *
 * About once a second it copies what is new from the store (fine samples,
 * events, per-process samples, new or changed process records, execs, the
 * summary) and the output lines handed to it, and
 * writes them to the recording database in one transaction. It never runs
 * SQLite work under the store's lock or on the caller's thread, and the
 * caller never waits for the disk: recorder_output() copies into a bounded
 * queue (lines that do not fit are counted, not waited for). A write failure
 * (disk full, read-only, I/O error) stops the recording, keeps a one-line
 * message, and the run goes on; recorder_finish() then marks the run
 * incomplete if the database still takes that update. */
#ifndef SPACETIME_RECORDER_H
#define SPACETIME_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "recdb.h"
#include "store.h"

struct peakmaps;

struct recorder_config {
	uint32_t interval_ms;  /* between writes (default 1000) */
	size_t output_bytes;   /* output queue capacity, each of two buffers (default 16 MiB;
				* they start at 256 KiB and grow as the output needs) */
	uint64_t settle_ns;    /* an exited record this old is not looked at again until
				* the final write (default 5 s) */
	struct peakmaps *peakmaps; /* the peak's maps to keep with the run (NULL: none) */
};

struct recorder_stats {
	uint64_t batches;        /* transactions written */
	uint64_t samples, events, procs, psamples, execs, lines; /* rows written */
	uint64_t samples_missed; /* gone from the store's fine tier before copied */
	uint64_t events_missed;  /* gone from the store's event ring before copied */
	uint64_t psamples_missed; /* gone from its per-process sample ring */
	uint64_t lines_dropped, bytes_dropped; /* output the queue had no room for */
	uint64_t procs_looked;   /* process records copied from the store to compare */
	uint64_t write_ns;       /* time spent in recdb_write() */
	uint64_t copy_ns;        /* time spent copying from the store */
	int failed;              /* writing stopped (recorder_error() tells why) */
};

struct recorder;

/* Starts the recorder thread for run_id of db (begun by the caller with
 * recdb_run_begin()); from here until recorder_finish() returns, db belongs to
 * the thread. cfg may be NULL. Signals are blocked in the thread. Returns
 * NULL + errno. */
struct recorder *recorder_start(struct store *st, struct recdb *db, int64_t run_id,
				const struct recorder_config *cfg);
/* Queues one line of the command's output (without its newline), copied;
 * never waits for the disk. */
void recorder_output(struct recorder *r, uint64_t t_ns, const char *bytes, size_t len);
/* Asks for a write now instead of at the next interval (never waits). */
void recorder_kick(struct recorder *r);
/* Writes what is left and the final summary with the end state, marks the run
 * incomplete when anything was lost, and joins the thread. Returns 0, or the
 * -errno of the failure that stopped writing. */
int recorder_finish(struct recorder *r, enum recdb_end end);
/* The same within a deadline (CLOCK_MONOTONIC ns; 0: none) that cancel_fd
 * (> 0; else none) becoming readable brings forward to now: past it the write
 * is stopped (recdb_abort), the run's end state is written with the run marked
 * incomplete if the file takes it within RECORDER_ABORT_GRACE_MS, and this
 * returns -ETIMEDOUT or -ECANCELED (recorder_error() says which). A thread
 * still stuck in a system call after the grace is left behind (its recorder
 * and database are then never freed): the caller goes on. */
int recorder_finish_by(struct recorder *r, enum recdb_end end, uint64_t deadline_ns, int cancel_fd);
#define RECORDER_ABORT_GRACE_MS 300
/* Copies the failure's one-line message into buf ("" when none). */
void recorder_error(struct recorder *r, char *buf, size_t cap);
void recorder_stats(struct recorder *r, struct recorder_stats *out);
/* Frees the recorder (finishing it first with RECDB_END_INTERRUPTED if needed);
 * an abandoned one is left as it is. */
void recorder_free(struct recorder *r);
/* Whether recorder_finish_by() left the thread behind (its database must not
 * be closed then). */
int recorder_abandoned(const struct recorder *r);

#endif
