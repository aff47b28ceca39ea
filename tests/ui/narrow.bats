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
	ended netlink KiB MiB process processes timeline read ago age faults from)

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
	# (a figure before it is its: "graph to 2 cores")
	grep -oE '(^|[^0-9] +|[^0-9 ])(procs|threads|cores|faults|major|minor|minflt|majflt|cpu|thr) *$' <<<"$1" |
		sed 's/^/name without figure: /'
	grep -oE '(procs|threads) +([^0-9 ]|$)' <<<"$1" | sed 's/^/count name without figure: /'
	return 0
}

# help_pages: every page of the help screen open (? pressed), paged down
# until the last, on stdout; leaves the help open.
help_pages() {
	local prev="" cur i
	for ((i = 0; i < 40; i++)); do
		cur=$(ui_cap)
		[ "$cur" != "$prev" ] || break
		printf '%s\n' "$cur"
		prev=$cur
		ui_keys PageDown
		sleep 0.3
	done
}

# help_words SPACETIME_ARGS...: the words of the help screen on a screen
# wide enough for every line whole (200x100), one per line, sorted.
help_words() {
	ui_start 200 100 -- "$@"
	ui_wait ' q quit'
	ui_keys '?'
	ui_wait 'Up/Down scroll'
	help_pages | tr -s ' ' '\n' | grep -v '^$' | sort -u
	ui_quit
}

# ui_quit: closes the help and quits, stopping the command if it asks.
ui_quit() {
	ui_keys Escape
	ui_wait_gone 'Up/Down scroll' >&2
	ui_keys q
	sleep 0.3
	! ui_cap | grep -qi 'stop it and quit' || ui_keys y
	ui_wait '\[spacetime exited' >&2
}

# check_help WORDS_FILE: the help open on the screen, paged through, shows
# only words of the wide help (no "collec" of "collection" at a line's end).
check_help() {
	local bad
	ui_keys '?'
	ui_wait 'Up/Down scroll'
	# (the output log's place, last, is a path this test's run names: a path
	# longer than a line is cut where the line ends)
	bad=$(help_pages | sed "/The command's output is/,\$d" | tr -s ' ' '\n' | grep -v '^$' | sort -u |
		comm -23 - "$1")
	[ -z "$bad" ] || { echo "help words cut: $(tr '\n' ' ' <<<"$bad")"; ui_show; return 1; }
	ui_keys Escape
	ui_wait_gone 'Up/Down scroll'
}

# check_sizes WORKLOAD...: at each size, the screen has no label cut, live
# and with the cursor on.
check_sizes() {
	local sz cols rows screen bad
	WORDS="$BATS_TEST_TMPDIR/help-words"
	help_words --no-record -- sleep 60 >"$WORDS"
	for sz in 40x12 60x20 80x24 100x30; do
		cols=${sz%x*} rows=${sz#*x}
		ui_start "$cols" "$rows" -- --no-record "$@"
		ui_wait "${WAIT_FOR:-procs +[0-9]}"
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
		check_help "$WORDS"
		ui_quit
	done
}

@test "every label whole at 40x12, 60x20, 80x24 and 100x30: a small tree with output" {
	check_sizes sh "$TREE"
}

@test "every label whole at 40x12, 60x20, 80x24 and 100x30: 150 processes (three-digit counts)" {
	check_sizes "$WL/fanout" 150 6000
}

@test "every label whole at 40x12, 60x20, 80x24 and 100x30: 150 processes, finished" {
	WAIT_FOR='finished, exit 0' check_sizes "$WL/fanout" 150 300
}

@test "every label whole at 40x12, 60x20, 80x24 and 100x30: a replay, its cursor and its help" {
	local db="$BATS_TEST_TMPDIR/r.db" sz cols rows screen bad
	"$SPACETIME" -s -o /dev/null --record "$db" -- sh "$TREE" </dev/null >/dev/null 2>&1 &
	# the tree's sleeps hold it for 5 minutes: the recording is read as it is
	sleep 2
	pkill -f 'sleep 30[1-4]' || true
	wait
	WORDS="$BATS_TEST_TMPDIR/help-words"
	help_words replay last --db "$db" >"$WORDS"
	for sz in 40x12 60x20 80x24 100x30; do
		cols=${sz%x*} rows=${sz#*x}
		ui_start "$cols" "$rows" -- replay last --db "$db"
		ui_wait 'replay|finished'
		sleep 0.5
		screen=$(ui_cap)
		bad=$(cut_labels "$screen")
		[ -z "$bad" ] || { echo "replay at $sz, cut: $bad"; ui_show; false; }
		ui_keys c
		sleep 0.5
		screen=$(ui_cap)
		bad=$(cut_labels "$screen")
		[ -z "$bad" ] || { echo "replay at $sz with the cursor, cut: $bad"; ui_show; false; }
		check_help "$WORDS"
		ui_quit
	done
}
