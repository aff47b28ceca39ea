#!/usr/bin/env bash
# mkseeds-recdb.sh: makes tests/fuzz/seeds/recdb/, the seeds of the recdb
# fuzz target: a recording written by the real writer (mkseeds_recdb, three
# runs: exited, attached and detached, still running), and variants of it
# made by the sqlite3 CLI, each one a thing a reader must survive. Every
# seed is a plain database image: 512-byte pages and no WAL (journal_mode
# DELETE), so it is small and a read-only open needs no -wal or -shm file.
# The output is committed; run it again (make fuzz-seeds) when the schema
# or the writer changes.
#
# Usage: mkseeds-recdb.sh MKSEEDS_RECDB [OUTDIR]
#   MKSEEDS_RECDB is the built tests/fuzz/mkseeds_recdb.c; OUTDIR defaults
#   to tests/fuzz/seeds/recdb.

set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 MKSEEDS_RECDB [OUTDIR]" >&2; exit 2; }
gen=$1
out=${2:-tests/fuzz/seeds/recdb}
command -v sqlite3 >/dev/null || {
	echo "spacetime: mkseeds-recdb.sh needs the sqlite3 command (Debian package sqlite3); run 'make deps'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gen" "$tmp/base.db"
# the writer stamps each write with the wall clock: fixed here, so the seeds
# come out the same each time
sqlite3 "$tmp/base.db" "UPDATE runs SET updated_wall_ns = start_wall_ns + 1000000000;"

# variant NAME SQL: the base with SQL applied, as a seed image.
variant() {
	local f=$tmp/$1.db
	cp "$tmp/base.db" "$f"
	sqlite3 "$f" "$2"
	sqlite3 "$f" "PRAGMA journal_mode = DELETE; PRAGMA page_size = 512; VACUUM;" >/dev/null
	[ "$(sqlite3 "$f" 'PRAGMA quick_check')" = ok ] || { echo "spacetime: seed $1 is not a sound database" >&2; exit 1; }
	cp "$f" "$tmp/out/$1"
}
mkdir -p "$tmp/out"

variant three_runs ""

# the known crash: 'attach_n' past STORE_ATTACH_MAX (64) makes the text
# report and the JSON summary read past attach_pid[64]
variant attach_n_huge "UPDATE run_summary SET value = 100000000 WHERE run_id = 2 AND key = 'attach_n';"

# times before the run's origin, and an origin before the epoch
variant times_negative "
UPDATE runs SET base_ns = -1 WHERE id = 1;
UPDATE runs SET wall_ns = -5, peak_t_ns = -1 WHERE id = 2;
UPDATE samples SET t_ns = -t_ns WHERE run_id = 1;
UPDATE processes SET start_ns = -5, end_ns = -9223372036854775808 WHERE run_id = 1 AND id = 65537;
UPDATE processes SET peak_pss_t_ns = -1 WHERE run_id = 2;
UPDATE proc_samples SET t_ns = -t_ns;
UPDATE events SET t_ns = -1 WHERE run_id = 2;
UPDATE execs SET t_ns = -9223372036854775808 WHERE run_id = 1;
UPDATE output SET t_ns = -t_ns WHERE run_id = 1;
UPDATE run_summary SET value = -1 WHERE run_id = 1 AND key IN ('start_ns', 'end_ns', 'root_end_ns', 'peak.t_ns', 'last.t_ns');
UPDATE run_summary SET value = -9223372036854775808 WHERE run_id = 2 AND key LIKE '%_ns';"

# times and counts at the top of the range (overflow when added or scaled)
variant times_huge "
UPDATE runs SET base_ns = 9223372036854775807, start_wall_ns = 9223372036854775807 WHERE id = 1;
UPDATE runs SET wall_ns = 9223372036854775807, peak_pss_kib = 9223372036854775807 WHERE id = 2;
UPDATE samples SET t_ns = 9223372036854775807 - rowid, pss_kib = 9223372036854775807, minflt = -1, utime_us = 9223372036854775807 WHERE run_id = 2;
UPDATE samples SET live_procs = 4294967295, total_procs = 9223372036854775807 WHERE run_id = 1;
UPDATE processes SET threads = 4294967295, nexec = -1, pss_kib = 9223372036854775807, end_ns = 9223372036854775807 WHERE run_id = 2;
UPDATE proc_samples SET t_ns = 9223372036854775807, pss_kib = -1 WHERE run_id = 2;
UPDATE output SET t_ns = 9223372036854775807 WHERE run_id = 3;
UPDATE run_summary SET value = 9223372036854775807 WHERE run_id = 1 AND key IN ('end_ns', 'interval_ms', 'total_execs', 'peak.pss_kib', 'last.t_ns', 'pss_reads');
UPDATE run_summary SET value = 4294967295 WHERE run_id = 3 AND key IN ('interval_ms', 'mode', 'total_execs');"

# what may be NULL or empty: command lines, names, directories, a line
variant argv_null "
UPDATE runs SET argv = NULL, cwd = NULL, host = NULL WHERE id = 1;
UPDATE runs SET argv = X'', note = 'recording stopped' WHERE id = 2;
UPDATE runs SET argv = X'00000000' WHERE id = 3;
UPDATE processes SET argv = NULL, comm = NULL WHERE run_id = 1;
UPDATE processes SET argv = X'00', comm = '' WHERE run_id = 2;
UPDATE execs SET argv = NULL, comm = NULL, pid = NULL;
UPDATE output SET line = X'' WHERE run_id = 1;
UPDATE run_summary SET value = NULL WHERE run_id = 1;"

# values of another type than the writer's: text, blobs, reals, infinities,
# bit sets with every bit, a comm longer than 16 bytes, unknown event types
variant types_mixed "
UPDATE run_summary SET value = 9e999 WHERE run_id = 1 AND key = 'pss_est_share';
UPDATE run_summary SET value = -9e999 WHERE run_id = 2 AND key = 'pss_est_share';
UPDATE run_summary SET value = 'many' WHERE run_id = 1 AND key IN ('start_ns', 'attach_n', 'wait_status');
UPDATE run_summary SET value = X'ffffffff' WHERE run_id = 2 AND key = 'attach_pid.1';
UPDATE run_summary SET value = 1.5e300 WHERE run_id = 3 AND key LIKE 'peak.%';
UPDATE runs SET end_state = 'vanished', source = 'attached', exit_status = 'x' WHERE id = 1;
UPDATE samples SET valid = -1, pss_kib = 1e300, rss_kib = 'lots' WHERE run_id = 1;
UPDATE processes SET valid = -1, comm = 'a-comm-of-forty-bytes-name-longer-than16', exit_status = 9e999 WHERE run_id = 1;
UPDATE processes SET comm = X'41004200ff' WHERE run_id = 2;
UPDATE events SET type = 99, arg = 9223372036854775807 WHERE run_id = 1;
UPDATE execs SET comm = X'00ff00ff00ff00ff00ff00ff00ff00ff00ff' WHERE run_id = 1;
UPDATE proc_samples SET pss_kib = 'x', cpu_us = -1.5;"

# summary keys a writer never writes: attach_pid past 64, or unnumbered,
# unknown keys, and a run of no summary at all
variant summary_odd "
INSERT INTO run_summary VALUES (2, 'attach_pid.64', 7), (2, 'attach_pid.4294967296', 8),
  (2, 'attach_pid.', 9), (2, 'attach_pid.-1', 10), (2, 'peak.', 1), (2, 'nosuchkey', 1),
  (1, 'last.nosuch', 1);
UPDATE run_summary SET value = 64 WHERE run_id = 2 AND key = 'attach_n';
DELETE FROM run_summary WHERE run_id = 3;"

# a view where the reader expects a table: SQLite runs it on every read
variant view_output "
DROP TABLE output;
CREATE VIEW output (run_id, t_ns, line) AS
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
  SELECT r.id, i * 10000000, printf('line %d of run %d', i, r.id) FROM n, runs r;"

# tables of another shape, which quick_check accepts: NOT NULL dropped, so
# NULLs a writer never writes reach the reader (an output line, a time, a
# sample's valid bits); a column missing
variant schema_loose "
DROP TABLE output;
CREATE TABLE output (run_id INTEGER, t_ns INTEGER, line BLOB);
INSERT INTO output VALUES (1, 100000007, 'first'), (1, 200000007, NULL), (1, NULL, 'no time'),
  (NULL, 5, 'no run'), (2, 300000007, X'');
CREATE TABLE s2 AS SELECT * FROM samples;
DROP TABLE samples;
ALTER TABLE s2 RENAME TO samples;
UPDATE samples SET valid = NULL, t_ns = NULL WHERE run_id = 1 AND rowid % 2 = 0;"
variant schema_missing_column "
CREATE TABLE e2 AS SELECT run_id, t_ns, type, pid, ppid FROM events;
DROP TABLE events;
ALTER TABLE e2 RENAME TO events;"

# one run, still being recorded (followed), without samples of its own yet
variant running_only "
DELETE FROM runs WHERE id < 3;
DELETE FROM samples; DELETE FROM proc_samples;
UPDATE runs SET updated_wall_ns = 9223372036854775807;"

# ids a writer never makes, rows of a run that is not there, a repeated seq
variant odd_ids "
UPDATE runs SET id = 9223372036854775807 WHERE id = 1;
UPDATE runs SET id = -3 WHERE id = 2;
UPDATE processes SET id = -1, seq = -1 WHERE run_id = 3 AND id = 65537;
UPDATE processes SET seq = 0 WHERE run_id = 1;"

# parents in a circle: ppids pointing at each other, begun at the same time
# (the tree's walk never reached them; two makes, an ancestor loop never
# ended): run 1 a sh and the make under it, run 2 two makes
variant parent_circle "
UPDATE processes SET ppid = 4002, start_ns = 2000000 WHERE run_id IN (1, 2) AND pid = 4001;
UPDATE processes SET comm = 'make', argv = CAST('make' AS BLOB) WHERE run_id = 2 AND pid = 4001;"

# no run at all (the rows of the runs are left)
variant no_runs "DELETE FROM runs;"

# refused at open: a newer schema, another application's database
variant schema_newer "UPDATE meta SET value = 99 WHERE key = 'schema_version';"
variant foreign "UPDATE meta SET value = 'other' WHERE key = 'application';"

mkdir -p "$out"
rm -f "$out"/*
cp "$tmp"/out/* "$out"/
ls -l "$out"
