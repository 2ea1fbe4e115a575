#!/bin/bash
# Our scripted tests (tests/scripts, imaptest's format) against a private
# Dovecot: every one passes, the totals line and the JSON say so, exit 0;
# the same over implicit TLS (verified against the instance's CA) and over
# STARTTLS with the engine's rawlog (the script's LOGIN after the
# handshake), and a
# certificate nobody vouches for fails the test naming the reason; an
# empty test directory is refused (exit 2).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"

# An empty test directory is bad input: exit 2 naming it, before any
# connection (under UBSan this once stopped in qsort of no names).
mkdir "$TEST_TMP/empty"
rc=0
run_with_timeout 30 "$IMAPSTRESS" test="$TEST_TMP/empty" port=1 \
	>"$TEST_TMP/empty.out" 2>&1 || rc=$?
assert_eq 2 "$rc" "an empty test directory: exit status ($(head -c 300 "$TEST_TMP/empty.out"))"
assert_match 'no test files in this directory' "$(cat "$TEST_TMP/empty.out")" "an empty test directory: why"

dovecot_start --tls
n=$(find "$ROOT/tests/scripts" -maxdepth 1 -type f ! -name '*.mbox' | wc -l)
assert_ge "$n" 14 "test scripts in tests/scripts"
rc=0
run_with_timeout 120 "$IMAPSTRESS" test="$ROOT/tests/scripts" host=127.0.0.1 \
	port="$DOVECOT_PORT" user=scripts pass="$DOVECOT_PASS" \
	--json "$TEST_TMP/out.json" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
cat "$TEST_TMP/out" >&2
assert_eq 0 "$rc" "exit status (stderr: $(head -c 300 "$TEST_TMP/err"))"
assert_match "^$n passed, 0 failed, 0 skipped\$" "$(cat "$TEST_TMP/out")" "totals"
for t in select fetch store expunge copy append search sort thread idle uidplus \
	condstore expunge2 pipelined; do
	assert_match "^$t: ok\$" "$(cat "$TEST_TMP/out")" "$t passes"
done
assert_eq "$n" "$(grep -c '"result":"ok"' "$TEST_TMP/out.json")" "JSON ok lines"
assert_match '^\{"passed":'"$n"',"failed":0,"skipped":0\}$' "$(tail -n 1 "$TEST_TMP/out.json")" "JSON totals"

rc=0
run_with_timeout 60 "$IMAPSTRESS" test="$ROOT/tests/scripts/select" host=127.0.0.1 \
	port="$DOVECOT_TLS_PORT" ssl ssl_ca_file="$DOVECOT_CA" user=scripts \
	pass="$DOVECOT_PASS" >"$TEST_TMP/tls.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "select over TLS: exit status ($(head -c 300 "$TEST_TMP/tls.out"))"
assert_match '^select: ok$' "$(cat "$TEST_TMP/tls.out")" "select over TLS"
# STARTTLS on the plain port (the engine's, before the script speaks),
# with the engine's rawlog: the script's commands go after the
# handshake, and its LOGIN carries the password only inside TLS.
rc=0
mkdir "$TEST_TMP/raw"
run_with_timeout 60 "$IMAPSTRESS" test="$ROOT/tests/scripts/select" host=127.0.0.1 \
	port="$DOVECOT_PORT" --starttls ssl_ca_file="$DOVECOT_CA" user=scripts \
	pass="$DOVECOT_PASS" --rawlog --rawlog-dir "$TEST_TMP/raw" \
	>"$TEST_TMP/starttls.out" 2>&1 || rc=$?
assert_eq 0 "$rc" "select over STARTTLS: exit status ($(head -c 300 "$TEST_TMP/starttls.out"))"
assert_match '^select: ok$' "$(cat "$TEST_TMP/starttls.out")" "select over STARTTLS"
raw=$(cat "$TEST_TMP/raw/rawlog.0")
assert_match 'STARTTLS' "$raw" "rawlog: the engine's STARTTLS"
assert_match 'TLS established' "$raw" "rawlog: the handshake"
# The script's own set-up after it, in its own tags (u1 ...): one LOGIN
# per connection (the test's, then the clean-up's after the last test),
# each after that connection's handshake.
logins=$(awk '/^# connection / { tls = 0 } /TLS established/ { tls = 1 }
	/ LOGIN / { if (tls && $0 ~ / u[0-9]* LOGIN /) ok++; else bad++ }
	END { print ok + 0, bad + 0 }' "$TEST_TMP/raw/rawlog.0")
assert_eq "$(grep -c '^# connection ' "$TEST_TMP/raw/rawlog.0") 0" "$logins" \
	"rawlog: one LOGIN per connection, each after its handshake (after, before)"
assert_eq 0 "$(grep -c -F -- "$DOVECOT_PASS" "$TEST_TMP/raw/rawlog.0")" \
	"rawlog: the password is redacted"

rc=0
run_with_timeout 60 "$IMAPSTRESS" test="$ROOT/tests/scripts/select" host=127.0.0.1 \
	port="$DOVECOT_TLS_PORT" ssl user=scripts pass="$DOVECOT_PASS" \
	>"$TEST_TMP/tls-bad.out" 2>&1 || rc=$?
assert_eq 1 "$rc" "TLS without the CA: exit status"
assert_match 'certificate verification failed' "$(cat "$TEST_TMP/tls-bad.out")" "TLS without the CA: why"
