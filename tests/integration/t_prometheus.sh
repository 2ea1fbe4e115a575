#!/bin/bash
# --metrics-listen under a real Prometheus (Debian's package, run privately:
# own config and storage in TEST_TMP, loopback, scrape interval 2 s).  A
# 25 s run against the private Dovecot is scraped while it goes on;
# --metrics-linger keeps the endpoint up after the run until Prometheus has
# fetched the final page.  Then the test asks Prometheus's HTTP API: the last
# APPEND ok counter and the APPEND histogram count equal the run's JSON
# summary, and the counter was scraped while the run went on (some sample
# is below the final count).  The page
# also passes `promtool check metrics`.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${DOVECOT:-/usr/sbin/dovecot}" "${PROMETHEUS:=prometheus}" "${PYTHON:-python3}"

dovecot_start
out=$TEST_TMP/run
: >"$out.txt"
"$IMAPSTRESS" -p "$DOVECOT_PORT" --users 1-20 -c 10 --seed 3 -d 25 \
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
# during the run.  Scrapes every 2 s with a 2 s timeout: a page served late
# by a loaded machine still counts.
pport=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pdir=$(make_tmpdir)
cat >"$pdir/prometheus.yml" <<YAML
global:
  scrape_interval: 2s
  scrape_timeout: 2s
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

rc=0
wait "$run_pid" || rc=$?
kill -0 "$prom_pid" 2>/dev/null || fail "Prometheus exited: $(tail -n 5 "$pdir/log")"
[ "$rc" -eq 0 ] || fail "imapstress exit $rc: $(tail -n 5 "$out.txt")"
if grep -q 'nobody scraped' "$out.txt"; then
	fail "Prometheus never scraped the final values: $(tail -n 5 "$pdir/log")"
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
samples=$(query 'count_over_time(imapstress_commands_total{command="APPEND",result="ok"}[10m])')
inf=$(query 'last_over_time(imapstress_command_duration_seconds_bucket{command="APPEND",le="+Inf"}[10m])')
# The smallest sample: a page scraped while the run went on holds fewer
# APPENDs than the final one.
first=$(query 'min_over_time(imapstress_commands_total{command="APPEND",result="ok"}[10m])')
note "APPEND ok: JSON $want_ok, Prometheus $got_ok; histogram count $got_n (+Inf $inf); $samples samples, the smallest $first"
assert_ge "$want_ok" 1 "APPEND ok in the JSON summary"
assert_eq "$want_ok" "$got_ok" "last APPEND ok counter in Prometheus"
assert_eq "$want_n" "$got_n" "APPEND histogram count in Prometheus"
assert_eq "$want_n" "$inf" "APPEND le=+Inf bucket"
# Scraped during the run, not only at the end: some sample is below the
# final count.  Not how many: at load 40 Prometheus took 9 scrapes of a
# 20 s run at a 1 s interval, and the old bound of 10 failed.
if [ "${samples%%.*}" -lt 2 ] 2>/dev/null || [ "$samples" = - ]; then
	# Say why before failing: were scrapes made and failed (up 0, slow
	# pages), or made too late?
	note "up over the run: $(query_series 'up[10m]')"
	note "scrape durations: $(query_series 'scrape_duration_seconds[10m]')"
	note "Prometheus log: $(tail -n 5 "$pdir/log")"
fi
assert_ge "$samples" 2 "scrapes of the APPEND counter"
first=${first%%.*}
assert_ge "$((want_ok - 1))" "$first" "a scrape during the run (the smallest sample below the final count)"
echo "PASS: $TEST_NAME"
