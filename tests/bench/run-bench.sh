#!/usr/bin/env bash
# make bench: overhead and accuracy figures, measured side by side in one run.
# Prints each figure with its target; never fails on a figure (that is for a
# person to read), only on a broken run.
set -euo pipefail
cd "$(dirname "$0")/../.."
ST=./spacetime
WL=build/workloads
RUNS=${BENCH_RUNS:-8}
COPIES=${BENCH_COPIES:-6}
T=$(mktemp -d /tmp/spacetime-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {printf "%.6f\n", (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now_us() { echo $(( $(date +%s%N) / 1000 )); }

echo "== real build: spacetime's own sources x$COPIES, make -j2, $RUNS runs each, interleaved"
build() { rm -rf "$T/b"; make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2 "$@"; }
build >/dev/null # warm the page cache
: >"$T/bare"; : >"$T/st"; : >"$T/cpu"; : >"$T/ccpu"
bare_run() {
	rm -rf "$T/b"; t0=$(now_us); make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2; t1=$(now_us)
	echo $((t1 - t0)) >>"$T/bare"
}
for i in $(seq "$RUNS"); do
	# bare and measured runs alternate, and which goes first alternates too,
	# so a drift of the machine's speed weighs on both alike
	if [ $((i % 2)) = 1 ]; then bare_run; fi
	rm -rf "$T/b"; t0=$(now_us)
	$ST -s -o /dev/null --json "$T/s.json" -- make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2
	t1=$(now_us)
	echo $((t1 - t0)) >>"$T/st"
	if [ $((i % 2)) = 0 ]; then bare_run; fi
	jq -r '(.spacetime_cpu_us / (.user_us + .sys_us) * 100)' "$T/s.json" >>"$T/cpu"
	jq -r '(.collector_cpu_us / (.user_us + .sys_us) * 100)' "$T/s.json" >>"$T/ccpu"
	jq -r '"  run '"$i"': processes \(.processes) execs \(.execs_count) peak PSS \(.peak_pss_bytes/1048576|floor) MiB, \(.pss_reads) PSS reads, refresh age mean \(.pss_refresh_mean_age_us/1000|floor) ms, collector woke \(.collector_wakeups) times"' "$T/s.json"
done
mb=$(median <"$T/bare"); ms=$(median <"$T/st")
# run i's bare and measured builds ran back to back: their ratio cancels the
# machine's drift, which the ratio of the two medians does not
pr=$(paste "$T/bare" "$T/st" | awk '{print $2 / $1}' | median)
printf 'build: back-to-back ratios (summary mode), sorted: %s\n' \
	"$(paste "$T/bare" "$T/st" | awk '{printf "%.3f\n", $2 / $1}' | sort -g | tr '\n' ' ')"
printf 'build: bare median %.3f s (runs: %s), under spacetime -s median %.3f s (runs: %s)\n' \
	"$(echo "$mb/1000000" | bc -l)" "$(sort -n "$T/bare" | awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1/1e6}')" \
	"$(echo "$ms/1000000" | bc -l)" "$(sort -n "$T/st" | awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1/1e6}')"
printf 'build: wall-time ratio (summary mode) %.4f median of %s back-to-back pairs (ratio of medians %.4f)   (target <= 1.01)\n' \
	"$pr" "$RUNS" "$(echo "$ms/$mb" | bc -l)"
printf 'build: spacetime CPU / build CPU %.3f%% median (collector thread %.3f%%)   (target <= 0.5%%)\n' \
	"$(median <"$T/cpu")" "$(median <"$T/ccpu")"

echo "== real build under the dashboard (tmux 100x30), $RUNS runs, interleaved with bare runs"
if command -v tmux >/dev/null; then
	: >"$T/bare2"; : >"$T/dash"; : >"$T/dcpu"; : >"$T/dpairs"
	bare2_run() {
		rm -rf "$T/b"; t0=$(now_us); make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2; t1=$(now_us)
		echo $((t1 - t0)) >>"$T/bare2"
		last_bare=$((t1 - t0))
	}
	for i in $(seq "$RUNS"); do
		# ABBA, as above
		if [ $((i % 2)) = 1 ]; then bare2_run; fi
		rm -rf "$T/b" "$T/d.json" "$T/done"
		sock="stb$$"
		# the command says when the build is over by a file, so the harness
		# waits with a shell test, not a tmux client every half second (which
		# cost the build more CPU than spacetime does)
		tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
			env LC_ALL=C.UTF-8 TERM=screen-256color $ST --json "$T/d.json" -- \
			sh -c 'make -s -f tests/bench/build.mk OUT="$1" COPIES="$2" -j2; s=$?; : >"$3"; exit $s' \
			sh "$T/b" "$COPIES" "$T/done"
		for _ in $(seq 1200); do
			[ -e "$T/done" ] && break
			sleep 0.5
		done
		# the dashboard stays up when the command ends: wait for "finished, exit N", then quit
		for _ in $(seq 100); do
			tmux -L "$sock" capture-pane -p 2>/dev/null | grep -q "finished, exit" && break
			sleep 0.1
		done
		tmux -L "$sock" send-keys q
		for _ in $(seq 100); do [ -s "$T/d.json" ] && break; sleep 0.1; done
		tmux -L "$sock" kill-server 2>/dev/null || true
		if [ $((i % 2)) = 0 ]; then bare2_run; fi
		if [ "$(jq -r '.exit_status' "$T/d.json" 2>/dev/null)" != 0 ]; then
			echo "dashboard run $i: the build did not finish cleanly; figures skipped"
			continue
		fi
		jq -r '.wall_us' "$T/d.json" >>"$T/dash"
		echo "$last_bare $(jq -r '.wall_us' "$T/d.json")" >>"$T/dpairs"
		jq -r '(.spacetime_cpu_us / (.user_us + .sys_us) * 100)' "$T/d.json" >>"$T/dcpu"
		jq -r '"  run '"$i"': \(.processes) processes, \(.pss_reads) PSS reads, collector woke \(.collector_wakeups) times, spacetime CPU \(.spacetime_cpu_us/1000|floor) ms"' "$T/d.json"
	done
	mb=$(median <"$T/bare2"); md=$(median <"$T/dash")
	printf 'build: back-to-back ratios (dashboard mode), sorted: %s\n' \
		"$(awk '{printf "%.3f\n", $2 / $1}' "$T/dpairs" | sort -g | tr '\n' ' ')"
	printf 'build: bare median %.3f s, under the dashboard median %.3f s (command wall from its JSON)\n' \
		"$(echo "$mb/1000000" | bc -l)" "$(echo "$md/1000000" | bc -l)"
	printf 'build: wall-time ratio (dashboard mode) %.4f median of %s back-to-back pairs (ratio of medians %.4f)   (target <= 1.01)\n' \
		"$(awk '{print $2 / $1}' "$T/dpairs" | median)" "$(grep -c . "$T/dpairs")" "$(echo "$md/$mb" | bc -l)"
	printf 'build: spacetime CPU (collector + dashboard) / build CPU %.3f%% median   (target <= 0.5%%)\n' \
		"$(median <"$T/dcpu")"
else
	echo "dashboard: skipped (no tmux)"
fi

if [ -x tests/bench/bench_tui.sh ]; then
	echo "== dashboard"
	tests/bench/bench_tui.sh "$T" "$COPIES" "$RUNS" || echo "dashboard bench: failed"
fi

echo "== storm: 20,000 processes from 2 parallel spawners"
$ST -s -o /dev/null --json "$T/storm.json" -- $WL/storm 20000 2
jq -r '"storm: \(.processes) processes seen (truth 20003), \(.lost_events) lost events (target 0), mode \(.mode), collector woke \(.collector_wakeups) times for \(.netlink_events) events, taskstats records \(.taskstats_records) (\(.taskstats_lost) lost)"' "$T/storm.json"
jq -r '"storm: spacetime CPU \(.spacetime_cpu_us/1000) ms for \(.processes) processes = \(.spacetime_cpu_us/(.processes*2)*1000|floor) ns per event (fork+exit)"' "$T/storm.json"

echo "== accuracy under the default budget"
$ST -s -o /dev/null --json "$T/fill.json" -- $WL/fill 1024
jq -r '"accuracy: fill 1 GiB: peak PSS \(.peak_pss_bytes) B = \(.peak_pss_bytes/1073741824*100|.*100|floor/100)% of truth   (target 97..103%)"' "$T/fill.json"
$ST -s -o /dev/null --json "$T/fill2.json" -- $WL/forkfill 2048
jq -r '"accuracy: fork+fill 2 GiB: peak PSS \(.peak_pss_bytes/2147483648*100|.*100|floor/100)% of truth, \(.processes) processes   (target 97..103%, 2)"' "$T/fill2.json"
$ST -s -o /dev/null --json "$T/short.json" -- $WL/fill 300 300
jq -r '"accuracy: 300 MiB living 300 ms: peak PSS \(.peak_pss_bytes/314572800*100|.*100|floor/100)% of truth   (target: seen, >= 97%)"' "$T/short.json"

if [ -x build/bench/bench_store ]; then
	echo "== long run: 24 h of samples and 100,000 processes fed to the store"
	build/bench/bench_store
fi
