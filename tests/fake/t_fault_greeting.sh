#!/bin/bash
# Servers that never let a session in: no greeting, a close or a BYE
# instead of one, a refused port, refused logins, a greeting dripped one
# byte per 100 ms.  For each, imapstress (secs=3, grace 2) must end on
# time, count the fault under the right kind, retry with backoff rather
# than in a tight loop, and exit 3 ("server unusable": nobody ever got in),
# however short the run.
#
# How src/ classifies each (conn.c, conn_resp.c):
#   no-greeting        greeting timer (--greeting-timeout 1s)    -> timeout
#   no-greeting, no    secs=3 < the 10 s default greeting timeout, so
#     timeouts given   nothing is counted; the drain must still
#                      close the waiting connections at once      -> none
#   close-at-greeting  EOF before the greeting                    -> disconnect
#   bye-greeting       "* BYE" as the greeting                    -> bye
#   refuse             connect() refused                          -> connect
#   login-refuse       tagged NO to LOGIN: counted as a NO reply
#                      and as a refused login (stats.h)           -> no, login
#   drip               the greeting takes ~13 s to arrive; it is
#                      not complete after --greeting-timeout 1s   -> timeout
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=3 GRACE=2
common=("secs=$SECS" --grace "$GRACE")

fault_server nogreet --mode no-greeting
fault_run no-greeting clients=10 "${common[@]}" --greeting-timeout 1s
fault_run no-greeting-defaults clients=5 "${common[@]}"
fault_server closegreet --mode script --script "$ROOT/tests/fake/scenarios/fault-close-at-greeting.conf"
fault_run close-at-greeting clients=10 "${common[@]}"
fault_server byegreet --mode script --script "$ROOT/tests/fake/scenarios/fault-bye-greeting.conf"
fault_run bye-greeting clients=10 "${common[@]}"
fault_server refuse --mode refuse
fault_run refuse clients=20 "${common[@]}"
fault_server loginrefuse --mode script --script "$ROOT/tests/fake/scenarios/fault-login-refuse.conf"
fault_run login-refuse clients=10 "${common[@]}"
fault_server drip --mode drip
fault_run drip clients=5 "${common[@]}" --greeting-timeout 1s
fault_wait

# Backoff: 20 ms doubling, so a client makes at most ~10 attempts in 3 s;
# a tight reconnect loop would make thousands.
backoff() {
	local name=$1 clients=$2
	fault_cmp "$name" connects -gt "$clients"
	fault_cmp "$name" connects -le $((clients * 12))
}

for s in no-greeting no-greeting-defaults close-at-greeting bye-greeting \
	refuse login-refuse drip; do
	fault_note "$s"
	fault_common "$s" $SECS $GRACE
	fault_exit "$s" 3
	fault_cmp "$s" logins -eq 0
	fault_cmp "$s" ok_total -eq 0
done

fault_kinds no-greeting timeout
fault_cmp no-greeting connects -ge 10
fault_kinds no-greeting-defaults
fault_cmp no-greeting-defaults connects -eq 5
fault_kinds close-at-greeting disconnect
backoff close-at-greeting 10
fault_kinds bye-greeting bye
backoff bye-greeting 10
fault_kinds refuse connect
backoff refuse 20
fault_kinds login-refuse no login
fault_cmp login-refuse cmd.LOGIN.no -gt 0
backoff login-refuse 10
fault_kinds drip timeout

fault_finish
