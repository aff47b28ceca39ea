#!/usr/bin/env bats
# Dropping to the invoking user under sudo keeps all of its supplementary
# groups, however many (root only: makes a user in 264 groups, then removes
# it and them).

load helpers

ST_GROUPS_N=264

setup_file() {
	st_is_root || return 0
	ST_GUSER="stg$$"
	export ST_GUSER
	useradd -M -s /usr/sbin/nologin "$ST_GUSER"
	local i
	for ((i = 1; i <= ST_GROUPS_N; i++)); do
		groupadd -U "$ST_GUSER" "${ST_GUSER}x$i"
	done
}

teardown_file() {
	[ -n "${ST_GUSER:-}" ] || return 0
	local i
	for ((i = 1; i <= ST_GROUPS_N; i++)); do
		groupdel "${ST_GUSER}x$i" 2>/dev/null || true
	done
	userdel "$ST_GUSER" 2>/dev/null || true
}

setup() {
	st_is_root || skip "making a user in $ST_GROUPS_N groups needs root"
	st_require
}

# getgrouplist into 256 entries failed for more, and the command ran with
# only the user's primary group.
@test "sudo: a user in $ST_GROUPS_N groups runs the command with all of them" {
	local uid gid want
	uid=$(id -u "$ST_GUSER")
	gid=$(id -g "$ST_GUSER")
	want=$(id -G "$ST_GUSER" | wc -w)
	[ "$want" -eq $((ST_GROUPS_N + 1)) ] || st_fail "setup: $ST_GUSER is in $want groups, not $((ST_GROUPS_N + 1))"
	ST_WRAP=(env SUDO_UID="$uid" SUDO_GID="$gid" SUDO_USER="$ST_GUSER")
	st -s -o /dev/null -- id -G
	assert_status 0
	local got
	got=$(printf '%s\n' "$output" | wc -w)
	[ "$got" -eq "$want" ] || st_fail "the command ran in $got groups, expected $want: $output"
	[ "$(printf '%s\n' "$output" | tr ' ' '\n' | sort -n | tr '\n' ' ')" = \
		"$(id -G "$ST_GUSER" | tr ' ' '\n' | sort -n | tr '\n' ' ')" ] ||
		st_fail "the command's groups differ from id -G $ST_GUSER"
}
