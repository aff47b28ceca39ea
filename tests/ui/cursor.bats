#!/usr/bin/env bats
# One rule for the cursor: it sets the instant of every pane, live or
# replayed. Truth: the workload (sh) prints "first", starts a fill of 8 MiB
# that lives 3 s, sleeps 0.3 s, prints "second", sleeps 3.7 s and prints
# "third", the fill ended by then; then it waits (a fifo) so the run stays
# live: four processes made. With the cursor in the middle of the run (about
# 2 s in) the process list shows sh, the fill and the long sleep alive then,
# and the output stops at "second"; 0 brings every pane back to the present,
# where sh alone lives and "third" shows.

load tmux

setup() {
	ui_require
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	GO="$BATS_TEST_TMPDIR/go"
}

teardown() {
	# a command still waiting to be let go
	[ ! -p "$GO" ] || timeout 2 sh -c 'echo go >"$1"' sh "$GO" 2>/dev/null || true
	ui_teardown
}

@test "cursor, live: the list and the output at its instant; 0 brings every pane back to the present" {
	mkfifo "$GO"
	ui_start 120 40 -- -- sh -c "echo first; \"$WL/fill\" 8 3000 & sleep 0.3; echo second; sleep 3.7; echo third; read x <\"$GO\""
	ui_wait 'third'
	# the present: the fill has ended
	ui_wait 'Processes: 1 live'
	ui_keys Space c
	# the cursor in the middle of the run (about 2 s in): the fill is alive
	ui_wait 'Processes at [0-9.]+ s: 3 alive'
	local screen
	screen=$(ui_cap)
	[[ $screen == *"fill 8 3000"* ]] || { ui_show; echo "the fill is not in the list at the cursor" >&2; false; }
	[[ $screen == *second* ]] || { ui_show; echo "the output at the cursor lacks 'second'" >&2; false; }
	[[ $screen != *third* ]] || { ui_show; echo "the output at the cursor shows 'third', printed after it" >&2; false; }
	# the Tasks box counts what the list shows
	[[ $screen =~ procs\ +3\ live,\ 4\ made ]] || { ui_show; echo "the Tasks box disagrees with the list" >&2; false; }
	# 0: every pane at the present again
	ui_keys 0
	ui_wait 'Processes: 1 live'
	ui_wait 'third'
	screen=$(ui_cap)
	[[ $screen != *"Processes at"* ]] || { ui_show; false; }
	[[ $screen =~ procs\ +1\ live,\ 4\ made ]] || { ui_show; echo "the Tasks box is not at the present" >&2; false; }
	timeout 10 sh -c 'echo go >"$1"' sh "$GO"
	ui_wait 'finished, exit 0'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

@test "cursor, replay: opens at the run's end (header and list at one instant); offers no 0 live, no i type" {
	ui_start 120 40 -- -- sh -c "echo first; \"$WL/fill\" 8 500; echo done"
	ui_wait 'finished, exit 0'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	ui_start 120 40 -- replay last
	ui_wait 'Processes at [0-9.]+ s: 0 alive'
	local screen head list
	screen=$(ui_cap)
	# the header's elapsed time and the list's instant: the same
	head=$(head -n 1 <<<"$screen" | grep -oE ' [0-9]+\.[0-9]s ' | head -n 1 | tr -d ' s')
	list=$(grep -oE 'Processes at [0-9.]+ s' <<<"$screen" | grep -oE '[0-9.]+')
	[ -n "$head" ] && [ "$head" = "$list" ] || { ui_show; echo "header at ${head}s, list at ${list}s" >&2; false; }
	[[ $screen == *done* ]] || { ui_show; echo "the output at the end lacks 'done'" >&2; false; }
	# the hint line, once the opening message has gone
	ui_wait '0 whole'
	screen=$(ui_cap)
	local hints
	hints=$(tail -n 1 <<<"$screen")
	[[ $hints != *"0 live"* ]] || { ui_show; echo "a replay offers 0 live" >&2; false; }
	[[ $hints != *"i type"* ]] || { ui_show; echo "a replay offers i type" >&2; false; }
	# the peak is marked over its column, and P puts the cursor there
	[[ $screen == *▼* ]] || { ui_show; echo "no peak mark" >&2; false; }
	ui_keys P
	ui_wait 'Processes at [0-9.]+ s: 2 alive'
	ui_wait 'cursor on the peak'
	# the help offers neither
	ui_keys '?'
	ui_wait 'spacetime help'
	screen=$(ui_cap)
	[[ $screen != *"type to the command"* ]] || { ui_show; false; }
	[[ $screen != *"back to live"* ]] || { ui_show; false; }
	ui_keys q
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}
