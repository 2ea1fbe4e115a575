#!/bin/bash
# --metrics-listen under a real Prometheus (Debian's package, run privately:
# own config and storage in TEST_TMP, loopback, scrape interval 1 s).  A
# run against the private Dovecot is scraped while it goes on, and goes on
# until Prometheus holds 10 samples of it: then SIGINT stops it, and
# --metrics-linger keeps the endpoint up until Prometheus has fetched the
# final page.  Then the test asks Prometheus's HTTP API what the tool
# promises: every scrape up to the final page was served (up 1), the APPEND
# counter never went down from one sample to the next, the last APPEND ok
# counter and the APPEND histogram count equal the run's JSON summary, and
# there are 10 samples besides the final page's.  The page also passes
# `promtool check metrics`.
#
# The run's length is Prometheus's, not a fixed one: the 20 s run of old
# raced Prometheus's own start (seconds on a loaded machine; at load 40 it
# got 9 scrapes of a 20 s run) and lost.  The only time bound here is the
# hang timeout.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${DOVECOT:-/usr/sbin/dovecot}" "${PROMETHEUS:=prometheus}" "${PYTHON:-python3}"

dovecot_start
out=$TEST_TMP/run
: >"$out.txt"
"$IMAPSTRESS" -p "$DOVECOT_PORT" --users 1-20 -c 10 --seed 3 -d 600 \
	--metrics-listen 127.0.0.1:0 --metrics-linger 60 --json "$out.json" -q \
	>"$out.txt" 2>&1 &
run_pid=$!
on_exit "stop_bg $run_pid"

# The port the kernel gave (port 0): imapstress names it before it starts.
mport=
for _ in $(seq 100); do
	mport=$(sed -n 's|.*metrics at http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$out.txt")
	[ -n "$mport" ] && break
	kill -0 "$run_pid" 2>/dev/null || fail "imapstress exited early: $(cat "$out.txt")"
	sleep 0.1
done
[ -n "$mport" ] || fail "imapstress did not say where its metrics are: $(cat "$out.txt")"

# Prometheus starts as soon as the port is known, before anything else
# waits: at CI's load under ASan, starting it after the linter's wait below
# left one scrape of the run (the final one), and the test wants a scrape
# during the run.
pport=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pdir=$(make_tmpdir)
cat >"$pdir/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: imapstress
    static_configs:
      - targets: ['127.0.0.1:$mport']
YAML
"$PROMETHEUS" --config.file="$pdir/prometheus.yml" --storage.tsdb.path="$pdir/data" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$pdir/log" 2>&1 &
prom_pid=$!
on_exit "stop_bg $prom_pid"


# The page as Prometheus's own linter sees it (names, types, histograms).
if command -v promtool >/dev/null 2>&1; then
	# After the first tick the page has the commands (bounded wait).
	for _ in $(seq 100); do
		curl -sf --max-time 5 "http://127.0.0.1:$mport/metrics" >"$TEST_TMP/page" ||
			fail "GET /metrics failed"
		grep -q 'command="LOGIN"' "$TEST_TMP/page" && break
		sleep 0.1
	done
	lint=$(promtool check metrics <"$TEST_TMP/page" 2>&1) || fail "promtool check metrics: $lint"
	assert_match '^imapstress_command_duration_seconds_bucket\{command="LOGIN",le="0\.001"\} [0-9]+$' \
		"$(cat "$TEST_TMP/page")" "a histogram bucket on the page"
fi

# query EXPR: the single value of an instant query, or "-" when empty.
query() {
	curl -sf --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
		--data-urlencode "query=$1" | "$PYTHON" -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "-")'
}

# query_series EXPR: a range query's samples as "time=value" words.
query_series() {
	curl -sf --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
		--data-urlencode "query=$1" | "$PYTHON" -c '
import json, sys
for x in json.load(sys.stdin)["data"]["result"]:
    print(" ".join("%.1f=%s" % (float(t), v) for t, v in x["values"]))'
}

# The run lasts until Prometheus holds 10 samples of the APPEND counter
# (bounded: a hang, not a speed, is what the bound catches), then SIGINT
# ends it as a user would: the clients stop, the final page is published
# and lingers until scraped.
n=0
t0=$SECONDS
while :; do
	n=$(query 'count_over_time(imapstress_commands_total{command="APPEND",result="ok"}[10m])' 2>/dev/null || echo -)
	[ "$n" != - ] && [ "${n%%.*}" -ge 10 ] && break
	kill -0 "$run_pid" 2>/dev/null || fail "imapstress ended before 10 scrapes ($n): $(tail -n 5 "$out.txt")"
	[ $((SECONDS - t0)) -lt 240 ] || fail "Prometheus has $n samples after 240 s (hung?): $(tail -n 5 "$pdir/log")"
	sleep 0.5
done
note "10 samples after $((SECONDS - t0)) s; SIGINT"
kill -INT "$run_pid"

rc=0
wait "$run_pid" || rc=$?
kill -0 "$prom_pid" 2>/dev/null || fail "Prometheus exited: $(tail -n 5 "$pdir/log")"
[ "$rc" -eq 0 ] || fail "imapstress exit $rc: $(tail -n 5 "$out.txt")"
if grep -q 'nobody scraped' "$out.txt"; then
	fail "Prometheus never scraped the final values: $(tail -n 5 "$pdir/log")"
fi

# The final page was fully sent before imapstress exited; Prometheus may
# still be committing it, so wait (bounded) until the finished flag shows.
# The target is gone by now, so its series are stale: look back with
# *_over_time, which reads the samples themselves.
fin=-
for _ in $(seq 150); do
	fin=$(query 'max_over_time(imapstress_finished[10m])' || echo -)
	[ "$fin" = 1 ] && break
	sleep 0.2
done
assert_eq 1 "$fin" "imapstress_finished in Prometheus"

summary "$out.json" commands.APPEND.ok commands.APPEND.no commands.APPEND.bad
want_ok=${S[0]} want_n=$((S[0] + S[1] + S[2]))
got_ok=$(query 'last_over_time(imapstress_commands_total{command="APPEND",result="ok"}[10m])')
got_n=$(query 'last_over_time(imapstress_command_duration_seconds_count{command="APPEND"}[10m])')
inf=$(query 'last_over_time(imapstress_command_duration_seconds_bucket{command="APPEND",le="+Inf"}[10m])')
note "APPEND ok: JSON $want_ok, Prometheus $got_ok; histogram count $got_n (+Inf $inf)"
assert_ge "$want_ok" 1 "APPEND ok in the JSON summary"
assert_eq "$want_ok" "$got_ok" "last APPEND ok counter in Prometheus"
assert_eq "$want_n" "$got_n" "APPEND histogram count in Prometheus"
assert_eq "$want_n" "$inf" "APPEND le=+Inf bucket"
# What the tool promises of its scrapes, from the samples themselves:
# every scrape until the final page was served (up 1; after it the
# endpoint is gone, up 0 is right), the counter only grows, and 10
# samples came before the final page's.
check=$(curl -sf --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
	--data-urlencode 'query=imapstress_commands_total{command="APPEND",result="ok"}[10m]' |
	"$PYTHON" -c '
import json, sys, urllib.parse, urllib.request
ctr = json.load(sys.stdin)["data"]["result"][0]["values"]
url = "http://127.0.0.1:%s/api/v1/query?" % sys.argv[1]
up = json.load(urllib.request.urlopen(url + urllib.parse.urlencode(
    {"query": "up[10m]"}), timeout=5))["data"]["result"][0]["values"]
last = float(ctr[-1][0])
down = [t for t, v in up if float(t) <= last and v != "1"]
vals = [int(float(v)) for _, v in ctr]
falls = sum(1 for a, b in zip(vals, vals[1:]) if b < a)
final = vals[-1]
before = sum(1 for v in vals if v < final)
print(len(ctr), len(down), falls, before, " ".join(map(str, vals)))
' "$pport") || fail "cannot read the samples from Prometheus"
read -r nctr ndown nfalls nbefore vals <<<"$check"
note "APPEND ok samples: $vals ($nctr)"
if [ "$ndown" -gt 0 ]; then
	note "up over the run: $(query_series 'up[10m]')"
	note "scrape durations: $(query_series 'scrape_duration_seconds[10m]')"
fi
assert_eq 0 "$ndown" "scrapes not served (up 0) before the final page"
assert_eq 0 "$nfalls" "APPEND ok samples below the one before"
assert_ge "$nctr" 11 "APPEND ok samples (10 during the run, then the final page)"
assert_ge "$nbefore" 1 "a scrape during the run (a sample below the final count)"
echo "PASS: $TEST_NAME"
