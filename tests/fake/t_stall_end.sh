#!/bin/bash
# The end of a run against a server that has gone silent (issue 34): the
# tool promises every run ends by secs + 10 s, and the grace (30 s by
# default) is for commands still making progress.  With the defaults (no
# --cmd-timeout, grace 30, --stall-timeout 5), 50 clients, secs=4:
#   stall             NOOP never answered
#   idle-silent       IDLE never answered, not even "+"
#   idle-plus-silent  IDLE answered "+ idling", then nothing, DONE included
# each must end by secs + 10 s (before the stall bound each took 34 s),
# with every silent connection cut and counted as a timeout (the commands
# it had in flight as failed), nothing left for the hard stop (unfinished
# 0), at most 5 "cut" lines and then one line with the count of all, a
# JSON summary, exit 1.  And a server still working:
#   trickle           NOOP's reply a line a second for 9 s (slow-trickle),
#                     secs=2, one command in flight per client
# is not cut although its reply takes longer than the bound: every NOOP
# in flight when the time was up finishes within the grace, no error,
# exit 0.  And a signal's graceful stop:
#   sigterm           the stalled NOOP server, secs=60, SIGTERM at 2 s
# ends by 2 + 10 s, as the stall rows do (stop_reason "signal").
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

SECS=4
GRACE=30	# imapstress's default, not passed: the point is the default
CLIENTS=50
SCEN=$ROOT/tests/fake/scenarios
common=(user=tester "clients=$CLIENTS" "secs=$SECS")
idle=(- select=100 idle=100 logout=0)

# NAME SCENARIO ARGS...: fakeimapd with SCENARIO.conf, imapstress with ARGS.
scripted() {
	local name=$1 conf=$SCEN/$2.conf
	shift 2
	[ -f "$conf" ] || fail "missing scenario file $conf"
	fault_server "$name" --script "$conf"
	fault_run "$name" "$@"
}

scripted stall hostile-stall - select=100 noop=100 logout=0 "${common[@]}"
scripted idle-silent hostile-idle-silent "${idle[@]}" "${common[@]}"
scripted idle-plus-silent hostile-idle-plus-silent "${idle[@]}" "${common[@]}"
TRICKLE_SECS=2
TRICKLE_CLIENTS=10
scripted trickle slow-trickle - select=100 noop=100 logout=0 user=tester \
	"clients=$TRICKLE_CLIENTS" "secs=$TRICKLE_SECS" --pipeline 1
TERM_AT=2
FAULT_TERM_AT=$TERM_AT scripted sigterm hostile-stall - select=100 noop=100 \
	logout=0 user=tester "clients=$CLIENTS" secs=60
fault_wait

# NAME STOP_REASON: every client logged in, cut by the stall bound and
# counted as a timeout, nothing left for the hard stop.
cut_all() {
	local name=$1 n cuts
	fault_exit "$name" 1
	fault_kinds "$name" timeout
	fault_cmp "$name" unfinished -eq 0
	[ "$(fault_get "$name" stop_reason)" = "$2" ] ||
		_fault_bad "$name: stop_reason '$(fault_get "$name" stop_reason)', expected '$2'"
	n=$(grep -c 'nothing from the server on any connection for [0-9.]* s as the run ends: cut (--stall-timeout)' \
		"$TEST_TMP/$name.err" || true)
	[ "$n" -ge 1 ] && [ "$n" -le 5 ] ||
		_fault_bad "$name: $n 'cut' lines, 1..5 expected"
	# The count line covers them all, and is what the summary counted.
	cuts=$(sed -n 's/^Warning: \([0-9]*\) connections\{0,1\} cut as the run ended: nothing from the server on any connection for 5 s (--stall-timeout), counted as timeouts$/\1/p' \
		"$TEST_TMP/$name.err")
	if [ -z "$cuts" ]; then
		_fault_bad "$name: no 'N connections cut as the run ended' line"
	else
		fault_cmp "$name" err.timeout -eq "$cuts"
		# Every client was logged in and waiting when the time was up.
		[ "$cuts" -eq "$CLIENTS" ] ||
			_fault_bad "$name: $cuts connections cut, $CLIENTS expected"
	fi
	fault_cmp "$name" logins -eq "$CLIENTS"
}

for name in stall idle-silent idle-plus-silent; do
	fault_note "$name"
	fault_promise "$name" $SECS $GRACE
	cut_all "$name" duration
done
fault_note sigterm
fault_promise sigterm $TERM_AT $GRACE
cut_all sigterm signal
for name in stall sigterm; do
	fault_cmp "$name" cmd.NOOP.failed -ge "$CLIENTS"
	fault_cmp "$name" cmd.NOOP.ok -eq 0
done
for name in idle-silent idle-plus-silent; do
	fault_cmp "$name" cmd.IDLE.failed -eq "$CLIENTS"
	fault_cmp "$name" cmd.IDLE.ok -eq 0
done

fault_note trickle
fault_common trickle $TRICKLE_SECS $GRACE
fault_exit trickle 0
fault_kinds trickle
fault_cmp trickle unfinished -eq 0
# One NOOP per client, sent at the start, answered 9 s later: each was in
# flight when the time was up and finished in the grace, uncut.
fault_cmp trickle cmd.NOOP.ok -eq "$TRICKLE_CLIENTS"
fault_cmp trickle cmd.NOOP.failed -eq 0
if grep -q 'as the run ends: cut' "$TEST_TMP/trickle.err"; then
	_fault_bad "trickle: a connection still receiving was cut: $(grep -m1 'cut' "$TEST_TMP/trickle.err")"
fi

fault_finish
