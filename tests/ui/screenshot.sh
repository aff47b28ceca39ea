#!/usr/bin/env bash
# screenshot.sh: real captures of the dashboard for screenshots/ (make
# screenshots). Runs the real binary in tmux at 100x30 on a small build-like
# workload (parallel "compiler" processes of different sizes, coloured output,
# a threaded "link" step), and on a real compile (much of its PSS estimated),
# and saves at several moments:
#   NAME.txt   the text of capture-pane -p
#   NAME.ansi  the same with attributes (capture-pane -p -e)
#   NAME.svg   an image of it (tests/ui/ansi2svg.py, no dependency)
#   NAME.png   when rsvg-convert (librsvg2-bin) or ImageMagick is installed
# Environment: SPACETIME (binary), WORKLOADS (dir), OUT (default screenshots).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
SPACETIME=${SPACETIME:-$ROOT/spacetime}
WL=${WORKLOADS:-$ROOT/build/workloads}
OUT=${OUT:-$ROOT/screenshots}
RUN=0
SOCK="stshot$$-$RUN"
export LC_ALL=C.UTF-8
unset NO_COLOR
[ -x "$SPACETIME" ] || { echo "screenshot: no binary at $SPACETIME (make spacetime)" >&2; exit 1; }
[ -x "$WL/fill" ] && [ -x "$WL/threads" ] || { echo "screenshot: make workloads first" >&2; exit 1; }
command -v tmux >/dev/null || { echo "screenshot: tmux is needed (make deps)" >&2; exit 1; }
mkdir -p "$OUT"

# A small parallel build: 4 "compilers" at a time, each touching 8..47 MiB,
# run as "make -j4" (a script named make, first in PATH).
BIN=$(mktemp -d "${TMPDIR:-/tmp}/stshot.XXXXXX")
BUILD='#!/bin/sh
wl='"$WL"'
printf "\033[1mmake\033[0m: building 36 modules with %s jobs\n" "${JOBS:-4}"
i=0
while [ $i -lt 36 ]; do
	i=$((i+1))
	printf "\033[1;32m  CC\033[0m      src/module%02d.c\n" $i
	"$wl/fill" $((8 + (i * 13) % 40)) $((400 + (i * 97) % 700)) >/dev/null &
	[ $((i % ${JOBS:-4})) -eq 0 ] && wait
	sleep 0.15
done
wait
printf "\033[1;34m  LD\033[0m      app\n"
"$wl/threads" 12 800 >/dev/null
printf "\033[1;33mwarning:\033[0m 1 unused variable (module07.c:42)\n"
printf "make: \033[1mdone\033[0m\n"'

printf '%s\n' "$BUILD" >"$BIN/make"
chmod +x "$BIN/make"

# A real compile, two at a time: cc1 processes too short-lived to be read
# often, so much of the PSS series is an estimate (grey in the graph).
CC_ALL='#!/bin/sh
set -- '"$ROOT"'/src/*.c '"$ROOT"'/tests/workloads/*.c
while [ $# -gt 0 ]; do
	printf "\033[1;32m  CC\033[0m      %s\n" "${1##*/}"
	cc -std=gnu11 -O2 -g -D_GNU_SOURCE -I'"$ROOT"'/src -I'"$ROOT"'/build -c -o /dev/null "$1" &
	[ $# -gt 1 ] && { printf "\033[1;32m  CC\033[0m      %s\n" "${2##*/}"; cc -std=gnu11 -O2 -g -D_GNU_SOURCE -I'"$ROOT"'/src -I'"$ROOT"'/build -c -o /dev/null "$2" & }
	wait
	shift; [ $# -gt 0 ] && shift
done
printf "cc-all: \033[1mdone\033[0m\n"'
printf '%s\n' "$CC_ALL" >"$BIN/cc-all"
chmod +x "$BIN/cc-all"

tm() { tmux -L "$SOCK" "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; }
trap 'cleanup; rm -rf "$BIN"' EXIT

# wait_for REGEX [SECONDS]
wait_for() {
	local i=0
	while [ $i -lt $((${2:-30} * 10)) ]; do
		tm capture-pane -p | grep -Eq -- "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "screenshot: timed out waiting for /$1/" >&2
	tm capture-pane -p >&2
	return 1
}

# shot NAME TITLE: saves the screen as text, ANSI and SVG (and PNG).
shot() {
	local name=$1 title=$2 cols rows
	sleep 0.4 # one more frame
	cols=$(tm display -p '#{pane_width}')
	rows=$(tm display -p '#{pane_height}')
	tm capture-pane -p >"$OUT/$name.txt"
	tm capture-pane -p -e -N >"$OUT/$name.ansi"
	python3 "$ROOT/tests/ui/ansi2svg.py" "$OUT/$name.ansi" "$cols" "$rows" "$OUT/$name.svg" "$title"
	if command -v rsvg-convert >/dev/null; then
		rsvg-convert -o "$OUT/$name.png" "$OUT/$name.svg" || rm -f "$OUT/$name.png"
	elif convert -version 2>/dev/null | grep -q ImageMagick; then
		convert "$OUT/$name.svg" "$OUT/$name.png" 2>/dev/null || rm -f "$OUT/$name.png"
	fi
	echo "screenshot: $OUT/$name.{txt,ansi,svg} ($cols x $rows)"
}

# start COLS ROWS [VAR=value...] [-- COMMAND...]: spacetime runs COMMAND
# (default: make -j4) in a fresh tmux server.
start() {
	local cols=$1 rows=$2 envs=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		envs+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift
	[ $# -gt 0 ] || set -- make -j4
	# "@ ARGS": spacetime's own arguments (replay ...), not a command
	local sep=--
	if [ "$1" = @ ]; then
		shift
		sep=
	fi
	cleanup
	RUN=$((RUN + 1)) # a fresh server each time: no race with the old one exiting
	SOCK="stshot$$-$RUN"
	tm -f /dev/null new-session -d -x "$cols" -y "$rows" \
		env TERM=screen-256color PATH="$BIN:$PATH" TMPDIR="$BIN" XDG_STATE_HOME="$BIN/state" "${envs[@]}" \
		sh -c '"$@"; echo "[spacetime exited $?]"; exec sleep 3600' sh \
		"$SPACETIME" ${sep:+"$sep"} "$@"
}

start 100 30 LC_ALL=C.UTF-8
wait_for 'module14\.c'
wait_for '└─.*fill'
shot dashboard-running "spacetime -- make -j4 (running)"
tm resize-window -x 132 -y 34
wait_for 'Pressure'
shot dashboard-wide "132 columns: the pressure box (stalls for memory, CPU, I/O)"
tm resize-window -x 100 -y 30
tm send-keys Space + c '<' '<' ',' ',' ','
wait_for 'PAUSED'
shot dashboard-paused-cursor "paused, zoomed in, cursor readout"
tm send-keys c 0
wait_for 'finished, exit 0' 60
shot dashboard-finished "finished, exit 0"
tm send-keys f
wait_for 'Finished processes'
shot dashboard-finished-list "finished processes, heaviest first"
tm send-keys f '?'
wait_for 'spacetime help'
shot dashboard-help "help, generated from the key table"
tm send-keys x
tm resize-window -x 40 -y 12
sleep 0.5
shot dashboard-40x12 "the smallest size, 40x12"
tm resize-window -x 100 -y 30
tm send-keys q
wait_for '\[spacetime exited 0\]'
shot summary-after-quit "the summary printed after quitting"

# no colour, no UTF-8: attributes and ASCII only
start 100 30 LC_ALL=C NO_COLOR=1
wait_for 'module12\.c'
shot dashboard-ascii-nocolor "LC_ALL=C NO_COLOR=1"
tm send-keys q y

# a real compile: estimated stretches of the PSS series in grey
start 100 30 LC_ALL=C.UTF-8 -- cc-all
wait_for 'cc-all: .*done' 120
shot dashboard-estimated "cc, two at a time: estimated PSS in grey"
tm send-keys f
wait_for 'Finished processes'
shot dashboard-build-jobs "cc, two at a time: each compilation named by its file"
tm send-keys q

# a command that asks a question: the status bar says so; i answers it
start 100 30 LC_ALL=C.UTF-8 -- sh -c 'echo "Setting up the database..."; printf "Proceed? [y/N] "; read a; echo "answer: $a"; sleep 60'
wait_for 'waits for input'
shot dashboard-prompt "a command asking a question: the status bar says it waits"
tm send-keys i y
wait_for 'TYPING'
shot dashboard-typing "i: keys go to the command's terminal until Esc Esc"
tm send-keys Enter Escape Escape q y

# the make -j4 above, recorded (run 1), replayed with the cursor on its peak:
# the processes that made it up, with their PSS then, and the output so far
start 100 30 LC_ALL=C.UTF-8 -- @ replay 1 --at peak
wait_for 'Processes at'
shot replay-peak "spacetime replay 1 --at peak: the processes that made up the peak"
# \ filters the list (htop's key): the fills only, as a list
tm send-keys '\' f i l l Enter
wait_for 'filter: fill'
shot replay-filter "\\ fill: only the processes holding fill (/ searches, x folds a subtree)"
# m: the heaviest fill's memory map, as taken at the peak
tm send-keys m
wait_for 'at the peak: taken at'
shot replay-map "m in a replay: the heaviest process's memory map, taken at the peak"
tm send-keys m q

# the same build with 2 jobs (the last run), replayed against the make -j4
# (run 1): run 1's PSS as a ghost line, its peak marked
start 100 30 LC_ALL=C.UTF-8 JOBS=2 -- make -j2
wait_for 'finished, exit 0' 90
tm send-keys q
wait_for '\[spacetime exited 0\]'
start 100 30 LC_ALL=C.UTF-8 -- @ replay last --against 1
wait_for 'run 1 peak'
shot replay-against "spacetime replay last --against 1: make -j2, with make -j4 as a ghost line"
tm send-keys q
echo "screenshot: done"
