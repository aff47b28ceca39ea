#!/usr/bin/env bash
# bench_tui.sh: what the dashboard's redraw costs (issue: under 2% of one core
# at 10 frames/s on a 100x30 terminal over a 1-hour run).
#
# 1. build/bench/bench_tui: the real tui_run() on a 100x30 pty, its store
#    pre-filled with one hour of history (36000 samples, 20000 finished
#    processes), a real command writing 20 lines/s through its pty, a real
#    collector. Measures the UI thread's CPU time; whole-run view, then zoomed.
# 2. The real binary in tmux at 100x30 for a short make-like run: the UI
#    (main) thread's CPU time from /proc/PID/task/PID/stat.
#
# Runs 1 at 10 frames/s and at the default rate. Prints the figures; the last
# line is "bench_tui: UI thread N% of one core at 10 frames/s (target < 2%)".
# BENCH_TUI_SECONDS sets each phase's length (default 10).
# Exits non-zero only when a bench could not run.
set -u
cd "$(dirname "$0")/../.." || exit 2
B=${B:-build}
SPACETIME=${SPACETIME:-./spacetime}
secs=${BENCH_TUI_SECONDS:-10}

make -s "$B/bench/bench_tui" >/dev/null || { echo "bench_tui: cannot build $B/bench/bench_tui" >&2; exit 1; }
# at 10 frames/s (the rate the dashboard issue sets its target at), then at
# the dashboard's default rate
out=$(BENCH_TUI_FPS=10 "$B/bench/bench_tui" </dev/null) || { echo "$out"; echo "bench_tui: the benchmark failed" >&2; exit 1; }
echo "$out"
pct=$(awk '/^tui_cpu_percent/ {print $2}' <<<"$out")
out=$("$B/bench/bench_tui" </dev/null) || { echo "$out"; echo "bench_tui: the benchmark failed" >&2; exit 1; }
echo "$out"
pct_def=$(awk '/^tui_cpu_percent/ {print $2}' <<<"$out")

# the real binary, end to end
if command -v tmux >/dev/null && [ -x "$SPACETIME" ] && [ -x "$B/workloads/fill" ]; then
	sock="stbench$$"
	tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
		env LC_ALL=C.UTF-8 TERM=screen-256color "$SPACETIME" -- sh -c \
		'i=0; while :; do i=$((i+1)); echo "CC module$i.c"; "$0" 16 150 >/dev/null & sleep 0.05; done' \
		"$PWD/$B/workloads/fill"
	sleep 2
	pid=$(tmux -L "$sock" display-message -p '#{pane_pid}')
	hz=$(getconf CLK_TCK)
	ticks() { awk '{print $14 + $15}' "/proc/$pid/task/$pid/stat" 2>/dev/null; }
	t0=$(ticks)
	s0=$(date +%s.%N)
	sleep "$secs"
	t1=$(ticks)
	s1=$(date +%s.%N)
	tmux -L "$sock" kill-server 2>/dev/null
	if [ -n "$t0" ] && [ -n "$t1" ]; then
		awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" -v hz="$hz" 'BEGIN {
			printf "bench_tui: real binary, 100x30, make-like run (%.0f s): UI thread %.2f%% of one core\n",
				e - s, 100 * (b - a) / hz / (e - s) }'
	fi
else
	echo "bench_tui: (real-binary run skipped: needs tmux, $SPACETIME and make workloads)"
fi
echo "bench_tui: UI thread ${pct_def}% of one core at the default frame rate, 100x30, 1 h of history"
echo "bench_tui: UI thread ${pct}% of one core at 10 frames/s, 100x30, 1 h of history (target < 2%)"
