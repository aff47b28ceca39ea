#!/usr/bin/env bats
# Processes the command leaves behind. spacetime is the tree's subreaper:
# orphans stay in the tree (followed, counted, reaped). By default the run
# ends with the command and the summary lists what outlived it; --wait-tree
# waits for the whole tree. Truth: the workloads' arguments (fill MIB HOLD_MS
# touches MIB MiB), the processes the shell line starts, the exit status it
# asks for.

load helpers

MIB=1048576

setup() {
	st_require
	st_require_workloads fill
	ORPHAN_PIDS=()
}

teardown() {
	local p
	for p in "${ORPHAN_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null || true
	done
}

# A background job of 300 MiB that outlives `sh -c '... & exit 3'`.
@test "orphans: by default the run ends with the command, which exits 3; the summary lists the job still running" {
	stj -- sh -c "exec 1>&- 2>&-; \"$WL/fill\" 300 4000 & sleep 0.5; exit 3"
	assert_status 3
	assert_json .exit_status -eq 3
	assert_json '.outlived | length' -eq 1
	assert_json '.outlived[0].comm' = fill
	assert_json '.outlived[0].end_us' = null
	assert_json_true '.command_end_us >= 500000 and .command_end_us < 3000000'
	local pid
	pid=$(jv '.outlived[0].pid')
	ORPHAN_PIDS+=("$pid")
	# it goes on without spacetime
	kill -0 "$pid" || st_fail "the job $pid did not outlive spacetime"
	[[ $(cat "/proc/$pid/comm") == fill ]] || st_fail "pid $pid is not the job"
	[[ $stderr == *"outlived        1 process outlived the command"* ]] || st_fail "the summary does not list it"
	[[ $stderr == *" $pid "*"fill 300 4000"* ]] || st_fail "the summary does not name the job"
}

wait_tree_run() {
	local mode=$1
	local opt=()
	[ "$mode" = poll ] && opt=(--no-netlink)
	stj --wait-tree "${opt[@]}" -- sh -c "\"$WL/fill\" 300 800 & exit 3"
	assert_status 3
	assert_json .exit_status -eq 3
	[ "$mode" = poll ] && assert_json .mode = poll
	# the job allocates after the command has gone: its 300 MiB is in the peak
	assert_json_true .peak_pss_sum_of_reads
	assert_json_range .peak_pss_bytes $((300 * MIB * 97 / 100)) $((302 * MIB * 103 / 100))
	assert_json .orphans_reaped -eq 1
	assert_json '.outlived | length' -eq 1
	assert_json_true '.outlived[0].end_us > .command_end_us and .wall_us * 1 >= .outlived[0].end_us'
	assert_json_true '.outlived[0].end_us - .outlived[0].start_us >= 800000'
	# its CPU, which the command's wait4 cannot see, is in the totals
	assert_json_true '.user_us + .sys_us >= 20000'
	if [ "$mode" = netlink ]; then
		assert_json .processes -eq 2
	fi
}

@test "orphans --wait-tree netlink: the job's 300 MiB, made after the command exited 3, is the peak; it was reaped" {
	wait_tree_run netlink
}

@test "orphans --wait-tree poll: the same, following the tree by polling /proc" {
	wait_tree_run poll
}

@test "orphans --wait-tree: no zombie is left while the tree runs on; exit status 0 kept" {
	local out="$BATS_TEST_TMPDIR/run" st_pid i zombies=""
	JSON="$BATS_TEST_TMPDIR/z.json"
	"$ST_BIN" -s --wait-tree --json "$JSON" -- sh -c 'sleep 0.2 & sleep 0.3 & sleep 2.5 & exit 0' \
		</dev/null >"$out.stdout" 2>"$out.stderr" &
	st_pid=$!
	sleep 1.2
	# the two short sleeps have ended: no child of spacetime may be a zombie
	zombies=$(ps -o pid=,stat=,comm= --ppid "$st_pid" | awk '$2 ~ /^Z/')
	wait "$st_pid" || status=$?
	status=${status:-0}
	[ -z "$zombies" ] || st_fail "zombies left under spacetime: $zombies"
	assert_status 0
	assert_json .orphans_reaped -eq 3
	assert_json '.outlived | length' -eq 3
	assert_json_true '.wall_us >= 2500000'
}

@test "orphans: the man page and --help describe --wait-tree" {
	st --help
	[[ $output == *"--wait-tree"* ]] || st_fail "--help has no --wait-tree"
	grep -q 'wait\\-tree' "$ST_ROOT/contrib/spacetime.1" || st_fail "the man page has no --wait-tree"
}

@test "orphans: children that all end before the command did not outlive it, polled or not" {
	st_require_workloads mapfile
	# 4 children map a file, hold it, and end; then the parent does
	stj -- "$WL/mapfile" "$BATS_TEST_TMPDIR/m" 50 4
	assert_status 0
	assert_json .processes -eq 5
	assert_json '.outlived | length' -eq 0
	assert_json .orphans_reaped -eq 0
	# polling sees an end up to a tick late: still not after the command's
	stj --no-netlink -- "$WL/mapfile" "$BATS_TEST_TMPDIR/m" 50 4
	assert_status 0
	assert_json '.outlived | length' -eq 0
}

# A job started as the command exits, between two samples (one a minute):
# never read, its peak PSS is unknown, not 0.
@test "orphans: a job that outlived the command before any sample read it: peak PSS n/a, null in the JSON" {
	stj -i 60000 -- sh -c 'exec 1>&- 2>&-; sleep 0.5; sleep 30 & exit 0'
	assert_status 0
	assert_json '.outlived | length' -eq 1
	ORPHAN_PIDS+=("$(jv '.outlived[0].pid')")
	assert_json '.outlived[0].peak_pss_kib' = null
	[[ $stderr =~ peak\ PSS\ n/a\ +running ]] || st_fail "the summary does not say n/a for the job never read"
	[[ $stderr != *"peak PSS 0 B"* ]] || st_fail "the summary says 0 B for a figure never measured"
}
