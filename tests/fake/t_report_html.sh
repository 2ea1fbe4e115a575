#!/bin/bash
# `imapstress report` in a real browser (issue 36): pages for the four
# kinds of input, each opened from file: by Debian's headless Chromium:
#   - a default-mix run against fakeimapd (its --json), and the same run's
#     result file (merged through merge) making the same charts (its HTML
#     read, not browsed);
#   - a LoadSim profile run (profiles/loadsim-online.conf, its day
#     compressed to a minute, 20 users) against fakeimapd's mail store
#     (IMAP and LMTP): the actions, push and delivery charts;
#   - a capacity directory from a short real scripts/capacity run (one run
#     a count, 1 and 2 users): the answer at the top (from
#     capacity-answer.json), the score-against-users chart with the limit
#     drawn across and the capacity's interval shaded, each step's
#     p50..p99 interval drawn, the share held per count with its bars;
#     and the same directory without the answer file still drawn, saying
#     so;
#   - a compare of the run against a second one: a row per figure, each
#     with its point and interval drawn;
#   - profile mode's POP3 users against tests/fake/fake_pop3.py: the POP3
#     section's charts (sessions and messages, +OK per command, the
#     latency distribution, p50/p95/p99 over time of each command sent,
#     RETR and DELE among them) and its tables; the default-mix run's
#     page has no POP3 section.
# On each page:
#   - every chart is drawn (the DOM Chromium built: a <figure> per chart,
#     one SVG each, every series a path with data, every interval row its
#     point), and the charts are those the input calls for;
#   - no console message (a script error, a CSP violation);
#   - no request leaves the page: every host resolves to nothing
#     (--host-resolver-rules), and the net log has no request on the
#     page's behalf other than file: (the browser's own update checks
#     carry their own sites' keys and are not the page's);
#   - the screenshot is not blank: a share of non-white pixels; on the
#     run page pixels in the first three colours of the palette (lines);
#   - the same checks find what they look for on a control page that has
#     a remote stylesheet, image and a console.error, so a check that
#     stopped seeing (a new net-log layout) fails here instead of passing;
#   - size: under 2 MB for a 10-minute run's JSON (600 ticks, made by
#     repeating this run's ticks with t moved on);
#   - bad input: not JSON, a truncated file, an unknown file, a result file
#     cut short, a bad capacity directory or answer file, result files
#     merge or compare refuses: one line naming the file and line, exit 2,
#     no page.
# One Chromium start per page takes the screenshot, the DOM and the net
# log together.  PNGs are kept in $REPORT_SHOTS when set (for a person to
# look at).
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"
# shellcheck source=SCRIPTDIR/pop3_lib.sh disable=SC1091
. "$(dirname "$0")/pop3_lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
# scripts/deps installs chromium; skip only where it could not have.
[ -n "$CHROMIUM" ] || skip "no chromium (scripts/deps installs Debian's chromium)"
CHECK="$PYTHON $ROOT/tests/fake/report_page.py"
T=$TEST_TMP

# The runs at once: a default-mix run and a second for the compare
# against one server, the LoadSim profile against a mail store.
fault_server_start plain
fault_server_start store --lmtp-port-file "$T/lmtp"
fault_servers_ready
fault_port plain
fault_run run clients=5 secs=3 --result "$T/run.res"
fault_run run2 clients=5 secs=3 --result "$T/run2.res"
for _ in $(seq 100); do
	[ -s "$T/lmtp" ] && break
	sleep 0.05
done
[ -s "$T/lmtp" ] || fail "the mail-store fakeimapd wrote no LMTP port"
sed -e "s/^lmtp_port = .*/lmtp_port = $(cat "$T/lmtp")/" \
	-e 's/^day_compressed_to = .*/day_compressed_to = 1 min/' \
	"$ROOT/profiles/loadsim-online.conf" >"$T/online.conf"
fault_port store
fault_run profile --profile "$T/online.conf" --profile-users 20 secs=4
fault_wait
for r in run run2; do
	fault_common $r 3 0
	fault_exit $r 0
done
# A profile run's end waits for the push of its last deliveries first
# (--push-settle, 5 s by default), then drains: secs + settle + grace.
fault_common profile 4 5
fault_exit profile 0

# browse NAME HTML: one Chromium, from a fresh profile: the screenshot
# (NAME.png), the DOM (NAME.dom), the net log and the console
# (NAME.netlog, NAME.console).
browse() {
	local name=$1 page=$2
	run_with_timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --no-first-run --disable-background-networking \
		--disable-sync --disable-component-update --disable-default-apps \
		--disable-extensions "--host-resolver-rules=MAP * ~NOTFOUND" \
		--user-data-dir="$T/$name.prof" --window-size=900,1400 \
		--enable-logging=stderr --v=0 --log-net-log="$T/$name.netlog" \
		--virtual-time-budget=3000 --screenshot="$T/$name.png" \
		--dump-dom "file://$page" >"$T/$name.dom" 2>"$T/$name.stderr" ||
		fail "$name: chromium: $(tail -n 3 "$T/$name.stderr")"
	[ -s "$T/$name.png" ] || fail "$name: chromium wrote no screenshot"
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

# drawn_ok NAME FILE: FILE's charts (NAME.charts), each drawn.
drawn_ok() {
	local name=$1 id kind svg series drawn
	$CHECK charts "$2" >"$T/$name.charts"
	[ -s "$T/$name.charts" ] || fail "$name: no chart on the page"
	while read -r id kind svg series drawn; do
		[ "$svg" = 1 ] || fail "$name: chart $id has $svg SVG elements, want 1"
		[ "$series" -ge 1 ] || fail "$name: chart $id has no series"
		[ "$drawn" = "$series" ] || fail "$name: chart $id: $drawn of $series series drawn"
	done <"$T/$name.charts"
}

# charts_ok NAME: the DOM's charts, each drawn (NAME.charts); the page
# quiet, asking for nothing, and not blank.
charts_ok() {
	local name=$1 urls w h nonwhite
	drawn_ok "$name" "$T/$name.dom"
	[ ! -s "$T/$name.console" ] || fail "$name: console messages: $(head -n 3 "$T/$name.console")"
	urls=$($CHECK netlog "$T/$name.netlog")
	[ -z "$urls" ] || fail "$name: the page asked for $urls"
	read -r w h nonwhite _ <<<"$($CHECK png "$T/$name.png")"
	assert_ge "$nonwhite" $((w * h / 50)) "$name.png: non-white pixels (2% at least)"
}

# has_charts NAME ID...: those charts are among NAME's.
has_charts() {
	local name=$1 c
	shift
	for c; do
		grep -q "^$c " "$T/$name.charts" ||
			fail "$name: no chart $c (have: $(cut -d' ' -f1 "$T/$name.charts" | paste -sd' '))"
	done
}

# page NAME INPUT...: report, browse, check; say its size.
page() {
	local name=$1
	shift
	"$IMAPSTRESS" report -o "$T/$name.html" "$@" 2>"$T/$name.report.err" ||
		fail "report of $name exited $?: $(cat "$T/$name.report.err")"
	browse "$name" "$T/$name.html"
	charts_ok "$name"
	note "$name: $(wc -l <"$T/$name.charts") charts, $(wc -c <"$T/$name.html") bytes"
}

commands_of() {	# JSON: the summary's commands
	"$PYTHON" -c 'import json,sys; print(" ".join(json.loads(open(sys.argv[1]).read().splitlines()[-1])["commands"]))' "$1"
}

# The default-mix run.
page run "$T/run.json"
assert_match '^imapstress report: wrote .*run\.html \([0-9]+ bytes\)$' "$(cat "$T/run.report.err")" "report says what it wrote"
want="throughput distribution connections client-cpu client-lag"
for c in $(commands_of "$T/run.json"); do
	want="$want latency-$c"
done
# shellcheck disable=SC2086 # the chart ids, one word each
has_charts run $want
read -r w h nonwhite p0 p1 p2 <<<"$($CHECK png "$T/run.png")"
note "run.png: ${w}x$h, $nonwhite non-white pixels, palette $p0 $p1 $p2"
for p in "$p0" "$p1" "$p2"; do
	assert_ge "$p" 20 "run.png: pixels of each of the first three palette colours"
done

# The result file's page: the same charts, and the command line (the
# HTML read, not browsed: the run's page was).
"$IMAPSTRESS" report -o "$T/res.html" "$T/run.res" 2>"$T/res.report.err" ||
	fail "report of the result file exited $?: $(cat "$T/res.report.err")"
drawn_ok res "$T/res.html"
assert_eq "$(cut -d' ' -f1 "$T/run.charts")" "$(cut -d' ' -f1 "$T/res.charts")" "result file: the same charts as the JSON's"
grep -q 'data-key="settings (command line)"' "$T/res.html" || fail "result file: no command line on the page"

# The LoadSim profile run: its actions, push (IDLE) and deliveries too.
page profile "$T/profile.json"
has_charts profile throughput distribution connections actions \
	actions-distribution actions-p95 push-distribution deliveries

# POP3 users: their own section, charts and tables.
pop3_fake_run "$T/p3" 3
page pop3 "$T/p3/json"
want="pop3-sessions pop3-throughput pop3-distribution"
for c in $("$PYTHON" -c 'import json,sys; print(" ".join(json.loads(open(sys.argv[1]).read().splitlines()[-1])["profile"]["pop3"]["commands"]))' "$T/p3/json"); do
	want="$want pop3-$c"
done
for c in pop3-retr pop3-dele; do
	case " $want " in *" $c "*) ;; *) fail "pop3: no $c in the run: $want" ;; esac
done
# shellcheck disable=SC2086 # the chart ids, one word each
has_charts pop3 $want
for t in pop3-totals pop3-commands; do
	grep -q "data-table=\"$t\"" "$T/pop3.dom" || fail "pop3: no table $t"
done
if grep -q 'pop3' "$T/run.charts" || grep -q 'data-table="pop3' "$T/run.html"; then
	fail "the default-mix run's page has a POP3 section"
fi

# A capacity directory from a real scripts/capacity run: one run a count
# (--repeats 1), 1 and 2 users; whatever it answers, the page shows it.
rc=0
IMAPSTRESS="$IMAPSTRESS" run_with_timeout 120 "$ROOT/scripts/capacity" \
	--max-p95 FETCH=1000 --start 1 --max 2 --secs 2 --repeats 1 \
	--out "$T/cap" -- port="$FAULT_PORT" >"$T/cap.out" 2>&1 || rc=$?
[ "$rc" -le 1 ] || [ "$rc" = 3 ] || fail "scripts/capacity exited $rc: $(tail -n 3 "$T/cap.out")"
[ -s "$T/cap/capacity-answer.json" ] || fail "scripts/capacity wrote no capacity-answer.json"
page capacity "$T/cap"
has_charts capacity capacity-score capacity-p95 capacity-steps capacity-fit
ans=$($CHECK answer "$T/capacity.dom")
note "capacity: $ans"
assert_match '^[a-z]+ [0-9-]+ [0-9-]+ [0-9-]+ [0-9]+ [01] [0-9.e+-]+ 1000 (Holds|Could not|Stopped) ' "$ans" "capacity: the answer at the top"
$CHECK marks "$T/capacity.dom" >"$T/capacity.marks"
# The limit across the FETCH p95 chart; the interval shaded when there is
# one (its lower end a number); the steps' and the counts' bars drawn.
read -r id limit band_lo _ <<<"$(grep '^capacity-score ' "$T/capacity.marks")"
assert_eq "capacity-score 1000" "$id $limit" "capacity: the limit line on the p95 chart"
read -r _ _ lo _ <<<"$ans"
[ "$lo" = - ] || [ "$band_lo" != - ] || fail "capacity: the interval $lo.. is not shaded"
while read -r id _ _ _ bars; do
	case $id in capacity-steps|capacity-fit)
		[ "${bars%/*}" = "${bars#*/}" ] && [ "${bars%/*}" -ge 1 ] ||
			fail "capacity: $id: $bars intervals drawn" ;;
	esac
done <"$T/capacity.marks"
grep -q '^capacity-fit ' "$T/capacity.marks" || fail "capacity: no bars on the share chart"
# Without the answer file (an older script's directory): still drawn,
# saying there is none.
cp -r "$T/cap" "$T/cap-old"
rm "$T/cap-old/capacity-answer.json"
# (Its charts are the page's above: the HTML is read, not browsed.)
"$IMAPSTRESS" report -o "$T/capacity-old.html" "$T/cap-old" 2>"$T/capacity-old.err" ||
	fail "report of a directory without capacity-answer.json exited $?: $(cat "$T/capacity-old.err")"
assert_eq none "$($CHECK answer "$T/capacity-old.html")" "capacity without the answer file: no answer"
grep -q 'data-answer="none">No answer file' "$T/capacity-old.html" || fail "capacity without the answer file: the page does not say so"
# No answer, no limit: the FETCH p95 of this search is among the other
# charts, and there is no score to draw against users.
drawn_ok capacity-old "$T/capacity-old.html"
has_charts capacity-old capacity-p95 capacity-steps capacity-fit

# The compare of the run against the second: a row per figure, drawn.
page compare "$T/run.res" -- "$T/run2.res"
has_charts compare ratios
# It names the files compared, not the temporary file compare wrote.
grep -q "data-key=\"input\">$T/run\.res -- $T/run2\.res<" "$T/compare.dom" ||
	fail "compare: the page does not name its inputs: $(grep -o 'data-key="input">[^<]*' "$T/compare.dom")"
rows=$(grep '^ratios ' "$T/compare.charts" | cut -d' ' -f4)
assert_ge "$rows" "$(($(commands_of "$T/run.json" | wc -w) * 4))" "compare: rows (rate, p50, p95, p99 per command)"

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
mkdir -p "$T/capdir" "$T/nocap" "$T/badans"
cp "$T/cap/capacity.csv" "$T/badans/"
printf '{"type":"capacity-answer"}\n' >"$T/badans/capacity-answer.json"
bad "an answer file without a verdict" "$T/badans" "^imapstress report: $T/badans/capacity-answer\.json: not scripts/capacity's answer"
printf '{"type":\n' >"$T/badans/capacity-answer.json"
bad "an answer file that is not JSON" "$T/badans" "^imapstress report: $T/badans/capacity-answer\.json: not JSON: column [0-9]+"
printf 'step,users,held\n1,x,1\n' >"$T/capdir/capacity.csv"
bad "capacity.csv with a bad field" "$T/capdir" "^imapstress report: $T/capdir/capacity\.csv:2: column 2 \(users\): not a number"
bad "a directory capacity did not write" "$T/nocap" "^imapstress report: $T/nocap/capacity\.csv: No such file or directory"
# merge's and compare's refusals come as report's one line.
bad2 "a shard twice" "^imapstress report: shard 0/1 given twice: " "$T/run.res" "$T/run.res"
bad2 "compare of a JSON file" "^imapstress report: $T/run\.json:1: not an imapstress result file" \
	"$T/run.res" -- "$T/run.json"
fault_finish
