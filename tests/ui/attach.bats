#!/usr/bin/env bats
# The dashboard attached to a running tree (spacetime -p PID): q detaches at
# once, without a question and without a signal to the processes, which go
# on and end with their own status. The attachfill workload waits on a fifo
# (tests/workloads/attachfill.c); the test's open of it for writing returns
# once the workload and its children are there.

load tmux

setup() {
	ui_require
	[ -x "$WL/attachfill" ] || { echo "no $WL/attachfill (make workloads)" >&2; return 1; }
}

teardown() {
	if [ -n "${AT_WL_PID:-}" ] && kill -0 "$AT_WL_PID" 2>/dev/null; then
		kill -KILL "$AT_WL_PID" 2>/dev/null || true
	fi
	exec 7>&- 2>/dev/null || true
	ui_teardown
}

@test "attached dashboard: q detaches, the processes go on and end with their own status" {
	mkfifo "$BATS_TEST_TMPDIR/go"
	# 2 children that hold 8 MiB each until the release, then exit 4
	"$WL/attachfill" "$BATS_TEST_TMPDIR/go" 0 8 2 100 4 &
	AT_WL_PID=$!
	exec 7>"$BATS_TEST_TMPDIR/go"
	ui_start 100 30 -- -p "$AT_WL_PID"
	ui_wait 'attached'
	# the workload and its two children, found by the scan
	ui_wait 'procs +3 live, 3 made'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	local screen
	screen=$(ui_cap_all)
	[[ $screen == *"detached: 3 processes still running"* ]] || { ui_show; false; }
	kill -0 "$AT_WL_PID" || { echo "the workload did not survive the detach" >&2; false; }
	printf x >&7
	exec 7>&-
	local st=0
	wait "$AT_WL_PID" || st=$?
	AT_WL_PID=""
	[ "$st" -eq 4 ] || { echo "workload status $st, expected 4" >&2; false; }
}
