#!/bin/bash
# Scripted tests that fail on purpose (tests/scripts-fail) against a
# private Dovecot, for what imaptest does after a failure and for its
# group directives (issue 29):
#  - goes-on: four failures in four steps, passing steps between; the
#    test runs to its end and counts each (4/6 on imaptest's base line);
#  - bad-drop: a BAD the script does not expect ends the test, as
#    imaptest's client drops the connection (2 failures, the BAD and the
#    next command's disconnection; 1 group; the next command never sent);
#  - ordered: !ordered with the lines in the reverse of the server's
#    order fails at the second line, and passes with !ordered taken out;
#  - output-sleep: !output prints its text up to a variable with no
#    value (a failure), !sleep 1s holds the next command back.
# Where imaptest's reference build is at hand (IMAPTEST, else
# ../shared/imaptest/imaptest from the repo root), goes-on and
# output-sleep give its verdict lines too.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

need_cmd "${DOVECOT:-/usr/sbin/dovecot}"
dovecot_start
dir=$ROOT/tests/scripts-fail

# run NAME: imapstress on tests/scripts-fail/NAME, its stdout in
# $TEST_TMP/NAME.out, the JSON line of the test in $json, exit in $rc
run() {
	rc=0
	run_with_timeout 60 "$IMAPSTRESS" test="$dir/$1" host=127.0.0.1 \
		port="$DOVECOT_PORT" user=fail pass="$DOVECOT_PASS" \
		--json "$TEST_TMP/$1.json" >"$TEST_TMP/$1.out" 2>"$TEST_TMP/$1.err" || rc=$?
	cat "$TEST_TMP/$1.out" "$TEST_TMP/$1.err" >&2
	json=$(head -n 1 "$TEST_TMP/$1.json")
}

run goes-on
out=$(cat "$TEST_TMP/goes-on.out")
assert_eq 1 "$rc" "goes-on: exit status"
assert_match '^goes-on: FAILED \(line 8\)$' "$out" "goes-on: the first failure's line"
assert_match '^  expected \(line 8\): \* 5 exists$' "$out" "goes-on: the missing line"
assert_match "^  why: expected '5', the server sent '0' \\(and 1 more lines of this step had no reply\\)\$" \
	"$out" "goes-on: both missing lines, one failure"
assert_match '^  failure 2 \(line 18\):$' "$out" "goes-on: tag1's result"
assert_match '^  failure 3 \(line 19\):$' "$out" "goes-on: tag2's result"
assert_match '^  failure 4 \(line 23\):$' "$out" "goes-on: the forbidden reply, after the others"
assert_match "forbids: '\\* 0 EXISTS'" "$out" "goes-on: what it forbids"
assert_match '"groups":6,"failures":4,' "$json" "goes-on: imaptest's counts in the JSON"
assert_match '"commands":2,' "$json" "goes-on: the two steps that passed"

run bad-drop
out=$(cat "$TEST_TMP/bad-drop.out")
assert_eq 1 "$rc" "bad-drop: exit status"
assert_match '^bad-drop: FAILED \(line 6\)$' "$out" "bad-drop: the line"
assert_match '^  why: imaptest drops the connection after a BAD the script does not expect: the next command finds it gone, and the test ends here$' \
	"$out" "bad-drop: why it ends"
assert_match '"groups":1,"failures":2,' "$json" "bad-drop: imaptest's counts"

run ordered
out=$(cat "$TEST_TMP/ordered.out")
assert_eq 1 "$rc" "ordered: exit status"
assert_match '^ordered: FAILED \(line 9\)$' "$out" "ordered: the line out of order"
assert_match '^  why: no reply of the server matched this line in its turn \(!ordered\) \(and 1 more lines of this step had no reply\)$' \
	"$out" "ordered: why"
assert_match '"groups":2,"failures":1,' "$json" "ordered: one failure"
# the same lines in any order: they pass
mkdir "$TEST_TMP/unordered"
grep -v '^!ordered' "$dir/ordered" >"$TEST_TMP/unordered/ordered"
cp "$dir/ordered.mbox" "$TEST_TMP/unordered/"
rc=0
run_with_timeout 60 "$IMAPSTRESS" test="$TEST_TMP/unordered" host=127.0.0.1 \
	port="$DOVECOT_PORT" user=fail pass="$DOVECOT_PASS" \
	>"$TEST_TMP/unordered.out" 2>&1 || rc=$?
cat "$TEST_TMP/unordered.out" >&2
assert_eq 0 "$rc" "without !ordered: exit status"
assert_match '^ordered: ok$' "$(cat "$TEST_TMP/unordered.out")" "without !ordered: passes"

start=$(date +%s%N)
run output-sleep
took_ms=$((($(date +%s%N) - start) / 1000000))
out=$(cat "$TEST_TMP/output-sleep.out")
assert_eq 1 "$rc" "output-sleep: exit status"
assert_eq "output-sleep: before " "$(head -n 1 "$TEST_TMP/output-sleep.out")" \
	"output-sleep: the text up to the variable, before the verdict"
assert_match '^output-sleep: FAILED \(line 7\)$' "$out" "output-sleep: the !output line"
assert_match '^  expected \(line 7\): !output output-sleep: before \$nothing after$' \
	"$out" "output-sleep: the line shown"
assert_match '"groups":3,"failures":1,' "$json" "output-sleep: imaptest's counts"
assert_ge "$took_ms" 1000 "output-sleep: !sleep 1s, run time in ms"

# The table of scripts/imaptest-suite: imaptest's counts, summed.
rc=0
IMAPSTRESS=$IMAPSTRESS run_with_timeout 120 "$ROOT/scripts/imaptest-suite" "$dir" \
	host=127.0.0.1 port="$DOVECOT_PORT" user=fail pass="$DOVECOT_PASS" \
	>"$TEST_TMP/table" 2>"$TEST_TMP/table.err" || rc=$?
cat "$TEST_TMP/table" >&2
table=$(cat "$TEST_TMP/table")
assert_eq 1 "$rc" "imaptest-suite: exit status"
assert_match '^goes-on +FAILED +base +6 +4  line 8$' "$table" "imaptest-suite: goes-on's row"
assert_match '^bad-drop +FAILED +base +1 +2  line 6$' "$table" "imaptest-suite: bad-drop's row"
assert_match '^4 test groups: 4 failed, 0 skipped due to missing capabilities$' "$table" \
	"imaptest-suite: the groups line"
assert_match '^base protocol: 8/12 individual commands failed$' "$table" \
	"imaptest-suite: the base line"

# imaptest itself on the three files its reference build can read (it
# knows !output and !sleep, not !ordered): the same verdict lines
# (bad-drop: 2/1, the BAD and the next command's disconnection, one
# group).
ref=${IMAPTEST:-$(cd "$ROOT/.." && pwd)/shared/imaptest/imaptest}
if [ -x "$ref" ]; then
	for f in goes-on bad-drop output-sleep; do
		mkdir "$TEST_TMP/ref-$f"
		cp "$dir/$f" "$TEST_TMP/ref-$f/"
		run_with_timeout 60 "$ref" host=127.0.0.1 port="$DOVECOT_PORT" user=fail \
			pass="$DOVECOT_PASS" test="$TEST_TMP/ref-$f" \
			>"$TEST_TMP/ref-$f.out" 2>&1 || true
		cat "$TEST_TMP/ref-$f.out" >&2
		rc=0
		IMAPSTRESS=$IMAPSTRESS run_with_timeout 60 "$ROOT/scripts/imaptest-suite" \
			"$TEST_TMP/ref-$f" host=127.0.0.1 port="$DOVECOT_PORT" user=fail \
			pass="$DOVECOT_PASS" >"$TEST_TMP/ours-$f.out" 2>/dev/null || rc=$?
		assert_eq "$(grep -E '^(base protocol|extensions):' "$TEST_TMP/ref-$f.out")" \
			"$(grep -E '^(base protocol|extensions):' "$TEST_TMP/ours-$f.out")" \
			"$f: imaptest's verdict lines, and ours"
	done
else
	echo "no imaptest at $ref: its verdicts not compared" >&2
fi
