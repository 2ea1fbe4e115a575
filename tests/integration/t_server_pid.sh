#!/bin/bash
# --server-pid against the private Dovecot: its master's pid (DOVECOT_PID,
# and `dovecot-private pid`) and whole process tree.
#   1. An APPEND load: the summary's server CPU and memory are > 0, and the
#      disk write bytes (/proc/PID/io) at least the APPENDed bytes (when the
#      instance lives on a block device: tmpfs writes reach no disk); the
#      per-second CSV columns are there and add up to the summary's writes.
#   2. A watched pid that exits mid-run (a helper that ends once two CSV
#      rows exist): one message, the columns stop (empty CSV cells), the run
#      goes on and exits 0.
#   3. No --server-pid: no "server" object, no srv_ columns.  A pid that
#      does not exist: exit 2 naming it.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
[ -r /proc/self/stat ] || skip "no /proc here"

dovecot_start
[ -n "${DOVECOT_PID:-}" ] || fail "dovecot-private start printed no DOVECOT_PID"
pid2=$(run_with_timeout 10 "$DOVECOT_PRIVATE" pid --dir "$DOVECOT_DIR") ||
	fail "dovecot-private pid failed"
assert_eq "$pid2" "$DOVECOT_PID" "dovecot-private pid"

# --- 1. an APPEND load ------------------------------------------------------
LOAD=(port="$DOVECOT_PORT" - append=100,0 select=0 logout=0 clients=4
	user=sp%d users=1-4 msgs=1000000)
stress load "${LOAD[@]}" secs=3 --server-pid "$DOVECOT_PID" \
	--csv "$TEST_TMP/load.csv"
[ "$RC" = 0 ] || fail "load: exit $RC: $(head -n 5 "$TEST_TMP/load.err")"
summary "$TEST_TMP/load.json" server.sampled server.cpu_pct server.mem_kb \
	server.procs server.disk_write_bytes append_bytes server.net_kbps \
	server.mem_kind
note "server: cpu ${S[1]}%, ${S[2]} kB (${S[7]}), ${S[3]} processes," \
	"wrote ${S[4]} bytes for ${S[5]} APPENDed; net ${S[6]} Kbps"
assert_eq "${S[0]}" True "server sampled"
"$PYTHON" -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "${S[1]}" ||
	fail "server CPU ${S[1]}% is not > 0"
assert_ge "${S[2]}" 1 "server memory (kB)"
assert_ge "${S[3]}" 2 "server processes (master + imap)"
"$PYTHON" -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "${S[6]}" ||
	fail "network Kbps ${S[6]} is not > 0"
grep -q '^server: cpu ' "$TEST_TMP/load.out" || fail "no per-second server line"
grep -q '^  processor: ' "$TEST_TMP/load.out" || fail "no server table in the summary"
fstype=$(stat -f -c %T "$DOVECOT_DIR")
if [ "${S[4]}" = - ]; then
	fail "no disk figures: /proc/$DOVECOT_PID/io not readable as $(id -un)?"
elif [ "$fstype" = tmpfs ] || [ "$fstype" = ramfs ]; then
	note "the instance is on $fstype: no disk writes to check"
else
	assert_ge "${S[4]}" "${S[5]}" "disk write bytes vs APPENDed bytes"
fi
# The per-second column (warm-up none, so every row counts) adds up to
# the summary's figure.
"$PYTHON" - "$TEST_TMP/load.csv" "${S[4]}" <<'PY' || fail "CSV srv_disk_write_bytes do not add up"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and "srv_cpu_pct" in rows[0], "no srv_ columns"
total = sum(int(r["srv_disk_write_bytes"] or 0) for r in rows)
assert total == int(sys.argv[2]), (total, sys.argv[2])
assert all(r["srv_mem_kb"] for r in rows), "a row without memory"
PY

# --- 2. the watched pid exits mid-run ------------------------------------------
csv2=$TEST_TMP/gone.csv
: >"$csv2"
bash -c 'while [ "$(wc -l <"$1")" -lt 3 ]; do sleep 0.05; done' _ "$csv2" &
helper=$!
stress gone "${LOAD[@]}" secs=5 --server-pid "$helper" --csv "$csv2"
wait "$helper" 2>/dev/null || true
[ "$RC" = 0 ] || fail "gone: exit $RC: $(head -n 5 "$TEST_TMP/gone.err")"
grep -q "server's process is gone" "$TEST_TMP/gone.err" ||
	fail "gone: no message: $(head -n 5 "$TEST_TMP/gone.err")"
"$PYTHON" - "$csv2" <<'PY' || fail "gone: the CSV columns did not stop"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) >= 4, len(rows)
assert rows[0]["srv_cpu_pct"] != "", rows[0]
assert rows[-1]["srv_cpu_pct"] == "" and rows[-1]["srv_mem_kb"] == "", rows[-1]
PY
summary "$TEST_TMP/gone.json" server.sampled server.sampled_s measured_s commands.APPEND.ok
assert_eq "${S[0]}" True "gone: sampled before it went"
"$PYTHON" -c 'import sys; a, b = map(float, sys.argv[1:]); sys.exit(not 0 < a < b)' \
	"${S[1]}" "${S[2]}" || fail "gone: sampled ${S[1]} s of ${S[2]} s"
assert_ge "${S[3]}" 1 "gone: the run went on (APPENDs)"

# --- 3. no pid; a pid that does not exist ---------------------------------------
stress nopid "${LOAD[@]}" secs=1 --csv "$TEST_TMP/nopid.csv"
[ "$RC" = 0 ] || fail "nopid: exit $RC"
summary "$TEST_TMP/nopid.json" server
assert_eq "${S[0]}" - "no --server-pid: a server object"
if head -n 1 "$TEST_TMP/nopid.csv" | grep -q srv_; then fail "no --server-pid: srv_ CSV columns"; fi
grep -q '^server' "$TEST_TMP/nopid.out" && fail "no --server-pid: server lines in the text"
sh -c 'exit 0' &
dead=$!
wait "$dead"
stress dead "${LOAD[@]}" secs=1 --server-pid "$dead"
assert_eq "$RC" 2 "a pid that does not exist: exit status"
grep -q -- "--server-pid $dead: no such process" "$TEST_TMP/dead.err" ||
	fail "dead pid: $(cat "$TEST_TMP/dead.err")"
dovecot_stop
note "ok"
