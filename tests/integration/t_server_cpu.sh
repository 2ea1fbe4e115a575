#!/bin/bash
# --server-pid's CPU figures under login/logout churn (issue 30): a private
# Dovecot that forks one imap process per session (dovecot-private's
# default, --imap-clients 1: Dovecot's service_count 1), HOLD sessions
# logged in and idle beside the run (a tree of a hundred-odd processes
# takes the watch a few ms to read, the window in which a reap lands
# between a parent's read and its child's), and CHURN_CLIENTS clients
# that do LOGIN, SELECT, LOGOUT and again ("- logout=100") with
# --server-pid until CHURN_LOGINS logins are done (then SIGTERM: a run's
# end tied to what it did, not to a busy machine's clock).  The tool's promise, checked:
#   1. no second's server cpu_pct (the JSON ticks) nor the summary's
#      cpu_pct_max is above 100 x the online CPUs;
#   2. the run's server CPU (summary cpu_pct x sampled_s) is within 5% of
#      what /proc says the tree used: the master's and every descendant's
#      utime+stime+cutime+cstime summed, read before and after the run
#      while the server is idle (two reads 0.2 s apart that agree), so the
#      difference holds every process that ran meanwhile, the exited ones
#      through the master's cutime.  The two windows differ only by their
#      edges (before the first sample, after the last), where the server
#      only finishes the last sessions' exits.
# Summing the tree's four fields each second and taking the growth of the
# sum (clamped at 0) lost a second's growth whenever a process with time
# of its own dropped out of the sum and counted its lump again later;
# tests/unit/srv/test_srv_cpu.c scripts those cases one by one.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}" getconf
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"
[ -r /proc/self/stat ] || skip "no /proc here"

CHURN_LOGINS=${CHURN_LOGINS:-100}
CHURN_CLIENTS=${CHURN_CLIENTS:-20}
HOLD=${HOLD:-100}
case $CHURN_LOGINS$CHURN_CLIENTS$HOLD in
*[!0-9]*) fail "CHURN_LOGINS '$CHURN_LOGINS', CHURN_CLIENTS '$CHURN_CLIENTS', HOLD '$HOLD': not numbers" ;;
esac
CORES=$(getconf _NPROCESSORS_ONLN)

dovecot_start --fsync no
[ -n "${DOVECOT_PID:-}" ] || fail "dovecot-private start printed no DOVECOT_PID"
# One user per client: a brand-new user's storage made by two sessions at
# once panics Dovecot 2.3 (see precreate.py).
"$PYTHON" "$ROOT/tests/integration/precreate.py" "$DOVECOT_PORT" \
	"${DOVECOT_PASS:-pass}" $(seq -f 'cpu%.0f' 1 "$CHURN_CLIENTS") ||
	fail "could not create the mailboxes first"

# HOLD sessions logged in with INBOX selected, idle until this test's
# shell is gone (the holder's parent changes).
cat >"$TEST_TMP/hold.py" <<'PY'
import os, socket, sys, time
port, n, users = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
parent, held = os.getppid(), []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    f = s.makefile("rb")
    f.readline()
    s.sendall(b"a LOGIN cpu%d pass\r\nb SELECT INBOX\r\n" % (1 + i % users))
    while True:
        line = f.readline()
        if not line or line.startswith(b"b "):
            break
    if not line.startswith(b"b OK"):
        sys.exit("session %d: %r" % (i, line))
    held.append(s)
print("holding", n, flush=True)
while os.getppid() == parent:
    time.sleep(0.5)
PY
"$PYTHON" "$TEST_TMP/hold.py" "$DOVECOT_PORT" "$HOLD" "$CHURN_CLIENTS" \
	>"$TEST_TMP/hold.out" 2>&1 &
holder=$!
for _ in $(seq 600); do
	grep -q '^holding' "$TEST_TMP/hold.out" && break
	kill -0 "$holder" 2>/dev/null || fail "holder: $(cat "$TEST_TMP/hold.out")"
	sleep 0.1
done
grep -q '^holding' "$TEST_TMP/hold.out" || fail "holder: $HOLD sessions not in after 60 s"

# The tree's utime+stime+cutime+cstime in clock ticks, once two reads
# 0.2 s apart agree on the processes and the sum (the server is idle).
cat >"$TEST_TMP/tree_cpu.py" <<'PY'
import os, sys, time
root = int(sys.argv[1])

def read_tree():
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            line = open("/proc/%s/stat" % d).read()
        except OSError:
            continue
        f = line[line.rindex(")") + 2:].split()	# f[0] is field 3
        procs[int(d)] = (int(f[1]), int(f[19]),
                         sum(int(x) for x in f[11:15]))
    kids = {}
    for pid, (ppid, _, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    total, seen, todo = 0, [], [root]
    while todo:
        pid = todo.pop()
        if pid in procs:
            total += procs[pid][2]
            seen.append((pid, procs[pid][1]))
            todo += kids.get(pid, [])
    if not seen:
        sys.exit("pid %d is gone" % root)
    return total, sorted(seen)

last = None
for _ in range(150):
    now = read_tree()
    if now == last:
        print(now[0], len(now[1]))
        sys.exit(0)
    last = now
    time.sleep(0.2)
sys.exit("the tree of %d never stood still for 0.2 s in 30 s" % root)
PY
tree_cpu() {
	run_with_timeout 60 "$PYTHON" "$TEST_TMP/tree_cpu.py" "$DOVECOT_PID" ||
		fail "could not read the server's tree from /proc"
}

read -r before procs_before <<<"$(tree_cpu)"
stress_until churn 120 commands.LOGIN.ok "$CHURN_LOGINS" \
	port="$DOVECOT_PORT" - logout=100 clients="$CHURN_CLIENTS" \
	users=1-"$CHURN_CLIENTS" user=cpu%d --server-pid "$DOVECOT_PID"
[ "$RC" = 0 ] || fail "churn: exit $RC: $(head -n 5 "$TEST_TMP/churn.err")"
read -r after procs_after <<<"$(tree_cpu)"
note "tree before: $before ticks, $procs_before processes; after: $after ticks, $procs_after processes"

"$PYTHON" - "$TEST_TMP/churn.json" "$CORES" "$before" "$after" \
	"$(getconf CLK_TCK)" "$HOLD" "$CHURN_LOGINS" <<'PY' || fail "server CPU: see above"
import json, sys
path, cores, before, after, tck, hold = sys.argv[1], int(sys.argv[2]), \
    int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
need = int(sys.argv[7])
lines = [json.loads(l) for l in open(path) if l.strip()]
summ = lines[-1]
assert summ.get("type") == "summary", "no summary"
srv = summ["server"]
cap = 100.0 * cores
ticks = [l["server"]["cpu_pct"] for l in lines[:-1]
         if l.get("server", {}).get("sampled") and "cpu_pct" in l["server"]]
logins = summ["commands"]["LOGIN"]["ok"]
tool = srv["cpu_pct"] * srv["sampled_s"] / 100.0
proc = (after - before) / tck
print("logins %d in %.1f s, up to %d processes; per-second server cpu: "
      "peak %.1f%% (cap %.0f%%, %d s capped), summary peak %.1f%%; total: "
      "imapstress %.3f s, /proc %.3f s (%+.2f%%)" % (logins,
      summ["measured_s"], srv["procs"], max(ticks), cap,
      srv.get("cpu_capped_s", -1), srv["cpu_pct_max"], tool, proc,
      100.0 * (tool - proc) / proc if proc > 0 else 0))
ok = True
# Each login forked an imap process that exited at LOGOUT.
if logins < need or srv["procs"] < hold:
    print("FAIL: too little churn or too small a tree to mean anything")
    ok = False
if proc < 0.5:
    print("FAIL: the tree used %.3f s: too little to compare" % proc)
    ok = False
over = [p for p in ticks if p > cap * (1 + 1e-5)]
if over or srv["cpu_pct_max"] > cap * (1 + 1e-5):
    print("FAIL: seconds above 100 x %d CPUs: %s, summary peak %.1f%%"
          % (cores, over, srv["cpu_pct_max"]))
    ok = False
if abs(tool - proc) > 0.05 * proc:
    print("FAIL: imapstress says %.3f s, /proc %.3f s: more than 5%% apart"
          % (tool, proc))
    ok = False
sys.exit(0 if ok else 1)
PY
kill "$holder"
# The holder ends on that TERM: its status is 143 by design.
wait "$holder" 2>/dev/null || true
dovecot_stop
note "ok"
