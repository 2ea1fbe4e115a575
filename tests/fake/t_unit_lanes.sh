#!/bin/bash
# scripts/unit-lanes (how `make unit` and `make check` run the unit
# suites, several at once) on a stand-in Check runner whose suites pass,
# fail, and die: the tally line sums every suite's Checks, Failures and
# Errors; a suite that dies without a tally is named and fails the run;
# every suite runs exactly once, however many lanes; bad usage exits 2.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

T=$TEST_TMP
cat >"$T/runner" <<'SH'
#!/bin/sh
# A Check runner: --list, then one suite per process (as unit-lanes runs it).
case $1 in
--list) printf 'a_suite\nb_suite\nc_suite\nd_suite\n'; exit 0 ;;
esac
echo "$1" >>"$RAN"
case $1 in
a_suite) echo "100%: Checks: 3, Failures: 0, Errors: 0" ;;
b_suite) echo "x.c:1:F:core:t:0: boom"; echo "50%: Checks: 2, Failures: 1, Errors: 0"; exit 1 ;;
c_suite) echo "100%: Checks: 4, Failures: 0, Errors: 0" ;;
d_suite) [ -n "${DIE:-}" ] && kill -KILL $$; echo "0%: Checks: 1, Failures: 0, Errors: 1"; exit 1 ;;
esac
SH
chmod +x "$T/runner"
export RAN=$T/ran

for lanes in 1 3 8; do
	: >"$RAN"
	rc=0
	UNIT_LANES=$lanes "$ROOT/scripts/unit-lanes" "$T/runner" >"$T/out" 2>&1 || rc=$?
	assert_eq 1 "$rc" "lanes=$lanes: a failing suite fails the run"
	assert_eq "unit-lanes: Checks: 10, Failures: 1, Errors: 1 (4 suites, $lanes lanes)" \
		"$(tail -n 1 "$T/out")" "lanes=$lanes: the tally sums the suites"
	assert_eq "a_suite b_suite c_suite d_suite" "$(sort "$RAN" | paste -sd ' ')" \
		"lanes=$lanes: each suite ran once"
	grep -q '^x.c:1:F:core:t:0: boom$' "$T/out" || fail "lanes=$lanes: b_suite's failure line not shown: $(cat "$T/out")"
done

rc=0
DIE=1 UNIT_LANES=2 "$ROOT/scripts/unit-lanes" "$T/runner" >"$T/out" 2>&1 || rc=$?
assert_eq 1 "$rc" "a suite killed before its tally fails the run"
grep -q '^unit-lanes: suite d_suite printed no tally (exit 137)$' "$T/out" ||
	fail "the killed suite is not named: $(cat "$T/out")"

# All pass: exit 0.
sed -i -e 's/Failures: 1/Failures: 0/' -e 's/Errors: 1/Errors: 0/' -e 's/exit 1 ;;/;;/' "$T/runner"
rc=0
"$ROOT/scripts/unit-lanes" "$T/runner" >"$T/out" 2>&1 || rc=$?
assert_eq 0 "$rc" "every suite passes: $(cat "$T/out")"

for bad in "UNIT_LANES=0" "UNIT_LANES=x"; do
	rc=0
	env "$bad" "$ROOT/scripts/unit-lanes" "$T/runner" >"$T/out" 2>&1 || rc=$?
	assert_eq 2 "$rc" "$bad"
	assert_match "UNIT_LANES" "$(cat "$T/out")" "$bad: the message names UNIT_LANES"
done
rc=0
"$ROOT/scripts/unit-lanes" "$T/nonexistent" >"$T/out" 2>&1 || rc=$?
assert_eq 2 "$rc" "no runner"
echo "PASS: $TEST_NAME"
