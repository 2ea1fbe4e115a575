#!/bin/bash
# A LoadSim profile's score through a result file and `imapstress merge`,
# against fakeimapd's mail-store mode (IMAP + LMTP): the profile weighs
# browse 5 (and so read, LoadSim's read task), clean 2 and the other
# actions 0 (score_weight_*), so a merge that scored without the run's
# action weights (the default 8/8/1, or none) would say another score.  One run's result file merged
# alone must give, byte for byte, the text and JSON that run printed,
# score table and score line included, and the same score_us.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

fake_lmtp_start

P=$TEST_TMP/weights.profile
cat >"$P" <<PROFILE
lmtp_port = $(cat "$TEST_TMP/lmtp")
total_user_count = 4
rampup_time = 1s
day_length = 8 hours
day_compressed_to = 10 s
score_weight_browse_mail = 5
score_weight_clean_inbox = 2
score_weight_send_mail = 0
score_weight_log_off = 0
user loadsim {
  count = 100%
  username_format = w%n
  send_mail_per_day = 20
  received_mail_per_day = 100
  sent_mail_per_day = 20
  browse_mail_per_day = 40
  clean_inbox_per_day = 20
  log_off_per_day = 5
}
client c {
  count = 100%
  client_mode = online
  imap_idle = yes
}
PROFILE

T=$TEST_TMP
rc=0
run_with_timeout 60 "$IMAPSTRESS" --profile "$P" --host 127.0.0.1 --port "$FAKE_PORT" \
	--duration 4 --seed 2 --result "$T/one.res" --json "$T/one.json" \
	>"$T/one.out" 2>"$T/one.err" || rc=$?
assert_eq 0 "$rc" "run exit status ($(tail -n 5 "$T/one.err"))"
grep -q '^score: ' "$T/one.out" || fail "no score in the run: $(tail -n 20 "$T/one.out")"
assert_match '^browse +5\.000 ' "$(cat "$T/one.out")" "browse weighs 5"
assert_match '^clean +2\.000 ' "$(cat "$T/one.out")" "clean weighs 2"
grep -q '^act_weights read=5 browse=5 clean=2$' "$T/one.res" ||
	fail "the result file does not carry the action weights: $(grep -m1 '^act_weights' "$T/one.res")"
"$IMAPSTRESS" merge --json "$T/m1.json" "$T/one.res" >"$T/m1.out" 2>"$T/m1.err" ||
	fail "merge of one file: exit $?: $(cat "$T/m1.err")"
cmp "$T/one.out" "$T/m1.out" || fail "merged text differs: $(diff "$T/one.out" "$T/m1.out" | head)"
cmp "$T/one.json" "$T/m1.json" || fail "merged JSON differs"
summary "$T/m1.json" score.score_us
note "score $(grep '^score: ' "$T/m1.out"), merged score_us ${S[0]}"
fake_stop
note "ok"
