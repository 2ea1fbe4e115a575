#!/bin/bash
# Our scripted tests (tests/scripts, imaptest's format) against a private
# Dovecot: every one passes, the totals line and the JSON say so, exit 0.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
dovecot_start
n=$(find "$ROOT/tests/scripts" -maxdepth 1 -type f ! -name '*.mbox' | wc -l)
assert_ge "$n" 14 "test scripts in tests/scripts"
rc=0
run_with_timeout 120 "$IMAPSTRESS" test="$ROOT/tests/scripts" host=127.0.0.1 \
	port="$DOVECOT_PORT" user=scripts pass="$DOVECOT_PASS" \
	--json "$TEST_TMP/out.json" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
cat "$TEST_TMP/out" >&2
assert_eq 0 "$rc" "exit status (stderr: $(head -c 300 "$TEST_TMP/err"))"
assert_match "^$n passed, 0 failed, 0 skipped\$" "$(cat "$TEST_TMP/out")" "totals"
for t in select fetch store expunge copy append search sort thread idle uidplus \
	condstore expunge2 pipelined; do
	assert_match "^$t: ok\$" "$(cat "$TEST_TMP/out")" "$t passes"
done
assert_eq "$n" "$(grep -c '"result":"ok"' "$TEST_TMP/out.json")" "JSON ok lines"
assert_match '^\{"passed":'"$n"',"failed":0,"skipped":0\}$' "$(tail -n 1 "$TEST_TMP/out.json")" "JSON totals"
