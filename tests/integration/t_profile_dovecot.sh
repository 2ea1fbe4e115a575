#!/bin/bash
# Profile mode against the private Dovecot with its LMTP: a profile shaped
# like the example in imaptest's docs (two user kinds, two IDLE clients,
# one of them with two connections per user) with short intervals, run for
# 12 s (then drained).  Afterwards, for every user and folder, the server's
# own count (dovecot-private count) must equal what the run says it did,
# exactly (--profile-counts):
#   INBOX  = delivered.INBOX - expunged.INBOX     (deletes and MOVEs)
#   Spam   = delivered.Spam + moved_to_spam - expunged.Spam
#   Drafts = appended.Drafts - expunged.Drafts    (sent drafts are deleted)
#   Sent   = appended.Sent - expunged.Sent
# Every term must be non-zero in the run (so each is checked), there must be
# no failed delivery and no command error, and the comparison must notice a
# copy of the counts with one user's move count off by one.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"

dovecot_lmtp_start

P=$TEST_TMP/mirror.profile
cat >"$P" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
lmtp_max_parallel_count = 4
total_user_count = 10
rampup_time = 1s

user aggressive {
  count = 40%
  username_format = aggr%{username_idx | lfill(2, '0')}
  mail_session_length = 6s
  mail_inbox_delivery_interval = 700ms
  mail_spam_delivery_interval = 3s
  mail_action_delay = 300ms
  mail_action_repeat_delay = 100ms
  mail_send_interval = 3s
  mail_write_duration = 1s
  mail_inbox_reply_percentage = 30
  mail_inbox_delete_percentage = 25
  mail_inbox_move_percentage = 25
  mail_inbox_move_filter_percentage = 10
}

user normal {
  count = 60%
  username_format = norm%n
  mail_inbox_delivery_interval = 2s
  mail_spam_delivery_interval = 5s
  mail_action_delay = 1s
  mail_send_interval = 5s
  mail_write_duration = 2s
  mail_inbox_reply_percentage = 40
  mail_inbox_delete_percentage = 20
  mail_inbox_move_percentage = 20
  mail_inbox_move_filter_percentage = 5
}

client desktop {
  count = 50%
  connection_max_count = 2
  imap_idle = yes
  imap_fetch_immediate = UID RFC822.SIZE FLAGS BODY.PEEK[HEADER.FIELDS (From To Subject Date)]
  imap_fetch_manual = RFC822.SIZE BODY[]
  login_interval = 1s
}

client phone {
  count = 50%
  imap_idle = yes
  imap_fetch_immediate = (UID FLAGS)
  imap_fetch_manual = BODY.PEEK[]
  login_interval = 2s
}
PROFILE

counts=$TEST_TMP/counts.json
rc=0
run_with_timeout 120 "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_PORT" \
	--duration 12 --seed 11 --profile-counts "$counts" --json "$TEST_TMP/run.json" \
	>"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" || rc=$?
assert_eq 0 "$rc" "run exit status (stderr: $(tail -n 5 "$TEST_TMP/run.err"))"
assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' \
	"$(cat "$TEST_TMP/run.out")" "no command errors"
note "$(grep '^Info: profile:' "$TEST_TMP/run.err")"
# "users logged in" counts users, not their connections: the desktop
# client's users hold two each, so sessions outnumber the 10 users.
most=$(python3 -c '
import json, sys
print(max(json.loads(l).get("profile", {}).get("users_in", 0)
          for l in open(sys.argv[1]) if l.startswith("{\"type\":\"tick\"")))
' "$TEST_TMP/run.json") || fail "unreadable JSON ticks"
assert_ge "$most" 1 "users logged in at some tick"
[ "$most" -le 10 ] || fail "users logged in: $most in one tick, more than the 10 users (sessions counted?)"

# expected FILE: "USER FOLDER N" for every user and folder, from the counts.
expected() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for u in d["users"]:
    hold = {
        "INBOX": u["delivered"]["INBOX"] - u["expunged"]["INBOX"],
        "Spam": u["delivered"]["Spam"] + u["moved_to_spam"] - u["expunged"]["Spam"],
        "Drafts": u["appended"]["Drafts"] - u["expunged"]["Drafts"],
        "Sent": u["appended"]["Sent"] - u["expunged"]["Sent"],
    }
    for f, n in hold.items():
        print(u["user"], f, n)
PY
}

# Each term of the formulas happened at least once, nothing was lost.
totals=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
print(t["delivered"]["INBOX"], t["delivered"]["Spam"], t["appended"]["Drafts"],
      t["appended"]["Sent"], t["expunged"]["INBOX"], t["expunged"]["Drafts"],
      t["moved_to_spam"], t["deliver_failed"], len(json.load(open(sys.argv[1]))["users"]))
' "$counts") || fail "unreadable counts file"
read -r d_inbox d_spam a_drafts a_sent x_inbox x_drafts moved failed nusers <<<"$totals"
note "delivered INBOX $d_inbox Spam $d_spam, appended Drafts $a_drafts Sent $a_sent, expunged INBOX $x_inbox Drafts $x_drafts, moved $moved"
assert_eq 10 "$nusers" "one entry per user"
for v in d_inbox d_spam a_drafts a_sent x_inbox x_drafts moved; do
	assert_ge "${!v}" 1 "$v happened"
done
assert_eq 0 "$failed" "deliveries without a 250"

# compare FILE: the server against the lines of `expected FILE`.
compare() {
	dovecot_counts_match < <(expected "$1")
}
why=$(compare "$counts") || fail "server and run disagree: $why"
note "server counts match the run's for all users and folders"

# The same comparison must notice one move too many.
python3 - "$counts" "$TEST_TMP/tampered.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u = max(d["users"], key=lambda u: u["moved_to_spam"])
u["moved_to_spam"] += 1
json.dump(d, open(sys.argv[2], "w"))
PY
if compare "$TEST_TMP/tampered.json" >/dev/null; then
	fail "the comparison did not notice a move count off by one"
fi
