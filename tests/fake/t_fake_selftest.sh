#!/bin/sh
# run-all: slow (one of the longest tests: started first)
# t_fake_selftest.sh: exercise fakeimapd itself over 127.0.0.1 with a small
# python3 client: normal protocol, literals, stats file, delays, the stall
# window, fault modes, scripts, TLS and bad options.  One line per check;
# exits non-zero if any check fails.  Self-contained (no tests/lib.sh).
#
#   FAKEIMAPD=/path/to/fakeimapd tests/fake/t_fake_selftest.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
FAKEIMAPD=${FAKEIMAPD:-./build/fakeimapd}
if [ ! -x "$FAKEIMAPD" ]; then
	echo "t_fake_selftest: no fakeimapd at '$FAKEIMAPD' (build it or set FAKEIMAPD)" >&2
	exit 1
fi
command -v python3 >/dev/null 2>&1 || {
	echo "t_fake_selftest: python3 is required" >&2
	exit 1
}
# No __pycache__ left in the source tree.
export FAKEIMAPD PYTHONDONTWRITEBYTECODE=1
exec python3 "$here/fake_selftest.py"
