#!/usr/bin/env bash
# run-san.sh: the suite against sanitized builds (make check-san builds them).
#   1. $SAN_B (ASan+UBSan spacetime and unit tests, plain workloads): every
#      unit test and the e2e+ui suites (tests/run-tests.sh with B, SPACETIME,
#      WORKLOADS pointing there);
#   2. $TSAN_B (TSan): the unit tests named in TSAN_UNITS.
# Every sanitized process writes its report to a file in a fresh directory
# (log_path) instead of stderr, which many tests capture or discard;
# run-tests.sh fails the run when any file appears there and prints it. The
# e2e and ui helpers name the file after the test (ST_SAN_TAG).
# Each part ends with its own "check: N passed, M failed" line; the exit
# status is non-zero when either failed.
set -u
cd "$(dirname "$0")/.." || exit 2
SAN_B=${SAN_B:-build-san}
TSAN_B=${TSAN_B:-build-tsan}
TSAN_UNITS=${TSAN_UNITS:-test_store test_collector}
logs=$(mktemp -d "${TMPDIR:-/tmp}/spacetime-san.XXXXXX") || exit 2
# the unprivileged tests run spacetime as uid 65534: it must be able to write
# its report there
chmod 1777 "$logs"
trap 'rm -rf "$logs"' EXIT

# Common to ASan and UBSan: stop at the first finding with a distinctive
# exit status (86), a symbolized stack trace, the report in a file.
common="exitcode=86:print_stacktrace=1:log_path=$logs/asan/san"
# detect_leaks: LeakSanitizer runs at exit. It needs to ptrace the process
# (from a helper thread); that is refused for a process the kernel made
# non-dumpable (started with file capabilities, or after it changed its
# uids), where LSan reports "LeakSanitizer has encountered a fatal error"
# and exits: see the notes in tests/e2e/helpers.bash (ST_SAN_*).
export ASAN_OPTIONS="$common.asan:halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="$common.ubsan:halt_on_error=1"
export LSAN_OPTIONS="exitcode=86"
# each part its own directory: a report is counted once, by its own part
mkdir "$logs/asan" "$logs/tsan" && chmod 1777 "$logs/asan" "$logs/tsan" || exit 2
export TSAN_OPTIONS="exitcode=86:halt_on_error=1:second_deadlock_stack=1:log_path=$logs/tsan/san.tsan"

rc=0
echo "# --- ASan+UBSan: $SAN_B ---"
SAN_LOG_DIR=$logs/asan B=$SAN_B SPACETIME="$PWD/$SAN_B/spacetime" WORKLOADS="$PWD/$SAN_B/workloads" \
	tests/run-tests.sh || rc=1
echo "# --- TSan: $TSAN_B ($TSAN_UNITS) ---"
# gcc 12's TSan aborts ("unexpected memory mapping") when the kernel places
# mappings with more randomness than it expects (vm.mmap_rnd_bits > 28):
# without address randomization, where the container allows it, it cannot.
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)
SAN_LOG_DIR=$logs/tsan B=$TSAN_B UNITS=$TSAN_UNITS SUITES= "${norand[@]}" tests/run-tests.sh || rc=1
exit $rc
