/* runs.c: see runs.h. */
#include "runs.h"

#include "recdb.h"
#include "run.h"
#include "store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct runs {
	struct recdb *db;
};

int runs_open(const char *path, struct runs **out, char *msg, size_t cap)
{
	struct runs *rs = calloc(1, sizeof(*rs));
	int r;

	*out = NULL;
	if (!rs) {
		snprintf(msg, cap, "out of memory");
		return -ENOMEM;
	}
	r = recdb_open(path, RECDB_RDONLY, &rs->db, msg, cap);
	/* an older spacetime's file that this user may write: brought to this
	 * version (the writer's open migrates it, whole, in one transaction) */
	if (r == -ENOPROTOOPT && access(path, W_OK) == 0) {
		struct recdb *w;
		char wmsg[256];
		if (recdb_open(path, 0, &w, wmsg, sizeof(wmsg)) == 0) {
			recdb_close(w);
			r = recdb_open(path, RECDB_RDONLY, &rs->db, msg, cap);
		}
	}
	if (r < 0) {
		free(rs);
		return r;
	}
	*out = rs;
	return 0;
}

void runs_close(struct runs *rs)
{
	if (!rs)
		return;
	recdb_close(rs->db);
	free(rs);
}

const char *runs_errmsg(struct runs *rs)
{
	return recdb_errmsg(rs->db);
}

/* A recording's row as the front ends take it (its pointers move over). */
static void row_of(struct recdb_run_row *r, struct runs_row *out)
{
	*out = (struct runs_row){
		.id = r->id, .start_wall_ns = r->start_wall_ns, .base_ns = r->base_ns, .wall_ns = r->wall_ns,
		.peak_pss_kib = r->peak_pss_kib, .argv = r->argv, .argv_len = r->argv_len, .cwd = r->cwd,
		.host = r->host, .note = r->note, .attached = r->attached, .incomplete = r->incomplete,
		.exit_known = r->exit_known, .exit_status = r->exit_status, .updated_wall_ns = r->updated_wall_ns,
		.unfinished = r->end == RECDB_END_RUNNING, .detached = r->end == RECDB_END_DETACHED,
		.end = recdb_end_name(r->end), .damage = r->damage, .labels = r->labels,
		.labels_len = r->labels_len};
	r->argv = r->cwd = r->host = r->note = r->damage = r->labels = NULL;
}

ssize_t runs_list(struct runs *rs, struct runs_row **rows)
{
	struct recdb_run_row *v = NULL;
	ssize_t n = recdb_runs(rs->db, &v);

	*rows = NULL;
	if (n < 0)
		return n;
	struct runs_row *out = calloc(n > 0 ? (size_t)n : 1, sizeof(*out));
	if (!out) {
		recdb_runs_free(v, (size_t)n);
		return -ENOMEM;
	}
	for (ssize_t i = 0; i < n; i++)
		row_of(&v[i], &out[i]);
	recdb_runs_free(v, (size_t)n);
	*rows = out;
	return n;
}

void runs_row_free(struct runs_row *row)
{
	free(row->argv);
	free(row->cwd);
	free(row->host);
	free(row->note);
	free(row->damage);
	free(row->labels);
	memset(row, 0, sizeof(*row));
}

void runs_rows_free(struct runs_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		runs_row_free(&rows[i]);
	free(rows);
}

int runs_label_ok(const char *label)
{
	return recdb_label_ok(label);
}

int runs_row_has(const struct runs_row *r, const char *label)
{
	for (size_t i = 0; r->labels && i < r->labels_len; i += strlen(r->labels + i) + 1)
		if (!strcmp(r->labels + i, label))
			return 1;
	return 0;
}

int runs_resolve(struct runs *rs, const char *spec, int64_t *id)
{
	return recdb_resolve(rs->db, spec, id);
}

int runs_copy(struct runs *rs, int64_t id, const char *path, int no_output, char *msg, size_t cap)
{
	return recdb_copy_run(rs->db, id, path, no_output ? RECDB_COPY_NO_OUTPUT : 0, msg, cap);
}

/* Row id among the recording's, into *row. Returns 0, -ENOENT, or -errno. */
static int find_row(struct runs *rs, int64_t id, struct runs_row *row)
{
	struct runs_row *rows = NULL;
	ssize_t n = runs_list(rs, &rows);
	int r = -ENOENT;

	for (ssize_t i = 0; i < n; i++)
		if (rows[i].id == id) {
			*row = rows[i];
			memset(&rows[i], 0, sizeof(rows[i]));
			r = 0;
		}
	runs_rows_free(rows, n > 0 ? (size_t)n : 0);
	return n < 0 ? (int)n : r;
}

int runs_take(struct runs **rsp, int64_t id, struct run **out, struct runs_row *row, char *msg, size_t cap)
{
	struct runs *rs = *rsp;
	struct store *st = NULL;
	struct store_config sc = {.proc_samples_len = RUN_PROC_SAMPLES};
	int r;

	*out = NULL;
	*rsp = NULL;
	memset(row, 0, sizeof(*row));
	if ((r = find_row(rs, id, row)) < 0 || row->damage) {
		snprintf(msg, cap, "%s", row->damage ? row->damage : r == -ENOENT ? "no such run" : recdb_errmsg(rs->db));
		r = r < 0 ? r : -EBADMSG;
		goto fail;
	}
	/* a run still being recorded is followed (read as it grows); the others
	 * are loaded whole, in the store's own orders */
	int follow = row->unfinished && run_recording_live(row->updated_wall_ns);
	if (follow && !(st = store_new(&sc)))
		r = -ENOMEM;
	else if (!follow)
		r = recdb_load(rs->db, id, &st);
	if (r < 0) {
		snprintf(msg, cap, "%s", r == -ENOMEM && follow ? "out of memory" : recdb_errmsg(rs->db));
		goto fail;
	}
	if (!(*out = run_new_recorded(st, rs->db, id))) {
		store_free(st);
		snprintf(msg, cap, "out of memory");
		r = -ENOMEM;
		goto fail;
	}
	/* what the load left out (rows that broke a bound), or nothing */
	snprintf(msg, cap, "%s", follow ? "" : recdb_warning(rs->db));
	free(rs); /* the run has the recording now */
	if (follow && (r = run_follow(*out)) < 0) {
		snprintf(msg, cap, "%s", run_errmsg(*out));
		run_free(*out);
		*out = NULL;
		runs_row_free(row);
		return r;
	}
	return 0;
fail:
	runs_row_free(row);
	runs_close(rs);
	return r;
}
