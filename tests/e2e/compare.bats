#!/usr/bin/env bats
# spacetime compare: two recorded runs side by side. Truth: the workload runs
# a fill of 250 MiB beside a fill whose size comes from $FILL_MIB (one command
# line both times): 20 MiB the first time, 120 MiB the second. The tree's
# peak grows from about 270 to 370 MiB (+37%), the second fill's job by 100
# MiB; the first fill's does not change.

load helpers

setup() {
	st_require
	DB="$BATS_TEST_TMPDIR/runs.db"
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
}

record() {
	FILL_MIB=$1 "$SPACETIME" -s -o /dev/null --record "$DB" -- \
		sh -c '"$0" 250 1200 & sleep 0.3; "$0" env 600; wait' "$WL/fill"
}

@test "compare: the job that allocates 100 MiB more comes first with +100 MiB; the totals and the gate say it" {
	record 20
	record 120
	run "$SPACETIME" compare --db "$DB" 1 2
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# the first job row: the fill of env size, +100 MiB within 3%
	local first
	first=$(awk '/^ *change +A +B +job/ { getline; print; exit }' <<<"$output")
	[[ $first == *"fill env 600"* ]] || { echo "$output"; echo "first job row: $first" >&2; false; }
	local mib
	mib=$(awk '{ sub(/^\+/, "", $1); print $1; exit }' <<<"$first")
	[[ $first == *MiB* ]] && awk -v v="$mib" 'BEGIN { exit !(v >= 97 && v <= 103) }' ||
		{ echo "$output"; echo "the change is $mib MiB, expected +100" >&2; false; }
	# the other fill matched and unchanged within 3%
	grep -qE 'fill 250 1200' <<<"$output" || { echo "$output"; false; }
	grep -qE '^jobs: [0-9]+ matched, 0 in A only, 0 in B only' <<<"$output" || { echo "$output"; false; }
	# the totals: peak PSS grew by about 100 MiB (the change: the first
	# field with a sign, in MiB)
	local peak
	peak=$(awk '$1 == "peak_pss" { for (i = 2; i < NF; i++) if ($i ~ /^\+/ && $(i + 1) == "MiB") { sub(/^\+/, "", $i); print $i; exit } }' <<<"$output")
	awk -v v="$peak" 'BEGIN { exit !(v >= 97 && v <= 103) }' || { echo "$output"; echo "peak_pss change '$peak' MiB, expected +100" >&2; false; }
	# the gate: +37% is past 5%, not past 50%
	run "$SPACETIME" compare --db "$DB" 1 2 --fail-above peak_pss=5%
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	[[ $output == *"gate: peak_pss grew"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare --db "$DB" 1 2 --fail-above peak_pss=50%,wall=200%
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# last and last~1 name the same runs; a file names its last run
	run "$SPACETIME" compare --db "$DB" last~1 last
	[ "$status" -eq 0 ] && [[ $output == *"A = run 1"*"B = run 2"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare "$DB:1" "$DB"
	[ "$status" -eq 0 ] && [[ $output == *"A = run 1"*"B = run 2"* ]] || { echo "$output"; false; }
}

@test "compare: a run that does not exist, a bad gate, one run: one line and exit status 2" {
	record 20
	run "$SPACETIME" compare --db "$DB" 1 7
	[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] && [[ $output == *"no run 7"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare --db "$DB" 1 1 --fail-above peak=5%
	[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] && [[ $output == *"--fail-above"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare --db "$DB" 1
	[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] || { echo "$output"; false; }
	run "$SPACETIME" compare /nonexistent/x.db 1
	[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] || { echo "$output"; false; }
	# the same run twice: nothing changed, the gate passes
	run "$SPACETIME" compare --db "$DB" 1 1 --fail-above peak_pss=0%
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}
