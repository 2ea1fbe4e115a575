#!/bin/bash
# Smoke test of scripts/bench-latency, so that it cannot rot: one 1-second
# run at D = 5 ms must exit 0 and print its table, a row of numbers for
# D = 5 with NOOPs answered.  The figures are not judged (a benchmark, on
# a shared machine); t_latency.sh holds the bounds the tool promises.  Bad
# options exit 2 with a message naming them.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd /usr/bin/python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd binary at $FAKEIMAPD (run make build/fakeimapd)"
BENCH=$ROOT/scripts/bench-latency
# The bench runs SCHED_FIFO itself; no other realtime test beside it.
realtime_take

for bad in "--delays x" "--delays 0" "--secs 0" "--repeat 0"; do
	rc=0
	# shellcheck disable=SC2086 # an option and its value
	err=$("$BENCH" $bad "$IMAPSTRESS" 2>&1 >/dev/null) || rc=$?
	assert_eq 2 "$rc" "$bad: exit status"
	assert_match "bench-latency: ${bad%% *} " "$err" "$bad: message"
done

rc=0
run_with_timeout 60 "$BENCH" --secs 1 --delays 5 --out "$TEST_TMP/out" "$IMAPSTRESS" \
	>"$TEST_TMP/stdout" 2>"$TEST_TMP/stderr" || rc=$?
[ "$rc" = 0 ] || fail "bench-latency exited $rc: $(tail -n 5 "$TEST_TMP/stderr")"
table=$(cat "$TEST_TMP/stdout")
note "$table"
assert_match '^ D ms samples +p50 us +p50/D +p99 us +p99/D +p99-D us +probe p99$' "$table" "table header"
# D, samples, p50, p50/D, p99, p99/D, p99 - D, the probe's p99.
row=$(grep -E '^ +5 +[1-9][0-9]* +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9]+ +[0-9]+\.[0-9]{3} +-?[0-9]+ +[0-9]+$' \
	"$TEST_TMP/stdout") || fail "no row of numbers for D = 5 ms in: $table"
note "row: $row"
note "ok"
