#!/bin/bash
# POP3 over implicit TLS (POP3S, `ssl` / --tls as for IMAPS) with SASL
# AUTH PLAIN (RFC 5034, pop3_auth = plain) against the private Dovecot's
# pop3s listener (its self-signed CA by --ca-file), users receiving mail
# over LMTP, 3 s:
#   - --profile-check names port 995 for POP3 under --tls without
#     pop3_port (as IMAP's 993), 110 without TLS;
#   - every login is an AUTH PLAIN +OK (no USER or PASS sent, no STLS:
#     TLS from the first byte), no -ERR, no failed session, and Dovecot
#     logged each as method=PLAIN over TLS;
#   - the server holds, per user, what was delivered less what QUIT
#     committed as deleted, and its log's retr= and del= sums are ours;
#   - with a wrong password (--password), AUTH's -ERR is counted for AUTH
#     (commands.auth.err, logins 0) and the error line names AUTH and
#     Dovecot's reply.
# Before pop3_auth existed the profile was refused (exit 2).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
[ -x /usr/lib/dovecot/pop3 ] || skip "Dovecot's pop3 is not installed (dovecot-pop3d)"

dovecot_lmtp_start --tls
[ -n "${DOVECOT_POP3S_PORT:-}" ] || fail "dovecot-private --tls printed no DOVECOT_POP3S_PORT"

# profile FILE [pop3_port line]: 6 users, mail every second, POP3
# visits every 500 ms by AUTH PLAIN.
profile() {
	cat >"$1" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
${2:-}
pop3_auth = plain
total_user_count = 6
rampup_time = 500ms

user u {
  username_format = testuser_%03n@example.com
  username_start_index = 601
  count = 100%
  mail_inbox_delivery_interval = 1s
  mail_spam_delivery_interval = 0
}

client pop3 {
  count = 100%
  protocol = pop3
  login_interval = 500ms
}
PROFILE
}

# The default POP3 port follows the TLS mode, as IMAP's does.
profile "$TEST_TMP/noport.profile" ""
chk=$("$IMAPSTRESS" --profile "$TEST_TMP/noport.profile" --tls --profile-check 2>&1) ||
	fail "--profile-check --tls failed: $chk"
assert_match "POP3 on port 995" "$chk" "POP3S's default port"
chk=$("$IMAPSTRESS" --profile "$TEST_TMP/noport.profile" --profile-check 2>&1) ||
	fail "--profile-check failed: $chk"
assert_match "POP3 on port 110" "$chk" "POP3's default port"

P=$TEST_TMP/pop3s.profile
profile "$P" "pop3_port = $DOVECOT_POP3S_PORT"
out=$TEST_TMP/run
rc=0
run_with_timeout 60 "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_TLS_PORT" --tls \
	--ca-file "$DOVECOT_CA" --duration 3 --seed 5 \
	--profile-counts "$out.counts.json" --json "$out.json" >"$out.out" 2>"$out.err" || rc=$?
assert_eq 0 "$rc" "exit status (stderr: $(tail -n 5 "$out.err"))"
note "$(grep -E '^POP3:' "$out.out")"

# summary FILE: logins, then each command's ok/err ("auth=12/0 ..."),
# failed sessions, retrieved, deleted.
summary() {
	"$PY" - "$1" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][-1]
p = s["profile"]["pop3"]
c = p["commands"]
print(p["logins"], c.get("auth", {}).get("ok", 0), c.get("auth", {}).get("err", 0),
      sum(c.get(k, {}).get("ok", 0) + c.get(k, {}).get("err", 0) for k in ("user", "pass", "stls")),
      sum(v["err"] + v["failed"] for v in c.values()),
      sum(p["failed_sessions"].values()), p["retrieved"], p["deleted"])
PY
}
read -r logins auth_ok auth_err clear errs failed retr del <<<"$(summary "$out.json")" ||
	fail "unreadable JSON summary"
assert_ge "$logins" 6 "every user logged in at least once"
assert_eq "$logins" "$auth_ok" "each login an AUTH PLAIN +OK"
assert_eq 0 "$clear" "no USER, PASS or STLS sent"
assert_eq 0 "$errs" "no -ERR and no command cut off"
assert_eq 0 "$failed" "no failed session"
assert_ge "$retr" 1 "messages retrieved"
tls_plain=$(grep -ac 'pop3-login: Info: Login: .*method=PLAIN.*, TLS' "$DOVECOT_DIR/dovecot.log" || true)
assert_eq "$logins" "$tls_plain" "Dovecot logged each login as PLAIN over TLS"

# The server's view: INBOX = delivered - deleted, per user; its log's
# retr=/del= sums are what we counted.
"$PY" - "$out.counts.json" >"$TEST_TMP/expected" <<'PY' || fail "unreadable counts file"
import json, sys
for u in json.load(open(sys.argv[1]))["users"]:
    print(u["user"], "INBOX", u["delivered"]["INBOX"] - u["expunged"]["INBOX"])
PY
why=$(dovecot_counts_match <"$TEST_TMP/expected") || fail "server and run disagree: $why"
read -r s_retr s_del <<<"$(grep -aoE 'pop3\(.*Disconnected: Logged out .*retr=[0-9]+/[0-9]+, del=[0-9]+/' \
	"$DOVECOT_DIR/dovecot.log" | sed -E 's/.*retr=([0-9]+)\/[0-9]+, del=([0-9]+)\//\1 \2/' |
	awk '{ r += $1; d += $2 } END { print r + 0, d + 0 }')"
assert_eq "$retr $del" "$s_retr $s_del" "retrieved and deleted: ours = the server's log"
note "POP3S + AUTH PLAIN: $logins logins, retrieved $retr, deleted $del (server: $s_retr, $s_del)"

# A wrong password: AUTH's -ERR, counted and named.
bad=$TEST_TMP/bad
rc=0
run_with_timeout 60 "$IMAPSTRESS" --profile "$P" --port "$DOVECOT_TLS_PORT" --tls \
	--ca-file "$DOVECOT_CA" --password wrong --duration 1 --seed 5 \
	--json "$bad.json" >"$bad.out" 2>"$bad.err" || rc=$?
read -r logins auth_ok auth_err _ <<<"$(summary "$bad.json")" || fail "unreadable JSON summary"
assert_eq 0 "$logins" "no login with a wrong password"
assert_ge "$auth_err" 1 "AUTH's -ERR counted"
assert_match "pop3\(testuser_6[0-9]+@example.com\): AUTH: -ERR .*[Aa]uthentication failed" \
	"$(cat "$bad.err")" "the error line names AUTH and the server's reply"
note "wrong password: exit $rc, auth -ERR $auth_err"
