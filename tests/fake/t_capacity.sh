#!/bin/bash
# scripts/capacity finds a known knee: fakeimapd --delay-per-conn-us 20000
# answers every command 20 ms later per connection open, so with N users
# (clients=N, one connection each, NOOP only, no pipelining) the score
# (--score-weights NOOP=1: the NOOP p95) is about 20*N ms.  Under
# --max-score 90 four users hold (80 ms) and five do not (100 ms): the
# script must say "holds 4 users" (3 is allowed: one bisection step), write
# one CSV row per step (doubling 1 2 4 8, then bisecting 6 5) whose held
# column agrees with its score, and a PNG (or say why not without gnuplot).
# A threshold no step meets exits 1; a non-loopback host= exits 2.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

CAP=$(dirname "$0")/../../scripts/capacity
# The knee is about latency, so a loaded machine's scheduling delays (tens
# of ms at a load of 40 on two cores) would move it: where we may, the
# server and every imapstress step run SCHED_FIFO, as in t_latency.sh
# (RT goes in front of both command lines).
if chrt -f 10 true 2>/dev/null; then
	RT=(chrt -f 10)
else
	note "no realtime scheduling here; a loaded machine may move the knee"
fi
fake_start --delay-per-conn-us 20000
out=$TEST_TMP/cap
rc=0
run_with_timeout 120 "${RT[@]}" "$CAP" --max-score 90 --secs 1 --max 64 --out "$out" -- \
	port="$FAKE_PORT" - noop=100 select=0 logout=0 --no-pipelining \
	--connect-rate 10000 --score-weights NOOP=1 \
	>"$TEST_TMP/cap.out" 2>"$TEST_TMP/cap.err" || rc=$?
[ "$rc" = 0 ] || fail "capacity exited $rc: $(tail -n 5 "$TEST_TMP/cap.err")"
line=$(grep '^holds ' "$TEST_TMP/cap.out") || fail "no 'holds' line: $(cat "$TEST_TMP/cap.out")"
note "$line"
n=$(sed -n 's/^holds \([0-9]*\) users at score \([0-9.]*\) ms.*/\1/p' <<<"$line")
[ "$n" = 4 ] || [ "$n" = 3 ] || fail "expected the knee at 4 users (or 3), got: $line"
"$PYTHON" - "$out/capacity.csv" "$n" <<'PY' || fail "capacity.csv is wrong: $(cat "$out/capacity.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
knee = int(sys.argv[2])
users = [int(r["users"]) for r in rows]
assert users[:3] == [1, 2, 4], users          # doubling
assert len(rows) == len(set(users)), users     # no step twice
for r in rows:
    held = r["held"] == "1"
    assert held == (float(r["score_ms"]) < 90), r
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
