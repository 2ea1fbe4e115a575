#!/bin/bash
# Issue 37: bad input to `imapstress learn` is named by file and line and
# skipped, never fatal to the rest: a binary file, a POP3 session from the
# same rawlog_dir, a session cut inside an APPEND's literal, a file that is
# no rawlog, a .out without its .in.  A run that learns nothing exits 1
# with a message; bad usage exits 2.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

d=$TEST_TMP/logs
mkdir -p "$d"
# One good session, so that the rest can be seen not to stop it.
printf '%s\r\n' "1 SELECT INBOX" "2 FETCH 1 (UID BODY.PEEK[HEADER])" "3 LOGOUT" >"$d/good.in"
printf '%s\r\n' "* 3 EXISTS" "1 OK done" "2 OK done" "3 OK done" >"$d/good.out"
# A NUL on line 3.
printf '1 NOOP\r\n2 NOOP\r\nab\0cd\r\n' >"$d/binary.in"
printf '1 OK\r\n' >"$d/binary.out"
# POP3 (rawlog_dir logs every protocol).
printf '%s\r\n' "USER alice" "PASS secret" "STAT" "QUIT" >"$d/pop3.in"
printf '%s\r\n' "+OK Dovecot ready." "+OK" "+OK Logged in." >"$d/pop3.out"
# Cut in the middle of an APPEND: the literal claims 500 octets, 20 came.
printf '%s\r\n' "1 SELECT INBOX" "2 NOOP" "3 APPEND INBOX {500}" "Subject: cut short" >"$d/cut.in"
printf '%s\r\n' "* 0 EXISTS" "1 OK done" "2 OK done" "+ OK" >"$d/cut.out"
printf 'hello world\nnot a log\n' >"$d/notes.txt"
printf '%s\r\n' "* 1 EXISTS" >"$d/lonely.out"

rc=0
run_with_timeout 30 "$IMAPSTRESS" learn -o "$TEST_TMP/l" "$d" \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
err=$(cat "$TEST_TMP/err")
assert_eq 0 "$rc" "exit status with good and bad files (stderr: $err)"
assert_match "binary\.in:3: binary data \(a NUL octet\), not a rawlog: skipped" "$err" "binary file named with its line"
assert_match "pop3\.in:1: looks like POP3, SMTP or LMTP, not IMAP: skipped" "$err" "POP3 session named"
assert_match "cut\.in:3: truncated: a literal is 480 octets short at line 4; that command is not counted" "$err" "truncated session named"
assert_match "notes\.txt:1: neither a Dovecot rawlog .* nor an imapstress rawlog .*: skipped" "$err" "text file named"
assert_match "lonely\.out: a Dovecot \.out without its \.in: skipped" "$err" "lone .out named"
sum=$(cat "$TEST_TMP/l.summary")
# good and cut are learned (cut up to its cut), the other four skipped.
assert_match "^files: 2 read .*, 4 skipped$" "$sum" "files read and skipped"
assert_match "^sessions: 2 .* commands: 5, truncated: 1$" "$sum" "sessions and commands"
assert_match "^SELECT +2 " "$sum" "both SELECTs counted"
assert_match "^NOOP +1 " "$sum" "the cut session's NOOP counted"
grep -q '^APPEND' <<<"$sum" && fail "the cut APPEND was counted: $(grep '^APPEND' <<<"$sum")"

# Nothing to learn: exit 1 and a message.
rc=0
run_with_timeout 30 "$IMAPSTRESS" learn -o "$TEST_TMP/n" "$d/binary.in" "$d/notes.txt" \
	>/dev/null 2>"$TEST_TMP/err2" || rc=$?
assert_eq 1 "$rc" "exit status when nothing was learned"
assert_match "nothing learned: no IMAP session in 0 files read \(2 skipped\)" "$(cat "$TEST_TMP/err2")" "nothing-learned message"
[ ! -e "$TEST_TMP/n.mix" ] || fail "a mix was written although nothing was learned"

# Bad usage: exit 2.
for args in "" "--bogus $d" "-o" "--output="; do
	rc=0
	# shellcheck disable=SC2086 # word splitting wanted
	"$IMAPSTRESS" learn $args >/dev/null 2>&1 || rc=$?
	assert_eq 2 "$rc" "exit status of 'learn $args'"
done
note "ok: 5 bad files named and skipped, nothing-learned exit 1, usage exit 2"
