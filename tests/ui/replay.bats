#!/usr/bin/env bats
# Replay: a run recorded from the dashboard, opened again in the dashboard
# with `spacetime replay last --at peak`. Truth: the workload's three fill
# processes hold 24 MiB each together (the peak), its output says "before"
# before them and "after" once they are gone. At the peak the process list
# shows the processes alive then with their PSS then, and the output pane the
# lines printed up to then; moved to the end, the cursor shows "after".

load tmux

setup() {
	ui_require
	[ -x "$WL/fill" ] || { echo "no $WL/fill (make workloads)" >&2; return 1; }
	command -v sqlite3 >/dev/null || { echo "sqlite3 missing (make deps)" >&2; return 1; }
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	GO="$BATS_TEST_TMPDIR/go"
}

teardown() {
	[ -z "${REC_PID:-}" ] || kill -KILL "$REC_PID" 2>/dev/null || true
	# a recorded command still waiting to be let go (it outlives spacetime -s)
	[ ! -p "$GO" ] || timeout 2 sh -c 'echo go >"$1"' sh "$GO" 2>/dev/null || true
	ui_teardown
}

# being_recorded: the default recording holds a run still being recorded
# (its row written by the recorder, its end not yet): then `replay last`
# opens it and follows it.
being_recorded() {
	local db="$XDG_STATE_HOME/spacetime/runs.db" n
	[ -s "$db" ] || return 1
	n=$(sqlite3 -cmd '.timeout 2000' "$db" "SELECT count(*) FROM runs WHERE end_state = 'running'" 2>/dev/null)
	[ "${n:-0}" -ge 1 ]
}

# let_go: the recorded command, blocked reading the fifo $GO, goes on.
let_go() {
	timeout 10 sh -c 'echo go >"$1"' sh "$GO" || { echo "the recorded command does not read $GO" >&2; ui_show; return 1; }
}

@test "replay: at the peak, the processes that made it up with their PSS then, and the output up to then" {
	ui_start 100 30 -- -- sh -c "echo before; for i in 1 2 3; do \"$WL/fill\" 24 2500 & done; wait; echo after"
	ui_wait 'finished, exit 0'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	ui_start 100 34 -- replay last --at peak
	ui_wait 'Processes at [0-9.]+ s: 4 alive'
	local screen rows n=0 v
	screen=$(ui_cap)
	[[ $screen == *"replay of run 1"* ]] || { ui_show; false; }
	# the three fills, each at 24 MiB within 3%
	rows=$(grep -E '[├└]─fill 24 2500' <<<"$screen")
	while read -r v; do
		awk -v v="$v" 'BEGIN { exit !(v >= 23.3 && v <= 24.7) }' || { ui_show; echo "PSS $v MiB, expected 24" >&2; false; }
		n=$((n + 1))
	done < <(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "MiB") { print $i; break } }' <<<"$rows")
	[ "$n" -eq 3 ] || { ui_show; echo "$n fill rows with a PSS, expected 3" >&2; false; }
	# the output printed up to the peak
	[[ $screen == *before* ]] || { ui_show; echo "the output pane lacks 'before'" >&2; false; }
	[[ $screen != *after* ]] || { ui_show; echo "the output pane shows 'after' at the peak" >&2; false; }
	# the cursor far right, past the fills' end: they are gone, "after" shows
	ui_keys '>' '>' '>' '>' '>' '>' '>' '>' '>' '>'
	ui_wait 'Processes at [0-9.]+ s: [01] alive'
	ui_wait 'after'
	# P: back on the peak
	ui_keys P
	ui_wait 'Processes at [0-9.]+ s: 4 alive'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

@test "replay: a run still being recorded by another spacetime is followed live until it ends" {
	# the command waits for the test (a fifo) before it starts the fill
	mkfifo "$GO"
	"$SPACETIME" -s -o /dev/null -- sh -c "read x <\"$GO\"; \"$WL/fill\" 16 5000; exit 3" </dev/null >/dev/null 2>&1 &
	REC_PID=$!
	# replay last opens the newest run: once the recorder has written it
	ui_until 15 "the recording spacetime to write its run" being_recorded
	ui_start 100 34 -- replay last
	ui_wait 'still being recorded: followed live'
	ui_wait 'running'
	ui_wait 'Processes at [0-9.]+ s: 1 alive'
	# the fill, started now that the replay is open, shows up with its 16 MiB
	let_go
	ui_wait 'Processes at [0-9.]+ s: 2 alive'
	ui_wait '[└├]─fill 16 5000'
	ui_wait '1[56]\.[0-9] MiB .*fill 16 5000'
	# the recording ends: so does the following, with the command's status
	ui_wait 'finished, exit 3'
	local st=0
	wait "$REC_PID" || st=$?
	REC_PID=
	[ "$st" -eq 3 ] || { echo "the recording spacetime exited $st, not 3" >&2; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

@test "replay: q leaves a replay followed live at once, asking nothing, signalling nothing" {
	# the command ends when the test lets it (a fifo), not after a time
	mkfifo "$GO"
	"$SPACETIME" -s -o /dev/null -- sh -c "\"$WL/fill\" 8 300; read x <\"$GO\"; exit 5" </dev/null >/dev/null 2>&1 &
	REC_PID=$!
	ui_until 15 "the recording spacetime to write its run" being_recorded
	ui_start 100 34 -- replay last
	ui_wait 'still being recorded: followed live'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	# the recorded command was not touched: it ends with its own status
	kill -0 "$REC_PID" || { echo "the recording spacetime is gone already" >&2; false; }
	let_go
	local st=0
	wait "$REC_PID" || st=$?
	REC_PID=
	[ "$st" -eq 5 ] || { echo "the recorded run exited $st, not 5" >&2; false; }
}

# A recording is untrusted (a file passed around), its command line and
# output included: here both hold a CSI as UTF-8 (c2 9b) and as a raw byte
# (9b), each followed by "1m", an ESC [31m, and a UTF-8 sequence cut short
# (e4 b8). Replayed, the header and the process list (p: full command lines)
# show each of those as U+FFFD (textsafe's rule) and the rest as text: the
# "1m" and "[31m" still on the screen show that no sequence started. The
# output pane applies the real ESC [31m (a colour) and shows the others as
# U+FFFD. No C0 or C1 control is on the screen.
@test "replay: C1 controls, ESC and cut UTF-8 of a recorded command line and output show as U+FFFD" {
	local db="$BATS_TEST_TMPDIR/c1.db" arg
	arg=$(printf 'a\302\2331mb\2331mc\033[31md\344\270x')
	ui_start 100 30 -- --record "$db" -- sh -c 'printf "%s\n" "$1"; sleep 1' sh "$arg"
	ui_wait 'finished, exit 0'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	ui_start 100 30 -- replay --db "$db" --at 0.5
	ui_wait 'Processes at [0-9.]+ s: 2 alive'
	run -0 ui_rows 1 1
	[[ $output == *"sh a�1mb�1mc�[31md�x "* ]] || { ui_show; echo "the header does not show the argument as a�1mb�1mc�[31md�x" >&2; false; }
	ui_wait 'a�1mb�1mcd�x'
	ui_keys p
	ui_wait ' sh -c printf .* sh a�1mb�1mc�\[31md�x'
	if ui_cap | grep -qP '[\x{0}-\x{8}\x{b}-\x{1f}\x{7f}-\x{9f}]'; then
		ui_show
		echo "a control character is on the screen" >&2
		false
	fi
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

# replay --against: run 1 held 40 MiB for 1.5 s, run 2 10 MiB from 0.4 to 0.7 s.
# Replaying run 2 against run 1 draws run 1's PSS as a ghost line ('=' in
# ASCII) at about 40 MiB, above run 2's stack and on past its end to 1.5 s,
# its peak marked 'o' in the graph's top row and named in the legend; the
# SVG export draws it dashed with its peak.
@test "replay --against: the other run's PSS as a ghost line over this one's, past its end, its peak marked; the SVG too" {
	local db="$BATS_TEST_TMPDIR/g.db"
	"$SPACETIME" -s -o /dev/null --record "$db" -- "$WL/fill" 40 1500
	# its peak late (after 0.4 s), so that the two marks are in columns apart
	"$SPACETIME" -s -o /dev/null --record "$db" -- sh -c 'sleep 0.4; exec "$0" 10 300' "$WL/fill"
	ui_start 100 30 LC_ALL=C -- replay --db "$db" last --against 1
	ui_wait '=run 1 peak [0-9.]+ MiB'
	local screen peak
	screen=$(ui_cap)
	peak=$(grep -oE '=run 1 peak [0-9.]+ MiB' <<<"$screen" | awk '{ print $4 }')
	awk -v v="$peak" 'BEGIN { exit !(v >= 39 && v <= 42) }' || { ui_show; echo "the ghost's peak $peak MiB, expected 40" >&2; false; }
	# at the run's end the CPU box's rate is over half an interval at least:
	# never more cores than the machine has (a last sample a few ms after
	# the one before read 7.49 cores once)
	local cores
	cores=$(grep -oE '[0-9.]+ cores?:' <<<"$screen" | awk '{ print $1 }')
	[ -n "$cores" ] && awk -v v="$cores" -v n="$(nproc)" 'BEGIN { exit !(v <= n) }' ||
		{ ui_show; echo "CPU $cores cores at the end, on $(nproc)" >&2; false; }
	# the graph: rows 4 to 9 (the y axis's '|' then the columns)
	local graph end1 end2
	graph=$(sed -n '4,9p' <<<"$screen" | sed 's/^[^|+]*[|+]//')
	# the runs' lengths as recorded (a loaded machine stretches run 2's)
	end1=$(sqlite3 "$db" "SELECT value FROM run_summary WHERE run_id = 1 AND key = 'end_ns'")
	end2=$(sqlite3 "$db" "SELECT value FROM run_summary WHERE run_id = 2 AND key = 'end_ns'")
	python3 - "$graph" "$end1" "$end2" <<'PY' || { ui_show; false; }
import sys
rows = sys.argv[1].split("\n")
top = rows[0]
assert "o" in top, "no ghost peak mark in the top row: %r" % top
# the ghost's level row: the row holding most '='; above every stack cell
counts = [r.count("=") for r in rows]
g = counts.index(max(counts))
assert counts[g] >= 40, "no ghost line: %r" % rows
stack_rows = [i for i, r in enumerate(rows) if "#" in r]
assert stack_rows and g < min(stack_rows) - 1, "ghost row %d not above the stack %r" % (g, stack_rows)
# 40 MiB on a 50 MiB axis of 6 rows: the ghost in the upper half
assert g <= 2, "ghost row %d for 40 of 50 MiB" % g
# past run 2's end: the ghost's last column beyond the stack's
last_stack = max(max(i for i, c in enumerate(r) if c == "#") for r in rows if "#" in r)
last_ghost = max(i for i, c in enumerate(rows[g]) if c == "=")
# where each run ends on the time axis: in the ratio of their lengths
ratio = int(sys.argv[2]) / int(sys.argv[3])
assert ratio > 1.3, "run 1 %s ns, run 2 %s ns" % (sys.argv[2], sys.argv[3])
assert last_ghost > last_stack + 5 and abs(last_ghost / last_stack - ratio) <= 0.15 * ratio, \
    "ghost ends at %d, the stack at %d, the runs' lengths %.2f to 1" % (last_ghost, last_stack, ratio)
PY
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	mkdir "$BATS_TEST_TMPDIR/svg"
	run "$SPACETIME" export --db "$db" last --against 1 --format svg -o "$BATS_TEST_TMPDIR/svg"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	local svg
	svg=$(cat "$BATS_TEST_TMPDIR"/svg/*.svg)
	# the ghost's own line: black and dashed (the threads' line is dashed too, in its colour)
	[[ $svg == *'<polyline fill="none" stroke="#000000" stroke-width="1.5" stroke-dasharray="5 3"'* ]] ||
		{ echo "no dashed ghost line in the SVG" >&2; false; }
	[[ $svg =~ dashed:\ run\ 1,\ its\ peak\ (4[01]\.[0-9]+)\ MiB ]] || { grep dashed <<<"$svg"; echo "no ghost legend with its 40 MiB peak" >&2; false; }
	run "$SPACETIME" replay --db "$db" last --against 7
	[ "$status" -eq 1 ] && [[ $output == *"no run 7"* ]] || { echo "$output"; false; }
}

@test "replay: the cursor on an estimate whose range is half its value or more reads 'not measured yet', not a figure" {
	local db="$BATS_TEST_TMPDIR/r.db" vague="$BATS_TEST_TMPDIR/vague.db" screen
	"$SPACETIME" -s -o /dev/null --record "$db" -- "$WL/fill" 24 2500 </dev/null >/dev/null 2>&1
	# the same run, its samples made estimates as wide as their value
	cp "$db" "$vague"
	sqlite3 "$vague" 'UPDATE samples SET pss_est_kib = pss_kib WHERE valid & 1'
	# as recorded: a figure at 1 s, the fill's 24 MiB
	ui_start 100 30 -- replay last --at 1 --db "$db"
	ui_wait '^─ at 1\.0s +PSS ~?2[3-5]\.[0-9] MiB'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	# a range of a quarter of the value says something: the figure and its range
	cp "$db" "$BATS_TEST_TMPDIR/quarter.db"
	sqlite3 "$BATS_TEST_TMPDIR/quarter.db" 'UPDATE samples SET pss_est_kib = pss_kib / 4 WHERE valid & 1'
	ui_start 100 30 -- replay last --at 1 --db "$BATS_TEST_TMPDIR/quarter.db"
	ui_wait '^─ at 1\.0s +PSS ~2[3-5]\.[0-9] MiB (±|\+-)[56]\.[0-9]+ MiB'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	ui_start 100 30 -- replay last --at 1 --db "$vague"
	ui_wait '^─ at 1\.0s +PSS not measured yet'
	screen=$(ui_cap)
	# no figure nor range beside it, none of its parts
	! grep -E '^─ at 1\.0s.*(MiB|KiB).*(±|\+-)|anon [0-9]' <<<"$screen" || { ui_show; false; }
	! grep -E '^─ at 1\.0s +PSS not measured yet +[0-9~]' <<<"$screen" || { ui_show; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

@test "replay: a run whose tree swapped says so in the header" {
	local db="$BATS_TEST_TMPDIR/r.db"
	"$SPACETIME" -s -o /dev/null --record "$db" -- "$WL/fill" 8 300 </dev/null >/dev/null 2>&1
	ui_start 100 30 -- replay last --db "$db"
	ui_wait 'finished, exit 0'
	! ui_cap | grep -q 'swapped' || { ui_show; echo "a run that did not swap says swapped" >&2; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	# as a swapping run's recording would say (this machine has no swap)
	sqlite3 "$db" "INSERT OR REPLACE INTO run_summary VALUES (1, 'max_swap_kib', 3072), (1, 'kinds_known', 1)"
	ui_start 100 30 -- replay last --db "$db"
	ui_wait ' swapped 3\.00 MiB '
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

@test "replay: tasks stalled on memory show in the pressure box (wide) and the Faults title (narrower)" {
	local db="$BATS_TEST_TMPDIR/r.db"
	"$SPACETIME" -s -o /dev/null --record "$db" -- "$WL/fill" 8 1500 </dev/null >/dev/null 2>&1
	# as a machine short of memory would record it (this one is not): 20% of
	# each interval some task stalled, 5% all of them
	sqlite3 "$db" "UPDATE samples SET psi_mem_pm = 200, psi_mem_full_pm = 50, valid = valid | 64"
	ui_start 130 34 -- replay last --at 1 --db "$db"
	ui_wait '─ Pressure'
	ui_wait 'memory 20\.0%, all 5\.0%'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	ui_start 100 30 -- replay last --at 1 --db "$db"
	ui_wait 'memory stalled 20%'
	! ui_cap | grep -q '─ Pressure' || { ui_show; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}
