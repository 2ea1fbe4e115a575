#!/bin/bash
# `timeout 2 imapstress ...`: timeout(1) (without --foreground) sends its
# TERM to imapstress and then to its own process group, which holds
# imapstress: two TERMs microseconds apart.  That is one stop, not a
# graceful stop followed by "stop now" (src/run/exit_policy.h,
# EXIT_POLICY_SAME_STOP_US: a second signal within 100 ms of the first).
# Two runs, fakeimapd answering every command after 200 ms (well inside
# --grace 10):
#   timeout:  the real thing.  The kernel merges the two TERMs when the
#             second lands before the first is taken, which it mostly
#             does on an idle machine; on a loaded one it did not, and
#             the second cut the commands in flight (exit 1);
#   two-term: the loaded case made certain: one python process sends
#             TERM, then TERM again 5 ms later (a shell's `sleep` between
#             two kills took 290 ms on a loaded machine: a second stop
#             by then is a person's, rightly).
# The senders and imapstress run under SCHED_FIFO where we may
# (realtime_take): at load 25-39 (helpers beside a burner) two-term once
# failed with "second signal", the python sender itself not scheduled for
# more than 100 ms between its two kills, so the second TERM really came
# late; a busy loop of normal priority cannot hold a realtime task back.
# Each must drain, end with no unfinished command, exit 0, stop_reason
# "signal", and never say "second signal".
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

ARGS=(- noop=100 select=0 logout=0 clients=5 secs=30 --grace 10)

check_stop() {
	local name=$1 rc=$2 vals why unfinished ok
	note "$name: exit $rc"
	assert_eq 0 "$rc" "$name: exit status (stderr: $(tail -n 3 "$TEST_TMP/$name.err"))"
	assert_match 'Received SIGTERM' "$(cat "$TEST_TMP/$name.err")" "$name: the TERM was taken as a stop"
	if grep -q 'second signal' "$TEST_TMP/$name.err"; then
		fail "$name: two TERMs were taken as two stops: $(grep 'second signal' "$TEST_TMP/$name.err")"
	fi
	vals=$(summary_get "$TEST_TMP/$name.json" stop_reason unfinished commands.NOOP.ok) ||
		fail "$name: no usable JSON summary"
	read -r why unfinished ok <<<"$vals"
	note "$name: stop_reason $why, unfinished $unfinished, NOOP ok $ok"
	assert_eq signal "$why" "$name: stop_reason"
	assert_eq 0 "$unfinished" "$name: commands cut off"
	assert_ge "$ok" 5 "$name: NOOPs answered"
}

realtime_take
fake_start --delay-ms 200

rc=0
"${RT[@]}" timeout --preserve-status -s TERM 2 "$IMAPSTRESS" port="$FAKE_PORT" "${ARGS[@]}" \
	--json "$TEST_TMP/timeout.json" >"$TEST_TMP/timeout.out" 2>"$TEST_TMP/timeout.err" || rc=$?
check_stop timeout "$rc"

"${RT[@]}" "$IMAPSTRESS" port="$FAKE_PORT" "${ARGS[@]}" --json "$TEST_TMP/two-term.json" \
	>"$TEST_TMP/two-term.out" 2>"$TEST_TMP/two-term.err" </dev/null &
pid=$!
# Signalled once a tick shows sessions open, as a timeout would find it.
for ((i = 0; i < 100; i++)); do
	grep -q '"conns_open":[1-9]' "$TEST_TMP/two-term.json" 2>/dev/null && break
	sleep 0.1
done
"${RT[@]}" "$PYTHON" -c 'import os, signal, sys, time
pid = int(sys.argv[1])
os.kill(pid, signal.SIGTERM)
time.sleep(0.005)
os.kill(pid, signal.SIGTERM)' "$pid" || fail "two-term: could not signal imapstress"
rc=0
wait "$pid" || rc=$?
check_stop two-term "$rc"
note "ok"
