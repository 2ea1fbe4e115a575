#!/bin/bash
# --metrics-listen with profile mode's POP3 users (tests/fake/fake_pop3.py,
# tests/fake/pop3_lib.sh): the final page (the one that says
# imapstress_finished 1, fetched while --metrics-linger keeps it up) holds
# the run's own JSON summary's POP3 numbers, name by name:
#   imapstress_pop3_commands_total{command,result} = profile.pop3.commands
#     .COMMAND.ok/err/failed, for each command the summary has, and no other;
#   imapstress_pop3_command_duration_seconds: _count = ok + err (a latency
#     for every status line), the le="+Inf" bucket the same, the buckets
#     never falling, _sum / _count = the summary's mean (its 3 decimals);
#   imapstress_pop3_sessions_total, _logins_total,
#     _retrieved_messages_total, _retrieved_bytes_total,
#     _deleted_messages_total, _delete_lost_total, the imapstress_pop3_sessions
#     gauge and imapstress_pop3_failed_sessions_total{kind} = sessions,
#     logins, retrieved, retr_bytes, deleted, delete_lost, sessions_open
#     and failed_sessions.KIND;
# and the run did retrieve and delete (so the numbers are not all 0).  The
# page passes `promtool check metrics` (Debian's prometheus, which
# scripts/deps installs).  A default-mix IMAP run's page has no
# imapstress_pop3_ family.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"
# shellcheck source=SCRIPTDIR/pop3_lib.sh disable=SC1091
. "$(dirname "$0")/pop3_lib.sh"

T=$TEST_TMP

# scrape_final NAME PID: the run's final page (NAME.page): fetched until it
# says imapstress_finished 1 (bounded: a hang, not a speed, is what the
# bound catches); the run ends once one scrape has received it.
scrape_final() {
	local name=$1 pid=$2 mport=
	for _ in $(seq 300); do
		mport=$(sed -n 's|.*metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$T/$name.err")
		[ -n "$mport" ] && break
		kill -0 "$pid" 2>/dev/null || fail "$name: imapstress exited early: $(tail -n 3 "$T/$name.err")"
		sleep 0.1
	done
	[ -n "$mport" ] || fail "$name: imapstress did not say where its metrics are"
	for _ in $(seq 600); do
		"$PYTHON" -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' \
			"http://127.0.0.1:$mport/metrics" >"$T/$name.page" 2>/dev/null &&
			grep -q '^imapstress_finished 1$' "$T/$name.page" && break
		kill -0 "$pid" 2>/dev/null || fail "$name: imapstress exited before its final page was scraped"
		sleep 0.1
	done
	grep -q '^imapstress_finished 1$' "$T/$name.page" || fail "$name: no final page after 60 s"
	local rc=0
	wait "$pid" || rc=$?
	assert_eq 0 "$rc" "$name: imapstress exit status ($(tail -n 3 "$T/$name.err"))"
	if command -v promtool >/dev/null 2>&1; then
		lint=$(promtool check metrics <"$T/$name.page" 2>&1) || fail "$name: promtool check metrics: $lint"
	fi
}

pop3_fake_start "$T/p3"
# Created here: the background child opens its redirections only some time
# after the fork, and scrape_final's sed (under set -e) must find the file.
: >"$T/p3.err"
"$IMAPSTRESS" "${POP3_ARGS[@]}" --duration 3 --json "$T/p3.json" \
	--metrics-listen 127.0.0.1:0 --metrics-linger 60 >"$T/p3.out" 2>"$T/p3.err" &
run_pid=$!
on_exit "stop_bg $run_pid"
scrape_final p3 "$run_pid"

out=$("$PYTHON" - "$T/p3.json" "$T/p3.page" <<'PY'
import json, re, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"summary"')][-1]
p = s["profile"]["pop3"]
page = {}
for line in open(sys.argv[2]):
    m = re.match(r'^(imapstress_pop3_\w+)(\{[^}]*\})? (\S+)$', line)
    if m:
        page[m.group(1) + (m.group(2) or "")] = float(m.group(3))
bad, n = [], [0]

def eq(name, want, got):
    n[0] += 1
    if got is None or abs(got - want) > 1e-9 * max(1, abs(want)):
        bad.append("%s: page %r, summary %r" % (name, got, want))

for k, name in (("sessions", "sessions_total"), ("logins", "logins_total"),
                ("retrieved", "retrieved_messages_total"),
                ("retr_bytes", "retrieved_bytes_total"),
                ("deleted", "deleted_messages_total"),
                ("delete_lost", "delete_lost_total"),
                ("sessions_open", "sessions")):
    eq(name, p[k], page.get("imapstress_pop3_" + name))
for k, v in p["failed_sessions"].items():
    eq("failed " + k, v, page.get('imapstress_pop3_failed_sessions_total{kind="%s"}' % k))
seen = set(re.findall(r'_commands_total\{command="(\w+)"', " ".join(page)))
if seen != set(p["commands"]):
    bad.append("commands on the page %s, in the summary %s" % (sorted(seen), sorted(p["commands"])))
for c, row in p["commands"].items():
    for r in ("ok", "err", "failed"):
        eq("%s %s" % (c, r), row[r], page.get('imapstress_pop3_commands_total{command="%s",result="%s"}' % (c, r)))
    h = "imapstress_pop3_command_duration_seconds"
    cnt = page.get('%s_count{command="%s"}' % (h, c))
    eq("%s histogram count" % c, row["ok"] + row["err"], cnt)
    eq("%s +Inf bucket" % c, row["ok"] + row["err"], page.get('%s_bucket{command="%s",le="+Inf"}' % (h, c)))
    b = [v for k, v in page.items() if k.startswith('%s_bucket{command="%s",' % (h, c))]
    if b != sorted(b):
        bad.append("%s: buckets fall: %r" % (c, b))
    mean = page.get('%s_sum{command="%s"}' % (h, c), 0) * 1e6 / cnt if cnt else None
    n[0] += 1
    if mean is None or abs(mean - row["latency_us"]["mean"]) > 0.0005 + 1e-6:
        bad.append("%s mean: page %r us, summary %r" % (c, mean, row["latency_us"]["mean"]))
print("%d %d %d %s" % (n[0], p["retrieved"], p["deleted"], "; ".join(bad[:10]) or "ok"))
PY
) || fail "cannot read the page or the summary: $out"
read -r compared retrieved deleted verdict <<<"$out"
note "POP3: $compared values compared, $retrieved retrieved, $deleted deleted: $verdict"
assert_ge "$retrieved" 1 "messages retrieved"
assert_ge "$deleted" 1 "messages deleted"
assert_eq ok "$verdict" "the page's POP3 values against the summary"

# No POP3 users: no POP3 family.
fake_start
: >"$T/imap.err"
"$IMAPSTRESS" port="$FAKE_PORT" clients=2 secs=1 --metrics-listen 127.0.0.1:0 \
	--metrics-linger 60 >"$T/imap.out" 2>"$T/imap.err" &
run_pid=$!
on_exit "stop_bg $run_pid"
scrape_final imap "$run_pid"
grep -q '^imapstress_commands_total{command="LOGIN",result="ok"} [1-9]' "$T/imap.page" ||
	fail "the IMAP run's page has no LOGIN: $(head -c 300 "$T/imap.page")"
if grep -q 'imapstress_pop3_' "$T/imap.page"; then
	fail "an IMAP run's page has POP3 families: $(grep -m 3 imapstress_pop3_ "$T/imap.page")"
fi
note "ok"
