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
# Each is a hard error after a successful login: exit 1.
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
fault_wait

for s in unknown-tag garbage endless-line huge-literal; do
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

fault_finish
