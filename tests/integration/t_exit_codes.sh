#!/bin/bash
# Exit statuses a script can rely on:
#   2  bad usage: one line on stderr naming the offending option;
#   3  server unusable: nothing listens on the port, so no connection ever
#      gets in; imapstress gives up on its own, says "unusable", and does
#      not flood stderr with one line per failed connect;
#   0  a healthy short run against a private Dovecot.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

# usage_case WORDS PATTERN: WORDS (split on blanks) must exit 2 with
# nothing on stdout and exactly one stderr line matching PATTERN (an ERE).
usage_case() {
	local words=$1 pat=$2 rc=0 err lines
	# shellcheck disable=SC2086
	run_with_timeout 10 "$IMAPSTRESS" $words port=1 secs=1 \
		>"$TEST_TMP/u.out" 2>"$TEST_TMP/u.err" || rc=$?
	err=$(cat "$TEST_TMP/u.err")
	assert_eq 2 "$rc" "exit status for '$words' (stderr: $err)"
	assert_eq "" "$(cat "$TEST_TMP/u.out")" "stdout for '$words'"
	lines=$(wc -l <"$TEST_TMP/u.err")
	assert_eq 1 "$lines" "stderr lines for '$words' (stderr: $err)"
	assert_match "$pat" "$err" "message for '$words'"
}
usage_case "clients=abc" 'clients=abc'
usage_case "--duration 5x" '--duration.*5x|5x.*--duration'
usage_case "foo=1" 'foo'

# A loopback port nobody listens on: bind one to learn a free number, then
# let it go.
port=$("$PYTHON" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
rc=0
# No secs=: only giving up on the server may end this run.
run_with_timeout 15 "$IMAPSTRESS" host=127.0.0.1 port="$port" clients=10 \
	>"$TEST_TMP/dead.out" 2>"$TEST_TMP/dead.err" || rc=$?
err=$(cat "$TEST_TMP/dead.err")
lines=$(wc -l <"$TEST_TMP/dead.err")
note "no server on port $port: exit $rc, $lines stderr lines"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	fail "no server on port $port: still running after 15 s; stderr: $(head -n 10 "$TEST_TMP/dead.err")"
fi
assert_eq 3 "$rc" "exit status with no server (stderr: $(head -n 10 "$TEST_TMP/dead.err"))"
assert_match 'unusable' "$err" "message with no server"
[ "$lines" -lt 50 ] || fail "no server: $lines lines on stderr, expected < 50; first: $(head -n 5 "$TEST_TMP/dead.err")"
assert_match 'connect=[1-9]' "$(cat "$TEST_TMP/dead.out")" "connect errors counted in the summary"

# A healthy run.
dovecot_start --fsync no
rc=0
run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" - append=100,0 secs=1 \
	clients=2 user=e%d users=1-2 >"$TEST_TMP/ok.out" 2>"$TEST_TMP/ok.err" || rc=$?
assert_eq 0 "$rc" "exit status of a healthy run (stderr: $(head -n 10 "$TEST_TMP/ok.err"))"
server=$(run_with_timeout 60 "$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR") ||
	fail "count-all failed"
assert_ge "$server" 1 "messages stored by the healthy run"
assert_match "^messages appended: $server( |\$)" "$(cat "$TEST_TMP/ok.out")" \
	"healthy run's summary vs the server's count"

note "ok"
