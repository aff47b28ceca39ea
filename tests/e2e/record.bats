#!/usr/bin/env bats
# Recording: every run goes into an SQLite file (by default
# $XDG_STATE_HOME/spacetime/runs.db; helpers.bash points XDG_STATE_HOME into
# this file's temporary directory), `spacetime runs` lists the runs,
# `spacetime replay` without a terminal prints a recorded run's summary,
# `spacetime export` exports it. Truth: the workloads' known memory, and the
# export of the same run taken live.

load helpers

setup() {
	st_require
	command -v sqlite3 >/dev/null || { echo "sqlite3 missing (make deps)" >&2; return 1; }
	command -v jq >/dev/null || { echo "jq missing (make deps)" >&2; return 1; }
	DB="$XDG_STATE_HOME/spacetime/runs.db"
	KILL_PIDS=()
}

teardown() {
	# what a failing test left running, by the pids it started
	[ "${#KILL_PIDS[@]}" -eq 0 ] || kill -9 "${KILL_PIDS[@]}" 2>/dev/null || true
}

# q SQL: one query of the default recording.
q() { sqlite3 "$DB" "$1"; }

# is_exe PID FILE: PID runs FILE, once it has exec'd (waits up to 10 s).
is_exe() {
	local i want
	want=$(readlink -f "$2")
	for i in $(seq 100); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$want" ] && return 0
		sleep 0.1
	done
	return 1
}

# child_named PID COMM: prints the pid of the child of PID named COMM,
# waiting up to 10 s for it to exist and exec.
child_named() {
	local i c
	for i in $(seq 100); do
		c=$(pgrep -x -P "$1" "$2") && [ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

@test "record: a run is recorded by default, with its peak, and listed by spacetime runs" {
	st -s -- "$WL/fill" 64 700
	assert_status 0
	[[ $stderr == *"recording       run "*" in $DB (spacetime replay "* ]] || st_fail "the summary does not say where the run was recorded"
	local id
	id=$(q "SELECT max(id) FROM runs")
	# the truth: 64 MiB touched in one process
	local peak
	peak=$(q "SELECT peak_pss_kib FROM runs WHERE id = $id")
	[ "$peak" -ge $((64 * 1024 * 97 / 100)) ] && [ "$peak" -le $((64 * 1024 * 103 / 100)) ] ||
		st_fail "recorded peak $peak KiB, expected 64 MiB within 3%"
	# every sample the store had, and the process
	local n
	n=$(q "SELECT count(*) FROM samples WHERE run_id = $id")
	[ "$n" -ge 5 ] || st_fail "only $n samples recorded"
	n=$(q "SELECT count(*) FROM processes WHERE run_id = $id")
	[ "$n" -eq 1 ] || st_fail "$n processes recorded, expected 1"
	st runs
	assert_status 0
	[[ $output == *"fill 64 700"* ]] || st_fail "spacetime runs does not list the run"
	[[ $output =~ [[:space:]]$id[[:space:]]+[0-9-]+\ [0-9:]+[[:space:]]+[0-9.]+\ s[[:space:]]+6[34]\.[0-9]\ MiB[[:space:]]+0[[:space:]] ]] ||
		st_fail "spacetime runs' line for run $id lacks its wall time, 64 MiB peak or exit 0"
}

@test "record: export of the recorded run equals the export taken live, row for row" {
	mkdir -p "$BATS_TEST_TMPDIR/live" "$BATS_TEST_TMPDIR/rec"
	st -s --export "$BATS_TEST_TMPDIR/live" --export-format json,csv -- "$WL/forkfill" 32 400
	assert_status 0
	st export last --format json,csv -o "$BATS_TEST_TMPDIR/rec"
	assert_status 0
	local a b
	a=$(ls "$BATS_TEST_TMPDIR"/live/*.json)
	b=$(ls "$BATS_TEST_TMPDIR"/rec/*.json)
	[ "$(basename "$a")" = "$(basename "$b")" ] || st_fail "named $(basename "$b"), live $(basename "$a")"
	local rows
	rows=$(jq '.samples | length' "$a")
	[ "$rows" -ge 5 ] || st_fail "only $rows rows"
	diff <(jq -S '.samples' "$a") <(jq -S '.samples' "$b") >&2 || st_fail "the samples differ"
	diff <(jq -S '.processes' "$a") <(jq -S '.processes' "$b") >&2 || st_fail "the processes differ"
	diff <(jq -S '.summary' "$a") <(jq -S '.summary' "$b") >&2 || st_fail "the summaries differ"
	diff "$BATS_TEST_TMPDIR"/live/*.csv "$BATS_TEST_TMPDIR"/rec/*.csv >&2 || st_fail "the CSV differs"
}

@test "record: a spacetime killed with SIGKILL leaves a run that opens and replays up to its last second" {
	local out="$BATS_TEST_TMPDIR/killed"
	# a simple command put in the background: bash execs it in the child it
	# forks, so $! is spacetime itself, not a shell around it
	"$ST_BIN" -s -- "$WL/fill" 64 6000 </dev/null >"$out.out" 2>"$out.err" &
	local pid=$! fill
	KILL_PIDS+=("$pid")
	is_exe "$pid" "$ST_BIN" || st_fail "pid $pid is $(readlink "/proc/$pid/exe"), not $ST_BIN"
	# its command, by pid: the fill spacetime started (it outlives a
	# spacetime killed in summary mode, and is ended below)
	fill=$(child_named "$pid" fill) || st_fail "no fill child of spacetime (pid $pid)"
	KILL_PIDS+=("$fill")
	# the scenario: spacetime is killed 3 s into the run
	sleep 3
	kill -9 "$pid"
	wait "$pid" || true
	kill -9 "$fill" 2>/dev/null || true
	KILL_PIDS=()
	# a recording with nothing new for 5 s is not followed as a live one
	sleep 5
	[ "$(q 'PRAGMA quick_check')" = ok ] || st_fail "the database does not pass quick_check"
	local id
	id=$(q "SELECT max(id) FROM runs")
	st runs
	assert_status 0
	[[ $output =~ [[:space:]]$id[[:space:]].*unfinished.*fill\ 64\ 6000 ]] || st_fail "the killed run is not listed as unfinished"
	# up to the last second: 3 s in, at least 1.5 s of samples are there
	local span
	span=$(q "SELECT max(t_ns) - min(t_ns) FROM samples WHERE run_id = $id")
	[ "$span" -ge 1500000000 ] || st_fail "only $span ns of samples kept"
	st replay "$id"
	assert_status 0
	[[ $output == *"peak PSS"* ]] || st_fail "the replay prints no summary"
	[[ $output == *"incomplete"* ]] || st_fail "the replay does not say the run is incomplete"
	local peak
	peak=$(q "SELECT max(pss_kib) FROM samples WHERE run_id = $id")
	[ "$peak" -ge $((64 * 1024 * 97 / 100)) ] || st_fail "the samples kept peak at $peak KiB, not 64 MiB"
}

@test "record: --record to a full file system keeps the command's exit status and says so in one line" {
	st_is_root || skip "needs root to mount a small tmpfs"
	local mnt="$BATS_TEST_TMPDIR/full"
	mkdir -p "$mnt"
	# room for the new file (its schema, WAL and shared memory) but not for the run
	mount -t tmpfs -o size=320k none "$mnt" || skip "cannot mount a tmpfs here"
	st -s --record "$mnt/runs.db" -- sh -c "\"$WL\"/forkn 600 >/dev/null; \"$WL\"/fill 16 1500; exit 3"
	umount -l "$mnt" || true
	assert_status 3
	local lines
	lines=$(grep -c '^spacetime: .*record' <<<"$stderr" || true)
	[ "$lines" -eq 1 ] || st_fail "expected one line about the recording on stderr, got $lines"
	# it filled during the run: the run is in the file, incomplete
	grep -q '^spacetime: the recording of run 1 is incomplete: .*\(full\|space\)' <<<"$stderr" ||
		st_fail "the line does not say the disk filled during the run"
	[[ $stderr == *"peak PSS"* ]] || st_fail "the summary is missing"
}

@test "record: --no-record writes nothing; with --record it is a usage error" {
	local before=0
	[ ! -e "$DB" ] || before=$(q 'SELECT count(*) FROM runs')
	st -s --no-record -- "$WL/fill" 4 100
	assert_status 0
	[ ! -e "$DB" ] || [ "$(q 'SELECT count(*) FROM runs')" -eq "$before" ] || st_fail "a run was recorded"
	[[ $stderr != *"recording "* ]] || st_fail "the summary mentions a recording"
	st -s --no-record --record "$BATS_TEST_TMPDIR/x.db" -- true
	assert_status 2
	assert_one_line "$stderr" "stderr"
}

@test "record: --keep bounds the file, oldest runs pruned first, said in the summary" {
	local db="$BATS_TEST_TMPDIR/keep.db" i
	for i in 1 2 3; do
		st -s --record "$db" --keep 2 -- "$WL/fill" "$i" 50
		assert_status 0
	done
	[[ $stderr == *"1 oldest run pruned"* ]] || st_fail "the summary does not say a run was pruned"
	[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" -eq 2 ] || st_fail "the file keeps more than 2 runs"
	st runs --db "$db"
	[[ $output == *"fill 3 50"* && $output == *"fill 2 50"* && $output != *"fill 1 50"* ]] ||
		st_fail "not the newest two runs kept"
}

@test "record: an unknown run, a corrupt file, a foreign database and a newer schema each give one line" {
	st -s --record "$BATS_TEST_TMPDIR/one.db" -- true
	st replay 99 --db "$BATS_TEST_TMPDIR/one.db"
	assert_status 1
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"no run 99"* ]] || st_fail "unknown id not named"
	st replay abc --db "$BATS_TEST_TMPDIR/one.db"
	assert_status 2
	assert_one_line "$stderr" "stderr"
	head -c 3000 /dev/urandom >"$BATS_TEST_TMPDIR/garbage.db"
	st runs --db "$BATS_TEST_TMPDIR/garbage.db"
	assert_status 1
	assert_one_line "$stderr" "stderr"
	sqlite3 "$BATS_TEST_TMPDIR/foreign.db" 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'
	st runs --db "$BATS_TEST_TMPDIR/foreign.db"
	assert_status 1
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"not a spacetime"* ]] || st_fail "a foreign database is not called one"
	cp "$BATS_TEST_TMPDIR/one.db" "$BATS_TEST_TMPDIR/newer.db"
	sqlite3 "$BATS_TEST_TMPDIR/newer.db" "UPDATE meta SET value = '99' WHERE key = 'schema_version'"
	st runs --db "$BATS_TEST_TMPDIR/newer.db"
	assert_status 1
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"newer"* ]] || st_fail "a newer schema is not called so"
	# recording into a file that is not a database: refused before the
	# command runs, as a bad -o is
	st -s --record "$BATS_TEST_TMPDIR/garbage.db" -- sh -c "touch '$BATS_TEST_TMPDIR/ran'; exit 4"
	assert_status 2
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"cannot record into"*"the command was not started"* ]] || st_fail "the refusal does not say so"
	[ ! -e "$BATS_TEST_TMPDIR/ran" ] || st_fail "the command ran"
}

@test "record: --keep 1 keeps just the run made now" {
	local db="$BATS_TEST_TMPDIR/keep1.db" i
	for i in 1 2 3; do
		st -s --record "$db" --keep 1 -- "$WL/fill" "$i" 50
		assert_status 0
	done
	[ "$(sqlite3 "$db" 'SELECT count(*) FROM runs')" -eq 1 ] || st_fail "the file keeps more than 1 run"
	st runs --db "$db"
	[[ $output == *"fill 3 50"* ]] || st_fail "not the newest run kept"
}

@test "record: a program called runs (or replay, export) runs with spacetime -- NAME" {
	local bin="$BATS_TEST_TMPDIR/bin"
	mkdir -p "$bin"
	printf '#!/bin/sh\necho "I am runs"\nexit 6\n' >"$bin/runs"
	chmod +x "$bin/runs"
	PATH="$bin:$PATH" st -s --no-record -- runs
	assert_status 6
	[[ $output == *"I am runs"* ]] || st_fail "the program did not run"
	[[ $stderr == *"peak PSS"* ]] || st_fail "no summary: it was not run under spacetime"
}
