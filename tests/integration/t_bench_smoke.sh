#!/bin/bash
# Smoke test of scripts/bench-client, so that it cannot rot: `--quick`
# (1-second runs of NOOP and APPEND 4KB against fakeimapd on 127.0.0.1,
# pipelined and not, with the bench-floor column; no Dovecot) must exit 0,
# print its table with a numeric value in every measured column of the
# four expected rows, and write the same rows to cpu.csv.  The figures
# themselves are not judged: the machine is shared, and these are
# benchmarks, not timed tests.  A bad option must exit 2 with a message.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd /usr/bin/python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd binary at $FAKEIMAPD (run make build/fakeimapd)"
BENCH=$ROOT/scripts/bench-client

# --- usage errors ----------------------------------------------------------
rc=0
err=$("$BENCH" --only nosuch 2>&1 >/dev/null) || rc=$?
assert_eq 2 "$rc" "--only nosuch: exit status"
assert_match "unknown section 'nosuch'" "$err" "--only nosuch: message"
rc=0
err=$("$BENCH" --quick --full 2>&1 >/dev/null) || rc=$?
assert_eq 2 "$rc" "--quick --full: exit status"
assert_match "exclude each other" "$err" "--quick --full: message"

# --- a quick run -------------------------------------------------------------
out=$TEST_TMP/bench
rc=0
run_with_timeout 120 "$BENCH" --quick --out "$out" >"$TEST_TMP/stdout" 2>"$TEST_TMP/stderr" || rc=$?
[ "$rc" = 0 ] || fail "bench-client --quick exited $rc: $(tail -n 20 "$TEST_TMP/stderr")"
table=$(cat "$TEST_TMP/stdout")
note "$table"
assert_match '^Client CPU per command vs fakeimapd' "$table" "table title"
assert_match '^workload +inflight +cmds/s med +us/cmd best' "$table" "table header"

# Every expected row: name, in-flight depth, then cmds/s, us/cmd best and
# median, whole-run and user us/cmd, floor best, median and user, ratio,
# RSS: all numbers; and no errors in the last column.
num='[0-9]+(\.[0-9]+)?'
for row in "NOOP +10" "NOOP +1" "APPEND 4KB +10" "APPEND 4KB +1"; do
	assert_match "^$row( +$num){10} +0\$" "$table" "table row '$row'"
done

csv=$out/cpu.csv
[ -s "$csv" ] || fail "no $csv"
rows=$(tail -n +2 "$csv" | grep -Ec "^(NOOP|APPEND 4KB),(10|1),$num(,$num){9},0\$" || true)
assert_eq 4 "$rows" "numeric rows in cpu.csv"

# The runs really happened: each JSON summary counted commands.
n=0
for j in "$out"/runs/*.json; do
	ok=$(tail -n 1 "$j" | /usr/bin/python3 -c '
import json, sys
s = json.loads(sys.stdin.read())
print(sum(c["ok"] for k, c in s["commands"].items() if k in ("NOOP", "APPEND")))')
	assert_ge "$ok" 1 "NOOP/APPEND replies in $j"
	n=$((n + 1))
done
assert_eq 4 "$n" "imapstress runs"
grep -q 'bench-floor' "$out/commands.txt" || fail "the floor was not run"

# --vs-imaptest without an imaptest binary: the section is skipped with a
# message naming the path, exit 0, nothing else depends on imaptest.
rc=0
"$BENCH" --only imaptest --vs-imaptest "$TEST_TMP/no-imaptest" --out "$TEST_TMP/vs" \
	>"$TEST_TMP/vs.out" 2>"$TEST_TMP/vs.err" || rc=$?
assert_eq 0 "$rc" "exit status of --vs-imaptest with no binary"
assert_match "no imaptest binary \($TEST_TMP/no-imaptest\).*skipped" \
	"$(cat "$TEST_TMP/vs.err")" "the skip message"
note "ok"
