#!/usr/bin/env bats
# The dashboard, driven in tmux at fixed sizes: what shows, the keys, resize,
# quitting, the finished state, the command's output, hostile bytes, colours
# off, and the terminal restored on every exit path.
#
# At 100x30 the rows are (1-based): 1 header, 2 memory title, 3-8 the PSS
# graph, 9 the time axis, 10-14 tasks/faults/CPU, 15-22 processes, 23-29 the
# command's output, 30 hints (tests/unit/test_layout.c checks the layout).

load tmux

# A workload with memory, processes and output that change every ~0.35 s.
BUSY='i=0; while [ $i -lt 80 ]; do i=$((i+1)); echo "step $i"; "$0" 24 300 >/dev/null; done'

setup() {
	ui_require
}

teardown() {
	ui_teardown
}

# made: the "N made" process count on the screen.
made() {
	ui_cap | grep -Eo 'procs +[0-9]+ live, [0-9]+ made' | grep -Eo '[0-9]+ made' | grep -Eo '[0-9]+'
}

# made_more_than N: the screen says more than N processes were made.
made_more_than() {
	local m
	m=$(made)
	[ -n "$m" ] && [ "$m" -gt "$1" ]
}

# elapsed_not TEXT: the header shows an elapsed time, and not TEXT.
elapsed_not() {
	local e
	e=$(ui_elapsed)
	[ -n "$e" ] && [ "$e" != "$1" ]
}

# laid_out COLS ROWS: the screen is the dashboard drawn for COLS x ROWS:
# ROWS rows none wider than COLS, the header running, the memory title on
# row 2, the process counts and the processes and output panes; at 100x30
# every pane's title on its row of the layout (tests/unit/test_layout.c).
laid_out() {
	local cols=$1 rows=$2 screen l
	[ "$(ui_cap | wc -l)" -eq "$rows" ] || return 1
	mapfile -t l < <(ui_cap)
	screen=$(printf '%s\n' "${l[@]}")
	ui_width_ok "$cols" 2>/dev/null || return 1
	[[ ${l[0]} =~ running ]] && [[ ${l[1]} =~ ^─\ (Memory|at) ]] || return 1
	if [ "$cols" -eq 100 ] && [ "$rows" -eq 30 ]; then
		[[ ${l[9]} =~ ^─\ Tasks ]] && [[ ${l[14]} =~ ^─\ Processes ]] &&
			[[ ${l[22]} =~ ^─\ Output ]] && [[ ${l[29]} =~ q\ quit ]]
	else
		[[ $screen =~ procs\ [0-9]+/[0-9]+ ]] && [[ $screen =~ Processes ]] && [[ $screen =~ Output ]]
	fi
}

@test "graph, axes and counters appear and change while a workload runs" {
	ui_start 100 30 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'procs +[0-9]+ live, [0-9]+ made'
	ui_wait 'step 3'
	# the graph has Braille cells, the y axis human units, the time axis labels
	ui_rows 3 8 | has_braille || { ui_show; false; }
	run -0 ui_rows 3 8
	[[ "$output" =~ [0-9.]+[KMG]┤ ]] || { ui_show; false; }
	run -0 ui_rows 9 9
	[[ "$output" =~ └ ]] && [[ "$output" =~ (0\.0s|0:00) ]] || { ui_show; false; }
	run -0 ui_rows 2 2
	[[ "$output" =~ PSS\ ~?[0-9.]+\ (KiB|MiB) ]] || { ui_show; false; }
	[[ "$output" =~ anon.*file.*shmem ]] || { ui_show; false; }
	# the header: command, state, collection mode, interval
	run -0 ui_rows 1 1
	[[ "$output" =~ sh\ -c ]] && [[ "$output" =~ running ]] || { ui_show; false; }
	[[ "$output" =~ (netlink|polling) ]] && [[ "$output" =~ 100ms ]] || { ui_show; false; }
	ui_wait 'minor [0-9.]+k?/s'
	ui_wait 'cores: user'
	local m1 g1 e1
	m1=$(made)
	g1=$(ui_rows 3 8)
	e1=$(ui_elapsed)
	[ -n "$m1" ] && [ -n "$e1" ] || { ui_show; false; }
	# the workload forks a fill every ~0.35 s for ~28 s: each moves on
	ui_until 10 "more than $m1 processes made" made_more_than "$m1"
	ui_wait_change 3 8 "$g1" 10
	ui_until 10 "the elapsed time to move from $e1" elapsed_not "$e1"
	# the live process tree shows the workload with its size
	ui_wait '└─.*fill 24 300'
}

@test "space pauses the view: PAUSED shows, the view freezes, elapsed keeps moving" {
	ui_start 100 30 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 4'
	ui_keys Space
	ui_wait 'PAUSED at'
	local v1 s1 v2
	v1=$(ui_rows 2 22)
	s1=$(ui_elapsed_s)
	[ -n "$s1" ] || { ui_show; false; }
	# the view must stay still while the run goes on: 2 s of the run by the
	# header's own clock (so frames were drawn meanwhile), in which the
	# workload changed its memory and processes several times
	ui_until 15 "the elapsed time to pass ${s1}s + 2 s" ui_elapsed_past "$(awk -v s="$s1" 'BEGIN { print s + 2 }')"
	v2=$(ui_rows 2 22)
	[ "$v1" = "$v2" ] || { diff <(echo "$v1") <(echo "$v2"); false; }
	# the command's output keeps flowing while the view is paused
	ui_wait_change 24 29 "$(ui_rows 24 29)" 10
	ui_keys Space
	ui_wait_gone 'PAUSED'
	ui_wait_change 3 8 "$(ui_rows 3 8)" 10
}

@test "+ and - change the visible time span, 0 returns to the whole run" {
	ui_start 100 30 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 8'
	ui_keys Space # a still view, so only the keys change the axis
	ui_wait 'PAUSED'
	local a1 a2 a3
	a1=$(ui_rows 9 9)
	[[ "$a1" =~ (0\.0s|0:00) ]] || { ui_show; false; }
	ui_keys +
	ui_wait_change 9 9 "$a1" 5
	a2=$(ui_rows 9 9)
	# zoomed in on the newest half: the axis no longer starts at 0
	[[ ! "$a2" =~ └(0\.0s|0:00) ]] || { ui_show; false; }
	ui_keys -
	ui_wait_rows 9 9 "$a1" 5
	# the same zoom on the still view is the same axis again; one more
	# zoom, then a pan back: each moves the axis
	ui_keys +
	ui_wait_rows 9 9 "$a2" 5
	ui_keys +
	ui_wait_change 9 9 "$a2" 5
	a3=$(ui_rows 9 9)
	[ "$a3" != "$a1" ] || { ui_show; false; }
	ui_keys Left
	ui_wait_change 9 9 "$a3" 5
	# then 0: live and the whole run again
	ui_keys 0
	ui_wait_gone 'PAUSED'
	ui_wait '└(0\.0s|0:00)'
}

@test "resize to 40x12 and back keeps the screen coherent; smaller says too small" {
	ui_start 100 30 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 2'
	ui_resize 40 12
	ui_until 10 "the dashboard drawn for 40x12" laid_out 40 12
	ui_resize 30 8
	ui_wait 'Terminal too small'
	# the whole message, its words wrapped to the 30 columns
	run -0 ui_cap
	[ "$(printf '%s\n' "$output" | sed 's/ *$//' | grep -v '^$' | tr '\n' ' ' | sed 's/ $//')" = \
		"Terminal too small (30x8): spacetime needs 40x12. q quits." ] || { ui_show; false; }
	ui_resize 39 12
	ui_wait 'Terminal too small'
	ui_resize 100 30
	ui_wait_gone 'too small'
	ui_until 10 "the dashboard drawn for 100x30" laid_out 100 30
	# still alive and running after all that
	[ -n "$(ui_pid)" ]
	ui_wait 'running'
}

@test "q asks while the command runs: n keeps it, y stops it with SIGTERM" {
	ui_start 100 30 -- sh -c 'echo started; sleep 60'
	ui_wait 'started'
	ui_keys q
	ui_wait 'still running\. Stop it and quit\?'
	ui_keys n
	ui_wait_gone 'Stop it and quit'
	ui_wait 'running'
	ui_keys q
	ui_wait 'Stop it and quit'
	ui_keys y
	ui_wait '\[spacetime exited 143\]'
	run -0 ui_cap_all
	[[ "$output" =~ killed\ by\ signal\ 15 ]] || { ui_show; false; }
	[[ "$output" =~ spacetime:\ sh\ -c ]] || { ui_show; false; }
}

@test "q then y: a command ignoring SIGTERM gets SIGKILL after the grace period" {
	ui_start 100 30 -- sh -c 'trap "" TERM; echo stubborn; while :; do sleep 0.2; done'
	ui_wait 'stubborn'
	ui_keys q
	ui_wait 'Stop it and quit'
	ui_keys y
	ui_wait 'stopping \(SIGTERM sent\)'
	ui_wait '\[spacetime exited 137\]' 20
	run -0 ui_cap_all
	[[ "$output" =~ killed\ by\ signal\ 9 ]] || { ui_show; false; }
}

@test "the finished state shows the exit status until q, then the summary" {
	ui_start 100 30 -- sh -c 'echo bye; sleep 0.5; exit 3'
	ui_wait 'finished, exit 3'
	ui_wait 'bye'
	# the finished state stays until q: a second in which nothing may end it
	# (a deliberate wait, for what must not happen)
	sleep 1
	run -0 ui_rows 1 1
	[[ "$output" =~ finished,\ exit\ 3 ]]
	[ -n "$(ui_pid)" ] || { echo "spacetime ended without q"; ui_show; false; }
	ui_keys q # no question once the command has ended
	ui_wait '\[spacetime exited 3\]'
	run -0 ui_cap_all
	[[ "$output" =~ status\ +exited\ 3 ]] || { ui_show; false; }
	# the output is the recording's
	[[ "$output" =~ run\ ([0-9]+)\ in\ ([^[:space:]]+) ]] || { ui_show; false; }
	[ "$(sqlite3 "${BASH_REMATCH[2]}" "SELECT count(*) FROM output WHERE run_id = ${BASH_REMATCH[1]}
		AND CAST(line AS TEXT) LIKE 'bye%'")" = 1 ]
}

@test "the command's output shows in its pane, never over the dashboard, and is saved" {
	# octal escapes keep the words out of the command line (shown in the header)
	local script='printf "m\141rker-one\n\033[2J\033[H\033[5;5H\105VIL\033[?1049l\033]0;title\007\033[?25h\033[31mred\033[0m\n"
i=0; while [ $i -lt 40 ]; do i=$((i+1)); printf "l\151ne-%d\r\033[Km\141rker-%d\n" $i $i; done
printf "t\141il-%0300d\n" 7; sleep 30'
	local log="$BATS_TEST_TMPDIR/out.log"
	ui_start 100 30 -- --output-log "$log" -- sh -c "$script"
	ui_wait 'marker-40'
	# the last line the command prints: all its output has been drawn
	ui_wait 'tail-0000'
	run -0 --keep-empty-lines ui_cap
	# the dashboard is intact
	[[ "${lines[0]}" =~ running ]] || { ui_show; false; }
	[[ "${lines[1]}" =~ ^─\ (Memory|at) ]] || { ui_show; false; }
	[[ "${lines[22]}" =~ ^─\ Output ]] || { ui_show; false; }
	# output only below the output title
	local n
	for n in $(ui_cap | grep -n -E 'EVIL|marker-|tail-' | cut -d: -f1); do
		[ "$n" -ge 24 ] || { echo "output on row $n"; ui_show; false; }
	done
	# \r and erase-line overwrote "line-N"
	! ui_rows 24 29 | grep -q 'line-' || false
	# still in the dashboard's modes: alternate screen on, cursor hidden
	[ "$(ui_tmux display -p '#{alternate_on}')" = 1 ]
	[ "$(ui_tmux display -p '#{cursor_flag}')" = 0 ]
	# scrolling back in the output pane (focus goes processes -> output)
	ui_keys Tab
	ui_wait '─ Output'
	ui_keys Up Up Up Up Up
	ui_wait 'lines back'
	ui_wait 'marker-3[0-9]'
	# the log asked for (--output-log) has everything, escapes included
	ui_keys q y
	ui_wait '\[spacetime exited'
	run -0 ui_cap_all
	[[ "$output" =~ output\ is\ saved\ in\ ([^[:space:]]+) ]] || { ui_show; false; }
	[ "${BASH_REMATCH[1]}" = "$log" ]
	grep -q 'marker-one' "$log"
	grep -q 'EVIL' "$log"
	grep -q 'tail-0000' "$log"
}

@test "command lines: control characters and invalid bytes as U+FFFD, tabs as blanks" {
	ui_start 100 30 -- sh -c 'sleep 30' "$(printf 'a\001b\377c\033[31md\te\302\233f')"
	# SOH, the byte 0xff, ESC and the C1 CSI (c2 9b) as U+FFFD (textsafe's
	# rule, as in the summary: not the Control Pictures, whose UTF-8 holds C1
	# bytes), the tab a blank
	ui_wait 'a�b�c�\[31md e�f'
	run -0 ui_rows 1 1
	[[ "$output" =~ sleep\ 30\ a�b�c�\[31md\ e�f ]] || { ui_show; false; }
}

@test "NO_COLOR, a non-UTF-8 locale, a monochrome terminal: no colours, ASCII graphs" {
	UI_LOCALE=C ui_start 100 30 NO_COLOR=1 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 3'
	run -0 ui_rows 3 9
	[[ "$output" =~ [#.] ]] || { ui_show; false; }
	! ui_cap | has_braille || false
	! ui_cap | grep -q '[─│┤└]' || false # line drawing in ASCII too
	# no colour in the attributes, only bold/reverse
	! ui_cap_colour | grep -Eq $'\e\\[[0-9;]*(3[0-7]|4[0-7]|38;|48;)' || false
	ui_cap_colour | grep -Eq $'\e\\[[0-9;]*7m' # the header in reverse video
	# a monochrome terminal: no colours either, the stacked layers told apart
	# by their Braille patterns
	ui_teardown
	ui_start 100 30 TERM=vt100 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 3'
	! ui_cap_colour | grep -Eq $'\e\\[[0-9;]*(3[0-7]|4[0-7]|38;|48;)' || false
	ui_rows 2 2 | grep -q '⣿anon'
	! ui_rows 2 2 | grep -q '⣿file' || false
	# and with colours allowed, they are used
	ui_teardown
	ui_start 100 30 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 3'
	ui_cap_colour | grep -Eq $'\e\\[[0-9;]*(3[0-7]|38;5;[0-9]+)m'
}

@test "? shows help made from the key table; any key closes it" {
	ui_start 100 30 -- sh -c 'sleep 30'
	ui_wait 'running'
	ui_keys '?'
	ui_wait 'spacetime help'
	run -0 --keep-empty-lines ui_cap
	local k
	for k in 'space +pause' 'zoom in' 'Left +pan' '0, End +back to live' 'c +timeline cursor' \
		'tab +focus' 's +sort' 'q +quit' '\^C +send SIGINT'; do
		[[ "$output" =~ $k ]] || { echo "missing: $k"; ui_show; false; }
	done
	ui_keys x
	ui_wait_gone 'spacetime help'
	ui_wait '─ Processes'
}

@test "Ctrl-C goes to the command's process group" {
	ui_start 100 30 -- sh -c 'trap "echo got-INT; exit 7" INT; echo ready; while :; do sleep 0.1; done'
	ui_wait 'ready'
	ui_keys C-c
	ui_wait 'got-INT'
	ui_wait 'finished, exit 7'
	ui_keys q
	ui_wait '\[spacetime exited 7\]'
}

@test "the cursor reads out values at an instant" {
	ui_start 100 30 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 6'
	ui_keys Space c
	ui_wait '─ at [0-9.:]+s? .*PSS'
	run -0 ui_rows 2 2
	local r1=$output
	ui_keys '<' '<'
	ui_wait_change 2 2 "$r1" 5
	run -0 ui_rows 2 2
	[[ "$output" =~ ─\ at\ .*PSS\ ~?[0-9.]+\ (KiB|MiB|B) ]] || { ui_show; false; }
	ui_keys c
	ui_wait '─ Memory'
}

@test "finished processes list the heaviest with peak PSS and duration; s sorts" {
	ui_start 100 30 -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 5'
	ui_keys f
	ui_wait 'Finished processes: [0-9]+'
	ui_wait 'PEAK PSS'
	run -0 ui_rows 17 17
	# heaviest first: a fill of 24 MiB
	# programs by name, whatever the directory they ran from
	[[ "$output" =~ 2[0-9]\.[0-9]\ MiB.*\ fill\ 24\ 300 ]] || { ui_show; false; }
	[[ ! "$output" =~ workloads/ ]] || { ui_show; false; }
	# p: the path as executed (its start: the column may cut the end)
	ui_keys p
	ui_wait "MiB.* ${WL:0:16}"
	ui_keys p
	ui_wait 'MiB.* fill 24 300'
	ui_keys s
	ui_wait 'sort CPU time'
	ui_keys s
	ui_wait 'sort major faults'
	ui_keys s s
	ui_wait 'sort pid'
	ui_keys f
	ui_wait 'Processes: [0-9]+ live'
}

@test "finished list by peak PSS: a build's compilations are told apart by job name; p shows the command line" {
	# the kbuild-shaped tree: sub-makes with obj=DIR, gcc on three known
	# files, the heaviest (3, 2, 1 hundred functions) compiled by cc1
	ui_start 120 60 -- make -C "$ST_ROOT/tests/fixtures/kbuild" O="$BATS_TEST_TMPDIR/o" -j2
	ui_wait 'finished, exit 0' 60
	ui_keys f
	ui_wait 'sort peak PSS'
	ui_wait 'PEAK PSS.*JOB'
	local screen first
	screen=$(ui_cap)
	# each compilation once, named by its source file, not by cc1's options
	for s in drivers/net/e1000_main.c fs/ext9/inode.c lib/sort.c; do
		[ "$(grep -c " cc1 $s *\$" <<<"$screen")" -eq 1 ] || { echo "cc1 $s"; ui_show; false; }
	done
	! grep -q 'cc1 -quiet' <<<"$screen" || { ui_show; false; }
	# the sub-makes by their directories
	for d in drivers/net fs/ext9 lib; do
		grep -q " make $d *\$" <<<"$screen" || { echo "make $d"; ui_show; false; }
	done
	# heaviest first: the three rows under the heads are the compilations
	first=$(grep -A3 'PEAK PSS' <<<"$screen" | tail -3)
	[ "$(grep -c ' cc1 ' <<<"$first")" -eq 3 ] || { echo "$first"; ui_show; false; }
	# p: the full command lines, cc1's options and all; p again: the jobs
	ui_keys p
	ui_wait 'COMMAND LINE'
	ui_wait '/cc1 -quiet'
	ui_keys p
	ui_wait ' cc1 lib/sort.c'
}

@test "SIGTERM to spacetime: the command is stopped and the terminal restored" {
	ui_start 100 30 -- sh -c 'echo up; sleep 60'
	ui_wait 'up'
	[ "$(ui_tmux display -p '#{alternate_on}')" = 1 ]
	kill -TERM "$(ui_pid)"
	ui_wait '\[spacetime exited 143\]'
	[ "$(ui_tmux display -p '#{alternate_on}')" = 0 ]
	[ "$(ui_tmux display -p '#{cursor_flag}')" = 1 ]
	run -0 ui_cap_all
	[[ "$output" =~ killed\ by\ signal\ 15 ]] || { ui_show; false; }
}

@test "a crash in the UI (SIGSEGV, SIGABRT) restores the terminal and re-raises" {
	local sig code
	for sig in SEGV ABRT; do
		ui_start 100 30 -- sh -c 'echo up; sleep 60'
		ui_wait 'up'
		[ "$(ui_tmux display -p '#{alternate_on}')" = 1 ]
		kill -"$sig" "$(ui_pid)"
		code=$((128 + $(kill -l "$sig")))
		ui_wait "\[spacetime exited $code\]"
		[ "$(ui_tmux display -p '#{alternate_on}')" = 0 ]
		[ "$(ui_tmux display -p '#{cursor_flag}')" = 1 ]
		[ "$(ui_tmux display -p '#{keypad_cursor_flag}')" = 0 ]
		ui_teardown
	done
}

# json_files_at_least DIR N: DIR holds N or more .json files.
json_files_at_least() {
	[ "$(find "$1" -maxdepth 1 -name '*.json' | wc -l)" -ge "$2" ]
}

@test "e exports the whole run, and only the visible window when zoomed" {
	local d="$BATS_TEST_TMPDIR/snap"
	mkdir -p "$d"
	ui_start 100 30 -- --export "$d" --export-format json,csv -- sh -c "$BUSY" "$WL/fill"
	ui_wait 'step 4'
	ui_keys e
	ui_wait 'wrote '
	local n
	n=$(ls "$d"/*.json 2>/dev/null | wc -l)
	[ "$n" -eq 1 ] || { ls -la "$d"; ui_show; false; }
	ls "$d"/*.csv >/dev/null || { ls -la "$d"; false; }
	# the whole run so far: samples span from the start
	local whole=$(ls "$d"/*.json)
	python3 -m json.tool "$whole" >/dev/null
	local rows_whole
	rows_whole=$(jq '.samples | length' "$whole")
	[ "$rows_whole" -gt 10 ] || { echo "whole-run rows: $rows_whole"; false; }
	# zoom in twice and export again: a second, windowed file with fewer
	# samples, from a run 3.5 s old or more (by its own clock)
	ui_until 15 "the run to be 3.5 s old" ui_elapsed_past 3.5
	ui_keys space + +
	ui_wait 'PAUSED'
	# (the keys are read in order: e exports the view the zooms made)
	ui_keys e
	ui_until 10 "a second JSON file in $d" json_files_at_least "$d" 2
	n=$(ls "$d"/*.json | wc -l)
	[ "$n" -eq 2 ] || { ls -la "$d"; ui_show; false; }
	local win
	win=$(ls "$d"/*.json | grep -v -x "$whole")
	[[ $win =~ -t[0-9.]+-[0-9.]+ ]] || { echo "windowed name: $win"; false; }
	# the first file is the whole run from its start; the second is a window
	# that starts well after the run did (two zooms on a run of 3.5 s or more
	# leave at most half of it), and every sample in it lies in that window
	jq -e '.window.whole_run == true and .window.t0_us == 0 and .samples[0].t0_us < 500000' "$whole" >/dev/null ||
		{ jq -c '.window, .samples[0]' "$whole"; false; }
	jq -e '.window as $w | $w.whole_run == false and $w.t0_us >= 1000000 and $w.t1_us > $w.t0_us
		and (.samples | length) > 0
		and all(.samples[]; .t0_us >= $w.t0_us and .t1_us <= $w.t1_us)' "$win" >/dev/null ||
		{ jq -c '.window, [.samples[] | [.t0_us, .t1_us]]' "$win"; false; }
	ui_keys q y
}

@test "a wide memory title shows how fresh PSS is" {
	ui_start 130 30 -- "$WL/fill" 100 4000
	ui_wait 'PSS (9[0-9]|10[0-9]) MiB'
	ui_until 10 "the memory title to say how old the PSS reads are" ui_rows_match 2 2 'PSS read [0-9]+\.[0-9]s ago'
	ui_keys q y
}

# distinct_elapsed SECONDS: how many different elapsed-time readings the header
# showed, sampled about every 0.1 s for SECONDS of wall time (a time, not a
# count of samples: each capture takes ~0.1 s itself, so 40 samples took 8 s
# and showed 8 readings at --fps 1).
distinct_elapsed() {
	local end=$(($(date +%s%N) + $1 * 1000000000))
	while [ "$(date +%s%N)" -lt "$end" ]; do
		ui_elapsed
		sleep 0.1
	done | sort -u | grep -c .
}

@test "--fps sets how often the live view redraws: about once a second at 1, several times at 10" {
	ui_start 100 30 -- --fps 1 -- sh -c 'echo up; sleep 60'
	ui_wait 'up'
	ui_wait 'running'
	local slow fast
	slow=$(distinct_elapsed 4)
	ui_start 100 30 -- --fps 10 -- sh -c 'echo up; sleep 60'
	ui_wait 'up'
	ui_wait 'running'
	fast=$(distinct_elapsed 4)
	# 4 s at 1 frame/s: 4 or 5 readings; at 10 frames/s nearly every sample
	# (up to 40; fewer when capture-pane is slow on a loaded machine)
	echo "distinct readings in 4 s: $slow at --fps 1, $fast at --fps 10"
	[ "$slow" -ge 2 ] && [ "$slow" -le 7 ] || false
	# a loaded machine slows the captures, not the frame rates' ratio
	[ "$fast" -ge $((2 * slow)) ] || false
}

@test "each frame reaches the terminal in one write, not one per cursor move" {
	# not recorded: the recording's own writes (a transaction a second)
	# are not the terminal's
	ui_start 100 30 -- --fps 2 --no-record -- sh -c 'echo up; sleep 60'
	ui_wait 'up'
	ui_wait 'running'
	local pid w0 w1
	pid=$(pgrep -x -P "$(ui_tmux display-message -p '#{pane_pid}')" spacetime)
	# the sleeps are the measurement: a second for the start-up's writes to
	# pass, then the writes of a 4 s window are counted
	sleep 1
	w0=$(awk '/^syscw/ {print $2}' "/proc/$pid/io")
	sleep 4
	w1=$(awk '/^syscw/ {print $2}' "/proc/$pid/io")
	# 4 s: 8 frames at 2 frames/s, and the collector's 40 ticks each write
	# to the eventfd that tells the UI. Written a cursor move at a time, as
	# ncurses did for a fresh screen, every frame took 10 to 40 writes.
	echo "spacetime made $((w1 - w0)) write calls in 4 s"
	[ $((w1 - w0)) -ge 20 ] && [ $((w1 - w0)) -le 60 ] || false
}

@test "--fps 0.2: a key still redraws at once (space shows PAUSED within half a second)" {
	ui_start 100 30 -- --fps 0.2 -- sh -c 'echo up; sleep 60'
	ui_wait 'up'
	ui_wait 'running'
	# a frame every 5 s: a key waiting for one would take 2.5 s on average.
	# The sleeps are the scenario: each key comes some time after the last
	# frame, not right after one.
	local i
	for i in 1 2; do
		sleep 0.7
		ui_keys Space
		ui_wait 'PAUSED' 0.5
		sleep 0.7
		ui_keys Space
		ui_wait_gone 'PAUSED' 0.5
	done
}

@test "keys held down do not stop the live view: the elapsed time moves while r repeats" {
	ui_start 100 30 -- sh -c 'echo up; sleep 60'
	ui_wait 'up'
	ui_wait 'running'
	# 20 keys a second (the sleep is the repeat rate), faster than the live
	# view's frames (2 a second), for 3.5 s or more; each key sent is noted
	local sent="$BATS_TEST_TMPDIR/keys-sent"
	(for _ in $(seq 70); do ui_keys r; echo >>"$sent"; sleep 0.05; done) &
	local keys=$! e1
	# the repeat under way before the first reading
	ui_until 10 "10 keys sent" lines_at_least "$sent" 10
	e1=$(ui_elapsed)
	[ -n "$e1" ] || { ui_show; false; }
	ui_until 10 "the elapsed time to move from $e1 while r still repeats" moved_while_running "$e1" "$keys"
	wait "$keys"
}

# lines_at_least FILE N: FILE has N lines or more.
lines_at_least() {
	[ -e "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]
}

# moved_while_running TEXT PID: the elapsed time shown is no longer TEXT, and
# PID still ran after the screen was read.
moved_while_running() {
	elapsed_not "$1" && kill -0 "$2" 2>/dev/null
}

@test "a title a program wrote over its argv is shown as is, not cut at a slash" {
	ui_start 100 30 -- bash -c 'exec -a "worker: job a/b done" sleep 60'
	# in the process list (a row starts with its pid), not just the header
	ui_wait '^ +[0-9]+ .* worker: job a/b done'
}

@test "a command that asks a question: the status bar says it waits; i types the answer, Esc Esc comes back" {
	# the answer goes through the command's terminal: what it read is what
	# was typed, and the exit status is the one that answer asks for
	ui_start 100 30 -- -- sh -c 'printf "Proceed? [y/N] "; read a; echo "got:$a"; sleep 1; [ "$a" = yes ] && exit 7; exit 1'
	ui_wait 'Proceed\? \[y/N\]'
	ui_wait 'waits for input: press i'
	ui_keys i
	ui_wait 'TYPING to the command'
	ui_keys y e s Enter
	ui_wait 'got:yes'
	# Esc Esc: the keys are the dashboard's again (space pauses the view)
	ui_keys Escape Escape
	ui_wait_gone 'TYPING to the command'
	ui_wait 'exited 7|status 7|exit 7' 10
}

@test "typing to a password prompt (echo off): the secret never shows, the command reads it" {
	ui_start 100 30 -- -- sh -c 'stty -echo; printf "Password: "; read pw; stty echo; echo; echo "length ${#pw}"; sleep 30'
	ui_wait 'Password:'
	ui_wait 'waits for input'
	ui_keys i
	ui_wait 'TYPING'
	ui_keys s 3 c r 3 t Enter
	ui_wait 'length 6'
	run -0 ui_cap
	[[ ! "$output" =~ s3cr3t ]] || { ui_show; false; }
	# not waiting any more: the bar no longer says so once typing ends
	ui_keys C-]
	ui_wait_gone 'TYPING'
	run -0 ui_cap
	[[ ! "$output" =~ "waits for input" ]] || { ui_show; false; }
}

@test "a question asked by a child of the command, not its group's leader, is seen" {
	# the outer sh leads the group and waits; the inner one reads the
	# terminal: found among the tree's live processes (src/ptywait.c)
	ui_start 100 30 -- -- sh -c 'sh -c "printf \"Continue? \"; read a; echo got:\$a"; exit 3'
	ui_wait 'Continue\?'
	ui_wait 'waits for input: press i'
	ui_keys i
	ui_wait 'TYPING to the command'
	ui_keys o k Enter
	ui_wait 'got:ok'
	ui_wait 'exited 3|status 3|exit 3' 10
}

@test "i with nothing to type to (the command ended) says so in one line" {
	ui_start 100 30 -- -- true
	# the dashboard's own message that it knows the command ended
	ui_wait 'q quits and prints the summary'
	ui_keys i
	ui_wait 'no terminal to type to'
}

@test "a command printing steadily costs no look for a prompt: no scan of /proc per line of output" {
	# 20 lines/s: output is never quiet for the 300 ms after which the
	# dashboard looks whether the command waits for input (src/ptywait.c,
	# which may read every process's stat). A look per line (an earlier
	# bug: the quiet time wrapped around) read thousands of files a second.
	ui_start 100 30 -- --no-record -- sh -c 'i=0; while [ $i -lt 400 ]; do echo "line $i"; i=$((i+1)); sleep 0.05; done'
	ui_wait 'line 5'
	local pid r0 r1 procs
	pid=$(pgrep -x -P "$(ui_tmux display-message -p '#{pane_pid}')" spacetime)
	procs=$(ls /proc | grep -c '^[0-9]')
	# the sleeps are the measurement: a second for the start-up to pass,
	# then the reads of a 4 s window are counted
	sleep 1
	r0=$(awk '/^syscr/ {print $2}' "/proc/$pid/io")
	sleep 4
	r1=$(awk '/^syscr/ {print $2}' "/proc/$pid/io")
	# the collector reads a few files of each of its processes per tick
	# (about 100 reads/s here); 40 looks a second would be 40 x $procs
	echo "spacetime made $((r1 - r0)) read calls in 4 s ($procs processes on the machine)"
	[ $((r1 - r0)) -lt $((4 * 10 * procs)) ] || false
}

@test "config file: glyphs, the RSS line and the output pane as it says" {
	local cfg="$BATS_TEST_TMPDIR/cfg"
	mkdir -p "$cfg/spacetime"
	printf 'glyphs = ascii\nrss_line = off\noutput_pane = off\n' >"$cfg/spacetime/config"
	ui_start 100 30 XDG_CONFIG_HOME="$cfg" -- "$WL/fill" 40 3000
	ui_wait 'PSS (3[0-9]|4[0-9])(\.[0-9])? MiB'
	run -0 ui_cap
	# ASCII graphs (no Braille), no RSS line in the legend, no output pane
	! grep -q $'\u28ff' <<<"$output" || { ui_show; false; }
	grep -q '#' <<<"$output" || { ui_show; false; }
	! grep -q 'RSS [0-9]' <<<"$output" || { ui_show; false; }
	! grep -q '─ Output' <<<"$output" || { ui_show; false; }
	# the keys still toggle them
	ui_keys r
	ui_wait 'RSS [0-9]'
	ui_keys q y
}

@test "the memory graph scales to PSS: an RSS line far above it says off scale" {
	# 4 processes sharing 40 MiB: PSS about 40 MiB, the RSS sum about 160
	# (an estimate, '~', while a read is put off on a loaded machine, is as
	# good here)
	ui_start 100 30 -- "$WL/shmfork" 40 3 1 4000
	ui_wait 'PSS ~?(3[0-9]|4[0-9])(\.[0-9])? MiB'
	ui_wait 'RSS 1[0-9][0-9] MiB'
	ui_wait 'off scale'
	# the y axis is PSS's (under 100M), not the RSS line's (200M)
	run -0 ui_rows 3 3
	[[ "$output" =~ (50M|64M|80M|60M|40M|48M)┤ ]] || { ui_show; false; }
	ui_keys q y
}

@test "output the recording cannot keep (a full disk) is counted in the output's title; the failure is said" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount a small tmpfs"
	command -v sqlite3 >/dev/null || { echo "sqlite3 missing (make deps)" >&2; false; }
	local mnt="$BATS_TEST_TMPDIR/small" n kept
	mkdir -p "$mnt"
	mount -t tmpfs -o size=320k none "$mnt" || skip "cannot mount a tmpfs here"
	# 200,000 lines (1.3 MB) into a recording that has room for 320 KiB
	ui_start 100 30 -- --record "$mnt/r.db" -- sh -c 'seq 200000; sleep 4'
	ui_wait 'disk full.*the run goes on' || { umount "$mnt"; false; }
	ui_wait '200000 lines.*not in the recording' || { umount "$mnt"; false; }
	n=$(ui_cap | grep -Eo '200000 lines +[0-9]+ of them not in the recording' |
		grep -Eo '[0-9]+ of them' | grep -Eo '[0-9]+') || true
	ui_keys q y
	ui_wait '\[spacetime exited' || { umount "$mnt"; false; }
	kept=$(sqlite3 "$mnt/r.db" 'SELECT count(*) FROM output' 2>/dev/null) || kept=0
	umount "$mnt"
	[ -n "$n" ] || { ui_show; echo "no count of the lines not recorded" >&2; false; }
	# the truth: every line printed is in the recording or counted as not
	[ "$((n + kept))" -eq 200000 ] || { echo "$n not recorded + $kept kept != 200000" >&2; false; }
}
