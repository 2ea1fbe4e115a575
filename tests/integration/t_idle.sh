#!/bin/bash
# IDLE in stress mode against a real Dovecot (issue 3, "must show" 3):
#   - idle=100 append=30 select=100 logout=0, 6 clients over 2 users, 4 s:
#     IDLE is answered OK, and while one session idles another session of
#     the same user APPENDs, so some rawlog shows the server pushing
#     "* N EXISTS" between its "+ idling" and our "DONE";
#   - no mailbox-state error, exit 0;
#   - the rawlog never holds the password: every LOGIN line is redacted.
# Users are partitioned by worker thread, so each user's three sessions
# share one worker (and one mailbox model).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
need_server
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

server_start --fsync no
PASS=$SERVER_PASS
note "$IMAP_SERVER on port $SERVER_PORT, dir $SERVER_DIR"

RAW=$(make_tmpdir)
rc=0
# The password is given explicitly (not $IMAPSTRESS_PASSWORD from the
# caller's environment), so we know which string must not be logged.
run_with_timeout 40 env -u IMAPSTRESS_PASSWORD "$IMAPSTRESS" port="$SERVER_PORT" \
	- idle=100 append=30 select=100 logout=0 clients=6 users=1-2 user=idle%d \
	"pass=$PASS" secs=4 --rawlog --rawlog-dir "$RAW" \
	--json "$TEST_TMP/idle.json" >"$TEST_TMP/idle.out" 2>"$TEST_TMP/idle.err" || rc=$?
errs=$(grep -m 10 -E '^(Error|Warning)' "$TEST_TMP/idle.err" || true)

# "exit_status state_errors idle_ok idle_no+bad+failed appended"
fields=$("$PYTHON" - "$TEST_TMP/idle.json" <<'EOF'
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
if not lines:
    sys.exit("%s is empty" % sys.argv[1])
s = json.loads(lines[-1])
if s.get("type") != "summary":
    sys.exit("last line is not the summary: %s" % lines[-1][:200])
i = s["commands"].get("IDLE", {"ok": 0, "no": 0, "bad": 0, "failed": 0})
print(s["exit_status"], s["errors"]["state"], i["ok"], i["no"] + i["bad"] + i["failed"],
      s["messages_appended"])
EOF
) || fail "no JSON summary (exit $rc); stderr: $(head -n 10 "$TEST_TMP/idle.err")"
read -r status state idle_ok idle_bad appended <<<"$fields"
note "exit $rc, IDLE ok $idle_ok, messages appended $appended, state errors $state"
assert_eq 0 "$rc" "exit status (stderr: $errs)"
assert_eq 0 "$status" "exit_status in the JSON summary"
assert_eq 0 "$state" "errors.state (stderr: $errs)"
assert_ge "$idle_ok" 1 "IDLE ok count"
assert_eq 0 "$idle_bad" "IDLE no+bad+failed"
assert_ge "$appended" 1 "messages appended"

shopt -s nullglob
logs=("$RAW"/*)
shopt -u nullglob
[ "${#logs[@]}" -gt 0 ] || fail "no rawlog file in $RAW"

# "* N EXISTS" from the server between "S: + idling" and the next "C: DONE"
# of the same file.  While idling a session sends nothing else, so the new
# message came from another session's APPEND.
pushed=$(awk '
	FNR == 1 { idling = 0 }
	/^S: \+ idling/ { idling = 1; next }
	/^C: DONE/ { idling = 0; next }
	idling && /^S: \* [0-9]+ EXISTS/ { n++ }
	END { print n + 0 }' "${logs[@]}")
note "EXISTS pushed during IDLE: $pushed (in ${#logs[@]} rawlog files)"
idles=$(cat "${logs[@]}" | grep -c '^S: + idling' || true)
assert_ge "$idles" 1 "'S: + idling' lines in the rawlogs"
assert_ge "$pushed" 1 "EXISTS lines between '+ idling' and DONE"

# Every LOGIN is logged with the secret replaced, and the password appears
# nowhere (the generated messages never contain it as a word).
logins=$(cat "${logs[@]}" | grep -cE '^C: [0-9]+\.[0-9]+ LOGIN ' || true)
assert_ge "$logins" 6 "LOGIN lines in the rawlogs"
bad=$(cat "${logs[@]}" | grep -E '^C: [0-9]+\.[0-9]+ LOGIN ' |
	grep -vE '^C: [0-9]+\.[0-9]+ LOGIN idle[12] <secret redacted>$' || true)
[ -z "$bad" ] || fail "a LOGIN line is not redacted: $(printf '%s\n' "$bad" | head -n 3)"
if grep -lw -F -- "$PASS" "${logs[@]}" >/dev/null; then
	fail "the password appears in a rawlog: $(grep -w -F -n -- "$PASS" "${logs[@]}" | head -n 3)"
fi

note "ok"
