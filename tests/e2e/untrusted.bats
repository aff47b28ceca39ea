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
