#!/bin/bash
# A profile client without IMAP IDLE (imap_idle = no) polls with NOOP once
# every 5 s (users_session.c, POLL_US) between its jobs.  Before, each
# NOOP's OK freed the connection and the next NOOP went out at once: a
# NOOP per round trip, 13,400 an hour per user instead of 720, most of
# the client's CPU and all of its system time.  10 LoadSim users with no
# action due (1x speed: a day is 8 hours), against fakeimapd's mail
# store for 8 s after a 1 s ramp: each user polls at most
# 1 + 8 / 5 = 2 times (the first when its set-up is done), so the run
# holds at most 30 NOOPs (one more per user for a poll at a boundary),
# and at least one per user; and no command error.  Before the fix:
# 185,588 NOOPs.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

USERS=10
fake_lmtp_start

cat >"$TEST_TMP/profile" <<PROFILE
lmtp_port = $FAKE_LMTP
total_user_count = $USERS
rampup_time = 1s
day_length = 8 hours
user loadsim {
  count = 100%
  username_format = np%n
  browse_mail_per_day = 1
}
client online {
  count = 100%
  client_mode = online
  imap_idle = no
}
PROFILE

rc=0
run_with_timeout 60 "$IMAPSTRESS" --profile "$TEST_TMP/profile" \
	--port "$FAKE_PORT" --duration 9 --seed 3 --json "$TEST_TMP/run.json" \
	>"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" || rc=$?
assert_eq 0 "$rc" "run exit status (stderr: $(tail -n 3 "$TEST_TMP/run.err"))"
assert_match '^errors: no=0 bad=0 bye=0 disconnect=0 timeout=0 protocol=0' \
	"$(cat "$TEST_TMP/run.out")" "no command errors"
noops=$(summary_get "$TEST_TMP/run.json" commands.NOOP.ok)
note "NOOP $noops for $USERS users in 9 s"
assert_ge "$noops" "$USERS" "every user polled"
[ "$noops" -le $((USERS * 3)) ] ||
	fail "$noops NOOPs from $USERS users in 9 s: more than one per 5 s each"
