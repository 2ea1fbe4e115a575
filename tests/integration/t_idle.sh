#!/bin/bash
# IDLE in stress mode against a real Dovecot (issue 3, "must show" 3):
#   - idle=100 append=30 select=100 logout=0, 6 clients over 2 users, 4 s:
#     IDLE is answered OK, and while one session idles another session of
#     the same user APPENDs, so some rawlog shows the server pushing
#     "* N EXISTS" between its "+ idling" and our "DONE";
#   - no mailbox-state error, exit 0, and the server holds exactly the
#     APPENDs the run counts; a server's own "NO System I/O error" to an
#     APPEND (Cyrus under load, see below) is tolerated, counted, and may
#     cost that connection only;
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

shopt -s nullglob
logs=("$RAW"/*)
shopt -u nullglob
[ "${#logs[@]}" -gt 0 ] || fail "no rawlog file in $RAW"

# The server's own failures: Cyrus 3.6 answers an APPEND "NO System I/O
# error" when it cannot create the message's stage file (cmd_append does
# that before it reads the literal; seen once under load: two imapds
# racing to make the stage directory of a fresh spool, which
# scripts/cyrus-private now makes before the server starts; still
# tolerated, as any other cause of that NO would be), and with our
# LITERAL+ literal already sent (RFC 7888 lets a client send it at once)
# it then reads the message body as commands: "Message-ID: BAD
# Unrecognized command", a tag we never sent, which closes that
# connection as a protocol error.  Each such NO is counted; it may cost
# one protocol error and the IDLE that connection had queued, nothing
# else.  (Reproduced by hand with the spool's stage. directory replaced by
# a file: every APPEND fails so.)
ioerr=$(cat "${logs[@]}" | grep -cE '^S: [0-9]+\.[0-9]+ NO .*System I/O error' || true)

# "exit_status state_errors idle_ok idle_no+bad idle_failed appended
#  no protocol other_errors"
fields=$("$PYTHON" - "$TEST_TMP/idle.json" <<'EOF'
import json, sys
lines = [l for l in open(sys.argv[1]).read().splitlines() if l.strip()]
if not lines:
    sys.exit("%s is empty" % sys.argv[1])
s = json.loads(lines[-1])
if s.get("type") != "summary":
    sys.exit("last line is not the summary: %s" % lines[-1][:200])
i = s["commands"].get("IDLE", {"ok": 0, "no": 0, "bad": 0, "failed": 0})
e = s["errors"]
other = sum(v for k, v in e.items() if k not in ("no", "protocol", "state"))
print(s["exit_status"], e["state"], i["ok"], i["no"] + i["bad"], i["failed"],
      s["messages_appended"], e["no"], e["protocol"], other)
EOF
) || fail "no JSON summary (exit $rc); stderr: $(head -n 10 "$TEST_TMP/idle.err")"
read -r status state idle_ok idle_bad idle_failed appended no proto other <<<"$fields"
note "exit $rc, IDLE ok $idle_ok, messages appended $appended, state errors $state, server I/O-error NOs $ioerr"
assert_eq 0 "$state" "errors.state (stderr: $errs)"
assert_eq 0 "$other" "errors other than no and protocol (stderr: $errs)"
assert_eq "$ioerr" "$no" "NO replies: only the server's I/O errors (stderr: $errs)"
[ "$proto" -le "$ioerr" ] ||
	fail "$proto protocol errors, more than the server's $ioerr I/O-error NOs (stderr: $errs)"
[ "$idle_failed" -le "$ioerr" ] ||
	fail "$idle_failed IDLEs failed, more than the server's $ioerr I/O-error NOs (stderr: $errs)"
want_rc=0
[ "$proto" -eq 0 ] || want_rc=1	# a protocol error is one
assert_eq "$want_rc" "$rc" "exit status (stderr: $errs)"
assert_eq "$want_rc" "$status" "exit_status in the JSON summary"
assert_ge "$idle_ok" 1 "IDLE ok count"
assert_eq 0 "$idle_bad" "IDLE no+bad"
assert_ge "$appended" 1 "messages appended"
# Exact, NO or not: every APPEND the run counts as done is in the server,
# and nothing else is (the mailboxes start empty, nothing expunges).
assert_eq "$appended" "$(server_count_all INBOX)" "messages the server holds = APPENDs the run counts"

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
