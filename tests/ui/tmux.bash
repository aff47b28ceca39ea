# tmux.bash: drive the real spacetime binary in a detached tmux server at a
# fixed size, send keys, read the screen with capture-pane (the way tmux's own
# regress/*.sh tests do). Needs no terminal and no stdin.
#
# SPACETIME=/path/to/spacetime overrides the binary, WORKLOADS=dir the
# workloads. Each test gets its own server (-L st<pid>-<test>), killed in
# ui_teardown, which also ends the run (SIGHUP reaches spacetime).

bats_require_minimum_version 1.5.0

ST_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
SPACETIME="${SPACETIME:-$ST_ROOT/spacetime}"
case "$SPACETIME" in /*) ;; *) SPACETIME="$PWD/$SPACETIME" ;; esac
WL="${WORKLOADS:-$ST_ROOT/build/workloads}"
UI_SOCK="st$$-${BATS_TEST_NUMBER:-0}"
UI_LOCALE="${UI_LOCALE:-C.UTF-8}"
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND NO_COLOR
# bash's own matching of Braille and U+FFFD in the tests needs a UTF-8 locale
export LC_ALL=C.UTF-8

# Under make check-san (tests/run-san.sh) every sanitizer report goes to a
# file in SAN_LOG_DIR; name it after this test, so the failure says which.
# (The options as run-san.sh set them are kept: a test inherits what the
# file's setup exported.)
if [ -n "${SAN_LOG_DIR:-}" ]; then
	export ST_SAN_ASAN="${ST_SAN_ASAN-${ASAN_OPTIONS:-}}" ST_SAN_UBSAN="${ST_SAN_UBSAN-${UBSAN_OPTIONS:-}}"
	st_san_tag="$(basename "$BATS_TEST_FILENAME" .bats).${BATS_TEST_NAME:-setup_file}"
	export ASAN_OPTIONS="${ST_SAN_ASAN//"$SAN_LOG_DIR/san."/"$SAN_LOG_DIR/$st_san_tag."}"
	export UBSAN_OPTIONS="${ST_SAN_UBSAN//"$SAN_LOG_DIR/san."/"$SAN_LOG_DIR/$st_san_tag."}"
fi

# ui_require: the binary, tmux and the workloads must exist.
ui_require() {
	command -v tmux >/dev/null || { echo "tmux is not installed (make deps)" >&2; return 1; }
	[ -x "$SPACETIME" ] || { echo "no spacetime binary at $SPACETIME (make spacetime)" >&2; return 1; }
	[ -x "$WL/fill" ] || { echo "no workloads in $WL (make workloads)" >&2; return 1; }
}

# ui_tmux ARGS...: tmux on this test's private server.
ui_tmux() {
	tmux -L "$UI_SOCK" "$@"
}

# ui_start COLS ROWS [VAR=value...] -- SPACETIME_ARGS...: runs spacetime in a
# new detached session. When spacetime ends, the pane prints
# "[spacetime exited N]" and stays. Extra VAR=value set the environment.
ui_start() {
	local cols=$1 rows=$2 envs=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		envs+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift
	# no config file of the developer's: an empty directory of the test's
	UI_CONFIG="${BATS_TEST_TMPDIR:-/tmp}/config"
	mkdir -p "$UI_CONFIG"
	ui_tmux kill-server 2>/dev/null || true
	# a second start in one test can reach the server still exiting ("server
	# exited unexpectedly"): try again a few times
	local try
	for try in 1 2 3 4 5; do
		ui_tmux -f /dev/null new-session -d -x "$cols" -y "$rows" \
			env LC_ALL="$UI_LOCALE" TERM=screen-256color TMPDIR="${BATS_TEST_TMPDIR:-/tmp}" \
			XDG_STATE_HOME="${XDG_STATE_HOME:-${BATS_FILE_TMPDIR:-/tmp}/state}" \
			XDG_CONFIG_HOME="$UI_CONFIG" "${envs[@]}" \
			sh -c '"$@"; echo "[spacetime exited $?]"; exec sleep 3600' sh "$SPACETIME" "$@" && break
		[ "$try" = 5 ] && return 1
		sleep 0.2
	done
	ui_tmux set-option -g history-limit 0 >/dev/null 2>&1 || true
}

# ui_cap: the screen as text, one line per row.
ui_cap() {
	ui_tmux capture-pane -p
}

# ui_cap_joined: the screen with lines the terminal wrapped joined again (for
# long paths printed after the dashboard ends).
ui_cap_joined() {
	ui_tmux capture-pane -p -J
}

# ui_cap_all: what the pane printed, its scrollback included, lines joined
# again (the summary after the dashboard: its figures come first and can
# scroll off a small screen).
ui_cap_all() {
	ui_tmux capture-pane -p -J -S -
}

# ui_cap_colour: the screen with attributes as escape sequences.
ui_cap_colour() {
	ui_tmux capture-pane -p -e
}

# ui_rows FIRST LAST: rows FIRST..LAST of the screen (1-based, inclusive).
ui_rows() {
	ui_cap | sed -n "$1,$2p"
}

# ui_keys KEY...: send-keys (tmux key names: Space, Left, C-c, q ...).
ui_keys() {
	ui_tmux send-keys "$@"
}

# ui_wait REGEX [SECONDS]: waits until the screen matches an extended regex;
# fails with the last screen shown.
ui_wait() {
	ui_poll 1 "$@"
}

# ui_wait_gone REGEX [SECONDS]: waits until the screen no longer matches.
ui_wait_gone() {
	ui_poll 0 "$@"
}

# ui_poll WANT REGEX [SECONDS]: reads the screen every 0.1 s until whether it
# matches REGEX is WANT (1 or 0); fails with the last screen shown.
ui_poll() {
	local want=$1 re=$2 limit=${3:-15} i=0 n got
	n=$(awk -v l="$limit" 'BEGIN { printf "%d", l * 10 }')
	while [ "$i" -lt "$n" ]; do
		got=0
		ui_cap | grep -Eq -- "$re" && got=1
		[ "$got" = "$want" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "timed out after ${limit}s waiting for /$re/$([ "$want" = 1 ] || echo " to go"); the screen:" >&2
	ui_cap | sed 's/^/  |/' >&2
	return 1
}

# ui_until SECONDS WHAT CMD [ARGS...]: runs CMD every 0.1 s until it succeeds,
# for at most SECONDS of wall time (CMD is tried once more at the deadline, so
# a slow capture cannot use up the time unchecked). On timeout says what it
# waited for (WHAT), shows the screen and fails. For what a single regex
# cannot say: rows that changed, a file written, a value that moved.
ui_until() {
	local limit=$1 what=$2 end
	shift 2
	end=$(awk -v now="$EPOCHREALTIME" -v l="$limit" 'BEGIN { printf "%.6f", now + l }')
	while :; do
		"$@" && return 0
		awk -v now="$EPOCHREALTIME" -v end="$end" 'BEGIN { exit !(now < end) }' || break
		sleep 0.1
	done
	"$@" && return 0
	printf 'timed out after %ss waiting for %s\nthe screen:\n' "$limit" "$what" >&2
	ui_cap | sed 's/^/  |/' >&2
	return 1
}

# ui_rows_differ FIRST LAST TEXT: rows FIRST..LAST are not TEXT (a predicate
# for ui_until: the view changed).
ui_rows_differ() {
	[ "$(ui_rows "$1" "$2")" != "$3" ]
}

# ui_rows_are FIRST LAST TEXT: rows FIRST..LAST are TEXT (a predicate for
# ui_until: the view came back).
ui_rows_are() {
	[ "$(ui_rows "$1" "$2")" = "$3" ]
}

# ui_rows_match FIRST LAST REGEX: rows FIRST..LAST match the extended regex
# (a predicate for ui_until, for a regex that must hold on given rows).
ui_rows_match() {
	ui_rows "$1" "$2" | grep -Eq -- "$3"
}

# ui_wait_change FIRST LAST TEXT [SECONDS]: waits until rows FIRST..LAST are
# no longer TEXT; fails with the screen shown.
ui_wait_change() {
	ui_until "${4:-15}" "rows $1-$2 to change from:
$(sed 's/^/  >/' <<<"$3")" ui_rows_differ "$1" "$2" "$3"
}

# ui_wait_rows FIRST LAST TEXT [SECONDS]: waits until rows FIRST..LAST are
# TEXT; fails with the screen shown.
ui_wait_rows() {
	ui_until "${4:-15}" "rows $1-$2 to be:
$(sed 's/^/  >/' <<<"$3")" ui_rows_are "$1" "$2" "$3"
}

# ui_pid: the pid of the spacetime process in the pane.
ui_pid() {
	local pane
	pane=$(ui_tmux display-message -p '#{pane_pid}')
	pgrep -P "$pane" | head -1
}

# ui_resize COLS ROWS
ui_resize() {
	ui_tmux resize-window -x "$1" -y "$2"
}

# ui_show: prints the screen (for failure messages).
ui_show() {
	echo "--- screen ---"
	ui_cap | sed 's/^/  |/'
}

ui_teardown() {
	ui_tmux kill-server 2>/dev/null || true
}

# ui_elapsed: the elapsed-time field of the header ("12.3s", "1:05").
ui_elapsed() {
	ui_rows 1 1 | grep -Eo '[0-9]+(\.[0-9]s|:[0-9]{2}(:[0-9]{2})?)  (running|finished|stopping)' | awk '{print $1}'
}

# ui_elapsed_s: the header's elapsed time in seconds ("12.3s": 12.3, "1:05":
# 65); nothing when the header shows none.
ui_elapsed_s() {
	ui_elapsed | awk -F: '/s$/ { sub(/s$/, ""); print $0 + 0; exit }
		{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s; exit }'
}

# ui_elapsed_past SECONDS: the header's elapsed time is SECONDS or more (a
# predicate for ui_until: the dashboard redrew after that much of the run).
ui_elapsed_past() {
	local e
	e=$(ui_elapsed_s)
	[ -n "$e" ] && awk -v e="$e" -v s="$1" 'BEGIN { exit !(e >= s) }'
}

# ui_width_ok COLS: every row fits in COLS display columns.
ui_width_ok() {
	local cols=$1
	ui_cap | while IFS= read -r line; do
		local w
		w=$(printf '%s' "$line" | LC_ALL=C.UTF-8 wc -m)
		if [ "$w" -gt "$cols" ]; then
			echo "row wider than $cols: $line" >&2
			return 1
		fi
	done
}

# has_braille: stdin holds a Braille pattern (U+2801..U+28FF).
has_braille() {
	grep -qP '[\x{2801}-\x{28FF}]'
}
