#!/bin/bash
# run-all: slow (a private Postfix and Dovecot)
# NOTIFY (RFC 5465) while the users' mail comes through a real MTA (issue
# 32): the LoadSim day of t_loadsim_submit_postfix (12 users, 20 s,
# tests/profiles/loadsim-submit.conf) with its client block made push =
# notify, so every user waits with NOTIFY SET instead of IDLE and its sends
# go through the private Postfix (STARTTLS, AUTH) to Dovecot's LMTP, mail
# from outside over LMTP straight.  The push's end waits up to
# --push-settle 10s for what Postfix still holds (submit_lib.sh).
# Checks:
#  - exit 0, no command error, no session refused NOTIFY, no submission
#    or delivery failed; Postfix's queue empties;
#  - every INBOX delivery (submitted recipients + LMTP's) is one push
#    under NOTIFY (--profile-counts' totals.push.notify): delivered =
#    announced + dropped (while its user had no session on INBOX's news) +
#    unannounced, none under IDLE; the unannounced are the summary's
#    push_unseen_end (counted, not lost) and missed the same in JSON and
#    counts.  Neither is bounded: Dovecot 2.3 leaves a delivery that lands
#    within its NOTIFY re-arm delay after a command unannounced until the
#    mailbox's next change (t_notify_dovecot; 2 and 10 of 600-700 in two
#    runs here);
#  - announced = the NOTIFY latency samples (push.notify_exists), > 0.
# The NOTIFY side of the latency table is printed.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"
# shellcheck source=SCRIPTDIR/submit_lib.sh disable=SC1091
. "$(dirname "$0")/submit_lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
mailstack_start

USERS=12
P=$TEST_TMP/notify-submit.profile
sed -e "s/^lmtp_port = .*/lmtp_port = $DOVECOT_LMTP_PORT/" \
	-e 's/^  imap_idle = yes$/  push = notify/' \
	"$ROOT/tests/profiles/loadsim-submit.conf" >"$P"
grep -q '^  push = notify$' "$P" || fail "the profile's client block has no imap_idle = yes to make push = notify"

submit_day "$P" "$USERS" --duration 20
counts=$TEST_TMP/counts.json

# sub_ok lmtp_ok bad refused missed_notify unseen samples idle_samples,
# then the notify totals: delivered announced dropped unannounced missed;
# and IDLE's delivered.
read -r sub_ok lmtp_ok bad refused missed_n unseen samples idle_samples \
	dlv ann drop unann miss idle_dlv <<<"$("$PY" - "$TEST_TMP/run.json" "$counts" <<'PYEOF'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][0]
p = s["profile"]
sub, lm, n = p["submit"], p["lmtp"], p["notify"]
c = json.load(open(sys.argv[2]))["totals"]["push"]
t, i = c["notify"], c["idle"]
print(sub["ok"], lm["ok"],
      sub["tempfail"] + sub["permfail"] + sub["no_reply"] +
      lm["tempfail"] + lm["permfail"] + lm["no_reply"],
      n["notify_refused"], n["push_missed_notify"], p["push_unseen_end"],
      p["push"]["notify_exists"]["count"], p["push"]["exists"]["count"],
      t["delivered"], t["announced"], t["dropped"], t["unannounced"],
      t["missed"], i["delivered"])
PYEOF
)" || fail "unreadable JSON summary or counts file"
note "NOTIFY: $dlv INBOX deliveries ($sub_ok submitted, $lmtp_ok over LMTP): $ann announced, $drop dropped, $unann unannounced at the end"
assert_eq 0 "$bad" "submitted or LMTP recipients without a 250"
assert_eq 0 "$refused" "sessions refused NOTIFY"
assert_ge "$sub_ok" 1 "recipients submitted through Postfix"
assert_eq $((sub_ok + lmtp_ok)) "$dlv" "INBOX deliveries under NOTIFY = submitted + LMTP recipients"
assert_eq 0 "$idle_dlv" "deliveries to users under IDLE"
assert_eq "$dlv" $((ann + drop + unann)) "delivered = announced + dropped + unannounced"
assert_eq "$unann" "$unseen" "push_unseen_end = the users' unannounced"
assert_eq "$miss" "$missed_n" "NOTIFY deliveries missed: JSON = counts file"
assert_ge "$ann" 1 "deliveries announced under NOTIFY"
assert_eq "$ann" "$samples" "announced = NOTIFY latency samples"
assert_eq 0 "$idle_samples" "IDLE latency samples"
note "$(grep -E '^(push by|seen|missed|250->seen|250->FETCH|NOTIFY:|push unseen)' "$TEST_TMP/run.out")"
