#!/bin/bash
# LoadSim's cached-mode client against the private Dovecot (which offers
# COMPRESS=DEFLATE, CONDSTORE and QRESYNC; IMAP_SERVER=cyrus, as
# t_cyrus_loadsim_cached.sh does: the private Cyrus): 4 users, each INBOX
# initialized with 40 messages (imapstress init), no mail arriving, the
# users browsing, cleaning their inbox and logging off and on again
# often, 10 s.  Checks, from the command table and --profile-counts:
# - every session switched COMPRESS on: each set-up (login action) had
#   its COMPRESS OK, only a LOGIN the end of the run cut off may lack
#   one, and the users' "compressed" sessions add up to the COMPRESS row;
# - the cache: each user fetched the headers of its 40 messages exactly
#   once (an online client fetches a page of 20 per browse), and the
#   FETCHes of changed messages (CHANGEDSINCE, SELECT (QRESYNC ...)) are
#   no more than the messages the run changed (a \Seen per browse, a
#   \Deleted per clean: nothing else touches these mailboxes);
# - re-logins resumed with SELECT INBOX (QRESYNC ...) and the expunges
#   came back as VANISHED (the browse's sequence numbers stay right: no
#   NO, BAD or failed action);
# - each INBOX on the server holds 40 - what the run says it expunged.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
need_server
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"

server_start
# No mail is delivered, but a profile names its LMTP port.
LMTP_PORT=${DOVECOT_LMTP_PORT:-${CYRUS_LMTP_PORT:-24}}

P=$TEST_TMP/cached.profile
cat >"$P" <<PROFILE
lmtp_port = $LMTP_PORT
total_user_count = 4
rampup_time = 1s
day_length = 8 hours
day_compressed_to = 20 s
init_inbox_messages = 40
init_deleted_messages = 0
init_new_folders = 0
init_calendar_appointments = 0
init_contacts = 0
init_message_size = 2 KB
user loadsim {
  count = 100%
  username_format = cached%n
  send_mail_per_day = 0
  received_mail_per_day = 0
  browse_mail_per_day = 40
  clean_inbox_per_day = 12
  log_off_per_day = 20
}
client cached {
  count = 100%
  client_mode = cached
  imap_idle = yes
}
PROFILE

rc=0
run_with_timeout 60 "$IMAPSTRESS" init --profile "$P" --profile-users 4 \
	port="$SERVER_PORT" pass="$SERVER_PASS" >"$TEST_TMP/init.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "init ($(tail -n 3 "$TEST_TMP/init.out"))"

counts=$TEST_TMP/counts.json
rc=0
run_with_timeout 90 "$IMAPSTRESS" --profile "$P" --port "$SERVER_PORT" pass="$SERVER_PASS" \
	--duration 10 --seed 4 --profile-counts "$counts" --json "$TEST_TMP/run.json" \
	>"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" || rc=$?
assert_eq 0 "$rc" "run exit status (stderr: $(tail -n 5 "$TEST_TMP/run.err"))"

python3 - "$TEST_TMP/run.json" "$counts" >"$TEST_TMP/check.out" <<'PY' ||
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
d = json.load(open(sys.argv[2]))
cmds, acts = s["commands"], s["profile"]["actions"]
assert sum(s["errors"].values()) == 0, s["errors"]
for name, a in acts.items():
    assert a["failed"] == 0, (name, a)
for name, c in cmds.items():
    assert c["no"] == 0 and c["bad"] == 0 and c["failed"] == 0, (name, c)
# Every session set up (the login action) had its COMPRESS; a LOGIN the
# run's end cut off before it may not (one per user at most).
logins, setups, z = cmds["LOGIN"]["ok"], acts["login"]["ok"], cmds["COMPRESS"]["ok"]
assert setups <= z <= logins and logins - z <= len(d["users"]), ("LOGIN", logins, "set up", setups, "COMPRESS", z)
t = d["totals"]
assert t["cached"]["compressed"] == z, (t["cached"], z)
browses, cleans = acts["browse"]["ok"], acts["clean"]["ok"]
assert browses >= 8 and cleans >= 2 and acts["logoff"]["ok"] >= 4, acts
for u in d["users"]:
    c = u["cached"]
    assert c["header_fetches"] == 40, (u["user"], c)
assert t["cached"]["sync_fetches"] <= browses + cleans, (t["cached"], browses, cleans)
assert t["cached"]["qresync_selects"] >= 1, t["cached"]
assert t["cached"]["vanished"] >= 1, t["cached"]
print("logins", logins, "browses", browses, "cleans", cleans, "cached", t["cached"])
for u in d["users"]:
    print("user", u["user"], 40 - u["expunged"]["INBOX"])
PY
	fail "the cached clients' counts are wrong: $(cat "$TEST_TMP/check.out")"
note "$(head -n 1 "$TEST_TMP/check.out")"
while read -r _ user want; do
	assert_eq "$want" "$(server_count "$user" INBOX)" "$user's INBOX on the server"
done < <(grep '^user ' "$TEST_TMP/check.out")
note "ok"
