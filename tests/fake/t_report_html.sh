#!/bin/bash
# `imapstress report` in a real browser (issue 36): a short default-mix
# run against fakeimapd, its --json drawn into one HTML page, and Debian's
# headless Chromium made to open it from file:
#   - the screenshot is not blank: a share of non-white pixels, and pixels
#     in the first three colours of the page's palette (the lines);
#   - every chart is drawn (the DOM Chromium built: a <figure> per chart,
#     one SVG each, every series a path with data), and the charts are
#     those the run calls for: throughput, the percentile plot, a
#     p50/p95/p99 chart per command of the summary, connections;
#   - no console message (a script error, a CSP violation);
#   - no request leaves the page: every host resolves to nothing
#     (--host-resolver-rules), and the net log has no request on the
#     page's behalf other than file: (the browser's own update checks
#     carry their own sites' keys and are not the page's);
#   - the same checks find what they look for on a control page that has
#     a remote stylesheet, image and a console.error, so a check that
#     stopped seeing (a new net-log layout) fails here instead of passing;
#   - the page from the run's result file (merged through merge) draws the
#     same charts;
#   - size: under 2 MB for a 10-minute run's JSON (600 ticks, made by
#     repeating this run's ticks with t moved on);
#   - bad input: not JSON, a truncated file, an unknown file, a result file
#     cut short, a bad capacity directory, result files merge or compare
#     refuses: one line naming the file and line, exit 2, no page.
# PNGs are kept in $REPORT_SHOTS when set (for a person to look at).
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
# scripts/deps installs chromium; skip only where it could not have.
[ -n "$CHROMIUM" ] || skip "no chromium (scripts/deps installs Debian's chromium)"
CHECK="$PYTHON $ROOT/tests/fake/report_page.py"
T=$TEST_TMP

fault_server plain
fault_run run clients=5 secs=3 --result "$T/run.res"
fault_wait
fault_common run 3 0
fault_exit run 0

# browse NAME HTML: screenshot (NAME.png), DOM (NAME.dom), net log and
# console (NAME.netlog, NAME.console), each from its own fresh profile.
browse() {
	local name=$1 page=$2
	local common=(--headless --no-sandbox --disable-gpu --hide-scrollbars
		--no-first-run --disable-background-networking --disable-sync
		--disable-component-update --disable-default-apps --disable-extensions
		"--host-resolver-rules=MAP * ~NOTFOUND")
	run_with_timeout 120 "$CHROMIUM" "${common[@]}" --user-data-dir="$T/$name.p1" \
		--window-size=900,1400 --screenshot="$T/$name.png" "file://$page" \
		>"$T/$name.shot.out" 2>&1 || fail "$name: chromium --screenshot: $(tail -n 3 "$T/$name.shot.out")"
	run_with_timeout 120 "$CHROMIUM" "${common[@]}" --user-data-dir="$T/$name.p2" \
		--enable-logging=stderr --v=0 --log-net-log="$T/$name.netlog" \
		--virtual-time-budget=3000 --dump-dom "file://$page" \
		>"$T/$name.dom" 2>"$T/$name.stderr" || fail "$name: chromium --dump-dom: $(tail -n 3 "$T/$name.stderr")"
	# Chromium logs each console message as INFO:CONSOLE.
	grep -E ':CONSOLE' "$T/$name.stderr" >"$T/$name.console" || true
	if [ -n "${REPORT_SHOTS:-}" ]; then
		mkdir -p "$REPORT_SHOTS"
		cp "$T/$name.png" "$REPORT_SHOTS/$name.png"
	fi
}

# The control page: the checks below must see its faults.
cat >"$T/control.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="http://fonts.example.com/x.css"></head>
<body><img src="https://example.org/a.png"><script>console.error("control")</script>
<figure data-chart="c" data-kind="line"><svg class="plot"><path data-series="s" d=""/></svg></figure>
</body></html>
HTML
browse control "$T/control.html"
ctl_urls=$($CHECK netlog "$T/control.netlog")
assert_match '^https://example\.org/a\.png$' "$ctl_urls" "control page: the net-log check sees its image request"
assert_match 'control' "$(cat "$T/control.console")" "control page: the console check sees its console.error"
assert_eq "c line 1 1 0" "$($CHECK charts "$T/control.dom")" "control page: an empty path is not drawn"

# charts_ok NAME: the DOM's charts, each drawn; echo the chart ids.
charts_ok() {
	local name=$1 line id kind svg series drawn
	$CHECK charts "$T/$name.dom" >"$T/$name.charts"
	while read -r id kind svg series drawn; do
		[ "$svg" = 1 ] || fail "$name: chart $id has $svg SVG elements, want 1"
		[ "$series" -ge 1 ] || fail "$name: chart $id has no series"
		[ "$drawn" = "$series" ] || fail "$name: chart $id: $drawn of $series series drawn"
	done <"$T/$name.charts"
}

"$IMAPSTRESS" report -o "$T/run.html" "$T/run.json" 2>"$T/report.err" ||
	fail "report exited $?: $(cat "$T/report.err")"
assert_match '^imapstress report: wrote .*run\.html \([0-9]+ bytes\)$' "$(cat "$T/report.err")" "report says what it wrote"
browse run "$T/run.html"
charts_ok run
want="throughput distribution connections client-cpu client-lag"
for c in $("$PYTHON" -c 'import json,sys; print(" ".join(json.loads(open(sys.argv[1]).read().splitlines()[-1])["commands"]))' "$T/run.json"); do
	want="$want latency-$c"
done
for c in $want; do
	grep -q "^$c " "$T/run.charts" || fail "run: no chart $c (have: $(cut -d' ' -f1 "$T/run.charts" | paste -sd' '))"
done
note "run: $(wc -l <"$T/run.charts") charts, $(wc -c <"$T/run.html") bytes"
[ ! -s "$T/run.console" ] || fail "run: console messages: $(head -n 3 "$T/run.console")"
urls=$($CHECK netlog "$T/run.netlog")
[ -z "$urls" ] || fail "run: the page asked for $urls"
read -r w h nonwhite p0 p1 p2 <<<"$($CHECK png "$T/run.png")"
note "run.png: ${w}x$h, $nonwhite non-white pixels, palette $p0 $p1 $p2"
assert_ge "$nonwhite" $((w * h / 50)) "run.png: non-white pixels (2% at least)"
for p in "$p0" "$p1" "$p2"; do
	assert_ge "$p" 20 "run.png: pixels of each of the first three palette colours"
done

# The result file's page: the same charts, and the command line.
"$IMAPSTRESS" report -o "$T/res.html" "$T/run.res" 2>"$T/res.err" ||
	fail "report of the result file exited $?: $(cat "$T/res.err")"
browse res "$T/res.html"
charts_ok res
assert_eq "$(cut -d' ' -f1 "$T/run.charts")" "$(cut -d' ' -f1 "$T/res.charts")" "result file: the same charts as the JSON's"
grep -q 'data-key="settings (command line)"' "$T/res.html" || fail "result file: no command line on the page"

# A 10-minute run: 600 ticks.
"$PYTHON" - "$T/run.json" "$T/long.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
ticks = [json.loads(l) for l in lines[:-1] if '"partial_s"' not in l]
with open(sys.argv[2], "w") as f:
    for i in range(600):
        t = dict(ticks[i % len(ticks)])
        t["t"] = i + 1.0
        f.write(json.dumps(t, separators=(",", ":")) + "\n")
    f.write(lines[-1] + "\n")
PY
"$IMAPSTRESS" report -o "$T/long.html" "$T/long.json" 2>/dev/null || fail "report of 600 ticks exited $?"
size=$(wc -c <"$T/long.html")
note "a 10-minute run's page: $size bytes"
[ "$size" -lt 2000000 ] || fail "a 10-minute run's page is $size bytes, over 2 MB"

# Bad input: one line naming the file (and line), exit 2, nothing written.
bad2() {	# WHY ERE ARGS...
	local why=$1 ere=$2 rc=0
	shift 2
	"$IMAPSTRESS" report -o "$T/bad.html" "$@" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	assert_eq 2 "$rc" "$why: exit status"
	assert_eq 1 "$(wc -l <"$T/bad.err")" "$why: one line on stderr ($(cat "$T/bad.err"))"
	assert_match "$ere" "$(cat "$T/bad.err")" "$why: the message"
	[ ! -e "$T/bad.html" ] || fail "$why: a page was written"
}
bad() {	# WHY FILE ERE
	bad2 "$1" "$3" "$2"
}
printf 'hello\n' >"$T/hello.txt"
bad "unknown file" "$T/hello.txt" "^imapstress report: $T/hello\.txt:1: not an input of report"
head -n 2 "$T/run.json" >"$T/notjson.json"
printf '{"type":"tick","t":3,' >>"$T/notjson.json"
printf '\n' >>"$T/notjson.json"
bad "not JSON" "$T/notjson.json" "^imapstress report: $T/notjson\.json:3: not JSON: column [0-9]+: "
head -c 500 "$T/run.json" >"$T/cut.json"
bad "truncated" "$T/cut.json" "^imapstress report: $T/cut\.json:1: truncated"
head -c 300 "$T/run.res" >"$T/cut.res"
bad "truncated result file" "$T/cut.res" "^imapstress report: $T/cut\.res:[0-9]+: truncated"
printf '{"type":"tick","t":1}\n{"type":"gauge"}\n' >"$T/kind.json"
bad "a line of another kind" "$T/kind.json" "^imapstress report: $T/kind\.json:2: not a line of imapstress --json"
bad "no such file" "$T/nonesuch.json" "^imapstress report: $T/nonesuch\.json: No such file"
mkdir -p "$T/capdir" "$T/nocap"
printf 'step,users,held\n1,x,1\n' >"$T/capdir/capacity.csv"
bad "capacity.csv with a bad field" "$T/capdir" "^imapstress report: $T/capdir/capacity\.csv:2: column 2 \(users\): not a number"
bad "a directory capacity did not write" "$T/nocap" "^imapstress report: $T/nocap/capacity\.csv: No such file or directory"
# merge's and compare's refusals come as report's one line.
bad2 "a shard twice" "^imapstress report: shard 0/1 given twice: " "$T/run.res" "$T/run.res"
bad2 "compare of a JSON file" "^imapstress report: $T/run\.json:1: not an imapstress result file" \
	"$T/run.res" -- "$T/run.json"
fault_finish
