#!/usr/bin/env bats
# The terminal is always given back, and the command never outlives
# spacetime unnoticed: SIGTERM, SIGHUP (a signal, or the terminal closed),
# SIGINT the command ignores, a crash in the UI, SIGKILL. After each, the
# pane's tty is back in cooked mode (icanon, echo), the cursor visible, the
# alternate screen left, and the command got the signal it would have got
# without spacetime, which it writes into a file. Also: the dashboard's
# output log (security finding 6).

load tmux

setup() {
	ui_require
	SIGF="$BATS_TEST_TMPDIR/signals"
	rm -f "$SIGF"
}

teardown() {
	ui_teardown
	# a command that outlived a failing test, and what it waits on
	[ -z "${CMDPID:-}" ] || kill -KILL "$CMDPID" 2>/dev/null || true
	local go
	for go in "$BATS_TEST_TMPDIR"/*.go; do
		[ -p "$go" ] && timeout 2 sh -c 'echo go >"$1"' sh "$go" 2>/dev/null || true
	done
}

# A command that writes each signal it gets (HUP, INT, TERM) into $SIGF,
# exits 128+N on HUP and TERM, ignores INT, and otherwise runs for 60 s.
# It writes its pid first, so a test can find it after spacetime is gone.
TRAPPER='echo $$ >"$1.pid"
trap "echo HUP >>\"$1\"; exit 129" HUP
trap "echo TERM >>\"$1\"; exit 143" TERM
trap "echo INT >>\"$1\"" INT
echo up; i=0; while [ $i -lt 600 ]; do i=$((i+1)); sleep 0.1; done; echo done >>"$1"'

# assert_restored: the pane's terminal is in cooked mode with echo, the
# cursor is visible, the alternate screen is off.
assert_restored() {
	local tty modes
	tty=$(ui_tmux display -p '#{pane_tty}')
	modes=$(stty -F "$tty" -a)
	[[ " $modes " =~ [[:space:]]icanon[[:space:]] ]] || { echo "not icanon: $modes"; ui_show; return 1; }
	[[ " $modes " =~ [[:space:]]echo[[:space:]] ]] || { echo "not echo: $modes"; ui_show; return 1; }
	[[ " $modes " =~ [[:space:]]isig[[:space:]] ]] || { echo "not isig: $modes"; ui_show; return 1; }
	[ "$(ui_tmux display -p '#{alternate_on}')" = 0 ] || { echo "still on the alternate screen"; ui_show; return 1; }
	[ "$(ui_tmux display -p '#{cursor_flag}')" = 1 ] || { echo "cursor hidden"; ui_show; return 1; }
}

# assert_got SIG...: the command wrote exactly these signals, one a line.
assert_got() {
	local want got
	want=$(printf '%s\n' "$@")
	got=$(cat "$SIGF" 2>/dev/null)
	[ "$got" = "$want" ] || { echo "command got '$got', expected '$want'"; ui_show; return 1; }
}

# start_trapper: the dashboard running TRAPPER, up and in its modes.
start_trapper() {
	ui_start 100 30 -- sh -c "$TRAPPER" sh "$SIGF"
	ui_wait 'up'
	ui_wait 'procs +[0-9]+ live'
	[ "$(ui_tmux display -p '#{alternate_on}')" = 1 ]
	# the check below can fail: the dashboard's own modes are not cooked
	! assert_restored >/dev/null || { echo "the dashboard's terminal looks cooked"; false; }
	CMDPID=$(cat "$SIGF.pid")
}

# got_at_least SIG N: the command wrote SIG N times or more (a predicate for
# ui_until: its trap ran).
got_at_least() {
	[ "$(grep -c "^$1\$" "$SIGF" 2>/dev/null)" -ge "$2" ]
}

# release FIFO: lets the command blocked reading FIFO go on (fails if no
# reader comes within 10 s).
release() {
	timeout 10 sh -c 'echo go >"$1"' sh "$1" || { echo "no reader on $1"; ui_show; return 1; }
}

# gone PID: waits up to 10 s for PID to end.
gone() {
	local i
	for i in $(seq 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	echo "process $1 still runs"
	return 1
}

@test "restore: SIGTERM to spacetime: the command gets SIGTERM, the terminal is cooked again" {
	start_trapper
	kill -TERM "$(ui_pid)"
	ui_wait '\[spacetime exited 143\]'
	assert_restored
	assert_got TERM
}

@test "restore: SIGHUP to spacetime: the command gets SIGHUP, the terminal is cooked again" {
	start_trapper
	kill -HUP "$(ui_pid)"
	ui_wait '\[spacetime exited 129\]'
	assert_restored
	assert_got HUP
}

@test "restore: the terminal closed (window killed): the command gets SIGHUP, nothing outlives it" {
	start_trapper
	local pid
	pid=$(ui_pid)
	ui_tmux kill-window
	gone "$pid"
	gone "$CMDPID"
	assert_got HUP
}

@test "restore: ^C with the command ignoring SIGINT: it gets SIGINT, the dashboard stays, q restores" {
	start_trapper
	ui_keys C-c
	ui_wait 'SIGINT sent'
	ui_until 10 "the command's trap to note SIGINT" got_at_least INT 1
	# neither the command nor the dashboard ends for it: half a second in
	# which nothing may end (a deliberate wait, for what must not happen)
	sleep 0.5
	kill -0 "$CMDPID" || { echo "the command ended"; ui_show; false; }
	[ "$(ui_tmux display -p '#{alternate_on}')" = 1 ] || { echo "the dashboard left"; ui_show; false; }
	# SIGINT to spacetime itself (kill -INT) is passed on the same way
	kill -INT "$(ui_pid)"
	ui_until 10 "the command's trap to note a second SIGINT" got_at_least INT 2
	sleep 0.5 # (again: a window for what must not happen)
	kill -0 "$CMDPID" || { echo "the command ended"; ui_show; false; }
	[ "$(ui_tmux display -p '#{alternate_on}')" = 1 ] || { echo "the dashboard left"; ui_show; false; }
	assert_got INT INT
	ui_keys q
	ui_wait 'Stop it and quit'
	ui_keys y
	ui_wait '\[spacetime exited 143\]'
	assert_restored
	assert_got INT INT TERM
}

@test "restore: a crash in the UI (SPACETIME_TEST_UI_ABORT) restores the terminal; the command gets SIGHUP" {
	# the crash comes 1 s in, when the command has set its traps
	ui_start 100 30 SPACETIME_TEST_UI_ABORT=1 -- sh -c "$TRAPPER" sh "$SIGF"
	ui_wait '\[spacetime exited 134\]'
	assert_restored
	CMDPID=$(cat "$SIGF.pid")
	gone "$CMDPID"
	assert_got HUP
}

@test "outlive: SIGKILL to spacetime in the dashboard: the command gets SIGHUP through its pty" {
	start_trapper
	kill -KILL "$(ui_pid)"
	ui_wait '\[spacetime exited 137\]'
	gone "$CMDPID"
	assert_got HUP
}

@test "outlive: SIGKILL to spacetime in summary mode: the command runs on and finishes" {
	local f="$BATS_TEST_TMPDIR/finished"
	# the command goes on to its end when the test says so (through a fifo),
	# not after a time a slow machine could use up before the checks
	mkfifo "$f.go"
	ui_start 100 30 -- -s sh -c 'echo $$ >"$1.pid"; echo up; cat "$1.go" >/dev/null; echo done >"$1"' sh "$f"
	ui_wait 'up'
	CMDPID=$(cat "$f.pid")
	kill -KILL "$(ui_pid)"
	ui_wait '\[spacetime exited 137\]'
	kill -0 "$CMDPID" || { echo "the command was killed with spacetime"; false; }
	release "$f.go"
	gone "$CMDPID"
	[ "$(cat "$f" 2>/dev/null)" = done ] || { echo "the command did not finish"; false; }
}

# --- the output log -------------------------------------------------------

@test "log: a recorded dashboard run leaves no file in TMPDIR: the output is the recording's" {
	ui_start 100 30 -- sh -c 'echo out-line-1; echo out-line-2; sleep 0.3'
	ui_wait 'the command finished'
	ui_wait 'kept in the recording \(spacetime replay [0-9]+\)'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	run -0 ui_cap_all
	[[ ! "$output" =~ output\ is\ saved ]] || { ui_show; false; }
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep '^spacetime-output-')" ] || {
		echo "left behind: $(ls "$BATS_TEST_TMPDIR")"
		false
	}
	# the lines are in the recording
	[[ "$output" =~ run\ ([0-9]+)\ in\ ([^[:space:]]+) ]] || { ui_show; false; }
	local db=${BASH_REMATCH[2]}
	[ "$(sqlite3 "$db" "SELECT count(*) FROM output WHERE run_id = ${BASH_REMATCH[1]} AND CAST(line AS TEXT) LIKE 'out-line-%'")" = 2 ] ||
		{ sqlite3 "$db" "SELECT * FROM output" ; false; }
}

@test "log: not recorded, the output is in a 0600 file of TMPDIR while the run lasts, gone at exit" {
	ui_start 100 30 -- --no-record sh -c 'echo out-line-1; echo out-line-2; sleep 0.3'
	ui_wait 'the command finished'
	local log
	log=$(ls "$BATS_TEST_TMPDIR"/spacetime-output-*.log)
	[ "$(stat -c %a "$log")" = 600 ] || { echo "mode $(stat -c %a "$log")"; false; }
	[ "$(tr -d '\r' <"$log")" = "$(printf 'out-line-1\nout-line-2')" ] || { echo "log: $(cat -A "$log")"; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	[ ! -e "$log" ] || { echo "left behind: $log"; false; }
}

@test "log: --output-log FILE keeps the output in FILE, 0600, opened once, and announced" {
	command -v strace >/dev/null || skip "no strace"
	local tr="$BATS_TEST_TMPDIR/trace" real="$SPACETIME" log="$BATS_TEST_TMPDIR/out.log"
	SPACETIME=$(command -v strace)
	# (under make check-san: LeakSanitizer cannot run under ptrace, and says
	# so in a report; the leak check is off for this traced run only)
	ui_start 100 30 -- -f -qq -o "$tr" -e trace=open,openat,creat \
		-E "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$real" --output-log "$log" -- \
		sh -c 'echo l\og-line-1; echo l\og-line-2'
	SPACETIME=$real
	ui_wait 'the command finished'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	run -0 ui_cap_all
	[[ "$output" =~ output\ is\ saved\ in\ ([^[:space:]]+) ]] || { ui_show; false; }
	[ "${BASH_REMATCH[1]}" = "$log" ] || { echo "log at ${BASH_REMATCH[1]}"; false; }
	[ "$(stat -c %a "$log")" = 600 ] || { echo "mode $(stat -c %a "$log")"; false; }
	[ "$(tr -d '\r' <"$log")" = "$(printf 'log-line-1\nlog-line-2')" ] || { echo "log: $(cat -A "$log")"; false; }
	# the only open of the log's name is its creation
	local opens
	opens=$(grep -F "$log" "$tr")
	[ "$(printf '%s\n' "$opens" | grep -c '')" = 1 ] || { echo "opens: $opens"; false; }
	[[ $opens == *O_CREAT* ]] || { echo "opens: $opens"; false; }
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep '^spacetime-output-')" ]
}

@test "log: a TMPDIR that is missing costs a dashboard run nothing, recorded or not" {
	local arg
	for arg in --record --no-record; do
		if [ "$arg" = --record ]; then
			ui_start 100 30 TMPDIR=/nonexistent/tmp -- --record "$BATS_TEST_TMPDIR/r.db" -- sh -c 'echo ran-ok; sleep 0.3'
		else
			ui_start 100 30 TMPDIR=/nonexistent/tmp -- --no-record -- sh -c 'echo ran-ok; sleep 0.3'
		fi
		ui_wait 'ran-ok'
		ui_wait 'the command finished'
		ui_keys q
		ui_wait '\[spacetime exited 0\]'
	done
}

@test "log: --output-log to a path that cannot be written: exit 2 before the command runs" {
	local marker="$BATS_TEST_TMPDIR/ran"
	ui_start 100 30 -- --output-log /nonexistent/dir/out.log -- sh -c "touch '$marker'"
	ui_wait '\[spacetime exited 2\]'
	run -0 ui_cap_all
	[[ "$output" =~ cannot\ write\ /nonexistent/dir/out.log:\ No\ such\ file\ or\ directory\ \(the\ command\ was\ not\ started\) ]] ||
		{ ui_show; false; }
	[ ! -e "$marker" ]
}

@test "fault: the command closes stdin, stdout and stderr in the dashboard: the run goes on to its end" {
	local f="$BATS_TEST_TMPDIR/finished"
	# the command ends when the test says so (through a fifo), so the run is
	# seen going on without output whatever the machine's speed
	mkfifo "$f.go"
	ui_start 100 30 -- sh -c 'echo before; exec <&- >&- 2>&-; cat "$1.go" >/dev/null; echo done >"$1"' sh "$f"
	ui_wait 'before'
	ui_wait 'procs +[0-9]+ live'
	# its pty has no writer left: the output pane ends, the run does not
	ui_wait 'lines, ended'
	ui_wait 'running'
	release "$f.go"
	ui_wait 'the command finished' 10
	[ "$(cat "$f" 2>/dev/null)" = done ] || { echo "the command did not finish"; false; }
	run -0 ui_rows 1 1
	[[ "$output" =~ finished ]] || { ui_show; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	assert_restored
	run -0 ui_cap_all
	[[ "$output" =~ processes\ +2\ created ]] || { ui_show; false; }
}
