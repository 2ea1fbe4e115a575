#!/bin/bash
# One run as three shards, merged, against one private Dovecot:
#   (a) a single process's report rebuilt by `imapstress merge` from its
#       --result file is byte for byte what it printed (text, JSON, CSV);
#   (b) 3 shards as 3 processes, from 127.0.0.1, .2 and .3, started
#       together with --start-at: the merged APPEND messages equal what the
#       server holds, and every command's merged p50/p95/p99/max equal those
#       of one histogram of all raw samples (--latency-log, read back by
#       `imapstress latency`);
#   (c) merge refuses, with one line naming the file and exit 2: a missing
#       shard, a shard twice, another configuration, a truncated file,
#       another format version, another imapstress version; version 1
#       files (what earlier versions wrote) still merge, to the same report.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"

dovecot_start --fsync no
T=$TEST_TMP
"$PYTHON" "$ROOT/tests/integration/precreate.py" "$DOVECOT_PORT" \
	"${DOVECOT_PASS:-pass}" $(seq -f 't%.0f' 1 30) ||
	fail "could not create the mailboxes first"

RUN="port=$DOVECOT_PORT - append=100,0 noop=20 seed=1 secs=3 msgs=1000000
     logout=0 select=0 user=t%d users=1-30"

# (a) one process, then its result file merged alone
# shellcheck disable=SC2086
run_with_timeout 60 "$IMAPSTRESS" $RUN clients=4 --result "$T/one.res" \
	--json "$T/one.json" --csv "$T/one.csv" >"$T/one.out" 2>"$T/one.err" ||
	fail "single run: exit $?: $(head -5 "$T/one.err")"
"$IMAPSTRESS" merge --json "$T/m1.json" --csv "$T/m1.csv" "$T/one.res" \
	>"$T/m1.out" 2>"$T/m1.err" || fail "merge of one file: exit $?: $(cat "$T/m1.err")"
cmp "$T/one.out" "$T/m1.out" || fail "(a) merged text differs: $(diff "$T/one.out" "$T/m1.out" | head)"
cmp "$T/one.json" "$T/m1.json" || fail "(a) merged JSON differs"
cmp "$T/one.csv" "$T/m1.csv" || fail "(a) merged CSV differs"
note "(a) merge of one result file == the live report ($(wc -l <"$T/one.out") text lines)"

# (b) three shards, three source addresses
count0=$("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR")
start=$(($(date +%s) + 2))
pids=()
for i in 0 1 2; do
	# shellcheck disable=SC2086
	run_with_timeout 60 "$IMAPSTRESS" $RUN clients=9 --shard "$i/3" \
		--source "127.0.0.$((i + 1))" --start-at "$start" \
		--result "$T/r$i" --latency-log "$T/lat$i" \
		>"$T/s$i.out" 2>"$T/s$i.err" &
	pids+=($!)
done
for i in 0 1 2; do
	wait "${pids[i]}" || fail "shard $i: exit $?: $(head -5 "$T/s$i.err")"
done
"$IMAPSTRESS" merge --json "$T/m.json" "$T/r0" "$T/r1" "$T/r2" >"$T/m.out" 2>"$T/m.err" ||
	fail "merge: exit $?: $(cat "$T/m.err")"
server=$(( $("$DOVECOT_PRIVATE" count-all --dir "$DOVECOT_DIR") - count0 ))
summary "$T/m.json" messages_appended commands.APPEND.ok errors clients exit_status
note "(b) merged: APPEND ok ${S[1]}, messages ${S[0]}, server $server, clients ${S[3]}"
assert_eq "$server" "${S[0]}" "merged messages_appended vs the server"
assert_eq "${S[0]}" "${S[1]}" "one message per APPEND"
assert_ge "${S[1]}" 1 "APPEND ok"
assert_eq 0 "${S[2]}" "merged errors"
assert_eq 9 "${S[3]}" "merged clients"
assert_eq 0 "${S[4]}" "merged exit_status"
for i in 1 2 3; do
	grep -q "rip=127.0.0.$i" "$DOVECOT_DIR/dovecot.log" ||
		fail "the server saw no session from 127.0.0.$i"
done

"$IMAPSTRESS" latency "$T/lat0" "$T/lat1" "$T/lat2" >"$T/raw.txt" ||
	fail "imapstress latency failed"
"$PYTHON" - "$T/m.json" "$T/raw.txt" <<'EOF' || fail "merged percentiles differ from the raw samples' histogram"
import json, sys
summary = json.loads(open(sys.argv[1]).read().splitlines()[-1])
raw = {}
for line in open(sys.argv[2]):
    name, *kv = line.split()
    raw[name] = dict(x.split("=") for x in kv)
cmds = summary["commands"]
bad = []
for name, c in cmds.items():
    r = raw.get(name)
    n = c["ok"] + c["no"] + c["bad"]
    if r is None:
        bad.append("%s: no raw samples" % name)
        continue
    if int(r["count"]) != n:
        bad.append("%s: %s raw samples, %d replies" % (name, r["count"], n))
    for p in ("p50", "p95", "p99", "max"):
        if int(r[p]) != c["latency_us"][p]:
            bad.append("%s %s: merged %s, raw %s" % (name, p, c["latency_us"][p], r[p]))
    print("%s: %d samples, p50 %s p95 %s p99 %s max %s us" % (
        name, n, r["p50"], r["p95"], r["p99"], r["max"]), file=sys.stderr)
missing = set(raw) - set(cmds) - {"all"}
if missing:
    bad.append("raw samples of commands the merge lacks: %s" % sorted(missing))
if bad:
    sys.exit("\n".join(bad))
EOF

# (b2) rows are aligned by wall-clock second: the same shard 2 as if it had
# started one second later adds one row, and changes no total.
awk '$1 == "tick" { $2 = sprintf("%.0f", $2 + 1) }
	$1 == "start" { $2 = sprintf("%.0f", $2 + 1000000) } { print }' \
	"$T/r2" >"$T/r2late"
"$IMAPSTRESS" merge -q --json "$T/late.json" "$T/r0" "$T/r1" "$T/r2late" >/dev/null ||
	fail "merge with a late shard: exit $?"
"$PYTHON" - "$T/m.json" "$T/late.json" <<'EOF' || fail "rows of a late shard not aligned"
import json, sys
def load(p):
    rows = [json.loads(l) for l in open(p)]
    ticks = [r for r in rows if r["type"] == "tick"]
    return ticks, rows[-1]
(t0, s0), (t1, s1) = load(sys.argv[1]), load(sys.argv[2])
def ok(r):
    return r["commands"].get("APPEND", {}).get("ok", 0)
if len(t1) != len(t0) + 1:
    sys.exit("%d rows, expected %d + 1" % (len(t1), len(t0)))
# (the rows need not add up to the totals: those include the drain)
if ok(s1) != ok(s0) or sum(map(ok, t1)) != sum(map(ok, t0)):
    sys.exit("APPEND totals %d/%d, rows %d/%d" % (ok(s0), ok(s1),
             sum(map(ok, t0)), sum(map(ok, t1))))
print("late shard: %d rows instead of %d, totals equal" % (len(t1), len(t0)), file=sys.stderr)
EOF

# (b3) a shard that ran out of local ports is said plainly, and named
awk '$1 == "final" { f = 1 } f && $1 == "ctr" { sub(/ports_exhausted=0/, "ports_exhausted=5") }
	{ print }' "$T/r1" >"$T/r1ports"
"$IMAPSTRESS" merge "$T/r0" "$T/r1ports" "$T/r2" >"$T/ports.out" 2>"$T/ports.err" ||
	fail "merge with ports exhausted: exit $?"
assert_match "^OUT OF LOCAL PORTS: 5 connection attempts" "$(cat "$T/ports.out")" "ports line"
assert_match "shard 1/3 \($T/r1ports\) ran out of local ports: 5" "$(cat "$T/ports.err")" \
	"the shard named"

# (c) refusals: exit 2, one line, naming the problem and the file
refused() {
	local want=$1 rc=0
	shift
	"$IMAPSTRESS" merge "$@" >"$T/ref.out" 2>"$T/ref.err" || rc=$?
	assert_eq 2 "$rc" "merge $* (expected a refusal: $want)"
	assert_eq 1 "$(wc -l <"$T/ref.err")" "merge $*: one line on stderr, got: $(cat "$T/ref.err")"
	assert_match "$want" "$(cat "$T/ref.err")" "merge $*"
	[ ! -s "$T/ref.out" ] || fail "merge $*: printed a report although it refused"
	note "(c) refused: $(cat "$T/ref.err")"
}
refused "shard 2/3 missing" "$T/r0" "$T/r1"
refused "shard 1/3 given twice: $T/r1 and $T/r1" "$T/r0" "$T/r1" "$T/r1" "$T/r2"
# shellcheck disable=SC2086
run_with_timeout 60 "$IMAPSTRESS" $RUN clients=12 secs=1 --shard 2/3 \
	--result "$T/other" >/dev/null 2>&1 || fail "run with other options failed"
refused "$T/other: another configuration than $T/r0 \('clients=12' against 'clients=9'\)" \
	"$T/r0" "$T/r1" "$T/other"
head -c $(($(wc -c <"$T/r1") - 50)) "$T/r1" >"$T/cut"
refused "$T/cut:[0-9]+: truncated" "$T/r0" "$T/cut" "$T/r2"
sed '1s/ 2$/ 3/' "$T/r2" >"$T/v3"
refused "$T/v3: result format version 3" "$T/r0" "$T/r1" "$T/v3"
# A stress file as version 1 wrote it (the same lines) still merges, to the
# same report.
for f in r0 r1 r2; do sed '1s/ 2$/ 1/' "$T/$f" >"$T/$f.v1"; done
rc1=0 rc2=0
"$IMAPSTRESS" merge "$T/r0.v1" "$T/r1.v1" "$T/r2.v1" >"$T/v1.out" 2>&1 || rc1=$?
"$IMAPSTRESS" merge "$T/r0" "$T/r1" "$T/r2" >"$T/v2.out" 2>&1 || rc2=$?
assert_eq "$rc2" "$rc1" "merge of version 1 files: exit status ($(tail -n 2 "$T/v1.out"))"
cmp -s "$T/v1.out" "$T/v2.out" || fail "version 1 files merge to another report"
sed 's/^program .*/program 9.9.9/' "$T/r2" >"$T/p9"
refused "$T/p9: written by imapstress 9.9.9" "$T/r0" "$T/r1" "$T/p9"
refused "$T/one.res: shard 0 of 1, but $T/r0 is of 3" "$T/r0" "$T/one.res"

note "ok"
