#!/usr/bin/env bats
# Time lost waiting (delay accounting, from taskstats exit records): shown
# only where the kernel counts it, else one line says how to turn it on.
# spacetime never changes a system setting: the test does (as root), and
# puts it back. Truth: four processes each burning 1 s of CPU at once on a
# machine of N cores wait, together, about (4 - N) s for a CPU; a process
# reading a cold file without readahead waits for block I/O.

load helpers
source "$BATS_TEST_DIRNAME/../disk.bash"

setup() {
	st_require
	st_require_workloads burn mapkinds
	[ "$(id -u)" -eq 0 ] || skip "taskstats and kernel.task_delayacct need root"
	[ -w /proc/sys/kernel/task_delayacct ] || skip "this kernel has no delay accounting switch"
	DELAYACCT=$(cat /proc/sys/kernel/task_delayacct)
}

teardown() {
	[ -z "${DELAYACCT:-}" ] || echo "$DELAYACCT" >/proc/sys/kernel/task_delayacct
	st_disk_cleanup
}

@test "waiting: with delay accounting off, one line says how to turn it on, and the JSON has null" {
	echo 0 >/proc/sys/kernel/task_delayacct
	stj --no-record -- "$WL/burn" 1 50 1
	assert_status 0
	assert_json .waiting = null
	[[ $stderr =~ time\ waiting\ +n/a:.*kernel\.task_delayacct=1 ]] || st_fail "the summary does not say how to turn it on"
	[ "$(cat /proc/sys/kernel/task_delayacct)" = 0 ] || st_fail "spacetime changed the setting"
}

@test "waiting: with it on, CPU-bound processes beyond the cores wait for a CPU; a cold read waits for block I/O" {
	local n f
	f=$(st_disk_file cold.dat) || skip "no directory on a disk here (a file on a tmpfs is never cold)"
	n=$(nproc)
	head -c $((8 << 20)) /dev/urandom >"$f"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/kernel/task_delayacct
	stj --no-record -- sh -c "for i in 1 2 3 4; do \"$WL/burn\" 1 1000 1 & done; wait; \"$WL/mapkinds\" 0 0 \"$f\" 0 10"
	assert_status 0
	# 4 s of CPU on n cores: (4 - n) s waited at least half of it (the scheduler shares unevenly)
	assert_json_true ".waiting.cpu_us >= ((4 - $n) * 1000000 / 2)"
	assert_json_true ".waiting.blkio_us > 0"
	[[ $stderr =~ time\ waiting\ +for\ a\ CPU\ [0-9.]+\ s,\ block\ I/O ]] || st_fail "the summary lacks the time waited"
}

@test "waiting per process: the burners' own waits for a CPU, in the exported processes" {
	echo 1 >/proc/sys/kernel/task_delayacct
	local n dir="$BATS_TEST_TMPDIR/x"
	n=$(nproc)
	mkdir -p "$dir"
	st -s -o /dev/null --no-record --export "$dir" --export-format json -- \
		sh -c "for i in 1 2 3 4; do \"$WL/burn\" 1 1000 1 & done; wait"
	assert_status 0
	local snap
	snap=$(ls "$dir"/*.json)
	# each burner's child burned 1 s among 4 on n cores: their waits add up
	# to at least half of (4 - n) s, and none is null (it was counted)
	jq -e --argjson n "$n" '[.processes[] | select(.comm == "burn") | .wait_cpu_us] |
		all(. != null) and (add >= ((4 - $n) * 1000000 / 2))' "$snap" >/dev/null ||
		st_fail "the burners' own waits are missing or too small"
	jq -e '[.processes[] | .wait_io_us] | all(. != null)' "$snap" >/dev/null || st_fail "a process's I/O wait is null"
}
