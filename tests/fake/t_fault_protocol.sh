#!/bin/bash
# Servers that send what no IMAP parser should accept, after a good login:
# tags we never sent, binary garbage, a line that never ends, a literal of
# 4 GiB.  imapstress (secs=3, grace 2) must drop the session with a
# protocol error -- never buffer without bound, never print the raw bytes
# -- log in again, end on time and exit 1.
#
# How src/ classifies each (conn.c conn_read_cb, conn_resp.c, imap.c):
#   unknown-tag   tagged reply with tag "zz999"                  -> protocol
#   garbage       a line of random bytes with NULs               -> protocol
#   endless-line  "* OK xxxx..." without CRLF past --max-line
#                 (64 KiB by default): the parser's line limit    -> protocol
#   huge-literal  "{4294967296}" over --max-literal (256 MiB)     -> protocol
#   vanished-unasked  "* VANISHED 10:12" to a client that never sent
#                 ENABLE QRESYNC (RFC 7162 3.2.10; conn_ext.c)     -> protocol
# Each is a hard error after a successful login: exit 1.  The twin
# vanished-asked runs with qresync: the same line is legal, no error.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=3 GRACE=2
common=("secs=$SECS" --grace "$GRACE")

fault_server tag --mode script --script "$ROOT/tests/fake/scenarios/fault-unknown-tag.conf"
fault_run unknown-tag clients=10 "${common[@]}"
fault_server garbage --mode garbage
fault_run garbage clients=10 "${common[@]}"
fault_server endless --mode endless-line
fault_run endless-line clients=20 "${common[@]}"
fault_server huge --mode huge-literal
fault_run huge-literal clients=10 "${common[@]}"
# One connection: SELECT, then FETCH and NOOP; the first NOOP's reply has
# the VANISHED.  Not applied, it cannot empty the mailbox of FETCHes.
vanished=(- select=100 fetch=100 noop=100 logout=0 user=tester clients=1
	--workers 1 "${common[@]}")
fault_server vanished --script "$ROOT/tests/fake/scenarios/fault-vanished-unasked.conf" \
	--delay-ms 2
fault_run vanished-unasked "${vanished[@]}"
fault_server vanished-asked --script "$ROOT/tests/fake/scenarios/fault-vanished-unasked.conf" \
	--delay-ms 2
fault_run vanished-asked "${vanished[@]}" qresync
fault_wait

for s in unknown-tag garbage endless-line huge-literal vanished-unasked; do
	fault_note "$s"
	fault_common "$s" $SECS $GRACE
	fault_exit "$s" 1
	fault_kinds "$s" protocol
	fault_cmp "$s" logins -gt 0
done
# One protocol error per session, then a fresh login: nobody is stuck.
fault_cmp garbage logins -gt 10
fault_cmp endless-line logins -gt 20
# The error names the limit, so a user knows which knob to turn.
fault_stderr huge-literal 'max-literal' "the literal limit is named"
fault_stderr endless-line 'longer than [0-9]+ bytes' "the line limit is named"
# Each session's VANISHED ends it, the next logs in and FETCHes again:
# applied, the first one left 0 messages and no FETCH was ever sent again.
fault_cmp vanished-unasked logins -gt 1
fault_cmp vanished-unasked cmd.FETCH.ok -gt 1
fault_stderr vanished-unasked \
	'^Error: tester\[0\]: VANISHED but QRESYNC was not enabled \(RFC 7162 3\.2\.10\): "\* VANISHED 10:12"$' \
	"the unasked VANISHED is named"

fault_note vanished-asked
fault_common vanished-asked $SECS $GRACE
fault_exit vanished-asked 0
fault_kinds vanished-asked
fault_cmp vanished-asked cmd.NOOP.ok -gt 1

fault_finish
