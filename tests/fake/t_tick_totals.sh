#!/bin/bash
# The per-second ticks add up to the totals (issue 11 item 5), in the text
# output, the JSON ticks and the CSV rows: replies that arrive after the
# last whole second -- the drain, where every LOGOUT is answered -- land in
# one last, partial tick ("(last N s, drain included)" in the text,
# "partial_s" in JSON, the row with the final t in CSV).  fakeimapd answers
# every command 700 ms late, so the drain always has replies.
#   run plain:  - append=100,0 select=0 logout=0 clients=5 secs=2
#   run warm:   the same with --warmup 1, secs=3: ticks marked warmup are
#               the ones the totals leave out, and the rest add up
#   run cut:    replies 1.8 s late, secs=2 --grace 1: the text summary shows
#               the commands left unfinished (issue 11 item 7)
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

work=(- append=100,0 select=0 logout=0 clients=5 user=ticker)
fault_server slow --delay-ms 700
fault_run plain "${work[@]}" secs=2 --csv "$TEST_TMP/plain.csv"
fault_run warm "${work[@]}" secs=3 --warmup 1 --csv "$TEST_TMP/warm.csv"
# Replies 1.8 s late, secs=2, 1 s of grace: logged in at 1.8 s, the
# APPENDs sent then would be answered at 3.6 s, after the grace ends at
# 3 s, so they are cut off, and the text summary says how many (issue 11
# item 7), as the JSON does.
fault_server late --delay-ms 1800
fault_run cut "${work[@]}" secs=2 --grace 1 --csv "$TEST_TMP/cut.csv"
fault_wait

cat >"$TEST_TMP/check.py" <<'PYEOF'
import csv, json, re, sys

name, jpath, cpath, tpath = sys.argv[1:5]
problems = []
objs = [json.loads(l) for l in open(jpath) if l.strip()]
ticks, s = objs[:-1], objs[-1]
if s.get("type") != "summary":
    sys.exit("%s: the last JSON line is not the summary" % name)
partial = [i for i, t in enumerate(ticks) if "partial_s" in t]
if partial != [len(ticks) - 1]:
    problems.append("partial ticks at %r of %d, want only the last" % (partial, len(ticks)))
elif not 0 < ticks[-1]["partial_s"] < 1.5:
    problems.append("partial_s %r" % ticks[-1]["partial_s"])
counted = [t for t in ticks if not t["warmup"]]
for op, c in s["commands"].items():
    for k in ("ok", "no", "bad", "failed"):
        got = sum(t["commands"].get(op, {}).get(k, 0) for t in counted)
        if got != c[k]:
            problems.append("JSON %s.%s: ticks sum to %d, the summary says %d" % (op, k, got, c[k]))
for k, v in s["errors"].items():
    got = sum(t["errors"].get(k, 0) for t in counted)
    if got != v:
        problems.append("JSON errors.%s: ticks %d, summary %d" % (k, got, v))
got = sum(t["messages_appended"] for t in counted)
if got != s["messages_appended"]:
    problems.append("JSON messages_appended: ticks %d, summary %d" % (got, s["messages_appended"]))
if s["messages_appended"] < 1:
    problems.append("nothing appended")

# CSV: a row per JSON tick, the same counts.
rows = list(csv.DictReader(open(cpath, newline="")))
if len(rows) != len(ticks):
    problems.append("CSV has %d rows for %d JSON ticks" % (len(rows), len(ticks)))
else:
    ok_total = sum(c["ok"] for c in s["commands"].values())
    got = sum(int(r["ok_total"]) for r, t in zip(rows, ticks) if not t["warmup"])
    if got != ok_total:
        problems.append("CSV ok_total: rows sum to %d, the summary's ok %d" % (got, ok_total))
    if abs(float(rows[-1]["t"]) - ticks[-1]["t"]) > 0.01:
        problems.append("CSV last t %s vs JSON %r" % (rows[-1]["t"], ticks[-1]["t"]))

# Text: the Logi and Appe columns of the tick lines (warm-up ones left
# out) against the Totals row.
lines = open(tpath).read().splitlines()
tl = lines.index("Totals:")
tick_re = re.compile(r"^ *(\d+) +(\d+) +\d+/ *\d+")
rows_t = [l for l in lines[:tl] if tick_re.match(l)]
if not rows_t or not re.search(r" \(last [0-9.]+ s, drain included\)$", rows_t[-1]):
    problems.append("the last tick line is not marked partial: %r" % (rows_t[-1:],))
if sum(1 for l in rows_t if "drain included" in l) != 1:
    problems.append("more than one partial tick line")
sums = [0, 0]
for l in rows_t:
    if "(warmup)" in l:
        continue
    m = tick_re.match(l)
    sums[0] += int(m.group(1))
    sums[1] += int(m.group(2))
# The Totals row: the first count line after the header rows (it ends
# after the last count, as imaptest's does).
tot_re = re.compile(r"^ *(\d+) +(\d+) *$")
tot = next((tot_re.match(l) for l in lines[tl + 1:] if tot_re.match(l)), None)
if tot is None:
    problems.append("no Totals row")
elif [int(tot.group(1)), int(tot.group(2))] != sums:
    problems.append("text: tick lines sum to Logi %d Appe %d, Totals say %s %s" %
                    (sums[0], sums[1], tot.group(1), tot.group(2)))
if problems:
    sys.exit("%s:\n  %s" % (name, "\n  ".join(problems)))
print("%s: %d ticks (last partial %.2f s), %d messages" %
      (name, len(ticks), ticks[-1].get("partial_s", 0), s["messages_appended"]))
PYEOF

for s in plain warm; do
	fault_note "$s"
	fault_common "$s" "$([ $s = plain ] && echo 2 || echo 3)" 5
	fault_exit "$s" 0
	out=$("${PYTHON:-python3}" "$TEST_TMP/check.py" "$s" "$TEST_TMP/$s.json" \
		"$TEST_TMP/$s.csv" "$TEST_TMP/$s.out" 2>&1) || _fault_bad "$out"
	note "$out"
done
# Every login was in the warm-up second, which the totals leave out.
fault_cmp warm logins -eq 0

fault_note cut
fault_common cut 2 1
fault_exit cut 1
fault_cmp cut unfinished -gt 0
assert_match "^unfinished: $(fault_get cut unfinished) commands still had no reply when the run ended\$" \
	"$(cat "$TEST_TMP/cut.out")" "cut: the text summary shows the unfinished commands"

fault_finish
