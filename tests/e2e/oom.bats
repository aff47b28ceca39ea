#!/usr/bin/env bats
# The kernel's OOM killer: counted from its own counter (/proc/vmstat
# oom_kill) and the process it killed named, in the summary and the JSON.
# Truth: a workload asking for 200 MiB in a memory cgroup limited to 64 MiB
# is killed by the kernel (SIGKILL), and nothing else in the tree is.

load helpers

setup() {
	st_require
	st_require_workloads fill
	CG=""
}

teardown() {
	[ -z "$CG" ] || rmdir "$CG" 2>/dev/null || true
}

# make_cgroup: a memory cgroup limited to 64 MiB (v2 memory.max, else v1
# memory.limit_in_bytes) in $CG, its procs file in $CG_PROCS; 1 when none can be.
make_cgroup() {
	local v2=/sys/fs/cgroup v1=/sys/fs/cgroup/memory name="spacetime-oom-$$-$BATS_TEST_NUMBER"
	if [ -w "$v2/cgroup.subtree_control" ] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
		CG="$v2/$name"
		mkdir "$CG" && echo $((64 << 20)) >"$CG/memory.max" && echo 0 >"$CG/memory.swap.max" 2>/dev/null
	elif [ -d "$v1" ] && [ -w "$v1" ]; then
		CG="$v1/$name"
		mkdir "$CG" && echo $((64 << 20)) >"$CG/memory.limit_in_bytes"
	else
		return 1
	fi
	CG_PROCS="$CG/cgroup.procs"
}

@test "oom: a job the kernel kills for memory is counted and named, in the summary and the JSON" {
	[ "$(id -u)" -eq 0 ] || skip "making a memory cgroup needs root"
	make_cgroup || skip "no memory cgroup controller to limit a job with"
	stj --no-record -- sh -c "\"$WL/fill\" 4 300; sh -c 'echo \$\$ >\"$CG_PROCS\"; exec \"$WL/fill\" 200 500'; exit 0"
	assert_status 0
	assert_json_true '.oom_kills >= 1'
	assert_json '.oom_killed | length' -eq 1
	assert_json '.oom_killed[0].comm' = fill
	assert_json '.oom_killed[0].job' = "fill 200 500"
	[[ $stderr =~ OOM\ kills\ +[0-9]+\ during\ the\ run.*of\ the\ command\'s:\ fill\ 200\ 500\ \(pid\ [0-9]+\) ]] ||
		st_fail "the summary does not name the job the OOM killer killed"
}

@test "oom: a job killed by SIGKILL from a person, with no OOM kill, is not called the OOM killer's" {
	stj --no-record -- sh -c "\"$WL/fill\" 4 5000 & p=\$!; sleep 0.5; kill -KILL \$p; wait; exit 0"
	assert_status 0
	assert_json '.oom_killed | length' -eq 0
	[[ $stderr != *"of the command's:"* ]] || st_fail "a SIGKILL named as an OOM kill"
}
