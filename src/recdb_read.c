/* recdb_read: the recording database's reader side (see recdb.h): the list
 * of runs, run ids, a run loaded into a store, and the process list and
 * output as of an instant. */
#include "recdb.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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
		free(rows[i].damage);
		free(rows[i].labels);
	}
	free(rows);
}

/* Row r made a damaged row: its id and why (the db's last message) only.
 * Returns 0, or -ENOMEM. */
static int row_damaged(struct recdb *db, struct recdb_run_row *r)
{
	int64_t id = r->id;
	char *why = strdup(recdb_errmsg(db));

	free(r->argv);
	free(r->cwd);
	free(r->host);
	free(r->note);
	free(r->labels);
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->damage = why;
	return why ? 0 : -ENOMEM;
}

/* Fills a run row from the listing's columns, each within its bound; a row
 * that breaks one keeps its id and the line that says which. */
static int recdb_row_run(struct recdb *db, sqlite3_stmt *s, struct recdb_run_row *r)
{
	struct recdb_rd rd;
	const char *src, *end;

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	recdb_rd_init(&rd, db, r->id);
	recdb_rd_int(&rd, s, 0, 1, INT64_MAX, 0, NULL);
	r->start_wall_ns = (uint64_t)recdb_rd_int(&rd, s, 1, 0, INT64_MAX, 0, NULL);
	r->base_ns = (uint64_t)recdb_rd_int(&rd, s, 2, 0, RECDB_SQL_BASE_MAX, 0, NULL);
	r->argv = recdb_rd_dup(&rd, s, 3, RECDB_SQL_MAXLEN, &r->argv_len);
	r->cwd = recdb_rd_dup(&rd, s, 4, 65536, NULL);
	r->host = recdb_rd_dup(&rd, s, 5, 1024, NULL);
	src = recdb_rd_blob(&rd, s, 6, 64, NULL);
	r->attached = src && strcmp(src, "attached") == 0;
	end = recdb_rd_blob(&rd, s, 7, 64, NULL);
	r->end = recdb_sql_end_parse(end);
	r->incomplete = (int)recdb_rd_int(&rd, s, 8, 0, 1, 0, NULL);
	r->note = recdb_rd_dup(&rd, s, 9, 65536, NULL);
	r->wall_ns = (uint64_t)recdb_rd_int(&rd, s, 10, 0, RECDB_SQL_T_MAX, 1, NULL);
	r->peak_pss_kib = (uint64_t)recdb_rd_int(&rd, s, 11, 0, RECDB_SQL_KIB_MAX, 1, NULL);
	r->exit_known = sqlite3_column_type(s, 12) != SQLITE_NULL;
	r->exit_status = (int)recdb_rd_int(&rd, s, 12, 0, RECDB_SQL_STATUS_MAX, 1, NULL);
	r->updated_wall_ns = (uint64_t)recdb_rd_int(&rd, s, 13, 0, INT64_MAX, 1, NULL);
	if (rd.nomem)
		return -ENOMEM;
	if (rd.bad)
		return row_damaged(db, r);
	return 0;
}

/* The row of run id among the n sorted by id, or NULL. */
static struct recdb_run_row *row_of_id(struct recdb_run_row *rows, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid].id < id)
			lo = mid + 1;
		else if (rows[mid].id > id)
			hi = mid;
		else
			return &rows[mid];
	}
	return NULL;
}

/* Adds "KEY=VALUE" to row r's labels; one that breaks a bound damages the
 * row (said in one line). Returns 0 or -ENOMEM. */
static int row_label(struct recdb *db, struct recdb_run_row *r, const char *key, const char *value)
{
	char label[RECDB_LABEL_KEY_MAX + RECDB_LABEL_VALUE_MAX + 4], plain[72];

	if (r->damage)
		return 0;
	snprintf(label, sizeof(label), "%.*s=%.*s", RECDB_LABEL_KEY_MAX + 1, key, RECDB_LABEL_VALUE_MAX + 1, value);
	size_t n = 0;
	for (size_t i = 0; i < r->labels_len; i++)
		n += !r->labels[i];
	if (n >= RECDB_LABELS_MAX || !recdb_label_ok(label) || strchr(key, '=') || strlen(key) > RECDB_LABEL_KEY_MAX ||
	    strlen(value) > RECDB_LABEL_VALUE_MAX) {
		recdb_sql_say(db, -EBADMSG, "run %" PRId64 ": run_summary.label.%s is not a label (at most 16, a key of"
			      " letters, digits, _ . - up to 32, a value of up to 200 bytes)", r->id,
			      recdb_sql_plain(key, plain, sizeof(plain)));
		return row_damaged(db, r);
	}
	size_t len = strlen(label) + 1;
	char *g = realloc(r->labels, r->labels_len + len);
	if (!g)
		return -ENOMEM;
	memcpy(g + r->labels_len, label, len);
	r->labels = g;
	r->labels_len += len;
	return 0;
}

/* The runs' labels (run_summary rows keyed label.KEY) into their rows. */
static int runs_labels(struct recdb *db, struct recdb_run_row *rows, size_t n)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db->db,
				    "SELECT run_id, key, value FROM run_summary WHERE key >= 'label.' AND key < 'label/'"
				    " ORDER BY run_id, key", -1, &s, NULL);
	int e = 0, step = SQLITE_DONE;

	while (rc == SQLITE_OK && e == 0 && (step = sqlite3_step(s)) == SQLITE_ROW) {
		struct recdb_run_row *r = row_of_id(rows, n, sqlite3_column_int64(s, 0));
		int text = sqlite3_column_type(s, 2) == SQLITE_TEXT; /* before the conversion below */
		const unsigned char *k = sqlite3_column_text(s, 1), *v = sqlite3_column_text(s, 2);
		if (r && k && v && text)
			e = row_label(db, r, (const char *)k + 6, (const char *)v);
		else if (r && !r->damage)
			e = row_label(db, r, k ? (const char *)k + 6 : "?", "\x01"); /* not text: not a label */
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_OK)
		return recdb_sql_fail(db, rc, "listing the runs' labels");
	if (e == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
		return recdb_sql_fail(db, step, "listing the runs' labels");
	return e;
}

ssize_t recdb_runs(struct recdb *db, struct recdb_run_row **out)
{
	struct recdb_run_row *rows = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s = NULL;
	int rc;

	*out = NULL;
	rc = sqlite3_prepare_v2(db->db,
				"SELECT id, start_wall_ns, base_ns, argv, cwd, host, source, end_state,"
				" incomplete, note, wall_ns, peak_pss_kib, exit_status, updated_wall_ns"
				" FROM runs"
				" ORDER BY id", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = SQLITE_ROW;
	while (rc == SQLITE_ROW && (rc = sqlite3_step(s)) == SQLITE_ROW) {
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
		if (recdb_row_run(db, s, &rows[n++]) < 0)
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		recdb_runs_free(rows, n);
		return rc == SQLITE_NOMEM ? recdb_sql_say(db, -ENOMEM, "listing runs: out of memory")
					  : recdb_sql_fail(db, rc, "listing runs");
	}
	if ((rc = runs_labels(db, rows, n)) < 0) {
		recdb_runs_free(rows, n);
		return rc == -ENOMEM ? recdb_sql_say(db, -ENOMEM, "listing runs: out of memory") : rc;
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
int recdb_read_prep(struct recdb *db, const char *sql, int64_t run_id, sqlite3_stmt **s)
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
static uint32_t recdb_col_intern(struct recdb_rd *rd, struct store *st, sqlite3_stmt *s, int col)
{
	size_t n = 0;
	const void *p = recdb_rd_blob(rd, s, col, RECDB_SQL_MAXLEN, &n);

	return p ? store_str_intern(st, p, n) : 0;
}

/* A sample row (RECDB_SQL_SAMPLE_COLS). */
void recdb_read_sample(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct sample *smp)
{
	memset(smp, 0, sizeof(*smp));
	for (size_t f = 0; f < recdb_sql_nsample_fields; f++)
		recdb_rd_field(rd, s, (int)f, &recdb_sql_sample_fields[f], smp, base, NULL);
}

/* An event (t_ns, type, pid, ppid, arg). */
void recdb_read_event(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store_event *e)
{
	memset(e, 0, sizeof(*e));
	e->t_ns = recdb_rd_time(rd, s, 0, base, NULL);
	e->type = (uint32_t)recdb_rd_int(rd, s, 1, STORE_EV_FORK, STORE_EV_RESCAN, 0, NULL);
	e->pid = (pid_t)recdb_rd_int(rd, s, 2, 0, RECDB_SQL_PID_MAX, 1, NULL);
	e->ppid = (pid_t)recdb_rd_int(rd, s, 3, 0, RECDB_SQL_PID_MAX, 1, NULL);
	e->arg = recdb_rd_int(rd, s, 4, -RECDB_SQL_COUNT_MAX, RECDB_SQL_COUNT_MAX, 1, NULL);
}

/* An exec (t_ns, pid, ppid, comm, argv). */
void recdb_read_exec(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store *st,
			   struct store_exec *x)
{
	memset(x, 0, sizeof(*x));
	x->t_ns = recdb_rd_time(rd, s, 0, base, NULL);
	x->pid = (pid_t)recdb_rd_int(rd, s, 1, 0, RECDB_SQL_PID_MAX, 1, NULL);
	x->ppid = (pid_t)recdb_rd_int(rd, s, 2, 0, RECDB_SQL_PID_MAX, 1, NULL);
	recdb_rd_comm(rd, s, 3, x->comm);
	if (!rd->bad)
		x->argv_id = recdb_col_intern(rd, st, s, 4);
}

static int recdb_load_samples(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	struct recdb_rd rd;
	int rc = recdb_read_prep(db,
				"SELECT " RECDB_SQL_SAMPLE_COLS
				" FROM samples WHERE run_id = ?1 ORDER BY t_ns, rowid", run_id, &s);

	if (rc < 0)
		return rc;
	recdb_rd_init(&rd, db, run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct sample smp;

		recdb_read_sample(&rd, s, base, &smp);
		if (rd.bad)
			break;
		store_push_sample(st, &smp);
	}
	sqlite3_finalize(s);
	if (rd.bad)
		return recdb_rd_status(&rd);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading samples");
}

static int recdb_load_events(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_read_prep(db,
				"SELECT t_ns, type, pid, ppid, arg FROM events WHERE run_id = ?1"
				" ORDER BY t_ns, rowid", run_id, &s);

	if (rc < 0)
		return rc;
	struct recdb_rd rd;

	recdb_rd_init(&rd, db, run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_event e;

		recdb_read_event(&rd, s, base, &e);
		if (rd.bad)
			break;
		store_push_event(st, &e);
	}
	sqlite3_finalize(s);
	if (rd.bad)
		return recdb_rd_status(&rd);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading events");
}

void recdb_read_proc(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store *st,
			   struct proc_rec *r);

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
	int rc = recdb_read_prep(db,
				"SELECT id, pid, ppid, start_ns, end_ns, comm, argv, exit_status,"
				" threads, nexec, pss_kib, rss_kib, peak_pss_kib, peak_pss_t_ns,"
				" peak_rss_kib, pss_age_ns, utime_us, stime_us, minflt, majflt, valid,"
				" wait_cpu_us, wait_io_us FROM processes WHERE run_id = ?1 ORDER BY seq",
				run_id, &s);

	if (rc < 0)
		return rc;
	struct recdb_rd rd;

	recdb_rd_init(&rd, db, run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct proc_rec r;

		recdb_read_proc(&rd, s, base, st, &r);
		if (rd.bad)
			break;
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
	if (rd.bad)
		return recdb_rd_status(&rd);
	if (rc == SQLITE_NOMEM)
		return recdb_sql_say(db, -ENOMEM, "loading processes: out of memory");
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading processes");
}

static int recdb_load_execs(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	sqlite3_stmt *s;
	int rc = recdb_read_prep(db,
				"SELECT t_ns, pid, ppid, comm, argv FROM execs WHERE run_id = ?1"
				" ORDER BY idx", run_id, &s);

	if (rc < 0)
		return rc;
	struct recdb_rd rd;

	recdb_rd_init(&rd, db, run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_exec x;

		recdb_read_exec(&rd, s, base, st, &x);
		if (rd.bad)
			break;
		store_push_exec(st, &x);
	}
	sqlite3_finalize(s);
	if (rd.bad)
		return recdb_rd_status(&rd);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading execs");
}

/* Sets the field named key of the summary from column 1 of s, within its
 * bound; a key spacetime does not write (a newer one's) is left alone. */
static void recdb_sum_set(struct recdb_rd *rd, struct store_summary *sum, const char *key,
			  sqlite3_stmt *s, uint64_t base)
{
	const struct recdb_sql_field *fields = recdb_sql_sum_fields;
	size_t nf = recdb_sql_nsum_fields;
	char name[96];
	void *obj = sum;

	char plain[72];
	snprintf(name, sizeof(name), "run_summary.%s", recdb_sql_plain(key, plain, sizeof(plain)));
	if (strncmp(key, "attach_pid.", 11) == 0) {
		const char *d = key + 11;
		unsigned i = 0;

		/* attach_pid.0 .. attach_pid.63, in decimal without leading zeros */
		if (!*d || (d[0] == '0' && d[1]) || strspn(d, "0123456789") != strlen(d) || strlen(d) > 2)
			return;
		i = (unsigned)atoi(d);
		if (i < STORE_ATTACH_MAX)
			sum->attach_pid[i] = (pid_t)recdb_rd_int(rd, s, 1, 0, RECDB_SQL_PID_MAX, 0, name);
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
			recdb_rd_field(rd, s, 1, &fields[i], obj, base, name);
			return;
		}
}

/* The written summary, or, for a run that never wrote one, what the samples
 * tell: start, last sample and the highest PSS sample. The last sample is
 * written only at the end: before, it is the last of the samples. */
int recdb_read_summary(struct recdb *db, int64_t run_id, uint64_t base, struct store *st)
{
	struct store_summary sum;
	sqlite3_stmt *s;
	int rc, rows = 0, have_last = 0;

	struct recdb_rd rd;

	memset(&sum, 0, sizeof(sum));
	rc = recdb_read_prep(db, "SELECT key, value FROM run_summary WHERE run_id = ?1", run_id, &s);
	if (rc < 0)
		return rc;
	recdb_rd_init(&rd, db, run_id);
	while (!rd.bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *k = recdb_rd_blob(&rd, s, 0, 64, NULL);

		if (k) {
			recdb_sum_set(&rd, &sum, k, s, base);
			have_last |= strncmp(k, "last.", 5) == 0;
		}
		/* labels are written with the run's row: not a summary */
		rows += !k || strncmp(k, "label.", 6) != 0;
	}
	sqlite3_finalize(s);
	if (rd.bad)
		return recdb_rd_status(&rd);
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
void recdb_read_proc(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store *st,
			   struct proc_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->id = (uint64_t)recdb_rd_int(rd, s, 0, 0, INT64_MAX, 0, NULL);
	r->pid = (pid_t)recdb_rd_int(rd, s, 1, 0, RECDB_SQL_PID_MAX, 1, NULL);
	r->ppid = (pid_t)recdb_rd_int(rd, s, 2, 0, RECDB_SQL_PID_MAX, 1, NULL);
	r->start_ns = recdb_rd_time(rd, s, 3, base, NULL);
	r->end_ns = recdb_rd_time(rd, s, 4, base, NULL);
	recdb_rd_comm(rd, s, 5, r->comm);
	r->exit_status = (int)recdb_rd_int(rd, s, 7, 0, RECDB_SQL_STATUS_MAX, 1, NULL);
	r->threads = (uint32_t)recdb_rd_int(rd, s, 8, 0, UINT32_MAX, 1, NULL);
	r->nexec = (uint32_t)recdb_rd_int(rd, s, 9, 0, UINT32_MAX, 1, NULL);
	r->pss_kib = (uint64_t)recdb_rd_int(rd, s, 10, 0, RECDB_SQL_KIB_MAX, 1, NULL);
	r->rss_kib = (uint64_t)recdb_rd_int(rd, s, 11, 0, RECDB_SQL_KIB_MAX, 1, NULL);
	r->peak_pss_kib = (uint64_t)recdb_rd_int(rd, s, 12, 0, RECDB_SQL_KIB_MAX, 1, NULL);
	r->peak_pss_t_ns = recdb_rd_time(rd, s, 13, base, NULL);
	r->peak_rss_kib = (uint64_t)recdb_rd_int(rd, s, 14, 0, RECDB_SQL_KIB_MAX, 1, NULL);
	r->pss_age_ns = (uint64_t)recdb_rd_int(rd, s, 15, 0, RECDB_SQL_T_MAX, 1, NULL);
	r->utime_us = (uint64_t)recdb_rd_int(rd, s, 16, 0, RECDB_SQL_COUNT_MAX, 1, NULL);
	r->stime_us = (uint64_t)recdb_rd_int(rd, s, 17, 0, RECDB_SQL_COUNT_MAX, 1, NULL);
	r->minflt = (uint64_t)recdb_rd_int(rd, s, 18, 0, RECDB_SQL_COUNT_MAX, 1, NULL);
	r->majflt = (uint64_t)recdb_rd_int(rd, s, 19, 0, RECDB_SQL_COUNT_MAX, 1, NULL);
	r->valid = (uint32_t)recdb_rd_int(rd, s, 20, 0, 0x1ff, 0, NULL);
	r->wait_cpu_us = (uint64_t)recdb_rd_int(rd, s, 21, 0, RECDB_SQL_COUNT_MAX, 1, NULL);
	r->wait_io_us = (uint64_t)recdb_rd_int(rd, s, 22, 0, RECDB_SQL_COUNT_MAX, 1, NULL);
	if (r->end_ns && r->end_ns < r->start_ns)
		r->end_ns = r->start_ns; /* an exit before the start: at the start */
	if (!rd->bad)
		r->argv_id = recdb_col_intern(rd, st, s, 6);
}

void recdb_read_psample(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store_proc_sample *ps)
{
	static const uint32_t bit[] = {PROC_V_PSS, PROC_V_RSS, PROC_V_CPU, PROC_V_FAULTS};
	uint64_t *fig[] = {&ps->pss_kib, &ps->rss_kib, &ps->cpu_us, &ps->minflt};
	const int64_t max[] = {RECDB_SQL_KIB_MAX, RECDB_SQL_KIB_MAX, RECDB_SQL_COUNT_MAX, RECDB_SQL_COUNT_MAX};

	memset(ps, 0, sizeof(*ps));
	ps->id = (uint64_t)recdb_rd_int(rd, s, 0, 0, INT64_MAX, 0, NULL);
	ps->t_ns = recdb_rd_time(rd, s, 1, base, NULL);
	for (int i = 0; i < 4; i++) {
		if (sqlite3_column_type(s, 2 + i) == SQLITE_NULL)
			continue;
		*fig[i] = (uint64_t)recdb_rd_int(rd, s, 2 + i, 0, max[i], 0, NULL);
		ps->valid |= bit[i];
	}
	if (ps->valid & PROC_V_FAULTS)
		ps->majflt = (uint64_t)recdb_rd_int(rd, s, 6, 0, RECDB_SQL_COUNT_MAX, 1, NULL);
}

/* The run's per-process samples into the store (its ring holds them all),
 * in time order. */
static int recdb_load_psamples(struct recdb *db, int64_t run_id, uint64_t base, struct store *st,
			       uint64_t *skipped, char *first, size_t cap)
{
	sqlite3_stmt *s;
	int rc = recdb_read_prep(db,
				"SELECT proc_id, t_ns, pss_kib, rss_kib, cpu_us, minflt, majflt FROM proc_samples"
				" WHERE run_id = ?1 ORDER BY t_ns, rowid", run_id, &s);

	if (rc < 0)
		return rc;
	struct recdb_rd rd;
	recdb_rd_init(&rd, db, run_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_proc_sample ps;
		recdb_read_psample(&rd, s, base, &ps);
		if (rd.bad) { /* left out, said once */
			if (!(*skipped)++)
				snprintf(first, cap, "%s", db->msg);
			rd.bad = 0;
			continue;
		}
		store_push_proc_samples(st, &ps, 1);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading per-process samples");
}

int recdb_read_line(struct recdb_rd *rd, sqlite3_stmt *s, uint64_t base, struct store *st)
{
	uint64_t t = recdb_rd_time(rd, s, 0, base, NULL);
	size_t len = 0;
	char *b = recdb_rd_dup(rd, s, 1, RECDB_SQL_LINE_MAX, &len);

	if (!b && !rd->bad && !rd->nomem)
		recdb_rd_int(rd, s, 1, 0, 0, 0, NULL); /* NULL: says so, as a bad value */
	if (!b || rd->bad) {
		free(b);
		return rd->bad ? -EBADMSG : -ENOMEM;
	}
	int r = store_push_line(st, t, b, len);
	free(b);
	return r;
}

/* The run's output into the store (the last of it, when more than the store
 * keeps). */
static int recdb_load_lines(struct recdb *db, int64_t run_id, uint64_t base, struct store *st, uint64_t *skipped,
			    char *first, size_t cap)
{
	sqlite3_stmt *s;
	int rc = recdb_read_prep(db, "SELECT t_ns, line FROM output WHERE run_id = ?1 ORDER BY t_ns, rowid",
				run_id, &s);

	if (rc < 0)
		return rc;
	struct recdb_rd rd;
	recdb_rd_init(&rd, db, run_id);
	int e = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		e = recdb_read_line(&rd, s, base, st);
		if (e == -EBADMSG) { /* left out, said once */
			if (!(*skipped)++)
				snprintf(first, cap, "%s", db->msg);
			rd.bad = 0;
			e = 0;
			continue;
		}
		if (e < 0)
			break;
	}
	sqlite3_finalize(s);
	if (e < 0)
		return recdb_sql_say(db, -ENOMEM, "output: out of memory");
	return rc == SQLITE_DONE ? 0 : recdb_sql_fail(db, rc, "reading output");
}

int recdb_load(struct recdb *db, int64_t run_id, struct store **out)
{
	struct store_config cfg;
	int64_t nsamples = 0, nevents = 0, npsamples = 0;
	struct store *st;
	uint64_t base;
	sqlite3_stmt *s;
	int rc;

	*out = NULL;
	db->warn[0] = 0;
	rc = recdb_sql_run_base(db, run_id, &base);
	if (rc < 0)
		return rc;
	rc = recdb_read_prep(db, "SELECT (SELECT count(*) FROM samples WHERE run_id = ?1),"
			    " (SELECT count(*) FROM events WHERE run_id = ?1),"
			    " (SELECT count(*) FROM proc_samples WHERE run_id = ?1)", run_id, &s);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		nsamples = sqlite3_column_int64(s, 0);
		nevents = sqlite3_column_int64(s, 1);
		npsamples = sqlite3_column_int64(s, 2);
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
	/* every per-process sample, for the processes at any instant */
	cfg.proc_samples_len = npsamples > 1 ? (uint32_t)(npsamples < RECDB_LOAD_PSAMPLES ? npsamples : RECDB_LOAD_PSAMPLES)
					     : 1;
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
	uint64_t bad_ps = 0, bad_lines = 0;
	char first_ps[256] = "", first_line[256] = "";
	if (rc == 0)
		rc = recdb_load_psamples(db, run_id, base, st, &bad_ps, first_ps, sizeof(first_ps));
	if (rc == 0)
		rc = recdb_load_lines(db, run_id, base, st, &bad_lines, first_line, sizeof(first_line));
	if (rc == 0)
		rc = recdb_read_summary(db, run_id, base, st);
	if (rc < 0) {
		store_free(st);
		return rc;
	}
	if (bad_ps || bad_lines)
		snprintf(db->warn, sizeof(db->warn), "%llu per-process sample%s and %llu output line%s left out: %.200s",
			 (unsigned long long)bad_ps, bad_ps == 1 ? "" : "s", (unsigned long long)bad_lines,
			 bad_lines == 1 ? "" : "s", bad_ps ? first_ps : first_line);
	*out = st;
	return 0;
}

