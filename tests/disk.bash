# disk.bash: sourced by the e2e and ui helpers.

# st_disk_file NAME: prints a path for a file that must live on a disk (a
# file read back "cold" after dropping the page cache: a tmpfs keeps it in
# memory whatever is dropped), in a directory made for the test and removed
# with it; returns 1 when no directory at hand is on a disk.
st_disk_file() {
	local d fs
	for d in "$BATS_TEST_TMPDIR" /var/tmp "$BATS_TEST_DIRNAME/../../build"; do
		[ -d "$d" ] && [ -w "$d" ] || continue
		fs=$(stat -f -c %T "$d" 2>/dev/null) || continue
		case $fs in tmpfs | ramfs | overlayfs) continue ;; esac
		d=$(mktemp -d "$d/spacetime-cold.XXXXXX") || continue
		ST_DISK_DIRS+=("$d")
		echo "$d/$1"
		return 0
	done
	return 1
}

# st_disk_cleanup: removes what st_disk_file made.
st_disk_cleanup() {
	local d
	for d in "${ST_DISK_DIRS[@]}"; do
		rm -rf "$d"
	done
	ST_DISK_DIRS=()
}
ST_DISK_DIRS=()
