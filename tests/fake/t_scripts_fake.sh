#!/bin/bash
# tests/scripts/select against fake servers: one that answers as Dovecot
# does and one as Courier does (\Recent and a keyword in FLAGS, UIDs not
# from 1, personal mailboxes under "INBOX.") pass; three that each break
# one rule fail with a diff naming the line of the script that caught it,
# exit 1.  A server that refuses CREATE of the test mailbox: the failure
# names the mailbox (under NAMESPACE's prefix when offered), shows the
# server's line escaped, and hints at box=.  A clean-up after the last
# test that the server refuses is a warning naming the server's line.  A
# server that stops answering fails the test after --cmd-timeout; an
# endless line is cut at --max-line.  A user= template with '%' is
# refused before anything connects, as imaptest refuses it with tests.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/fake/fault_lib.sh"

script=$ROOT/tests/scripts/select
run_case() {	# NAME [CONF]: run select against scenarios/script-select-NAME.conf
	fault_server "$1" --mode script --script \
		"${2:-$ROOT/tests/fake/scenarios/script-select-$1.conf}"
	rc=0
	run_with_timeout 30 "$IMAPSTRESS" test="$script" port="$FAULT_PORT" user=u \
		pass=p >"$TEST_TMP/$1.out" 2>&1 || rc=$?
	cat "$TEST_TMP/$1.out" >&2
}

for name in good courier; do
	run_case "$name"
	assert_eq 0 "$rc" "the $name server passes"
	assert_match '^1 passed, 0 failed, 0 skipped$' "$(cat "$TEST_TMP/$name.out")" \
		"$name totals"
done

# NAME LINE EXPECTED-LINE: each breaks one rule, caught on LINE.
while read -r name line expected; do
	run_case "$name"
	out=$(cat "$TEST_TMP/$name.out")
	assert_eq 1 "$rc" "$name: exit status"
	assert_match "^select: FAILED \\(line $line\\)\$" "$out" "$name: names line $line"
	assert_match "^  expected \\(line $line\\): $expected" "$out" "$name: the expected line"
	assert_match '^  server sent:$' "$out" "$name: what the server sent"
	assert_match '^0 passed, 1 failed, 0 skipped$' "$out" "$name: totals"
done <<'CASES'
exists 6 \* 3 exists
flags 7 \* flags
readonly 15 OK \[read-only\]
CASES

# CREATE refused.  With NAMESPACE: the mailbox tried is under its
# personal prefix; the server's line is shown escaped (an ESC in it).
esc_conf=$TEST_TMP/script-create-refused.conf
sed 's/Invalid mailbox name\./Invalid mailbox name\x1b[2J./' \
	"$ROOT/tests/fake/scenarios/script-create-refused.conf" >"$esc_conf"
grep -q $'\x1b' "$esc_conf" || fail "no ESC in $esc_conf"
run_case refused "$esc_conf"
out=$(cat "$TEST_TMP/refused.out")
assert_eq 1 "$rc" "CREATE refused: exit status"
assert_match '^select: FAILED$' "$out" "CREATE refused: the test fails"
assert_match "^  set-up: CREATE of the test mailbox 'INBOX\.imaptest' failed: the server sent 'u[0-9]+ NO Invalid mailbox name\\\\x1b\[2J\.'\$" \
	"$out" "CREATE refused: the mailbox and the server's line, escaped"
assert_match "^  hint: the name is the personal namespace's prefix 'INBOX\.' \(from NAMESPACE\) and 'imaptest'; give box= a mailbox this user may create\$" \
	"$out" "CREATE refused: the hint"
if grep -q $'\x1b' "$TEST_TMP/refused.out"; then
	fail "CREATE refused: a raw ESC reached the output"
fi
# Without NAMESPACE: the top level, and the hint says why.
run_case refused-nons "$ROOT/tests/fake/scenarios/script-create-refused-nons.conf"
out=$(cat "$TEST_TMP/refused-nons.out")
assert_eq 1 "$rc" "CREATE refused, no NAMESPACE: exit status"
assert_match "^  set-up: CREATE of the test mailbox 'imaptest' failed: the server sent 'u[0-9]+ NO Invalid mailbox name\.'\$" \
	"$out" "CREATE refused, no NAMESPACE: the mailbox and the line"
assert_match "^  hint: the server offers no NAMESPACE, so the test mailbox is at the top level; give box= a mailbox this user may create \(with personal mailboxes under 'INBOX\.': box=INBOX\.imaptest\)\$" \
	"$out" "CREATE refused, no NAMESPACE: the hint"
# box= given: used as it is, and the hint names it.
fault_server given --mode script --script "$ROOT/tests/fake/scenarios/script-create-refused.conf"
rc=0
run_with_timeout 30 "$IMAPSTRESS" test="$script" port="$FAULT_PORT" user=u pass=p \
	box=Work >"$TEST_TMP/given.out" 2>&1 || rc=$?
cat "$TEST_TMP/given.out" >&2
assert_eq 1 "$rc" "CREATE refused, box= given: exit status"
assert_match "^  set-up: CREATE of the test mailbox 'Work' failed" "$(cat "$TEST_TMP/given.out")" \
	"CREATE refused, box= given: the mailbox"
assert_match "^  hint: the name is box='Work'; give box= a mailbox this user may create" \
	"$(cat "$TEST_TMP/given.out")" "CREATE refused, box= given: the hint"

# The clean-up after the last test: a server that refuses every DELETE
# (the guard off: this fake cannot answer its search) fails the test's
# set-up, and the clean-up's own refusal is a warning with the server's
# line; it is no test of its own (the totals count one).
fault_server cleanup --mode script --script \
	"$ROOT/tests/fake/scenarios/script-cleanup-refused.conf"
rc=0
run_with_timeout 30 "$IMAPSTRESS" test="$script" port="$FAULT_PORT" user=u pass=p \
	--allow-foreign-mail >"$TEST_TMP/cleanup.out" 2>"$TEST_TMP/cleanup.err" || rc=$?
cat "$TEST_TMP/cleanup.out" "$TEST_TMP/cleanup.err" >&2
assert_eq 1 "$rc" "clean-up refused: exit status"
assert_match '^0 passed, 1 failed, 0 skipped$' "$(cat "$TEST_TMP/cleanup.out")" \
	"clean-up refused: the totals count the test only"
assert_eq "imapstress: the clean-up after the last test failed; the test mailboxes may still be there:
  set-up: DELETE of an old test mailbox: the server sent 'u5 NO [CANNOT] not today'" \
	"$(cat "$TEST_TMP/cleanup.err")" "clean-up refused: the warning and the server's line"

# The engine's connections (drivers/script/): a server that stops
# answering fails the test after --cmd-timeout (and its connection is
# closed, or the run would never end); one that sends an endless line is
# cut by the engine's --max-line, and the verdict says why.
fault_server stall --mode stall
rc=0
run_with_timeout 30 "$IMAPSTRESS" test="$script" port="$FAULT_PORT" user=u pass=p \
	--cmd-timeout 1 >"$TEST_TMP/stall.out" 2>&1 || rc=$?
cat "$TEST_TMP/stall.out" >&2
assert_eq 1 "$rc" "a stalled server: exit status"
assert_match '^select: FAILED$' "$(cat "$TEST_TMP/stall.out")" "a stalled server: the test fails"
assert_match '^  connection 1 closed: no reply within 1 s \(--cmd-timeout\)$' \
	"$(cat "$TEST_TMP/stall.out")" "a stalled server: why"
assert_match '^0 passed, 1 failed, 0 skipped$' "$(cat "$TEST_TMP/stall.out")" "a stalled server: totals"
fault_server endless --mode endless-line
rc=0
run_with_timeout 30 "$IMAPSTRESS" test="$script" port="$FAULT_PORT" user=u pass=p \
	--max-line 4096 >"$TEST_TMP/endless.out" 2>&1 || rc=$?
cat "$TEST_TMP/endless.out" >&2
assert_eq 1 "$rc" "an endless line: exit status"
assert_match '^  connection 1 closed: .*4096' "$(cat "$TEST_TMP/endless.out")" \
	"an endless line: the engine's limit is the reason"

# A malformed test file: nothing is sent, one line naming file and line,
# exit 2 (the good server is still up: it must not be reached).
bad=$TEST_TMP/bad
mkdir "$bad"
printf 'ok noop\n' >"$bad/a-good"
printf 'state: selected\n\nok fetch 1 flags\n* 1 fetch (flags ($!bogus))\n' >"$bad/b-bad"
rc=0
"$IMAPSTRESS" test="$bad" port=1 user=u pass=p >"$TEST_TMP/bad.out" 2>"$TEST_TMP/bad.err" || rc=$?
assert_eq 2 "$rc" "malformed file: exit status"
assert_eq 1 "$(wc -l <"$TEST_TMP/bad.err")" "malformed file: one line on stderr"
assert_match "^imapstress: test=.*/b-bad:4: unknown list directive" "$(cat "$TEST_TMP/bad.err")" \
	"malformed file: names file and line"
assert_eq "" "$(cat "$TEST_TMP/bad.out")" "malformed file: nothing on stdout"

# A user= template with %d: imaptest refuses a '%' in user= with tests
# ("Don't use % in username with tests"), where every connection would
# log in as the template to the letter; so do we, before anything
# connects (the port is nobody's), exit 2, one line naming it.  user2=
# and "user N:" names are taken as they are, as in imaptest.
rc=0
"$IMAPSTRESS" test="$script" port=1 user='u%d' users=1-5 pass=p \
	>"$TEST_TMP/pct.out" 2>"$TEST_TMP/pct.err" || rc=$?
assert_eq 2 "$rc" "user=u%d: exit status ($(head -c 300 "$TEST_TMP/pct.err"))"
assert_eq 1 "$(wc -l <"$TEST_TMP/pct.err")" "user=u%d: one line on stderr"
assert_match "^imapstress: user=u%d: scripted tests \\(test=\\) log in as user= itself" \
	"$(cat "$TEST_TMP/pct.err")" "user=u%d: names user= and why"
assert_eq "" "$(cat "$TEST_TMP/pct.out")" "user=u%d: nothing on stdout"
