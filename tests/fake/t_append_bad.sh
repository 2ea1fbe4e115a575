#!/bin/bash
# A BAD to one of several pipelined APPENDs (issue 11 item 4):
#   bad        the server goes on answering the APPENDs behind the BAD
#              with OK: every OK it sent (counted in the rawlogs) is in
#              APPEND ok and in messages appended -- imapstress reads the
#              replies to what is in flight before it gives the session up
#   bad-close  the server closes after the BAD: the APPENDs it never
#              answered are APPEND "failed", and the text summary says
#              "unanswered: N APPEND commands ... the server may hold them"
# Both: - append=100,0 select=0 logout=0, 3 connections, --pipeline 8.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=2 GRACE=2
SCEN=$ROOT/tests/fake/scenarios
work=(- append=100,0 select=0 logout=0 user=appender clients=3 --pipeline 8
	"secs=$SECS" --grace "$GRACE")

fault_server bad --script "$SCEN/append-bad.conf"
mkdir -p "$TEST_TMP/bad.raw"
fault_run bad "${work[@]}" --rawlog --rawlog-dir "$TEST_TMP/bad.raw"
fault_server bad-close --script "$SCEN/append-bad-close.conf"
fault_run bad-close "${work[@]}"
fault_wait

fault_note bad
fault_common bad $SECS $GRACE
fault_exit bad 1
fault_kinds bad bad
server_oks=$(cat "$TEST_TMP/bad.raw"/* | grep -cE '^S: [0-9]+\.[0-9]+ OK appended$' || true)
note "bad: the server sent $server_oks APPEND OKs; APPEND ok $(fault_get bad cmd.APPEND.ok)"
assert_ge "$server_oks" 1 "bad: APPEND OKs in the rawlogs"
fault_cmp bad cmd.APPEND.ok -eq "$server_oks"
fault_cmp bad cmd.APPEND.bad -gt 0
summary "$TEST_TMP/bad.json" messages_appended
assert_eq "$server_oks" "${S[0]}" "bad: messages_appended vs the server's OKs"

fault_note bad-close
fault_common bad-close $SECS $GRACE
fault_exit bad-close 1
fault_cmp bad-close cmd.APPEND.failed -gt 0
failed=$(fault_get bad-close cmd.APPEND.failed)
fault_stderr bad-close '^Error: appender\[[0-9]+\]: APPEND replied BAD: ' "the BAD is shown"
assert_match "^unanswered: $failed APPEND commands got no reply before their connection closed: the server may hold them" \
	"$(cat "$TEST_TMP/bad-close.out")" "bad-close: the text summary names the unanswered APPENDs"

fault_finish
