#!/usr/bin/env bats
# Recordings that cannot be turned against their reader: a recording is a file
# people pass around (a CI artifact, a bug report's attachment), so each way a
# crafted or planted file, a second user or root with a user's environment
# could use it is tried here, and what spacetime does instead is asserted.

load helpers

setup() {
	st_require
	DBDIR="$BATS_TEST_TMPDIR/rec"
	mkdir -p "$DBDIR"
	GOOD="$DBDIR/good.db"
	st -s --record "$GOOD" -- "$WL/fill" 8 300
	assert_status 0
}

teardown() {
	[ -z "${LOCK_PID:-}" ] || kill "$LOCK_PID" 2>/dev/null || true
	[ -z "${TEST_USER:-}" ] || userdel -r "$TEST_USER" 2>/dev/null || true
}

# refused_in_one_line WHAT: the last run failed with exit status 1, no crash
# (no signal: status < 128), one line on stderr naming WHAT.
refused_in_one_line() {
	[ "$status" -eq 1 ] || st_fail "exit status: expected 1, got $status"
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"$1"* ]] || st_fail "the line does not name '$1'"
}

@test "recfile: a run whose attach_n is out of bounds is refused by replay and export in one line naming it" {
	local n
	for n in 100000000 80 65; do
		cp "$GOOD" "$DBDIR/a$n.db"
		sqlite3 "$DBDIR/a$n.db" "INSERT OR REPLACE INTO run_summary VALUES (1, 'attach_n', $n)"
		st replay 1 --db "$DBDIR/a$n.db"
		refused_in_one_line "run 1: run_summary.attach_n = $n is out of bounds"
		mkdir -p "$DBDIR/x$n"
		st export 1 --db "$DBDIR/a$n.db" -o "$DBDIR/x$n"
		refused_in_one_line "attach_n = $n"
		[ -z "$(ls "$DBDIR/x$n")" ] || st_fail "export wrote files from a refused run"
	done
	# the 64 attach_pid rows a recording may hold are read
	cp "$GOOD" "$DBDIR/a64.db"
	sqlite3 "$DBDIR/a64.db" "INSERT OR REPLACE INTO run_summary VALUES (1, 'attach_n', 64)"
	st replay 1 --db "$DBDIR/a64.db"
	assert_status 0
}

@test "recfile: a recursive view named runs is refused at once by runs and replay" {
	cp "$GOOD" "$DBDIR/view.db"
	sqlite3 "$DBDIR/view.db" "ALTER TABLE runs RENAME TO runs_old; CREATE VIEW runs AS
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS id FROM c"
	ST_TIMEOUT=20 st runs --db "$DBDIR/view.db"
	refused_in_one_line "not a spacetime recording"
	ST_TIMEOUT=20 st replay --db "$DBDIR/view.db"
	refused_in_one_line "'runs'"
}

# A trigger on samples that would keep the writer busy for ever (a recursive
# trigger, the product's CPU held at 92% for 10 minutes before the fix).
add_trigger() {
	sqlite3 "$1" "PRAGMA recursive_triggers = ON;
		CREATE TRIGGER t AFTER INSERT ON samples BEGIN
			INSERT INTO samples (run_id, t_ns, valid) VALUES (NEW.run_id, NEW.t_ns + 1, 0);
		END"
}

@test "recfile: --record into a file holding a trigger is refused before the command runs, exit 2" {
	cp "$GOOD" "$DBDIR/trig.db"
	add_trigger "$DBDIR/trig.db"
	ST_TIMEOUT=20 st -s --record "$DBDIR/trig.db" -- sh -c "touch '$DBDIR/ran'; exit 4"
	assert_status 2
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"cannot record into"*"'t'"*"the command was not started"* ]] ||
		st_fail "the refusal does not name the trigger"
	[ ! -e "$DBDIR/ran" ] || st_fail "the command ran"
}

@test "recfile: the default recording holding a trigger: the command runs, its status kept, one line" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	mkdir -p -m 700 "$XDG_STATE_HOME/spacetime"
	cp "$GOOD" "$XDG_STATE_HOME/spacetime/runs.db"
	add_trigger "$XDG_STATE_HOME/spacetime/runs.db"
	ST_TIMEOUT=20 st -s -- sh -c "touch '$DBDIR/ran'; exit 4"
	assert_status 4
	[ -e "$DBDIR/ran" ] || st_fail "the command did not run"
	[ "$(grep -c '^spacetime: not recording: .*'"'t'" <<<"$stderr")" -eq 1 ] ||
		st_fail "no one line saying the run is not recorded, and why"
	[[ $stderr == *"peak PSS"* ]] || st_fail "no summary"
}

@test "recfile: a new recording and its -wal and -shm are 0600 whatever the umask; the state directory 0700" {
	local m
	for m in 022 000; do
		export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state$m"
		local db="$DBDIR/modes$m.db" def="$XDG_STATE_HOME/spacetime/runs.db"
		# the command looks while spacetime writes both (the first write is
		# the run's start, before the command runs)
		(umask $m && st -s --record "$db" -- sh -c "stat -c '%n %a' '$db' '$db-wal' '$db-shm' >'$DBDIR/m$m'")
		assert_status 0
		(umask $m && st -s -- sh -c "stat -c '%n %a' '$def' '$def-wal' '$def-shm' '${def%/*}' >'$DBDIR/d$m'")
		assert_status 0
		cat "$DBDIR/m$m" "$DBDIR/d$m" >&2
		[ "$(grep -c ' 600$' "$DBDIR/m$m")" -eq 3 ] || st_fail "umask $m: --record files not 0600: $(cat "$DBDIR/m$m")"
		[ "$(grep -c ' 600$' "$DBDIR/d$m")" -eq 3 ] || st_fail "umask $m: default files not 0600: $(cat "$DBDIR/d$m")"
		grep -q "spacetime 700$" "$DBDIR/d$m" || st_fail "umask $m: the state directory is not 0700"
	done
	# an existing default recording that others could read is made private
	chmod 644 "$def"
	st -s -- true
	[ "$(stat -c %a "$def")" = 600 ] || st_fail "the default recording stayed $(stat -c %a "$def")"
}

@test "recfile: a recording that is a symbolic link, or another user's file, is not written through" {
	ln -s "$DBDIR/victim.db" "$DBDIR/link.db"
	st -s --record "$DBDIR/link.db" -- true
	assert_status 2
	[[ $stderr == *"symbolic link"* ]] || st_fail "the link is not named"
	[ ! -e "$DBDIR/victim.db" ] || st_fail "a file was created where the link points"
	# a -wal planted beside a new recording (it would be replayed into it)
	ln -s "$DBDIR/victim2" "$DBDIR/planted.db-wal"
	st -s --record "$DBDIR/planted.db" -- true
	assert_status 2
	[[ $stderr == *"planted.db-wal is a symbolic link"* ]] || st_fail "the planted -wal is not named"
	# a file another user made, for us to record into (and read)
	touch "$DBDIR/theirs.db"
	chown $ST_NOBODY "$DBDIR/theirs.db"
	chmod 666 "$DBDIR/theirs.db"
	st -s --record "$DBDIR/theirs.db" -- true
	assert_status 2
	[[ $stderr == *"belongs to uid $ST_NOBODY"* ]] || st_fail "another user's file is not refused"
	# the default runs.db as a link: not followed, the run goes on
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	mkdir -p -m 700 "$XDG_STATE_HOME/spacetime"
	ln -s "$DBDIR/victim3.db" "$XDG_STATE_HOME/spacetime/runs.db"
	st -s -- "$WL/exitwith" 3
	assert_status 3
	[ "$(grep -c '^spacetime: not recording: .*symbolic link' <<<"$stderr")" -eq 1 ] || st_fail "no one line"
	[ ! -e "$DBDIR/victim3.db" ] || st_fail "a file was created where the default link points"
}

@test "recfile: an unsafe state directory (others may write it, or another user's) is one line and the run goes on" {
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	mkdir -p "$XDG_STATE_HOME/spacetime"
	chmod 777 "$XDG_STATE_HOME/spacetime"
	st -s -- "$WL/exitwith" 5
	assert_status 5
	[ "$(grep -c '^spacetime: not recording: .*not safe to record into (others may write' <<<"$stderr")" -eq 1 ] ||
		st_fail "no one line saying the directory is unsafe"
	[ ! -e "$XDG_STATE_HOME/spacetime/runs.db" ] || st_fail "recorded into it"
	chmod 700 "$XDG_STATE_HOME/spacetime"
	chown $ST_NOBODY "$XDG_STATE_HOME/spacetime"
	st -s -- "$WL/exitwith" 5
	assert_status 5
	[[ $stderr == *"another user's"* ]] || st_fail "another user's directory is not called so"
}

@test "recfile: root with XDG_STATE_HOME and HOME in another user's home records into its own, follows no link there" {
	st_is_root || skip "needs root to make a user"
	TEST_USER="stt$$"
	useradd -m -d "$BATS_TEST_TMPDIR/home-$TEST_USER" "$TEST_USER" || skip "useradd failed"
	local uhome="$BATS_TEST_TMPDIR/home-$TEST_USER"
	local ustate="$uhome/.local/state"
	mkdir -p "$ustate/spacetime"
	ln -s "$uhome/planted.db" "$ustate/spacetime/runs.db"
	chown -R -h "$TEST_USER:" "$uhome"
	local myhome="$BATS_TEST_TMPDIR/roothome"
	mkdir -p "$myhome"
	# su -m: root keeps the user's environment; its own home comes from the
	# account, so HOME is pointed at a directory of root's for the test
	XDG_STATE_HOME="$ustate" HOME="$uhome" st -s -- true
	assert_status 0
	[ ! -e "$uhome/planted.db" ] || st_fail "root created a file where the user's link points"
	[ -z "$(find "$uhome" -user 0)" ] || st_fail "root wrote into the user's home: $(find "$uhome" -user 0)"
	# with the account's home taken from HOME when it is root's own
	XDG_STATE_HOME="$ustate" HOME="$myhome" st -s -- true
	assert_status 0
	[ -s "$myhome/.local/state/spacetime/runs.db" ] || st_fail "root did not record into its own home"
	[[ $stderr == *"recording       run 1 in $myhome/.local/state/spacetime/runs.db"* ]] ||
		st_fail "the summary does not say where the run went"
	[ -z "$(find "$uhome" -user 0)" ] || st_fail "root wrote into the user's home"
}

# hold_lock DB: another program holds the recording's write lock (the sqlite3
# shell inside BEGIN IMMEDIATE) until killed; LOCK_PID is its pid.
hold_lock() {
	local db=$1 fifo="$BATS_TEST_TMPDIR/lock.fifo"
	rm -f "$fifo" "$BATS_TEST_TMPDIR/lock.out"
	mkfifo "$fifo"
	sqlite3 "$db" <"$fifo" >"$BATS_TEST_TMPDIR/lock.out" 2>&1 &
	LOCK_PID=$!
	exec 7>"$fifo"
	printf '.timeout 5000\nBEGIN IMMEDIATE;\nUPDATE meta SET value = value WHERE key = 0;\n.print locked\n' >&7
	local i
	for i in $(seq 100); do
		grep -q locked "$BATS_TEST_TMPDIR/lock.out" && return 0
		sleep 0.05
	done
	return 1
}

# locked_run DB DEADLINE: starts spacetime recording into DB, whose command
# waits for $BATS_TEST_TMPDIR/ended and exits 4, in the background (SPID);
# once the run is going, another program takes the recording's write lock.
locked_run() {
	local db=$1 mark="$BATS_TEST_TMPDIR/ended"
	st -s --record "$db" -- true
	timeout -k 5 60 "$ST_BIN" -s --record "$db" --record-deadline "$2" -- sh -c "
		while [ ! -e '$mark' ]; do sleep 0.05; done; exit 4" \
		</dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/st.err" &
	SPID=$!
	sleep 0.5
	hold_lock "$db" || st_fail "the lock holder did not start"
}

# locked_end: waits for spacetime; status and stderr are its.
locked_end() {
	status=0
	wait $SPID || status=$?
	stderr=$(cat "$BATS_TEST_TMPDIR/st.err")
	ST_CMD=(spacetime -s --record ... -- "(waits, exits 4)")
}

@test "recfile: a recording locked by another program cannot hold the run: past the deadline, status and summary kept" {
	local db="$DBDIR/locked.db"
	locked_run "$db" 1
	local t0=$SECONDS
	touch "$BATS_TEST_TMPDIR/ended"
	locked_end
	assert_status 4
	[[ $stderr == *"peak PSS"* ]] || st_fail "no summary"
	[[ $stderr == *"the recording of run 2 is incomplete: its final write did not finish within 1.0 s: the recording is locked by another program"* ]] ||
		st_fail "the summary does not say why the recording is incomplete"
	# the lock would hold a writer 5 s at each try, for ever
	((SECONDS - t0 < 5)) || st_fail "the run was held $((SECONDS - t0)) s by the recording"
	kill $LOCK_PID
	wait $LOCK_PID 2>/dev/null || true
	LOCK_PID=
	[ "$(sqlite3 "$db" 'SELECT incomplete FROM runs WHERE id = 2')" = 1 ] || st_fail "run 2 is not marked incomplete"
	st runs --db "$db"
	assert_status 0
}

@test "recfile: SIGTERM after the command's end stops the recording's last write at once: status and summary kept" {
	local sig
	for sig in TERM INT; do
		rm -f "$BATS_TEST_TMPDIR/ended"
		locked_run "$DBDIR/sig$sig.db" 600
		touch "$BATS_TEST_TMPDIR/ended"
		# the command has ended once its process is gone from spacetime's tree
		local i
		for i in $(seq 100); do
			pgrep -P $SPID >/dev/null || break
			sleep 0.05
		done
		sleep 0.3
		local t0=$SECONDS
		kill -$sig $SPID
		locked_end
		assert_status 4
		[[ $stderr == *"peak PSS"* ]] || st_fail "no summary"
		[[ $stderr == *"its final write was stopped by a signal"* ]] || st_fail "the summary does not say the write was stopped"
		((SECONDS - t0 <= 2)) || st_fail "SIG$sig took $((SECONDS - t0)) s to end the run"
		kill $LOCK_PID
		wait $LOCK_PID 2>/dev/null || true
		LOCK_PID=
	done
}
