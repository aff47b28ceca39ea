/* runs: a recording's runs, for the front ends: listed, named ("last" or an
 * id) and opened as a run (run.h), loaded whole or, while another spacetime
 * still records it, followed. The front ends read recordings through this
 * and run.h only (no recdb header in ui/). */
#ifndef SPACETIME_RUNS_H
#define SPACETIME_RUNS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct run;
struct runs;

/* A run as the recording lists it. */
struct runs_row {
	int64_t id;
	uint64_t start_wall_ns, base_ns, wall_ns, peak_pss_kib;
	char *argv; /* NUL-separated, argv_len bytes (NULL when unknown) */
	size_t argv_len;
	char *cwd, *host, *note; /* NULL when unknown */
	int attached, incomplete;
	int exit_known, exit_status; /* wait(2) status */
	uint64_t updated_wall_ns;    /* CLOCK_REALTIME of the last write (0: unknown) */
	int unfinished;              /* the file does not say it ended */
	int detached;                /* it ended by a detach */
	const char *end;             /* how it ended, in a word ("exited", "running", ...) */
	char *damage; /* non-NULL: a value of the row broke its bound, as this line
		       * says; the row's other fields are then not to be used */
	char *labels; /* "KEY=VALUE" NUL-terminated each, labels_len bytes (NULL: none) */
	size_t labels_len;
};
/* Labels a run carries at most (--label). */
#define RUNS_LABELS_MAX 16
/* Whether "KEY=VALUE" is a label: KEY of letters, digits, _ . - (1 to 32),
 * VALUE of up to 200 bytes with no control character. */
int runs_label_ok(const char *label);
/* Whether row r carries label "KEY=VALUE". */
int runs_row_has(const struct runs_row *r, const char *label);

/* Opens the recording at path read-only. Returns 0, or -errno with one line
 * in msg. */
int runs_open(const char *path, struct runs **out, char *msg, size_t cap);
void runs_close(struct runs *rs);
/* What the last call that failed had to say. */
const char *runs_errmsg(struct runs *rs);
/* The runs, oldest first (free with runs_rows_free). Returns the count, or
 * -errno. A row whose values break their bounds is listed with its id and
 * damage only. */
ssize_t runs_list(struct runs *rs, struct runs_row **rows);
void runs_rows_free(struct runs_row *rows, size_t n);
/* Frees what one row holds. */
void runs_row_free(struct runs_row *row);
/* "last" or a decimal id: -ENOENT for no such run, -EINVAL for anything
 * else. */
int runs_resolve(struct runs *rs, const char *spec, int64_t *id);
/* Writes run id into a new recording of its own at path (spacetime export
 * --format db); no_output leaves the command's output and working directory
 * out. Returns 0, or -errno with one line in msg. */
int runs_copy(struct runs *rs, int64_t id, const char *path, int no_output, char *msg, size_t cap);
/* Opens run id as a run: loaded whole, or followed when it is still being
 * recorded (run_follow). The run takes the recording over: *rs is NULL
 * after it, whatever the result. *row gets the run's row (runs_row_free it).
 * Returns 0 with msg saying what the load left out ("" when nothing: rows
 * that broke a bound), or -errno with why in msg. */
int runs_take(struct runs **rs, int64_t id, struct run **out, struct runs_row *row, char *msg, size_t cap);

#endif
