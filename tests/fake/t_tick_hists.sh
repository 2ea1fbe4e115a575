#!/bin/bash
# The per-second histograms are copied only when an output reads them
# (run_tick_hists_wanted, src/run/setup.c), and the totals stay exact
# either way (issue 19).
#   run quiet:  -q, no output reading a second's histograms: the workers
#               copy theirs only after the join.  Every command's p50, p95,
#               p99 and max in the totals table are those `imapstress
#               latency` builds from the --latency-log of every sample,
#               and the counts agree: nothing of either worker is lost.
#   run warm:   the same with --warmup 1: the warm-up's end takes a whole
#               copy; every command counted has its latencies.
#   run result: -q --result: a reader; each tick's histograms in the
#               result file sum, bucket by bucket, to the final ones.
#   run text:   the terminal's lines and output= (imaptest's TSV), which
#               read no histogram but each command's latency sum and
#               count carried with the counters: the last "ms/cmd avg"
#               line (the whole 3 s run) is each command's mean from the
#               --latency-log's samples, rounded to a millisecond, and
#               the TSV's per-second counts and msecs add up to the log's.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

work=(clients=20 --workers 2 user=hists)
fake_start --slow-pct 10 --slow-ms 40 --delay-per-conn-us 300
one_run() {
	local name=$1 rc=0
	shift
	run_with_timeout 40 "$IMAPSTRESS" port="$FAKE_PORT" "${work[@]}" "$@" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || rc=$?
	[ "$rc" = 0 ] || fail "$name: imapstress exited $rc: $(head -n 5 "$TEST_TMP/$name.err")"
}
one_run quiet -q secs=3 --latency-log "$TEST_TMP/quiet.lat"
one_run warm -q secs=3 --warmup 1
one_run result -q secs=3 --result "$TEST_TMP/result.res"
one_run text secs=3 output="$TEST_TMP/text.tsv" --latency-log "$TEST_TMP/text.lat"
fake_stop
"$IMAPSTRESS" latency "$TEST_TMP/quiet.lat" >"$TEST_TMP/quiet.ref" ||
	fail "imapstress latency failed"

cat >"$TEST_TMP/check.py" <<'PYEOF'
import re, sys

def fmt_us(us):
    # units_fmt_us (src/util/units.c)
    if us < 1000:
        return "%d us" % us
    ms = us / 1e3
    if ms < 9.995:
        return "%.2f ms" % ms
    if ms < 99.95:
        return "%.1f ms" % ms
    if ms < 999.5:
        return "%.0f ms" % ms
    s = us / 1e6
    return "%.2f s" % s if s < 9.995 else "%.1f s" % s if s < 99.95 else "%.0f s" % s

def table(path):
    rows, on = {}, False
    for l in open(path):
        if l.startswith("command "):
            on = True
            continue
        if on and not l.strip():
            break
        if on:
            m = re.match(r"^(\S+)\s+(\d+)\s+\S+\s+(.*)$", l.strip())
            v = re.findall(r"\d+(?:\.\d+)? (?:us|ms|s)", m.group(3))
            rows[m.group(1)] = (int(m.group(2)), v)
    return rows

problems = []
mode = sys.argv[1]
if mode == "quiet":
    rows = table(sys.argv[2])
    ref = {}
    for l in open(sys.argv[3]):
        name, *kv = l.split()
        ref[name] = {k: int(v) for k, v in (x.split("=") for x in kv)}
    if not rows:
        problems.append("no totals table")
    for op, (count, v) in rows.items():
        r = ref.get(op)
        if r is None:
            problems.append("%s: in the table, not in the latency log" % op)
            continue
        if r["count"] != count:
            problems.append("%s: %d samples logged, the table counts %d" % (op, r["count"], count))
        # mean p50 p90 p95 p99 p99.9 max
        want = [fmt_us(r["p50"]), fmt_us(r["p95"]), fmt_us(r["p99"]), fmt_us(r["max"])]
        got = [v[1], v[3], v[4], v[6]]
        if want != got:
            problems.append("%s: p50/p95/p99/max %s, from every sample %s" % (op, got, want))
elif mode == "warm":
    rows = table(sys.argv[2])
    if not rows:
        problems.append("no totals table")
    for op, (count, v) in rows.items():
        if count > 0 and (v[1] == "0 us" or v[6] == "0 us"):
            problems.append("%s: %d counted but latencies %s" % (op, count, v))
elif mode == "text":
    # every sample of the log: count and sum per command
    n, tot = {}, {}
    for l in open(sys.argv[4]):
        name, us = l.split()
        n[name] = n.get(name, 0) + 1
        tot[name] = tot.get(name, 0) + int(us)
    rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[3])]
    names = [h[:-len(" count")] for h in rows[0][0::2]]
    cnt = {k: 0 for k in names}
    ms = {k: 0 for k in names}
    for r in rows[1:]:
        for i, k in enumerate(names):
            cnt[k] += int(r[2 * i])
            ms[k] += int(r[2 * i + 1])
    avg = None
    for l in open(sys.argv[2]):
        if l.rstrip().endswith("ms/cmd avg"):
            avg = [int(x) for x in l.split()[:-2]]
    if avg is None or len(avg) != len(names):
        problems.append("no ms/cmd line of %d columns: %s" % (len(names), avg))
        avg = [0] * len(names)
    if sum(n.values()) < 1000:
        problems.append("only %d samples logged" % sum(n.values()))
    for i, k in enumerate(names):
        want = int(tot.get(k, 0) / (n[k] * 1000) + 0.5) if n.get(k) else 0
        if avg[i] != want:
            problems.append("%s: ms/cmd %d, the mean of the logged samples %d ms" % (k, avg[i], want))
        # a TSV row rounds each second's msecs: within half a ms a row
        if cnt[k] != n.get(k, 0) or abs(ms[k] - tot.get(k, 0) / 1000) > 0.5 * (len(rows) - 1):
            problems.append("%s: TSV counts %d, %d ms; logged %d, %.1f ms" %
                            (k, cnt[k], ms[k], n.get(k, 0), tot.get(k, 0) / 1000))
    if not any(avg):
        problems.append("every ms/cmd column is 0")
else:
    ticks, final, cur = [], None, None
    for l in open(sys.argv[2]):
        w = l.split()
        if not w:
            continue
        if w[0] == "tick":
            cur = {}
            ticks.append(cur)
        elif w[0] == "final":
            cur = final = {}
        elif w[0] == "hist" and cur is not None:
            kv = dict(x.split("=", 1) for x in w[2:])
            b = {}
            for x in kv["b"].split(","):
                i, c = x.split(":")
                b[int(i)] = int(c)
            cur[w[1]] = (int(kv["n"]), int(kv["sum"]), int(kv["min"]), int(kv["max"]), b)
    if final is None or not ticks:
        problems.append("no ticks or no final record")
    else:
        for name, (n, s, mn, mx, b) in final.items():
            parts = [t[name] for t in ticks if name in t]
            sb = {}
            for p in parts:
                for i, c in p[4].items():
                    sb[i] = sb.get(i, 0) + c
            got = (sum(p[0] for p in parts), sum(p[1] for p in parts),
                   min(p[2] for p in parts) if parts else 0,
                   max(p[3] for p in parts) if parts else 0)
            if got != (n, s, mn, mx) or sb != b:
                problems.append("%s: ticks sum to n/sum/min/max %s, final %s%s" %
                                (name, got, (n, s, mn, mx), "" if sb == b else ", buckets differ"))
        extra = set(k for t in ticks for k in t) - set(final)
        if extra:
            problems.append("histograms in ticks, not in the final: %s" % sorted(extra))
        if len(final) < 5:
            problems.append("only %d histograms in the final" % len(final))
if problems:
    sys.exit("%s:\n  %s" % (mode, "\n  ".join(problems)))
print("%s: ok" % mode)
PYEOF
for args in "quiet $TEST_TMP/quiet.out $TEST_TMP/quiet.ref" \
	"warm $TEST_TMP/warm.out" "result $TEST_TMP/result.res" \
	"text $TEST_TMP/text.out $TEST_TMP/text.tsv $TEST_TMP/text.lat"; do
	# shellcheck disable=SC2086
	out=$("$PYTHON" "$TEST_TMP/check.py" $args 2>&1) || fail "$out"
	note "$out"
done
note "ok"
