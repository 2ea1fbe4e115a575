#!/bin/bash
# run-all: slow
# Mail as people send it: profile users submit their mail (SMTP submission,
# AUTH as themselves) to the private Postfix of scripts/mailstack-private,
# which delivers it over LMTP to the private Dovecot; mail from outside
# still comes straight over LMTP, and each sent copy is APPENDed to Sent.
# Run 1: 20 s through Postfix's submission port (the profile's
# submission_port); run 2: 8 s through Dovecot's own submission service
# (--submission-port overriding the profile's key), which relays to Postfix;
# run 3: 8 s through Postfix's port that requires STARTTLS
# (--submission-tls starttls, the instance's CA), each message to 3
# recipients (--submission-rcpts 3; 2 workers: 3 users each, the most a
# message can go to).
# Then, once Postfix's queue is empty (bounded wait):
#  - every run exits 0 with no command error and no failed submission;
#  - the submissions the runs counted ok = the recipients Postfix's log
#    says it delivered to Dovecot's LMTP (status=sent), and Postfix never
#    delivered anywhere else (mailstack-private relayed prints nothing);
#  - for every user, INBOX and Sent in the server's storage equal what the
#    runs claim (--profile-counts: delivered - expunged, appended -
#    expunged), so nothing submitted was lost or doubled;
#  - the end-to-end latency (submission's 250 -> the EXISTS in the
#    recipient's IDLE) has samples;
#  - run 3: every submission came over TLS (Postfix's log), and its
#    recipients ok are 3 per submission session.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
mailstack_start
[ -n "$MAILSTACK_DOVECOT_SUBMISSION_PORT" ] ||
	skip "Dovecot's submission is not installed (scripts/deps: dovecot-submissiond)"

P=$TEST_TMP/submit.profile
cat >"$P" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
submission_host = 127.0.0.1
submission_port = $MAILSTACK_SUBMISSION_PORT
submission_auth = any
submission_domain = mailstack.invalid
lmtp_max_parallel_count = 4
total_user_count = 6
rampup_time = 1s

user sender {
  count = 100%
  username_format = sub%n
  mail_inbox_delivery_interval = 4s
  mail_spam_delivery_interval = 0
  mail_action_delay = 300ms
  mail_send_interval = 1500ms
  mail_write_duration = 300ms
  mail_inbox_reply_percentage = 0
  mail_inbox_delete_percentage = 20
  mail_inbox_move_percentage = 0
}

client desktop {
  count = 100%
  imap_idle = yes
}
PROFILE

# run N SECS [ARGS]: one run into $TEST_TMP/counts.N.json and run.N.*.
run() {
	local n=$1 secs=$2 rc=0
	shift 2
	run_with_timeout 120 "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_PORT" \
		--duration "$secs" --seed "$n" --profile-counts "$TEST_TMP/counts.$n.json" \
		--json "$TEST_TMP/run.$n.json" "$@" >"$TEST_TMP/run.$n.out" \
		2>"$TEST_TMP/run.$n.err" || rc=$?
	assert_eq 0 "$rc" "run $n exit status (stderr: $(tail -n 5 "$TEST_TMP/run.$n.err"))"
	assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' \
		"$(cat "$TEST_TMP/run.$n.out")" "no command errors in run $n"
	note "run $n: $(grep -E '^(submissions|SMTP replies)' "$TEST_TMP/run.$n.out" | tr '\n' ' ')"
}
run 1 20
run 2 8 --submission-port "$MAILSTACK_DOVECOT_SUBMISSION_PORT"
run 3 8 --submission-port "$MAILSTACK_SUBMISSION_TLS_PORT" --submission-tls starttls \
	--ca-file "$MAILSTACK_CA_FILE" --submission-rcpts 3 --workers 2

# Postfix's queue empties (each message goes to LMTP within seconds).
mailstack_drained

# The runs' submission figures (JSON summaries).
read -r sub_ok sub_failed sub_rcpt_ok exists <<<"$("$PY" - "$TEST_TMP"/run.[123].json <<'PYEOF'
import json, sys
ok = failed = rcpt_ok = exists = 0
for path in sys.argv[1:]:
    s = [json.loads(l) for l in open(path) if l.startswith('{"type":"summary"')][0]
    p = s["profile"]
    a = p["actions"].get("submit", {"ok": 0, "failed": 0})
    ok += a["ok"]; failed += a["failed"]
    rcpt_ok += p["submit"]["ok"]
    exists += p["push"]["exists"]["count"]
print(ok, failed, rcpt_ok, exists)
PYEOF
)" || fail "unreadable JSON summaries"
assert_ge "$sub_ok" 10 "submissions accepted"
assert_eq 0 "$sub_failed" "failed submissions"
assert_eq "$sub_ok" "$sub_rcpt_ok" "submit actions ok = recipients ok (one each)"
sent=$(grep -cE 'postfix/lmtp\[[0-9]+\]: [0-9A-F]+: to=.* status=sent ' "$MAILSTACK_LOG" || true)
assert_eq "$sub_ok" "$sent" "submissions ok = Postfix's LMTP deliveries (status=sent)"
assert_ge "$exists" 1 "end-to-end latency samples (250 -> EXISTS)"

# Run 3: 3 recipients a message, every session over TLS.
read -r tls_sessions tls_rcpt_ok <<<"$("$PY" - "$TEST_TMP"/run.3.json <<'PYEOF'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][0]
sub = s["profile"]["submit"]
print(sub["sessions"], sub["ok"])
PYEOF
)" || fail "unreadable JSON summary of run 3"
assert_ge "$tls_sessions" 3 "run 3: submission sessions"
assert_eq $((tls_sessions * 3)) "$tls_rcpt_ok" "run 3: recipients ok = 3 per submission"
tls_est=$(grep -cE 'postfix/submission-tls/smtpd\[[0-9]+\]: .*TLS connection established' "$MAILSTACK_LOG" || true)
tls_auth=$(grep -cE 'postfix/submission-tls/smtpd\[[0-9]+\]: [0-9A-F]+: client=.*sasl_username=' "$MAILSTACK_LOG" || true)
assert_eq "$tls_sessions" "$tls_auth" "run 3: submissions Postfix's TLS port took (AUTH only over TLS)"
assert_ge "$tls_est" "$tls_sessions" "run 3: TLS connections established"

# Every user's INBOX and Sent, server against the runs' claims.
"$PY" - "$TEST_TMP"/counts.[123].json >"$TEST_TMP/expected" <<'PYEOF'
import json, sys
hold = {}
for path in sys.argv[1:]:
    for u in json.load(open(path))["users"]:
        h = hold.setdefault(u["user"], {"INBOX": 0, "Sent": 0})
        h["INBOX"] += u["delivered"]["INBOX"] - u["expunged"]["INBOX"]
        h["Sent"] += u["appended"]["Sent"] - u["expunged"]["Sent"]
for user, h in sorted(hold.items()):
    for f, n in h.items():
        print(user, f, n)
PYEOF
[ "$(wc -l <"$TEST_TMP/expected")" = 12 ] || fail "counts for $(wc -l <"$TEST_TMP/expected") user folders, not 12"
why=$(dovecot_counts_match <"$TEST_TMP/expected") || fail "server and runs disagree: $why"
note "$sub_ok submissions = $sent Postfix deliveries; server counts match the runs' for every user"
