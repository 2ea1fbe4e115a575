#!/bin/bash
# Our scripted tests against a private Dovecot that keeps personal
# mailboxes under "INBOX." (separator ".", as Courier-IMAP does), without
# box=: the set-up asks NAMESPACE and every test passes in INBOX.imaptest.
# The same server refuses CREATE of a top-level "imaptest" (box=imaptest):
# the test fails naming the mailbox, the server's line and a hint at box=.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"

dovecot_start --ns-prefix INBOX.
n=$(find "$ROOT/tests/scripts" -maxdepth 1 -type f ! -name '*.mbox' | wc -l)
assert_ge "$n" 14 "test scripts in tests/scripts"
rc=0
run_with_timeout 120 "$IMAPSTRESS" test="$ROOT/tests/scripts" host=127.0.0.1 \
	port="$DOVECOT_PORT" user=scripts pass="$DOVECOT_PASS" \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
cat "$TEST_TMP/out" >&2
assert_eq 0 "$rc" "exit status (stderr: $(head -c 300 "$TEST_TMP/err"))"
assert_match "^$n passed, 0 failed, 0 skipped\$" "$(cat "$TEST_TMP/out")" "totals"

# The test mailboxes were made under the prefix (a top-level CREATE is
# refused, below), and the clean-up after the last test deleted them:
# INBOX.imaptest is gone.
rc=0
"$DOVECOT_PRIVATE" count --dir "$DOVECOT_DIR" scripts INBOX.imaptest \
	>"$TEST_TMP/count" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "INBOX.imaptest is still there: $(cat "$TEST_TMP/count")"

# Outside the namespace CREATE is refused: the failure says which
# mailbox, what the server said and what to do.
rc=0
run_with_timeout 60 "$IMAPSTRESS" test="$ROOT/tests/scripts/select" host=127.0.0.1 \
	port="$DOVECOT_PORT" user=scripts pass="$DOVECOT_PASS" box=imaptest \
	>"$TEST_TMP/top.out" 2>&1 || rc=$?
cat "$TEST_TMP/top.out" >&2
assert_eq 1 "$rc" "box=imaptest: exit status"
assert_match "^  set-up: CREATE of the test mailbox 'imaptest' failed: the server sent 'u[0-9]+ NO " \
	"$(cat "$TEST_TMP/top.out")" "box=imaptest: the mailbox and the server's line"
assert_match "^  hint: the name is box='imaptest'; give box= a mailbox this user may create" \
	"$(cat "$TEST_TMP/top.out")" "box=imaptest: the hint"
