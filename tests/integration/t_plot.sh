#!/bin/bash
# scripts/plot draws a --json run to a PNG with gnuplot: a run with errors
# and a warm-up gives a 1500x1500 PNG; a file without per-second lines is
# refused with a message naming it (exit 1); a missing file or a bad option
# is a usage error (exit 2).  The picture itself is checked by eye (the
# issue 20 note shows one); here only what a script can check.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd gnuplot "${PYTHON:-python3}"
PLOT=$ROOT/scripts/plot

# 20 seconds of two commands, errors from t=12, warm-up 3 s.
"$PYTHON" - "$TEST_TMP/run.jsonl" <<'PYEOF'
import json, sys
with open(sys.argv[1], "w") as f:
    for s in range(1, 21):
        cmd = lambda ok, p50: {"ok": ok, "no": 0, "bad": 0, "failed": 0,
                               "p50_us": p50, "p95_us": p50 * 3, "p99_us": p50 * 5, "max_us": p50 * 9}
        errs = {"no": 0, "bad": 0, "bye": 0, "disconnect": 2 if s >= 12 else 0, "timeout": 0}
        f.write(json.dumps({"type": "tick", "t": s + 0.002, "warmup": s <= 3,
                            "conns_open": 10 - (s >= 12), "conns_total": 10, "stalled": 0,
                            "commands": {"APPEND": cmd(100 + s, 2000), "FETCH": cmd(300, 800 + 10 * s)},
                            "errors": errs}) + "\n")
    f.write(json.dumps({"type": "summary", "measured_from_s": 3}) + "\n")
PYEOF

out=$("$PLOT" "$TEST_TMP/run.jsonl" 2>&1) || fail "plot failed: $out"
assert_eq "$TEST_TMP/run.png" "$out" "plot prints the PNG it wrote"
size=$("$PYTHON" -c '
import struct, sys
b = open(sys.argv[1], "rb").read(24)
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
print("%dx%d" % struct.unpack(">II", b[16:24]))' "$TEST_TMP/run.png")
assert_eq 1500x1500 "$size" "PNG size"

"$PLOT" -a -o "$TEST_TMP/all.png" "$TEST_TMP/run.jsonl" >/dev/null || fail "plot -a -o failed"
[ -s "$TEST_TMP/all.png" ] || fail "plot -o wrote no file"

echo '{"type":"summary"}' >"$TEST_TMP/empty.jsonl"
rc=0
msg=$("$PLOT" "$TEST_TMP/empty.jsonl" 2>&1) || rc=$?
assert_eq 1 "$rc" "exit status for a file without ticks"
assert_match 'empty\.jsonl has 0 per-second lines' "$msg" "message names the file"

rc=0
"$PLOT" "$TEST_TMP/nonexistent.jsonl" 2>/dev/null || rc=$?
assert_eq 2 "$rc" "exit status for a missing file"
rc=0
"$PLOT" --bogus "$TEST_TMP/run.jsonl" 2>/dev/null || rc=$?
assert_eq 2 "$rc" "exit status for a bad option"
echo "PASS: $TEST_NAME"
