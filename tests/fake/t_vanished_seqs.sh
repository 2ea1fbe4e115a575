#!/bin/bash
# With QRESYNC, "* VANISHED uid-set" removes messages as EXPUNGE does:
# after a server says 3 of 4 messages vanished, imapstress must never name
# sequence number 2, 3 or 4 again (Dovecot answered such a STORE with
# "BAD Invalid messageset"; it used to count only EXISTS and EXPUNGE).
# One connection: select, then FETCH2 (a random "FETCH N") and NOOP, 2 s.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=2 GRACE=2
fault_server shift --script "$ROOT/tests/fake/scenarios/vanished-shift.conf" --delay-ms 2
mkdir -p "$TEST_TMP/shift.raw"
fault_run shift - select=100 fet2=100 noop=100 logout=0 qresync user=tester clients=1 \
	--workers 1 "secs=$SECS" --grace "$GRACE" --rawlog --rawlog-dir "$TEST_TMP/shift.raw"
fault_wait

fault_note shift
fault_common shift $SECS $GRACE
fault_exit shift 0
fault_kinds shift
# The commands after the VANISHED line, and those naming a number past 1.
after=$(awk '/^S: \* VANISHED 11:13$/ { v = 1; next } v && /^C: [0-9]+\.[0-9]+ FETCH /' \
	"$TEST_TMP/shift.raw"/*)
assert_ge "$(printf '%s\n' "$after" | grep -c FETCH || true)" 5 "FETCHes after the VANISHED"
past=$(printf '%s\n' "$after" | grep -vE '^C: [0-9]+\.[0-9]+ FETCH 1 ' || true)
[ -z "$past" ] || fail "FETCHes past the one message left: $(printf '%s\n' "$past" | head -n 3)"

fault_finish
