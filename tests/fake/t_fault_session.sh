#!/bin/bash
# run-all: slow (one of the longest tests: started first)
# Servers that let sessions in and then break them: close or reset the
# connection, BYE at random, answer NO or BAD to everything, or stop
# answering.  For each, imapstress (secs=3, grace 2) must end on time,
# count the fault under the right kind (and nothing else), log in again
# after each drop, and exit 1 for hard errors after good logins -- except
# NO replies, which are ordinary IMAP and leave the exit status 0 (run.c).
#
# How src/ classifies each (conn.c, conn_resp.c):
#   close-mid-command  EOF once a command line starts after login -> disconnect
#   close-mid-literal  FETCH answered with half a literal, then
#                      EOF; the FETCH in flight counts as failed  -> disconnect
#   reset              RST right after the LOGIN OK               -> disconnect
#   bye-random         "* BYE" to 20% of commands                 -> bye
#                      (with no_tracking: fakeimapd's STORE replies
#                      carry keywords its FLAGS never announced, which
#                      the mailbox-state check rightly counts as
#                      "state"; that is the fake's IMAP, not the point)
#   reply-no           tagged NO to every command after login     -> no (exit 0)
#   reply-bad          tagged BAD, and imaptest drops the session -> bad
#   stall              commands swallowed; --cmd-timeout 1s       -> timeout
#   stall, no timeout  60 s default command timeout > secs, so the
#     given            grace ends the run with commands unanswered:
#                      no error kind, "unfinished" > 0            -> none (exit 1)
#                      (--stall-timeout past the grace: a stall
#                      bound of 5 s would race the 2 s grace)
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=3 GRACE=2
common=("secs=$SECS" --grace "$GRACE")

fault_server cmd --mode close-mid-command
fault_run close-mid-command clients=10 "${common[@]}"
fault_server lit --mode close-mid-literal
fault_run close-mid-literal clients=10 "${common[@]}"
fault_server reset --mode reset
fault_run reset clients=5 "${common[@]}"
fault_server bye --mode bye-random
fault_run bye-random clients=10 "${common[@]}" no_tracking
fault_server no --mode script --script "$ROOT/tests/fake/scenarios/fault-reply-no.conf"
fault_run reply-no clients=5 "${common[@]}"
fault_server bad --mode script --script "$ROOT/tests/fake/scenarios/fault-reply-bad.conf"
fault_run reply-bad clients=5 "${common[@]}"
fault_server stall --mode stall
fault_run stall clients=20 "${common[@]}" --cmd-timeout 1s
fault_run stall-defaults clients=5 "${common[@]}" --stall-timeout 60
fault_wait

all=(close-mid-command close-mid-literal reset bye-random reply-no reply-bad
	stall stall-defaults)
for s in "${all[@]}"; do
	fault_note "$s"
	fault_common "$s" $SECS $GRACE
	fault_cmp "$s" logins -gt 0
done

for s in close-mid-command close-mid-literal reset bye-random reply-bad stall \
	stall-defaults; do
	fault_exit "$s" 1
done
fault_exit reply-no 0

fault_kinds close-mid-command disconnect
# Each drop is followed by a new login: the same users come back.
fault_cmp close-mid-command logins -gt 10
fault_kinds close-mid-literal disconnect
fault_cmp close-mid-literal cmd.FETCH.failed -gt 0
fault_kinds reset disconnect
fault_cmp reset logins -gt 5
fault_kinds bye-random bye
fault_cmp bye-random ok_total -gt 0
fault_kinds reply-no no
fault_cmp reply-no cmd.SELECT.no -gt 0
fault_kinds reply-bad bad
fault_cmp reply-bad logins -gt 5
fault_kinds stall timeout
# After a timeout the client reconnects and logs in again.
fault_cmp stall logins -gt 20
fault_kinds stall-defaults
fault_cmp stall-defaults unfinished -gt 0

fault_finish
