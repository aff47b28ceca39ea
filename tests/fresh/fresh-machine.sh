#!/usr/bin/env bash
# fresh-machine.sh: runs the README's set-up commands, unchanged, on a copy of
# this machine from which the packages `make deps` installs have been removed,
# each in a clean clone, as a newcomer on a fresh Debian 12 machine would.
#
# Why a copy of this machine: CI runs on a machine that already has the -dev
# packages, so a plain `make deps check` there cannot see a build that only
# works the second time (it didn't: the pkg-config flags were computed before
# deps installed anything). A debootstrap of Debian 12 with a compiler downloads
# and unpacks ~300 MB on every run; an overlay of / costs nothing to make, and
# removing packages in it, then letting the README's command install them again
# with apt-get from Debian's archive, exercises the same path: no pkg-config, no
# ncursesw, libcap, libmnl or cmocka headers, no bats or tmux. The compiler,
# make, python3 and the system's essential packages stay (removing gcc would
# take this image's other toolchains with it); the README assumes make exists.
#
# How: in a private mount namespace, a tmpfs holds the overlay's upper layer
# over /; /proc, /dev and /sys are bound in, /tmp and /run are fresh tmpfs. In
# the overlay, `apt-get purge` removes the packages; the script checks they are
# gone (pkg-config and libmnl.h absent), clones this repository's HEAD, and runs
# the README command there with no terminal and no stdin. Nothing outside the
# overlay changes; everything vanishes with the namespace.
#
# Usage: tests/fresh/fresh-machine.sh [INDEX...]: runs the README's set-up
# commands (1 = build and run, 2 = make deps check; default both, in that
# order) each in a new overlay. Exits with the first failure's status, else 0;
# the last lines printed are those of the last command (check's count line).
# Needs root, unshare and overlayfs; exits 2 saying which is missing.

set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

die() {
	echo "fresh-machine: $*" >&2
	exit 2
}

# The indented command lines of README's "## Set up" section.
readme_commands() {
	awk '/^## /{ on = ($0 == "## Set up") } on && /^    [^ ]/ { sub(/^    /, ""); print }' README.md
}

# Packages `make deps` installs, less those a fresh machine with a compiler and
# make has (see the header).
purge_list() {
	local keep=" build-essential python3 util-linux procps make gcc "
	local pkgs p out=()
	pkgs=$(make -pnq -f GNUmakefile 2>/dev/null | sed -n 's/^DEB_PKGS = //p' | head -1)
	[ -n "$pkgs" ] || die "cannot read DEB_PKGS from GNUmakefile"
	for p in $pkgs; do
		[[ $keep == *" $p "* ]] || out+=("$p")
	done
	# Debian 12's pkg-config is a transitional package; the program is pkgconf's.
	out+=(pkgconf pkgconf-bin)
	echo "${out[@]}"
}

# inner INDEX CMD: runs inside the private mount namespace.
inner() {
	local idx=$1 cmd=$2 top root rc=0
	top=$(mktemp -d /tmp/fresh-machine.XXXXXX)
	mount -t tmpfs -o size=12g,mode=0755 fresh "$top"
	mkdir -p "$top/upper" "$top/work" "$top/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$top/upper,workdir=$top/work" "$top/root"
	root=$top/root
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount --rbind /sys "$root/sys"
	mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
	mount -t tmpfs -o mode=0755 tmpfs "$root/run"

	local purge
	purge=$(purge_list)
	echo "# fresh-machine $idx: removing $purge"
	# shellcheck disable=SC2086
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive SUDO_FORCE_REMOVE=yes \
		apt-get purge -y -qq $purge </dev/null >"$top/purge.log" 2>&1 ||
		{ cat "$top/purge.log" >&2; die "apt-get purge failed in the overlay"; }
	if chroot "$root" sh -c 'command -v pkg-config || ls /usr/include/libmnl/libmnl.h /usr/include/sys/capability.h' >/dev/null 2>&1; then
		die "the overlay still has pkg-config or the -dev headers: not a fresh machine"
	fi
	echo "# fresh-machine $idx: pkg-config and the -dev headers are gone; cloning HEAD"
	git clone -q --no-hardlinks "$repo" "$root/root/spacetime" || die "git clone failed"

	echo "# fresh-machine $idx: $cmd"
	chroot "$root" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 CI="${CI:-}" TERM=dumb \
		bash -c "cd /root/spacetime && $cmd" </dev/null || rc=$?
	echo "# fresh-machine $idx: exit status $rc"
	return "$rc"
}

if [ "${1:-}" = --inner ]; then
	shift
	inner "$@"
	exit
fi

[ "$(id -u)" = 0 ] || die "needs root (it removes packages in an overlay of /)"
command -v unshare >/dev/null || die "needs unshare (Debian package util-linux)"
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || die "needs overlayfs"

mapfile -t cmds < <(readme_commands)
[ "${#cmds[@]}" -eq 2 ] || die "README's Set up section should state exactly two commands, found ${#cmds[@]}"
[[ ${cmds[1]} == "make deps check" ]] || die "README's second command should be 'make deps check', is '${cmds[1]}'"

sel=("$@")
[ "${#sel[@]}" -gt 0 ] || sel=(1 2)
for i in "${sel[@]}"; do
	[[ $i == [12] ]] || die "no README command $i"
	unshare -m --propagation private "$0" --inner "$i" "${cmds[i - 1]}"
done
