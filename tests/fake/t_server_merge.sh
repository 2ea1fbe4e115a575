#!/bin/bash
# --server-pid, --score-weights and a score --sla through result files and
# `imapstress merge`, watching fakeimapd itself as "the server":
#   (a) one run's result file merged alone gives, byte for byte, the text,
#       JSON and CSV that run printed (server lines and table, score);
#   (b) two shards, only the first watching the server (--server-pid is
#       not part of the configuration merge compares): the merged server
#       counters are that shard's, and the per-user divisor is the sum of
#       both shards' users.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

fake_start --cmd-delay NOOP=2
T=$TEST_TMP
RUN=(port="$FAKE_PORT" - noop=100 select=0 logout=0 secs=2 users=1-8
	--score-weights NOOP=1 --sla 'score<60s')
WATCH=(--server-pid "$FAKE_PID")

# (a)
run_with_timeout 30 "$IMAPSTRESS" "${RUN[@]}" "${WATCH[@]}" clients=4 --result "$T/one.res" \
	--json "$T/one.json" --csv "$T/one.csv" >"$T/one.out" 2>"$T/one.err" ||
	fail "single run: exit $?: $(head -5 "$T/one.err")"
grep -q '^server: cpu ' "$T/one.out" || fail "(a) no server lines in the run"
grep -q '^score: ' "$T/one.out" || fail "(a) no score in the run"
"$IMAPSTRESS" merge --json "$T/m1.json" --csv "$T/m1.csv" "$T/one.res" \
	>"$T/m1.out" 2>"$T/m1.err" || fail "merge of one file: exit $?: $(cat "$T/m1.err")"
cmp "$T/one.out" "$T/m1.out" || fail "(a) merged text differs: $(diff "$T/one.out" "$T/m1.out" | head)"
cmp "$T/one.json" "$T/m1.json" || fail "(a) merged JSON differs"
cmp "$T/one.csv" "$T/m1.csv" || fail "(a) merged CSV differs"

# (b)
for i in 0 1; do
	w=()
	[ "$i" = 1 ] || w=("${WATCH[@]}")
	run_with_timeout 30 "$IMAPSTRESS" "${RUN[@]}" "${w[@]}" clients=6 --shard "$i/2" \
		--result "$T/r$i" --json "$T/s$i.json" >"$T/s$i.out" 2>"$T/s$i.err" ||
		fail "shard $i: exit $?: $(head -5 "$T/s$i.err")"
done
"$IMAPSTRESS" merge --json "$T/m.json" "$T/r0" "$T/r1" >"$T/m.out" 2>"$T/m.err" ||
	fail "merge: exit $?: $(cat "$T/m.err")"
summary "$T/s0.json" server.cpu_pct server.mem_kb server.users
s0=("${S[@]}")
summary "$T/s1.json" server
[ "${S[0]}" = - ] || fail "(b) shard 1 watched nothing but has a server object"
# Its divisor: the mean of its ticks' open connections (the last, partial
# tick included), as run.c computes it.
u1=$("$PYTHON" -c 'import json, sys
t = [json.loads(l)["conns_open"] for l in open(sys.argv[1]) if "\"tick\"" in l]
print(sum(t) / len(t))' "$T/s1.json")
summary "$T/m.json" server.cpu_pct server.mem_kb server.users score.score_us
note "(b) shard 0: cpu ${s0[0]}% mem ${s0[1]} kB users ${s0[2]}; shard 1 users $u1;" \
	"merged: cpu ${S[0]}% mem ${S[1]} kB users ${S[2]}, score ${S[3]} us"
assert_eq "${S[0]}" "${s0[0]}" "(b) merged server CPU is shard 0's"
assert_eq "${S[1]}" "${s0[1]}" "(b) merged server memory is shard 0's"
"$PYTHON" -c 'import sys; a, b, m = map(float, sys.argv[1:]); sys.exit(abs(a + b - m) > 1e-3 * m)' \
	"${s0[2]}" "$u1" "${S[2]}" || fail "(b) merged users ${S[2]} != ${s0[2]} + $u1"
fake_stop
note "ok"
