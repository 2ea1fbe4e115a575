#!/bin/bash
# Issue 37 item 3: a session recorded by hand with a real client, Python's
# imaplib, against a private Dovecot with its rawlog on, and what
# `imapstress learn` makes of it: each command under its state, the
# commands no state stands for counted by name, the mailbox, FETCH items,
# flags and sizes the profile is built from.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}" "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS (run make imapstress)"

dovecot_start --fsync no --rawlog
"$DOVECOT_PRIVATE" rawlog-user --dir "$DOVECOT_DIR" carol || fail "rawlog-user failed"

run_with_timeout 60 "$PYTHON" - "$DOVECOT_PORT" "$DOVECOT_PASS" <<'PYEOF' || fail "the imaplib session failed"
import imaplib, sys
m = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
m.login("carol", sys.argv[2])
m.list()
m.create("Archive")
m.select("INBOX")
for n in (1, 2):
    body = ("From: dave@example.net\r\nSubject: note %d\r\n\r\n" % n +
            "x" * (1000 * n) + "\r\n").encode()
    assert m.append("INBOX", None, None, body)[0] == "OK"
m.noop()
m.search(None, "UNSEEN")
m.fetch("1:*", "(FLAGS)")
m.uid("FETCH", "1", "(BODY.PEEK[])")
m.store("1", "+FLAGS", "(\\Seen \\Answered)")
m.copy("1", "Archive")
m.store("2", "+FLAGS.SILENT", "(\\Deleted)")
m.expunge()
m.namespace()
try:
    m.getquotaroot("INBOX")	# no quota plugin here: BAD, still on the wire
except imaplib.IMAP4.error:
    pass
m.close()
m.logout()
PYEOF

rc=0
run_with_timeout 30 "$IMAPSTRESS" learn -o "$TEST_TMP/l" "$DOVECOT_RAWLOG_DIR" \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
assert_eq 0 "$rc" "learn's exit status ($(head -n 3 "$TEST_TMP/err"))"
[ ! -s "$TEST_TMP/err" ] || fail "learn complained: $(head -n 3 "$TEST_TMP/err")"
sum=$(cat "$TEST_TMP/l.summary")
note "summary:"
while IFS= read -r line; do note "  $line"; done <<<"$sum"
assert_match "^sessions: 1 \(1 with times\), users: 1, commands: 17, truncated: 0$" "$sum" "one session of 17 commands after login"
# state, commands: LIST, CREATE, SELECT, APPEND x2 (two commands),
# NOOP, SEARCH, FETCH 1:* (FLAGS), UID FETCH BODY.PEEK[] (one message,
# a body: FETCH2), STORE \Seen \Answered, COPY, STORE \Deleted (DELETE),
# EXPUNGE, LOGOUT.
for want in "LIST +1 " "MCREATE +1 " "SELECT +1 " "APPEND +2 " "NOOP +1 " \
	"SEARCH +1 " "FETCH +1 " "FETCH2 +1 " "STORE +1 " "COPY +1 " \
	"DELETE +1 " "EXPUNGE +1 " "LOGOUT +1 "; do
	assert_match "^$want" "$sum" "summary row $want"
done
assert_match "^  GETQUOTAROOT +1$" "$sum" "GETQUOTAROOT counted as not mapped"
assert_match "^  CLOSE +1$" "$sum" "CLOSE counted as not mapped"
assert_match "^  NAMESPACE +1$" "$sum" "NAMESPACE left out (imapstress sends its own)"
assert_match "bodies read 1, replied 1, deleted 1, moved 0" "$sum" "what became of the mail"
mix=$(cat "$TEST_TMP/l.mix")
assert_match "^# message sizes \(APPEND literals\): 2, mean 1545," "$mix" "APPEND sizes"
assert_match "^#  +1  BODY.PEEK\[\]$" "$mix" "FETCH item set BODY.PEEK[]"
assert_match "^#  +1  FLAGS$" "$mix" "FETCH item set FLAGS"
assert_match "^# folders used \(2; commands naming them\): INBOX 3, Archive 2$" "$mix" "folders: INBOX and Archive, shown by their role"
assert_match " copybox=Archive " "$(grep -v "^#" "$TEST_TMP/l.mix")" "the COPY target"
prof=$(cat "$TEST_TMP/l.profile")
assert_match "^  imap_fetch_manual = BODY.PEEK\[\]$" "$prof" "the reading FETCH in the profile"
assert_match "^  mail_inbox_reply_percentage = 100$" "$prof" "reply share in the profile"
assert_match "^  imap_idle = no$" "$prof" "no IDLE"
rc=0
run_with_timeout 30 "$IMAPSTRESS" --profile "$TEST_TMP/l.profile" --profile-check >/dev/null 2>"$TEST_TMP/pc" || rc=$?
assert_eq 0 "$rc" "--profile-check of the learned profile ($(head -n 3 "$TEST_TMP/pc"))"
note "learned mix: $(grep -v '^#' "$TEST_TMP/l.mix")"
