#!/bin/bash
# Smoke test of scripts/sweep and scripts/seed-bench against private
# Dovecots on 127.0.0.1:
#   - sweep refuses non-loopback targets and the arguments it owns, before
#     it runs anything;
#   - sweep --clients "2 5" --secs 2 writes a CSV with the documented header
#     and two sane rows, and a PNG when gnuplot is installed;
#   - seed-bench --secs 2 --only maildir-yes --clients 10 prints one row
#     whose "server == reported" column says yes, and the same in its CSV.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
SWEEP=$ROOT/scripts/sweep
SEED_BENCH=$ROOT/scripts/seed-bench

# --- refusals: exit 2 with a message naming the argument -----------------
# Nothing may be sent: port 9 on a non-loopback address would only be
# reached if the check failed, and IMAPSTRESS=/bin/false makes sure no run
# could happen even then.
refuse() {
	local why=$1 rc=0 err
	shift
	err=$(IMAPSTRESS=/bin/false "$SWEEP" --clients 1 --secs 1 --out "$TEST_TMP/refused" \
		-- port=9 "$@" 2>&1 >/dev/null) || rc=$?
	assert_eq 2 "$rc" "sweep $*: exit status"
	assert_match "$why" "$err" "sweep $*: message"
}
refuse "refusing host= '10\\.1\\.2\\.3'" host=10.1.2.3
refuse "refusing hostip= '192\\.168\\.0\\.1'" hostip=192.168.0.1
refuse "refusing -H '8\\.8\\.8\\.8'" -H 8.8.8.8
refuse "refusing -H 'example\\.com'" -Hexample.com
refuse "refusing --host 'imap\\.example\\.com'" --host imap.example.com
refuse "refusing --host '128\\.0\\.0\\.1'" --host=128.0.0.1
refuse "refusing --host '127\\.0\\.0\\.256'" --host=127.0.0.256
refuse "refusing --hostip '::2'" --hostip ::2
refuse "clients=3.*--clients" clients=3
refuse "secs=3.*--secs" secs=3
refuse "--json.*writes the JSON" --json x.json
[ ! -e "$TEST_TMP/refused" ] || fail "a refused sweep still created its output directory"

dovecot_start

# --- sweep -----------------------------------------------------------------
# msgs=1000000: with imaptest's default of 30 messages a mailbox stops taking
# APPENDs, and users are drawn at random, so the clients=5 step could land
# only on the two mailboxes the clients=2 step filled and append nothing.
out=$TEST_TMP/sweep
rc=0
run_with_timeout 60 "$SWEEP" --clients "2 5" --secs 2 --out "$out" -- \
	host=127.0.0.1 port="$DOVECOT_PORT" user='sweep%d' users=1-5 \
	pass="$DOVECOT_PASS" msgs=1000000 - append=100,0 fetch=50 logout=0 \
	>"$TEST_TMP/sweep.out" 2>"$TEST_TMP/sweep.err" || rc=$?
[ "$rc" = 0 ] || fail "sweep exited $rc: $(tail -n 10 "$TEST_TMP/sweep.err")"
[ -f "$out/sweep.csv" ] || fail "sweep wrote no $out/sweep.csv"

# Prints "OK" or what is wrong with the CSV.
check=$("$PYTHON" - "$out/sweep.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
want = ["clients", "duration_s", "commands_ok", "throughput_per_s", "p50_ms",
        "p95_ms", "p99_ms", "errors", "busiest_cmd", "append_ok",
        "append_per_s", "messages_appended", "messages_per_s",
        "append_p50_ms", "append_p95_ms", "append_p99_ms"]
if rows[0] != want:
    sys.exit("header %s, expected %s" % (rows[0], want))
data = [dict(zip(rows[0], r)) for r in rows[1:]]
if [d["clients"] for d in data] != ["2", "5"]:
    sys.exit("clients column %s, expected 2 then 5" % [d["clients"] for d in data])
for d in data:
    c = d["clients"]
    dur, ok, tput = float(d["duration_s"]), int(d["commands_ok"]), float(d["throughput_per_s"])
    p50, p95, p99 = float(d["p50_ms"]), float(d["p95_ms"]), float(d["p99_ms"])
    if not 1.5 <= dur <= 30:
        sys.exit("clients=%s: duration_s %s for a 2 s run" % (c, dur))
    if ok < 10:
        sys.exit("clients=%s: only %d commands OK" % (c, ok))
    if abs(tput - ok / dur) > 0.1 + 0.001 * tput:
        sys.exit("clients=%s: throughput %s is not commands_ok/duration_s" % (c, tput))
    if not 0 < p50 <= p95 <= p99:
        sys.exit("clients=%s: percentiles out of order: %s %s %s" % (c, p50, p95, p99))
    if int(d["errors"]) != 0:
        sys.exit("clients=%s: %s errors against a healthy Dovecot" % (c, d["errors"]))
    if d["busiest_cmd"] not in ("APPEND", "FETCH", "LOGIN", "SELECT"):
        sys.exit("clients=%s: busiest_cmd %r" % (c, d["busiest_cmd"]))
    a, m = int(d["append_ok"]), int(d["messages_appended"])
    if a < 1 or m < a:
        sys.exit("clients=%s: append_ok %d, messages_appended %d" % (c, a, m))
    if not 0 < float(d["append_p50_ms"]) <= float(d["append_p99_ms"]):
        sys.exit("clients=%s: APPEND percentiles %s..%s" % (c, d["append_p50_ms"], d["append_p99_ms"]))
print("OK")
EOF
) || true
assert_eq OK "$check" "sweep.csv"
assert_match "^clients +duration_s" "$(cat "$TEST_TMP/sweep.out")" "sweep's table on stdout"
if command -v gnuplot >/dev/null 2>&1; then
	[ -s "$out/sweep.png" ] || fail "gnuplot is installed but there is no $out/sweep.png: $(cat "$TEST_TMP/sweep.err")"
	assert_eq "89504e47" "$(head -c 4 "$out/sweep.png" | od -An -tx1 | tr -d ' \n')" "sweep.png is a PNG"
else
	note "gnuplot not installed: PNG not checked"
	assert_match "gnuplot is not installed" "$(cat "$TEST_TMP/sweep.err")" "sweep's message without gnuplot"
fi
# Without gnuplot (as seen by the script) it says so and still exits 0.
rc=0
GNUPLOT=/nonexistent/gnuplot run_with_timeout 30 "$SWEEP" --clients 1 --secs 1 \
	--out "$TEST_TMP/noplot" -- host=127.0.0.1 port="$DOVECOT_PORT" \
	user=sweep1 pass="$DOVECOT_PASS" >/dev/null 2>"$TEST_TMP/noplot.err" || rc=$?
assert_eq 0 "$rc" "sweep without gnuplot: exit status"
assert_match "gnuplot is not installed" "$(cat "$TEST_TMP/noplot.err")" "sweep without gnuplot: message"
[ ! -e "$TEST_TMP/noplot/sweep.png" ] || fail "sweep without gnuplot still made a PNG"
dovecot_stop

# --- seed-bench ------------------------------------------------------------
rc=0
run_with_timeout 90 "$SEED_BENCH" --secs 2 --only maildir-yes --clients 10 \
	--out "$TEST_TMP/seed" >"$TEST_TMP/seed.out" 2>"$TEST_TMP/seed.err" || rc=$?
cat "$TEST_TMP/seed.out" >&2
[ "$rc" = 0 ] || fail "seed-bench exited $rc: $(tail -n 10 "$TEST_TMP/seed.err"; cat "$TEST_TMP/seed.out")"
table=$(cat "$TEST_TMP/seed.out")
assert_match "server == reported\$" "$(head -n 1 <<<"$table")" "seed-bench table header"
assert_eq 2 "$(wc -l <<<"$table" | tr -d ' ')" "seed-bench table lines (header + 1 row)"
assert_match "^maildir +yes +10 .* yes\$" "$(tail -n 1 <<<"$table")" "seed-bench row: server count == reported"
csv_row=$(tail -n 1 "$TEST_TMP/seed/seed-bench.csv")
assert_match "^maildir,yes,10,.*,yes\$" "$csv_row" "seed-bench.csv row"
# The CSV keeps both counts: they must be equal and non-zero.
IFS=, read -r -a f <<<"$csv_row"
assert_eq 1 "${f[3]}" "seed-bench.csv run (one run: --runs 1)"
assert_ge "${f[7]}" 1 "seed-bench.csv messages_appended"
assert_eq "${f[7]}" "${f[13]}" "seed-bench.csv server_messages vs messages_appended"

note "ok"
