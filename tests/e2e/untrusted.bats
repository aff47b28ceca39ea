#!/usr/bin/env bats
# Names chosen by the traced programs are untrusted bytes: none of them may
# reach the summary (the terminal, or an -o file) raw.

load helpers

setup() {
	st_require
}

# A program named with an escape sequence and a control byte (a symlink to
# true) is exec'd by a background subshell after a short sleep, while the
# shell itself becomes sleep and never reaps it: true exits at once and stays
# a zombie, whose cmdline is empty, so polling sees the exec with only its comm
# (the symlink's name) to show. A tick may still catch true alive (it lives
# about a millisecond), so each run is retried until the zombie's line shows.
evil_run() {
	local try
	for try in 1 2 3 4 5; do
		st -s -v "$@" --no-netlink -- sh -c '(sleep 0.2; exec "$1") & exec sleep 0.8' sh "$EVIL"
		assert_status 0
		SUMMARY=$stderr
		[ -z "$OUT" ] || SUMMARY=$(cat "$OUT")
		if printf '%s\n' "$SUMMARY" | LC_ALL=C grep -q "$(printf '[\001\033]')"; then
			st_fail "the summary holds a raw ESC or control byte"
		fi
		ZLINE=$(printf '%s\n' "$SUMMARY" | grep '^EXEC .*exited before its command line was read' || true)
		[ -z "$ZLINE" ] || return 0
	done
	st_fail "5 runs and no EXEC line for the zombie"
}

@test "EXEC line of a process gone before its cmdline was read: its comm is sanitised (-s -v, -o)" {
	EVIL="$BATS_TEST_TMPDIR/$(printf 'e\033[31mv\001il')"
	ln -s /bin/true "$EVIL"
	OUT="$BATS_TEST_TMPDIR/summary.txt"
	evil_run -o "$OUT"
	printf '%s\n' "$ZLINE" | grep -q 'e?\[31mv?il\]' ||
		st_fail "the -o EXEC line does not show the name with ? for its control bytes: $ZLINE"
	OUT=""
	evil_run
	printf '%s\n' "$ZLINE" | grep -q 'e?\[31mv?il\]' ||
		st_fail "the EXEC line on stderr does not show the name with ? for its control bytes: $ZLINE"
}

# A children file past 8 KiB (1,500 children, 5 to 8 bytes each) was cut
# short and rejected, so polling lost every child past the first thousand.
@test "--no-netlink: 1,500 children alive at once are all found (children file past 8 KiB)" {
	[ -x "$WL/fanout" ] || st_fail "workload $WL/fanout missing (run make workloads)"
	stj --no-netlink -- "$WL/fanout" 1500 1500
	assert_status 0
	assert_json .processes -ge 1501
}

# A recorded command line is as untrusted as the recording (a file passed
# around): this one holds a CSI both as the UTF-8 of U+009B (c2 9b) and as
# the raw byte 9b, and an ESC. Every way of showing the run, `spacetime
# runs`, the summary of `spacetime replay` without a terminal, and the live
# summary (-s, on stderr and in an -o file), must print none of those bytes
# raw, but U+FFFD for each in a UTF-8 locale and '?' for each byte in C.
C1_ARG=$(printf 'a\302\233b\233c\033[31md')
C1_UTF8=$(printf 'a\357\277\275b\357\277\275c\357\277\275[31md')
C1_C='a??b?c?[31md'

# c1_record [-o FILE]: records sh -c 'exit 0' sh C1_ARG with -s into $DB, in
# a UTF-8 locale (its summary in $stderr).
c1_record() {
	DB="$BATS_TEST_TMPDIR/c1.db"
	ST_WRAP=(env LC_ALL=C.UTF-8)
	st -s "$@" --record "$DB" -- sh -c 'exit 0' sh "$C1_ARG"
	ST_WRAP=()
	assert_status 0
}

# assert_no_raw_controls FILE WHAT: no ESC and no byte 9b (alone, or in c2 9b)
# in FILE; shows where they are when there are.
assert_no_raw_controls() {
	if LC_ALL=C grep -q "$(printf '[\033\233]')" "$1"; then
		echo "--- $2, bytes:" >&2
		od -An -tx1 -c "$1" | head -n 60 >&2
		st_fail "$2 holds a raw ESC or 0x9b byte"
	fi
}

# assert_shown FILE WHAT TEXT: FILE has a line holding TEXT (bytes) after
# ' sh ', where the command line shows.
assert_shown() {
	LC_ALL=C grep -qF " sh $3" "$1" || {
		echo "--- $2:" >&2
		od -An -tx1 -c "$1" | head -n 60 >&2
		st_fail "$2 does not show the argument as '$3'"
	}
}

@test "recorded C1 controls and ESC: spacetime runs shows U+FFFD (or ?), never the raw bytes" {
	c1_record
	local f="$BATS_TEST_TMPDIR/runs.out"
	LC_ALL=C.UTF-8 "$SPACETIME" runs --db "$DB" >"$f" 2>&1 </dev/null || st_fail "spacetime runs failed: $(cat "$f")"
	assert_no_raw_controls "$f" "spacetime runs (C.UTF-8)"
	assert_shown "$f" "spacetime runs (C.UTF-8)" "$C1_UTF8"
	LC_ALL=C "$SPACETIME" runs --db "$DB" >"$f" 2>&1 </dev/null || st_fail "spacetime runs failed: $(cat "$f")"
	assert_no_raw_controls "$f" "spacetime runs (C)"
	assert_shown "$f" "spacetime runs (C)" "$C1_C"
}

@test "recorded C1 controls and ESC: the summary of spacetime replay shows U+FFFD (or ?), never the raw bytes" {
	c1_record
	local f="$BATS_TEST_TMPDIR/replay.out"
	LC_ALL=C.UTF-8 "$SPACETIME" replay --db "$DB" >"$f" 2>&1 </dev/null || st_fail "spacetime replay failed: $(cat "$f")"
	assert_no_raw_controls "$f" "the replay's summary (C.UTF-8)"
	assert_shown "$f" "the replay's summary (C.UTF-8)" "$C1_UTF8"
	LC_ALL=C "$SPACETIME" replay --db "$DB" >"$f" 2>&1 </dev/null || st_fail "spacetime replay failed: $(cat "$f")"
	assert_no_raw_controls "$f" "the replay's summary (C)"
	assert_shown "$f" "the replay's summary (C)" "$C1_C"
}

@test "C1 controls and ESC in the command line: the live summary (-s, -o) shows U+FFFD (or ?), never the raw bytes" {
	local f="$BATS_TEST_TMPDIR/summary.err" o="$BATS_TEST_TMPDIR/summary.txt"
	c1_record
	printf '%s\n' "$stderr" >"$f"
	assert_no_raw_controls "$f" "the summary on stderr (C.UTF-8)"
	assert_shown "$f" "the summary on stderr (C.UTF-8)" "$C1_UTF8"
	c1_record -o "$o"
	assert_no_raw_controls "$o" "the -o summary (C.UTF-8)"
	assert_shown "$o" "the -o summary (C.UTF-8)" "$C1_UTF8"
	st -s -o "$o" -- sh -c 'exit 0' sh "$C1_ARG"
	assert_status 0
	printf '%s\n' "$stderr" >"$f"
	assert_no_raw_controls "$f" "the summary on stderr (C)"
	assert_no_raw_controls "$o" "the -o summary (C)"
	assert_shown "$o" "the -o summary (C)" "$C1_C"
}

# SQLite's error messages quote the file: a recording whose schema holds a
# table named with ESC and a C1 CSI, or whose NOT NULL column holds a NULL
# (quick_check names the table), is refused in one line that quotes the name
# as plain ASCII ('?' for each of those bytes).
@test "a recording whose SQLite errors quote names with ESC and C1 controls: one plain line" {
	command -v sqlite3 >/dev/null || st_fail "sqlite3 missing (make deps)"
	local db="$BATS_TEST_TMPDIR/quote.db" f="$BATS_TEST_TMPDIR/quote.err" t
	t=$(printf '\033[31mT\302\233')
	st -s --record "$db" -- true
	assert_status 0
	sqlite3 "$db" "CREATE TABLE \"$t\" (x); INSERT INTO \"$t\" VALUES (NULL); PRAGMA writable_schema = ON;
		UPDATE sqlite_master SET sql = replace(sql, '(x)', '(x NOT NULL)') WHERE name = '$t'"
	# (the schema check names the table it refuses before quick_check can)
	LC_ALL=C.UTF-8 "$SPACETIME" runs --db "$db" >/dev/null 2>"$f" </dev/null && st_fail "spacetime runs read a corrupt recording"
	assert_no_raw_controls "$f" "the message about a table spacetime never writes"
	assert_one_line "$(cat "$f")" "the message about a table spacetime never writes"
	LC_ALL=C grep -qF "holds '?[31mT??'" "$f" || st_fail "the message does not quote the table as ?[31mT??: $(cat -v "$f")"
	st -s --record "$db.2" -- true
	assert_status 0
	sqlite3 "$db.2" "PRAGMA writable_schema = ON; INSERT INTO sqlite_master VALUES ('table', '$t', 'E', 99, 'CREATE TABLE e(')"
	LC_ALL=C.UTF-8 "$SPACETIME" replay --db "$db.2" >/dev/null 2>"$f" </dev/null && st_fail "spacetime replay read a broken schema"
	assert_no_raw_controls "$f" "the message about a broken schema"
	assert_one_line "$(cat "$f")" "the message about a broken schema"
	LC_ALL=C grep -qF 'malformed database schema (?[31mT??)' "$f" || st_fail "the message does not quote the table as ?[31mT??: $(cat -v "$f")"
}
