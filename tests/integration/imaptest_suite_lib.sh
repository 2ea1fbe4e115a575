# shellcheck shell=bash disable=SC2034  # table, err: for the test that sources it
# imaptest_suite_lib.sh: sourced (after tests/lib.sh) by the tests that run
# imaptest's own suite through scripts/imaptest-suite against a real server.
#
#   suite_need                 set $suite (IMAPTEST_SUITE, else
#                              ../shared/imaptest/tests from the repo root:
#                              a git worktree's ../shared is not the main
#                              checkout's); skip when it is absent
#   suite_run PORT PASS        run it as user "suite": $TEST_TMP/table and
#                              $TEST_TMP/err, $table and $err; exit 1 (some
#                              group fails) and a row for each of 71 groups
#   suite_verdicts FAILED SKIPPED
#                              the groups line, and each listed group's row

suite_need() {
	suite=${IMAPTEST_SUITE:-$(cd "$ROOT/.." && pwd)/shared/imaptest/tests}
	[ -d "$suite" ] || skip "no imaptest suite at $suite (imaptest's src/tests; see ../shared/imaptest/README.md)"
}

suite_run() {
	local rc=0
	run_with_timeout 300 "$ROOT/scripts/imaptest-suite" "$suite" host=127.0.0.1 \
		port="$1" user=suite pass="$2" \
		>"$TEST_TMP/table" 2>"$TEST_TMP/err" || rc=$?
	cat "$TEST_TMP/table" >&2
	assert_eq 1 "$rc" "exit status: some groups fail (stderr: $(head -c 300 "$TEST_TMP/err"))"
	table=$(cat "$TEST_TMP/table")
	err=$(cat "$TEST_TMP/err")
	assert_eq 71 "$(grep -cE '^[a-z0-9-]+ +(ok|FAILED|skipped) +(base|ext) ' "$TEST_TMP/table")" \
		"a row per group"
}

suite_verdicts() {
	local g
	assert_match "^71 test groups: $(echo "$1" | wc -w) failed, $(echo "$2" | wc -w) skipped due to missing capabilities\$" \
		"$table" "imaptest's groups line"
	for g in $1; do
		assert_match "^$g +FAILED " "$table" "$g fails"
	done
	for g in $2; do
		assert_match "^$g +skipped " "$table" "$g is skipped"
	done
}
