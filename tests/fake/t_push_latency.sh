#!/bin/bash
# t_push_latency.sh: push latency measured against a server whose push
# delay is known.  fakeimapd's mail-store mode (--lmtp-port) answers each
# LMTP recipient 250 and sends `* N EXISTS` to the user's IDLE connections
# exactly D ms later (tests/fake/fake_store.h).
#
# 1. The fake itself, with its own LMTP and IMAP client
#    (tests/fake/store_selftest.py): no EXISTS before D, every IMAP command
#    a profile user sends acts on the stored mail.
# 2. imapstress in profile mode against it, D = 20 ms and D = 200 ms:
#    what the tool promises, whatever the machine's load.  The reported
#    push latency (LMTP 250 -> EXISTS) p50 is never below D; each EXISTS
#    is matched to its own delivery (p50 less than half a delivery
#    interval above the fake's own 250 -> EXISTS median); at least 8
#    samples, no push missed, no failed delivery, and every 250 the fake
#    gave counted.  The JSON summary's figures are the ones checked; the
#    text summary must have the row.  Nothing is retried.
#
# How close p50 comes to D is the machine's, not the tool's: on a busy
# machine the fake's own timer fires late (its push_lag_p50_us is then
# as far above D as the client's p50), so that figure is a benchmark's,
# scripts/bench-push-latency, which prints D, p50 and p50/D.
#
# Part 2 needs the profile user driver; while imapstress still says the
# driver is not built yet, the test says SKIP with that reason (exit 77).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
[ -x "$FAKEIMAPD" ] || fail "no fakeimapd at $FAKEIMAPD"
[ -x "$IMAPSTRESS" ] || fail "no imapstress at $IMAPSTRESS"

here=$(cd "$(dirname "$0")" && pwd)
PYTHONDONTWRITEBYTECODE=1 run_with_timeout 120 python3 "$here/store_selftest.py" \
	>"$TEST_TMP/selftest.out" 2>&1 || {
	grep -v '^ok' "$TEST_TMP/selftest.out" >&2
	fail "fakeimapd mail-store self-test"
}
note "fakeimapd mail-store mode: $(grep -c '^ok' "$TEST_TMP/selftest.out") checks ok"

# A profile of users that only receive mail and sit in IDLE: every INBOX
# delivery is one push sample.  Four users, one connection each.
write_profile() {	# FILE LMTP_PORT
	cat >"$1" <<PROFILE
lmtp_port = $2
lmtp_max_parallel_count = 4
total_user_count = 4
rampup_time = 1s

user receiver {
  count = 100%
  username_format = push%{username_idx | lfill(2, '0')}
  mail_session_length = 1 hour
  mail_inbox_delivery_interval = 300ms
  mail_spam_delivery_interval = 1 hour
  mail_action_delay = 1 hour
  mail_action_repeat_delay = 1 hour
  mail_send_interval = 1 hour
  mail_write_duration = 1s
  mail_inbox_reply_percentage = 0
  mail_inbox_delete_percentage = 0
  mail_inbox_move_percentage = 0
  mail_inbox_move_filter_percentage = 0
}

client idler {
  count = 100%
  connection_max_count = 1
  imap_idle = yes
  imap_fetch_immediate = UID FLAGS
  imap_fetch_manual = RFC822.SIZE
  login_interval = 1 hour
}
PROFILE
}

# start_fake DELAY_MS: sets FAKE_PID FAKE_PORT FAKE_LMTP.
start_fake() {
	local dir
	dir=$(make_tmpdir)
	"$FAKEIMAPD" --port 0 --port-file "$dir/port" --lmtp-port-file "$dir/lmtp" \
		--push-delay-ms "$1" --stats-file "$dir/stats" \
		>"$dir/out" 2>"$dir/err" &
	FAKE_PID=$!
	FAKE_DIR=$dir
	on_exit "stop_bg $FAKE_PID"
	local i
	for i in $(seq 100); do
		[ -s "$dir/lmtp" ] && break
		kill -0 "$FAKE_PID" 2>/dev/null || fail "fakeimapd died: $(cat "$dir/err")"
		sleep 0.1
	done
	[ -s "$dir/lmtp" ] || fail "fakeimapd wrote no LMTP port"
	FAKE_PORT=$(cat "$dir/port")
	FAKE_LMTP=$(cat "$dir/lmtp")
}

# The driver: until it exists, imapstress refuses a valid profile.
write_profile "$TEST_TMP/probe.profile" 24
probe_rc=0
"$IMAPSTRESS" --profile "$TEST_TMP/probe.profile" --host 127.0.0.1 --port 9 \
	--duration 1 >"$TEST_TMP/probe.out" 2>&1 || probe_rc=$?
if grep -q 'driver is not built yet' "$TEST_TMP/probe.out"; then
	skip "profile part: $(grep -m1 'driver is not built yet' "$TEST_TMP/probe.out" | cut -c1-200)"
fi

# run_push D: one profile run against a fake with delay D; sets n p50 p95
# mx missed ok failed, and checks what does not depend on the machine's
# load.
run_push() {
	local D=$1 P out rc
	start_fake "$D"
	P=$TEST_TMP/push$D.profile
	write_profile "$P" "$FAKE_LMTP"
	out=$TEST_TMP/run$D
	rc=0
	run_with_timeout 120 "$IMAPSTRESS" --profile "$P" --host 127.0.0.1 \
		--port "$FAKE_PORT" --duration 6 --seed 3 --json "$out.json" \
		>"$out.txt" 2>"$out.err" || rc=$?
	assert_eq 0 "$rc" "D=$D: imapstress exit status (stderr: $(tail -n 5 "$out.err"))"
	kill "$FAKE_PID"
	wait "$FAKE_PID" || fail "D=$D: fakeimapd exit status $? ($(cat "$FAKE_DIR/err"))"
	read -r n p50 p95 mx missed ok failed < <(python3 - "$out.json" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
p = s["profile"]
e = p["push"]["exists"]
l = p["lmtp"]
print(e["count"], e["latency_us"]["p50"], e["latency_us"]["p95"],
      e["latency_us"]["max"], p["push_missed"], l["ok"],
      l["tempfail"] + l["permfail"] + l["no_reply"])
PY
	) || fail "D=$D: no profile section in the JSON summary"
	fake_p50=$(sed -n 's/^push_lag_p50_us=//p' "$FAKE_DIR/stats")
	[ -n "$fake_p50" ] || fail "D=$D: no push_lag_p50_us in the fake's stats"
	note "D=$D ms: $n push samples, p50 ${p50} us (the fake's own ${fake_p50} us), p95 ${p95} us, max ${mx} us, missed $missed, $ok deliveries"
	assert_ge "$n" 8 "D=$D: push samples (2 per user at least)"
	# The fake sends EXISTS D after the 250: a median below D would be
	# a measuring error whatever the load.
	assert_ge "$p50" "$((D * 1000))" "D=$D: push p50 not below the server's delay"
	assert_eq 0 "$missed" "D=$D: push missed"
	assert_eq 0 "$failed" "D=$D: deliveries without a 250"
	# Every 250 the fake gave was counted by the run, and a sample needs
	# a delivery that reached the mailbox.
	local fake_rcpts fake_delivered
	fake_rcpts=$(sed -n 's/^lmtp_rcpts=//p' "$FAKE_DIR/stats")
	fake_delivered=$(sed -n 's/^lmtp_delivered=//p' "$FAKE_DIR/stats")
	assert_eq "$fake_rcpts" "$ok" "D=$D: deliveries the fake answered 250"
	assert_ge "$fake_delivered" "$n" "D=$D: samples, deliveries in the mailbox"
	assert_match "^250->EXISTS +$n " "$(cat "$out.txt")" "D=$D: text summary row"
}

# Above D, what counts is that each EXISTS was matched to its own
# delivery: matched to the user's one before it, p50 would be a delivery
# interval (300 ms) above the time the fake itself took from 250 to
# EXISTS.  So the bound is the fake's own median plus half an interval:
# the machine's scheduling of the fake (4-6 ms at load 16, where D + 10%
# failed) is in both figures; the client's own part, about 0.2 ms idle
# and at most 4 ms at load 16, is far below 150 ms.
for D in 20 200; do
	run_push "$D"
	assert_ge "$((fake_p50 + 150000))" "$p50" \
		"D=$D: push p50 within half a delivery interval of the fake's own ${fake_p50} us (its own delivery)"
done
