#!/usr/bin/env bats
# find.bats: what htop and btop users reach for, typed and clicked as a person
# does. / searches the process list (job name and command line), n finds the
# next, \ filters it, x folds a subtree; the mouse (SGR sequences typed into
# the pane, as a terminal sends them: tmux cannot click at a position by
# itself) selects a row, places the cursor, zooms with the wheel and with a
# drag over the graph; --no-mouse leaves clicks to the terminal.

load tmux

setup() {
	ui_require
	# a tree whose command lines name none of their children: scripts
	# starting sleeps of distinct lengths (each its own job name)
	TREE="$BATS_TEST_TMPDIR/tree.sh"
	printf 'sleep 303 &\nsleep 304 &\nwait\n' >"$BATS_TEST_TMPDIR/inner.sh"
	printf 'sleep 301 &\nsleep 302 &\nsh "%s" &\nwait\n' "$BATS_TEST_TMPDIR/inner.sh" >"$TREE"
}

teardown() {
	ui_teardown
}

# selected: the process row drawn as selected (black on cyan), as text.
selected() {
	ui_cap_colour | grep -a $'\e\[30m\e\[46m  *[0-9]' | sed 's/\x1b\[[0-9;]*m//g'
}

# selected_is GLOB: the selected row matches *GLOB.
selected_is() { [[ "$(selected)" == *$1 ]]; }

# click X Y / release X Y / wheel up|down X Y: SGR mouse reports (1-based),
# one write each, as a terminal sends them.
click() { ui_tmux send-keys -l $'\e[<0;'"$1;$2M"; }
release() { ui_tmux send-keys -l $'\e[<0;'"$1;$2m"; }
wheel() { ui_tmux send-keys -l $'\e[<'"$([ "$1" = up ] && echo 64 || echo 65);$2;$3M"; }

# row_of TEXT: the screen row (1-based) showing TEXT at its end.
row_of() { ui_cap | grep -n -- "$1\$" | head -n 1 | cut -d: -f1; }

start_tree() {
	ui_start 100 30 TERM=xterm-256color -- "$@" sh "$TREE"
	ui_wait 'sleep 304'
	ui_wait 'procs +6 live'
}

@test "/ finds a job by its text, n the next; no match is said" {
	start_tree --no-record
	ui_keys / 3 0 3 Enter
	ui_until 5 "the search to select sleep 303" selected_is "sleep 303*"
	[[ "$(selected)" == *"sleep 303" ]] || { ui_show; false; }
	# n: the next holding "sleep 30" after it, wrapping
	ui_keys / s l e e p Space 3 0 Enter
	local first
	first=$(selected)
	ui_keys n
	sleep 0.5
	[[ "$(selected)" == *"sleep 30"[1-4] ]] && [ "$(selected)" != "$first" ] || { ui_show; false; }
	ui_keys / n o - s u c h Enter
	ui_wait "no process holds 'no-such'"
	ui_keys q y
}

@test "\\ filters the list to the processes holding the text; empty shows them all" {
	start_tree --no-record
	ui_keys '\' s l e e p Space 3 0 Enter
	ui_wait 'filter: sleep 30'
	run -0 ui_cap
	# the four sleeps, and no other row (the scripts' sh are gone)
	[ "$(grep -cE 'sleep 30[1-4]$' <<<"$output")" -eq 4 ] || { ui_show; false; }
	[ "$(grep -cE '^ +[0-9]+ ' <<<"$output")" -eq 4 ] || { ui_show; false; }
	ui_keys '\' 4 Enter
	ui_wait 'filter: sleep 304'
	run -0 ui_cap
	[ "$(grep -cE '^ +[0-9]+ .*sleep 30[1-4]$' <<<"$output")" -eq 1 ] || { ui_show; false; }
	# \ shows the filter to edit: erase it all, and every process is back
	ui_keys '\' BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace Enter
	ui_wait_gone 'filter:'
	ui_wait 'sleep 301'
	ui_keys q y
}

@test "x folds the subtree under the selected process, and unfolds it" {
	start_tree --no-record
	ui_keys / i n n e r Enter
	# (its path may be cut at the screen's edge: inner.s...)
	ui_until 5 "the inner sh selected" selected_is "inner*"
	[[ "$(selected)" == *"inner"* ]] || { ui_show; false; }
	ui_keys x
	ui_wait_gone 'sleep 303'
	run -0 ui_cap
	grep -q '+ sh .*inner' <<<"$output" || { ui_show; false; }
	grep -q 'sleep 301' <<<"$output" || { ui_show; false; }
	ui_keys x
	ui_wait 'sleep 303'
	ui_wait 'sleep 304'
	# folded again, a search for what it hides unfolds it and selects it
	ui_keys x
	ui_wait_gone 'sleep 304'
	ui_keys / s l e e p Space 3 0 4 Enter
	ui_wait 'sleep 304'
	ui_until 5 "the hidden sleep 304 selected" selected_is "sleep 304"
	ui_keys q y
}

@test "mouse: a click selects a row, a click on the graph places the cursor, the wheel and a drag zoom" {
	start_tree --no-record
	local y
	y=$(row_of 'sleep 302')
	[ -n "$y" ] || { ui_show; false; }
	click 20 "$y"
	release 20 "$y"
	ui_until 5 "the clicked row selected" selected_is "sleep 302*"
	[[ "$(selected)" == *"sleep 302" ]] || { ui_show; false; }
	ui_wait '\[processes\]'
	# on the graph: the cursor there (the memory title reads "at ...")
	click 30 5
	release 30 5
	ui_wait '─ at [0-9]'
	ui_wait '\[timeline\]'
	# a drag in the room ahead of the live edge (a whole-run view of a
	# growing run leaves some): a window within the run, not an empty one
	sleep 2
	click 97 5
	release 99 5
	ui_wait 'PAUSED'
	run -0 ui_cap
	! grep -q 'PAUSED at 0\.0s' <<<"$output" || { ui_show; false; }
	ui_keys 0
	ui_wait_gone 'PAUSED'
	# a drag over the graph zooms to it: paused, its axis no longer from 0
	click 10 5
	release 60 5
	ui_wait 'PAUSED'
	# the window dragged over: its axis no longer starts at the run's start
	run -0 ui_cap
	! grep -qE '└(0\.0s|0:00)' <<<"$output" || { ui_show; false; }

	# the wheel over the graph zooms out again to the whole run
	wheel down 30 5
	wheel down 30 5
	wheel down 30 5
	ui_wait '└(0\.0s|0:00)'
	ui_keys q y
}

@test "--no-mouse: the terminal keeps its clicks" {
	start_tree --no-record --no-mouse
	local before y
	before=$(selected | awk '{ print $1 }')
	y=$(row_of 'sleep 302')
	click 20 "$y"
	release 20 "$y"
	sleep 0.5
	# the same process selected (its pid), not the one clicked
	[ "$(selected | awk '{ print $1 }')" = "$before" ] || { ui_show; false; }
	! selected_is 'sleep 302' || { ui_show; false; }
	ui_keys q y
}
