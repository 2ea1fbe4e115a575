#!/bin/bash
# Each protocol its own endpoint: IMAP through a TCP proxy on 127.0.0.2
# (as a proxy in front of IMAP), LMTP straight to the private Dovecot on
# 127.0.0.1 with lmtp_host.  Dovecot listens on 127.0.0.1 only, so LMTP
# at the IMAP host's address is refused: a run without lmtp_host has every
# delivery failed (connect); with lmtp_host = 127.0.0.1, and again with
# --lmtp-host over a profile without the key, every delivery is 250 and
# the server's INBOX counts equal what each run delivered per user
# (nothing is deleted or moved).  POP3 users the same with pop3_host and
# --pop3-host.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
dovecot_lmtp_start

# The proxy: 127.0.0.2:free port -> Dovecot's IMAP.
relay_start 127.0.0.2 "$DOVECOT_PORT" "$TEST_TMP/proxy.port"
PROXY_PORT=$RELAY_PORT

# profile FILE [KEY LINE]: 4 users who only receive mail, in IDLE.
profile() {
	cat >"$1" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
${2:-}
total_user_count = 4
rampup_time = 0

user rcv {
  count = 100%
  username_format = hostu%n
  mail_inbox_delivery_interval = 500ms
  mail_spam_delivery_interval = 0
  mail_send_interval = 0
  mail_action_delay = 100ms
  mail_inbox_reply_percentage = 0
  mail_inbox_delete_percentage = 0
  mail_inbox_move_percentage = 0
}

client idle {
  count = 100%
  imap_idle = yes
}
PROFILE
}
profile "$TEST_TMP/host.profile" "lmtp_host = 127.0.0.1"
profile "$TEST_TMP/nohost.profile"

# run NAME PROFILE [ARGS]: 4 s through the proxy; RC, NAME.json, NAME.counts.
run() {
	local name=$1 p=$2
	shift 2
	RC=0
	run_with_timeout 60 "$IMAPSTRESS" --profile "$p" --host 127.0.0.2 \
		--port "$PROXY_PORT" --duration 4 --seed 1 \
		--profile-counts "$TEST_TMP/$name.counts" --json "$TEST_TMP/$name.json" \
		"$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || RC=$?
}
# lmtp FILE: "ok failed connect-failures" of the run's LMTP recipients.
lmtp() {
	"$PY" - "$1" <<'PYEOF'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][0]
l = s["profile"]["lmtp"]
print(l["ok"], l["tempfail"] + l["permfail"] + l["no_reply"],
      l["no_reply_by_kind"]["connect"])
PYEOF
}

run nohost "$TEST_TMP/nohost.profile"
read -r ok failed connect <<<"$(lmtp "$TEST_TMP/nohost.json")" || fail "unreadable JSON (nohost)"
assert_eq 0 "$ok" "deliveries ok with LMTP at the IMAP host (127.0.0.2)"
assert_ge "$connect" 1 "deliveries refused at connect without lmtp_host"
assert_eq "$failed" "$connect" "every failed delivery failed at connect"
note "nohost: $connect deliveries refused at connect (LMTP at 127.0.0.2), none ok"

total=0
for name in host cli; do
	if [ "$name" = host ]; then
		run host "$TEST_TMP/host.profile"
	else
		run cli "$TEST_TMP/nohost.profile" --lmtp-host 127.0.0.1
	fi
	assert_eq 0 "$RC" "$name: exit status (stderr: $(tail -n 3 "$TEST_TMP/$name.err"))"
	read -r ok failed connect <<<"$(lmtp "$TEST_TMP/$name.json")" || fail "unreadable JSON ($name)"
	assert_ge "$ok" 4 "$name: deliveries ok"
	assert_eq 0 "$failed" "$name: failed deliveries"
	total=$((total + ok))
	note "$name: $ok deliveries ok over LMTP at 127.0.0.1, IMAP through 127.0.0.2"
done

# The server holds what the two good runs delivered, per user.
"$PY" - "$TEST_TMP/host.counts" "$TEST_TMP/cli.counts" >"$TEST_TMP/expected" <<'PYEOF'
import json, sys
n = {}
for path in sys.argv[1:]:
    for u in json.load(open(path))["users"]:
        n[u["user"]] = n.get(u["user"], 0) + u["delivered"]["INBOX"]
for user in sorted(n):
    print(user, "INBOX", n[user])
PYEOF
assert_eq "$total" "$(awk '{ s += $3 } END { print s }' "$TEST_TMP/expected")" \
	"deliveries ok = the counts files' INBOX deliveries"
why=$(dovecot_counts_match <"$TEST_TMP/expected") || fail "server and runs disagree: $why"

# POP3 at its own endpoint too: POP3 users with IMAP's host the proxy
# (127.0.0.2) reach nothing there and fail every visit at connect; with
# pop3_host = 127.0.0.1, and with --pop3-host, they log in to Dovecot's
# POP3 and fail none.
[ -n "${DOVECOT_POP3_PORT:-}" ] || fail "dovecot-private printed no DOVECOT_POP3_PORT (dovecot-pop3d, scripts/deps)"
pop3_profile() {
	cat >"$1" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
lmtp_host = 127.0.0.1
pop3_port = $DOVECOT_POP3_PORT
${2:-}
total_user_count = 2
rampup_time = 0

user p {
  count = 100%
  username_format = hostp%n
  mail_inbox_delivery_interval = 500ms
  mail_spam_delivery_interval = 0
}

client pop3 {
  count = 100%
  connection_max_count = 1
  protocol = pop3
  login_interval = 500ms
}
PROFILE
}
pop3_profile "$TEST_TMP/p3host.profile" "pop3_host = 127.0.0.1"
pop3_profile "$TEST_TMP/p3nohost.profile"
# pop3 FILE: "logins failed-sessions connect-failures" of the run's POP3.
pop3() {
	"$PY" - "$1" <<'PYEOF'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][0]
p = s["profile"]["pop3"]
f = p["failed_sessions"]
print(p["logins"], sum(f.values()), f.get("connect", 0))
PYEOF
}
run p3nohost "$TEST_TMP/p3nohost.profile"
read -r logins failed connect <<<"$(pop3 "$TEST_TMP/p3nohost.json")" || fail "unreadable JSON (p3nohost)"
assert_eq 0 "$logins" "POP3 logins with POP3 at the IMAP host (127.0.0.2)"
assert_ge "$connect" 1 "POP3 visits refused at connect without pop3_host"
assert_eq "$failed" "$connect" "every failed POP3 visit failed at connect"
for name in p3host p3cli; do
	if [ "$name" = p3host ]; then
		run p3host "$TEST_TMP/p3host.profile"
	else
		run p3cli "$TEST_TMP/p3nohost.profile" --pop3-host 127.0.0.1
	fi
	assert_eq 0 "$RC" "$name: exit status (stderr: $(tail -n 3 "$TEST_TMP/$name.err"))"
	read -r logins failed connect <<<"$(pop3 "$TEST_TMP/$name.json")" || fail "unreadable JSON ($name)"
	assert_ge "$logins" 2 "$name: POP3 logins"
	assert_eq 0 "$failed" "$name: failed POP3 visits"
	note "$name: $logins POP3 logins at 127.0.0.1, IMAP through 127.0.0.2"
done
