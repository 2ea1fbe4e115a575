#!/bin/bash
# profile=FILE / --profile FILE at the command line, no server needed:
#   - --profile-check on a valid profile prints the expanded plan (users
#     per block, client kinds, expected deliveries) and exits 0;
#   - the same profile without --profile-check runs its users: against a
#     closed port it stops as "server unusable" (exit 3);
#   - a bad duration, an unknown key and counts not adding up to 100% each
#     exit 2 with exactly one stderr line "imapstress: profile FILE:LINE:
#     KEY: ...", nothing on stdout.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

P=$TEST_TMP/p.conf
cat >"$P" <<'PROFILE'
# two user kinds, two IDLE clients
lmtp_port = 24
total_user_count = 40
rampup_time = 4 secs

user heavy {
  count = 25%
  username_format = heavy%{username_idx | lfill(3, '0')}
  mail_inbox_delivery_interval = 10s
  mail_spam_delivery_interval = 1 min
}
user light {
  count = 75%
  username_format = light%n
  mail_inbox_delivery_interval = 1 hour
}
client desk {
  count = 60%
  imap_idle = yes
}
client phone {
  count = 40%
  imap_idle = yes
}
PROFILE

# run NAME ARGS...: exit status in $rc, stdout in $out, stderr in $err
run() {
	rc=0
	run_with_timeout 20 "$IMAPSTRESS" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
	out=$(cat "$TEST_TMP/out")
	err=$(cat "$TEST_TMP/err")
}

run --profile "$P" --profile-check
assert_eq 0 "$rc" "--profile-check exit status (stderr: $err)"
assert_eq "" "$err" "--profile-check stderr"
assert_match '^user heavy \(line 6\): 10 users \(count = 25%\), heavy001 \.\. heavy010$' "$out" "heavy block"
assert_match '^user light \(line 12\): 30 users \(count = 75%\), light1 \.\. light30$' "$out" "light block"
assert_match '^client desk \(line 17\): 24 users' "$out" "desk client share"
assert_match '^client phone \(line 21\): 16 users' "$out" "phone client share"
# 10 users x (360 + 60) + 30 x 1 per hour
assert_match '^deliveries expected in all: 4230/hour' "$out" "expected deliveries"
# --profile-users: the same blocks' shares of another total.
run --profile "$P" --profile-check --profile-users 8
assert_eq 0 "$rc" "--profile-users 8 --profile-check exit status (stderr: $err)"
assert_match '^user heavy \(line 6\): 2 users \(count = 25%\), heavy001 \.\. heavy002$' "$out" "heavy block of 8"
assert_match '^user light \(line 12\): 6 users \(count = 75%\), light1 \.\. light6$' "$out" "light block of 8"

# Without --profile-check the users run: with no server at all (a closed
# loopback port) the run ends as "server unusable", exit 3.
run "profile=$P" port=1 secs=1
assert_eq 3 "$rc" "a valid profile runs (stderr: $err)"
assert_match 'server unusable: no session got in' "$err" "says why it stopped"

# bad FILE LINE KEY: one error line naming the file, line and key
bad() {
	run --profile "$1"
	assert_eq 2 "$rc" "exit status for $1"
	assert_eq "" "$out" "stdout for $1"
	assert_eq 1 "$(printf '%s\n' "$err" | wc -l)" "one line for $1: $err"
	assert_match "^imapstress: profile $1:$2: $3: " "$err" "names $1:$2 and $3"
}
sed 's/mail_spam_delivery_interval = 1 min/mail_spam_delivery_interval = 1 fortnight/' "$P" >"$TEST_TMP/dur.conf"
bad "$TEST_TMP/dur.conf" 10 mail_spam_delivery_interval
sed 's/imap_idle = yes/imap_idel = yes/' "$P" >"$TEST_TMP/key.conf"
bad "$TEST_TMP/key.conf" 19 imap_idel
sed 's/count = 75%/count = 70%/' "$P" >"$TEST_TMP/sum.conf"
bad "$TEST_TMP/sum.conf" 13 count
assert_match "add up to 95%, not 100%" "$err" "the sum is shown"
