#!/bin/bash
# tests/scripts/select against fake servers: one that answers as Dovecot
# does (passes) and three that each break one rule; each of those fails
# with a diff naming the line of the script that caught it, exit 1.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/fake/fault_lib.sh"

script=$ROOT/tests/scripts/select
run_case() {	# NAME: run select against scenarios/script-select-NAME.conf
	fault_server "$1" --mode script --script "$ROOT/tests/fake/scenarios/script-select-$1.conf"
	rc=0
	run_with_timeout 30 "$IMAPSTRESS" test="$script" port="$FAULT_PORT" user=u \
		pass=p >"$TEST_TMP/$1.out" 2>&1 || rc=$?
	cat "$TEST_TMP/$1.out" >&2
}

run_case good
assert_eq 0 "$rc" "the good server passes"
assert_match '^1 passed, 0 failed, 0 skipped$' "$(cat "$TEST_TMP/good.out")" "good totals"

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
exists 3 \* 3 exists
flags 4 \* flags
readonly 12 OK \[read-only\]
CASES

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
