#!/bin/bash
# run-all: slow (a private Postfix and Dovecot)
# NOTIFY (RFC 5465) while the users' mail comes through a real MTA (issue
# 32): the LoadSim day of t_loadsim_submit_postfix (12 users, 20 s,
# tests/profiles/loadsim-submit.conf) with its client block made push =
# notify, so every user waits with NOTIFY SET instead of IDLE and its sends
# go through the private Postfix (STARTTLS, AUTH) to Dovecot's LMTP, mail
# from outside over LMTP straight.  The push's end waits up to
# --push-settle 30s (its --push-timeout) for what Postfix still holds.
# Checks:
#  - exit 0, no command error, no session refused NOTIFY, no submission
#    or delivery failed; Postfix's queue empties;
#  - every INBOX delivery (submitted recipients + LMTP's) is one push
#    under NOTIFY (--profile-counts' totals.push.notify): delivered =
#    announced + dropped (while its user had no session on INBOX's news) +
#    unannounced, with none unannounced at the end (push_unseen_end = 0),
#    none missed, none under IDLE;
#  - announced = the NOTIFY latency samples (push.notify_exists), > 0.
# The NOTIFY side of the latency table is printed.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

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

rc=0
run_with_timeout 60 "$IMAPSTRESS" init --profile "$P" --profile-users "$USERS" \
	port="$DOVECOT_PORT" >"$TEST_TMP/init.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "init ($(tail -n 3 "$TEST_TMP/init.out"))"

counts=$TEST_TMP/counts.json
rc=0
run_with_timeout 240 nice "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_PORT" \
	--submission-port "$MAILSTACK_SUBMISSION_TLS_PORT" --ca-file "$MAILSTACK_CA_FILE" \
	--duration 20 --seed 32 --push-settle 30s \
	--profile-counts "$counts" --json "$TEST_TMP/run.json" \
	>"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" || rc=$?
assert_eq 0 "$rc" "run exit status (stderr: $(tail -n 5 "$TEST_TMP/run.err"))"
out=$(cat "$TEST_TMP/run.out")
assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' "$out" \
	"no command errors"
mailstack_drained

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
assert_eq 0 "$unann" "deliveries not announced when the push ended"
assert_eq 0 "$unseen" "push_unseen_end"
assert_eq 0 "$miss" "NOTIFY deliveries missed (counts file)"
assert_eq 0 "$missed_n" "NOTIFY deliveries missed (JSON)"
assert_ge "$ann" 1 "deliveries announced under NOTIFY"
assert_eq "$ann" "$samples" "announced = NOTIFY latency samples"
assert_eq 0 "$idle_samples" "IDLE latency samples"
note "$(grep -E '^(push by|seen|missed|250->seen|250->FETCH|NOTIFY:|push unseen)' "$TEST_TMP/run.out")"
