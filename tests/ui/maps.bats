#!/usr/bin/env bats
# The memory map of a process (m in the process list), driven in tmux. Truth:
# the mapkinds workload's arguments: LOCK_MIB mlock()ed, HUGE_MIB asked for as
# transparent huge pages, a FILE_MIB file mapped (then deleted) and read whole.

load tmux
source "$BATS_TEST_DIRNAME/../disk.bash"

setup() {
	ui_require
	[ -x "$WL/mapkinds" ] || { echo "no $WL/mapkinds (make workloads)" >&2; return 1; }
	FILE="$BATS_TEST_TMPDIR/map kinds.dat"
}

teardown() {
	ui_teardown
	st_disk_cleanup
}

# mib_of TEXT: "64.0 MiB" (or KiB, GiB, "0") in MiB.
mib_of() {
	awk -v t="$1" 'BEGIN { n = split(t, a, " "); v = a[1] + 0
		if (a[2] == "KiB") v /= 1024; else if (a[2] == "GiB") v *= 1024; else if (a[2] == "B") v = 0
		printf "%.3f\n", v }'
}

# cell ROW_REGEX HEAD: the figure in column HEAD (a head of the map's second
# row) of the first row matching ROW_REGEX, in MiB. Columns are 10 wide.
cell() {
	# columns counted in characters (the sort's ▼ is one), not bytes
	local LC_ALL=C.UTF-8 screen head i
	screen=$(ui_cap)
	head=$(sed -n 2p <<<"$screen")
	for ((i = 0; i < 12; i++)); do
		[[ "${head:i*10:10}" == *"$2"* ]] && break
	done
	[ "$i" -lt 12 ] || { echo "no column $2" >&2; return 1; }
	local row
	row=$(grep -E -m1 -- "$1" <<<"$screen") || { echo "no row /$1/" >&2; return 1; }
	mib_of "$(sed 's/^ *//' <<<"${row:i*10:10}")"
}

# within V TRUTH PCT
within() {
	awk -v v="$1" -v t="$2" -v p="$3" 'BEGIN { exit !(v >= t * (1 - p / 100) && v <= t * (1 + p / 100)) }' ||
		{ echo "$1 MiB is not within $3% of $2 MiB" >&2; return 1; }
}

# open_map: once the workload is ready, it selected (the heaviest, first), its map opened.
open_map() {
	ui_wait '^ready' # everything in place (in the output pane)
	ui_keys Tab
	ui_wait 'Processes.*─'
	ui_keys m
	ui_wait 'Memory map of [0-9]+ mapkinds'
	ui_wait 'total, [0-9]+ mappings'
}

@test "memory map: 64 MiB mlocked and a 32 MiB file (deleted, its name with a space) within 3%; s sorts" {
	[ "$(id -u)" -eq 0 ] || skip "mlock of 64 MiB needs root (the default memlock limit is 8 MiB)"
	ui_start 100 30 -- --no-record -- "$WL/mapkinds" 64 0 "$FILE" 32 20000
	open_map
	local v
	v=$(cell 'total, ' Locked) && within "$v" 64 3
	v=$(cell 'map kinds\.dat \(deleted\)' RSS) && within "$v" 32 3
	v=$(cell '\[anon\]' Locked) && within "$v" 64 3
	# the groups pmap shows: the program, libc, the heap, the stack
	ui_cap | grep -qE 'libc\.so' || { ui_show; false; }
	ui_cap | grep -qE '\[stack\]' || { ui_show; false; }
	ui_cap | grep -qE 'read [0-9]+ s ago' || { ui_show; false; }
	# sorted by PSS (its head marked), s moves to RSS
	ui_cap | sed -n 2p | grep -qE 'PSS[▼v]' || { ui_show; false; }
	ui_keys s
	ui_wait 'RSS[▼v]'
	# m closes it: the dashboard again
	ui_keys m
	ui_wait_gone 'Memory map of'
	ui_wait 'Processes'
	ui_keys q y
	ui_wait '\[spacetime exited'
}

@test "memory map: the huge pages the kernel gave of 64 MiB asked for, within 3%" {
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		skip "transparent huge pages are off here (never)"
	[ -r /sys/kernel/mm/transparent_hugepage/enabled ] || skip "no transparent huge pages in this kernel"
	ui_start 120 30 -- --no-record -- "$WL/mapkinds" 0 64 - 0 20000
	# the truth: what the kernel gave (it may give none: fragmented memory)
	ui_wait '^ready'
	local t v
	t=$(ui_cap | grep -oE 'huge: [0-9]+ kB' | grep -oE '[0-9]+' | awk '{ printf "%.3f", $1 / 1024 }')
	[ -n "$t" ] || { ui_show; echo "the workload did not say its huge pages" >&2; false; }
	open_map
	v=$(cell 'total, ' Huge)
	if awk -v t="$t" 'BEGIN { exit !(t > 0) }'; then within "$v" "$t" 3; else [ "$v" = 0.000 ] || false; fi
	ui_keys q q y
	ui_wait '\[spacetime exited'
}

@test "memory map: a process that exits while its map is shown keeps the map taken, with its time, and no error; then m on nothing, and on the finished list" {
	ui_start 100 30 -- --no-record -- "$WL/mapkinds" 0 0 "$FILE" 8 2500
	open_map
	ui_wait 'exited; map taken at [0-9.]+ s' 15
	! ui_cap | grep -qiE 'error|cannot|denied' || { ui_show; false; }
	local v
	v=$(cell 'map kinds\.dat \(deleted\)' RSS) && within "$v" 8 3
	ui_keys m
	ui_wait_gone 'Memory map of'
	# no live process left to select: m says how
	ui_wait 'no live process'
	ui_keys m
	ui_wait 'no process selected'
	# the finished list: the process that ended, its map as taken
	ui_keys f
	ui_wait 'finished'
	ui_keys m
	ui_wait 'exited; map taken at [0-9.]+ s'
	ui_keys Escape
	ui_wait_gone 'Memory map of'
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

@test "memory map in a replay: the peak's largest process's map as taken at the peak; one ended before it has none" {
	[ "$(id -u)" -eq 0 ] || skip "mlock of 64 MiB needs root (the default memlock limit is 8 MiB)"
	local db="$BATS_TEST_TMPDIR/r.db"
	"$SPACETIME" -s -o /dev/null --record "$db" -- sh -c "sleep 0.3; \"$WL/mapkinds\" 64 0 \"$FILE\" 32 1500" \
		</dev/null >/dev/null 2>&1
	ui_start 100 30 -- replay last --db "$db"
	ui_wait 'replay of run'
	# (a replay opens with the processes focused)
	ui_keys f
	ui_wait 'Finished processes'
	# the heaviest first: mapkinds
	ui_wait '^ +[0-9]+ .* mapkinds '
	ui_keys m
	ui_wait 'Memory map of [0-9]+ mapkinds'
	ui_wait 'at the peak: taken at [0-9.]+ s'
	local v
	v=$(cell 'total, ' Locked) && within "$v" 64 3
	v=$(cell 'map kinds\.dat \(deleted\)' RSS) && within "$v" 32 3
	ui_keys m
	ui_wait_gone 'Memory map of'
	# sleep 0.3 ended before the peak: no map of it was kept
	ui_keys End
	ui_wait 'sleep 0\.3'
	local n
	for n in 1 2 3 4 5 6; do
		selected_is_sleep && break
		ui_keys Down
		sleep 0.2
	done
	selected_is_sleep || { ui_show; echo "sleep 0.3's row not found to select" >&2; false; }
	ui_keys m
	ui_wait 'no map was recorded of this process'
	ui_keys m
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}

# selected_is_sleep: the selected row (reverse video) is sleep 0.3's.
selected_is_sleep() {
	ui_cap_colour | grep -E $'^\e\\[30m\e\\[46m' | sed 's/\x1b\[[0-9;]*m//g' | grep -qE ' sleep 0\.3 *$'
}

@test "w: the line over the PSS is the swap, the huge pages, the locked memory, then RSS again" {
	[ "$(id -u)" -eq 0 ] || skip "mlock of 64 MiB needs root (the default memlock limit is 8 MiB)"
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		skip "transparent huge pages are off here (never)"
	# a budget that rereads the idle process within a second: the first
	# read may come while it is still mapping (the fresh machine's CI read it
	# before its mlock, and the default budget, the dashboard's drawing paid
	# first, reread it only after 15 s)
	ui_start 120 30 -- --no-record --budget 20 -- "$WL/mapkinds" 64 64 - 0 20000
	ui_wait '^ready'
	ui_wait '─RSS [0-9.]+ MiB'
	ui_keys w
	ui_wait '─swap 0 B'
	ui_keys w
	ui_wait '─huge pages [0-9.]+ (B|KiB|MiB)' # (what the kernel gave: it may give none)
	ui_keys w
	ui_wait '─locked 6[2-5]\.[0-9] MiB'
	ui_keys w
	ui_wait '─RSS [0-9.]+ MiB'
	ui_keys q y
	ui_wait '\[spacetime exited'
}

@test "major faults are marked on the time axis where pages were read from disk; a warm run has none" {
	[ "$(id -u)" -eq 0 ] || skip "dropping the page cache needs root"
	local f
	f=$(st_disk_file cold.dat) || skip "no directory on a disk here (a file on a tmpfs is never cold)"
	head -c $((16 << 20)) /dev/urandom >"$f"
	# warm: nothing read from disk, no mark (the programs were just run)
	"$WL/mapkinds" 0 0 - 0 10 >/dev/null
	ui_start 100 30 -- --no-record -- sh -c "\"$WL/mapkinds\" 0 0 - 0 10; sleep 2"
	ui_wait 'finished, exit 0'
	! ui_rows 9 9 | grep -q '▴' || { ui_show; echo "a mark with nothing read from disk" >&2; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
	# cold: 4,096 pages read from disk, marked under the graph
	sync
	echo 3 >/proc/sys/vm/drop_caches
	ui_start 100 30 -- --no-record -- sh -c "sleep 1; \"$WL/mapkinds\" 0 0 \"$f\" 0 10; sleep 1"
	ui_wait 'finished, exit 0'
	ui_rows 9 9 | grep -q '▴' || { ui_show; echo "no mark where pages were read from disk" >&2; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}
