#!/bin/bash
# The foreign-mail guard (issue 31) against a private Cyrus IMAP 3.6
# (scripts/cyrus-private), the short form of t_foreign_mail: does Cyrus
# answer the check, UID SEARCH NOT HEADER X-Imapstress "", so that the
# guard decides right?
#   - its answer itself: on 3 foreign and 2 marked messages it names the 3;
#   - 20 foreign messages (foreign_mail.py): imaptest's default mix stops
#     before any destructive command (exit 2, the one line, nothing in the
#     rawlog) and the same 20 Message-IDs are there afterwards;
#   - 1 foreign among 100 marked, expunge=100: refused the same way;
#   - a clean account runs as before (exit 0, EXPUNGEs sent), and what the
#     run left in it is all marked: Cyrus's answer names none of it.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
IMAP_SERVER=cyrus
. "$(dirname "$0")/../lib.sh"

[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
need_server
server_start

# helper OP USER BOX...: tests/integration/foreign_mail.py on the server.
helper() {
	run_with_timeout 60 "${PYTHON:-python3}" "$ROOT/tests/integration/foreign_mail.py" \
		"$1" "$SERVER_PORT" "$SERVER_PASS" "${@:2}" || fail "foreign_mail.py $*"
}
# refused NAME USER N: exit 2, the one line, nothing destructive sent.
refused() {
	local name=$1 user=$2 n=$3 raw=$4
	assert_eq 2 "$RC" "$name: exit status (stderr: $(head -c 600 "$TEST_TMP/$name.err"))"
	assert_eq 1 "$(grep -c 'foreign-mail check' "$TEST_TMP/$name.err")" "$name: one refusal line"
	assert_match "^Error: foreign-mail check: user $user, mailbox \"INBOX\" holds $n messages? without the X-Imapstress header \\(mail imapstress did not put there\\); nothing was deleted; --allow-foreign-mail runs anyway\$" \
		"$(grep 'foreign-mail check' "$TEST_TMP/$name.err")" "$name: the line"
	assert_eq 0 "$(guard_destroyed "$raw")" "$name: destructive commands sent"
	assert_ge "$(guard_searches "$raw")" 1 "$name: searches"
}

# Cyrus's answer, by hand.
helper fill cs INBOX 3 2
assert_eq "5 3" "$(helper search cs INBOX)" "Cyrus: messages, and those it names without the marker"

# The default mix on 20 foreign.
helper fill cf1 INBOX 20
RAW=$(make_tmpdir)
stress mix host=127.0.0.1 port="$SERVER_PORT" user=cf1 pass="$SERVER_PASS" clients=5 secs=4 \
	--rawlog --rawlog-dir "$RAW"
refused mix cf1 20 "$RAW"
assert_eq "$(seq 0 19 | sed 's/.*/<foreign-&@test>/' | sort)" \
	"$(helper ids cf1 INBOX | grep foreign)" "default mix: the 20 foreign messages"

# One foreign among 100 marked.
helper fill cf2 INBOX 1 100
RAW=$(make_tmpdir)
stress one host=127.0.0.1 port="$SERVER_PORT" user=cf2 pass="$SERVER_PASS" clients=5 secs=4 \
	expunge=100 --rawlog --rawlog-dir "$RAW"
refused one cf2 1 "$RAW"
assert_eq "<foreign-0@test>" "$(helper ids cf2 INBOX | grep foreign)" "one of 101: the foreign message"

# A clean account: as before, and all it leaves is marked.  The run lasts
# until an EXPUNGE was answered (the default mix's states are drawn at
# random; 60 s only catch a hang).
RAW=$(make_tmpdir)
stress_until clean 60 commands.EXPUNGE.ok 1 host=127.0.0.1 port="$SERVER_PORT" \
	user=cclean pass="$SERVER_PASS" clients=5 --rawlog --rawlog-dir "$RAW"
assert_eq 0 "$RC" "clean account: exit status (stderr: $(head -c 600 "$TEST_TMP/clean.err"))"
assert_ge "$(guard_destroyed "$RAW")" 1 "clean account: destructive commands"
read -r n foreign <<<"$(helper search cclean INBOX)"
assert_ge "$n" 1 "clean account: messages the run left"
assert_eq 0 "$foreign" "clean account: messages Cyrus names without the marker (of $n)"
