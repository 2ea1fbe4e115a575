#!/bin/bash
# The foreign-mail guard (issue 31) against the private Dovecot: an
# account holding 20 messages imapstress did not put there (appended by
# foreign_mail.py, Message-IDs <foreign-N@test>):
#   - the default mix, expunge=100, a scripted test on that mailbox and a
#     profile run each stop before any destructive command (the rawlog
#     has no EXPUNGE, STORE of \Deleted, MOVE, DELETE or CLOSE; the
#     scripted run writes no rawlog, there the server's mailboxes say so),
#     exit 2 with the one line naming user, mailbox, count and option, and
#     the same 20 messages are there afterwards;
#   - with --allow-foreign-mail the default mix goes ahead (it expunges);
#   - one foreign message among 100 marked ones is refused too;
#   - a clean account runs as before: exit 0, EXPUNGEs sent, at most one
#     search per worker (none where the mailbox was empty when selected).
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
dovecot_lmtp_start
PORT=$DOVECOT_PORT
PASS=$DOVECOT_PASS
HELPER=$(dirname "$0")/foreign_mail.py
PY=${PYTHON:-python3}

fill() {
	run_with_timeout 60 "$PY" "$HELPER" fill "$PORT" "$PASS" "$@" ||
		fail "could not fill $*"
}
ids() {
	run_with_timeout 60 "$PY" "$HELPER" ids "$PORT" "$PASS" "$@"
}
WANT=$(seq 0 19 | sed 's/.*/<foreign-&@test>/' | sort)


# refused NAME USER BOX N: the run NAME exited 2 with the one line, sent
# nothing destructive, and BOX still holds exactly the 20 foreign ones.
refused() {
	local name=$1 user=$2 box=$3 n=$4 line
	assert_eq 2 "$RC" "$name: exit status (stderr: $(head -c 600 "$TEST_TMP/$name.err"))"
	line=$(grep -c 'foreign-mail check' "$TEST_TMP/$name.err")
	assert_eq 1 "$line" "$name: one refusal line"
	assert_match "^Error: foreign-mail check: user $user, mailbox \"$box\" holds $n messages? without the X-Imapstress header \\(mail imapstress did not put there\\); nothing was deleted; --allow-foreign-mail runs anyway\$" \
		"$(grep 'foreign-mail check' "$TEST_TMP/$name.err")" "$name: the line"
}

# 1. The default mix, imaptest's pasted line, on an INBOX of 20 foreign.
fill f1 INBOX 20
RAW=$(make_tmpdir)
stress mix host=127.0.0.1 port="$PORT" user=f1 pass="$PASS" clients=5 secs=5 \
	--rawlog --rawlog-dir "$RAW"
refused mix f1 INBOX 20
assert_eq 0 "$(guard_destroyed "$RAW")" "default mix: destructive commands sent"
# One search per mailbox and worker (workers: one per CPU by default).
n=$(guard_searches "$RAW")
assert_ge "$n" 1 "default mix: searches"
[ "$n" -le "$(nproc)" ] || fail "default mix: $n searches, more than one per worker ($(nproc))"
assert_eq "$WANT" "$(ids f1 INBOX | grep foreign)" "default mix: the 20 foreign messages"
summary "$TEST_TMP/mix.json" stop_reason
assert_eq "foreign mail" "${S[0]}" "default mix: stop_reason"

# expunge=100 (and several workers: each asks once).
fill f2 INBOX 20
RAW=$(make_tmpdir)
stress expunge host=127.0.0.1 port="$PORT" user=f2 pass="$PASS" clients=10 \
	--workers 2 secs=5 expunge=100 --rawlog --rawlog-dir "$RAW"
refused expunge f2 INBOX 20
assert_eq 0 "$(guard_destroyed "$RAW")" "expunge=100: destructive commands sent"
n=$(guard_searches "$RAW")
assert_ge "$n" 1 "expunge=100: searches"
[ "$n" -le 2 ] || fail "expunge=100: $n searches for 2 workers"
assert_eq "$WANT" "$(ids f2 INBOX | grep foreign)" "expunge=100: the 20 foreign messages"

# A scripted test on that mailbox (box=fbox): the set-up's check refuses
# before its DELETE; fbox is still there with the same 20.
fill f3 fbox 20
TESTS=$(make_tmpdir)
printf 'ok store 1:* +flags \\deleted\nok expunge\n' >"$TESTS/expunge"
stress script host=127.0.0.1 port="$PORT" user=f3 pass="$PASS" box=fbox \
	test="$TESTS"
refused script f3 fbox 20
assert_eq "$WANT" "$(ids f3 fbox | grep foreign)" "scripted test: the 20 foreign messages in fbox"

# A profile run: its users delete and move what they read (in IDLE, so
# new mail is seen at once: a client without it polls every 5 s, the run's
# whole length).
fill fprof INBOX 20
RAW=$(make_tmpdir)
cat >"$TEST_TMP/p.profile" <<PROFILE
lmtp_port = $DOVECOT_LMTP_PORT
total_user_count = 1
rampup_time = 0s
user u {
  count = 100%
  username_format = fprof
  mail_inbox_delivery_interval = 200ms
  mail_action_delay = 100ms
  mail_action_repeat_delay = 100ms
  mail_send_interval = 1h
  mail_inbox_reply_percentage = 0
  mail_inbox_delete_percentage = 50
  mail_inbox_move_percentage = 50
}
client c {
  count = 100%
  imap_idle = yes
  login_interval = 1s
}
PROFILE
stress profile host=127.0.0.1 port="$PORT" pass="$PASS" \
	--profile "$TEST_TMP/p.profile" secs=5 --rawlog --rawlog-dir "$RAW"
refused profile fprof INBOX 20
assert_eq 0 "$(guard_destroyed "$RAW")" "profile: destructive commands sent"
assert_eq "$WANT" "$(ids fprof INBOX | grep foreign)" "profile: the 20 foreign messages"

# 2. One foreign message among 100 marked ones.
fill f4 INBOX 1 100
RAW=$(make_tmpdir)
stress one host=127.0.0.1 port="$PORT" user=f4 pass="$PASS" clients=5 secs=5 \
	expunge=100 --rawlog --rawlog-dir "$RAW"
refused one f4 INBOX 1
assert_eq 0 "$(guard_destroyed "$RAW")" "one of 101: destructive commands sent"
assert_eq "<foreign-0@test>" "$(ids f4 INBOX | grep foreign)" "one of 101: the foreign message"

# A clean account: as before (exit 0, it expunges), no search at all.
RAW=$(make_tmpdir)
stress clean host=127.0.0.1 port="$PORT" user=fclean pass="$PASS" clients=5 \
	secs=4 --rawlog --rawlog-dir "$RAW"
assert_eq 0 "$RC" "clean account: exit status (stderr: $(head -c 600 "$TEST_TMP/clean.err"))"
assert_ge "$(guard_destroyed "$RAW")" 1 "clean account: destructive commands"
# Empty at its first SELECT needs no search; a worker whose first SELECT
# came after the run's own APPENDs asks once.
n=$(guard_searches "$RAW")
[ "$n" -le "$(nproc)" ] || fail "clean account: $n searches, more than one per worker"
note "clean account: $n searches (workers: $(nproc))"
# And again on what the first run left (its own, marked): one search, on.
RAW=$(make_tmpdir)
stress clean2 host=127.0.0.1 port="$PORT" user=fclean pass="$PASS" clients=5 \
	secs=4 --rawlog --rawlog-dir "$RAW"
assert_eq 0 "$RC" "clean account, second run: exit status (stderr: $(head -c 600 "$TEST_TMP/clean2.err"))"
assert_ge "$(guard_destroyed "$RAW")" 1 "clean account, second run: destructive commands"

# With --allow-foreign-mail the run goes ahead (on f1's 20).
RAW=$(make_tmpdir)
stress allow host=127.0.0.1 port="$PORT" user=f1 pass="$PASS" clients=5 secs=5 \
	--allow-foreign-mail --rawlog --rawlog-dir "$RAW"
assert_eq 0 "$RC" "--allow-foreign-mail: exit status (stderr: $(head -c 600 "$TEST_TMP/allow.err"))"
assert_ge "$(guard_destroyed "$RAW")" 1 "--allow-foreign-mail: destructive commands"
assert_eq 0 "$(guard_searches "$RAW")" "--allow-foreign-mail: searches"
