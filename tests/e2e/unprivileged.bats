#!/usr/bin/env bats
# The unprivileged path. As root the suite drops to nobody with
#   setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
# (as another user it runs as that user). The binary and workloads are always
# run from a world-readable copy in a temp dir: the repository path need not be
# traversable by nobody, and a copy carries no file capabilities.
#
# Which mode an unprivileged spacetime gets depends on the kernel: before
# Linux 6.6 the proc connector needs CAP_NET_ADMIN, so it must poll; since 6.6
# unprivileged users may listen. The nlprobe workload, run as the same user,
# is the truth for the default mode. The polling path itself is always tested
# through --no-netlink.

load helpers

GIB=1073741824

setup_file() {
	ST_UNPRIV_DIR=$(st_world_dir) || ST_UNPRIV_DIR=""
	export ST_UNPRIV_DIR
}

teardown_file() {
	if [ -n "${ST_UNPRIV_DIR:-}" ] && [ -d "$ST_UNPRIV_DIR" ]; then
		rm -rf "$ST_UNPRIV_DIR"
	fi
}

setup() {
	st_require
	st_as_nobody "${ST_UNPRIV_DIR:-}"
}

@test "unprivileged: the command runs unprivileged (sanity check of the setup)" {
	stj -- "$WL/showcreds"
	assert_status 0
	if st_is_root; then
		assert_creds "$output" uid $ST_NOBODY
	fi
	assert_creds "$output" CapEff 0000000000000000
}

# What the kernel grants this user: "netlink" or "poll" (see nlprobe.c).
probe_mode() {
	"${ST_WRAP[@]}" "$WL/nlprobe" 2>/dev/null
}

@test "unprivileged: the default mode is what the kernel grants (nlprobe)" {
	st_cached fill1024 -- "$WL/fill" 1024
	assert_status 0
	local want
	want=$(probe_mode)
	[[ $want == netlink || $want == poll ]] || st_fail "nlprobe printed '$want'"
	assert_json .mode = "$want"
}

@test "unprivileged: fill 1024: one process, peak PSS within 3% of 1 GiB" {
	st_cached fill1024 -- "$WL/fill" 1024
	assert_status 0
	assert_json .exit_status -eq 0
	assert_json .processes -eq 1
	assert_json_within .peak_pss_bytes $GIB 3
}

@test "unprivileged: the text summary has processes and peak PSS" {
	st_cached fill1024 -- "$WL/fill" 1024
	summary_has "$stderr" processes
	summary_has "$stderr" "peak PSS"
}

@test "unprivileged: no taskstats, and the summary says in a note what that leaves out" {
	st_cached fill1024 -- "$WL/fill" 1024
	assert_json .taskstats = false
	if [ "$(probe_mode)" = netlink ]; then
		printf '%s\n' "$stderr" | grep -q '^  note .*taskstats.*CAP_NET_ADMIN' ||
			st_fail "no note about taskstats in: $stderr"
	fi
}

@test "unprivileged poll: fill 1024 --no-netlink: mode poll, one process, within 3% of 1 GiB" {
	st_cached poll1024 --no-netlink -- "$WL/fill" 1024
	assert_status 0
	assert_json .mode = poll
	assert_json .processes -eq 1
	assert_json_within .peak_pss_bytes $GIB 3
}

# assert_poll_notice REASON: stderr holds the polling notice (ui/main.c) on
# exactly one line, the summary's "note" line, whole: REASON, the interval,
# and what polling misses. The summary's own "collection  polling /proc" line
# does not count.
assert_poll_notice() {
	local lines ival
	lines=$(printf '%s\n' "$stderr" | grep -F 'the tree was polled from /proc' || true)
	assert_one_line "$lines" "stderr lines holding the polling notice" || return 1
	ival=$(jv .interval_ms)
	[[ $lines =~ ^\ \ note\ +$1:\ the\ tree\ was\ polled\ from\ /proc\ every\ $ival\ ms,\ so\ processes\ that\ lived\ shorter\ were\ missed\ and\ counts\ are\ lower\ bounds$ ]] ||
		st_fail "the polling notice is not one whole note line: '$lines'"
}

@test "unprivileged poll: a one-line notice on stderr says what polling leaves out" {
	st_cached poll1024 --no-netlink -- "$WL/fill" 1024
	assert_json .mode = poll
	assert_poll_notice --no-netlink
}

@test "unprivileged poll: the notice says what is missed (short-lived processes, lower bounds)" {
	st_cached poll1024 --no-netlink -- "$WL/fill" 1024
	printf '%s\n' "$stderr" | grep '^  note ' | grep -F 'polled' | grep -F 'shorter were missed' |
		grep -qF 'counts are lower bounds' ||
		st_fail "no note line on stderr says polling misses short-lived processes"
}

@test "unprivileged: in poll mode by default, the notice is there too" {
	st_cached fill1024 -- "$WL/fill" 1024
	[ "$(jv .mode)" = poll ] || skip "the kernel lets this user follow the tree over netlink"
	assert_poll_notice '.*'
}

# Polling samples /proc/PID/task every interval, so it may miss short-lived
# threads: the thread count is exact (9) only in netlink mode and is checked
# as a lower bound (>= 1) in poll mode.
@test "unprivileged: threads 8: 1 process; 9 threads if netlink, >= 1 if poll" {
	stj -- "$WL/threads" 8
	assert_status 0
	assert_json .processes -eq 1
	if [ "$(jv .mode)" = netlink ]; then
		assert_json .threads -eq 9
	else
		assert_json .threads -ge 1
	fi
}

@test "unprivileged poll: threads 8 --no-netlink: 1 process, >= 1 thread (lower bound)" {
	stj --no-netlink -- "$WL/threads" 8
	assert_status 0
	assert_json .mode = poll
	assert_json .processes -eq 1
	assert_json .threads -ge 1
}

@test "unprivileged: exitwith 0 exits 0" {
	stj -- "$WL/exitwith" 0
	assert_status 0
	assert_json .exit_status -eq 0
}

@test "unprivileged: exitwith 3 exits 3" {
	stj -- "$WL/exitwith" 3
	assert_status 3
	assert_json .exit_status -eq 3
	assert_json .signal = null
}

@test "unprivileged: killself 9 exits 137, JSON signal 9" {
	stj -- "$WL/killself" 9
	assert_status 137
	assert_json .signal -eq 9
}

@test "unprivileged: killself 15 exits 143, JSON signal 15" {
	stj -- "$WL/killself" 15
	assert_status 143
	assert_json .signal -eq 15
}

@test "unprivileged: missing command exits 127 with one line on stderr" {
	local name="no-such-command-$$"
	ST_WRAP=(env PATH=/usr/local/bin:/usr/bin:/bin "${ST_WRAP[@]}")
	st -- "$name"
	assert_status 127
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"$name"* ]] || st_fail "stderr does not name '$name'"
}

# A shell says "command not found" (127) here too: a PATH directory the user
# cannot search does not make a missing command "not executable".
@test "unprivileged: missing command exits 127 even when a PATH directory is not searchable" {
	st_is_root || skip "needs root to make a directory nobody cannot search"
	local locked="$ST_UNPRIV_DIR/locked"
	mkdir -p "$locked" && chmod 700 "$locked"
	local name="no-such-command-$$"
	ST_WRAP=(env PATH="$locked:/usr/local/bin:/usr/bin:/bin" "${ST_WRAP[@]}")
	st -- "$name"
	assert_status 127
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"$name"* ]] || st_fail "stderr does not name '$name'"
}

@test "unprivileged: non-executable file exits 126" {
	local f="$ST_UNPRIV_DIR/out/not-executable"
	printf '#!/bin/sh\nexit 0\n' >"$f"
	chmod 644 "$f"
	st -- "$f"
	assert_status 126
}
