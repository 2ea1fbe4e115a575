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

# A loopback port nobody listens on, held bound (not listening) for the
# whole run: a connect to it is refused, and no other program can take the
# number meanwhile.  Bound and let go, as this test once did, a server of a
# test running beside it could get the same number from bind(0) and answer
# (exit 0 or 1 instead of 3).
# The holder writes the number to a temporary name and renames it, so the
# file, once there, is whole; the test only tests for it (under set -e a
# cat of a file not there yet would end the test with no message).
"$PYTHON" -c 'import os, signal, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
signal.pause()' "$TEST_TMP/dead.port" &
holder=$!
on_exit "stop_bg $holder"
port=
for ((i = 0; i < 200; i++)); do
	if [ -s "$TEST_TMP/dead.port" ]; then
		port=$(cat "$TEST_TMP/dead.port")
		break
	fi
	_lib_alive "$holder" || fail "the port holder died: no port"
	sleep 0.05
done
[ -n "$port" ] || fail "the port holder printed no port within 10 s"
rc=0
# No secs=: only giving up on the server (after 5 s) may end this run; 30 s
# is a hang bound, not a speed check.
run_with_timeout 30 "$IMAPSTRESS" host=127.0.0.1 port="$port" clients=10 \
	>"$TEST_TMP/dead.out" 2>"$TEST_TMP/dead.err" || rc=$?
err=$(cat "$TEST_TMP/dead.err")
lines=$(wc -l <"$TEST_TMP/dead.err")
note "no server on port $port: exit $rc, $lines stderr lines"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	fail "no server on port $port: still running after 30 s; stderr: $(head -n 10 "$TEST_TMP/dead.err")"
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
