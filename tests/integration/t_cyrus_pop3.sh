#!/bin/bash
# Profile mode's POP3 users against a private Cyrus 3.6's pop3d
# (cyrus-pop3d, unpacked by scripts/cyrus-private beside imapd), counted
# on the server side with Cyrus's own index (cyrus-private count):
#   0. one visit each, no mail: 6 sessions, the INBOXes made (Cyrus 3.6
#      makes a missing INBOX at pop3d's login and at lmtpd's delivery, and
#      when both do it at once one gets "Mailbox already exists": a race of
#      the server's, kept out of the runs below);
#   1. 6 users receive mail over LMTP every second and visit by POP3
#      every 500 ms for 3 s: per user, the server's INBOX holds what was
#      delivered less what QUIT committed as deleted; no -ERR, no failed
#      session;
#   2. then, with no more mail, one visit each by AUTH PLAIN (pop3_auth =
#      plain, RFC 5034): 6 sessions, each login an AUTH +OK (no USER or
#      PASS), and the messages retrieved and deleted are exactly what the
#      server held (count-all before), which holds none afterwards.
# Before cyrus-private started pop3d, CYRUS_POP3_PORT was unset.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
IMAP_SERVER=cyrus
. "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
need_server
server_start
[ -n "${CYRUS_POP3_PORT:-}" ] || fail "cyrus-private printed no CYRUS_POP3_PORT (pop3d not unpacked?)"

# profile FILE DELIVERY-INTERVAL LOGIN-INTERVAL [EXTRA-LINE]
profile() {
	cat >"$1" <<PROFILE
lmtp_port = $CYRUS_LMTP_PORT
pop3_port = $CYRUS_POP3_PORT
lmtp_max_parallel_count = 2
${4:-}
total_user_count = 6
rampup_time = 300ms

user u {
  username_format = cpop%n
  count = 100%
  mail_inbox_delivery_interval = $2
  mail_spam_delivery_interval = 0
}

client pop3 {
  count = 100%
  protocol = pop3
  login_interval = $3
}
PROFILE
}

# run NAME PROFILE SECS: the run, exit 0; its counts file and JSON.
run() {
	local rc=0
	run_with_timeout 60 "$IMAPSTRESS" --profile "$2" --port "$SERVER_PORT" --password "$SERVER_PASS" \
		--duration "$3" --seed 3 --profile-counts "$TEST_TMP/$1.counts.json" \
		--json "$TEST_TMP/$1.json" >"$TEST_TMP/$1.out" 2>"$TEST_TMP/$1.err" || rc=$?
	assert_eq 0 "$rc" "$1: exit status (stderr: $(tail -n 5 "$TEST_TMP/$1.err"))"
	note "$1: $(grep -E '^POP3:' "$TEST_TMP/$1.out")"
}

# totals NAME: sessions retrieved deleted logins auth-ok user-ok errors failed
totals() {
	"$PY" - "$TEST_TMP/$1.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][-1]
p = s["profile"]["pop3"]
c = p["commands"]
print(c["quit"]["ok"], p["retrieved"], p["deleted"], p["logins"],
      c.get("auth", {}).get("ok", 0), c.get("user", {}).get("ok", 0),
      sum(v["err"] + v["failed"] for v in c.values()), sum(p["failed_sessions"].values()))
PY
}

# 0. The INBOXes, by a first visit each.
profile "$TEST_TMP/p0" 0 1h
run first "$TEST_TMP/p0" 1
read -r sess retr _ logins _ _ errs failed <<<"$(totals first)" || fail "unreadable JSON"
assert_eq "6 6 0 0" "$sess $logins $errs $failed" "first: sessions, logins, errors, failures"
assert_eq 0 "$(server_count_all INBOX)" "first: no mail yet"

# 1. Mail comes and goes.
profile "$TEST_TMP/p1" 1s 500ms
run mixed "$TEST_TMP/p1" 3
read -r sess retr del logins _ _ errs failed <<<"$(totals mixed)" || fail "unreadable JSON"
assert_ge "$retr" 1 "mixed: messages retrieved"
assert_eq 0 "$errs" "mixed: no -ERR and no command cut off"
assert_eq 0 "$failed" "mixed: no failed session"
"$PY" - "$TEST_TMP/mixed.counts.json" >"$TEST_TMP/expected" <<'PY' || fail "unreadable counts file"
import json, sys
for u in json.load(open(sys.argv[1]))["users"]:
    print(u["user"], u["delivered"]["INBOX"] - u["expunged"]["INBOX"])
PY
assert_eq 6 "$(wc -l <"$TEST_TMP/expected")" "one entry per user"
while read -r user n; do
	assert_eq "$n" "$(server_count "$user" INBOX)" "mixed: $user's INBOX on the server = delivered - deleted"
done <"$TEST_TMP/expected"

# 2. One visit each, by AUTH PLAIN, takes exactly what the server holds.
held=$(server_count_all INBOX)
assert_ge "$held" 1 "the server holds mail after run 1"
profile "$TEST_TMP/p2" 0 1h "pop3_auth = plain"
run drain "$TEST_TMP/p2" 1
read -r sess retr del logins auth_ok user_ok errs failed <<<"$(totals drain)" || fail "unreadable JSON"
assert_eq 6 "$sess" "drain: one session per user"
assert_eq "6 6 0" "$logins $auth_ok $user_ok" "drain: logins, AUTH +OK, USER +OK"
assert_eq "$held" "$retr" "drain: retrieved = what the server held"
assert_eq "$held" "$del" "drain: deleted = what the server held"
assert_eq "0 0" "$errs $failed" "drain: no -ERR, no failed session"
assert_eq 0 "$(server_count_all INBOX)" "drain: the server holds nothing afterwards"
note "Cyrus held $held; one visit each by AUTH PLAIN retrieved $retr and deleted $del in $sess sessions"
