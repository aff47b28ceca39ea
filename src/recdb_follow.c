/* recdb_follow: reading a run another spacetime is still recording, as it
 * grows (recdb.h, recdb_follow()): what is new since the last call, in one
 * snapshot of the file, each row through the reader's checked reads. */
#include "recdb.h"

#include <errno.h>
#include <string.h>

#include "recdb_sql.h"

/* Runs a follow query bound to the run and one more value, calling row() on
 * each row. */
static int recdb_follow_q(struct recdb *db, int64_t run_id, const char *sql, int64_t v, int64_t v3,
			  int (*row)(sqlite3_stmt *, void *), void *ctx, const char *what)
{
	sqlite3_stmt *s;
	int rc = recdb_read_prep(db, sql, run_id, &s);

	if (rc < 0)
		return rc;
	sqlite3_bind_int64(s, 2, v);
	if (sqlite3_bind_parameter_count(s) >= 3)
		sqlite3_bind_int64(s, 3, v3);
	int n = 0, e = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((e = row(s, ctx)) < 0)
			break;
		n++;
	}
	sqlite3_finalize(s);
	if (e == -EBADMSG)
		return e; /* the row's reader said which value */
	if (e < 0)
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
	struct recdb_rd rd;
};

static int recdb_follow_sample(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct sample smp;

	recdb_read_sample(&c->rd, s, c->base, &smp);
	if (c->rd.bad)
		return -EBADMSG;
	store_push_sample(c->st, &smp);
	c->f->t_rel = (int64_t)(smp.t_ns - c->base);
	return 0;
}

static int recdb_follow_event(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct store_event e;

	recdb_read_event(&c->rd, s, c->base, &e);
	if (c->rd.bad)
		return -EBADMSG;
	store_push_event(c->st, &e);
	c->f->event_rowid = sqlite3_column_int64(s, 5);
	return 0;
}

static int recdb_follow_proc(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct proc_rec r;

	recdb_read_proc(&c->rd, s, c->base, c->st, &r);
	int64_t seq = recdb_rd_int(&c->rd, s, 23, 0, INT64_MAX, 0, NULL);
	if (c->rd.bad)
		return -EBADMSG;
	if (seq > c->f->seq)
		c->f->seq = seq;
	return store_proc_update(c->st, &r);
}

static int recdb_follow_exec(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct store_exec x;

	recdb_read_exec(&c->rd, s, c->base, c->st, &x);
	int64_t idx = recdb_rd_int(&c->rd, s, 5, 0, INT64_MAX, 0, NULL);
	if (c->rd.bad)
		return -EBADMSG;
	store_push_exec(c->st, &x);
	c->f->exec_idx = idx;
	return 0;
}

static int recdb_follow_psample(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	struct store_proc_sample ps;

	recdb_read_psample(&c->rd, s, c->base, &ps);
	int64_t rowid = recdb_rd_int(&c->rd, s, 7, 0, INT64_MAX, 0, NULL);
	if (c->rd.bad)
		return -EBADMSG;
	store_push_proc_samples(c->st, &ps, 1);
	c->f->psample_rowid = rowid;
	return 0;
}

static int recdb_follow_line(sqlite3_stmt *s, void *arg)
{
	struct recdb_follow_ctx *c = arg;
	int64_t rowid = recdb_rd_int(&c->rd, s, 2, 0, INT64_MAX, 0, NULL);
	int e = c->rd.bad ? -EBADMSG : recdb_read_line(&c->rd, s, c->base, c->st);

	if (e == 0)
		c->f->line_rowid = rowid;
	return e;
}

static int recdb_follow_read(struct recdb *db, int64_t run_id, struct store *st, struct recdb_follow *f,
			     struct recdb_follow_ctx *cp);

int recdb_follow(struct recdb *db, int64_t run_id, struct store *st, struct recdb_follow *f)
{
	struct recdb_follow_ctx c = {.f = f, .st = st};
	int rc;

	if (!f->started) {
		f->t_rel = -1;
		f->event_rowid = f->exec_idx = f->seq = f->psample_rowid = f->line_rowid = -1;
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
	recdb_rd_init(&c.rd, db, run_id);
	/* what is new since the last call; a process row is read again while
	 * it may have changed (alive, or ended lately: rows are written about a
	 * second after their change) */
	int64_t t_prev = f->t_rel;
	if ((k = recdb_follow_q(db, run_id,
				"SELECT " RECDB_SQL_SAMPLE_COLS
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
				" peak_rss_kib, pss_age_ns, utime_us, stime_us, minflt, majflt, valid,"
				" wait_cpu_us, wait_io_us, seq"
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
	if ((k = recdb_follow_q(db, run_id,
				"SELECT proc_id, t_ns, pss_kib, rss_kib, cpu_us, minflt, majflt, rowid FROM proc_samples"
				" WHERE run_id = ?1 AND rowid > ?2 ORDER BY rowid", f->psample_rowid, 0,
				recdb_follow_psample, &c, "reading per-process samples")) < 0)
		return k;
	n += k;
	if ((k = recdb_follow_q(db, run_id,
				"SELECT t_ns, line, rowid FROM output WHERE run_id = ?1 AND rowid > ?2 ORDER BY rowid",
				f->line_rowid, 0, recdb_follow_line, &c, "reading output")) < 0)
		return k;
	n += k;
	if ((rc = recdb_read_summary(db, run_id, c.base, st)) < 0)
		return rc;
	rc = recdb_read_prep(db, "SELECT end_state, updated_wall_ns FROM runs WHERE id = ?1", run_id, &s);
	if (rc < 0)
		return rc;
	rc = sqlite3_step(s);
	const char *state = rc == SQLITE_ROW ? recdb_rd_blob(&c.rd, s, 0, 64, NULL) : NULL;
	f->ended = !state || strcmp(state, recdb_end_name(RECDB_END_RUNNING)) != 0;
	f->updated_wall_ns =
		rc == SQLITE_ROW ? (uint64_t)recdb_rd_int(&c.rd, s, 1, 0, INT64_MAX, 1, NULL) : 0;
	sqlite3_finalize(s);
	if (c.rd.bad)
		return recdb_rd_status(&c.rd);
	return n > 0;
}

