#!/bin/bash
# The numbers on `imapstress report`'s pages are the input's (issue 36):
# every chart series carries its values in data-x/data-y and every table
# cell its number in data-v; tests/fake/report_numbers.py reads them back
# and compares each with the input, to the page's six significant digits:
#   (a) a default-mix run watching fakeimapd as its server (--server-pid):
#       throughput per command per tick (OKs over the tick's seconds), p50,
#       p95 and p99 per command per tick, the percentile plot (the
#       summary's p50..max), the commands table, connections, client CPU,
#       the server's CPU and memory per tick, the run table; the same for
#       the page the run itself wrote (--report), which the summary names;
#   (b) a run against a server that says BYE to 10% of commands: the
#       errors chart has a series for each kind that counted, each tick's
#       count over its seconds, and the totals tables are the summary's;
#   (c) two shards' result files, merged on the fly: the page's numbers
#       are those `imapstress merge --json` prints for the same files;
#   (d) a compare --json of two runs: each row's ratio and interval in the
#       interval chart, and every number of the rows table; and the same
#       from the result files themselves (report BASE -- NEW);
#   (e) a scripts/capacity directory from a search with a knee (fakeimapd
#       answering 100 ms later per connection open, the limit score 450
#       ms: about 4 users): the steps table is capacity.csv, the p95
#       curves its columns ordered by users, the fit table
#       capacity-fit.csv; the answer at the top is capacity-answer.json's
#       (verdict, capacity, interval, top, open above, value, limit) and
#       says in words the numbers the script printed (its last line, which
#       the file keeps); the limit chart's line is the limit, its shaded
#       band the interval, its points each run's score; the share chart's
#       bars each count's interval.  Wherever load puts the knee, the page
#       must say what the script said.  The same directory without
#       capacity-answer.json (an older script's): the capacity named is
#       the most users a run held;
#   (f) profile mode's POP3 users against tests/fake/fake_pop3.py: the
#       POP3 section's sessions, logins, retrieved and deleted per tick
#       (over the tick's seconds), +OK per command per tick, p50/p95/p99
#       per command per tick, the totals table (failed sessions by kind
#       too), the commands table (ok, err, failed, rate, latency set) and
#       the percentile plot are the JSON's; the same for the page of the
#       run's result file, against `imapstress merge --json` of it.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"
# shellcheck source=SCRIPTDIR/pop3_lib.sh disable=SC1091
. "$(dirname "$0")/pop3_lib.sh"

T=$TEST_TMP
CHECK="$PYTHON $ROOT/tests/fake/report_numbers.py"

check() {	# WHAT NAME INPUT: report NAME.html from INPUT, then compare
	local what=$1 name=$2 out
	shift 2
	"$IMAPSTRESS" report -o "$T/$name.html" "$@" 2>"$T/$name.report.err" ||
		fail "$name: report exited $?: $(cat "$T/$name.report.err")"
	out=$($CHECK "$what" "$T/$name.html" "${REF:-$1}") || fail "$name: $out"
	note "$name: $out values equal ($(wc -c <"$T/$name.html") bytes)"
}

run() {	# NAME PORT ARGS...: exit 0 (or 1 with ERRORS_OK=1, errors counted)
	local name=$1 port=$2 rc=0
	shift 2
	run_with_timeout 60 "$IMAPSTRESS" port="$port" "$@" --json "$T/$name.json" \
		>"$T/$name.out" 2>"$T/$name.err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc:${ERRORS_OK:-}" = 1:1 ] ||
		fail "$name: imapstress exited $rc: $(head -n 5 "$T/$name.err")"
}

fake_start
PORT=$FAKE_PORT
PID=$FAKE_PID

# (a)
run a "$PORT" clients=4 secs=3 --server-pid "$PID" --result "$T/a.res" --report "$T/live.html"
grep -q '"sampled":true' "$T/a.json" || fail "(a) the server was not sampled"
check run a "$T/a.json"
# --report on the run: the page it wrote at the end has the same numbers,
# and the summary's last line says where it is.
assert_match "^report: $T/live\.html \([0-9]+ bytes\)\$" "$(tail -n 1 "$T/a.out")" "(a) the summary names the page"
out=$($CHECK run "$T/live.html" "$T/a.json") || fail "(a) --report page: $out"
note "a, --report: $out values equal"

# A run that ends within a millisecond of a tick: its last tick's t
# (JSON's 3 decimals) is the one before's, and its length is its
# partial_s, on the page and in the check (a division by zero in the
# check before; CI saw one in (f)).
"$PYTHON" - "$T/a.json" "$T/a-tie.json" <<'PY' || fail "could not write the tied ticks"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ticks = [i for i, l in enumerate(lines) if l["type"] == "tick"]
last, before = lines[ticks[-1]], lines[ticks[-2]]
last["t"], last["partial_s"] = before["t"], 0.0004
last["commands"] = {c: dict(v, ok=max(1, v.get("ok", 0))) for c, v in last["commands"].items()} or last["commands"]
with open(sys.argv[2], "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
PY
check run a-tie "$T/a-tie.json"

# (b)
fake_start --mode bye-random --pct 10
ERRORS_OK=1 run b "$FAKE_PORT" clients=3 secs=3
"$PYTHON" -c 'import json,sys; s=json.loads(open(sys.argv[1]).read().splitlines()[-1]); sys.exit(s["errors"]["bye"] == 0)' "$T/b.json" ||
	fail "(b) no BYE counted: $(tail -n 1 "$T/b.json")"
check run b "$T/b.json"

# (c)
for i in 0 1; do
	run "s$i" "$PORT" clients=6 secs=3 --shard "$i/2" --result "$T/s$i.res"
done
"$IMAPSTRESS" merge -q --json "$T/m.json" "$T/s0.res" "$T/s1.res" >/dev/null 2>"$T/m.err" ||
	fail "merge exited $?: $(cat "$T/m.err")"
REF="$T/m.json" check run c "$T/s0.res" "$T/s1.res"

# (d)
run d2 "$PORT" clients=4 secs=3 --result "$T/d2.res"
rc=0
"$IMAPSTRESS" compare --json "$T/cmp.json" "$T/a.res" -- "$T/d2.res" >/dev/null 2>"$T/cmp.err" || rc=$?
[ "$rc" -le 1 ] || fail "compare exited $rc: $(cat "$T/cmp.err")"
check compare d "$T/cmp.json"
# The same inputs compare took, given to report: the same numbers.
REF="$T/cmp.json" check compare d-inputs "$T/a.res" -- "$T/d2.res"

# (e)
fake_start --delay-per-conn-us 100000
rc=0
IMAPSTRESS="$IMAPSTRESS" run_with_timeout 120 "$ROOT/scripts/capacity" --max-score 450 \
	--secs 2 --max 8 --repeats 1 --resolution 2 --width 99 --out "$T/cap" -- \
	port="$FAKE_PORT" - noop=100 select=0 logout=0 --no-pipelining \
	--connect-rate 10000 --score-weights NOOP=1 >"$T/cap.out" 2>&1 || rc=$?
[ "$rc" -le 1 ] || [ "$rc" = 3 ] || fail "scripts/capacity exited $rc: $(tail -n 3 "$T/cap.out")"
said=$(tail -n 1 "$T/cap.out")
note "(e) scripts/capacity: $said"
assert_eq "$said" "$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["line"])' "$T/cap/capacity-answer.json")" \
	"(e) capacity-answer.json keeps the line the script printed"
check capacity e "$T/cap"
cp -r "$T/cap" "$T/cap-old"
rm "$T/cap-old/capacity-answer.json"
check capacity e-old "$T/cap-old"

# (f)
pop3_fake_run "$T/p3" 3 --result "$T/p3.res"
"$PYTHON" -c 'import json,sys; s=json.loads(open(sys.argv[1]).read().splitlines()[-1]); sys.exit(s["profile"]["pop3"]["retrieved"] == 0)' "$T/p3/json" ||
	fail "(f) no message retrieved: $(tail -n 1 "$T/p3/json")"
check run f "$T/p3/json"
"$IMAPSTRESS" merge -q --json "$T/p3m.json" "$T/p3.res" >/dev/null 2>"$T/p3m.err" ||
	fail "merge of the POP3 run exited $?: $(cat "$T/p3m.err")"
REF="$T/p3m.json" check run f-res "$T/p3.res"
note "ok"
