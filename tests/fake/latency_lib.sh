# tests/fake/latency_lib.sh: shared helpers for t_latency.sh and
# t_openloop.sh, which run NOOP-only imapstress loads against fakeimapd
# and check the latencies in the JSON summary.
#
# Source it first thing (it sources ../lib.sh):
#   . "$(dirname "$0")/latency_lib.sh"
#
# Gives:
#   PYTHON                   python3, for reading the JSON summary
#   RT                       an array prefixed to the fakeimapd and imapstress
#                            command lines; empty here, a test may set it
#                            (e.g. to chrt) before its first fake_start
#   fake_start ARGS...       start fakeimapd ARGS, wait for its port, which
#                            is left in FAKE_PORT; stopped on exit at the latest
#   fake_lmtp_start ARGS...  fake_start in mail-store mode (IMAP and LMTP);
#                            its LMTP port in FAKE_LMTP
#   fake_stop                stop it now (a no-op when none runs)
#   noop_run NAME ARGS...    imapstress port=$FAKE_PORT - noop=100 select=0
#                            logout=0 ARGS, under a 30 s timeout; the JSON
#                            lands in $TEST_TMP/NAME.json (stdout, stderr in
#                            NAME.out, NAME.err); fails the test unless it
#                            exits 0
#   summary_get FILE FIELD...    print the named fields of FILE's JSON
#                            summary, space separated; FIELD is a dotted path
# shellcheck shell=bash source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd binary at $FAKEIMAPD (run make build/fakeimapd)"

RT=()
FAKE_PID=''
FAKE_PORT=''

fake_stop() {
	[ -n "$FAKE_PID" ] || return 0
	stop_bg "$FAKE_PID"
	FAKE_PID=''
}

# libevent's default clock is CLOCK_MONOTONIC_COARSE where that ticks at
# 1 ms or finer: a timer then fires when the coarse clock has passed its
# deadline, which on this kernel makes a 5 ms --delay-ms come out at 7-8 ms.
# EVENT_PRECISE_TIMER=1 (read by event_base_new) makes the fake server's
# delays what they claim to be; imapstress itself is left as it is, since
# its latencies come from clock_gettime(CLOCK_MONOTONIC), not from libevent.
fake_start() {
	local pf=$TEST_TMP/fake.port deadline=$((SECONDS + 10))
	rm -f "$pf"
	EVENT_PRECISE_TIMER=1 "${RT[@]}" "$FAKEIMAPD" --port-file "$pf" "$@" \
		>"$TEST_TMP/fake.out" 2>&1 &
	FAKE_PID=$!
	# Self-contained, so the supervisor in tests/lib.sh can run it too.
	on_exit "stop_bg $FAKE_PID"
	while [ ! -s "$pf" ]; do
		kill -0 "$FAKE_PID" 2>/dev/null ||
			fail "fakeimapd $* died: $(cat "$TEST_TMP/fake.out")"
		[ "$SECONDS" -lt "$deadline" ] || fail "fakeimapd $* wrote no port file in 10 s"
		sleep 0.05
	done
	FAKE_PORT=$(cat "$pf")
}

# fake_lmtp_start ARGS...: fake_start in mail-store mode (IMAP and LMTP);
# also sets FAKE_LMTP, its LMTP port.
fake_lmtp_start() {
	fake_start --lmtp-port-file "$TEST_TMP/lmtp" "$@"
	for _ in $(seq 100); do
		[ -s "$TEST_TMP/lmtp" ] && break
		sleep 0.1
	done
	[ -s "$TEST_TMP/lmtp" ] || fail "fakeimapd wrote no LMTP port"
	FAKE_LMTP=$(cat "$TEST_TMP/lmtp")
}

noop_run() {
	local name=$1 rc=0
	shift
	run_with_timeout 30 "${RT[@]}" "$IMAPSTRESS" port="$FAKE_PORT" \
		- noop=100 select=0 logout=0 "$@" \
		--json "$TEST_TMP/$name.json" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || rc=$?
	[ "$rc" = 0 ] || fail "$name: imapstress exited $rc: $(head -n 5 "$TEST_TMP/$name.err")"
}

# The summary is the last line of the JSON Lines file.
summary_get() {
	"$PYTHON" - "$@" <<'EOF'
import json, sys
path = sys.argv[1]
lines = open(path).read().splitlines()
if not lines:
    sys.exit("%s is empty" % path)
s = json.loads(lines[-1])
if s.get("type") != "summary":
    sys.exit("last line of %s is not the summary" % path)
out = []
for field in sys.argv[2:]:
    v = s
    for k in field.split("."):
        if not isinstance(v, dict) or k not in v:
            sys.exit("%s: the summary has no %s" % (path, field))
        v = v[k]
    out.append(str(v))
print(" ".join(out))
EOF
}
