#!/usr/bin/env bash
# run-fuzz.sh: runs libFuzzer targets built by `make fuzz-build`, each for a
# fixed time on a fresh working corpus seeded from tests/fuzz/seeds/TARGET and
# the matching tests/fixtures files (with tests/fuzz/dicts/TARGET.dict when
# there is one), and prints one line per target:
#   fuzz: TARGET  Ss  N execs  corpus C (S seeds)  crashes K
# Exits non-zero when a target crashed, leaked, timed out or ran out of
# memory, naming the input libFuzzer saved (build/fuzz/artifacts/TARGET/).
#
# Usage: run-fuzz.sh [-b BUILDDIR] [-s SECONDS] [-j JOBS] TARGET...
#   BUILDDIR holds fuzz_TARGET (default build/fuzz); corpus/, artifacts/ and
#   logs/ are made there. JOBS targets run at a time (default 1).

set -u
cd "$(dirname "$0")/../.." || exit 2
exec </dev/null

B=build/fuzz
S=10
J=1
while getopts b:s:j: o; do
	case $o in
	b) B=$OPTARG ;;
	s) S=$OPTARG ;;
	j) J=$OPTARG ;;
	*) echo "usage: $0 [-b BUILDDIR] [-s SECONDS] [-j JOBS] TARGET..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "spacetime: run-fuzz.sh: no fuzz target given" >&2; exit 2; }
[[ $S =~ ^[1-9][0-9]*$ ]] || { echo "spacetime: FUZZ_S must be a whole number of seconds, not '$S'" >&2; exit 2; }
[[ $J =~ ^[1-9][0-9]*$ ]] || { echo "spacetime: FUZZ_JOBS must be a positive number, not '$J'" >&2; exit 2; }

# fixtures TARGET: the tests/fixtures files that are inputs of TARGET.
fixtures() {
	case $1 in
	smaps_rollup) ls tests/fixtures/*.smaps_rollup ;;
	stat) ls tests/fixtures/*.stat ;;
	statm) ls tests/fixtures/*.statm ;;
	status) ls tests/fixtures/*.status ;;
	children) ls tests/fixtures/*.children ;;
	nlproc) ls tests/fixtures/nl_*.bin tests/fixtures/bad_nl_*.bin ;;
	taskstats) ls tests/fixtures/*.taskstats ;;
	outpane) ls tests/fixtures/*.outpane ;;
	jsonw) ls tests/fixtures/*.cmdline ;;
	recdb) ls tests/fixtures/*.recdb ;;
	esac 2>/dev/null
}

# run_one TARGET: fuzzes it, writes logs/TARGET.result ("EXECS CORPUS SEEDS
# CRASHES RC ARTIFACT").
run_one() {
	local t=$1 bin=$B/fuzz_$1 corpus=$B/corpus/$1 art=$B/artifacts/$1 log=$B/logs/$1.log
	local seeds rc execs found dict=()
	[ -f tests/fuzz/dicts/$t.dict ] && dict=(-dict="tests/fuzz/dicts/$t.dict")
	rm -rf "$corpus" "$art" "$B/logs/$t.result"
	mkdir -p "$corpus" "$art" "$B/logs"
	# outpane's inputs start with a mode and a split byte: a fixture (the
	# pane's bytes alone) gets "UTF-8, 8 lines, no split" in front
	fixtures "$t" | while IFS= read -r f; do
		if [ "$t" = outpane ]; then
			{ printf '\017\000'; cat "$f"; } >"$corpus/$(basename "$f")"
		else
			cp "$f" "$corpus/$(basename "$f")"
		fi
	done
	for f in tests/fuzz/seeds/"$t"/*; do
		[ -f "$f" ] && cp "$f" "$corpus/$(basename "$f")"
	done
	seeds=$(find "$corpus" -type f | wc -l)
	"$bin" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		"${dict[@]}" -artifact_prefix="$art/" "$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	found=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | head -n 1)
	echo "${execs:-?} $(find "$corpus" -type f | wc -l) $seeds $(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l) $rc ${found:--}" >"$B/logs/$t.result"
}

for t in "$@"; do
	[ -x "$B/fuzz_$t" ] || { echo "spacetime: no fuzz target $B/fuzz_$t (make fuzz-build)" >&2; exit 2; }
done
echo "fuzz: $# targets, ${S}s each, $J at a time (logs in $B/logs)"
running=0
for t in "$@"; do
	if [ "$running" -ge "$J" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait

failed=0
for t in "$@"; do
	read -r execs corpus seeds crashes rc found <"$B/logs/$t.result" || { execs='?' rc=1 found=-; }
	printf 'fuzz: %-13s %4ss %12s execs  corpus %5s (%s seeds)  crashes %s\n' \
		"$t" "$S" "$execs" "$corpus" "$seeds" "$crashes"
	if [ "$rc" != 0 ] || [ "$found" != - ]; then
		failed=$((failed + 1))
		if [ "$found" != - ]; then
			echo "spacetime: fuzz target $t failed: input saved as $found (log $B/logs/$t.log)" >&2
		else
			echo "spacetime: fuzz target $t exited with status $rc (log $B/logs/$t.log)" >&2
		fi
	fi
done
[ "$failed" -eq 0 ] || { echo "fuzz: $failed of $# targets failed" >&2; exit 1; }
echo "fuzz: all $# targets ran clean"
