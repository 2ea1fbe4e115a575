#!/bin/bash
# run-all: slow (one of the longest tests: started first)
# imapstress's mailbox-state checks (src/model/mbox_model.h) against scripted
# servers: each tests/fake/scenarios/state-NAME.conf behaves like a normal
# server (3 messages, UIDs 10 11 12, UIDVALIDITY 7, UIDNEXT 13) except that
# it breaks exactly one rule.  imapstress must count it as a "state" error,
# print the check's message with the server line that broke it, and exit 1.
# Each state-NAME-legal.conf twin sends the same kind of response within the
# rules and must give no state error at all (no false positives).
#
# Workloads, one connection each, secs=2 (src/drivers/stress/stress_ops.c):
#   fetch  SELECT once, then FETCH forever (FETCH needs EXISTS > 0)
#   noop   SELECT once, then NOOP forever; EXPUNGE and VANISHED are legal in
#          a NOOP reply, not in a FETCH reply (RFC 3501 7.4.1)
#   status SELECT once, then STATUS of the selected mailbox forever
#   delete SELECT once, then FETCH and DELETE (STORE +FLAGS[.SILENT]
#          \Deleted) in turn
# Every scenario runs in parallel; fakeimapd delays each reply 5 ms so the
# servers do not crowd out each other's clients.  All servers start first,
# then each client as soon as its server is listening (fault_port), at
# most 4 per CPU at once: a client FETCHes as fast as its server answers,
# and 27 at once under ASan on a loaded 2-core machine (two busy loops
# beside, load 20) took 5.5-8.6 s each, near the 9 s bound fault_common
# asserts, against 2.5-3.6 s when 27 server starts spaced them out.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"
FAULT_JOBS=$((4 * $(nproc)))

SECS=2 GRACE=2
SCEN=$ROOT/tests/fake/scenarios
common=(user=tester clients=1 --workers 1 "secs=$SECS" --grace "$GRACE" --pipeline 4)
fetch=(- select=100 fetch=100 logout=0 "${common[@]}")
noop=(- select=100 noop=100 logout=0 "${common[@]}")
status=(- select=100 status=100 logout=0 "${common[@]}")
delete=(- select=100 fetch=100 delete=100 logout=0 "${common[@]}")

# scenario NAME WORKLOAD: imapstress with the workload's state words (and
# any further arguments) against NAME's fakeimapd, which plays
# state-NAME.conf.
scenario() {
	local name=$1 work=$2
	shift 2
	fault_port "$name"
	case $work in
	fetch) fault_run "$name" "${fetch[@]}" "$@" ;;
	noop) fault_run "$name" "${noop[@]}" "$@" ;;
	status) fault_run "$name" "${status[@]}" "$@" ;;
	delete) fault_run "$name" "${delete[@]}" "$@" ;;
	*) fail "scenario $name: unknown workload '$work'" ;;
	esac
}

# NAME WORKLOAD ERE: the broken server, the message it must produce, in
# the form "Error: <user>[<slot>]: <message> (<kind>): <server line>".
broken=(
	"seq-too-high fetch seq too high \(5 > 3, state=FETCH\) \(seq-too-high\): \* 5 FETCH \(FLAGS \(\)\)$"
	"exists-backwards fetch EXISTS went backwards: 3 -> 2 \(EXPUNGE must come first\) \(exists-backwards\): \* 2 EXISTS$"
	"uid-changed fetch UID changed for seq 1: 10 -> 11 \(uid-changed\): \* 1 FETCH \(UID 11 FLAGS \(\)\)$"
	"uid-order fetch UIDs not ascending: seq 1 has UID 11 but seq 2 has UID 10 \(uid-order\): \* 2 FETCH \(UID 10 FLAGS \(\)\)$"
	"uidnext fetch UID 12 below UIDNEXT 13 \(seq 4 arrived after SELECT\) \(uidnext\): \* 4 FETCH \(UID 12 FLAGS \(\)\)$"
	"uidnext-existing fetch UID 13 not below UIDNEXT 13 \(seq 2 existed at SELECT\) \(uidnext\): \* 2 FETCH \(UID 13 FLAGS \(\)\)$"
	"static-changed fetch RFC822.SIZE changed for UID 10: 100 -> 200 \(static-changed\): \* 1 FETCH \(UID 10 RFC822.SIZE 200\)$"
	"keyword fetch Keyword used without being in FLAGS: \\\$Label1 \(keyword\): \* 1 FETCH \(UID 10 FLAGS \(.Seen \\\$Label1\)\)$"
	"modseq fetch MODSEQ went backwards for UID 10: 50 -> 40 \(modseq\): \* 1 FETCH \(UID 10 MODSEQ \(40\)\)$"
	"uidvalidity fetch UIDVALIDITY changed: 7 -> 8 \(uidvalidity\): \* OK \[UIDVALIDITY 8\] uids valid$"
	"uidvalidity-midsession fetch UIDVALIDITY changed: 7 -> 8 \(uidvalidity\): \* OK \[UIDVALIDITY 8\] renumbered$"
	"unannounced-after-status status seq 4 > 3 never announced by EXISTS, after a STATUS of the selected mailbox, state=STATUS \(unannounced-after-status\): \* 4 FETCH \(UID 13 FLAGS \(.Seen\)\)$"
	"expunge-unknown noop seq too high \(5 > 3, state=NOOP\) \(seq-too-high\): \* 5 EXPUNGE$"
	"expunge-zero noop EXPUNGE of seq 0 \(expunge\): \* 0 EXPUNGE$"
	"vanished noop VANISHED UID 15 not in the mailbox view \(1 of 1 UIDs unknown\) \(expunge\): \* VANISHED 15$"
)
# NAME WORKLOAD COMMAND: the legal twin and the command whose replies
# carry the response under test (it must have run).
legal=(
	"seq-too-high-legal fetch FETCH"
	"exists-backwards-legal fetch FETCH"
	"uid-changed-legal fetch FETCH"
	"uid-order-legal fetch FETCH"
	"uidnext-legal fetch FETCH"
	"static-changed-legal fetch FETCH"
	"keyword-legal fetch FETCH"
	"keyword-own-store-legal delete DELETE"
	"modseq-legal fetch FETCH"
	"uidvalidity-legal fetch SELECT"
	"uidvalidity-midsession-legal fetch FETCH"
	"expunge-legal noop NOOP"
	"vanished-legal noop NOOP"
	"vanished-cyrus-legal noop NOOP"
)

for b in "${broken[@]}" "${legal[@]}"; do
	read -r name _ <<<"$b"
	conf=$SCEN/state-$name.conf
	[ -f "$conf" ] || fail "missing scenario file $conf"
	fault_server_start "$name" --script "$conf" --delay-ms 5
done
for b in "${broken[@]}" "${legal[@]}"; do
	read -r name work _ <<<"$b"
	case $name in
	vanished*) scenario "$name" "$work" qresync ;;
	# One command at a time: a STATUS pipelined ahead of the SELECT
	# would bring the fake's FETCH into the new view before its EXISTS
	# (a real server sends no FETCH with nothing selected).
	unannounced*) scenario "$name" "$work" --pipeline 1 ;;
	# FETCH and STORE in turn: the FLAGS that drops $Label1 answers
	# the STORE of the message the FETCH before showed with it.
	keyword-own-store*) scenario "$name" "$work" --pipeline 1 ;;
	*) scenario "$name" "$work" ;;
	esac
done
fault_wait

for b in "${broken[@]}"; do
	read -r name work ere <<<"$b"
	fault_note "$name"
	fault_common "$name" $SECS $GRACE
	fault_exit "$name" 1
	case $name in
	# The refused first SELECT is an ordinary NO (not a hard error).
	uidvalidity) fault_kinds "$name" state no ;;
	*) fault_kinds "$name" state ;;
	esac
	fault_stderr "$name" "^Error: tester\[0\]: $ere" "the $name check fired"
	fault_cmp "$name" logins -eq 1
done
# The broken rule, not a shifted view, is what fires: one report for a
# rule broken once (a "once" rule, or a wrong UID, which is learnt once).
for name in exists-backwards uid-changed uid-order uidnext uidnext-existing \
	keyword modseq uidvalidity uidvalidity-midsession expunge-unknown \
	expunge-zero vanished unannounced-after-status; do
	fault_cmp "$name" err.state -eq 1
done
# The server's unannounced message is its own sub-kind, counted apart in
# the JSON summary (and still a state error); no other run has one.
fault_cmp unannounced-after-status state_unannounced -eq 1
fault_cmp seq-too-high state_unannounced -eq 0
# A message number past EXISTS, or a size that differs from the first one
# seen, is reported in every reply that has it.
fault_cmp seq-too-high err.state -ge 10
fault_cmp static-changed err.state -ge 10
# A refused SELECT is selected again, so the change is seen.
fault_cmp uidvalidity cmd.SELECT.no -eq 1
fault_cmp uidvalidity cmd.SELECT.ok -eq 1

for l in "${legal[@]}"; do
	read -r name work cmd <<<"$l"
	fault_note "$name"
	fault_common "$name" $SECS $GRACE
	case $name in
	uidvalidity-legal)
		fault_exit "$name" 0
		fault_kinds "$name" no
		fault_cmp "$name" cmd.SELECT.no -eq 1
		;;
	*)
		fault_exit "$name" 0
		fault_kinds "$name"
		;;
	esac
	fault_cmp "$name" "cmd.$cmd.ok" -gt 0
done

fault_finish
