/* recdb_read: the recording database's reader side (see recdb.h): the list
 * of runs, run ids, a run loaded into a store, and the process list and
 * output as of an instant. */
#include "recdb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "recdb_sql.h"

void recdb_runs_free(struct recdb_run_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].argv);
		free(rows[i].cwd);
		free(rows[i].host);
		free(rows[i].note);
	}
	free(rows);
}

ssize_t recdb_runs(struct recdb *db, struct recdb_run_row **out)
{
	struct recdb_run_row *rows = NULL, *r;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc;

	*out = NULL;
	rc = sqlite3_prepare_v2(db->db,
				"SELECT id, start_wall_ns, base_ns, argv, cwd, host, source, end_state,"
				" incomplete, note, wall_ns, peak_pss_kib, exit_status, updated_wall_ns"
				" FROM runs"
				" ORDER BY id", -1, &s, NULL);
	while (rc == SQLITE_OK || rc == SQLITE_ROW) {
		const char *src;

		if ((rc = sqlite3_step(s)) != SQLITE_ROW)
			break;
		src = (const char *)sqlite3_column_text(s, 6);

		if (n == cap) {
			struct recdb_run_row *g;

			cap = cap ? cap * 2 : 16;
			g = realloc(rows, cap * sizeof(*rows));
			if (!g) {
				rc = SQLITE_NOMEM;
				break;
			}
			rows = g;
		}
		r = &rows[n++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(s, 0);
		r->start_wall_ns = (uint64_t)sqlite3_column_int64(s, 1);
		r->base_ns = (uint64_t)sqlite3_column_int64(s, 2);
		r->argv = recdb_sql_col_dup(s, 3, &r->argv_len);
		r->cwd = recdb_sql_col_dup(s, 4, NULL);
		r->host = recdb_sql_col_dup(s, 5, NULL);
		r->attached = src && strcmp(src, "attached") == 0;
		r->end = recdb_sql_end_parse((const char *)sqlite3_column_text(s, 7));
		r->incomplete = sqlite3_column_int(s, 8);
		r->note = recdb_sql_col_dup(s, 9, NULL);
		r->wall_ns = (uint64_t)sqlite3_column_int64(s, 10);
		r->peak_pss_kib = (uint64_t)sqlite3_column_int64(s, 11);
		r->exit_known = sqlite3_column_type(s, 12) != SQLITE_NULL;
		r->exit_status = sqlite3_column_int(s, 12);
		r->updated_wall_ns = (uint64_t)sqlite3_column_int64(s, 13);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		recdb_runs_free(rows, n);
		return rc == SQLITE_NOMEM ? recdb_sql_say(db, -ENOMEM, "listing runs: out of memory")
					  : recdb_sql_fail(db, rc, "listing runs");
	}
	*out = rows;
	return (ssize_t)n;
}

int recdb_resolve(struct recdb *db, const char *spec, int64_t *run_id)
{
	uint64_t base;
	char *end;
	long long v;
	int rc;

	if (strcmp(spec, "last") == 0) {
		rc = recdb_sql_int(db, "SELECT max(id) FROM runs WHERE id IS NOT NULL", run_id,
			       "reading the runs");
		if (rc == 0 && *run_id == 0)
			rc = -ENODATA;
		if (rc == -ENODATA)
			return recdb_sql_say(db, -ENOENT, "the recording holds no run");
		return rc;
	}
	errno = 0;
	v = strtoll(spec, &end, 10);
	if (!*spec || *end || errno || v <= 0)
		return recdb_sql_say(db, -EINVAL, "'%s' is not a run: give its number or 'last'", spec);
	rc = recdb_sql_run_base(db, v, &base);
	if (rc == 0)
		*run_id = v;
	return rc;
}

/* Prepares sql with ?1 bound to the run id. */
static int recdb_prep_run(struct recdb *db, const char *sql, int64_t run_id, sqlite3_stmt **s)
{
	int rc = sqlite3_prepare_v2(db->db, sql, -1, s, NULL);

	if (rc != SQLITE_OK) {
		sqlite3_finalize(*s);
		*s = NULL;
		return recdb_sql_fail(db, rc, "reading the recording");
	}
	sqlite3_bind_int64(*s, 1, run_id);
	return 0;
}

/* Interns a BLOB column (NULL: id 0). */
static uint32_t recdb_col_intern(struct store *st, sqlite3_stmt *s, int col)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return 0;
	return store_str_intern(st, sqlite3_column_blob(s, col),
				(size_t)sqlite3_column_bytes(s, col));
}

static int recdb_load_samples(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT t_ns, pss_kib, pss_anon_kib, pss_file_kib, pss_shmem_kib,"
				" pss_est_kib, pss_hi_kib, rss_kib, minflt, majflt, utime_us, stime_us,"
				" live_procs, live_threads, total_procs, total_threads, valid"
				" FROM samples WHERE run_id = ?1 ORDER BY t_ns, rowid", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct sample smp;

		memset(&smp, 0, sizeof(smp));
		for (size_t f = 0; f < recdb_sql_nsample_fields; f++)
			recdb_sql_col_field(s, (int)f, &recdb_sql_sample_fields[f], &smp, base);
		store_push_sample(st, &smp);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading samples");
}

static int recdb_load_events(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT t_ns, type, pid, ppid, arg FROM events WHERE run_id = ?1"
				" ORDER BY t_ns, rowid", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_event e;

		memset(&e, 0, sizeof(e));
		e.t_ns = base + (uint64_t)sqlite3_column_int64(s, 0);
		e.type = (uint32_t)sqlite3_column_int64(s, 1);
		e.pid = (pid_t)sqlite3_column_int64(s, 2);
		e.ppid = (pid_t)sqlite3_column_int64(s, 3);
		e.arg = sqlite3_column_int64(s, 4);
		store_push_event(st, &e);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading events");
}

/* Exit order: by end time, then insertion order. */
static int recdb_cmp_end(const void *a, const void *b)
{
	const struct proc_rec *x = a, *y = b;

	if (x->end_ns != y->end_ns)
		return x->end_ns < y->end_ns ? -1 : 1;
	return 0;
}

/* Inserts every process live in insertion order, then ends the exited ones
 * in the order of their ends, so both store orders come back. */
static int recdb_load_procs(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	struct proc_rec *ended = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT id, pid, ppid, start_ns, end_ns, comm, argv, exit_status,"
				" threads, nexec, pss_kib, rss_kib, peak_pss_kib, peak_pss_t_ns,"
				" peak_rss_kib, pss_age_ns, utime_us, stime_us, minflt, majflt, valid"
				" FROM processes WHERE run_id = ?1 ORDER BY seq", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct proc_rec r;

		memset(&r, 0, sizeof(r));
		r.id = (uint64_t)sqlite3_column_int64(s, 0);
		r.pid = (pid_t)sqlite3_column_int64(s, 1);
		r.ppid = (pid_t)sqlite3_column_int64(s, 2);
		r.start_ns = recdb_sql_col_time(s, 3, base);
		r.end_ns = recdb_sql_col_time(s, 4, base);
		recdb_sql_col_comm(s, 5, r.comm);
		r.argv_id = recdb_col_intern(st, s, 6);
		r.exit_status = sqlite3_column_int(s, 7);
		r.threads = (uint32_t)sqlite3_column_int64(s, 8);
		r.nexec = (uint32_t)sqlite3_column_int64(s, 9);
		r.pss_kib = (uint64_t)sqlite3_column_int64(s, 10);
		r.rss_kib = (uint64_t)sqlite3_column_int64(s, 11);
		r.peak_pss_kib = (uint64_t)sqlite3_column_int64(s, 12);
		r.peak_pss_t_ns = recdb_sql_col_time(s, 13, base);
		r.peak_rss_kib = (uint64_t)sqlite3_column_int64(s, 14);
		r.pss_age_ns = (uint64_t)sqlite3_column_int64(s, 15);
		r.utime_us = (uint64_t)sqlite3_column_int64(s, 16);
		r.stime_us = (uint64_t)sqlite3_column_int64(s, 17);
		r.minflt = (uint64_t)sqlite3_column_int64(s, 18);
		r.majflt = (uint64_t)sqlite3_column_int64(s, 19);
		r.valid = (uint32_t)sqlite3_column_int64(s, 20);
		if (r.end_ns) {
			if (n == cap) {
				struct proc_rec *g;

				cap = cap ? cap * 2 : 64;
				g = realloc(ended, cap * sizeof(*ended));
				if (!g) {
					rc = SQLITE_NOMEM;
					break;
				}
				ended = g;
			}
			ended[n++] = r;
			r.end_ns = 0;
		}
		if (store_proc_update(st, &r) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE) {
		/* a stable insertion sort (ties keep insertion order); ends mostly
		 * come in order already, so it is near linear */
		for (size_t i = 1; i < n; i++) {
			struct proc_rec x = ended[i];
			size_t j = i;

			if (recdb_cmp_end(&ended[j - 1], &x) <= 0)
				continue;
			while (j > 0 && recdb_cmp_end(&ended[j - 1], &x) > 0) {
				ended[j] = ended[j - 1];
				j--;
			}
			ended[j] = x;
		}
		for (size_t i = 0; i < n && rc == SQLITE_DONE; i++)
			if (store_proc_update(st, &ended[i]) < 0)
				rc = SQLITE_NOMEM;
	}
	free(ended);
	if (rc == SQLITE_NOMEM)
		return recdb_sql_say(db, -ENOMEM, "loading processes: out of memory");
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading processes");
}

static int recdb_load_execs(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db,
				"SELECT t_ns, pid, ppid, comm, argv FROM execs WHERE run_id = ?1"
				" ORDER BY idx", run_id, &s);

	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_exec x;

		memset(&x, 0, sizeof(x));
		x.t_ns = base + (uint64_t)sqlite3_column_int64(s, 0);
		x.pid = (pid_t)sqlite3_column_int64(s, 1);
		x.ppid = (pid_t)sqlite3_column_int64(s, 2);
		recdb_sql_col_comm(s, 3, x.comm);
		x.argv_id = recdb_col_intern(st, s, 4);
		store_push_exec(st, &x);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading execs");
}

/* Sets the field named key of the summary from column 1 of s. */
static void recdb_sum_set(struct store_summary *sum, const char *key, sqlite3_stmt *s,
			  uint64_t base)
{
	const struct recdb_sql_field *fields = recdb_sql_sum_fields;
	size_t nf = recdb_sql_nsum_fields;
	void *obj = sum;

	if (strncmp(key, "attach_pid.", 11) == 0) {
		unsigned long i = strtoul(key + 11, NULL, 10);

		if (i < STORE_ATTACH_MAX)
			sum->attach_pid[i] = (pid_t)sqlite3_column_int64(s, 1);
		return;
	}
	if (strncmp(key, "peak.", 5) == 0 || strncmp(key, "last.", 5) == 0) {
		obj = key[0] == 'p' ? &sum->peak : &sum->last;
		fields = recdb_sql_sample_fields;
		nf = recdb_sql_nsample_fields;
		key += 5;
	}
	for (size_t i = 0; i < nf; i++)
		if (strcmp(fields[i].name, key) == 0) {
			recdb_sql_col_field(s, 1, &fields[i], obj, base);
			return;
		}
}

/* The written summary, or, for a run that never wrote one, what the samples
 * tell: start, last sample and the highest PSS sample. The last sample is
 * written only at the end: before, it is the last of the samples. */
static int recdb_load_summary(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	struct store_summary sum;
	sqlite3_stmt *s;
	int rc, rows = 0, have_last = 0;

	memset(&sum, 0, sizeof(sum));
	rc = recdb_prep_run(db, "SELECT key, value FROM run_summary WHERE run_id = ?1", run_id, &s);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(s, 0);

		if (k) {
			recdb_sum_set(&sum, k, s, base);
			have_last |= strncmp(k, "last.", 5) == 0;
		}
		rows++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return recdb_sql_fail(db, rc, "reading the summary");
	if (!rows) {
		uint64_t cur = 0;
		struct sample smp;

		sum.start_ns = base;
		while (store_samples(st, &cur, &smp, 1, NULL) == 1) {
			if ((smp.valid & SAMPLE_PSS) && smp.pss_kib >= sum.peak.pss_kib)
				sum.peak = smp;
			sum.last = smp;
		}
	}
	if (!have_last) {
		struct bucket bk;
		uint64_t t0, t1;

		if (store_span(st, &t0, &t1) == 0 && store_query(st, t1, t1, &bk, 1) == 1)
			sum.last = bk.max;
	}
	store_summary_set(st, &sum);
	return 0;
}

/* Reads one process row (the column order of the SELECTs above). */
static void recdb_row_proc(sqlite3_stmt *s, uint64_t base, struct store *st, struct proc_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->id = (uint64_t)sqlite3_column_int64(s, 0);
	r->pid = (pid_t)sqlite3_column_int64(s, 1);
	r->ppid = (pid_t)sqlite3_column_int64(s, 2);
	r->start_ns = recdb_sql_col_time(s, 3, base);
	r->end_ns = recdb_sql_col_time(s, 4, base);
	recdb_sql_col_comm(s, 5, r->comm);
	r->argv_id = recdb_col_intern(st, s, 6);
	r->exit_status = sqlite3_column_int(s, 7);
	r->threads = (uint32_t)sqlite3_column_int64(s, 8);
	r->nexec = (uint32_t)sqlite3_column_int64(s, 9);
	r->pss_kib = (uint64_t)sqlite3_column_int64(s, 10);
	r->rss_kib = (uint64_t)sqlite3_column_int64(s, 11);
	r->peak_pss_kib = (uint64_t)sqlite3_column_int64(s, 12);
	r->peak_pss_t_ns = recdb_sql_col_time(s, 13, base);
	r->peak_rss_kib = (uint64_t)sqlite3_column_int64(s, 14);
	r->pss_age_ns = (uint64_t)sqlite3_column_int64(s, 15);
	r->utime_us = (uint64_t)sqlite3_column_int64(s, 16);
	r->stime_us = (uint64_t)sqlite3_column_int64(s, 17);
	r->minflt = (uint64_t)sqlite3_column_int64(s, 18);
	r->majflt = (uint64_t)sqlite3_column_int64(s, 19);
	r->valid = (uint32_t)sqlite3_column_int64(s, 20);
}

/* Runs a follow query bound to the run and one more value, calling row() on
 * each row. */
static int recdb_follow_q(struct recdb *db, int64_t run_id, const char *sql, int64_t v, int64_t v3,
			  int (*row)(sqlite3_stmt *, void *), void *ctx, const char *what)
{
	sqlite3_stmt *s;
	int rc = recdb_prep_run(db, sql, run_id, &s);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 2, v);
	if (sqlite3_bind_parameter_count(s) >= 3)
		sqlite3_bind_int64(s, 3, v3);
	int n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (row(s, ctx) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		n++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_NOMEM)
		return recdb_sql_say(db, -ENOMEM, "%s: out of memory", what);
	return rc == SQLITE_DONE ? n : recdb_sql_fail(db, rc, what);
}

/* A process row that ended this long before the newest sample read is not
 * read again (the recorder writes a change within about a second). */
#define RECDB_FOLLOW_SETTLE_NS 10000000000ll

struct recdb_follow_ctx {
	struct recdb_follow *f;
	struct store *st;
	uint64_t base;
};

static int recdb_follow_sample(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct sample smp;

	memset(&smp, 0, sizeof(smp));
	for (size_t i = 0; i < recdb_sql_nsample_fields; i++)
		recdb_sql_col_field(s, (int)i, &recdb_sql_sample_fields[i], &smp, c->base);
	store_push_sample(c->st, &smp);
	c->f->t_rel = (int64_t)(smp.t_ns - c->base);
	return 0;
}

static int recdb_follow_event(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct store_event e = {.t_ns = c->base + (uint64_t)sqlite3_column_int64(s, 0),
				.type = (uint32_t)sqlite3_column_int64(s, 1),
				.pid = (pid_t)sqlite3_column_int64(s, 2),
				.ppid = (pid_t)sqlite3_column_int64(s, 3),
				.arg = sqlite3_column_int64(s, 4)};

	store_push_event(c->st, &e);
	c->f->event_rowid = sqlite3_column_int64(s, 5);
	return 0;
}

static int recdb_follow_proc(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct proc_rec r;

	recdb_row_proc(s, c->base, c->st, &r);
	int64_t seq = sqlite3_column_int64(s, 21);
	if (seq > c->f->seq)
		c->f->seq = seq;
	return store_proc_update(c->st, &r);
}

static int recdb_follow_exec(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct store_exec x;

	memset(&x, 0, sizeof(x));
	x.t_ns = c->base + (uint64_t)sqlite3_column_int64(s, 0);
	x.pid = (pid_t)sqlite3_column_int64(s, 1);
	x.ppid = (pid_t)sqlite3_column_int64(s, 2);
	recdb_sql_col_comm(s, 3, x.comm);
	x.argv_id = recdb_col_intern(c->st, s, 4);
	store_push_exec(c->st, &x);
	c->f->exec_idx = sqlite3_column_int64(s, 5);
	return 0;
}

static int recdb_follow_read(struct recdb *db, int64_t run_id, struct store *st, struct recdb_follow *f,
			     struct recdb_follow_ctx *cp);

int recdb_follow(struct recdb *db, int64_t run_id, struct store *st, struct recdb_follow *f)
{
	struct recdb_follow_ctx c = {.f = f, .st = st};
	int rc;

	if (!f->started) {
		f->t_rel = -1;
		f->event_rowid = f->exec_idx = f->seq = -1;
		f->started = 1;
	}
	/* one snapshot of the file: the data and the end state agree */
	if ((rc = sqlite3_exec(db->db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK)
		return recdb_sql_fail(db, rc, "reading the recording");
	rc = recdb_follow_read(db, run_id, st, f, &c);
	(void)st;
	sqlite3_exec(db->db, rc < 0 ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	return rc;
}

/* recdb_follow's reads, inside its transaction. */
static int recdb_follow_read(struct recdb *db, int64_t run_id, struct store *st, struct recdb_follow *f,
			     struct recdb_follow_ctx *cp)
{
	struct recdb_follow_ctx c = *cp;
	sqlite3_stmt *s;
	int rc, n = 0, k;

	(void)st;
	if ((rc = recdb_sql_run_base(db, run_id, &c.base)) < 0)
		return rc;
	/* what is new since the last call; a process row is read again while
	 * it may have changed (alive, or ended lately: rows are written about a
	 * second after their change) */
	int64_t t_prev = f->t_rel;
	if ((k = recdb_follow_q(db, run_id,
				"SELECT t_ns, pss_kib, pss_anon_kib, pss_file_kib, pss_shmem_kib,"
				" pss_est_kib, pss_hi_kib, rss_kib, minflt, majflt, utime_us, stime_us,"
				" live_procs, live_threads, total_procs, total_threads, valid"
				" FROM samples WHERE run_id = ?1 AND t_ns > ?2 ORDER BY t_ns, rowid",
				f->t_rel, 0, recdb_follow_sample, &c, "reading samples")) < 0)
		return k;
	n += k;
	if ((k = recdb_follow_q(db, run_id,
				"SELECT t_ns, type, pid, ppid, arg, rowid FROM events WHERE run_id = ?1"
				" AND rowid > ?2 ORDER BY rowid", f->event_rowid, 0, recdb_follow_event, &c,
				"reading events")) < 0)
		return k;
	n += k;
	if ((k = recdb_follow_q(db, run_id,
				"SELECT id, pid, ppid, start_ns, end_ns, comm, argv, exit_status,"
				" threads, nexec, pss_kib, rss_kib, peak_pss_kib, peak_pss_t_ns,"
				" peak_rss_kib, pss_age_ns, utime_us, stime_us, minflt, majflt, valid, seq"
				" FROM processes WHERE run_id = ?1 AND (seq > ?2 OR end_ns IS NULL OR"
				" end_ns >= ?3) ORDER BY seq",
				f->seq, t_prev - RECDB_FOLLOW_SETTLE_NS, recdb_follow_proc, &c,
				"reading processes")) < 0)
		return k;
	n += k;
	if ((k = recdb_follow_q(db, run_id,
				"SELECT t_ns, pid, ppid, comm, argv, idx FROM execs WHERE run_id = ?1"
				" AND idx > ?2 ORDER BY idx", f->exec_idx, 0, recdb_follow_exec, &c,
				"reading execs")) < 0)
		return k;
	n += k;
	if ((rc = recdb_load_summary(db, run_id, c.base, st)) < 0)
		return rc;
	rc = recdb_prep_run(db, "SELECT end_state, updated_wall_ns FROM runs WHERE id = ?1", run_id, &s);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	const char *state = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	f->ended = !state || strcmp(state, recdb_end_name(RECDB_END_RUNNING)) != 0;
	f->updated_wall_ns = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(s, 1) : 0;
	sqlite3_finalize(s);
	return n > 0;
}

int recdb_load(struct recdb *db, int64_t run_id, struct store **out)
{
	struct store_config cfg;
	int64_t nsamples = 0, nevents = 0;
	struct store *st;
	uint64_t base;
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	rc = recdb_sql_run_base(db, run_id, &base);
	if (rc < 0)
		return rc;
	rc = recdb_prep_run(db, "SELECT (SELECT count(*) FROM samples WHERE run_id = ?1),"
			    " (SELECT count(*) FROM events WHERE run_id = ?1)", run_id, &s);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		nsamples = sqlite3_column_int64(s, 0);
		nevents = sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return recdb_sql_fail(db, rc, "reading the recording");
	memset(&cfg, 0, sizeof(cfg));
	/* every sample at full resolution; the store's defaults otherwise */
	cfg.tier0_len = nsamples > 4096 ? (uint32_t)(nsamples < UINT32_MAX ? nsamples : UINT32_MAX)
					: 4096;
	cfg.events_len = nevents > 65536 ? (uint32_t)(nevents < UINT32_MAX ? nevents : UINT32_MAX)
					 : 65536;
	st = store_new(&cfg);
	if (!st)
		return recdb_sql_say(db, -ENOMEM, "loading run %" PRId64 ": out of memory", run_id);
	rc = recdb_load_samples(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_events(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_procs(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_execs(db, run_id, base, st);
	if (rc == 0)
		rc = recdb_load_summary(db, run_id, base, st);
	if (rc < 0) {
		store_free(st);
		return rc;
	}
	*out = st;
	return 0;
}

ssize_t recdb_procs_at(struct recdb *db, int64_t run_id, uint64_t t_ns,
		       struct recdb_proc_at **out)
{
	struct recdb_proc_at *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	uint64_t base;
	int rc;

	*out = NULL;
	rc = recdb_sql_run_base(db, run_id, &base);
	if (rc < 0)
		return rc;
	rc = recdb_prep_run(db,
			    "SELECT p.id, p.pid, p.ppid, p.start_ns, p.comm, s.t_ns, s.pss_kib,"
			    " s.rss_kib, s.cpu_us, s.minflt, s.majflt FROM processes p"
			    " LEFT JOIN proc_samples s ON s.rowid = (SELECT rowid FROM proc_samples"
			    " WHERE run_id = p.run_id AND proc_id = p.id AND t_ns <= ?2"
			    " ORDER BY t_ns DESC, rowid DESC LIMIT 1)"
			    " WHERE p.run_id = ?1 AND p.start_ns <= ?2"
			    " AND (p.end_ns IS NULL OR p.end_ns > ?2) ORDER BY p.seq", run_id, &s);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 2, (int64_t)(t_ns - base));
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct recdb_proc_at *p;

		if (n == cap) {
			struct recdb_proc_at *g;

			cap = cap ? cap * 2 : 64;
			g = realloc(v, cap * sizeof(*v));
			if (!g) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = g;
		}
		p = &v[n++];
		memset(p, 0, sizeof(*p));
		p->id = p->s.id = (uint64_t)sqlite3_column_int64(s, 0);
		p->pid = (pid_t)sqlite3_column_int64(s, 1);
		p->ppid = (pid_t)sqlite3_column_int64(s, 2);
		p->start_ns = recdb_sql_col_time(s, 3, base);
		recdb_sql_col_comm(s, 4, p->comm);
		if (sqlite3_column_type(s, 5) == SQLITE_NULL)
			continue;
		p->s.t_ns = base + (uint64_t)sqlite3_column_int64(s, 5);
		if (sqlite3_column_type(s, 6) != SQLITE_NULL) {
			p->s.pss_kib = (uint64_t)sqlite3_column_int64(s, 6);
			p->s.valid |= PROC_V_PSS;
		}
		if (sqlite3_column_type(s, 7) != SQLITE_NULL) {
			p->s.rss_kib = (uint64_t)sqlite3_column_int64(s, 7);
			p->s.valid |= PROC_V_RSS;
		}
		if (sqlite3_column_type(s, 8) != SQLITE_NULL) {
			p->s.cpu_us = (uint64_t)sqlite3_column_int64(s, 8);
			p->s.valid |= PROC_V_CPU;
		}
		if (sqlite3_column_type(s, 9) != SQLITE_NULL) {
			p->s.minflt = (uint64_t)sqlite3_column_int64(s, 9);
			p->s.majflt = (uint64_t)sqlite3_column_int64(s, 10);
			p->s.valid |= PROC_V_FAULTS;
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(v);
		return rc == SQLITE_NOMEM ? recdb_sql_say(db, -ENOMEM, "processes: out of memory")
					  : recdb_sql_fail(db, rc, "reading per-process samples");
	}
	*out = v;
	return (ssize_t)n;
}

void recdb_lines_free(struct recdb_line *lines, size_t n)
{
	for (size_t i = 0; lines && i < n; i++)
		free((void *)lines[i].bytes);
	free(lines);
}

ssize_t recdb_output_at(struct recdb *db, int64_t run_id, uint64_t t_ns, size_t max,
			struct recdb_line **out)
{
	struct recdb_line *v;
	size_t n = 0;
	sqlite3_stmt *s;
	uint64_t base;
	int rc;

	*out = NULL;
	rc = recdb_sql_run_base(db, run_id, &base);
	if (rc < 0 || max == 0)
		return rc;
	v = calloc(max, sizeof(*v));
	if (!v)
		return recdb_sql_say(db, -ENOMEM, "output: out of memory");
	rc = recdb_prep_run(db,
			    "SELECT t_ns, line FROM output WHERE run_id = ?1 AND t_ns <= ?2"
			    " ORDER BY t_ns DESC, rowid DESC LIMIT ?3", run_id, &s);
	if (rc < 0) {
		free(v);
		return rc;
	}
	sqlite3_bind_int64(s, 2, (int64_t)(t_ns - base));
	sqlite3_bind_int64(s, 3, max > INT64_MAX ? INT64_MAX : (int64_t)max);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct recdb_line *l = &v[max - 1 - n];

		l->t_ns = base + (uint64_t)sqlite3_column_int64(s, 0);
		l->bytes = recdb_sql_col_dup(s, 1, &l->len);
		if (!l->bytes) {
			rc = SQLITE_NOMEM;
			break;
		}
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		recdb_lines_free(v, max);
		return rc == SQLITE_NOMEM ? recdb_sql_say(db, -ENOMEM, "output: out of memory")
					  : recdb_sql_fail(db, rc, "reading output");
	}
	/* filled from the end: move the newest-last block to the front */
	memmove(v, v + (max - n), n * sizeof(*v));
	*out = v;
	return (ssize_t)n;
}
