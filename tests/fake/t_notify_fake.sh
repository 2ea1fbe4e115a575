#!/bin/bash
# t_notify_fake.sh: profile clients with push = notify against fakeimapd's
# mail store, whose NOTIFY (tests/fake/fake_notify.c) pushes without IDLE
# and, with --notify-overflow 4, replaces each session's 4th notification
# by `* OK [NOTIFICATIONOVERFLOW]`.
# 1. NOTIFY offered: exit 0, no error, no session refused; the client
#    counted exactly the overflows the fake sent (and answered each with
#    a new NOTIFY SET, as the fake counts them: pushes go on, none
#    missed); every delivery is
#    announced, waiting at the end, or came while no session was up; one
#    latency sample per announcement, all under NOTIFY's name.
# 2. NOTIFY not in the capabilities: each session is counted as refused
#    and named once on stderr, waits in IDLE instead (its pushes counted
#    as IDLE's), and the run exits 1.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

CAPS="IMAP4rev1 LITERAL+ MULTIAPPEND IDLE UIDPLUS MOVE"

# write_profile FILE LMTP_PORT: tests/profiles/push-notify.conf with every
# client block push = notify.
write_profile() {
	sed -e "s/^lmtp_port = .*/lmtp_port = $2/" -e 's/push = idle/push = notify/' \
		"$ROOT/tests/profiles/push-notify.conf" >"$1"
}

# figures NAME: "MECH delivered announced unannounced dropped missed" for
# both mechanisms, "samples IDLE NOTIFY", "counters overflow refused
# missed missed_notify", from NAME's JSON and counts.
figures() {
	"$PYTHON" - "$TEST_TMP/$1.json" "$TEST_TMP/$1.counts" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"summary"' in l][-1]
p = s["profile"]
t = json.load(open(sys.argv[2]))["totals"]["push"]
for m in ("idle", "notify"):
    x = t[m]
    print(m, x["delivered"], x["announced"], x["unannounced"], x["dropped"], x["missed"])
print("samples", p["push"]["exists"]["count"], p["push"]["notify_exists"]["count"])
print("counters", p["notify"]["notify_overflow"], p["notify"]["notify_refused"],
      p["push_missed"], p["notify"]["push_missed_notify"])
PY
}

run_notify() {	# NAME CAPS [fakeimapd ARGS...]; exit status in RC
	local name=$1 caps=$2
	shift 2
	fake_lmtp_start --caps "$caps" --push-delay-ms 20 \
		--stats-file "$TEST_TMP/$name.stats" "$@"
	write_profile "$TEST_TMP/$name.profile" "$FAKE_LMTP"
	RC=0
	run_with_timeout 60 "$IMAPSTRESS" --profile "$TEST_TMP/$name.profile" \
		--host 127.0.0.1 --port "$FAKE_PORT" --duration 5 --seed 9 \
		--profile-counts "$TEST_TMP/$name.counts" --json "$TEST_TMP/$name.json" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || RC=$?
	fake_stop	# SIGTERM: the fake writes its stats file
	figures "$name" >"$TEST_TMP/$name.fig" || fail "$name: unreadable JSON or counts"
}

# accounted NAME MECH: every delivery of MECH's users accounted, none
# missed; sets ANNOUNCED.
accounted() {
	local d a u x m
	read -r _ d a u x m < <(grep "^$2 " "$TEST_TMP/$1.fig")
	note "$1 $2: $d INBOX deliveries, $a announced, $u not announced by the end, $x while no session was up, $m missed"
	assert_eq "$d" "$((a + u + x))" "$1 $2: each delivery announced, waiting or before a session"
	assert_eq 0 "$m" "$1 $2: missed"
	ANNOUNCED=$a
}

# 1. NOTIFY offered.
run_notify notify "$CAPS NOTIFY" --notify-overflow 4
assert_eq 0 "$RC" "notify: exit status (stderr: $(tail -n 3 "$TEST_TMP/notify.err"))"
assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' \
	"$(cat "$TEST_TMP/notify.out")" "notify: no errors"
accounted notify notify
assert_ge "$ANNOUNCED" 8 "notify: deliveries announced"
read -r _ s_idle s_notify < <(grep '^samples ' "$TEST_TMP/notify.fig")
assert_eq "$ANNOUNCED" "$s_notify" "notify: a NOTIFY latency sample per announcement"
assert_eq 0 "$s_idle" "notify: no IDLE samples"
read -r _ overflow refused _ _ < <(grep '^counters ' "$TEST_TMP/notify.fig")
fake_overflows=$(sed -n 's/^notify_overflows=//p' "$TEST_TMP/notify.stats")
note "notify: the fake sent $fake_overflows NOTIFICATIONOVERFLOW, the client counted $overflow"
assert_ge "$fake_overflows" 1 "notify: the fake overflowed (4th notification of a session)"
assert_eq "$fake_overflows" "$overflow" "notify: overflows counted"
# Each overflow is answered by a new NOTIFY SET (but one a session may
# meet just before the run's end), besides each session's first.
sets=$(sed -n 's/^notify_sets=//p' "$TEST_TMP/notify.stats")
logins=$(sed -n 's/^logins=//p' "$TEST_TMP/notify.stats")
note "notify: $sets NOTIFY SET over $logins sessions"
assert_ge "$sets" "$fake_overflows" "notify: NOTIFY SET again after each overflow"
assert_ge "$((logins + fake_overflows))" "$sets" "notify: one NOTIFY SET per session and per overflow at most"
# Without the new SET a session would overflow once and hear nothing more.
assert_ge "$fake_overflows" "$((logins + 1))" "notify: sessions notified again after an overflow"
assert_eq 0 "$refused" "notify: sessions refused"
assert_match '^push by +IDLE +NOTIFY' "$(cat "$TEST_TMP/notify.out")" "notify: side-by-side table"

# 2. NOTIFY not offered: refused per session, IDLE instead, exit 1.
run_notify plain "$CAPS"
assert_eq 1 "$RC" "plain: exit status (a NOTIFY client without NOTIFY fails the run)"
accounted plain idle
assert_ge "$ANNOUNCED" 8 "plain: deliveries announced in IDLE"
read -r _ overflow refused _ _ < <(grep '^counters ' "$TEST_TMP/plain.fig")
logins=$(sed -n 's/^logins=//p' "$TEST_TMP/plain.stats")
assert_ge "$refused" 8 "plain: sessions refused NOTIFY (8 users)"
assert_ge "$logins" "$refused" "plain: refused at most once per session"
read -r _ d _ < <(grep '^notify ' "$TEST_TMP/plain.fig")
assert_eq 0 "$d" "plain: no delivery counted as NOTIFY's"
assert_match 'push = notify: the server does not advertise NOTIFY in CAPABILITY; this session waits in IDLE instead' \
	"$(cat "$TEST_TMP/plain.err")" "plain: the refusal named"
note "plain: $refused sessions refused NOTIFY of $logins logins"
exit 0
