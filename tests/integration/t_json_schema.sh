#!/bin/bash
# --json and --csv hold what they promise, against a real Dovecot:
#  - the JSON Lines file is "tick" objects (t rising, a tick a second as
#    the machine allows, the last one partial, and their counts adding up to the summary's) and
#    one final "summary" with its keys and types: duration_s, clients,
#    commands by upper-case state name with ok/no/bad/failed, rate and
#    ordered latency percentiles, all ten error kinds, bytes, messages
#    appended;
#  - every CSV row has as many columns as the header;
#  - with one message per APPEND, the summary's APPEND ok is the number of
#    messages the server stored.
# Run 1 is imaptest's default mix with COPY on; run 2 appends only.  Both
# run at once, each against its own private Dovecot.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

dovecot_start --fsync no
mix_port=$DOVECOT_PORT
dovecot_start --fsync no
app_dir=$DOVECOT_DIR app_port=$DOVECOT_PORT

# Each run: imapstress ARGS with --json/--csv into $TEST_TMP/NAME.*; the
# exit status goes to NAME.rc.
run_bg() {
	local name=$1 rc=0
	shift
	run_with_timeout 60 "$IMAPSTRESS" "$@" --json "$TEST_TMP/$name.json" \
		--csv "$TEST_TMP/$name.csv" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || rc=$?
	echo "$rc" >"$TEST_TMP/$name.rc"
}

# $USER pinned: the default mix leaves user= at its default.  The mix
# runs until a COPY was answered (COPY is one state of the random mix:
# 3 s at load 22 once passed without one) and then stops on SIGTERM
# (stress_until, which writes mix.rc, .out and .err as run_bg does).
USER=schema stress_until mix 60 commands.COPY.ok 1 port="$mix_port" \
	copybox=Copies clients=10 secs=0 --csv "$TEST_TMP/mix.csv" &
mix_pid=$!
run_bg app port="$app_port" - append=100,0 seed=1 secs=3 msgs=1000000 logout=0 \
	select=0 clients=10 user=s%d users=1-10 &
app_pid=$!
wait "$mix_pid" || fail "default-mix runner failed"
wait "$app_pid" || fail "append runner failed"

for name in mix app; do
	rc=$(cat "$TEST_TMP/$name.rc")
	[ "$rc" = 0 ] || fail "$name run exited $rc; stderr: $(head -n 20 "$TEST_TMP/$name.err")"
done

# Validates a --json file; prints "APPEND-ok messages_appended" of its
# summary.  ARGS: FILE CLIENTS REQUIRED-COMMANDS (comma-separated).
cat >"$TEST_TMP/check_json.py" <<'EOF'
import json, sys

path, clients, required = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
problems = []

def bad(msg):
    problems.append(msg)

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)

def is_num(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool))

# imaptest's state names, which are the command keys.
STATES = {"AUTHENTICATE", "LOGIN", "COMPRESS", "LISTROOT", "LIST", "MCREATE",
          "MDELETE", "MRENAME", "MSUBS", "STATUS", "SELECT", "UIDFETCH",
          "FETCH", "FETCH2", "SEARCH", "SORT", "THREAD", "COPY", "MOVE",
          "STORE", "DELETE", "EXPUNGE", "APPEND", "NOOP", "IDLE", "CHECK",
          "LOGOUT", "DISCONNECT", "DELAY", "CHECKPOINT!", "LMTP"}
ERROR_KINDS = {"no", "bad", "bye", "disconnect", "timeout", "protocol", "tls",
               "connect", "login", "state"}
PCTS = ["p50", "p90", "p95", "p99", "p999", "max"]

objs = []
for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
    try:
        objs.append(json.loads(line))
    except ValueError as e:
        sys.exit("%s line %d is not JSON (%s): %s" % (path, n, e, line[:200]))
if len(objs) < 2:
    sys.exit("%s: expected ticks and a summary, got %d lines" % (path, len(objs)))
ticks, summary = objs[:-1], objs[-1]

def check_counts(where, c):
    for k in ("ok", "no", "bad", "failed"):
        if not is_int(c.get(k)) or c[k] < 0:
            bad("%s.%s is %r, not a count" % (where, k, c.get(k)))

def check_errors(where, e):
    if not isinstance(e, dict) or set(e) != ERROR_KINDS:
        bad("%s.errors keys %r, expected %r" % (where, sorted(e or {}), sorted(ERROR_KINDS)))
        return
    for k, v in e.items():
        if not is_int(v) or v < 0:
            bad("%s.errors.%s is %r" % (where, k, v))

# Ticks.
prev_t = 0.0
tick_ok = {}
prev_in = 0
for i, t in enumerate(ticks):
    where = "tick %d" % (i + 1)
    if t.get("type") != "tick":
        bad("%s: type is %r, not 'tick' (only the last line is the summary)" % (where, t.get("type")))
        continue
    if not is_num(t.get("t")):
        bad("%s: t is %r" % (where, t.get("t")))
        continue
    # One tick a second, but how close to a second is the machine's: a
    # loaded host delays the main thread's wake-up (a window of 0.5-2.5 s
    # was asserted here, and this test failed once at load 25-39, its log
    # lost).  What the file promises: t rises, and the last tick is
    # partial, partial_s since the one before; the counts add up (below).
    step = t["t"] - prev_t
    last = i == len(ticks) - 1
    if "partial_s" in t and not last:
        bad("%s: partial_s on a tick that is not the last" % where)
    # (>= 0: a drain shorter than the JSON's rounding prints as 0.)
    if last and not (is_num(t.get("partial_s")) and t["partial_s"] >= 0 and
                     abs(t["partial_s"] - step) < 0.01):
        bad("%s: the last tick's partial_s is %r, its step %.3f" % (where, t.get("partial_s"), step))
    if not last and not step > 0:
        bad("%s: t=%r follows %r (step %.3f): t must rise" % (where, t["t"], prev_t, step))
    prev_t = t["t"]
    # Slots that logged in at least once: never more than clients=, never
    # fewer than a second before (a reconnect is the same slot).
    if not is_int(t.get("clients_in")) or not prev_in <= t["clients_in"] <= clients:
        bad("%s: clients_in is %r (before %d, clients %d)" % (where, t.get("clients_in"), prev_in, clients))
    else:
        prev_in = t["clients_in"]
    if not isinstance(t.get("commands"), dict):
        bad("%s: commands is %r" % (where, t.get("commands")))
        continue
    for op, c in t["commands"].items():
        if op not in STATES:
            bad("%s: unknown command key %r" % (where, op))
        check_counts("%s.%s" % (where, op), c)
        for k in ("p50_us", "p95_us", "p99_us", "max_us"):
            if not is_int(c.get(k)):
                bad("%s.%s.%s is %r" % (where, op, k, c.get(k)))
        if is_int(c.get("ok")):
            tick_ok[op] = tick_ok.get(op, 0) + c["ok"]
    check_errors(where, t.get("errors"))
    if not is_int(t.get("messages_appended")):
        bad("%s: messages_appended is %r" % (where, t.get("messages_appended")))

# The summary.
s = summary
if s.get("type") != "summary":
    sys.exit("%s: last line has type %r, not 'summary'" % (path, s.get("type")))
if not is_num(s.get("duration_s")) or s["duration_s"] <= 0:
    bad("duration_s is %r" % s.get("duration_s"))
if s.get("clients_in") != clients or not is_int(s.get("logins")) or s["logins"] < clients:
    bad("clients_in %r, logins %r: every one of %d clients logged in, each counted once"
        % (s.get("clients_in"), s.get("logins"), clients))
if not is_int(s.get("clients")) or s["clients"] != clients:
    bad("clients is %r, expected %d" % (s.get("clients"), clients))
cmds = s.get("commands")
if not isinstance(cmds, dict):
    sys.exit("%s: summary commands is %r; problems so far: %s" % (path, cmds, problems))
for op in required:
    if op not in cmds:
        bad("commands has no %s (keys: %s)" % (op, sorted(cmds)))
for op, c in cmds.items():
    where = "commands.%s" % op
    if op not in STATES or op != op.upper():
        bad("%s: not an upper-case state name" % where)
    if not isinstance(c, dict):
        bad("%s is %r" % (where, c))
        continue
    check_counts(where, c)
    if not is_num(c.get("rate")) or c["rate"] < 0:
        bad("%s.rate is %r" % (where, c.get("rate")))
    lat = c.get("latency_us")
    if not isinstance(lat, dict):
        bad("%s.latency_us is %r" % (where, lat))
        continue
    for k in ["mean"] + PCTS:
        if not is_num(lat.get(k)) or lat[k] < 0:
            bad("%s.latency_us.%s is %r" % (where, k, lat.get(k)))
    vals = [lat.get(k) for k in PCTS]
    if all(is_num(v) for v in vals) and vals != sorted(vals):
        bad("%s.latency_us not ordered p50<=p90<=p95<=p99<=p999<=max: %r" % (where, vals))
    # The last, partial tick holds the drain: the ticks add up (no warm-up).
    if is_int(c.get("ok")) and c["ok"] != tick_ok.get(op, 0):
        bad("%s.ok %d != %d, the sum over the ticks" % (where, c["ok"], tick_ok.get(op, 0)))
for op in tick_ok:
    if op not in cmds:
        bad("%s is in the ticks but not in the summary" % op)
check_errors("summary", s.get("errors"))
b = s.get("bytes")
if not isinstance(b, dict):
    bad("bytes is %r" % b)
else:
    for k in ("sent", "received"):
        if not is_int(b.get(k)) or b[k] <= 0:
            bad("bytes.%s is %r, expected an int > 0" % (k, b.get(k)))
if not is_int(s.get("messages_appended")) or s["messages_appended"] < 0:
    bad("messages_appended is %r" % s.get("messages_appended"))
if problems:
    sys.exit("%s:\n  %s" % (path, "\n  ".join(problems)))
print(cmds.get("APPEND", {}).get("ok", 0), s["messages_appended"])
EOF

# Every row has as many columns as the header; t rises; one row per tick.
cat >"$TEST_TMP/check_csv.py" <<'EOF'
import csv, json, sys

path, json_path = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(path, newline="")))
if len(rows) < 2:
    sys.exit("%s: expected a header and rows, got %d lines" % (path, len(rows)))
head = rows[0]
if head[0] != "t":
    sys.exit("%s: first column is %r, expected 't'" % (path, head[0]))
if len(set(head)) != len(head):
    sys.exit("%s: duplicate column names in the header" % path)
prev = -1.0
for n, r in enumerate(rows[1:], 2):
    if len(r) != len(head):
        sys.exit("%s line %d has %d columns, the header %d: %s" % (path, n, len(r), len(head), r))
    try:
        vals = [float(v) for v in r]
    except ValueError:
        sys.exit("%s line %d has a field that is not a number: %s" % (path, n, r))
    # The last row is the partial drain tick: a drain shorter than the
    # printed precision leaves t where the row before had it.
    last_row = n == len(rows)
    if vals[0] < prev or (vals[0] == prev and not last_row):
        sys.exit("%s line %d: t=%s does not rise" % (path, n, r[0]))
    prev = vals[0]
ticks = sum(1 for l in open(json_path) if json.loads(l).get("type") == "tick")
if len(rows) - 1 < ticks:
    sys.exit("%s: %d rows for %d JSON ticks" % (path, len(rows) - 1, ticks))
EOF

vals=$("$PYTHON" "$TEST_TMP/check_json.py" "$TEST_TMP/mix.json" 10 \
	LOGIN,SELECT,FETCH,APPEND,COPY,LOGOUT 2>&1) || fail "default mix: $vals"
note "default mix: APPEND ok / messages_appended: $vals"
out=$("$PYTHON" "$TEST_TMP/check_csv.py" "$TEST_TMP/mix.csv" "$TEST_TMP/mix.json" 2>&1) ||
	fail "default mix CSV: $out"

vals=$("$PYTHON" "$TEST_TMP/check_json.py" "$TEST_TMP/app.json" 10 LOGIN,APPEND 2>&1) ||
	fail "append run: $vals"
out=$("$PYTHON" "$TEST_TMP/check_csv.py" "$TEST_TMP/app.csv" "$TEST_TMP/app.json" 2>&1) ||
	fail "append run CSV: $out"
read -r ok msgs <<<"$vals"
server=$(run_with_timeout 60 "$DOVECOT_PRIVATE" count-all --dir "$app_dir") ||
	fail "count-all failed for the append run"
note "append run: APPEND ok $ok, messages_appended $msgs, server $server"
assert_ge "$ok" 1 "APPEND ok in the append run"
assert_eq "$server" "$ok" "JSON APPEND ok vs the messages the server stored"
assert_eq "$ok" "$msgs" "messages_appended with one message per APPEND"

note "ok"
