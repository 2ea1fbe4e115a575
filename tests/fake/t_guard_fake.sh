#!/bin/bash
# The foreign-mail guard (issue 31) against fakeimapd, which answers the
# check, UID SEARCH NOT HEADER X-Imapstress "", from what it holds
# (tests/fake/fake_mark.c):
#   foreign20  100 messages, the first 20 without the marker (--foreign
#              20): 50 sessions on 2 workers, exit 2, the one line naming
#              user, mailbox and 20, nothing destructive in the rawlog,
#              one search per worker at most
#   one        1 foreign among 100: refused the same way, "1 message"
#   allow      foreign20's server with --allow-foreign-mail: exit 0, it
#              expunges, no search
#   clean      100 marked messages: exit 0, it expunges, a search per
#              worker at most
# and scripted servers that answer the check wrongly, each refused with
# the line saying why, nothing destructive sent.  Every run is SELECT and
# EXPUNGE alone (select=100 expunge=100), so that a destructive command
# is sure to come (imaptest's default mix on 50 sessions of this fake
# reached none within 3 s in 3 of 6 runs on a loaded machine; the default
# mix has its own test against Dovecot, t_foreign_mail), on 50 sessions
# and 2 workers: when one worker refuses, the other's search may be in
# flight with sessions waiting on it, and the stop at once must not touch
# them after they are freed (before that was fixed the run died of
# SIGSEGV right after the refusal line, t_hostile's exists-claim):
#   no-search  an OK without a SEARCH response
#   no         a NO (no header search)
#   bad        a BAD
#   foreign    "* SEARCH 7" on a mailbox of ten
# Every run also gets fault_common: not killed, no sanitizer report, on time.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=3 GRACE=5
SCEN=$ROOT/tests/fake/scenarios
common=(user=tester clients=50 "secs=$SECS" --grace "$GRACE" --workers 2
	--rawlog)
mix=(- select=100 expunge=100)

# run NAME ARGS...: fault_run with a rawlog directory of its own.
run() {
	local name=$1
	shift
	mkdir -p "$TEST_TMP/$name.raw"
	fault_run "$name" "${common[@]}" --rawlog-dir "$TEST_TMP/$name.raw" \
		"$@" "${mix[@]}"
}

fault_server_start foreign --foreign 20
fault_server_start one --foreign 1
fault_server_start clean
for s in no-search no bad foreign; do
	fault_server_start "s-$s" --script "$SCEN/guard-$s.conf"
done
fault_servers_ready

fault_port foreign
run foreign20
run allow --allow-foreign-mail
fault_port one
run one
fault_port clean
run clean
for s in no-search no bad foreign; do
	fault_port "s-$s"
	run "s-$s"
done
fault_wait

LINE_START='^Error: foreign-mail check: user tester, mailbox "INBOX"'
LINE_END='; nothing was deleted; --allow-foreign-mail runs anyway$'

# refused NAME WHAT: exit 2, stop_reason foreign mail, the one line with
# WHAT and no other on stderr, nothing destructive, at least one search
# and one per worker at most.
refused() {
	local name=$1 what=$2 n
	fault_exit "$name" 2
	[ "$(fault_get "$name" stop_reason)" = foreign ] ||
		_fault_bad "$name: stop_reason '$(fault_get "$name" stop_reason)', expected foreign mail"
	n=$(grep -c 'foreign-mail check' "$TEST_TMP/$name.err")
	[ "$n" = 1 ] || _fault_bad "$name: $n refusal lines, expected 1"
	n=$(wc -l <"$TEST_TMP/$name.err")
	[ "$n" = 1 ] || _fault_bad "$name: $n lines on stderr, expected the refusal alone: $(head -c 400 "$TEST_TMP/$name.err")"
	fault_stderr "$name" "$LINE_START$what$LINE_END" "the refusal line"
	n=$(guard_destroyed "$TEST_TMP/$name.raw")
	[ "$n" = 0 ] || _fault_bad "$name: $n destructive commands sent"
	n=$(guard_searches "$TEST_TMP/$name.raw")
	case $n in 1 | 2) ;; *) _fault_bad "$name: $n searches, expected 1 or 2 (2 workers)" ;; esac
}

for s in foreign20 allow one clean s-no-search s-no s-bad s-foreign; do
	fault_note "$s"
	fault_common "$s" $SECS $GRACE
done

refused foreign20 ' holds 20 messages without the X-Imapstress header \(mail imapstress did not put there\)'
refused one ' holds 1 message without the X-Imapstress header \(mail imapstress did not put there\)'
refused s-foreign ' holds 1 message without the X-Imapstress header \(mail imapstress did not put there\)'
refused s-no-search ': not known to hold only imapstress.s mail \(the search was answered OK with no SEARCH response\)'
refused s-no ': not known to hold only imapstress.s mail \(the server answered NO to UID SEARCH NOT HEADER X-Imapstress "": \[CANNOT\] header search not supported\)'
refused s-bad ': not known to hold only imapstress.s mail \(the server answered BAD to UID SEARCH NOT HEADER X-Imapstress "": unknown search key\)'

# The same server with --allow-foreign-mail, and a clean one: as before.
for s in allow clean; do
	fault_exit "$s" 0
	n=$(guard_destroyed "$TEST_TMP/$s.raw")
	[ "$n" -ge 1 ] || _fault_bad "$s: no destructive command sent"
	n=$(grep -c 'foreign-mail check' "$TEST_TMP/$s.err" || true)
	[ "$n" = 0 ] || _fault_bad "$s: a refusal line"
done
n=$(guard_searches "$TEST_TMP/allow.raw")
[ "$n" = 0 ] || _fault_bad "allow: $n searches with --allow-foreign-mail"
n=$(guard_searches "$TEST_TMP/clean.raw")
case $n in 1 | 2) ;; *) _fault_bad "clean: $n searches, expected 1 or 2 (2 workers)" ;; esac
fault_finish
