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
	grep -qE "^jobs: [0-9]+ matched \([0-9]+ changed past the noise\), 0 in A only, 0 in B only" <<<"$output" || { echo "$output"; false; }
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
	# --sort faults: the fill that touches 100 MiB more faults more (a page
	# a fault, or fewer with huge pages: more all the same), first
	run "$SPACETIME" compare --db "$DB" 1 2 --sort faults
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"by the change in page faults"* ]] || { echo "$output"; false; }
	first=$(awk '/^ *change +A +B +job/ { getline; print; exit }' <<<"$output")
	[[ $first =~ ^\ *\+([0-9]+)\ .*fill\ env\ 600 ]] || { echo "$output"; echo "first job row: $first" >&2; false; }
	# 100 MiB of 4 KiB pages: 25,600 faults more (within 10%), unless
	# huge pages come without asking
	grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
		awk -v v="${BASH_REMATCH[1]}" 'BEGIN { exit !(v >= 23040 && v <= 28160) }' ||
		{ echo "$output"; echo "fill env 600: +${BASH_REMATCH[1]} faults, expected +25600" >&2; false; }
	run "$SPACETIME" compare --db "$DB" 1 2 --sort rss
	[ "$status" -eq 2 ] && [[ $output == *"invalid --sort"* ]] || { echo "$output"; false; }
	# on a terminal the changes are coloured (growth red), unless NO_COLOR
	command -v script >/dev/null || { echo "script (bsdutils) missing" >&2; false; }
	run env TERM=xterm script -qec "$SPACETIME compare --db $DB 1 2" /dev/null
	[[ $output == *$'\e[31m+'* ]] || { echo "$output" | cat -v; echo "no red growth on a terminal" >&2; false; }
	run env TERM=xterm NO_COLOR=1 script -qec "$SPACETIME compare --db $DB 1 2" /dev/null
	[[ $output == *"peak_pss"* && $output != *$'\e['* ]] || { echo "$output" | cat -v; echo "colour despite NO_COLOR" >&2; false; }
	run "$SPACETIME" compare --db "$DB" 1 2
	[[ $output != *$'\e['* ]] || { echo "colour into a pipe" >&2; false; }
	# last and last~1 name the same runs; a file names its last run
	run "$SPACETIME" compare --db "$DB" last~1 last
	[ "$status" -eq 0 ] && [[ $output == *"A = run 1"*"B = run 2"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare "$DB:1" "$DB"
	[ "$status" -eq 0 ] && [[ $output == *"A = run 1"*"B = run 2"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare "$DB:1..2" "$DB:2"
	[ "$status" -eq 0 ] && [[ $output == *"A = runs 1..2 of $DB, B = run 2"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare "$DB:1..3" "$DB:2"
	[ "$status" -eq 2 ] && [[ $output == *"no run 3"* ]] || { echo "$output"; false; }
}

@test "compare --format markdown and json: the same rows and figures; the JSON has its documented keys" {
	record 20
	record 120
	run "$SPACETIME" compare --db "$DB" 1 2 --format json --fail-above peak_pss=5%
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/c.json"
	run "$SPACETIME" compare --db "$DB" 1 2 --format markdown --fail-above peak_pss=5%
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/c.md"
	python3 - "$BATS_TEST_TMPDIR/c.json" "$BATS_TEST_TMPDIR/c.md" <<'PY' || { cat "$BATS_TEST_TMPDIR/c.md"; false; }
import json, re, sys
j = json.load(open(sys.argv[1]))
for k in ("a", "b", "notes", "totals", "jobs_matched", "jobs_changed", "jobs_a_only", "jobs_b_only", "jobs", "programs", "gate"):
    assert k in j, k
assert j["a"]["run"] == 1 and j["b"]["run"] == 2 and j["a"]["command"][0] == "sh"
assert j["gate"]["failed"] is True and j["gate"]["metric"] == "peak_pss"
for t in j["totals"]:
    for k in ("metric", "unit", "a", "b", "change", "change_pct"):
        assert k in t, (t, k)
    assert t["change"] == t["b"] - t["a"]
md = open(sys.argv[2]).read()
head, progs = md.split("\nPrograms", 1)
rows = [l for l in head.splitlines() if l.startswith("| ") and not l.startswith("| metric") and not l.startswith("| job")]
prows = [l for l in progs.splitlines() if l.startswith("| ") and not l.startswith("| program")]
assert [r.split("|")[1].strip() for r in prows] == [p["program"] for p in j["programs"]], (prows, j["programs"])
for r, p in zip(prows, j["programs"]):
    c = [x.strip() for x in r.strip().strip("|").split("|")]
    assert int(c[1]) == p["a"]["jobs"] and int(c[2]) == p["b"]["jobs"], (c, p)
    assert abs(float(c[5]) - p["a"]["kib_s"] / 1024) <= 0.051 and abs(float(c[6]) - p["b"]["kib_s"] / 1024) <= 0.051, (c, p)
cells = [[c.strip() for c in l.strip().strip("|").split("|")] for l in rows]
tot = {c[0]: c for c in cells if c[0] in {t["metric"] for t in j["totals"]}}
assert len(tot) == len(j["totals"]), (len(tot), len(j["totals"]))
def kib(s):
    n, u = s.split()
    return float(n) * {"B": 1 / 1024, "KiB": 1, "MiB": 1024, "GiB": 1048576}[u]
for t in j["totals"]:
    a, b = tot[t["metric"]][1], tot[t["metric"]][2]
    if t["unit"] == "KiB":
        for x, y in ((a, t["a"]), (b, t["b"])):
            assert abs(kib(x) - y) <= max(1, 0.005 * y), (t["metric"], x, y)
    elif t["unit"] == "us":
        assert abs(float(a.split()[0]) - t["a"] / 1e6) <= 0.006, (t["metric"], a, t["a"])
    else:
        assert int(a) == t["a"] and int(b) == t["b"], (t["metric"], a, b)
jobs = [c for c in cells if c[0] not in tot]
assert [c[0] for c in jobs] == [x["job"] for x in j["jobs"]], ([c[0] for c in jobs], [x["job"] for x in j["jobs"]])
for c, x in zip(jobs, j["jobs"]):
    assert abs(kib(c[1]) - x["a"]["peak_pss_kib"]) <= max(1, 0.005 * x["a"]["peak_pss_kib"]), (c, x)
    assert abs(kib(c[2]) - x["b"]["peak_pss_kib"]) <= max(1, 0.005 * x["b"]["peak_pss_kib"]), (c, x)
assert j["jobs"][0]["job"] == "fill env 600"
PY
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

# build N: a real build of some of the project's own sources (make -j2, each
# compiled to an object) beside a fill of N MiB held 4 s, through the whole
# build (a job whose size the test knows, the largest), recorded in $DB.
build_once() {
	local b="$BATS_TEST_TMPDIR/build"
	rm -rf "$b"
	mkdir -p "$b"
	{
		printf 'SRC := %s\n' "$(cd "$ST_ROOT" && ls src/*.c | head -n 14 | tr '\n' ' ')"
		printf 'OBJ := $(patsubst src/%%.c,%s/%%.o,$(SRC))\n' "$b"
		printf 'all: $(OBJ) fill\n'
		printf 'fill:\n\t%s env 4000\n' "$WL/fill"
		printf '%s/%%.o: %s/src/%%.c\n\tcc -O2 -std=gnu11 -D_GNU_SOURCE -I%s/src -c -o $@ $<\n' "$b" "$ST_ROOT" "$ST_ROOT"
	} >"$BATS_TEST_TMPDIR/build.mk"
	FILL_MIB=$1 "$SPACETIME" -s -o /dev/null --record "$DB" -- make -s -f "$BATS_TEST_TMPDIR/build.mk" -j2 \
		>/dev/null 2>&1 || return 1
}

@test "compare, five runs a side of a real build: unchanged, nothing flagged and the gate passes; its largest job 20% bigger, flagged and the gate fails" {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do build_once 200 || { echo "build $i failed" >&2; false; }; done
	run "$SPACETIME" compare --db "$DB" 1..5 6..10 --fail-above peak_pss=5% --format json --top 1000
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/same.json"
	python3 - "$BATS_TEST_TMPDIR/same.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["a"]["runs"] == [1, 2, 3, 4, 5] and j["b"]["runs"] == [6, 7, 8, 9, 10], (j["a"], j["b"])
n = j["jobs_matched"] + j["jobs_a_only"] + j["jobs_b_only"]
assert j["jobs_matched"] >= 0.95 * n, ("matched", j["jobs_matched"], "of", n)
assert j["jobs_changed"] == 0, [x for x in j["jobs"] if x["changed"]]
assert j["gate"]["failed"] is False
PY
	for i in 1 2 3 4 5; do build_once 240 || { echo "build $((10 + i)) failed" >&2; false; }; done
	run "$SPACETIME" compare --db "$DB" 1..5 11..15 --fail-above peak_pss=10% --format json --top 1000
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/more.json"
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	python3 - "$BATS_TEST_TMPDIR/more.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
first = j["jobs"][0]
assert first["job"].startswith("fill env"), first
assert first["changed"] is True, first
d = first["b"]["peak_pss_kib"] - first["a"]["peak_pss_kib"]
assert 38.8 * 1024 <= d <= 41.2 * 1024, d
assert j["gate"]["failed"] is True and j["gate"]["metric"] == "peak_pss", j["gate"]
PY
}

@test "labels: --label stored with the run, runs shows and selects by them (text and JSON), compare takes KEY=VALUE" {
	local i
	for i in 1 2; do
		FILL_MIB=20 "$SPACETIME" -s -o /dev/null --record "$DB" --label branch=main --label commit=c$i -- \
			sh -c '"$0" env 300' "$WL/fill" || false
	done
	FILL_MIB=60 "$SPACETIME" -s -o /dev/null --record "$DB" --label branch=pr --label image=repo:tag -- \
		sh -c '"$0" env 300' "$WL/fill"
	run "$SPACETIME" runs --db "$DB"
	[ "$status" -eq 0 ] && [[ $output == *"[branch=main commit=c1]"* ]] && [[ $output == *"[branch=pr image=repo:tag]"* ]] ||
		{ echo "$output"; false; }
	run "$SPACETIME" runs --db "$DB" branch=main
	[ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 3 ] && [[ $output != *branch=pr* ]] || { echo "$output"; false; }
	run "$SPACETIME" runs --db "$DB" --format json branch=main commit=c2
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	jq -e 'length == 1 and .[0].id == 2 and .[0].labels == {"branch": "main", "commit": "c2"} and .[0].exit_status == 0' \
		<<<"$output" >/dev/null || { echo "$output"; false; }
	run "$SPACETIME" compare --db "$DB" branch=main branch=pr --format json
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	jq -e '.a.runs == [1, 2] and .b.runs == [3] and .jobs[0].job == "fill env 300"' <<<"$output" >/dev/null ||
		{ echo "$output"; false; }
	# FILE:KEY=VALUE, a value with a colon
	run "$SPACETIME" compare "$DB:branch=main" "$DB:image=repo:tag" --format json
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	jq -e '.a.runs == [1, 2] and .b.runs == [3]' <<<"$output" >/dev/null || { echo "$output"; false; }
	# a bad label: one line, exit status 2, nothing run
	run "$SPACETIME" -s --record "$DB" --label 'no key' -- true
	[ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] && [[ $output == *"--label"* ]] || { echo "$output"; false; }
	run "$SPACETIME" compare --db "$DB" branch=none last
	[ "$status" -eq 2 ] && [[ $output == *"no run with label branch=none"* ]] || { echo "$output"; false; }
}

@test "export --format db: a run alone in a file of its own, which compare reads as the recording; --no-output leaves output and directory out" {
	record 20
	record 120
	command -v sqlite3 >/dev/null || { echo "sqlite3 missing (make deps)" >&2; false; }
	# truth: three lines of output in run 2 (spacetime -s leaves the terminal
	# to the command and records none itself)
	sqlite3 "$DB" "INSERT INTO output VALUES (2, 1, 'one'), (2, 2, 'two'), (2, 3, 'three')"
	local a="$BATS_TEST_TMPDIR/main.db" b="$BATS_TEST_TMPDIR/pr.db" bare="$BATS_TEST_TMPDIR/bare.db"
	run "$SPACETIME" export --db "$DB" 1 --format db -o "$a"
	[ "$status" -eq 0 ] && [[ $output == *"run 1 written to $a"* ]] || { echo "$output"; false; }
	run "$SPACETIME" export --db "$DB" last --format db -o "$b"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run "$SPACETIME" export --db "$DB" 2 --format db --no-output -o "$bare"
	[ "$status" -eq 0 ] && [[ $output == *"without its output"* ]] || { echo "$output"; false; }
	# each file holds its run alone, private, as one file
	[ "$(sqlite3 "$a" 'SELECT group_concat(id) FROM runs')" = 1 ] || false
	[ "$(sqlite3 "$b" 'SELECT group_concat(id) FROM runs')" = 2 ] || false
	[ "$(stat -c %a "$b")" = 600 ] || { stat "$b"; false; }
	[ ! -e "$b-wal" ] || { ls -la "$BATS_TEST_TMPDIR"; false; }
	[ "$(sqlite3 "$b" 'SELECT count(*) FROM output')" = 3 ] || false
	[ "$(sqlite3 "$bare" 'SELECT count(*) FROM output')" = 0 ] || false
	[ -n "$(sqlite3 "$b" 'SELECT cwd FROM runs')" ] || false
	[ -z "$(sqlite3 "$bare" 'SELECT cwd FROM runs')" ] || false
	for t in samples processes proc_samples events execs run_summary; do
		[ "$(sqlite3 "$DB" "SELECT count(*) FROM $t WHERE run_id = 2")" = "$(sqlite3 "$bare" "SELECT count(*) FROM $t")" ] ||
			{ echo "table $t: not every row of run 2 copied" >&2; false; }
	done
	# compare reads the files as it reads the recording: the same figures
	run "$SPACETIME" compare --db "$DB" 1 2 --format json
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/db.json"
	run "$SPACETIME" compare "$a" "$bare" --format json
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/files.json"
	python3 - "$BATS_TEST_TMPDIR/db.json" "$BATS_TEST_TMPDIR/files.json" <<'PY'
import json, sys
x, y = (json.load(open(p)) for p in sys.argv[1:])
for k in ("totals", "jobs", "programs", "jobs_matched", "jobs_changed"):
    assert x[k] == y[k], k
assert x["jobs"], "no jobs"
PY
	# an existing file is refused, and left as it was
	local sum
	sum=$(md5sum <"$a")
	run "$SPACETIME" export --db "$DB" 2 --format db -o "$a"
	[ "$status" -eq 1 ] && [[ $output == *"exists"* ]] && [ "$(wc -l <<<"$output")" -eq 1 ] || { echo "$output"; false; }
	[ "$(md5sum <"$a")" = "$sum" ] || { echo "the existing file changed" >&2; false; }
	run "$SPACETIME" export --db "$DB" 2 --no-output
	[ "$status" -eq 2 ] || { echo "$output"; false; }
}
