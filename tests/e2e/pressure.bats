#!/usr/bin/env bats
# Pressure stalls (PSI): sampled each tick, in the summary, the JSON and the
# snapshot. Truth: shares of time, so each figure lies in 0..100; a machine
# without PSI is said so in one line (a recording says it, as such a
# machine's would: this one has PSI).

load helpers

setup() {
	st_require
	st_require_workloads fill
}

@test "pressure: where /proc/pressure exists, the run's stall shares and each row's are between 0 and 100" {
	[ -r /proc/pressure/memory ] || skip "this kernel has no PSI (/proc/pressure)"
	local dir="$BATS_TEST_TMPDIR/export"
	mkdir -p "$dir"
	stj --no-record --export "$dir" --export-format json,csv -- sh -c "\"$WL/fill\" 32 800; \"$WL/fill\" 16 400"
	assert_status 0
	assert_json_true '.pressure.source == "machine" or .pressure.source == "cgroup"'
	local k
	for k in memory_some_pct memory_full_pct memory_max_pct cpu_some_pct io_some_pct; do
		assert_json_true ".pressure.$k >= 0 and .pressure.$k <= 100"
	done
	assert_json_true '.pressure.memory_full_pct <= .pressure.memory_some_pct'
	[[ $stderr =~ pressure\ +memory\ stalled\ [0-9.]+%\ of\ the\ run ]] || st_fail "the summary lacks the pressure line"
	# every row of the snapshot past the first has its shares, 0..100
	local snap
	snap=$(ls "$dir"/*.json)
	jq -e '[.samples[1:][] | select(.psi_mem_pct != null)] | length > 3' "$snap" >/dev/null ||
		st_fail "the snapshot's rows lack pressure figures"
	jq -e '[.samples[] | .psi_cpu_pct, .psi_mem_pct, .psi_mem_full_pct, .psi_io_pct | select(. != null)] |
		all(. >= 0 and . <= 100)' "$snap" >/dev/null || st_fail "a row's pressure share is outside 0..100"
	head -1 "$dir"/*.csv | grep -q ',psi_cpu_pct,psi_mem_pct,psi_mem_full_pct,psi_io_pct$' ||
		st_fail "the CSV lacks the pressure columns"
}

@test "pressure: a run on a kernel without PSI says so in one line, and the JSON has null" {
	command -v sqlite3 >/dev/null || st_fail "sqlite3 missing (make deps)"
	local db="$BATS_TEST_TMPDIR/r.db"
	st -s -o /dev/null --record "$db" -- "$WL/fill" 8 200
	assert_status 0
	sqlite3 "$db" "INSERT OR REPLACE INTO run_summary VALUES (1, 'psi', 0)"
	st replay 1 --db "$db"
	assert_status 0
	[[ $output =~ pressure\ +n/a:\ this\ kernel\ gives\ no\ pressure-stall\ information ]] ||
		st_fail "the summary does not say PSI is missing"
	[ "$(grep -c 'pressure' <<<"$output")" -eq 1 ] || st_fail "PSI's absence said more than once"
	mkdir -p "$BATS_TEST_TMPDIR/x"
	st export 1 --db "$db" --format json -o "$BATS_TEST_TMPDIR/x"
	assert_status 0
	jq -e '[.. | objects | select(has("pressure")) | .pressure] | length > 0 and all(. == null)' \
		"$BATS_TEST_TMPDIR"/x/*.json >/dev/null || st_fail "the JSON's pressure is not null"
}
