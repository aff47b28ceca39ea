#!/usr/bin/env bats
# The command-line contract: exit statuses, where output goes, options.

load helpers

setup() {
	st_require
}

# --- exit status: the command's, 128+N for signal N -------------------------

@test "exit status: exitwith 0 exits 0" {
	stj -- "$WL/exitwith" 0
	assert_status 0
	assert_json .exit_status -eq 0
	assert_json .signal = null
}

@test "exit status: exitwith 3 exits 3" {
	stj -- "$WL/exitwith" 3
	assert_status 3
	assert_json .exit_status -eq 3
	assert_json .signal = null
}

@test "exit status: killself 9 exits 137, JSON signal 9" {
	stj -- "$WL/killself" 9
	assert_status 137
	assert_json .exit_status -eq 137
	assert_json .signal -eq 9
}

@test "exit status: killself 15 exits 143, JSON signal 15" {
	stj -- "$WL/killself" 15
	assert_status 143
	assert_json .exit_status -eq 143
	assert_json .signal -eq 15
}

@test "missing command exits 127 with one line on stderr naming it" {
	local name="no-such-command-$$"
	st -- "$name" arg
	assert_status 127
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"$name"* ]] || st_fail "stderr does not name '$name'"
	[ -z "$output" ] || st_fail "stdout should be empty"
}

@test "missing command given as a path exits 127 with one line on stderr" {
	local path="$BATS_TEST_TMPDIR/no/such/dir/cmd"
	st -- "$path"
	assert_status 127
	assert_one_line "$stderr" "stderr"
	[[ $stderr == *"$path"* ]] || st_fail "stderr does not name '$path'"
}

@test "non-executable file exits 126" {
	local f="$BATS_TEST_TMPDIR/not-executable"
	printf '#!/bin/sh\nexit 0\n' >"$f"
	chmod 644 "$f"
	st -- "$f"
	assert_status 126
}

# --- bad options: 2 and one line, the command never runs ---------------------

@test "bad option exits 2 with one line on stderr and does not run the command" {
	local marker="$BATS_TEST_TMPDIR/ran"
	st --no-such-option -- touch "$marker"
	assert_status 2
	assert_one_line "$stderr" "stderr"
	[ ! -e "$marker" ] || st_fail "the command ran despite the bad option"
}

@test "bad option: --interval below 10 exits 2 with one line" {
	st -i 5 -- true
	assert_status 2
	assert_one_line "$stderr" "stderr"
}

@test "bad option: --interval above 60000 exits 2 with one line" {
	st --interval 60001 -- true
	assert_status 2
	assert_one_line "$stderr" "stderr"
}

@test "bad option: --interval not a number exits 2 with one line" {
	st -i abc -- true
	assert_status 2
	assert_one_line "$stderr" "stderr"
}

@test "bad option: --budget not a number exits 2 with one line" {
	st --budget lots -- true
	assert_status 2
	assert_one_line "$stderr" "stderr"
}

@test "bad option: --fps outside 0.2..30 or not a number exits 2 with one line" {
	local v
	for v in 0 0.1 31 fast; do
		st --fps "$v" -- true
		assert_status 2
		assert_one_line "$stderr" "stderr"
		[[ "$stderr" == *"frame rate"* ]] || st_fail "--fps $v: $stderr"
	done
}

@test "--interval accepts its bounds 10 and 60000" {
	st -s -i 10 -- "$WL/exitwith" 0
	assert_status 0
	st -s --interval 60000 -- "$WL/exitwith" 0
	assert_status 0
}

@test "arguments after -- belong to the command" {
	st -s -- echo -v --json x -o y
	assert_status 0
	[ "$output" = "-v --json x -o y" ] || st_fail "stdout: expected '-v --json x -o y'"
}

# --- where output goes --------------------------------------------------------

@test "the command's stdout passes through: spacetime -s -- echo hello" {
	st -s -- echo hello
	assert_status 0
	[ "$output" = hello ] || st_fail "stdout: expected exactly 'hello'"
}

@test "the command's binary stdout passes through byte for byte" {
	local in="$BATS_TEST_TMPDIR/in" out="$BATS_TEST_TMPDIR/out"
	head -c 1048576 /dev/urandom >"$in"
	local rc=0
	ST_CMD=("$ST_BIN" -s -- cat "$in")
	timeout -k 10 "$ST_TIMEOUT" "${ST_CMD[@]}" >"$out" 2>"$BATS_TEST_TMPDIR/err" </dev/null || rc=$?
	status=$rc stderr=$(cat "$BATS_TEST_TMPDIR/err")
	assert_status 0
	cmp "$in" "$out" || st_fail "stdout differs from the bytes the command wrote"
}

@test "the command reads spacetime's stdin" {
	ST_CMD=(bash -c 'printf "abc\n" | "$1" -s -- cat' _ "$ST_BIN")
	st_capture "${ST_CMD[@]}"
	assert_status 0
	[ "$output" = abc ] || st_fail "stdout: expected 'abc'"
}

@test "works with stdin closed" {
	local rc=0
	ST_CMD=("$ST_BIN" -s -- "$WL/exitwith" 3 "<&-")
	timeout -k 10 "$ST_TIMEOUT" "$ST_BIN" -s -- "$WL/exitwith" 3 <&- >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	status=$rc stderr=$(cat "$BATS_TEST_TMPDIR/err")
	assert_status 3
	summary_has "$stderr" processes
}

@test "stdout not a terminal behaves as -s: summary on stderr, stdout untouched" {
	st -- echo hello
	assert_status 0
	[ "$output" = hello ] || st_fail "stdout: expected exactly 'hello'"
	summary_has "$stderr" processes
}

@test "-o FILE writes the summary there and nothing to stderr" {
	local f="$BATS_TEST_TMPDIR/summary.txt"
	st -s -o "$f" -- "$WL/exitwith" 0
	assert_status 0
	[ -z "$stderr" ] || st_fail "stderr should be empty with -o"
	[ -s "$f" ] || st_fail "-o file $f is empty or missing"
	local text
	text=$(cat "$f")
	summary_has "$text" processes
	summary_has "$text" wall
}

@test "the text summary has every labelled line with a number" {
	st -s -- "$WL/fill" 64 200
	assert_status 0
	local label
	for label in processes threads "peak PSS" wall user system "minor faults" "major faults"; do
		summary_has "$stderr" "$label"
	done
	# the figures first: the summary's first line names the command
	[[ "$(printf '%s\n' "$stderr" | head -n 1)" == "spacetime: $WL/fill 64 200" ]] ||
		st_fail "the summary does not start with its figures: $(printf '%s\n' "$stderr" | head -n 3)"
	printf '%s\n' "$stderr" | grep -q '^  execs           1 (-v or --execs lists them)$' ||
		st_fail "no count of the execs"
	! printf '%s\n' "$stderr" | grep -q '^EXEC ' || st_fail "an EXEC line without -v or --execs"
}

@test "--json FILE parses with jq and has every documented key" {
	# fill 8 200: 8 MiB held 200 ms, so samples see it and PSS is measured
	stj -- "$WL/fill" 8 200
	assert_status 0
	assert_json_valid
	local k
	for k in wall_us user_us sys_us peak_pss_bytes peak_pss_t_us peak_pss_anon_bytes \
		peak_pss_file_bytes peak_pss_shmem_bytes peak_rss_kib processes threads \
		execs_count minflt majflt nvcsw nivcsw inblock oublock exit_status lost_events \
		collector_wakeups netlink_events taskstats_records taskstats_lost taskstats_unmatched; do
		assert_json ".$k | type" = number
	done
	assert_json '.signal | type' = null
	assert_json '.mode == "netlink" or .mode == "poll"' = true
	assert_json 'has("version") and .version != null' = true
	assert_json '.command | length' -eq 3
	assert_json '.command[0]' = "$WL/fill"
	assert_json '.command[1]' = 8
	assert_json '.execs | type' = array
	assert_json '[.execs[] | (.pid | type) == "number" and (.ppid | type) == "number"
		and (.t_us | type) == "number" and (.argv | type) == "array"
		and all(.argv[]; type == "string")] | all' = true
}

@test "a command that ends before the first sample: peak PSS null in JSON, 'not measured' in the text" {
	# exitwith lives about a millisecond; the first sample comes 10 ms in.
	# Before its exec the command is a copy of spacetime: that is not its PSS.
	local try
	for try in 1 2 3; do
		stj -o "$BATS_TEST_TMPDIR/s.txt" -- "$WL/exitwith" 0
		assert_status 0
		[ "$(jv .wall_us)" -lt 8000 ] && break
	done
	[ "$(jv .wall_us)" -lt 8000 ] || skip "exitwith took $(jv .wall_us) us three times: the machine is too loaded"
	local k
	for k in peak_pss_bytes peak_pss_t_us peak_pss_anon_bytes peak_pss_file_bytes peak_pss_shmem_bytes; do
		assert_json ".$k | type" = null
	done
	assert_json '.peak_rss_kib > 0' = true
	grep -q '^  peak PSS        not measured' "$BATS_TEST_TMPDIR/s.txt" ||
		st_fail "text: $(grep 'peak PSS' "$BATS_TEST_TMPDIR/s.txt")"
}

@test "--json: the command's own exec is listed with its argv" {
	stj -- "$WL/exitwith" 0
	assert_status 0
	assert_json .execs_count -eq 1
	assert_json '.execs | length' -eq 1
	assert_json '.execs[0].argv | join(" ")' = "$WL/exitwith 0"
}

@test "--json: times are consistent (peak time within the run, wall covers the hold)" {
	stj -- "$WL/fill" 64 500
	assert_status 0
	assert_json .wall_us -ge 500000
	assert_json .wall_us -lt 60000000
	assert_json .peak_pss_t_us -gt 0
	assert_json '.peak_pss_t_us <= .wall_us' = true
	assert_json '.user_us + .sys_us > 0' = true
}

@test "summary: EXEC lines only with -v or --execs, every one, after the figures" {
	stj -- "$WL/forkn" 30 exec
	assert_status 0
	assert_json .execs_count -eq 31
	local n
	n=$(printf '%s\n' "$stderr" | grep -c '^EXEC ' || true)
	[ "$n" -eq 0 ] || st_fail "without -v: expected no EXEC line, got $n"
	printf '%s\n' "$stderr" | grep -q '^  execs           31 (-v or --execs lists them)$' ||
		st_fail "without -v: no line giving the count of execs"
	local opt
	for opt in -v --execs; do
		stj "$opt" -- "$WL/forkn" 30 exec
		assert_status 0
		n=$(printf '%s\n' "$stderr" | grep -c '^EXEC ' || true)
		[ "$n" -eq 31 ] || st_fail "with $opt: expected 31 EXEC lines, got $n"
		# after the figures: the first EXEC line below the execs count
		[ "$(printf '%s\n' "$stderr" | grep -n '^EXEC ' | head -n 1 | cut -d: -f1)" -gt \
			"$(printf '%s\n' "$stderr" | grep -n '^  execs ' | cut -d: -f1)" ] || st_fail "EXEC lines before the figures"
	done
}

# --- informational options ----------------------------------------------------

@test "--caps exits 0 and mentions netlink" {
	ST_CMD=("$ST_BIN" --caps)
	st_capture "${ST_CMD[@]}"
	assert_status 0
	[[ ${output,,}${stderr,,} == *netlink* ]] || st_fail "--caps output does not mention netlink"
}

@test "-h exits 0 and describes the options" {
	ST_CMD=("$ST_BIN" -h)
	st_capture "${ST_CMD[@]}"
	assert_status 0
	[[ $output == *--json* && $output == *--interval* ]] || st_fail "-h stdout lacks --json / --interval"
}

@test "-V exits 0 and prints a version number" {
	ST_CMD=("$ST_BIN" -V)
	st_capture "${ST_CMD[@]}"
	assert_status 0
	[[ $output =~ [0-9]+\.[0-9]+ ]] || st_fail "-V stdout has no version number"
}

@test "a SIGCHLD ignored by the caller: exit status still right, and still ignored in the command" {
	ST_WRAP=(python3 -c 'import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execvp(sys.argv[1], sys.argv[1:])')
	stj -- "$WL/exitwith" 3
	assert_status 3
	assert_json .exit_status -eq 3
	st -s -o /dev/null -- grep ^SigIgn: /proc/self/status
	assert_status 0
	local ign=${output##*SigIgn:}
	ign=$(echo $ign)
	(( (16#$ign >> 16) & 1 )) || st_fail "SIGCHLD not ignored in the command: SigIgn $ign"
}

@test "nohup: SIGHUP stays ignored in the command" {
	ST_WRAP=(nohup)
	st -s -o /dev/null -- sh -c 'grep ^SigIgn: /proc/self/status'
	assert_status 0
	local ign=${output##*SigIgn:}
	ign=$(echo $ign)
	(( 16#$ign & 1 )) || st_fail "SIGHUP not ignored under nohup: SigIgn $ign"
}

@test "closed stdin, stdout and stderr: the --json file is JSON, not the summary, and the status is the command's" {
	local j="$BATS_TEST_TMPDIR/closed.json"
	# closed inside the shell that runs spacetime (bats' run captures output)
	run bash -c '"$0" -s --json "$1" -- "$2" 3 <&- >&- 2>&-' "$ST_BIN" "$j" "$WL/exitwith"
	[ "$status" -eq 3 ] || st_fail "status $status, expected 3"
	jq -e '.exit_status == 3 and .processes == 1' "$j" >/dev/null || st_fail "$j: $(head -c 200 "$j")"
}

# --- the config file ------------------------------------------------------------

@test "config file: its defaults apply, options win, a bad line is one warning and the run goes on" {
	local cfg="$BATS_TEST_TMPDIR/cfg"
	mkdir -p "$cfg/spacetime"
	printf '# defaults\ninterval = 250\ntop = 1\nglyphs = fancy\n' >"$cfg/spacetime/config"
	ST_WRAP=(env XDG_CONFIG_HOME="$cfg")
	stj --no-record -- "$WL/forkn" 3 exec
	assert_status 0
	assert_json .interval_ms -eq 250
	[ "$(printf '%s\n' "$stderr" | grep -c '^spacetime: .*config:4: glyphs = .fancy.: expected braille or block or ascii (ignored)$')" -eq 1 ] ||
		st_fail "not one warning for line 4"
	# top = 1: one job per ranking
	[ "$(awk '/^heaviest jobs by CPU/{f=1;next} f&&/^  /{c++} f&&!/^  /{f=0} END{print c+0}' <<<"$stderr")" -eq 1 ]
	# an option given wins
	stj --no-record -i 150 --top 2 -- "$WL/forkn" 3 exec
	assert_json .interval_ms -eq 150
	[ "$(awk '/^heaviest jobs by CPU/{f=1;next} f&&/^  /{c++} f&&!/^  /{f=0} END{print c+0}' <<<"$stderr")" -eq 2 ]
	# a file that is a directory: one warning, the built-in defaults
	rm "$cfg/spacetime/config"
	mkdir "$cfg/spacetime/config"
	stj --no-record -- "$WL/exitwith" 0
	assert_status 0
	assert_json .interval_ms -eq 100
	[ "$(printf '%s\n' "$stderr" | grep -c 'config: not a regular file')" -eq 1 ]
}
