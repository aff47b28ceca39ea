#!/usr/bin/env bash
# make bench: overhead and accuracy figures, measured side by side in one run.
# Prints each figure with its target; never fails on a figure (that is for a
# person to read), only on a broken run.
set -euo pipefail
export LC_ALL=C # bash's times and printf's %f: a decimal point, whatever the locale
cd "$(dirname "$0")/../.."
ST=./spacetime
WL=build/workloads
PAIRS=${BENCH_PAIRS:-${BENCH_RUNS:-18}}
COPIES=${BENCH_COPIES:-3}
T=$(mktemp -d /tmp/spacetime-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
# every run is recorded (the default): into the bench's own file, not the user's
export XDG_STATE_HOME="$T/state"
RECDB="$XDG_STATE_HOME/spacetime/runs.db"

median() { sort -g | awk '{a[NR]=$1} END {printf "%.6f\n", (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# A 95% confidence interval for the median, free of any assumption about the
# distribution: the order statistics k and n+1-k, where k is the largest rank
# with P(Binomial(n, 1/2) < k) <= 2.5%.
median_ci() {
	sort -g | awk '{a[NR]=$1} END {
		n = NR; pr = 0.5 ^ n; c = 0; k = 0
		for (i = 0; i <= n; i++) {
			if (i > 0) pr = pr * (n - i + 1) / i
			if (c + pr > 0.025) break
			c += pr; k = i + 1
		}
		if (k < 1) printf "n/a (too few pairs)\n"
		else printf "%.4f-%.4f\n", a[k], a[n + 1 - k] }'
}
now_us() { echo $(( $(date +%s%N) / 1000 )); }
# the CPU time (user + sys, in us) of the children a subshell waited for,
# from the second line of bash's `times`: "0m9.376s 0m0.860s"
times_us() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d\n", t * 1e6 }' "$1"; }
sorted_ratios() { awk '{printf "%.3f\n", $2 / $1}' "$1" | sort -g | tr '\n' ' '; }
build() { make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2; }
# one bare build: appends "wall_us cpu_us" to $1
bare_run() {
	rm -rf "$T/b"
	local t0 t1
	t0=$(now_us)
	( build; times >"$T/times" )
	t1=$(now_us)
	echo "$((t1 - t0)) $(times_us "$T/times")" >>"$1"
}
# Prints the wall-time and CPU-time ratios of the back-to-back pairs in $1
# for mode $2; a line per pair, times in us: the bare build's wall and CPU,
# then the measured build's wall and CPU, spacetime's CPU up to the command's
# end (the JSON's), its collector thread's, its PSS reads', and spacetime's
# whole process from start to exit (the JSON's figure again in dashboard mode).
pair_figures() {
	local f=$1 mode=$2 n
	n=$(grep -c . "$f" || true)
	if [ "$n" = 0 ]; then
		echo "build ($mode): no pair finished; no figures"
		return 0
	fi
	awk '{print $1, $3}' "$f" >"$T/wpairs"
	printf 'build: back-to-back wall ratios (%s), sorted: %s\n' "$mode" "$(sorted_ratios "$T/wpairs")"
	printf 'build: bare median %.3f s, under spacetime (%s) median %.3f s\n' \
		"$(awk '{print $1 / 1e6}' "$f" | median)" "$mode" "$(awk '{print $3 / 1e6}' "$f" | median)"
	printf 'build: wall-time ratio (%s) %.4f median of %s back-to-back pairs, 95%% CI %s, ratio of medians %.4f   (target <= 1.01)\n' \
		"$mode" "$(awk '{print $3 / $1}' "$f" | median)" "$n" "$(awk '{print $3 / $1}' "$f" | median_ci)" \
		"$(echo "$(awk '{print $3}' "$f" | median) / $(awk '{print $1}' "$f" | median)" | bc -l)"
	# CPU time is less at the mercy of the machine's speed than wall time:
	# what the build and spacetime together spent, over what the bare build did
	printf 'build: CPU-time ratio (%s), (build + spacetime) / bare build: %.4f median, 95%% CI %s   (the build alone: %.4f)\n' \
		"$mode" "$(awk '{print ($4 + $8) / $2}' "$f" | median)" "$(awk '{print ($4 + $8) / $2}' "$f" | median_ci)" \
		"$(awk '{print $4 / $2}' "$f" | median)"
	# $8: spacetime's whole process from its start to its exit (the
	# recording's last write and close included), where it can be had
	local whole="its whole process from start to exit"
	case $mode in dashboard*) whole="up to the command's end, as the JSON says" ;; esac
	printf 'build: spacetime CPU / build CPU %.3f%% median, %s; %.3f%% up to the command'"'"'s end (the JSON'"'"'s figure; collector thread %.3f%%, PSS reads %.3f%%)   (target <= 0.5%%)\n' \
		"$(awk '{print $8 / $4 * 100}' "$f" | median)" "$whole" "$(awk '{print $5 / $4 * 100}' "$f" | median)" \
		"$(awk '{print $6 / $4 * 100}' "$f" | median)" "$(awk '{print $7 / $4 * 100}' "$f" | median)"
}
# prints the measured side of a pair from the JSON $1, the wall $2 (empty:
# the command's wall from the JSON) and the CPU time (us) of spacetime and
# all it waited for, from bash's times, in $3 (empty: unknown, the JSON's
# figure stands for the whole process)
measured_side() {
	jq -r --arg w "$2" --arg all "${3:-}" '"\(if $w == "" then .wall_us else ($w | tonumber) end) \(.user_us + .sys_us) \(.spacetime_cpu_us) \(.collector_cpu_us) \(.pss_read_cpu_us) \(if $all == "" then .spacetime_cpu_us else ($all | tonumber) - .user_us - .sys_us end)"' "$1"
}

# one build under spacetime -s: writes its side of the pair to $T/ts
summary_run() {
	rm -rf "$T/b"
	local t0 t1
	t0=$(now_us)
	( $ST -s -o /dev/null --json "$T/s.json" -- make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2
	  times >"$T/stimes" )
	t1=$(now_us)
	measured_side "$T/s.json" $((t1 - t0)) "$(times_us "$T/stimes")" >"$T/ts"
}
# the same with --no-record: writes its side to $T/tn
norec_run() {
	rm -rf "$T/b"
	local t0 t1
	t0=$(now_us)
	( $ST -s --no-record -o /dev/null --json "$T/n.json" -- make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2
	  times >"$T/stimes" )
	t1=$(now_us)
	measured_side "$T/n.json" $((t1 - t0)) "$(times_us "$T/stimes")" >"$T/tn"
}
# one build under the dashboard in tmux 100x30: writes its side to $T/td
# (nothing when the build did not finish cleanly)
dash_run() {
	rm -rf "$T/b" "$T/d.json" "$T/done" "$T/td"
	mkfifo "$T/done"
	local sock="stb$$"
	# the command says when the build is over through a FIFO the harness
	# blocks on: no tmux client every half second (which cost the build more
	# CPU than spacetime does), and no sleep(1) either (each exec of it woke
	# the collector, which hears every exec on the machine)
	tmux -L "$sock" -f /dev/null new-session -d -x 100 -y 30 \
		env LC_ALL=C.UTF-8 TERM=screen-256color $ST --json "$T/d.json" -- \
		sh -c 'make -s -f tests/bench/build.mk OUT="$1" COPIES="$2" -j2; s=$?; echo done >"$3"; exit $s' \
		sh "$T/b" "$COPIES" "$T/done"
	# opened read-write, so the open does not wait for the writer and the
	# read gives up after 20 minutes if the command never says
	read -r -t 1200 _ <>"$T/done" || true
	# the dashboard stays up when the command ends: wait for "finished, exit N", then quit
	for _ in $(seq 100); do
		tmux -L "$sock" capture-pane -p 2>/dev/null | grep -q "finished, exit" && break
		sleep 0.1
	done
	tmux -L "$sock" send-keys q
	for _ in $(seq 100); do [ -s "$T/d.json" ] && break; sleep 0.1; done
	tmux -L "$sock" kill-server 2>/dev/null || true
	[ "$(jq -r '.exit_status' "$T/d.json" 2>/dev/null)" = 0 ] && measured_side "$T/d.json" "" >"$T/td"
	return 0
}

# --- accuracy table: spacetime's peak PSS against the workloads' truth and the
# reference (build/bench/pssref: every process's smaps_rollup every 5 ms) ----
REF=build/bench/pssref
ACC_RUNS=${BENCH_ACC_RUNS:-5}
# one workload: NAME TRUTH_MIB ARGS...; the reference's run, then spacetime's
# (default mode: netlink as root), printed as one row of the table
acc_row() {
	local name=$1 truth=$2 ref="n/a"
	shift 2
	if [ -x "$REF" ]; then
		$REF -o "$T/ref.json" -- "$@" 2>/dev/null
		ref=$(jq -r '.peak_pss_kib / 1024 | . * 10 | round / 10' "$T/ref.json")
	fi
	$ST -s -o /dev/null --json "$T/acc.json" -- "$@" 2>/dev/null
	jq -r --arg name "$name" --argjson truth "$truth" --arg ref "$ref" '
		[$name, $truth, $ref, .peak_pss_bytes / 1048576, .peak_pss_measured, .mode, .pss_reads,
		 .pss_sweeps, .pss_sweep_reads, .pss_read_cpu_us / 1000, .spacetime_cpu_us / 1000] | @tsv' "$T/acc.json" |
		awk -F'\t' '{
			vs_ref = ($3 == "n/a") ? "n/a" : sprintf("%+.2f%%", ($4 - $3) / $3 * 100)
			printf "  %-22s %6d %8s %9.1f %+8.2f%% %8s %-8s %-7s %5d %6d %6d %8.1f %8.1f\n",
				$1, $2, $3, $4, ($4 - $2) / $2 * 100, vs_ref, $5, $6, $7, $8, $9, $10, $11 }'
}
# the real build (the overhead section's, tests/bench/build.mk), in two ways:
# 1. the same run: `pssref -x -- spacetime -s -- BUILD`, the reference and
#    spacetime measuring one build at once (which two compilers overlap at the
#    peak differs from run to run, by a few %: only the same run compares
#    spacetime's sampling with the reference's). The reference's 5 ms sweeps
#    load the machine and slow the build a little, which may widen its peaks;
# 2. separate runs, as a user would: BENCH_ACC_RUNS builds under the reference
#    alone and under spacetime alone, alternating which goes first; the
#    medians compared, with the reference's own spread as the run-to-run noise.
acc_build() {
	local i first
	: >"$T/accs"
	for i in $(seq "$ACC_RUNS"); do
		rm -rf "$T/b"
		$REF -x -o "$T/sref.json" -- $ST -s -o /dev/null --json "$T/sst.json" -- \
			make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2 2>/dev/null
		jq -r --slurpfile r "$T/sref.json" '"\($r[0].peak_pss_kib / 1024) \(.peak_pss_bytes / 1048576) \(.peak_pss_measured) \(.pss_reads) \(.pss_sweeps) \(.fast_ticks) \(.processes) \($r[0].sweeps)"' \
			"$T/sst.json" >>"$T/accs"
		awk -v i="$i" '{ printf "  same run %d: reference %.1f MiB, spacetime %.1f MiB (%+.2f%%), measured %s, %d PSS reads in %d sweeps, %d fast ticks, %d processes; reference: %d sweeps\n",
			i, $1, $2, ($2 - $1) / $1 * 100, $3, $4, $5, $6, $7, $8 }' <(tail -n 1 "$T/accs")
	done
	printf 'accuracy: build, same run: per-run errors (%%), sorted: %s; median %+.2f%%; runs with a measured peak: %s of %s   (target within 3%%)\n' \
		"$(awk '{printf "%+.2f\n", ($2 - $1) / $1 * 100}' "$T/accs" | sort -g | xargs)" \
		"$(awk '{print ($2 - $1) / $1 * 100}' "$T/accs" | median)" \
		"$(awk '$3 == "true"' "$T/accs" | grep -c . || true)" "$ACC_RUNS"
	: >"$T/accb"
	for i in $(seq "$ACC_RUNS"); do
		if [ $((i % 2)) = 1 ]; then first="ref st"; else first="st ref"; fi
		for m in $first; do
			rm -rf "$T/b"
			case $m in
			ref) $REF -o "$T/bref.json" -- make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2 ;;
			st) $ST -s -o /dev/null --json "$T/bst.json" -- make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2 ;;
			esac
		done
		jq -r --slurpfile r "$T/bref.json" '"\($r[0].peak_pss_kib / 1024) \(.peak_pss_bytes / 1048576) \(.peak_pss_measured) \(.pss_reads) \(.pss_sweeps) \(.spacetime_cpu_us / (.user_us + .sys_us) * 100) \(.processes) \($r[0].sweeps)"' \
			"$T/bst.json" >>"$T/accb"
		awk -v i="$i" -v o="$first" '{ printf "  separate runs %d (%s first): reference %.1f MiB, spacetime %.1f MiB (%+.2f%%), measured %s, %d PSS reads in %d sweeps, spacetime CPU %.3f%% of the build'"'"'s, %d processes; reference: %d sweeps\n",
			i, o == "ref st" ? "reference" : "spacetime", $1, $2, ($2 - $1) / $1 * 100, $3, $4, $5, $6, $7, $8 }' <(tail -n 1 "$T/accb")
	done
	local mr ms
	mr=$(awk '{print $1}' "$T/accb" | median)
	ms=$(awk '{print $2}' "$T/accb" | median)
	printf 'accuracy: build, separate runs: peaks (MiB), sorted: reference %s; spacetime %s\n' \
		"$(awk '{printf "%.1f\n", $1}' "$T/accb" | sort -g | xargs)" "$(awk '{printf "%.1f\n", $2}' "$T/accb" | sort -g | xargs)"
	printf 'accuracy: build, separate runs: median peak PSS: reference %.1f MiB, spacetime %.1f MiB, %+.2f%% (the reference'"'"'s own runs spread %.1f%% of their median); runs with a measured peak: %s of %s\n' \
		"$mr" "$ms" "$(echo "($ms - $mr) / $mr * 100" | bc -l)" \
		"$(awk '{print $1}' "$T/accb" | sort -g | awk -v m="$mr" '{a[NR]=$1} END {print (a[NR] - a[1]) / m * 100}')" \
		"$(awk '$3 == "true"' "$T/accb" | grep -c . || true)" "$ACC_RUNS"
}
# the climb workload (children that climb to their tops, meet there for
# OVERLAP ms and exit at their largest): the truth is its own (it logs its
# pages and prints the most its children held at once); NAME ARGS...
acc_climb() {
	local name=$1
	shift
	$ST -s -o /dev/null --json "$T/climb.json" -- $WL/climb "$@" 2>"$T/climb.err" >/dev/null
	local truth
	truth=$(sed -n 's/^climb: peak \([0-9]*\) KiB.*/\1/p' "$T/climb.err" | tail -n 1)
	jq -r --arg name "$name" --argjson truth "${truth:-0}" '
		[$name, $truth / 1024, .peak_pss_bytes / 1048576, (.peak_pss_bound_bytes // 0) / 1048576,
		 (.peak_pss_at_exit != null), .mode, .spacetime_cpu_us / 1000] | @tsv' "$T/climb.json" |
		awk -F'\t' '{ printf "  %-26s truth %7.1f  spacetime %7.1f (%+.2f%%, at an exit: %s)  bound %7.1f (%+.1f%%, %s)  %s, CPU %.1f ms\n",
			$1, $2, $3, ($3 - $2) / $2 * 100, $5, $4, ($4 - $3) / $3 * 100, ($4 >= $2 ? "holds" : "BROKEN"), $6, $7 }'
}

# the short-compile build (tests/bench/short.mk: BENCH_SHORT_FILES generated
# C files whose compiles take 50-300 ms and grow as they go, make -j2), the
# reference at its fastest (1 ms between sweeps) and spacetime -s measuring
# the same build at once, BENCH_SHORT_RUNS rounds. The reference's peak is
# over its stable sweeps (the same processes before and after); a sweep a
# process left during is shown apart (it reads the leaver before it went,
# the others up to 2 ms later).
SHORT_RUNS=${BENCH_SHORT_RUNS:-5}
SHORT_FILES=${BENCH_SHORT_FILES:-200}
acc_short() {
	local i
	: >"$T/accsh"
	for i in $(seq "$SHORT_RUNS"); do
		rm -rf "$T/sh"
		$REF -x -i 1 -o "$T/shref.json" -- $ST -s -o /dev/null --json "$T/shst.json" -- \
			make -s -f tests/bench/short.mk OUT="$T/sh" WL="$WL" NFILES="$SHORT_FILES" -j2 2>/dev/null
		jq -r --slurpfile r "$T/shref.json" '"\($r[0].peak_pss_kib) \($r[0].peak_any_pss_kib) \(.peak_pss_bytes / 1024) \((.peak_pss_bound_bytes // 0) / 1024) \(.peak_pss_at_exit != null) \(.peak_pss_measured) \(.spacetime_cpu_us / (.user_us + .sys_us) * 100) \(.processes) \($r[0].sweeps) \($r[0].unstable_sweeps)"' \
			"$T/shst.json" >>"$T/accsh"
		awk -v i="$i" '{ printf "  round %d: reference %.1f MiB (%.1f with sweeps a process left during), spacetime %.1f MiB (%+.2f%%, at an exit: %s), bound %.1f MiB (%+.1f%%: %s), measured %s, spacetime CPU %.3f%% of the build'"'"'s, %d processes; reference: %d sweeps, %d unstable\n",
			i, $1 / 1024, $2 / 1024, $3 / 1024, ($3 - $1) / $1 * 100, $5, $4 / 1024, ($4 - $3) / $3 * 100,
			($4 >= $1 ? "holds" : "BROKEN"), $6, $7, $8, $9, $10 }' <(tail -n 1 "$T/accsh")
	done
	printf 'accuracy: short-compile build, same run: errors vs the reference (%%), sorted: %s; rounds within 3%%: %s of %s   (target: every round)\n' \
		"$(awk '{printf "%+.2f\n", ($3 - $1) / $1 * 100}' "$T/accsh" | sort -g | xargs)" \
		"$(awk '{e = ($3 - $1) / $1 * 100; if (e < 0) e = -e; if (e <= 3) n++} END {print n + 0}' "$T/accsh")" "$SHORT_RUNS"
	printf 'accuracy: short-compile build: the bound above the figure (%%), sorted: %s; median %.1f%% (target <= 5%%); it holds (>= the reference) in %s of %s rounds (target: every round)\n' \
		"$(awk '{printf "%.1f\n", ($4 - $3) / $3 * 100}' "$T/accsh" | sort -g | xargs)" \
		"$(awk '{print ($4 - $3) / $3 * 100}' "$T/accsh" | median)" \
		"$(awk '$4 >= $1' "$T/accsh" | grep -c . || true)" "$SHORT_RUNS"
	printf 'overhead: short-compile build beside the reference: spacetime CPU / the build'"'"'s CPU (%%), sorted: %s; median %.3f%%\n' \
		"$(awk '{printf "%.3f\n", $7}' "$T/accsh" | sort -g | xargs)" "$(awk '{print $7}' "$T/accsh" | median)"
	# its cost alone: bare and under spacetime -s, back to back, in turn
	: >"$T/ovsh"
	for i in $(seq "$SHORT_RUNS"); do
		local w0 w1 t0 order m
		if [ $((i % 2)) = 1 ]; then order="bare st"; else order="st bare"; fi
		for m in $order; do
			rm -rf "$T/sh"
			t0=$(now_us)
			case $m in
			bare) make -s -f tests/bench/short.mk OUT="$T/sh" WL="$WL" NFILES="$SHORT_FILES" -j2 2>/dev/null
			      w0=$(($(now_us) - t0)) ;;
			st) $ST -s -o /dev/null --json "$T/shov.json" -- make -s -f tests/bench/short.mk OUT="$T/sh" WL="$WL" NFILES="$SHORT_FILES" -j2 2>/dev/null
			    w1=$(($(now_us) - t0)) ;;
			esac
		done
		echo "$w0 $w1 $(jq -r '"\(.spacetime_cpu_us / (.user_us + .sys_us) * 100) \(.collector_wakeups) \(.pss_reads)"' "$T/shov.json")" >>"$T/ovsh"
		awk -v i="$i" '{ printf "  alone %d: wall %.2f s bare, %.2f s under spacetime (%.4f); spacetime CPU %.3f%% of the build'"'"'s, woke %d times, %d PSS reads\n", i, $1 / 1e6, $2 / 1e6, $2 / $1, $3, $4, $5 }' <(tail -n 1 "$T/ovsh")
	done
	printf 'overhead: short-compile build alone: spacetime CPU / the build'"'"'s CPU (%%), sorted: %s; median %.3f%%   (target <= 0.5%%); wall under spacetime / bare, sorted: %s; median %.4f   (target 1 within noise)\n' \
		"$(awk '{printf "%.3f\n", $3}' "$T/ovsh" | sort -g | xargs)" "$(awk '{print $3}' "$T/ovsh" | median)" \
		"$(awk '{printf "%.3f\n", $2 / $1}' "$T/ovsh" | sort -g | xargs)" "$(awk '{print $2 / $1}' "$T/ovsh" | median)"
}

accuracy_table() {
	echo "== accuracy table: peak PSS against the truth (what the workload touched; each process adds a baseline of ~0.1-0.3 MiB) and the reference ($REF, every process's smaps_rollup every 5 ms), spacetime -s in its default mode"
	[ -x "$REF" ] || echo "(no $REF: make build/bench/pssref; the reference column is n/a)"
	printf '  %-22s %6s %8s %9s %9s %8s %-8s %-7s %5s %6s %6s %8s %8s\n' workload truth pssref spacetime "vs truth" "vs ref" measured mode reads sweeps "(reads)" "read ms" "CPU ms"
	acc_row "shmfork 400 3 64" 592 $WL/shmfork 400 3 64
	acc_row "cowfork 400 3" 400 $WL/cowfork 400 3
	acc_row "mapfile 400 4" 400 $WL/mapfile "$T/mapped" 400 4
	acc_row "multifill 4 100" 400 $WL/multifill 4 100
	acc_row "fill 300 300 (spike)" 300 $WL/fill 300 300
	echo "  (MiB; vs truth, vs ref: spacetime's error, target within 3%; reads: smaps_rollup reads in all, sweeps and (reads) the sweeps made and the reads in them; read ms: the reads' CPU; CPU ms: spacetime's)"
	echo "== the peak between samples: children that climb and meet at their tops briefly (the workload's own truth; MiB; target within 3%, the bound holding)"
	acc_climb "climb 2 120 300 20" 2 120 300 20
	acc_climb "climb 3 80 150 30" 3 80 150 30
	acc_climb "climb 4 50 600 40" 4 50 600 40
	acc_climb "climb 2 200 60 25" 2 200 60 25
	acc_climb "climb 6 30 100 20" 6 30 100 20
	if [ -x "$REF" ]; then
		echo "== the short-compile build: $SHORT_FILES generated files, make -j2, $SHORT_RUNS rounds measured by the reference (-i 1) and spacetime -s at once"
		acc_short
	fi
	if [ -x "$REF" ]; then
		echo "== accuracy on the real build: spacetime's own sources x$COPIES, make -j2: $ACC_RUNS runs measured by the reference and spacetime -s at once, then $ACC_RUNS runs each under either alone, alternating which goes first"
		acc_build
	else
		echo "accuracy: build: skipped (no $REF)"
	fi
}

# spacetime forecast on the real build: recorded once at -j1, its -j2
# forecast against BENCH_FORECAST_RUNS builds at -j2 measured by spacetime
# (their median, and their spread as the run-to-run noise), and the -j1
# forecast against the -j1 build itself
FORECAST_RUNS=${BENCH_FORECAST_RUNS:-5}
forecast_bench() {
	local db="$T/forecast.db" i
	rm -f "$db"
	rm -rf "$T/b"
	$ST -s -o /dev/null --record "$db" -- make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j1 >/dev/null
	for i in $(seq "$FORECAST_RUNS"); do
		rm -rf "$T/b"
		$ST -s -o /dev/null --record "$db" -- make -s -f tests/bench/build.mk OUT="$T/b" COPIES="$COPIES" -j2 >/dev/null
	done
	$ST forecast --db "$db" 1 -j 2 --format json >"$T/fc.json"
	$ST runs --db "$db" --format json >"$T/fr.json"
	jq -r '"forecast: \(.jobs) jobs recorded at -j1; the -j1 forecast against that build: peak \(.recorded.peak_pss_kib / 1024 * 10 | round / 10) MiB against \(.measured.peak_pss_kib / 1024 * 10 | round / 10) MiB (\((.recorded.peak_pss_kib - .measured.peak_pss_kib) / .measured.peak_pss_kib * 1000 | round / 10)%), wall \(.recorded.wall_us / 1e4 | round / 100) s against \(.measured.wall_us / 1e4 | round / 100) s"' "$T/fc.json"
	local pk wl
	pk=$(jq '.forecasts[] | select(.jobs == 2) | .peak_pss_kib' "$T/fc.json")
	wl=$(jq '.forecasts[] | select(.jobs == 2) | .wall_us' "$T/fc.json")
	jq -r --argjson pk "$pk" --argjson wl "$wl" '.[1:] as $r | ($r | map(.peak_pss_kib) | sort) as $p | ($r | map(.wall_ns / 1000) | sort) as $w |
		($p | .[length / 2 | floor]) as $pm | ($w | .[length / 2 | floor]) as $wm |
		"forecast: -j2 peak PSS \($pk / 1024 * 10 | round / 10) MiB against the median of \($r | length) -j2 builds \($pm / 1024 * 10 | round / 10) MiB: \(($pk - $pm) / $pm * 1000 | round / 10)%   (target within 15%; their peaks, sorted, MiB: \($p | map(. / 1024 * 10 | round / 10 | tostring) | join(" ")))",
		"forecast: -j2 wall \($wl / 1e4 | round / 100) s against their median \($wm / 1e4 | round / 100) s: \(($wl - $wm) / $wm * 1000 | round / 10)%   (their walls, sorted, s: \($w | map(. / 1e4 | round / 100 | tostring) | join(" ")))"' "$T/fr.json"
}

# BENCH_ONLY=forecast: the forecast's figures alone
if [ "${BENCH_ONLY:-}" = forecast ]; then
	build >/dev/null # warm the page cache
	echo "== forecast: the real build (spacetime's own sources x$COPIES) recorded at -j1, forecast for -j2 against $FORECAST_RUNS builds at -j2"
	forecast_bench
	exit 0
fi
# BENCH_ONLY=short: the short-compile build's rounds alone
if [ "${BENCH_ONLY:-}" = short ]; then
	acc_short
	exit 0
fi
# BENCH_ONLY=accuracy: the accuracy table alone (the build's runs included)
if [ "${BENCH_ONLY:-}" = accuracy ]; then
	build >/dev/null # warm the page cache
	accuracy_table

echo "== memory-map pane (m): its cost, and the collector's pace while a large map is read"
[ -x build/bench/bench_maps ] && build/bench/bench_maps 1024
# the same run twice: alone, and with the 1 GiB process's smaps read without a
# pause beside it (far more than the pane's once a second): the longest gap
# between two samples stored says whether the ticks kept their pace
map_gap() {
	$ST -s -o /dev/null --export "$T/maps-$1" --export-format json -- sh -c "$2" >/dev/null 2>&1
	jq '[.samples[].t_us] as $t | [range(1; $t | length) | $t[.] - $t[. - 1]] | max / 1000 | floor' "$T"/maps-"$1"/*.json
}
mkdir -p "$T/maps-alone" "$T/maps-read"
a=$(map_gap alone "$WL/fill 1024 4000")
b=$(map_gap read "$WL/fill 1024 4000 & p=\$!; sleep 0.5; while kill -0 \$p 2>/dev/null; do cat /proc/\$p/smaps >/dev/null 2>&1; done; wait")
echo "maps: longest gap between two samples of a 4 s run at 100 ms: $a ms alone, $b ms with its 1 GiB map read continuously beside it (target: at most 150 ms)"
	exit 0
fi

if command -v tmux >/dev/null; then modes="bare summary norec dash"; else modes="bare summary norec"; fi
echo "== real build: spacetime's own sources x$COPIES, make -j2, $PAIRS rounds of: bare, under spacetime -s (recorded, the default), under spacetime -s --no-record, under the dashboard (tmux 100x30, recorded)"
build >/dev/null # warm the page cache
: >"$T/pairs"; : >"$T/dpairs"; : >"$T/npairs"
for i in $(seq "$PAIRS"); do
	# each round runs the three builds back to back, in an order that turns
	# over from round to round, so a drift of the machine's speed weighs on
	# all alike; the measured builds are compared with the round's bare one
	case "$modes:$((i % 4))" in
	*dash:0) order="bare summary norec dash" ;; *dash:1) order="summary norec dash bare" ;;
	*dash:2) order="norec dash bare summary" ;; *dash:3) order="dash bare summary norec" ;;
	*:0|*:2) order="bare summary norec" ;; *) order="norec summary bare" ;;
	esac
	: >"$T/one"
	for m in $order; do
		case $m in
		bare) bare_run "$T/one" ;;
		summary) summary_run ;;
		norec) norec_run ;;
		dash) dash_run ;;
		esac
	done
	echo "$(cat "$T/one") $(cat "$T/ts")" >>"$T/pairs"
	echo "$(cat "$T/one") $(cat "$T/tn")" >>"$T/npairs"
	line="  round $i ($order): $(jq -r '"\(.processes) processes, \(.pss_reads) PSS reads, refresh age mean \(.pss_refresh_mean_age_us/1000|floor) ms, collector woke \(.collector_wakeups) times, spacetime CPU \(.spacetime_cpu_us/1000|floor) ms of \(.budget_cpu_us/1000|floor) ms budgeted"' "$T/s.json")"
	case $modes in
	*dash)
		if [ -s "$T/td" ]; then
			echo "$(cat "$T/one") $(cat "$T/td")" >>"$T/dpairs"
			line="$line; dashboard: $(jq -r '"spacetime CPU \(.spacetime_cpu_us/1000|floor) ms, collector woke \(.collector_wakeups) times"' "$T/d.json")"
		else
			line="$line; dashboard: the build did not finish cleanly, round skipped"
		fi ;;
	esac
	echo "$line"
done
pair_figures "$T/pairs" "summary mode, recorded"
pair_figures "$T/npairs" "summary mode, --no-record"
# recording on against off, round by round: the recorded build's wall and
# spacetime's CPU over the unrecorded one's
# (8 fields a line: $1-$8 recorded, $9-$16 not)
paste -d' ' "$T/pairs" "$T/npairs" | awk '{ print $3 / $11, $8 / $16 }' >"$T/recvs"
printf 'recording: wall time recorded / not recorded %.4f median of %s rounds (target: 1 within noise); spacetime CPU (whole process) recorded / not recorded %.3f median\n' \
	"$(awk '{print $1}' "$T/recvs" | median)" "$(wc -l <"$T/recvs")" "$(awk '{print $2}' "$T/recvs" | median)"
if [ -s "$RECDB" ] && command -v sqlite3 >/dev/null; then
	sqlite3 -separator ' ' "$RECDB" "SELECT count(*), sum(wall_ns) / 1e9, sum(total_procs) FROM runs" |
		while read -r runs wall procs; do
			bytes=$(( $(stat -c %s "$RECDB") + $(stat -c %s "$RECDB-wal" 2>/dev/null || echo 0) ))
			awk -v b="$bytes" -v r="$runs" -v w="$wall" -v p="$procs" 'BEGIN {
				printf "recording: %d runs, %.0f s of builds, %d processes in %.1f MiB: %.1f MiB per hour of build, %.1f MiB per 1,000 processes\n",
					r, w, p, b / 1048576, b / 1048576 / w * 3600, b / 1048576 / p * 1000 }'
		done
fi
case $modes in
*dash)
	echo "(the dashboard's wall time and spacetime CPU are the JSON's, up to the command's end: the dashboard stays up after it)"
	pair_figures "$T/dpairs" "dashboard mode" ;;
*) echo "dashboard: skipped (no tmux)" ;;
esac

if [ -x tests/bench/bench_tui.sh ]; then
	echo "== dashboard"
	tests/bench/bench_tui.sh || echo "dashboard bench: failed"
fi

echo "== forecast: the real build (spacetime's own sources x$COPIES) recorded at -j1, forecast for -j2 against $FORECAST_RUNS builds at -j2"
forecast_bench

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

accuracy_table

if [ -x build/bench/bench_store ]; then
	echo "== long run: 24 h of samples and 100,000 processes fed to the store"
	build/bench/bench_store
fi
