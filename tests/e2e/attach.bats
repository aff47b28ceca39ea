#!/usr/bin/env bats
# spacetime -p PID: attaching to a tree started outside spacetime.
#
# The attachfill workload is the truth (see tests/workloads/attachfill.c): it
# forks PRE children, opens the fifo GO and waits for a byte on it, then forks
# N more; every child fills MIB MiB, they hold it together, and the workload
# exits with a status of the test's choosing. Synchronization is by fifos,
# never by sleeping: the test's open of GO for writing returns once the
# workload (and its PRE children) are there; spacetime's line "attached to
# pid ..." on stderr says the scan is done and events are followed; the byte
# on GO releases the workload.

load helpers

MIB=1048576

setup() {
	st_require
	st_require_workloads attachfill
	AT_DIR="$BATS_TEST_TMPDIR"
	AT_WRAP=()
}

teardown() {
	# a failing test must not leave its workload waiting on its fifo
	if [ -n "${AT_WL_PID:-}" ] && kill -0 "$AT_WL_PID" 2>/dev/null; then
		kill -KILL "$AT_WL_PID" 2>/dev/null || true
	fi
	if [ -n "${AT_ST_PID:-}" ] && kill -0 "$AT_ST_PID" 2>/dev/null; then
		kill -KILL "$AT_ST_PID" 2>/dev/null || true
	fi
	exec 7>&- 8<&- 2>/dev/null || true
	[ -z "${AT_RM:-}" ] || rm -rf "$AT_RM"
}

# wl_start WORKLOAD ARGS...: starts WORKLOAD (through AT_WRAP) in the
# background with the fifo $AT_DIR/go as its first argument, outside
# spacetime, and waits until it has opened the fifo (fd 7 is its writing end).
wl_start() {
	local w=$1
	shift
	rm -f "$AT_DIR/go"
	mkfifo -m 666 "$AT_DIR/go"
	"${AT_WRAP[@]}" "$WL/$w" "$AT_DIR/go" "$@" &
	AT_WL_PID=$!
	AT_PID=$AT_WL_PID # kept after the wait
	exec 7>"$AT_DIR/go"
}

# wl_release: lets the workload go on (one byte on its fifo).
wl_release() {
	printf 'x\n' >&7
	exec 7>&-
}

# wl_wait: waits for the workload; sets wl_status.
wl_wait() {
	wl_status=0
	wait "$AT_WL_PID" || wl_status=$?
	AT_WL_PID=""
}

# st_attach ARGS...: starts spacetime -s -o SUMMARY --json JSON ARGS (through
# AT_WRAP) in the background and waits for its "attached" line.
st_attach() {
	JSON="$AT_DIR/t.json"
	AT_SUM="$AT_DIR/summary.txt"
	rm -f "$JSON" "$AT_SUM" "$AT_DIR/err"
	mkfifo -m 666 "$AT_DIR/err"
	ST_CMD=("${AT_WRAP[@]}" "$ST_BIN" -s -o "$AT_SUM" --json "$JSON" "$@")
	# not holding the fifo's writing end: the workload sees its end
	timeout -k 10 "$ST_TIMEOUT" "${ST_CMD[@]}" </dev/null >"$AT_DIR/out" 2>"$AT_DIR/err" 7>&- &
	AT_ST_PID=$!
	exec 8<"$AT_DIR/err"
	local line
	AT_LINE=""
	while IFS= read -r -t "$ST_TIMEOUT" line <&8; do
		AT_LINE+="$line"$'\n'
		case $line in *"attached to pid"*) return 0 ;; esac
	done
	st_fail "spacetime did not attach: ${AT_LINE:-no line}"
}

# st_end: waits for spacetime; sets status, output and stderr for st_dump.
st_end() {
	status=0
	wait "$AT_ST_PID" || status=$?
	AT_ST_PID=""
	output=$(cat "$AT_DIR/out")
	stderr="$AT_LINE$(cat <&8)"$'\n'"--- summary:"$'\n'"$(cat "$AT_SUM" 2>/dev/null)"
	exec 8<&-
}

# assert_wl_status N: the workload ended on its own with status N.
assert_wl_status() {
	[ "$wl_status" -eq "$1" ] || st_fail "workload exit status: expected $1, got $wl_status"
}

@test "attach: children forked after the attach are counted and their memory measured" {
	wl_start attachfill 4 48 0 800 7
	st_attach -p "$AT_WL_PID"
	wl_release
	st_end
	wl_wait
	assert_status 0
	assert_wl_status 7
	# the workload and its 4 children, all created while attached
	assert_json .processes = 5
	assert_json .finished = true
	assert_json .detached = false
	assert_json '.attached_pids | join(",")' = "$AT_PID"
	assert_json '.command[0] | endswith("/attachfill")' = true
	assert_json_within .peak_pss_bytes $((4 * 48 * MIB)) 3
	assert_json .exit_status = null
	assert_json .rusage_source = attached
}

@test "attach: descendants already running are found by the scan, new ones by events" {
	# 3 children before the attach, 2 after
	wl_start attachfill 2 40 3 800 5
	st_attach -p "$AT_WL_PID"
	wl_release
	st_end
	wl_wait
	assert_status 0
	assert_wl_status 5
	assert_json .processes = 6
	assert_json_within .peak_pss_bytes $((5 * 40 * MIB)) 3
	grep -q 'pid '"$AT_PID"' and its descendants' "$AT_SUM" || st_fail "no attached line in the summary"
	grep -q 'status          ended' "$AT_SUM" || st_fail "the summary does not say the tree ended"
}

@test "attach: a fork storm while attached is counted exactly" {
	st_is_root || skip "exact counts need netlink (CAP_NET_ADMIN)"
	# sh waits for the release, then becomes storm: 3000 children of 4
	# spawners; the one process (sh, then storm) was there at the attach
	wl_start_storm() {
		rm -f "$AT_DIR/go"
		mkfifo -m 666 "$AT_DIR/go"
		sh -c 'read x <"$1"; exec "$2" 3000 4' sh "$AT_DIR/go" "$WL/storm" &
		AT_WL_PID=$!
		exec 7>"$AT_DIR/go"
	}
	wl_start_storm
	st_attach -p "$AT_WL_PID"
	wl_release
	st_end
	wl_wait
	assert_status 0
	assert_wl_status 0
	assert_json .mode = netlink
	assert_json .processes = 3005
	assert_json .lost_events = 0
	assert_json .execs_count = 1
}

@test "attach: the same process named twice, or also a descendant, is counted once" {
	wl_start attachfill 1 8 2 300 0
	local kids
	kids=$(cat /proc/"$AT_WL_PID"/task/*/children)
	set -- $kids
	[ $# -eq 2 ] || st_fail "expected 2 children of the workload, got '$kids'"
	st_attach -p "$AT_WL_PID,$1" --pid "$AT_WL_PID"
	wl_release
	st_end
	wl_wait
	assert_status 0
	assert_wl_status 0
	assert_json .processes = 4
	assert_json '.attached_pids | length' = 2
}

@test "attach: unprivileged, polling /proc, as uid 65534" {
	local d
	d=$(st_world_dir) || st_fail "cannot make a world-readable directory"
	ST_BIN="$d/spacetime"
	WL="$d/workloads"
	AT_DIR="$d/out"
	if st_is_root; then
		AT_WRAP=("${ST_SETPRIV[@]}")
	fi
	wl_start attachfill 3 32 1 1500 9
	st_attach --no-netlink -p "$AT_WL_PID"
	wl_release
	st_end
	wl_wait
	AT_RM=$d
	assert_status 0
	assert_wl_status 9
	assert_json .mode = poll
	assert_json .processes = 5
	assert_json_within .peak_pss_bytes $((4 * 32 * MIB)) 3
	assert_json .taskstats = false
}

@test "attach: a pid that does not exist is one line and exit status 2" {
	local pid
	sh -c 'exit 0' &
	pid=$!
	wait "$pid"
	[ ! -e "/proc/$pid" ] || skip "pid $pid was reused at once"
	st -s -p "$pid"
	assert_status 2
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"no process with pid $pid"* ]] || st_fail "unexpected message"
}

@test "attach: -p with a command is a usage error" {
	st -s -p 1 -- true
	assert_status 2
	assert_one_line "$stderr" "stderr"
	st -s -p 0
	assert_status 2
	assert_one_line "$stderr" "stderr"
}

@test "attach: another user's process (pid 1, root's) as uid 65534 is one line and exit status 1" {
	st_is_root || [ "$(stat -c %u /proc/1)" != "$(id -u)" ] || skip "pid 1 is this user's"
	local d
	d=$(st_world_dir) || st_fail "cannot make a world-readable directory"
	ST_BIN="$d/spacetime"
	if st_is_root; then
		ST_WRAP=("${ST_SETPRIV[@]}")
	fi
	st -s -p 1
	AT_RM=$d
	assert_status 1
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"cannot attach to pid 1"*"ptrace"* ]] || st_fail "unexpected message"
}

@test "attach: SIGINT to spacetime -s detaches, prints the summary so far, the workload is unharmed" {
	wl_start attachfill 0 16 2 300 6
	st_attach -p "$AT_WL_PID"
	kill -INT "$AT_ST_PID"
	# (timeout passes it on to spacetime)
	st_end
	kill -0 "$AT_WL_PID" || st_fail "the workload did not survive the detach"
	wl_release
	wl_wait
	assert_status 0
	assert_wl_status 6
	assert_json .detached = true
	assert_json .finished = false
	assert_json .processes = 3
	grep -q 'detached: 3 processes still running' "$AT_SUM" || st_fail "the summary does not say detached"
}

@test "attach: CPU used while attached is counted, and marked partial" {
	# 2 children each burn 600 ms of CPU after the release
	wl_start attachfill 2 4 0 100 0 600
	st_attach -p "$AT_WL_PID"
	wl_release
	st_end
	wl_wait
	assert_status 0
	assert_wl_status 0
	local cpu
	cpu=$(jq '.user_us + .sys_us' "$JSON")
	[ "$cpu" -ge 1100000 ] || st_fail "user+sys ${cpu} us, expected >= 1.1 s (2 x 600 ms burnt)"
	assert_json_range .user_us 800000 4000000
	assert_json .rusage_figures.user_us = partial
	assert_json .rusage_figures.sys_us = partial
	assert_json .rusage_figures.nvcsw = unknown
	assert_json .nvcsw = null
	# a number (the workload's parent had run before the attach), not null
	[ "$(jq -r '.cpu_before_attach_us | type' "$JSON")" = number ] || st_fail "cpu_before_attach_us is not a number"
	grep -q 'user .*partial: since the attach' "$AT_SUM" || st_fail "the summary does not mark user CPU partial"
}

@test "attach: an ancestor of spacetime (its tree would hold spacetime, never ending) is refused" {
	# this test's shell runs spacetime: attached to it, spacetime would wait
	# for its own end
	st -s -p "$$"
	assert_status 2
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"ancestor of spacetime"* ]] || st_fail "unexpected message"
}
