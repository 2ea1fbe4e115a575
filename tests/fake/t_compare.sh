#!/bin/bash
# `imapstress compare` on runs whose difference is certain: two fakeimapd
# servers, one answering APPEND after 20 ms (BASE), one after 80 ms (NEW);
# (not 10 and 40: half the commands, half the CPU under ASan, the same
# 4x) a closed loop of 10 clients then does about 4 times fewer APPENDs a
# second against NEW, each about 4 times slower.  Three runs a side,
# alternated so that the machine's load falls on both alike:
#   (a) BASE against NEW: APPEND's rate and p50 "worse", their intervals
#       on the bad side of 1 and around their ratio, exit 1; the JSON's
#       sample counts and rates are what the runs' own summaries say
#       (the APPENDs of the three runs; OK replies over measured seconds);
#   (b) BASE against three more runs of the same server: no row worse,
#       APPEND's rate "no-change", exit 0;
#   (c) a NEW run with other options (clients=5): exit 2, the line names
#       that file and the option, and no table is printed.
# Whether NEW is slower is decided from intervals, not from a bound on
# any latency: the 4x is the fake server's, whatever the machine.  The
# same-setting side (b) needs the machine's delays to fall alike on both
# sides, within 5%: the runs alternate, and run SCHED_FIFO where allowed
# (realtime_take, as t_latency.sh).
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091,SC2153
. "$(dirname "$0")/latency_lib.sh"

realtime_take
fake_start --cmd-delay APPEND=20
BASE_PORT=$FAKE_PORT
fake_start --cmd-delay APPEND=80
NEW_PORT=$FAKE_PORT
T=$TEST_TMP
RUN="- append=100,0 select=0 logout=0 msgs=1000000 secs=3 seed=1"

run() {	# NAME PORT [ARGS...], by default clients=10
	local name=$1 port=$2 rc=0
	shift 2
	# shellcheck disable=SC2086
	run_with_timeout 60 "${RT[@]}" "$IMAPSTRESS" port="$port" $RUN "${@:-clients=10}" \
		--result "$T/$name.res" --json "$T/$name.json" \
		>"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" = 0 ] || fail "$name: imapstress exited $rc: $(head -n 5 "$T/$name.err")"
}
for i in 1 2 3; do
	run "base$i" "$BASE_PORT"
	run "new$i" "$NEW_PORT"
	run "same$i" "$BASE_PORT"
done
BASE=("$T/base1.res" "$T/base2.res" "$T/base3.res")

# (a)
rc=0
"$IMAPSTRESS" compare --json "$T/a.json" "${BASE[@]}" -- \
	"$T/new1.res" "$T/new2.res" "$T/new3.res" >"$T/a.out" 2>"$T/a.err" || rc=$?
note "(a) $(grep -E '^APPEND' "$T/a.out" | tr -s ' ' | paste -sd ';')"
assert_eq 1 "$rc" "(a) exit status, NEW 4 times slower ($(cat "$T/a.err"))"
"$PYTHON" - "$T/a.json" "$T" <<'EOF' || fail "(a) JSON: see above; table: $(cat "$T/a.out")"
import json, sys
c = json.loads(open(sys.argv[1]).read())
t = sys.argv[2]
def summ(name):
    return json.loads(open("%s/%s.json" % (t, name)).read().splitlines()[-1])
rows = {(r["command"], r["figure"]): r for r in c["rows"]}
rate, p50 = rows[("APPEND", "rate")], rows[("APPEND", "p50")]
assert c["exit_status"] == 1 and c["worse"] >= 2, c
assert c["base"]["runs"] == 3 and c["new"]["runs"] == 3, c
assert rate["verdict"] == "worse" and p50["verdict"] == "worse", (rate, p50)
# The interval holds the ratio and lies wholly on the bad side.
assert rate["ci_low"] <= rate["ratio"] <= rate["ci_high"] < 0.95, rate
assert 1.05 < p50["ci_low"] <= p50["ratio"] <= p50["ci_high"], p50
for side, names in (("base", ["base1", "base2", "base3"]),
                    ("new", ["new1", "new2", "new3"])):
    s = [summ(n) for n in names]
    ok = sum(x["commands"]["APPEND"]["ok"] for x in s)
    secs = sum(x["measured_s"] for x in s)
    # Every APPEND is a sample (the fake server says OK to all).
    assert rate["%s_samples" % side] == ok, (side, rate, ok)
    # OK replies over the measured seconds; both sides of this are
    # rounded to 3 decimals in their JSON.
    assert abs(rate[side] - ok / secs) <= 0.001 * ok / secs + 0.001, (side, rate, ok, secs)
    assert abs(c[side]["seconds"] - secs) <= 0.01, (c[side], secs)
# The delay is a floor under every APPEND's latency.
assert p50["new"] >= 80 and p50["base"] >= 20, p50
EOF

# (b)
rc=0
"$IMAPSTRESS" compare --json - "${BASE[@]}" -- \
	"$T/same1.res" "$T/same2.res" "$T/same3.res" >"$T/b.json" 2>"$T/b.err" || rc=$?
note "(b) $("$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1])); print("; ".join("%s %s %s [%s, %s] %s" % (r["command"], r["figure"], r["ratio"], r["ci_low"], r["ci_high"], r["verdict"]) for r in c["rows"] if r["command"] == "APPEND"))' "$T/b.json")"
assert_eq 0 "$rc" "(b) exit status, the same server on both sides ($(cat "$T/b.err"))"
"$PYTHON" - "$T/b.json" <<'EOF' || fail "(b) JSON: $(cat "$T/b.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["exit_status"] == 0 and c["worse"] == 0, c
rate = [r for r in c["rows"] if (r["command"], r["figure"]) == ("APPEND", "rate")][0]
assert rate["verdict"] == "no-change", rate
assert rate["ci_low"] <= rate["ratio"] <= rate["ci_high"], rate
assert not any(r["verdict"] == "worse" for r in c["rows"]), c["rows"]
EOF

# (c)
run other1 "$NEW_PORT" clients=5
rc=0
"$IMAPSTRESS" compare "${BASE[@]}" -- "$T/new1.res" "$T/other1.res" \
	>"$T/c.out" 2>"$T/c.err" || rc=$?
assert_eq 2 "$rc" "(c) exit status for another workload"
assert_match "^imapstress compare: $T/other1.res: another workload than $T/base1.res: key 'args', option 'clients': 'clients=5' against 'clients=10'\$" \
	"$(cat "$T/c.err")" "(c) the refusal names the file and the option"
[ ! -s "$T/c.out" ] || fail "(c) a refused comparison printed a table: $(cat "$T/c.out")"
note "(c) $(cat "$T/c.err")"
