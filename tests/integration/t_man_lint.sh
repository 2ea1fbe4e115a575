#!/bin/bash
# The manual passes mandoc's lint: `mandoc -Tlint man/imapstress.1` says
# nothing (every level, style included).  scripts/deps installs mandoc;
# a machine set up otherwise without it skips the test.  One kind of
# line is about this machine, not the page: "outdated mandoc.db lacks
# ps(1) entry, run makewhatis" means a page named by .Xr exists but the
# system's mandoc.db does not list it; those are left out, every other
# line fails the test.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd mandoc
page=$ROOT/man/imapstress.1
out=$TEST_TMP/lint.out
rc=0
mandoc -Tlint "$page" >"$out" 2>&1 || rc=$?
said=$(grep -v '^mandoc: outdated mandoc\.db lacks .* entry, run makewhatis' "$out" || true)
[ -z "$said" ] || fail "mandoc -Tlint $page:
$said"
# mandoc's exit status is 0 only when it found nothing at any level; the
# machine's database lines alone make it 2 ("outdated" is a warning).
case $rc in
0) ;;
2) [ -s "$out" ] || fail "mandoc -Tlint exited 2 with nothing said" ;;
*) fail "mandoc -Tlint exited $rc" ;;
esac
echo "PASS: mandoc -Tlint man/imapstress.1 says nothing"
