#!/usr/bin/env bats
# Processes that live less than one sampling interval: no tick reads them at
# their largest, so the finished list shows their high-water RSS from their
# taskstats exit record (exact; privileged), marked RSS, instead of a PSS no
# read took. Truth: fill 8 0 touches 8 MiB and exits at once; fill 1 0 the
# same program touching 1 MiB (its high-water RSS less 1 MiB is the
# program's own baseline).

load tmux

setup() {
	ui_require
	[ "$(id -u)" -eq 0 ] || skip "taskstats exit records need CAP_NET_ADMIN"
}

teardown() {
	ui_teardown
}

# mib_of "9.21M": 9.21
mib_of() { awk -v t="$1" 'BEGIN { v = t + 0; if (t ~ /K$/) v /= 1024; if (t ~ /G$/) v *= 1024; print v }'; }

@test "short lives: the finished list shows each one's high-water RSS, marked RSS, within 10% of what it touched" {
	ui_start 120 40 -- --no-record -- sh -c "for i in 1 2 3 4 5 6; do \"$WL/fill\" 8 0; done; \"$WL/fill\" 1 0; sleep 1.5"
	ui_wait 'finished, exit 0'
	ui_keys Tab f
	ui_wait 'Finished processes'
	local screen base v n=0
	screen=$(ui_cap)
	base=$(grep -E ' fill 1 0$' <<<"$screen" | grep -oE 'RSS [0-9.]+[KMG]' | head -1 | cut -d' ' -f2)
	[ -n "$base" ] || { ui_show; echo "fill 1 0 has no RSS mark" >&2; false; }
	base=$(awk -v b="$(mib_of "$base")" 'BEGIN { print b - 1 }')
	while read -r v; do
		awk -v v="$(mib_of "$v")" -v b="$base" 'BEGIN { t = 8 + b; exit !(v >= t * 0.9 && v <= t * 1.1) }' ||
			{ ui_show; echo "RSS $v for 8 MiB touched on a baseline of $base MiB" >&2; false; }
		n=$((n + 1))
	done < <(grep -E ' fill 8 0$' <<<"$screen" | grep -oE 'RSS [0-9.]+[KMG]' | cut -d' ' -f2)
	[ "$n" -ge 5 ] || { ui_show; echo "$n of 6 short fills show their RSS" >&2; false; }
	# a process that lived long (sleep 1.5) keeps its PSS
	grep -E ' sleep 1\.5$' <<<"$screen" | grep -qvE 'RSS [0-9]' || { ui_show; false; }
	ui_keys q
	ui_wait '\[spacetime exited 0\]'
}
