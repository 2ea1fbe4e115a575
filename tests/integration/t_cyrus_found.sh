#!/bin/bash
# What Cyrus IMAP 3.6 found in imapstress (issue 11), each checked against
# a private Cyrus (scripts/cyrus-private):
#   - CHECK is a selected-state command (RFC 3501 6.4.1): `random check=30`
#     gets no "BAD Please select a mailbox first", exits 0 (item 2); the
#     run goes on until its ticks show a CHECK answered OK (then SIGTERM),
#     since on a busy machine no session may reach selected state in a
#     fixed 3 s;
#   - UID FETCH in the mix: no command answered NO or BAD, exit 0 (item 3:
#     sequence-number commands used to go out behind UID FETCH, during
#     which Cyrus sends EXPUNGE, and were answered "NO No matching
#     messages"); the only state errors allowed are Cyrus's own
#     unannounced sequence numbers (below), and then exit 1;
#   - pointed at Cyrus's LMTP port, imapstress says "not an IMAP greeting:"
#     with the server's first line, and its one-line unusable-server
#     summary counts the protocol errors; exit 3 (item 7).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
IMAP_SERVER=cyrus
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
need_server
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

server_start
# summary FILE PATH... and stress NAME ARGS... come from tests/lib.sh.
note "cyrus on port $SERVER_PORT, LMTP port $CYRUS_LMTP_PORT"

# Cyrus 3.6 sometimes numbers a message it never announced: another
# session's APPEND lands while it answers, and it sends "* 36 FETCH (...
# UID 2501)" with 35 announced and no "* 36 EXISTS" before or after (or,
# later in that session, "* 12 EXPUNGE" with 11 announced).  RFC 3501
# 5.2 and RFC 9051 5.2 make the server send EXISTS when it sees the
# mailbox grow; the model is right to call it "seq too high", as imaptest
# does.  So "no state error at all" is not Cyrus's to give in a mix where
# sessions share a mailbox: a run may have a few seq-too-high lines (each
# shown: at most 5) and no other kind, and then exit 1, which is what any
# state error means.  NAME RC STATE_ERRORS, the run's stderr in NAME.err.
exit_with_cyrus_seq_errors() {
	local name=$1 rc=$2 nstate=$3 state_lines other
	state_lines=$(grep -E '^Error: .* \([a-z-]+\): ' "$TEST_TMP/$name.err" || true)
	other=$(printf '%s\n' "$state_lines" | grep -v ' (seq-too-high): ' | grep -c . || true)
	assert_eq 0 "$other" "$name: state errors other than seq-too-high (stderr: $(printf '%s\n' "$state_lines" | head -n 3))"
	[ "$nstate" -le 5 ] || fail "$name: state errors: $nstate, at most 5 seq-too-high expected (stderr: $(printf '%s\n' "$state_lines" | head -n 3))"
	if [ "$nstate" = 0 ]; then
		assert_eq 0 "$rc" "$name: exit status (stderr: $(grep -m 3 '^Error' "$TEST_TMP/$name.err"))"
	else
		note "$name: Cyrus numbered messages it never announced: $(printf '%s\n' "$state_lines" | head -n 1)"
		assert_eq 1 "$rc" "$name: exit status with state errors"
	fi
}

stress_until check 60 commands.CHECK.ok 1 "port=$SERVER_PORT" random check=30 \
	clients=10 users=1-2 user=check%d secs=0
summary "$TEST_TMP/check.json" exit_status commands.CHECK.ok commands.CHECK.bad errors.bad errors.no errors.state
note "random check=30: exit $RC, CHECK ok ${S[1]}, CHECK bad ${S[2]}, no ${S[4]}, state ${S[5]}"
assert_eq 0 "${S[2]}" "CHECK answered BAD (stderr: $(grep -m 3 '^Error' "$TEST_TMP/check.err"))"
assert_eq 0 "${S[3]}" "BAD replies of any command"
assert_eq 0 "${S[4]}" "NO replies (stderr: $(grep -m 3 '^Error' "$TEST_TMP/check.err"))"
assert_ge "${S[1]}" 1 "CHECK ok"
exit_with_cyrus_seq_errors check "$RC" "${S[5]}"

stress uidfetch "port=$SERVER_PORT" random uidfetch=50 clients=20 users=1-2 user=uidf%d secs=4
summary "$TEST_TMP/uidfetch.json" exit_status commands.UIDFETCH.ok errors.no errors.bad errors.state
note "random uidfetch=50: exit $RC, UID FETCH ok ${S[1]}, no ${S[2]}, bad ${S[3]}, state ${S[4]}"
assert_ge "${S[1]}" 1 "UID FETCH ok"
assert_eq 0 "${S[2]}" "NO replies (stderr: $(grep -m 3 '^Error' "$TEST_TMP/uidfetch.err"))"
assert_eq 0 "${S[3]}" "BAD replies"
exit_with_cyrus_seq_errors uidfetch "$RC" "${S[4]}"

stress lmtp "port=$CYRUS_LMTP_PORT" clients=2 secs=2
note "LMTP port: exit $RC"
assert_eq 3 "$RC" "against the LMTP port: exit status"
err=$(cat "$TEST_TMP/lmtp.err")
assert_match '^Error: [^ ]+: not an IMAP greeting: "220 .*LMTP' "$err" "the greeting is named"
assert_match '^Error: server unusable: .*protocol errors [1-9][0-9]*\)$' "$err" \
	"the unusable-server line counts the protocol errors"

note "ok"
