#!/usr/bin/env bats
# z in the process list: pause (SIGSTOP) and resume (SIGCONT) one process
# of the command, after a y; never a process spacetime attached to. Truth:
# the process's state in /proc/PID/stat (T while stopped).

load tmux

setup() {
	ui_require
}

teardown() {
	[ -z "${BG:-}" ] || kill -KILL "$BG" 2>/dev/null || true
	ui_teardown
}

state_of() {
	awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null
}

is_state() {
	[ "$(state_of "$1")" = "$2" ]
}

not_state() {
	local s
	s=$(state_of "$1")
	[ -n "$s" ] && [ "$s" != "$2" ]
}

@test "z asks, n leaves the process running, y pauses it (stopped in the list), z y resumes it" {
	ui_start 100 30 -- --no-record -- "$WL/fill" 16 30000
	ui_wait 'fill 16 30000'
	ui_keys Tab
	ui_wait '─ Processes'
	local pid
	pid=$(pgrep -n -f "fill 16 30000" -P "$(ui_pid)")
	[ -n "$pid" ] || { ui_show; false; }
	ui_keys z
	ui_wait "Pause fill 16 30000 \\(pid $pid\\) with SIGSTOP\\? y"
	ui_keys n
	ui_wait_gone 'with SIGSTOP\?'
	sleep 0.3
	not_state "$pid" T || { echo "paused without a y" >&2; false; }
	ui_keys z
	ui_wait 'with SIGSTOP\? y'
	ui_keys y
	ui_until 5 "pid $pid to stop" is_state "$pid" T
	ui_wait "\\(stopped\\) fill 16 30000"
	ui_keys z
	ui_wait "Resume fill 16 30000 \\(pid $pid\\) with SIGCONT\\? y"
	ui_keys y
	ui_until 5 "pid $pid to run again" not_state "$pid" T
	ui_wait_gone '\(stopped\)'
	ui_keys q y
	ui_wait '\[spacetime exited'
}

@test "z when attached: nothing is signalled, and it says why" {
	"$WL/fill" 8 30000 >/dev/null 2>&1 &
	BG=$!
	ui_start 100 30 -- --no-record -p "$BG"
	ui_wait 'fill 8 30000'
	ui_keys Tab
	ui_keys z
	ui_wait 'attached: spacetime never signals'
	sleep 0.3
	not_state "$BG" T || { echo "an attached process was stopped" >&2; false; }
	ui_keys q
	ui_wait '\[spacetime exited'
}

@test "z at 40 columns: the question in its short form, whole" {
	ui_start 40 12 -- --no-record -- "$WL/fill" 8 30000
	ui_wait 'fill 8 30000'
	ui_keys Tab
	local pid
	pid=$(pgrep -n -f "fill 8 30000" -P "$(ui_pid)")
	ui_keys z
	ui_wait "Pause pid $pid\\? y/n"
	ui_keys n
	ui_wait_gone 'y/n'
	ui_keys q y
	ui_wait '\[spacetime exited'
}
