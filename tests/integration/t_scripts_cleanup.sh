#!/bin/bash
# Scripted tests and the foreign-mail guard (issue 31) with unmarked
# set-up mail, against the private Dovecot.  The set-up appends the
# mbox's messages as the mbox has them (imaptest's tests compare BODY[]
# whole), into the test mailboxes the run has checked, and the clean-up
# after the last test deletes them, so nothing unmarked of ours is left:
#   - a clean account: a test that fetches BODY[] and compares it whole
#     passes (it fails with the marker line in front), twice in a row,
#     and no "imaptest*" mailbox is left after either run;
#   - an account with a mailbox under the test prefix (imaptestold)
#     holding 3 messages imapstress did not put there: the run stops
#     before any DELETE (exit 2, the guard's one line) and imaptestold
#     still holds the same 3, as it does after a run that stopped
#     before its clean-up would have left it (unmarked) behind.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd python3
need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
[ -x "$IMAPSTRESS" ] || fail "no imapstress binary at $IMAPSTRESS"
dovecot_start
HELPER=$(dirname "$0")/foreign_mail.py
PY=${PYTHON:-python3}
helper() {
	run_with_timeout 60 "$PY" "$HELPER" "$1" "$DOVECOT_PORT" "$DOVECOT_PASS" "${@:2}"
}

TESTS=$(make_tmpdir)
printf 'From a@example.com Sat Mar 24 23:00:00 2007\nFrom: a@example.com\nSubject: whole\n\nhello\n' \
	>"$TESTS/whole.mbox"
cat >"$TESTS/whole" <<'T'
ok fetch 1 (body.peek[])
* 1 fetch (body[] {{{
From: a@example.com
Subject: whole

hello

}}})
T

for run in 1 2; do
	stress "clean$run" test="$TESTS" host=127.0.0.1 port="$DOVECOT_PORT" \
		user=sclean pass="$DOVECOT_PASS"
	cat "$TEST_TMP/clean$run.out" >&2
	assert_eq 0 "$RC" "clean account, run $run: exit status (stderr: $(head -c 600 "$TEST_TMP/clean$run.err"))"
	assert_match "^whole: ok\$" "$(cat "$TEST_TMP/clean$run.out")" \
		"clean account, run $run: BODY[] is the mbox's message, unmarked"
	assert_eq "" "$(helper list sclean 'imaptest*')" \
		"clean account, run $run: test mailboxes left"
done

# Foreign mail under the test prefix: refused before any DELETE.
helper fill sforeign imaptestold 3 >/dev/null || fail "could not fill imaptestold"
stress foreign test="$TESTS" host=127.0.0.1 port="$DOVECOT_PORT" \
	user=sforeign pass="$DOVECOT_PASS"
assert_eq 2 "$RC" "foreign mail: exit status (stderr: $(head -c 600 "$TEST_TMP/foreign.err"))"
assert_eq 1 "$(grep -c 'foreign-mail check' "$TEST_TMP/foreign.err")" "foreign mail: one refusal line"
assert_match '^Error: foreign-mail check: user sforeign, mailbox "imaptestold" holds 3 messages without the X-Imapstress header \(mail imapstress did not put there\); nothing was deleted; --allow-foreign-mail runs anyway$' \
	"$(grep 'foreign-mail check' "$TEST_TMP/foreign.err")" "foreign mail: the line"
assert_eq "$(printf '<foreign-%s@test>\n' 0 1 2)" "$(helper ids sforeign imaptestold)" \
	"foreign mail: imaptestold's 3 messages"
assert_eq "imaptestold" "$(helper list sforeign 'imaptest*')" \
	"foreign mail: no test mailbox was created or deleted"
