#!/usr/bin/env bash
# run-tests.sh: runs the unit test binary of every tests/unit/test_*.c
# (build/tests/test_*, cmocka, TAP output; a missing binary, or one that
# reports no plan, is a failure; a binary with no source left is not run)
# and the bats suites (tests/e2e, tests/ui when it holds .bats files),
# counts passes and failures across all of them, lists the failures, and ends
# with one line: "check: N passed, M failed". Exits non-zero when anything
# failed or nothing ran. Needs no terminal and no stdin.
#
# Environment: B (build dir, default build), UNIT_TIMEOUT (seconds per unit
# binary, default 300), BATS_ARGS (extra bats options, e.g. --filter fill),
# UNITS (names of the unit tests to run, e.g. "test_store test_collector";
# default all), SUITES (bats suite directories; default "tests/e2e tests/ui",
# empty: none), SAN_LOG_DIR (a directory where sanitizer reports are written,
# see tests/run-san.sh: any file in it at the end is a failure, printed),
# CI (1 or true: every skipped test must be named in tests/expected-skips).

set -u
cd "$(dirname "$0")/.." || exit 2
exec </dev/null

B=${B:-build}
UNIT_TIMEOUT=${UNIT_TIMEOUT:-300}
pass=0
fail=0
skipped=0
failures=()
skips=() # "source: name<TAB>reason" of each skipped test
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# skip_record SOURCE NAME: notes a skipped test. NAME is the TAP text after
# the number: bats puts "name # skip (reason)", cmocka "# SKIP name" (its
# reason is the line the test printed just before, kept in last_comment).
skip_record() {
	local src=$1 name=$2 why
	if [[ $name =~ ^(.*[^ ])\ +#\ +[sS][kK][iI][pP]\ *(.*)$ ]]; then
		name=${BASH_REMATCH[1]}
		why=${BASH_REMATCH[2]}
	elif [[ $name =~ ^#\ +[sS][kK][iI][pP]\ +(.*)$ ]]; then
		name=${BASH_REMATCH[1]}
		why=$last_comment
	fi
	skips+=("$src: $name"$'\t'"${why:-no reason given}")
}

# tap_count SOURCE FILE: adds the TAP results in FILE to the counts. Knows
# cmocka's "not ok N # SKIP name" and bats' "ok N name # skip (why)". Plans
# ("1..N") are summed so a stream that stops early counts its missing tests as
# failures. Sets tap_failed to the number of failures it found.
tap_count() {
	local src=$1 file=$2 line name planned=0 seen=0
	tap_failed=0
	tap_planned=0
	last_comment=
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		[0-9]*..[0-9]*)
			[[ $line =~ ^1\.\.([0-9]+) ]] && planned=$((planned + BASH_REMATCH[1]))
			;;
		"ok "* | "not ok "*)
			seen=$((seen + 1))
			name=$(sed -E 's/^(not )?ok [0-9]+ (- )?//' <<<"$line")
			if grep -Eiq '# skip( |$)' <<<"$line"; then
				skipped=$((skipped + 1))
				skip_record "$src" "$name"
			elif [[ $line == ok* ]]; then
				pass=$((pass + 1))
			else
				fail=$((fail + 1))
				tap_failed=$((tap_failed + 1))
				failures+=("$src: $name")
			fi
			last_comment=
			;;
		*)
			# cmocka prints a test's messages (a skip's reason) before its result
			[ -z "$line" ] || last_comment=$(sed -E 's/^#+ *//' <<<"$line")
			;;
		esac
	done <"$file"
	if [ "$seen" -lt "$planned" ]; then
		fail=$((fail + planned - seen))
		tap_failed=$((tap_failed + planned - seen))
		failures+=("$src: $((planned - seen)) planned test(s) never reported (crash or abort?)")
	fi
	tap_planned=$planned
}

# --- the structure -------------------------------------------------------------
# tests/structure.py: no circle in the calls between src/ files, no function
# over 80 lines but those it lists. Skipped under sanitizers (the same
# sources: one check is enough) and when only named units were asked for.
if [ -z "${UNITS:-}" ] && [ -z "${SAN_LOG_DIR:-}" ]; then
	echo "# structure"
	if tests/structure.py >"$tmp/structure.out" 2>&1; then
		pass=$((pass + 1))
		echo "ok - $(tail -n 1 "$tmp/structure.out")"
	else
		fail=$((fail + 1))
		sed 's/^/# /' "$tmp/structure.out"
		failures+=("structure: $(head -n 1 "$tmp/structure.out")")
	fi
fi

# --- unit tests ---------------------------------------------------------------
# The sources say which binaries there must be: each tests/unit/test_X.c
# builds $B/tests/test_X. A binary with no source (left from a test since
# removed or renamed) is stale and not run.
units=0
for t in "$B"/tests/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	[ -e "tests/unit/${t##*/}.c" ] || echo "# stale, not run: $t (no tests/unit/${t##*/}.c)"
done
if [ -n "${UNITS+set}" ]; then
	unit_srcs=()
	for u in $UNITS; do unit_srcs+=("tests/unit/$u.c"); done
else
	unit_srcs=(tests/unit/test_*.c)
fi
for src in "${unit_srcs[@]}"; do
	[ -e "$src" ] || {
		[ -z "${UNITS+set}" ] || {
			fail=$((fail + 1))
			failures+=("unit: $src does not exist (UNITS=$UNITS)")
		}
		continue
	}
	units=$((units + 1))
	name=$(basename "$src" .c)
	t="$B/tests/$name"
	echo "# unit: $name"
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then
		fail=$((fail + 1))
		failures+=("unit/$name: no binary $t for $src (did it build?)")
		continue
	fi
	rc=0
	# under check-san its sanitizer reports are named after it
	san=()
	if [ -n "${SAN_LOG_DIR:-}" ]; then
		for v in ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
			[ -n "${!v:-}" ] && san+=("$v=${!v//"$SAN_LOG_DIR/san."/"$SAN_LOG_DIR/$name."}")
		done
	fi
	env "${san[@]}" CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 10 "$UNIT_TIMEOUT" "$t" >"$tmp/unit.out" 2>"$tmp/unit.err" || rc=$?
	cat "$tmp/unit.out"
	[ -z "$(tail -c 1 "$tmp/unit.out")" ] || echo
	tap_count "unit/$name" "$tmp/unit.out"
	if [ "$tap_planned" -eq 0 ]; then
		fail=$((fail + 1))
		tap_failed=$((tap_failed + 1))
		failures+=("unit/$name: reported no plan (1..N)")
	fi
	if [ "$rc" -ne 0 ]; then
		sed 's/^/# stderr: /' "$tmp/unit.err"
		if [ "$tap_failed" -eq 0 ]; then
			fail=$((fail + 1))
			if [ "$rc" -eq 124 ]; then
				failures+=("unit/$name: timed out after ${UNIT_TIMEOUT}s")
			elif [ "$rc" -gt 128 ]; then
				failures+=("unit/$name: killed by signal $((rc - 128))")
			else
				failures+=("unit/$name: exited $rc with no failing test reported")
			fi
		fi
	fi
done
[ "$units" -gt 0 ] || echo "# no unit tests in tests/unit"

# --- bats suites --------------------------------------------------------------
suites=()
for d in ${SUITES-tests/e2e tests/ui}; do
	compgen -G "$d/*.bats" >/dev/null && suites+=("$d")
done
if [ "${#suites[@]}" -gt 0 ]; then
	if command -v bats >/dev/null; then
		echo "# bats: ${suites[*]}"
		rc=0
		# shellcheck disable=SC2086
		bats --tap ${BATS_ARGS:-} "${suites[@]}" >"$tmp/bats.out" 2>"$tmp/bats.err" || rc=$?
		cat "$tmp/bats.out"
		sed 's/^/# stderr: /' "$tmp/bats.err"
		tap_count bats "$tmp/bats.out"
		if [ "$rc" -ne 0 ] && [ "$tap_failed" -eq 0 ]; then
			fail=$((fail + 1))
			failures+=("bats: exited $rc with no failing test reported")
		fi
	else
		fail=$((fail + 1))
		failures+=("bats: not installed, cannot run ${suites[*]} (make deps)")
	fi
elif [ -z "${SUITES+set}" ]; then
	echo "# no .bats files in tests/e2e or tests/ui"
fi

# --- sanitizer reports --------------------------------------------------------
# A report from a process whose test ignored its stderr or exit status (a
# child, a run in the background, a dashboard in tmux) is still a failure.
if [ -n "${SAN_LOG_DIR:-}" ]; then
	for f in "$SAN_LOG_DIR"/*; do
		[ -f "$f" ] || continue
		fail=$((fail + 1))
		failures+=("sanitizer report ${f##*/}: $(grep -m1 -E 'ERROR|runtime error|WARNING' "$f" | sed -E 's/^=+[0-9]*=+//')")
		echo "# sanitizer report $f:"
		sed 's/^/#   /' "$f" | head -n 80
	done
fi

# --- skips --------------------------------------------------------------------
# On CI (CI=1) a skip must be expected by name (tests/expected-skips): a test
# that starts skipping there, because the machine changed or the test broke,
# fails the run instead of passing unnoticed.
if [ "${#skips[@]}" -gt 0 ]; then
	echo "skipped: $skipped"
	for s in "${skips[@]}"; do
		printf '  %s (%s)\n' "${s%%$'\t'*}" "${s#*$'\t'}"
	done
fi
if { [ "${CI:-0}" = 1 ] || [ "${CI:-}" = true ]; } && [ "${#skips[@]}" -gt 0 ]; then
	expected=$(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' tests/expected-skips 2>/dev/null)
	for s in "${skips[@]}"; do
		if ! grep -Fxq -- "${s%%$'\t'*}" <<<"$expected"; then
			fail=$((fail + 1))
			failures+=("unexpected skip on CI: ${s%%$'\t'*}: ${s#*$'\t'} (not in tests/expected-skips)")
		fi
	done
fi

# --- summary ------------------------------------------------------------------
if [ "${#failures[@]}" -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
ran=$((pass + fail))
echo "check: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$ran" -gt 0 ]
