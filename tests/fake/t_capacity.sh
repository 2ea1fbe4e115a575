#!/bin/bash
# scripts/capacity against fakeimapd --delay-per-conn-us 100000, which
# answers every command 100 ms later per connection open, so with N users
# (clients=N, one connection each, NOOP only, no pipelining) the score
# (--score-weights NOOP=1: the NOOP p95) is about 100*N ms.  What the
# script promises is checked, whatever the machine's load: its "holds N"
# line names a step that held and a step of N+1 users that did not, one
# CSV row per step (doubling 1 2 4 ..., then bisecting; no step twice)
# whose held column agrees with its score, and a PNG (or say why not
# without gnuplot).  Where the knee falls (4 users under --max-score 450
# on an idle machine) is a latency figure that load moves, so
# scripts/bench-capacity prints it instead.  A threshold no step meets
# exits 1; a non-loopback host= exits 2.
#
# Why 100 ms and not 20: the search must start from a step that holds,
# and on these machines a loaded run stops a CPU for a whole 100 ms
# period now and then (a SCHED_FIFO priority-50 probe pinned to each CPU,
# beside two busy loops, saw gaps of 100-102 ms about every 1-2 s, each
# ending on the same 100 ms grid on both CPUs: the host's CPU quota, not
# anything in this machine, whose cgroups set no quota).  At 20 ms per
# connection two such stalls among a 1-user step's ~40 NOOPs made its p95
# 101-117 ms against --max-score 90 (5 of 20 steps in a reproducer); at
# 100 ms per connection a stall is one step of 100 ms where the threshold
# is four and a half, so the 1-user step holds.  A step whose users did
# not get a NOOP answered within --secs (ID and LOGIN are delayed too)
# has no score and did not hold.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

CAP=$(dirname "$0")/../../scripts/capacity
# The server and every imapstress step run SCHED_FIFO where we may, as in
# t_latency.sh, and no other realtime test runs beside it (realtime_take).
realtime_take
fake_start --delay-per-conn-us 100000
out=$TEST_TMP/cap
rc=0
run_with_timeout 120 "${RT[@]}" "$CAP" --max-score 450 --secs 2 --max 64 --out "$out" -- \
	port="$FAKE_PORT" - noop=100 select=0 logout=0 --no-pipelining \
	--connect-rate 10000 --score-weights NOOP=1 \
	>"$TEST_TMP/cap.out" 2>"$TEST_TMP/cap.err" || rc=$?
[ "$rc" = 0 ] || fail "capacity exited $rc: $(tail -n 5 "$TEST_TMP/cap.err")"
line=$(grep '^holds ' "$TEST_TMP/cap.out") || fail "no 'holds' line: $(cat "$TEST_TMP/cap.out")"
note "$line"
n=$(sed -n 's/^holds \([0-9]*\) users at score \([0-9.]*\) ms.*/\1/p' <<<"$line")
[ -n "$n" ] || fail "no user count in: $line"
"$PYTHON" - "$out/capacity.csv" "$n" <<'PY' || fail "capacity.csv is wrong: $(cat "$out/capacity.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
knee = int(sys.argv[2])
users = [int(r["users"]) for r in rows]
# Doubling from 1 up to the first step that does not hold.
first_bad = next((i for i, r in enumerate(rows) if r["held"] == "0"), len(rows) - 1)
assert users[:first_bad + 1] == [2 ** i for i in range(first_bad + 1)], users
assert len(rows) == len(set(users)), users     # no step twice
for r in rows:
    held = r["held"] == "1"
    assert held == (r["score_ms"] != "" and float(r["score_ms"]) < 450), r
    assert r["NOOP_p95_ms"] == r["score_ms"], r  # the one weighted command
    assert held == (int(r["users"]) <= knee), (r, knee)
assert any(int(r["users"]) == knee + 1 and r["held"] == "0" for r in rows), users
PY
if command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
	[ -s "$out/capacity.png" ] || fail "no capacity.png"
	magic=$(head -c 8 "$out/capacity.png" | od -An -tx1 | tr -d ' \n')
	assert_eq "$magic" 89504e470d0a1a0a "capacity.png's PNG signature"
else
	grep -q 'no gnuplot' "$TEST_TMP/cap.err" || fail "no gnuplot and no message saying so"
fi

# Even one user over the threshold: exit 1, "fewer than".
rc=0
run_with_timeout 60 "$CAP" --max-score 5 --secs 1 --max 4 --out "$TEST_TMP/cap2" -- \
	port="$FAKE_PORT" - noop=100 select=0 logout=0 --no-pipelining \
	--score-weights NOOP=1 >"$TEST_TMP/cap2.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "an unreachable threshold: exit $rc, expected 1"
grep -q '^holds fewer than 1 users' "$TEST_TMP/cap2.out" || fail "no 'fewer than' line"
fake_stop

rc=0
"$CAP" --max-score 5 -- host=192.0.2.1 >"$TEST_TMP/cap3.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "a non-loopback host: exit $rc, expected 2"
grep -q "only loopback" "$TEST_TMP/cap3.out" || fail "no loopback message"
note "ok"
