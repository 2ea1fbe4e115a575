#!/bin/bash
# A mailbox view keeps at most --track-max message entries (issue 34), and
# what it does not keep is never dropped silently: the run says so once (one
# warning line for the whole run, whatever the connections and workers) and
# counts each FETCH answer not kept as untracked_fetches, in the JSON
# summary and, when not 0, in the text summary.  It is no error: the exit
# status and the error counts are those of a run that kept everything.
# The fake server (track-max-fetch.conf) claims 5000 messages and answers
# each connection's first FETCH with seq 1, then 5000 down to 1.  The view
# keeps pages of 512 entries (the last, 392, takes 512 too), so with
# --track-max 1000 it keeps seq 1's page only: 5000 - 512 = 4488 answers
# not kept per connection, 8976 for 2 (each logs in once: logout=0).  The
# default bound (16384) and --track-max 0 (none) keep all ten pages.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=3 GRACE=10
# Two workers, one connection each: a per-worker "said it" would say it twice.
args=(user=tester clients=2 --workers 2 "secs=$SECS" --grace "$GRACE"
	- select=100 fetch=100 logout=0)
WARN='^Warning: a mailbox view keeps at most [0-9]+ messages \(--track-max\)'
for run in low default none; do
	fault_server "$run" --script "$ROOT/tests/fake/scenarios/track-max-fetch.conf"
	case $run in
	low) fault_run "$run" "${args[@]}" --track-max 1000 ;;
	default) fault_run "$run" "${args[@]}" ;;
	none) fault_run "$run" "${args[@]}" --track-max 0 ;;
	esac
done
fault_wait

for run in low default none; do
	fault_note "$run"
	fault_common "$run" $SECS $GRACE
	fault_exit "$run" 0
	fault_kinds "$run"
	fault_cmp "$run" logins -eq 2
	fault_cmp "$run" cmd.FETCH.ok -gt 2
done

summary "$TEST_TMP/low.json" untracked_fetches
note "low: untracked_fetches ${S[0]}"
assert_eq 8976 "${S[0]}" "untracked_fetches with --track-max 1000"
assert_eq 1 "$(grep -cE "$WARN" "$TEST_TMP/low.err" || true)" "warning lines with --track-max 1000"
assert_match "^Warning: a mailbox view keeps at most 1000 messages \(--track-max\)" \
	"$(cat "$TEST_TMP/low.err")" "the warning names the bound"
assert_eq 1 "$(grep -c '^untracked: 8976 FETCH answers were checked but not kept' "$TEST_TMP/low.out" || true)" \
	"text summary line"

for run in default none; do
	summary "$TEST_TMP/$run.json" untracked_fetches
	assert_eq 0 "${S[0]}" "untracked_fetches ($run)"
	assert_eq 0 "$(grep -cE "$WARN" "$TEST_TMP/$run.err" || true)" "warning lines ($run)"
	assert_eq 0 "$(grep -c '^untracked:' "$TEST_TMP/$run.out" || true)" "text summary line ($run)"
done

fault_finish
