#!/bin/bash
# Issue 12 item 3: on fresh users the first COPY gets NO [TRYCREATE].  Like
# imaptest, imapstress creates copybox= and goes on; that NO (and
# [EXPUNGEISSUED]) is counted by its code, not as an error, so error_quit
# does not stop the run and the exit status stays 0.  The copies must be on
# the server afterwards.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

dovecot_start --fsync no

json=$TEST_TMP/run.json
rc=0
run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" user=tc%d users=1-3 \
	clients=3 secs=3 copybox=Copies error_quit --json "$json" \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
assert_eq 0 "$rc" "exit status with error_quit on fresh users (stderr: $(head -n 5 "$TEST_TMP/err"))"
summary "$json" stop_reason benign_codes.TRYCREATE errors.no commands.COPY.ok measured_s
note "stop=${S[0]} TRYCREATE=${S[1]} errors.no=${S[2]} COPY ok=${S[3]} measured=${S[4]} s"
[ "${S[0]}" != error_quit ] || fail "error_quit stopped the run at a benign NO"
assert_ge "${S[1]}" 1 "NO [TRYCREATE] counted by code"
assert_ge "${S[3]}" 1 "COPY OK after the mailbox was created"
# It ran its secs=3, not the 0.2 s until the first COPY.
assert_match '^[2-9]' "${S[4]}" "measured seconds"
grep -q 'TRYCREATE' "$TEST_TMP/err" && fail "a benign NO was shown as an error: $(grep TRYCREATE "$TEST_TMP/err" | head -n 2)"
assert_match '^benign NO codes \(not errors\): TRYCREATE=[1-9]' "$(cat "$TEST_TMP/out")" "text summary line"

copies=0
for u in tc1 tc2 tc3; do
	n=$(run_with_timeout 30 "$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" "$u" Copies 2>/dev/null || echo 0)
	copies=$((copies + n))
done
assert_ge "$copies" 1 "messages in the created Copies mailboxes"
note "ok: $copies messages in Copies"
