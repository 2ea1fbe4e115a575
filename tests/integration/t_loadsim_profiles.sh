#!/bin/bash
# The shipped LoadSim scenarios (profiles/loadsim-online.conf,
# profiles/loadsim-cached.conf) parse: --profile-check exits 0, says the
# LoadSim keys are acted on by the driver, and prints the seed's rows
# (send mail 12 / 7, ...); a bad LoadSim value is one "FILE:LINE: KEY:"
# line and exit 2.  No server needed.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

check() {
	rc=0
	run_with_timeout 20 "$IMAPSTRESS" --profile "$1" --profile-check \
		>"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
	out=$(cat "$TEST_TMP/out")
	err=$(cat "$TEST_TMP/err")
}

check "$ROOT/profiles/loadsim-online.conf"
assert_eq 0 "$rc" "online: --profile-check exit status (stderr: $err)"
assert_eq "" "$err" "online: stderr"
assert_match '^LoadSim extension: the profile user driver acts on the actions' "$out" "online: acted on"
assert_match '^  day 28800 s, run in 600 s \(x48\.0\)$' "$out" "online: time compression"
assert_match '^    send_mail +12\.00  \(72\.00/h\)$' "$out" "online: send mail 12/day at x48: 72 per run hour"
assert_match '^    browse_mail +20\.00 ' "$out" "online: browse mail"
assert_match '^    meeting_request +1\.40 ' "$out" "online: meeting requests"
assert_match 'received 208\.00, sent counting recipients 52\.00' "$out" "online: received/sent"
assert_match '^  client outlook_online: online mode$' "$out" "online: client mode"
assert_match '^  distribution lists: 100 of 2\.\.20 members \(average 10\)$' "$out" "online: lists"
assert_match 'inbox 100, deleted 1, 10 new folders of 10, calendar 25, contacts 128, mean size 75\.0 KiB' "$out" "online: init table"

check "$ROOT/profiles/loadsim-cached.conf"
assert_eq 0 "$rc" "cached: --profile-check exit status (stderr: $err)"
assert_match '^    send_mail +7\.00 ' "$out" "cached: send mail 7/day"
assert_match '^    log_off +3\.00 ' "$out" "cached: log off 3/day"
assert_match 'received 161\.90, sent counting recipients 44\.12' "$out" "cached: received/sent"
assert_match '^  client outlook_cached: cached mode$' "$out" "cached: client mode"
if grep -q '^    browse_mail ' "$TEST_TMP/out"; then
	fail "cached: browse mail is 0 in the seed, yet printed"
fi

sed 's/^  clean_inbox_per_day = 20$/  clean_inbox_per_day = twenty/' \
	"$ROOT/profiles/loadsim-cached.conf" >"$TEST_TMP/bad.conf"
check "$TEST_TMP/bad.conf"
assert_eq 2 "$rc" "bad value: exit status"
assert_eq "" "$out" "bad value: stdout"
line=$(grep -n 'clean_inbox_per_day' "$TEST_TMP/bad.conf" | cut -d: -f1)
assert_match "^imapstress: profile $TEST_TMP/bad.conf:$line: clean_inbox_per_day: 'twenty': not a number" "$err" "bad value: message"
assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "bad value: one line"
