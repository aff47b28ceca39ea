#!/usr/bin/env bats
# What the privileged paths must not give away (root only): the sockets
# spacetime opened with privilege, to other processes of the user it drops to;
# and whom it drops to, from the variables the elevation tools set.

load helpers

setup_file() {
	st_is_root || return 0
	ST_PRIV_DIR=$(st_world_dir) || ST_PRIV_DIR=""
	export ST_PRIV_DIR
}

teardown_file() {
	if [ -n "${ST_PRIV_DIR:-}" ] && [ -d "$ST_PRIV_DIR" ]; then
		rm -rf "$ST_PRIV_DIR"
	fi
}

setup() {
	st_is_root || skip "privileged paths need root"
	st_require
	[ -n "${ST_PRIV_DIR:-}" ] || {
		echo "setup_file could not make a world-readable copy of the binary and workloads" >&2
		return 1
	}
	WL="$ST_PRIV_DIR/workloads"
	st_require_workloads grabfd
	ST_OUTDIR="$ST_PRIV_DIR/out"
	cd "$ST_PRIV_DIR"
	BG_PID=""
}

teardown() {
	if [ -n "${BG_PID:-}" ]; then
		kill -TERM "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
	fi
}

# bg_start WRAP... -- : starts spacetime -s (through the words given) on a
# `sleep 30` in the background, sets BG_PID and BG_CHILD once it has dropped to
# uid $ST_NOBODY and started the command, or fails.
bg_start() {
	"$@" "$ST_BIN" -s -o /dev/null -- sleep 30 </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/bg.err" &
	BG_PID=$!
	BG_CHILD=""
	local i
	for i in $(seq 200); do
		if grep -Eq "^Uid:[[:space:]]+$ST_NOBODY[[:space:]]" "/proc/$BG_PID/status" 2>/dev/null; then
			BG_CHILD=$(cat "/proc/$BG_PID/task/$BG_PID/children" 2>/dev/null | awk '{print $1}')
			[ -n "$BG_CHILD" ] && grep -q sleep "/proc/$BG_CHILD/comm" 2>/dev/null && return 0
		fi
		sleep 0.05
	done
	echo "spacetime did not drop to uid $ST_NOBODY and start the command in 10 s; stderr:" >&2
	cat "$BATS_TEST_TMPDIR/bg.err" >&2
	return 1
}

# socket_fds PID: the fd numbers of PID's sockets (read as root).
socket_fds() {
	local l
	for l in /proc/"$1"/fd/*; do
		[[ $(readlink "$l" 2>/dev/null) == socket:* ]] && basename "$l"
	done
	return 0
}

@test "sudo: a process of the invoking user can neither ptrace spacetime nor take its netlink sockets" {
	bg_start env SUDO_UID=$ST_NOBODY SUDO_GID=$ST_NOBODY SUDO_USER=nobody
	local socks
	socks=$(socket_fds "$BG_PID" | tr '\n' ' ')
	[ -n "$socks" ] || st_fail "spacetime (pid $BG_PID) holds no sockets: netlink did not open"
	# the control: the same user's own process (the command) can be taken
	local ctl
	ctl=$("${ST_SETPRIV[@]}" "$WL/grabfd" "$BG_CHILD" 0)
	[ "$ctl" = "ptrace=ok getfd:0=ok" ] || st_fail "grabfd cannot even take the user's own command: $ctl"
	local got want="ptrace=EPERM"
	got=$("${ST_SETPRIV[@]}" "$WL/grabfd" "$BG_PID" $socks)
	for s in $socks; do want+=" getfd:$s=EPERM"; done
	[ "$got" = "$want" ] || st_fail "uid $ST_NOBODY got at spacetime (pid $BG_PID): '$got', expected '$want'"
	# nor can it list spacetime's descriptors
	if "${ST_SETPRIV[@]}" ls "/proc/$BG_PID/fd/" >/dev/null 2>&1; then
		st_fail "uid $ST_NOBODY can list /proc/$BG_PID/fd"
	fi
}
