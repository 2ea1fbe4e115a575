#!/bin/bash
# profile=FILE / --profile FILE at the command line, no server needed:
#   - --profile-check on a valid profile prints the expanded plan (users
#     per block, client kinds, expected deliveries) and exits 0;
#   - the same profile without --profile-check runs its users: against a
#     closed port it stops as "server unusable" (exit 3);
#   - a bad duration, an unknown key and counts not adding up to 100% each
#     exit 2 with exactly one stderr line "imapstress: profile FILE:LINE:
#     KEY: ...", nothing on stdout;
#   - the shapes people paste (our own files in tests/profiles/, shaped
#     like imaptest's profile.conf and pop3-profile.conf and Dovecot's
#     documented tests) are read as imaptest reads them:
#     imap_status_interval is read (and unused, as in imaptest);
#     total_user_count = 4000000 with username_format = user%7n (Dovecot
#     2.3: a width without 0 is the plain number) gives user1 ..
#     user4000000 in under 1 GB; two `client pop3 {` blocks are two
#     blocks, the one with users a POP3 client (pop3_keep_mails: RETR,
#     no DELE; on port 110 without pop3_port); connection_max_count = 0 is a client
#     kind with no IMAP client; two user blocks giving the same names give
#     one user per name, the later block's; the docs' poweruser (delete
#     50, move 35, reply 50) is 50%, 17.5% and 16.25% of read mail.
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
	run_with_timeout 120 "$IMAPSTRESS" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
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

D=$ROOT/tests/profiles

run --profile "$D/imaptest-shape.conf" --profile-check
assert_eq 0 "$rc" "imaptest-shape.conf (stderr: $err)"
assert_match '^user busy \(line 9\): 20 users \(count = 100%\), prof1 \.\. prof20$' "$out" "busy block"
assert_match '^user quiet \(line 28\): 0 users' "$out" "the 0% block"
assert_match '^client Desk \(line 36\): 16 users \(count = 80%\), 5 connections each' "$out" "Desk"
assert_match '^  imap_status_interval 5 min: read and not used' "$out" "imap_status_interval read"
# delete 20; move 20 of the other 80 = 16; reply 50 of the other 64 = 32
assert_match 'delete 20%, move 16%, reply 32%' "$out" "imaptest's order of the actions"

run --profile "$D/pop3-shape.conf" --profile-check
assert_eq 0 "$rc" "pop3-shape.conf (stderr: $err)"
assert_match '^client pop3 \(line 22\): 10 users \(count = 100%\), POP3 on port 110: RETR new mail \(kept: no DELE\), QUIT, log in again 1 min after$' "$out" "POP3 block planned"

run --profile "$D/lmtp-only.conf" --profile-check
assert_eq 0 "$rc" "lmtp-only.conf (stderr: $err)"
assert_match '^client none \(line 15\): 6 users \(count = 100%\), connection_max_count = 0: no IMAP client' "$out" "no IMAP client"
assert_match '^deliveries expected in all: 32400/hour' "$out" "6 x (3600 + 1800)"

run --profile "$D/repeated-names.conf" --profile-check
assert_eq 0 "$rc" "repeated-names.conf (stderr: $err)"
assert_match '^profile .*: 15 users' "$out" "15 distinct users"
assert_match '^user early \(line 6\): 5 users \(count = 50%\), rep1 \.\. rep5$' "$out" "early keeps rep1..rep5"
assert_match '^user late \(line 12\): 10 users \(count = 50%\), rep6 \.\. rep15$' "$out" "late has rep6..rep15"
assert_match '^deliveries expected in all: 3600/hour' "$out" "5 x 360 + 10 x 180"

rc=0
/usr/bin/time -v "$IMAPSTRESS" --profile "$D/four-million.conf" --profile-check \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
out=$(cat "$TEST_TMP/out")
assert_eq 0 "$rc" "four-million.conf (stderr: $(tail -n 3 "$TEST_TMP/err"))"
assert_match '^user normal \(line 8\): 4000000 users \(count = 100%\), user1 \.\. user4000000$' "$out" "%7n names"
assert_match 'delete 50%, move 17.5%, reply 16.25%' "$out" "the docs' poweruser shares"
assert_match '^deliveries expected in all: 500000/hour' "$out" "4000000 every 8 hours"
kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$TEST_TMP/err")
note "4,000,000-user plan: peak RSS $kb KB"
[ "$kb" -lt 1048576 ] || fail "peak RSS of the plan $kb KB, not under 1 GB"
