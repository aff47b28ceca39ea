#!/usr/bin/env bats
# The kinds of the tree's memory over time: swapped out, transparent huge
# pages, locked (mlock), file vs anonymous. Truth: the mapkinds workload's
# arguments (LOCK_MIB locked, HUGE_MIB in huge pages, FILE_MIB of a file read).

load helpers
source "$BATS_TEST_DIRNAME/../disk.bash"

KIB=1024

setup() {
	st_require
	st_require_workloads mapkinds
}

teardown() {
	st_disk_cleanup
}

@test "kinds: 64 MiB locked, 64 MiB of huge pages, a 32 MiB file: the JSON, the summary and the CSV within 3%" {
	[ "$(id -u)" -eq 0 ] || skip "mlock of 64 MiB needs root (the default memlock limit is 8 MiB)"
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		skip "transparent huge pages are off here (never)"
	local dir="$BATS_TEST_TMPDIR/export"
	mkdir -p "$dir"
	stj --no-record --export "$dir" --export-format csv -- "$WL/mapkinds" 64 64 "$BATS_TEST_TMPDIR/f.dat" 32 1500
	assert_status 0
	assert_json_range .max_locked_kib $((64 * KIB * 97 / 100)) $((64 * KIB * 103 / 100))
	# the huge pages the kernel gave (it may give none): the workload says
	local huge
	huge=$(grep -oE 'huge: [0-9]+ kB' <<<"$output" | grep -oE '[0-9]+')
	[ -n "$huge" ] || st_fail "the workload did not say its huge pages"
	assert_json_range .max_thp_kib $((huge * 97 / 100)) $((huge * 103 / 100))
	assert_json .max_swap_kib -eq 0
	assert_json .max_swap_us = null
	# the file's pages are file-backed PSS at the peak (shmem where the test's
	# directory is a tmpfs), the rest anonymous
	assert_json_range '.peak_pss_file_bytes + .peak_pss_shmem_bytes' $((32 * 1048576 * 97 / 100)) $((33 * 1048576 * 103 / 100))
	assert_json_range .peak_pss_anon_bytes $((128 * 1048576 * 97 / 100)) $((130 * 1048576 * 103 / 100))
	[ "$huge" -eq 0 ] || [[ $stderr =~ huge\ pages\ +[0-9.]+\ MiB\ at\ most ]] || st_fail "the summary lacks the huge pages"
	[[ $stderr =~ locked\ +6[2-5]\.[0-9]\ MiB\ at\ most ]] || st_fail "the summary lacks the locked memory"
	[[ $stderr =~ swapped\ out\ +none ]] || st_fail "the summary does not say nothing was swapped out"
	# the CSV's columns, and a row with them
	local csv
	csv=$(ls "$dir"/*.csv)
	head -1 "$csv" | grep -q ',swap_kib,thp_kib,locked_kib,' || st_fail "the CSV lacks the kinds' columns"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "locked_kib") c = i; next }
		c && $c >= 64 * 1024 * 0.97 && $c <= 64 * 1024 * 1.03 { ok = 1 } END { exit !ok }' "$csv" ||
		st_fail "no CSV row with 64 MiB locked"
}

@test "kinds: nothing locked nor in huge pages: 0, and the summary leaves them out" {
	stj --no-record -- "$WL/mapkinds" 0 0 - 0 300
	assert_status 0
	assert_json .max_locked_kib -eq 0
	assert_json .max_thp_kib -eq 0
	[[ $stderr != *"huge pages"* && $stderr != *"locked  "* ]] || st_fail "the summary names kinds that were none"
	[[ $stderr =~ swapped\ out\ +none ]] || st_fail "the summary does not say nothing was swapped out"
}

# A run that swapped (this machine has no swap: its recording says so, as a
# swapping run's would): the summary read back says how much and when.
@test "kinds: a run whose tree swapped 2 MiB out says so in the summary and the JSON" {
	command -v sqlite3 >/dev/null || st_fail "sqlite3 missing (make deps)"
	local db="$BATS_TEST_TMPDIR/r.db"
	st -s -o /dev/null --record "$db" -- "$WL/mapkinds" 0 0 - 0 300
	assert_status 0
	sqlite3 "$db" "INSERT OR REPLACE INTO run_summary VALUES (1, 'max_swap_kib', 2048), (1, 'kinds_known', 1),
		(1, 'max_swap_t_ns', 200000000)"
	st replay 1 --db "$db"
	assert_status 0
	[[ $output =~ swapped\ out\ +2\.00\ MiB\ at\ most,\ at\ 0\.200\ s ]] || st_fail "the summary does not say the swap"
	mkdir -p "$BATS_TEST_TMPDIR/x"
	st export 1 --db "$db" --format json -o "$BATS_TEST_TMPDIR/x"
	assert_status 0
	JSON=$(ls "$BATS_TEST_TMPDIR"/x/*.json)
	jq -e '.. | objects | select(has("max_swap_kib")) | .max_swap_kib == 2048' "$JSON" >/dev/null ||
		st_fail "the exported JSON lacks max_swap_kib 2048"
}

# Major faults: pages read from disk. Truth: a process that maps a 16 MiB file
# the page cache does not hold (dropped) and reads every page without
# readahead takes one major fault a page (4,096); one that maps nothing none.
@test "major faults: the process that read a cold file is named first, in the summary and the JSON" {
	[ "$(id -u)" -eq 0 ] || skip "dropping the page cache needs root"
	local f
	f=$(st_disk_file cold.dat) || skip "no directory on a disk here (a file on a tmpfs is never cold)"
	head -c $((16 << 20)) /dev/urandom >"$f"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	stj --no-record -- sh -c "\"$WL/mapkinds\" 0 0 - 0 100; \"$WL/mapkinds\" 0 0 \"$f\" 0 100"
	assert_status 0
	assert_json_true '.top_jobs_by_major_faults | length >= 1'
	assert_json_true '.top_jobs_by_major_faults[0].job | startswith("mapkinds")'
	assert_json_range '.top_jobs_by_major_faults[0].majflt' $((4096 * 90 / 100)) $((4096 * 110 / 100))
	assert_json_true '[.top_jobs_by_major_faults[] | select(.job == "mapkinds 0 0 0")] | length == 0'
	[[ $stderr =~ heaviest\ jobs\ by\ major\ faults.*$'\n'\ +[0-9]+\ +mapkinds ]] ||
		st_fail "the summary does not name the process with major faults"
}

# Memory-seconds (runner sizing): each program's processes' PSS over their
# lives, summed. Truth: two fills holding 20 MiB for 1 s each: 40 MiB·s.
@test "memory-seconds: two fills of 20 MiB held 1 s make 40 MiB-seconds within 15% (20 each), in the JSON and the summary" {
	stj --no-record -- sh -c "\"$WL/fill\" 20 1000; \"$WL/fill\" 20 1000"
	assert_status 0
	assert_json_true '[.programs[] | select(.name == "fill")] | length == 1'
	assert_json_true '(.programs[] | select(.name == "fill") | .processes) == 2'
	assert_json_true '(.programs[] | select(.name == "fill") | .pss_mib_s) as $v | $v >= 40 * 0.85 and $v <= 40 * 1.15'
	# and each job's: 20 MiB-seconds
	assert_json_true '[.top_jobs_by_peak_pss[] | select(.job == "fill 20 1000") | .pss_mib_s] |
		length == 2 and all(. >= 20 * 0.85 and . <= 20 * 1.15)'
	[[ $stderr =~ programs\ by\ memory-seconds.*$'\n'\ +[0-9.]+\ MiB(·|\*)s\ +fill\ +\(2\ processes ]] ||
		st_fail "the summary lacks fill's memory-seconds"
}

# Short lives unprivileged: no taskstats record tells a process's high-water
# mark, so a process that lived less than an interval is marked as not
# measured (null), never a 0 nor a high-water mark it does not have.
@test "short lives, unprivileged: each short process is short_lived, and what was not measured is null, not 0" {
	local d
	d=$(st_world_dir) || st_fail "cannot make a world-readable directory"
	st_as_nobody "$d" || st_fail "cannot run as nobody"
	mkdir -p "$d/out/x" && chmod 1777 "$d/out/x"
	st -s -o /dev/null --no-record --export "$d/out/x" --export-format json -- \
		sh -c "for i in 1 2 3 4 5 6; do \"$WL/fill\" 8 0; done"
	assert_status 0
	local snap
	snap=$(ls "$d"/out/x/*.json)
	jq -e '[.processes[] | select(.comm == "fill")] | length == 6 and all(.short_lived)' "$snap" >/dev/null ||
		st_fail "the fills are not all short_lived"
	# no taskstats: no figure says 0 where nothing was read
	jq -e '[.processes[] | select(.comm == "fill") | .peak_pss_kib] | all(. == null or . > 0)' "$snap" >/dev/null ||
		st_fail "a fill's unmeasured peak PSS reads 0"
	jq -e '[.processes[] | select(.comm == "fill") | select(.peak_pss_kib == null)] | length >= 1' "$snap" >/dev/null ||
		st_fail "every fill was read: nothing here is unmeasured"
	rm -rf "$d"
}
