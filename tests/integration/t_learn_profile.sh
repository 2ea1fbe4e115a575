#!/bin/bash
# Issue 37 item 1, the profile run: a known profile runs against a private
# Dovecot with its rawlog on (IDLE, replies, deletes, moves to Spam), and
# `imapstress learn` reads Dovecot's rawlogs.  What the run confirmed
# (--profile-counts) must be what learn counted on the wire (answered
# OK): bodies read, replies, moves, up to one each per user, whose
# connection sends one command at a time and may be stopped between the
# two commands an action takes; and the learned profile has the client's
# IDLE and FETCH items, and the user's shares of the messages read.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
SECS=15

dovecot_lmtp_start --fsync no --rawlog
"$DOVECOT_PRIVATE" rawlog-user --dir "$DOVECOT_DIR" user1 user2 user3 user4 user5 ||
	fail "rawlog-user failed"
cat >"$TEST_TMP/known.profile" <<PEOF
lmtp_port = $DOVECOT_LMTP_PORT
total_user_count = 5
user u {
  count = 100%
  username_format = user%{username_idx}
  mail_inbox_delivery_interval = 1 s
  mail_action_delay = 200 ms
  mail_action_repeat_delay = 100 ms
  mail_inbox_reply_percentage = 30
  mail_inbox_delete_percentage = 20
  mail_inbox_move_percentage = 10
  mail_write_duration = 100 ms
}
client c {
  count = 100%
  imap_idle = yes
  imap_fetch_immediate = UID FLAGS RFC822.SIZE
  imap_fetch_manual = BODY.PEEK[]
}
PEOF
rc=0
run_with_timeout $((SECS + 90)) nice -n 5 "$IMAPSTRESS" --profile "$TEST_TMP/known.profile" \
	port="$DOVECOT_PORT" pass="$DOVECOT_PASS" secs="$SECS" seed=5 \
	--profile-counts "$TEST_TMP/counts.json" >"$TEST_TMP/run.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "the profile run ($(tail -n 3 "$TEST_TMP/run.out"))"
mapfile -t C < <("$PYTHON" -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
print(t["read"]); print(t["replied"]); print(t["moved_to_spam"])' "$TEST_TMP/counts.json")
note "the run confirmed: read ${C[0]}, replied ${C[1]}, moved ${C[2]}"
assert_ge "${C[0]}" 20 "mail read in the run"

rc=0
run_with_timeout 60 "$IMAPSTRESS" learn -o "$TEST_TMP/l" "$DOVECOT_RAWLOG_DIR" \
	>"$TEST_TMP/learn.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "learn ($(head -n 3 "$TEST_TMP/learn.out"))"
sum=$(cat "$TEST_TMP/l.summary")
note "$(grep "^new mail" "$TEST_TMP/l.summary")"
mapfile -t L < <(sed -n 's/^new mail (EXISTS growth): [0-9]*; bodies read \([0-9]*\), replied \([0-9]*\), deleted [0-9]*, moved \([0-9]*\), .*/\1\n\2\n\3/p' "$TEST_TMP/l.summary")
[ "${#L[@]}" = 3 ] || fail "no 'new mail' line in the summary"
for i in 0 1 2; do
	d=$((L[i] > C[i] ? L[i] - C[i] : C[i] - L[i]))
	[ "$d" -le 5 ] || fail "learned ${L[i]}, the run confirmed ${C[i]} (read, replied, moved: item $i)"
done
assert_match "^IDLE: 5 of 5 sessions$" "$sum" "every session used IDLE"
prof=$(cat "$TEST_TMP/l.profile")
while IFS= read -r line; do note "  $line"; done < <(grep -v '^#' "$TEST_TMP/l.profile")
assert_match "^  imap_idle = yes$" "$prof" "IDLE client"
assert_match "^client idle \{$" "$prof" "one client block, IDLE"
assert_match "^  count = 100%$" "$prof" "its share"
assert_match "^  imap_fetch_immediate = FLAGS RFC822.SIZE UID$" "$prof" "FETCH items of new mail"
assert_match "^  imap_fetch_manual = BODY.PEEK\[\]$" "$prof" "FETCH items of reading"
reply=$(( (200 * L[1] + L[0]) / (2 * L[0]) ))
move=$(( (200 * L[2] + L[0]) / (2 * L[0]) ))
assert_match "^  mail_inbox_reply_percentage = $reply$" "$prof" "reply share of the mail read"
assert_match "^  mail_inbox_move_percentage = $move$" "$prof" "move share of the mail read"
assert_match "^  mail_inbox_delivery_interval = [0-9]+ ms$" "$prof" "delivery interval learned"
assert_match "^  mail_action_delay = [0-9]+ ms$" "$prof" "action delay learned"
# The learned profile runs as it is, given the LMTP port.
rc=0
run_with_timeout 60 "$IMAPSTRESS" learn -o "$TEST_TMP/p" --lmtp-port "$DOVECOT_LMTP_PORT" \
	"$DOVECOT_RAWLOG_DIR" >/dev/null 2>&1 || rc=$?
assert_eq 0 "$rc" "learn --lmtp-port"
rc=0
run_with_timeout 60 "$IMAPSTRESS" --profile "$TEST_TMP/p.profile" --profile-check >/dev/null 2>&1 || rc=$?
assert_eq 0 "$rc" "--profile-check of the learned profile"
note "ok: learned read ${L[0]}, replied ${L[1]} ($reply%), moved ${L[2]} ($move%); the run confirmed ${C[0]}, ${C[1]}, ${C[2]}"
