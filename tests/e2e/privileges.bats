#!/usr/bin/env bats
# The privileged paths (root only): sudo (simulated by SUDO_* in the
# environment), file capabilities on a copy of the binary, and plain root.
# What the command sees is reported by the showcreds workload.

load helpers

ZERO_CAPS=0000000000000000

setup_file() { st_priv_file_setup; }
teardown_file() { st_priv_file_teardown; }

setup() {
	st_priv_setup || return 1
	st_nobody_can_run "$ST_PRIV_DIR" || {
		echo "uid $ST_NOBODY cannot run $ST_PRIV_DIR/spacetime, $ST_PRIV_DIR/workloads/fill or write $ST_PRIV_DIR/out" >&2
		return 1
	}
}

# --- sudo: root with SUDO_UID/SUDO_GID/SUDO_USER set ---------------------------

sudo_run() {
	ST_WRAP=(env SUDO_UID=$ST_NOBODY SUDO_GID=$ST_NOBODY SUDO_USER=nobody)
	ST_SUMMARY="$ST_OUTDIR/sudo-summary.txt"
	st_cached sudo -o "$ST_SUMMARY" -- "$WL/showcreds"
}

@test "sudo: the command runs as SUDO_UID" {
	sudo_run
	assert_status 0
	assert_one_line "$output" "showcreds stdout"
	assert_creds "$output" uid $ST_NOBODY
}

@test "sudo: the command holds no capabilities (CapPrm, CapEff, CapAmb zero)" {
	sudo_run
	assert_status 0
	assert_creds "$output" CapPrm $ZERO_CAPS
	assert_creds "$output" CapEff $ZERO_CAPS
	assert_creds "$output" CapAmb $ZERO_CAPS
}

@test "sudo: the command runs with SUDO_GID and without root's group" {
	sudo_run
	assert_status 0
	assert_creds "$output" gid $ST_NOBODY
	local groups
	groups=$(creds_field "$output" groups)
	[[ ,$groups, != *,0,* ]] || st_fail "supplementary groups include 0: $groups"
}

@test "sudo: spacetime keeps netlink for itself (mode netlink)" {
	sudo_run
	assert_json .mode = netlink
}

@test "sudo: taskstats registered as root still delivers after becoming SUDO_UID" {
	sudo_run
	assert_json .taskstats = true
	assert_json .taskstats_records -ge 1
}

@test "sudo: the --json file is owned by SUDO_UID" {
	sudo_run
	assert_json_valid
	local owner
	owner=$(stat -c %u "$JSON")
	[ "$owner" = $ST_NOBODY ] || st_fail "$JSON is owned by uid $owner, expected $ST_NOBODY"
}

@test "sudo: the -o summary file is owned by SUDO_UID" {
	sudo_run
	[ -s "$ST_SUMMARY" ] || st_fail "no summary written to $ST_SUMMARY"
	local owner
	owner=$(stat -c %u "$ST_SUMMARY")
	[ "$owner" = $ST_NOBODY ] || st_fail "$ST_SUMMARY is owned by uid $owner, expected $ST_NOBODY"
}

# --- file capabilities: cap_net_admin=ep on a copy, run as nobody -------------

# Makes $ST_PRIV_DIR/spacetime-caps with cap_net_admin=ep, or skips when the
# filesystem cannot honour file capabilities.
make_caps_copy() {
	local copy="$ST_PRIV_DIR/spacetime-caps"
	if findmnt -n -o OPTIONS --target "$ST_PRIV_DIR" | tr ',' '\n' | grep -qx nosuid; then
		skip "$ST_PRIV_DIR is on a nosuid filesystem: file capabilities are ignored there"
	fi
	if [ ! -e "$copy" ]; then
		cp "$SPACETIME" "$copy.tmp" && chmod 755 "$copy.tmp"
		local err
		err=$(setcap cap_net_admin=ep "$copy.tmp" 2>&1) || {
			rm -f "$copy.tmp"
			skip "setcap failed here: $err"
		}
		mv "$copy.tmp" "$copy"
	fi
	getcap "$copy" | grep -q cap_net_admin || {
		echo "setcap did not stick on $copy: $(getcap "$copy")" >&2
		return 1
	}
	ST_BIN=$copy
}

caps_run() {
	make_caps_copy
	ST_WRAP=("${ST_SETPRIV[@]}")
	st_cached filecaps -- "$WL/showcreds"
}

@test "file caps: a cap_net_admin copy run as nobody follows the tree over netlink" {
	caps_run
	assert_status 0
	assert_json .mode = netlink
}

@test "file caps: taskstats registered with the capability still delivers after the drop" {
	caps_run
	assert_json .taskstats = true
	assert_json .taskstats_records -ge 1
}

@test "file caps: the command runs as nobody with no capabilities" {
	caps_run
	assert_status 0
	assert_one_line "$output" "showcreds stdout"
	assert_creds "$output" uid $ST_NOBODY
	assert_creds "$output" CapPrm $ZERO_CAPS
	assert_creds "$output" CapEff $ZERO_CAPS
	assert_creds "$output" CapAmb $ZERO_CAPS
}

# The receive buffers of spacetime's netlink sockets as the kernel sized them
# (ss -m: rb, in bytes), while a run of the binary $1 as nobody goes on.
sock_buffers() {
	local bin=$1
	"${ST_SETPRIV[@]}" "$bin" -s --no-record -- sleep 3 </dev/null >/dev/null 2>&1 &
	local spid=$! i rb=""
	for i in $(seq 50); do
		rb=$(ss -f netlink -m 2>/dev/null | grep -E "[a-z]+:[^ ]*/$spid[[:space:]]" | grep -o 'rb[0-9]*' | tr -d rb)
		[ "$(printf '%s\n' $rb | grep -c .)" -ge 2 ] && break
		sleep 0.05
	done
	wait $spid || true
	printf '%s\n' $rb
}

@test "file caps: spacetime's socket buffers stay within rmem_max, as any user's would" {
	command -v ss >/dev/null || st_fail "ss (iproute2) is missing: make deps"
	make_caps_copy
	local rmem max rb n=0
	rmem=$(cat /proc/sys/net/core/rmem_max)
	max=$((2 * rmem)) # the kernel doubles what SO_RCVBUF asks for, for its overhead
	rb=$(sock_buffers "$ST_BIN")
	for b in $rb; do
		n=$((n + 1))
		[ "$b" -le "$max" ] || st_fail "a socket holds a $b-byte buffer, past rmem_max ($rmem, so $max): $rb"
	done
	# the proc connector (one or two sockets) and taskstats
	[ "$n" -ge 2 ] || st_fail "found $n netlink sockets of spacetime: $rb"
}

# The variables glibc removes from a secure-mode (AT_SECURE) process: the
# command runs unprivileged, so it must get them as it would without spacetime.
SECURE_ENV=(LD_LIBRARY_PATH=/st-test-lib TMPDIR=/st-test-tmp LOCALDOMAIN=st.test MALLOC_ARENA_MAX=2)

# env_same: the command's whole environment (sorted) under spacetime equals a
# direct run's, with the secure-mode variables set ($_ names the program that
# started env, which differs by design).
env_same() {
	local direct
	direct=$("${ST_WRAP[@]}" env | grep -v '^_=' | sort)
	[[ "$direct" == *LD_LIBRARY_PATH=/st-test-lib* ]] || st_fail "the wrapper lost the variables: $direct"
	st -s -o /dev/null -- env
	assert_status 0
	diff <(echo "$direct") <(echo "$output" | grep -v '^_=' | sort) || st_fail "the environment differs (< direct, > under spacetime)"
}

@test "file caps: the command gets the environment a direct run gets (LD_LIBRARY_PATH, TMPDIR...)" {
	make_caps_copy
	ST_WRAP=(env "${SECURE_ENV[@]}" "${ST_SETPRIV[@]}")
	env_same
}

# --- a set-user-ID root install (not the documented one, but packagers do it) --

@test "setuid root: the command runs as the real user with no capabilities and no root euid" {
	local copy="$ST_PRIV_DIR/spacetime-suid"
	if findmnt -n -o OPTIONS --target "$ST_PRIV_DIR" | tr ',' '\n' | grep -qx nosuid; then
		skip "$ST_PRIV_DIR is on a nosuid filesystem"
	fi
	cp "$SPACETIME" "$copy" && chown 0:0 "$copy" && chmod 4755 "$copy"
	ST_BIN=$copy
	ST_WRAP=("${ST_SETPRIV[@]}")
	st -s -o /dev/null -- "$WL/showcreds"
	assert_status 0
	assert_creds "$output" uid $ST_NOBODY
	assert_creds "$output" CapPrm $ZERO_CAPS
	assert_creds "$output" CapEff $ZERO_CAPS
	assert_creds "$output" CapAmb $ZERO_CAPS
	# real, effective, saved and file-system uids of the command, each line
	# tagged with who printed it: the wrapper (as nobody, before it execs the
	# set-user-ID copy) and the command spacetime ran
	ST_WRAP=("${ST_SETPRIV[@]}" sh -c 'echo "wrapper $(grep ^Uid: /proc/self/status)"; exec "$@"' sh)
	st -s -o /dev/null -- sh -c 'echo "command $(grep ^Uid: /proc/self/status)"'
	assert_status 0
	local uids="Uid:[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534$"
	[[ "$(printf '%s\n' "$output" | grep '^wrapper ')" =~ ^wrapper\ $uids ]] ||
		st_fail "the wrapper did not run as uid $ST_NOBODY: $output"
	local cmd
	cmd=$(printf '%s\n' "$output" | grep '^command ' || true)
	assert_one_line "$cmd" "the command's Uid: line"
	[[ "$cmd" =~ ^command\ $uids ]] || st_fail "the command kept a root uid: $cmd"
	# and the environment glibc pruned in secure mode is the command's again
	ST_WRAP=(env "${SECURE_ENV[@]}" "${ST_SETPRIV[@]}")
	env_same
}

# --- plain root, no SUDO_* ------------------------------------------------------

@test "root without SUDO_UID: the command runs as root (uid=0)" {
	stj -- "$WL/showcreds"
	assert_status 0
	assert_one_line "$output" "showcreds stdout"
	assert_creds "$output" uid 0
}

@test "root without SUDO_UID: the command's credentials match a run without spacetime" {
	local direct
	direct=$("$WL/showcreds")
	stj -- "$WL/showcreds"
	assert_status 0
	[ "$output" = "$direct" ] || st_fail "showcreds under spacetime differs from a direct run: '$direct'"
}
