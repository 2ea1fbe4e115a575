#!/bin/bash
# make install / make uninstall with PREFIX and DESTDIR: exactly the
# expected files (binary, scripts under imapstress-* names, man page and
# its links, bash completion, profiles when there are any), the installed
# binary reports the version from src/version.h, and uninstall removes all
# of it.  The binaries under test are installed as they are (make -o: not
# rebuilt), so this also works for the ASan build.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd make install
bdir=$(dirname "$IMAPSTRESS")
comp=$bdir/imapstress.bash
[ -f "$comp" ] || comp=$ROOT/build/imapstress.bash
[ -f "$comp" ] || fail "no completion file next to $IMAPSTRESS (run make)"
dest=$(make_tmpdir)
: >"$TEST_TMP/heavy.profile"
: >"$TEST_TMP/light.profile"
mk() {
	make -s -C "$ROOT" BUILD="$bdir" COMPLETION="$comp" -o "$IMAPSTRESS" -o "$comp" \
		DESTDIR="$dest" PREFIX=/opt/is "$@"
}
mk install PROFILES="$TEST_TMP/heavy.profile $TEST_TMP/light.profile" >"$TEST_TMP/install.log" 2>&1 ||
	fail "make install failed: $(tail -n 5 "$TEST_TMP/install.log")"

got=$(cd "$dest" && find . \( -type f -o -type l \) | LC_ALL=C sort)
want="./opt/is/bin/imapstress
./opt/is/bin/imapstress-capacity
./opt/is/bin/imapstress-plot
./opt/is/bin/imapstress-sweep
./opt/is/share/bash-completion/completions/imapstress
./opt/is/share/imapstress/profiles/heavy.profile
./opt/is/share/imapstress/profiles/light.profile
./opt/is/share/man/man1/imapstress-capacity.1
./opt/is/share/man/man1/imapstress-plot.1
./opt/is/share/man/man1/imapstress-sweep.1
./opt/is/share/man/man1/imapstress.1"
assert_eq "$want" "$got" "installed files"
note "installed: $(echo "$got" | tr '\n' ' ')"

version=$(sed -n 's/^#define IMAPSTRESS_VERSION "\(.*\)"/\1/p' "$ROOT/src/version.h")
assert_eq "imapstress $version" "$("$dest/opt/is/bin/imapstress" --version)" "installed --version"
assert_eq "$version" "$("$ROOT/scripts/check-version")" "debian/changelog names the same version"
[ -x "$dest/opt/is/bin/imapstress-sweep" ] || fail "imapstress-sweep is not executable"
assert_eq "imapstress.1" "$(readlink "$dest/opt/is/share/man/man1/imapstress-plot.1")" "man link"
if command -v man >/dev/null 2>&1; then
	assert_match 'metrics-listen' "$(MANWIDTH=80 man -l "$dest/opt/is/share/man/man1/imapstress.1" 2>/dev/null)" "man page renders"
fi

# Without a profiles/ directory nothing goes to share/imapstress.
mk uninstall >/dev/null 2>&1 || fail "make uninstall failed"
left=$(cd "$dest" && find . \( -type f -o -type l \))
assert_eq "" "$left" "files left after uninstall"
mk install PROFILES= >/dev/null 2>&1 || fail "make install without profiles failed"
[ ! -e "$dest/opt/is/share/imapstress" ] || fail "share/imapstress made without profiles"
mk uninstall >/dev/null 2>&1
echo "PASS: $TEST_NAME"
