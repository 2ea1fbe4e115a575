#!/bin/bash
# The text output of the imaptest seed line has imaptest's layout, so that
# it reads like the numbers in the mailing-list reports: the header block
# (names / probabilities / repeat row), one count line per second, the
# final ms/cmd line, a blank line, "Totals:", the header again and the
# totals row, whose counts agree with the per-second lines and with the
# JSON summary.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" awk sed "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

dovecot_start --fsync no

out=$TEST_TMP/out
json=$TEST_TMP/run.json
rc=0
# $USER pinned: the seed line leaves user= at its default.
USER=layout run_with_timeout 60 "$IMAPSTRESS" port="$DOVECOT_PORT" \
	- append=100 seed=1 secs=3 msgs=1000000 logout=0 select=0 clients=30 \
	--json "$json" >"$out" 2>"$TEST_TMP/err" || rc=$?
[ "$rc" = 0 ] || fail "seed line exited $rc; stderr: $(head -n 20 "$TEST_TMP/err")"

# The header block, trailing spaces included: each short name and each
# percentage is followed by one space, and the repeat row has 5 spaces
# where a state has no repeat chance (LOGIN) and "%3d%% " where it has.
assert_eq "Logi Appe " "$(sed -n 1p "$out")" "header line 1"
assert_eq "100% 100% " "$(sed -n 2p "$out")" "header line 2"
assert_eq "       5% " "$(sed -n 3p "$out")" "header line 3"

TICK_RE='^ *[0-9]+ +[0-9]+ +[0-9]+/ *[0-9]+'
assert_match "$TICK_RE" "$(sed -n 4p "$out")" "line 4 is the first per-second line"

ntotals=$(grep -c '^Totals:$' "$out" || true)
assert_eq 1 "$ntotals" "number of 'Totals:' lines"
tl=$(grep -n '^Totals:$' "$out" | cut -d: -f1)

# Before "Totals:" only per-second lines, the header again (every 10 ticks),
# ms/cmd lines, stall lines and the blank line are allowed.
bad=$(awk -v end="$tl" -v re="$TICK_RE" '
	NR < 4 || NR >= end { next }
	$0 ~ re || $0 ~ / ms\/cmd avg$/ || $0 == "" || /^ - / { next }
	($0 == "Logi Appe " || $0 == "100% 100% " || $0 == "       5% ") { next }
	{ print NR ": " $0 }' "$out")
[ -z "$bad" ] || fail "unexpected lines before Totals:
$bad"

# imaptest ends with: the final ms/cmd line, a blank line, "Totals:".
assert_match ' ms/cmd avg$' "$(sed -n "$((tl - 2))p" "$out")" "final ms/cmd line before Totals"
assert_eq "" "$(sed -n "$((tl - 1))p" "$out")" "blank line before Totals"

ticks=$(awk -v end="$tl" -v re="$TICK_RE" 'NR >= 4 && NR < end && $0 ~ re' "$out" | wc -l)
# secs=3: at least the ticks at 1 s and 2 s come before the stop.
assert_ge "$ticks" 2 "per-second lines"
tick_logi=$(awk -v end="$tl" -v re="$TICK_RE" 'NR >= 4 && NR < end && $0 ~ re { s += $1 } END { print s + 0 }' "$out")
tick_appe=$(awk -v end="$tl" -v re="$TICK_RE" 'NR >= 4 && NR < end && $0 ~ re { s += $2 } END { print s + 0 }' "$out")

assert_eq "Logi Appe " "$(sed -n "$((tl + 1))p" "$out")" "Totals header line 1"
assert_eq "100% 100% " "$(sed -n "$((tl + 2))p" "$out")" "Totals header line 2"
assert_eq "       5% " "$(sed -n "$((tl + 3))p" "$out")" "Totals header line 3"
row=$(sed -n "$((tl + 4))p" "$out")
# imaptest's Totals row ends after the last count: no connection count.
assert_match '^ *[0-9]+ +[0-9]+ $' "$row" "totals row"
tot_logi=$(printf '%s\n' "$row" | awk '{ print $1 }')
tot_appe=$(printf '%s\n' "$row" | awk '{ print $2 }')
note "per-second lines: $ticks, Appe sum $tick_appe, Totals Appe $tot_appe, Logi $tot_logi"

# Commands that complete during the drain are in the last, partial line:
# the lines add up to the totals.
assert_eq "$tot_appe" "$tick_appe" "Totals Appe vs the sum of the per-second Appe counts"
assert_eq "$tot_logi" "$tick_logi" "Totals Logi vs the sum of the per-second Logi counts"
assert_ge "$tot_appe" 1 "Totals Appe"

vals=$("$PYTHON" - "$json" <<'EOF'
import json, sys
s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
if s.get("type") != "summary":
    sys.exit("the last JSON line is not the summary")
c = s["commands"]
print(c["APPEND"]["ok"], c["LOGIN"]["ok"])
EOF
) || fail "cannot read the JSON summary in $json"
read -r json_appe json_logi <<<"$vals"
assert_eq "$json_appe" "$tot_appe" "Totals Appe vs JSON APPEND ok"
assert_eq "$json_logi" "$tot_logi" "Totals Logi vs JSON LOGIN ok"
# Every client logged in once (no server faults, logout=0).
assert_eq 30 "$tot_logi" "Totals Logi with clients=30"

note "ok"
