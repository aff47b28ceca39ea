# helpers.bash: shared setup and assertions for the end-to-end tests.
#
# Self-locating: the repository is two levels above this file. Override the
# binary with SPACETIME=/path/to/spacetime, the workloads directory with
# WORKLOADS=dir, the per-run time limit (seconds) with ST_TIMEOUT.
#
# Every run of spacetime goes through st (or stj / st_cached), which records
# the command line, the exit status, stdout ($output) and stderr ($stderr);
# every assertion below prints all of that, and the JSON, when it fails.

bats_require_minimum_version 1.5.0

ST_ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
SPACETIME="${SPACETIME:-$ST_ROOT/spacetime}"
case "$SPACETIME" in
/*) ;;
*/*) SPACETIME="$PWD/$SPACETIME" ;;
*) SPACETIME="$(command -v "$SPACETIME" || echo "$SPACETIME")" ;;
esac
WL="${WORKLOADS:-$ST_ROOT/build/workloads}"
ST_TIMEOUT="${ST_TIMEOUT:-180}"
# The user spacetime drops to when run as root under sudo, and the one the
# unprivileged suite runs as.
ST_NOBODY=65534
ST_SETPRIV=(setpriv --reuid=$ST_NOBODY --regid=$ST_NOBODY --clear-groups --inh-caps=-all)

# Results must not depend on how the suite itself was started: under sudo
# these would make spacetime drop privileges in every test.
unset SUDO_UID SUDO_GID SUDO_USER SUDO_COMMAND DOAS_USER PKEXEC_UID
export LC_ALL=C
# Every run is recorded by default (~/.local/state/spacetime/runs.db): the
# tests' runs go to a directory of this test file's instead, made so that
# the unprivileged user of some tests can record there too.
export XDG_STATE_HOME="${BATS_FILE_TMPDIR:-${TMPDIR:-/tmp}}/state"
# and no config file of the developer's changes a default a test asserts: an
# empty config directory of the tests' own (a test may point elsewhere)
export XDG_CONFIG_HOME="${BATS_FILE_TMPDIR:-${TMPDIR:-/tmp}}/config"
mkdir -p "$XDG_CONFIG_HOME" 2>/dev/null
mkdir -p "$XDG_STATE_HOME" 2>/dev/null && chmod 1777 "$XDG_STATE_HOME" "${BATS_FILE_TMPDIR:-/nonexistent}" 2>/dev/null

# Under make check-san (tests/run-san.sh) every sanitizer report goes to a
# file in SAN_LOG_DIR; name it after this test, so the failure says which.
# (The options as run-san.sh set them are kept: a test inherits what the
# file's setup exported.)
if [ -n "${SAN_LOG_DIR:-}" ]; then
	export ST_SAN_ASAN="${ST_SAN_ASAN-${ASAN_OPTIONS:-}}" ST_SAN_UBSAN="${ST_SAN_UBSAN-${UBSAN_OPTIONS:-}}"
	st_san_tag="$(basename "$BATS_TEST_FILENAME" .bats).${BATS_TEST_NAME:-setup_file}"
	export ASAN_OPTIONS="${ST_SAN_ASAN//"$SAN_LOG_DIR/san."/"$SAN_LOG_DIR/$st_san_tag."}"
	export UBSAN_OPTIONS="${ST_SAN_UBSAN//"$SAN_LOG_DIR/san."/"$SAN_LOG_DIR/$st_san_tag."}"
fi

# Defaults for the run helpers; a suite's setup() may change them.
ST_WRAP=()          # words put before the binary (env ..., setpriv ...)
ST_BIN="$SPACETIME" # the binary to run
ST_OUTDIR=""        # where JSON and cached runs go (default BATS_FILE_TMPDIR)
JSON=""

# st_require: fails the test unless the binary and workloads are built.
st_require() {
	if [ ! -x "$ST_BIN" ]; then
		echo "spacetime binary not found or not executable: $ST_BIN (run make spacetime, or set SPACETIME)" >&2
		return 1
	fi
	local w
	for w in fill forkfill threads forkn exitwith killself showcreds storm nlprobe; do
		if [ ! -x "$WL/$w" ]; then
			echo "workload $WL/$w missing (run make workloads, or set WORKLOADS)" >&2
			return 1
		fi
	done
}

st_is_root() { [ "$(id -u)" -eq 0 ]; }

# st_kernel_has FEATURE: whether the kernel lets this process use FEATURE,
# asked with the nlprobe workload (tests/workloads/nlprobe.c), which uses it
# on a child of its own, as this process (root in the privileged tests), and
# never asks spacetime: a skip is decided by the machine, not by the product
# under test. FEATURE: events (process events
# over the netlink proc connector), filter (their per-socket filtering,
# Linux >= 6.6), taskstats (the exit records of the taskstats family). When
# it has not, ST_KERNEL_WHY says why (for the skip's reason).
st_kernel_has() {
	local want got
	case $1 in
	events) want=netlink ;;
	filter) want=filtered ;;
	taskstats) want=taskstats ;;
	*)
		echo "st_kernel_has: unknown feature '$1'" >&2
		return 2
		;;
	esac
	got=$("$WL/nlprobe" "$1" 2>"$BATS_TEST_TMPDIR/nlprobe.err")
	ST_KERNEL_WHY="nlprobe $1: ${got:-no answer}; $(cat "$BATS_TEST_TMPDIR/nlprobe.err")"
	[ "$got" = "$want" ]
}

# st_capture CMD...: runs CMD under a time limit, stdin from /dev/null; sets
# status, output (stdout) and stderr like bats' run --separate-stderr (without
# run's warnings about statuses such as 127, which these tests expect).
st_capture() {
	local f="$BATS_TEST_TMPDIR/st-capture"
	status=0
	timeout -k 10 "$ST_TIMEOUT" "$@" </dev/null >"$f.out" 2>"$f.err" || status=$?
	output=$(cat "$f.out")
	stderr=$(cat "$f.err")
}

# st ARGS...: runs spacetime ARGS (through ST_WRAP) with st_capture.
st() {
	ST_CMD=("${ST_WRAP[@]}" "$ST_BIN" "$@")
	st_capture "${ST_CMD[@]}"
}

# stj ARGS...: like st, with -s and --json into a fresh file named $JSON.
stj() {
	JSON="${ST_OUTDIR:-$BATS_FILE_TMPDIR}/t$BATS_TEST_NUMBER.json"
	rm -f "$JSON"
	st -s --json "$JSON" "$@"
}

# st_cached NAME ARGS...: like stj, but the run happens once per test file
# (by the first test that asks for it) and later tests reuse its results, so
# several tests can each assert one property of an expensive run. When
# ST_BEFORE / ST_AFTER name functions, they run just before / after it.
st_cached() {
	local name=$1
	shift
	local d="${ST_OUTDIR:-$BATS_FILE_TMPDIR}/cache-$name"
	JSON="$d.json"
	if [ ! -e "$d.status" ]; then
		rm -f "$JSON"
		ST_CMD=("${ST_WRAP[@]}" "$ST_BIN" -s --json "$JSON" "$@")
		printf '%q ' "${ST_CMD[@]}" >"$d.cmd"
		[ -z "${ST_BEFORE:-}" ] || "$ST_BEFORE"
		local rc=0
		timeout -k 10 "$ST_TIMEOUT" "${ST_CMD[@]}" </dev/null >"$d.stdout" 2>"$d.stderr" || rc=$?
		[ -z "${ST_AFTER:-}" ] || "$ST_AFTER"
		echo "$rc" >"$d.status"
	fi
	status=$(cat "$d.status")
	output=$(cat "$d.stdout")
	stderr=$(cat "$d.stderr")
	ST_CMD=("(cached run)" "$(cat "$d.cmd")")
}

# st_dump: prints what the last run did, for a failing assertion.
st_dump() {
	{
		echo "--- command: ${ST_CMD[*]:-?}"
		echo "--- exit status: ${status:-?}"
		echo "--- stdout:"
		printf '%s\n' "${output:-}" | head -n 40
		echo "--- stderr:"
		printf '%s\n' "${stderr:-}" | head -n 60
		if [ -n "$JSON" ]; then
			echo "--- json ($JSON):"
			if [ -e "$JSON" ]; then
				jq '.execs |= (if type == "array" and length > 3
					then .[:3] + ["... \(length - 3) more"] else . end)' "$JSON" 2>/dev/null ||
					head -c 4000 "$JSON"
			else
				echo "(no file)"
			fi
		fi
	} >&2
}

# st_fail MESSAGE: prints MESSAGE and the last run, and fails.
st_fail() {
	echo "FAILED: $*" >&2
	st_dump
	return 1
}

assert_status() {
	[ "$status" -eq "$1" ] || st_fail "exit status: expected $1, got $status"
}

# assert_json_valid: the last run wrote a JSON object to $JSON.
assert_json_valid() {
	[ -s "$JSON" ] || {
		st_fail "no JSON written to $JSON"
		return 1
	}
	jq -e 'type == "object"' "$JSON" >/dev/null 2>&1 || st_fail "$JSON is not a JSON object"
}

# jv EXPR: the jq -r value of EXPR in $JSON.
jv() { jq -r "$1" "$JSON"; }

# assert_json EXPR OP VALUE: OP is = or != (strings) or -eq -ne -ge -le -gt -lt
# (integers; a non-integer value fails).
assert_json() {
	local expr=$1 op=$2 want=$3 got
	assert_json_valid || return 1
	got=$(jq -r "$expr" "$JSON" 2>&1) || {
		st_fail "jq '$expr': $got"
		return 1
	}
	case $op in
	= | !=) [ "$got" "$op" "$want" ] ;;
	*) [[ $got =~ ^-?[0-9]+$ ]] && [ "$got" "$op" "$want" ] ;;
	esac || st_fail "JSON $expr: expected $op $want, got '$got'"
}

# assert_json_within EXPR TRUTH PCT: the number EXPR is within PCT percent of TRUTH.
assert_json_within() {
	local expr=$1 truth=$2 pct=$3 got
	assert_json_valid || return 1
	got=$(jq -r "$expr" "$JSON" 2>&1)
	awk -v g="$got" -v t="$truth" -v p="$pct" 'BEGIN {
		if (g !~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) exit 1
		d = g - t; if (d < 0) d = -d
		exit !(d <= t * p / 100) }' ||
		st_fail "JSON $expr: expected $truth ± $pct%, got '$got'"
}

# assert_one_line TEXT WHAT: TEXT is exactly one non-empty line.
assert_one_line() {
	local n
	n=$(printf '%s' "$1" | grep -c '')
	[ -n "$1" ] && [ "$n" -eq 1 ] || st_fail "$2: expected exactly one line, got $n"
}

# summary_has TEXT LABEL: TEXT has a line starting with LABEL (any case) and
# holding a number after it.
summary_has() {
	printf '%s\n' "$1" | grep -Eiq "^[[:space:]]*$2([^0-9]*)[0-9]" ||
		st_fail "summary has no '$2' line with a number"
}

# creds_field LINE KEY: the value of KEY=... in a showcreds line.
creds_field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# assert_creds LINE KEY VALUE: showcreds reported KEY=VALUE.
assert_creds() {
	local got
	got=$(creds_field "$1" "$2")
	[ "$got" = "$3" ] || st_fail "showcreds $2: expected '$3', got '$got' (line: $1)"
}

# For the privileged suites (privileges.bats, security.bats): a world-readable
# copy of the binary and workloads made once per file as root (st_priv_file_setup
# in setup_file, st_priv_file_teardown in teardown_file), and each test run from
# it (st_priv_setup in setup: skips unless root; sets WL and ST_OUTDIR).
st_priv_file_setup() {
	st_is_root || return 0
	ST_PRIV_DIR=$(st_world_dir) || ST_PRIV_DIR=""
	export ST_PRIV_DIR
}
st_priv_file_teardown() {
	if [ -n "${ST_PRIV_DIR:-}" ] && [ -d "$ST_PRIV_DIR" ]; then
		rm -rf "$ST_PRIV_DIR"
	fi
}
st_priv_setup() {
	st_is_root || skip "privileged paths need root"
	st_require
	[ -n "${ST_PRIV_DIR:-}" ] || {
		echo "setup_file could not make a world-readable copy of the binary and workloads" >&2
		return 1
	}
	# The workloads are run from the world-readable copy, so the dropped user
	# can exec them; the binary under test is the real one.
	WL="$ST_PRIV_DIR/workloads"
	ST_OUTDIR="$ST_PRIV_DIR/out"
	cd "$ST_PRIV_DIR"
}

# st_world_dir: makes a directory any user can traverse, holding copies of
# the binary (as spacetime, without file capabilities) and the workloads, and
# an out/ subdirectory anyone can write; prints its path.
st_world_dir() {
	local d
	d=$(mktemp -d "${ST_WORLD_TMP:-/tmp}/spacetime-e2e.XXXXXX") || return 1
	if chmod 755 "$d" &&
		mkdir "$d/out" "$d/workloads" && chmod 1777 "$d/out" &&
		cp "$SPACETIME" "$d/spacetime" && chmod 755 "$d/spacetime" &&
		cp "$WL"/* "$d/workloads/" && chmod 755 "$d/workloads" "$d/workloads"/*; then
		echo "$d"
	else
		rm -rf "$d"
		return 1
	fi
}

# st_as_nobody DIR: the next runs are uid 65534's with no capabilities (when
# root; as they are otherwise), of DIR's copies (st_world_dir), writing into
# DIR/out, from DIR.
st_as_nobody() {
	local d=$1
	[ -n "$d" ] && [ -d "$d" ] || {
		echo "could not make a world-readable copy of the binary and workloads" >&2
		return 1
	}
	if st_is_root; then
		ST_WRAP=("${ST_SETPRIV[@]}")
		st_nobody_can_run "$d" || {
			echo "uid $ST_NOBODY cannot run $d/spacetime, $d/workloads/fill or write $d/out" >&2
			return 1
		}
	else
		ST_WRAP=()
	fi
	ST_BIN="$d/spacetime"
	WL="$d/workloads"
	ST_OUTDIR="$d/out"
	cd "$d"
}

# st_nobody_can_run DIR: uid 65534 can execute DIR/spacetime and DIR/workloads/fill.
st_nobody_can_run() {
	"${ST_SETPRIV[@]}" sh -c 'test -x "$1/spacetime" && test -x "$1/workloads/fill" && test -w "$1/out"' sh "$1"
}

# st_require_workloads NAME...: fails the test unless each workload is built.
st_require_workloads() {
	local w
	for w in "$@"; do
		if [ ! -x "$WL/$w" ]; then
			echo "workload $WL/$w missing (run make workloads, or set WORKLOADS)" >&2
			return 1
		fi
	done
}

# assert_json_true EXPR: EXPR is the JSON boolean true in $JSON (not the
# string "true", not a missing key).
assert_json_true() {
	assert_json_valid || return 1
	jq -e "($1) == true" "$JSON" >/dev/null 2>&1 ||
		st_fail "JSON $1: expected the boolean true, got '$(jq -c "$1" "$JSON" 2>&1)'"
}

# assert_json_range EXPR LO HI: EXPR is a JSON number (not null, not a
# string) with LO <= EXPR <= HI (LO and HI are numbers).
assert_json_range() {
	local expr=$1 lo=$2 hi=$3
	assert_json_valid || return 1
	jq -e --argjson lo "$lo" --argjson hi "$hi" \
		"($expr) as \$v | (\$v | type) == \"number\" and \$v >= \$lo and \$v <= \$hi" \
		"$JSON" >/dev/null 2>&1 ||
		st_fail "JSON $expr: expected a number in [$lo, $hi], got '$(jq -c "$expr" "$JSON" 2>&1)'"
}

# assert_json_above EXPR MIN: EXPR is a JSON number greater than MIN.
assert_json_above() {
	local expr=$1 min=$2
	assert_json_valid || return 1
	jq -e --argjson min "$min" \
		"($expr) as \$v | (\$v | type) == \"number\" and \$v > \$min" \
		"$JSON" >/dev/null 2>&1 ||
		st_fail "JSON $expr: expected a number > $min, got '$(jq -c "$expr" "$JSON" 2>&1)'"
}
