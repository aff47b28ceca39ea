#!/usr/bin/env bats
# Installing spacetime: make install / uninstall (DESTDIR and PREFIX), the man
# page against --help and the key table, the bash and zsh completions, and the
# Debian package (make deb, lintian, dpkg -i, the postinst). The package is
# built once per run of this file, into a directory of its own (B=...), so the
# tree's build/ is not touched; the tests that install it need root and purge
# it again, leaving the machine as they found it.

load helpers

ST_MAN="$ST_ROOT/contrib/spacetime.1"
ST_POSTINST="$ST_ROOT/contrib/debian/postinst"

setup() {
	[ -x "$SPACETIME" ] || {
		echo "spacetime binary not found: $SPACETIME (run make spacetime)" >&2
		return 1
	}
	# The files make install writes, relative to DESTDIR, for PREFIX=/usr/local.
	INSTALLED=(
		usr/local/bin/spacetime
		usr/local/share/bash-completion/completions/spacetime
		usr/local/share/man/man1/spacetime.1
		usr/local/share/zsh/site-functions/_spacetime
	)
}

# mk ARGS...: make in the repository, as a user would run it, not as part of
# the make that runs this suite (no inherited MAKEFLAGS or jobserver). `-o
# spacetime` installs the tree's ./spacetime as built instead of rebuilding it
# (make check and make check-san build it first).
mk() {
	st_capture env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$ST_ROOT" "$@"
	ST_CMD=(make "$@")
}

# files_under DIR: every non-directory under DIR, relative to it, sorted.
files_under() { (cd "$1" && find . ! -type d | sed 's|^\./||' | LC_ALL=C sort); }

# --- make install / uninstall --------------------------------------------------

@test "make install DESTDIR=: the binary, the man page, the bash and zsh completions, nothing else" {
	local d="$BATS_TEST_TMPDIR/dest"
	mk -o spacetime install DESTDIR="$d" PREFIX=/usr/local
	assert_status 0
	local want got
	want=$(printf '%s\n' "${INSTALLED[@]}" | LC_ALL=C sort)
	got=$(files_under "$d")
	[ "$got" = "$want" ] || st_fail "installed files: expected
$want
got
$got"
	[ "$(stat -c %a "$d/usr/local/bin/spacetime")" = 755 ] || st_fail "binary mode $(stat -c %a "$d/usr/local/bin/spacetime")"
	[ "$(stat -c %a "$d/usr/local/share/man/man1/spacetime.1")" = 644 ] || st_fail "man page mode"
	# make install installs the tree's ./spacetime, whichever binary the
	# suite tests (SPACETIME: a sanitized build under make check-san)
	cmp -s "$ST_ROOT/spacetime" "$d/usr/local/bin/spacetime" || st_fail "the installed binary is not ./spacetime"
}

@test "make uninstall removes exactly what make install put there" {
	local d="$BATS_TEST_TMPDIR/dest"
	# Someone else's files in the same directories must survive.
	mkdir -p "$d/usr/local/bin" "$d/usr/local/share/man/man1"
	echo other >"$d/usr/local/bin/other"
	echo other >"$d/usr/local/share/man/man1/other.1"
	mk -o spacetime install DESTDIR="$d" PREFIX=/usr/local
	assert_status 0
	mk uninstall DESTDIR="$d" PREFIX=/usr/local
	assert_status 0
	local got
	got=$(files_under "$d")
	[ "$got" = "usr/local/bin/other
usr/local/share/man/man1/other.1" ] || st_fail "left after uninstall:
$got"
}

@test "make install PREFIX=: spacetime --help and man spacetime work from a clean shell" {
	local p="$BATS_TEST_TMPDIR/prefix"
	mk -o spacetime install PREFIX="$p"
	assert_status 0
	# A login shell with an empty environment and the prefix's bin on PATH:
	# man finds the page from PATH (bin/../share/man), as for /usr/local.
	st_capture env -i HOME="$BATS_TEST_TMPDIR" PATH="$p/bin:/usr/bin:/bin" bash --noprofile --norc -c \
		'spacetime --help && man -w spacetime && MANPAGER=cat MANWIDTH=80 man spacetime'
	assert_status 0
	grep -q '^usage: spacetime ' <<<"$output" || st_fail "no usage line from the installed spacetime --help"
	grep -qx "$p/share/man/man1/spacetime.1" <<<"$output" || st_fail "man -w does not find $p/share/man/man1/spacetime.1"
	grep -q '^SPACETIME(1)' <<<"$output" || st_fail "man spacetime printed no page"
	grep -q '^DASHBOARD' <<<"$output" || st_fail "man spacetime: no DASHBOARD section"
	# and the page read by path, as a packager checks it
	st_capture env MANPAGER=cat man -l "$p/share/man/man1/spacetime.1"
	assert_status 0
	grep -q '^PRIVILEGES' <<<"$output" || st_fail "man -l: no PRIVILEGES section"
	mk uninstall PREFIX="$p"
	assert_status 0
	local left
	left=$(files_under "$p")
	[ -z "$left" ] || st_fail "left after uninstall: $left"
}

# --- the man page matches --help and the key table -------------------------------

# man_tags SECTION: the tags of the .TP paragraphs in SECTION (".SH OPTIONS",
# ".SS Keys") of the man page, as groff renders them, one a line.
man_tags() {
	awk -v sec="$1" '/^\.S[HS] / { on = ($0 == sec) } on && prev ~ /^\.TP/ { print; print ".br" } { prev = $0 }' "$ST_MAN" |
		{ printf '.TH X 1\n.SH TAGS\n'; cat; } |
		LC_ALL=C groff -man -Tascii -P-c -P-b -P-u -rLL=200n 2>/dev/null |
		sed -n '/^TAGS$/,$p' | sed '1d; s/^ *//; /^$/d; /X(1) *$/d'
}

# help_tags: the option column of spacetime --help ("-o, --output FILE").
help_tags() { "$SPACETIME" --help | sed -nE '/^ +-/ { s/^ +//; s/  .*//; p; }'; }

# option_names: the option words (-s, --summary, ...) of tags on stdin, sorted.
option_names() { grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | LC_ALL=C sort -u; }

# same_lists WHAT A B: A and B (one item a line) are the same, or fail showing both diffs.
same_lists() {
	local d
	d=$(diff <(LC_ALL=C sort -u <<<"$2") <(LC_ALL=C sort -u <<<"$3")) ||
		st_fail "$1 differ (< only in the first, > only in the second):
$d"
}

@test "man page: OPTIONS lists the options of --help, with the same arguments, and no others" {
	local h m
	h=$(help_tags)
	m=$(man_tags ".SH OPTIONS")
	[ "$(grep -c . <<<"$h")" -ge 13 ] || st_fail "only $(grep -c . <<<"$h") options read from --help: $h"
	same_lists "--help (<) and man page (>) options" "$h" "$m"
}

@test "man page: Keys documents every key of the key table (ui/keys.c), and no others" {
	local table m
	# (the C string "\\\\" is the key \\)
	table=$(grep -oE 'ACT_[A-Z_]+, "[^"]+"' "$ST_ROOT/ui/keys.c" | sed -E 's/^[^"]*"(.*)"$/\1/; s/\\\\/\\/g')
	[ "$(grep -c . <<<"$table")" -ge 20 ] || st_fail "only $(grep -c . <<<"$table") keys read from ui/keys.c"
	# a tag names one key or several ("Up, k"); the comma key is "," alone
	m=$(man_tags ".SS Keys" | sed 's/\(.\), /\1\n/g')
	same_lists "key table (<) and man page (>) keys" "$table" "$m"
}

@test "man page: the version is the program's; the exit statuses are those of --help" {
	local v
	v=$("$SPACETIME" --version | awk '{ print $2 }')
	grep -q "^\.TH SPACETIME 1 \"[0-9-]*\" \"spacetime $v\"" "$ST_MAN" ||
		st_fail "man page .TH does not say spacetime $v: $(grep '^\.TH' "$ST_MAN")"
	local code
	for code in 127 126 2 125; do
		"$SPACETIME" --help | grep -q "$code" || st_fail "--help does not mention exit status $code"
		sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$ST_MAN" | grep -q "$code" ||
			st_fail "man page EXIT STATUS does not mention $code"
	done
}

@test "man page: renders without groff warnings" {
	st_capture env LC_ALL=C MANWIDTH=80 MANPAGER=cat man --warnings -l "$ST_MAN"
	assert_status 0
	[ -z "$stderr" ] || st_fail "warnings from man --warnings"
	for s in NAME SYNOPSIS OPTIONS DASHBOARD 'EXIT STATUS' FILES ENVIRONMENT PRIVILEGES; do
		grep -qx "$s" <<<"$output" || st_fail "no $s section"
	done
}

# --- completions -------------------------------------------------------------------

@test "bash completion: offers every option of --help (and --), and the export formats" {
	st_capture bash --norc -c '
		source "$1"
		COMP_WORDS=(spacetime -); COMP_CWORD=1; COMPREPLY=()
		_spacetime; printf "%s\n" "${COMPREPLY[@]}"
		echo ---
		COMP_WORDS=(spacetime --export-format ""); COMP_CWORD=2; COMPREPLY=()
		_spacetime; printf "%s\n" "${COMPREPLY[@]}"' bash "$ST_ROOT/contrib/completions/spacetime.bash"
	assert_status 0
	local opts formats
	opts=$(sed '/^---$/,$d' <<<"$output")
	formats=$(sed '1,/^---$/d' <<<"$output")
	same_lists "--help (<) and bash completion (>) options" "$(help_tags | option_names; echo --)" "$opts"
	for f in json csv trace svg; do
		grep -qx "$f" <<<"$formats" || st_fail "bash completion of --export-format lacks $f: $formats"
	done
}

@test "zsh completion: declares every option of --help, and completes --ex to --export and --export-format" {
	local z="$ST_ROOT/contrib/completions/_spacetime"
	# the _arguments specs: the option words before each description's [
	local declared
	declared=$(grep -E "^[[:space:]]+'.*\[" "$z" | sed "s/\[.*//; s/[(){}'+=*]/ /g" | option_names)
	same_lists "--help (<) and zsh completion (>) options" "$(help_tags | option_names)" "$declared"
	command -v zsh >/dev/null || skip "zsh is not installed: its completion is not run"
	zsh -n "$z" || st_fail "zsh -n $z: syntax error"
	# Type `spacetime --ex` and TAB TAB in an interactive zsh on a pseudo-terminal.
	local fp="$BATS_TEST_TMPDIR/zfunc"
	mkdir -p "$fp" && cp "$z" "$fp/"
	st_capture zsh -f -c '
		zmodload zsh/zpty || exit 3
		readto() { local out i; REPLY=
			for i in {1..100}; do zpty -r -t z out && REPLY+=$out; [[ $REPLY == $~1 ]] && return 0; sleep 0.1; done
			return 1; }
		zpty z "zsh -f -i"
		zpty -w z "PS1=\"> \"; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; setopt nobeep; print RE\${:-A}DY"
		readto "*READY*" || exit 4
		zpty -n -w z $'"'"'spacetime --ex\t'"'"'; sleep 0.5
		zpty -n -w z $'"'"'\t'"'"'; sleep 0.5
		zpty -w z $'"'"'\C-u print -r -- EN${:-D}D'"'"'
		readto "*ENDD*" || exit 5
		print -r -- "$REPLY"; zpty -d z' zsh "$fp"
	assert_status 0
	grep -q -- '--export-format *-- formats to export' <<<"$output" || st_fail "no --export-format in the zsh listing"
	grep -q -- '--export  *-- when the run ends' <<<"$output" || st_fail "no --export in the zsh listing"
}

# --- the Debian package ------------------------------------------------------------

# deb_build: runs make deb once for this file, into its own build directory;
# sets DEB to the package's path, status and output to the build's.
deb_build() {
	local b="$BATS_FILE_TMPDIR/debbuild"
	if [ ! -e "$b.status" ]; then
		local rc=0
		timeout -k 10 300 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
			make --no-print-directory -C "$ST_ROOT" deb B="$b" </dev/null >"$b.out" 2>&1 || rc=$?
		echo "$rc" >"$b.status"
	fi
	status=$(cat "$b.status")
	output=$(cat "$b.out")
	stderr=""
	ST_CMD=(make deb B="$b")
	DEB=$(ls "$b"/spacetime_*.deb 2>/dev/null | head -n 1)
	assert_status 0 && [ -n "$DEB" ] && [ -f "$DEB" ] || st_fail "make deb made no build/spacetime_*.deb"
}

@test "make deb: builds the package with dpkg-buildpackage; lintian reports no errors" {
	deb_build
	command -v lintian >/dev/null || st_fail "lintian is not installed (make deps)"
	st_capture lintian "$DEB"
	grep -v '^running with root privileges' <<<"$stderr" >&2 || true
	# E: tags are errors; lintian exits non-zero on them too
	grep -q '^E: ' <<<"$output" && st_fail "lintian errors on $DEB"
	assert_status 0
}

@test "make deb: the package holds the binary, the man page and both completions, and depends on libcap2-bin" {
	deb_build
	local files
	files=$(dpkg-deb -c "$DEB" | awk '{ print $6 }')
	for f in ./usr/bin/spacetime ./usr/share/man/man1/spacetime.1.gz \
		./usr/share/bash-completion/completions/spacetime ./usr/share/zsh/vendor-completions/_spacetime \
		./usr/share/doc/spacetime/copyright; do
		grep -qx -- "$f" <<<"$files" || st_fail "$f not in $DEB: $files"
	done
	dpkg-deb -f "$DEB" Depends | grep -Eq '(^|, )libcap2-bin(,|$)' ||
		st_fail "Depends lacks libcap2-bin: $(dpkg-deb -f "$DEB" Depends)"
	[ "$(dpkg-deb -f "$DEB" Version)" = "$("$SPACETIME" --version | awk '{ print $2 }')" ] ||
		st_fail "package version $(dpkg-deb -f "$DEB" Version) is not spacetime's $("$SPACETIME" --version)"
}

@test "make deb: spacetime --version in the package names the commit it was built from" {
	deb_build
	local x="$BATS_TEST_TMPDIR/x" head
	dpkg-deb -x "$DEB" "$x"
	head=$(git -C "$ST_ROOT" rev-parse --short=12 HEAD)
	st_capture "$x/usr/bin/spacetime" --version
	assert_status 0
	grep -Eq "^spacetime [0-9.]+ \(commit $head(-dirty)?\)$" <<<"$output" ||
		st_fail "expected 'spacetime VERSION (commit $head)'"
}

# Installs the package for one test; teardown purges it.
deb_install() {
	st_is_root || skip "installing a package needs root"
	dpkg-query -W -f '${Status}' spacetime 2>/dev/null | grep -q 'installed' &&
		skip "a spacetime package is already installed here: not replacing it"
	deb_build
	DEB_INSTALLED=1
	st_capture dpkg -i "$DEB"
	assert_status 0
}

teardown() {
	if [ -n "${DEB_INSTALLED:-}" ]; then
		dpkg --purge spacetime >/dev/null 2>&1 || echo "dpkg --purge spacetime failed" >&2
	fi
}

@test "dpkg -i: the postinst grants cap_net_admin; run unprivileged, spacetime follows the tree over netlink" {
	deb_install
	local dpkg_out="$output$stderr"
	local caps
	caps=$(getcap /usr/bin/spacetime)
	if [[ $caps != *cap_net_admin=ep* ]]; then
		# a file system without file capabilities: the postinst must have said so
		grep -q 'could not give /usr/bin/spacetime the cap_net_admin' <<<"$dpkg_out" ||
			st_fail "no capability on /usr/bin/spacetime ($caps) and no explanation from the postinst"
		skip "this file system does not keep file capabilities (postinst explained)"
	fi
	[ ! -u /usr/bin/spacetime ] || st_fail "/usr/bin/spacetime is set-user-ID"
	st_require_workloads nlprobe
	st_kernel_has events ||
		skip "netlink process events are unavailable on this machine, even to root: $ST_KERNEL_WHY"
	local d
	d=$(mktemp -d) && chmod 1777 "$d"
	JSON="$d/F.json"
	st_capture "${ST_SETPRIV[@]}" /usr/bin/spacetime -s --json "$JSON" -- true
	assert_status 0
	assert_json .mode = netlink
	assert_json .processes -eq 1
	assert_json .exit_status -eq 0
	rm -rf "$d"
}

@test "dpkg -i: man spacetime, and the bash and zsh completions load from where the package put them" {
	deb_install
	st_capture env -i PATH=/usr/bin:/bin MANPAGER=cat man spacetime
	assert_status 0
	grep -q '^SPACETIME(1)' <<<"$output" || st_fail "man spacetime printed no page"
	if [ -r /usr/share/bash-completion/bash_completion ]; then
		st_capture bash --norc -c 'source /usr/share/bash-completion/bash_completion; __load_completion spacetime; complete -p spacetime'
		[ "$output" = "complete -F _spacetime spacetime" ] || st_fail "bash-completion did not load the spacetime completion"
	fi
	if command -v zsh >/dev/null; then
		st_capture zsh -fc 'autoload -U compinit; compinit -u -D; print -r -- $_comps[spacetime]'
		[ "$output" = _spacetime ] || st_fail "zsh compinit did not find _spacetime in its fpath"
	fi
	dpkg --purge spacetime >/dev/null
	DEB_INSTALLED=
	[ ! -e /usr/bin/spacetime ] || st_fail "/usr/bin/spacetime left after dpkg --purge"
}

# --- the postinst's paths, run directly with fake tools ------------------------------

# postinst_run ACTION TOOLS...: runs `postinst ACTION` with a directory of
# fake commands first on PATH; each fake logs its name and arguments to
# $FAKELOG and exits 0, or 1 when written NAME-fails. /usr/sbin, where the real
# setcap is, is left out of PATH.
postinst_run() {
	local action=$1 fake="$BATS_TEST_TMPDIR/fakebin" t
	shift
	FAKELOG="$BATS_TEST_TMPDIR/fake.log"
	rm -rf "$fake" && mkdir -p "$fake" && : >"$FAKELOG"
	for t in "$@"; do
		local name=${t%-fails} rc=0
		[ "$name" = "$t" ] || rc=1
		printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit %d\n' "$name" "$FAKELOG" "$rc" >"$fake/$name"
		chmod +x "$fake/$name"
	done
	if [[ " $* " != *" setcap"* ]] && PATH="$fake:/usr/bin:/bin" command -v setcap >/dev/null; then
		skip "setcap is in /usr/bin or /bin here: cannot hide it"
	fi
	st_capture env PATH="$fake:/usr/bin:/bin" sh "$ST_POSTINST" "$action"
}

@test "postinst: sets cap_net_admin=ep on /usr/bin/spacetime with setcap, silently" {
	postinst_run configure setcap chmod
	assert_status 0
	[ "$(cat "$FAKELOG")" = "setcap cap_net_admin=ep /usr/bin/spacetime" ] ||
		st_fail "fake tools called: $(cat "$FAKELOG")"
	[ -z "$output$stderr" ] || st_fail "postinst printed something on success"
}

@test "postinst: when setcap fails, it explains (polling, sudo), makes nothing set-user-ID and exits 0" {
	postinst_run configure setcap-fails chmod
	assert_status 0
	grep -q 'could not give /usr/bin/spacetime the cap_net_admin file capability' <<<"$stderr" ||
		st_fail "no explanation on stderr"
	grep -q 'polling' <<<"$stderr" && grep -q 'sudo' <<<"$stderr" ||
		st_fail "the explanation does not say it works by polling /proc, or with sudo"
	[ "$(cat "$FAKELOG")" = "setcap cap_net_admin=ep /usr/bin/spacetime" ] ||
		st_fail "fake tools called (chmod must not be): $(cat "$FAKELOG")"
}

@test "postinst: without setcap installed, it explains and exits 0" {
	postinst_run configure chmod
	assert_status 0
	grep -q 'setcap (package libcap2-bin) is not installed' <<<"$stderr" || st_fail "no explanation on stderr"
	[ ! -s "$FAKELOG" ] || st_fail "fake tools called: $(cat "$FAKELOG")"
}

@test "postinst: the other maintainer-script actions (abort-upgrade, abort-remove) do nothing" {
	local a
	for a in abort-upgrade abort-remove; do
		postinst_run $a setcap chmod
		assert_status 0
		[ ! -s "$FAKELOG" ] && [ -z "$output$stderr" ] || st_fail "postinst $a did something: $(cat "$FAKELOG")"
	done
}
