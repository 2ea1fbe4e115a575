#!/bin/bash
# imapstress's own set-up commands (ID, ENABLE, CREATE, ...) against
# scripted servers (issue 11 item 6):
#   id-bad  advertises ID and ENABLE, not QRESYNC, and answers ID with BAD:
#           the BAD is shown ("ID (set-up) replied BAD: ...") and counted
#           (exit 1); with qresync, ENABLE is never sent and one warning
#           line says the run goes on without QRESYNC
#   no-id   advertises neither ID nor ENABLE (login capabilities come from a
#           CAPABILITY command): ID is never sent, exit 0, no BAD; with
#           qresync, one warning names ENABLE
# Both run `- select=100 noop=100 logout=0 qresync` on 3 connections.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=2 GRACE=2
SCEN=$ROOT/tests/fake/scenarios
work=(- select=100 noop=100 logout=50 qresync user=tester clients=3 "secs=$SECS" --grace "$GRACE")

for s in id-bad no-id; do
	mkdir -p "$TEST_TMP/$s.raw"
	fault_server "$s" --script "$SCEN/setup-$s.conf" --delay-ms 2
	fault_run "$s" "${work[@]}" --rawlog --rawlog-dir "$TEST_TMP/$s.raw"
done
fault_wait

# count NAME ERE: lines of NAME's rawlogs that match
count() {
	cat "$TEST_TMP/$1.raw"/* 2>/dev/null | grep -cE -- "$2" || true
}
# warnings NAME ERE: stderr lines that match
warnings() {
	grep -cE -- "$2" "$TEST_TMP/$1.err" || true
}

fault_note id-bad
fault_common id-bad $SECS $GRACE
fault_exit id-bad 1
fault_kinds id-bad bad
fault_stderr id-bad '^Error: tester\[[0-9]+\]: ID \(set-up\) replied BAD: [0-9.]+ BAD ID: unknown command$' \
	"the ID BAD is shown"
assert_ge "$(count id-bad '^C: [0-9.]+ ID \(')" 1 "id-bad: ID sent (it is advertised)"
# every ID names the tool, its version and a session id RUN-SLOT-N (16 hex
# digits, then decimals) that the server can log
assert_eq "$(count id-bad '^C: [0-9.]+ ID \(')" \
	"$(count id-bad '^C: [0-9]+\.[0-9]+ ID \("name" "imapstress" "version" "[^"]+" "x-session-id" "[0-9a-f]{16}-[0-9]+-[1-9][0-9]*"\)$')" \
	"id-bad: ID commands in the documented form"
assert_eq 0 "$(count id-bad '^C: [0-9.]+ ENABLE')" "id-bad: ENABLE lines sent without QRESYNC advertised"
assert_eq 1 "$(warnings id-bad '^Warning: server does not advertise QRESYNC: running without QRESYNC$')" \
	"id-bad: warnings about QRESYNC"

fault_note no-id
fault_common no-id $SECS $GRACE
fault_exit no-id 0
fault_cmp no-id err.bad -eq 0
fault_cmp no-id logins -gt 0
assert_eq 0 "$(count no-id '^C: [0-9.]+ ID ')" "no-id: ID lines sent without ID advertised"
assert_eq 0 "$(count no-id '^C: [0-9.]+ ENABLE')" "no-id: ENABLE lines sent without ENABLE advertised"
assert_eq 1 "$(warnings no-id '^Warning: server does not advertise ENABLE: running without QRESYNC$')" \
	"no-id: warnings about ENABLE"

fault_finish
