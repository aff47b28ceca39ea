#!/usr/bin/env bats
# narrow.bats: small and narrow terminals. At 40x12, 60x20, 80x24 and
# 100x30 every label on screen is whole: each label the dashboard prints
# appears whole or not at all (no "64 mad", no "─RS" at a pane's edge);
# below the smallest layout the message fits the screen (dashboard.bats,
# 30x8).

load tmux

# The labels the dashboard prints (box and pane titles, figures' names and
# units, the hint line's words): none may show cut.
LABELS=(Memory Tasks Faults CPU Processes Output procs threads live made minor major
	total cores core user sys time anon file shmem estimated RSS PSS peak view graph
	served memory finished running sort quit help pause zoom pan cursor focus lines
	ended netlink KiB MiB processes timeline read ago age faults from)

setup() {
	ui_require
	[ -x "$WL/fanout" ] || { echo "no fanout workload (make workloads)" >&2; return 1; }
	TREE="$BATS_TEST_TMPDIR/tree.sh"
	printf 'echo output-one; echo output-two\nsleep 301 &\nsleep 302 &\nsh -c "sleep 303 & sleep 304 & wait" &\nwait\n' >"$TREE"
}

teardown() {
	ui_teardown
}

# cut_labels SCREEN: the labels shown cut: a proper prefix of a label (2
# letters or more, not itself a label) starting a word and ending at a
# border or the line's end.
cut_labels() {
	local l k p
	for l in "${LABELS[@]}"; do
		for ((k = 2; k < ${#l}; k++)); do
			p=${l:0:k}
			[[ " ${LABELS[*]} " == *" $p "* ]] && continue
			grep -qE "(^|[ ─│])${p}($|[─│┤])" <<<"$1" && echo "$l as $p"
		done
	done
	# a figure without its label or unit: "151 live, 151" (made cut off),
	# "sys 0" (of 0.00), "shmem 0" (of 0 B)
	grep -oE 'live, [0-9]+($| [^mf]|  )' <<<"$1" | sed 's/^/count without made: /'
	grep -oE '(user|sys) [0-9]+($|[^.0-9])' <<<"$1" | sed 's/^/cores cut: /'
	grep -oE '(anon|file|shmem|RSS|PSS) [0-9.]+($|[^0-9. ]| [^BKMG])' <<<"$1" | sed 's/^/size without unit: /'
	# a figure's name with no figure after it at the line's end ("minflt")
	grep -oE '(procs|threads|cores|faults|major|minor|minflt|majflt|cpu|thr) *$' <<<"$1" | sed 's/^/name without figure: /'
	return 0
}

# check_sizes WORKLOAD...: at each size, the screen has no label cut, live
# and with the cursor on.
check_sizes() {
	local sz cols rows screen bad
	for sz in 40x12 60x20 80x24 100x30; do
		cols=${sz%x*} rows=${sz#*x}
		ui_start "$cols" "$rows" -- --no-record "$@"
		ui_wait 'procs +[0-9]|procs [0-9]'
		sleep 1.5 # a few frames: the boxes and titles filled in
		screen=$(ui_cap)
		bad=$(cut_labels "$screen")
		[ -z "$bad" ] || { echo "at $sz, cut: $bad"; ui_show; false; }
		# the cursor on: its title too
		ui_keys c
		sleep 0.5
		screen=$(ui_cap)
		bad=$(cut_labels "$screen")
		[ -z "$bad" ] || { echo "at $sz with the cursor, cut: $bad"; ui_show; false; }
		ui_keys q y
		ui_wait '\[spacetime exited'
	done
}

@test "every label whole at 40x12, 60x20, 80x24 and 100x30: a small tree with output" {
	check_sizes sh "$TREE"
}

@test "every label whole at 40x12, 60x20, 80x24 and 100x30: 150 processes (three-digit counts)" {
	check_sizes "$WL/fanout" 150 6000
}
