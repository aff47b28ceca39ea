#!/usr/bin/env bats
# Faults: bad output paths refused before the command starts, and faults
# injected during a run (full and read-only file systems, few file
# descriptors, netlink overruns, /proc files vanishing, closed standard
# streams). Each test asserts the one line spacetime prints and that what
# the user recorded survives: the summary, the JSON, the exit status.

load helpers

setup() {
	st_require
	MARK="$BATS_TEST_TMPDIR/ran"
	rm -f "$MARK"
}

teardown() {
	local m
	# mounts a test made, innermost first
	for m in "${MOUNTS[@]}"; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
}

MOUNTS=()

# st_mount DIR OPTS...: mounts a tmpfs on DIR (made), unmounted in teardown.
st_mount() {
	local d=$1
	shift
	mkdir -p "$d"
	mount -t tmpfs "$@" tmpfs "$d" 2>/dev/null || return 1
	MOUNTS=("$d" "${MOUNTS[@]}")
}

# assert_not_run: the command (touch $MARK) did not run.
assert_not_run() {
	[ ! -e "$MARK" ] || st_fail "the command ran although an output path was bad"
}

# assert_stderr_is LINE: stderr is exactly LINE.
assert_stderr_is() {
	[ "$stderr" = "$1" ] || st_fail "stderr: expected exactly '$1'"
}

# --- output paths checked before the command starts --------------------

@test "paths: --export to a missing directory is refused before the command runs" {
	local d="$BATS_TEST_TMPDIR/no/such/dir"
	st -s -o /dev/null --export "$d" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot export to $d: No such file or directory (the command was not started)"
	assert_not_run
}

@test "paths: --export to a file is refused before the command runs" {
	local f="$BATS_TEST_TMPDIR/afile"
	echo keep >"$f"
	st -s -o /dev/null --export "$f" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot export to $f: Not a directory (the command was not started)"
	assert_not_run
	[ "$(cat "$f")" = keep ] || st_fail "$f was changed"
}

@test "paths: --export to a directory uid 65534 cannot write is refused, nothing left in it" {
	st_is_root || skip "needs root to run as uid $ST_NOBODY"
	local d
	d=$(st_world_dir) || st_fail "st_world_dir failed"
	mkdir "$d/ro"
	chmod 755 "$d/ro"
	st_nobody_can_run "$d" || skip "uid $ST_NOBODY cannot run the copy in $d"
	ST_WRAP=("${ST_SETPRIV[@]}")
	ST_BIN="$d/spacetime"
	MARK="$d/out/ran"
	st -s -o /dev/null --export "$d/ro" -- touch "$MARK"
	rm -rf "$d/spacetime" "$d/workloads"
	assert_status 2
	assert_stderr_is "spacetime: cannot export to $d/ro: Permission denied (the command was not started)"
	assert_not_run
	[ -z "$(ls -A "$d/ro")" ] || st_fail "files left in $d/ro: $(ls -A "$d/ro")"
	rm -rf "$d"
}

@test "paths: --export to a read-only file system is refused before the command runs" {
	st_is_root || skip "needs root to mount a read-only tmpfs"
	local d="$BATS_TEST_TMPDIR/rofs"
	st_mount "$d" -o ro,size=64k || skip "cannot mount tmpfs here"
	st -s -o /dev/null --export "$d" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot export to $d: Read-only file system (the command was not started)"
	assert_not_run
}

@test "paths: a good --export directory is left with the snapshot only (the check leaves nothing)" {
	local d="$BATS_TEST_TMPDIR/good"
	mkdir "$d"
	st -s -o /dev/null --export "$d" --export-format json -- touch "$MARK"
	assert_status 0
	[ -e "$MARK" ] || st_fail "the command did not run"
	[ "$(ls -A "$d" | wc -l)" -eq 1 ] && ls "$d"/touch-*.json >/dev/null ||
		st_fail "expected one touch-*.json in $d, found: $(ls -A "$d")"
}

@test "paths: --json into a missing directory, a file, an unwritable directory" {
	local f="$BATS_TEST_TMPDIR/afile"
	echo keep >"$f"
	st -s -o /dev/null --json "$BATS_TEST_TMPDIR/no/dir/x.json" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot write $BATS_TEST_TMPDIR/no/dir/x.json: No such file or directory"
	assert_not_run
	st -s -o /dev/null --json "$f/x.json" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot write $f/x.json: Not a directory"
	assert_not_run
	st_is_root || return 0
	local d
	d=$(st_world_dir) || st_fail "st_world_dir failed"
	mkdir "$d/ro"
	st_nobody_can_run "$d" || skip "uid $ST_NOBODY cannot run the copy in $d"
	ST_WRAP=("${ST_SETPRIV[@]}")
	ST_BIN="$d/spacetime"
	MARK="$d/out/ran"
	st -s -o /dev/null --json "$d/ro/x.json" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot write $d/ro/x.json: Permission denied"
	assert_not_run
	rm -rf "$d"
}

@test "paths: -o into a missing directory and into a file" {
	local f="$BATS_TEST_TMPDIR/afile"
	echo keep >"$f"
	st -s -o "$BATS_TEST_TMPDIR/no/dir/s.txt" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot write $BATS_TEST_TMPDIR/no/dir/s.txt: No such file or directory"
	assert_not_run
	st -s -o "$f/s.txt" -- touch "$MARK"
	assert_status 2
	assert_stderr_is "spacetime: cannot write $f/s.txt: Not a directory"
	assert_not_run
}

# The dashboard saves the command's output in $TMPDIR; script(1) gives it a
# terminal. The run stops at the check, so nothing waits for a key.
st_dash_tmpdir() {
	ST_CMD=(script -qec "TERM=xterm TMPDIR=$1 $ST_BIN -- touch $MARK" /dev/null)
	st_capture "${ST_CMD[@]}"
	stderr=$(printf '%s' "$output" | tr -d '\r')
}

@test "paths: the dashboard's output log: TMPDIR missing, a file, unwritable" {
	command -v script >/dev/null || skip "no script(1)"
	local f="$BATS_TEST_TMPDIR/afile"
	echo keep >"$f"
	st_dash_tmpdir "$BATS_TEST_TMPDIR/nodir"
	assert_status 2
	assert_stderr_is "spacetime: cannot save the command's output in $BATS_TEST_TMPDIR/nodir: No such file or directory (set TMPDIR to a writable directory, or use -s)"
	assert_not_run
	st_dash_tmpdir "$f"
	assert_status 2
	assert_stderr_is "spacetime: cannot save the command's output in $f: Not a directory (set TMPDIR to a writable directory, or use -s)"
	assert_not_run
	st_is_root || return 0
	local d
	d=$(st_world_dir) || st_fail "st_world_dir failed"
	mkdir "$d/ro"
	st_nobody_can_run "$d" || skip "uid $ST_NOBODY cannot run the copy in $d"
	MARK="$d/out/ran"
	ST_CMD=(script -qec "TERM=xterm TMPDIR=$d/ro ${ST_SETPRIV[*]} $d/spacetime -- touch $MARK" /dev/null)
	st_capture "${ST_CMD[@]}"
	stderr=$(printf '%s' "$output" | tr -d '\r')
	assert_status 2
	assert_stderr_is "spacetime: cannot save the command's output in $d/ro: Permission denied (set TMPDIR to a writable directory, or use -s)"
	assert_not_run
	rm -rf "$d"
}
