#!/bin/bash
# Issue 12 item 4: user=zp%04d (printf-style width and zero padding, as
# imaptest takes it) logs in as zp0001..zp0003, and the server holds the
# appended messages under exactly those names.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

dovecot_start --fsync no
rc=0
run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" user=zp%04d users=1-3 clients=3 \
	secs=2 - append=100,0 logout=0 select=0 --json "$TEST_TMP/run.json" \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
assert_eq 0 "$rc" "exit status with user=zp%04d (stderr: $(head -n 3 "$TEST_TMP/err"))"
summary "$TEST_TMP/run.json" commands.APPEND.ok
total=0
for u in zp0001 zp0002 zp0003; do
	n=$(run_with_timeout 30 "$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" "$u" 2>/dev/null || echo 0)
	total=$((total + n))
done
all=$(run_with_timeout 30 "$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR")
note "APPEND ok ${S[0]}; zp0001-zp0003 hold $total; all users $all"
assert_ge "${S[0]}" 1 "APPENDs"
assert_eq "${S[0]}" "$total" "messages under zp0001..zp0003"
assert_eq "$total" "$all" "messages under any other name"
note ok
