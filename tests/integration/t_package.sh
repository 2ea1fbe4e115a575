#!/bin/bash
# run-all: slow (one of the longest tests: started first)
# The Debian package: scripts/test-package builds it with
# dpkg-buildpackage -us -uc -b (in build/deb; nocheck, see below), requires
# lintian to report no error, and checks the name, Depends (from the shared
# libraries), the file list and the version of the binary inside.  The
# package is built from the source, not from the binary under test; it
# runs in whichever pass runs the shell suite (CI's is the ASan one).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd dpkg-buildpackage dh lintian
# nocheck: the package build would run the unit suite a second time (make
# check has just run it on the same source), and that second run is what
# pushed this test past run-all's 300 s at load 40 (CK_FORK suites wait on
# the scheduler).  What this test checks is the package itself: its name,
# Depends, files and version, which the optimisation level does not
# change, so noopt (debian/rules: OPT=-O0) builds it for 68 CPU s instead
# of 98 (the longest test's CPU, on CI's two cores beside the others).
DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-parallel=2 nocheck noopt} \
	"$ROOT/scripts/test-package" >"$TEST_TMP/log" 2>&1 || fail "$(tail -n 20 "$TEST_TMP/log")"
note "$(grep -E 'ok:|lintian' "$TEST_TMP/log" | head -n 6)"
echo "PASS: $TEST_NAME"
