#!/bin/bash
# Stopping early against servers that misbehave:
#  - sigint: one SIGINT against a `stall` server (every command after login
#    is swallowed, the default 60 s command timeout never fires) stops
#    gracefully: clients get the grace time (3 s) to finish, then the run
#    ends with totals on stdout, a JSON summary with stop_reason "signal",
#    the unanswered commands as "unfinished", and exit 1 (imaptest's
#    status after SIGINT; run.c: unfinished commands); --stall-timeout 60
#    keeps the end-of-run stall bound (5 s, t_stall_end.sh) out of it;
#  - sigint-twice: a second SIGINT stops at once, long before a 20 s grace;
#  - error-quit word / --error-quit against reply-no (NO to every command
#    after login): the first NO stops the run with no grace at all, exit 1,
#    stop_reason "error_quit", although secs=30 and grace 30.
# All four run at once.
# shellcheck source=SCRIPTDIR/fault_lib.sh disable=SC1091
. "$(dirname "$0")/fault_lib.sh"

# A shell's background jobs start with SIGINT ignored; a user's Ctrl-C
# reaches a program whose SIGINT is at its default, so restore that.
SIGDFL_EXEC='import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])'

# NAME GRACE SIGNALS: start imapstress against $FAULT_PORT, wait until a
# tick shows open sessions, send SIGINT SIGNALS times (the second once the
# first was acknowledged on stderr), and record in NAME.ms the time from
# the last signal to the exit.  Runs in the background; kills its own
# imapstress if it is still there 40 s later.
sigint_run() {
	local name=$1 grace=$2 signals=$3 port=$FAULT_PORT
	(
		f=$TEST_TMP/$name
		python3 -c "$SIGDFL_EXEC" "$IMAPSTRESS" port="$port" clients=10 \
			secs=60 --grace "$grace" --stall-timeout 60 --json "$f.json" \
			>"$f.out" 2>"$f.err" </dev/null &
		pid=$!
		ready=0
		for ((i = 0; i < 100; i++)); do
			if grep -q '"conns_open":[1-9]' "$f.json" 2>/dev/null; then
				ready=1
				break
			fi
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		[ "$ready" = 1 ] || echo "no tick with open sessions within 10 s" >"$f.why"
		t0=$(date +%s%N)
		kill -INT "$pid" 2>/dev/null || true
		if [ "$signals" = 2 ]; then
			for ((i = 0; i < 50; i++)); do
				grep -q 'Received SIGINT' "$f.err" && break
				sleep 0.1
			done
			# A second signal within 100 ms of the first is the same
			# stop (timeout(1) sends two: src/run/exit_policy.h);
			# a person's second Ctrl-C comes later than this.
			sleep 0.2
			t0=$(date +%s%N)
			kill -INT "$pid" 2>/dev/null || true
		fi
		for ((i = 0; i < 400; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null || true
			echo "still running 40 s after SIGINT; killed" >>"$f.why"
		fi
		rc=0
		wait "$pid" || rc=$?
		t1=$(date +%s%N)
		echo "$rc" >"$f.rc"
		echo $(((t1 - t0) / 1000000)) >"$f.ms"
	) &
	_fault_pids+=($!)
}

fault_server stall --mode stall
sigint_run sigint 3 1
sigint_run sigint-twice 20 2
fault_server no --mode script --script "$ROOT/tests/fake/scenarios/fault-reply-no.conf"
fault_run error-quit-word clients=5 secs=30 --grace 30 error_quit
fault_run error-quit-long clients=5 secs=30 --grace 30 --error-quit
fault_wait

for s in sigint sigint-twice; do
	fault_note "$s"
	if [ -s "$TEST_TMP/$s.why" ]; then
		_fault_bad "$s: $(cat "$TEST_TMP/$s.why")"
	fi
	fault_exit "$s" 1
	fault_kinds "$s"
	fault_cmp "$s" logins -gt 0
	fault_cmp "$s" unfinished -gt 0
	[ "$(fault_get "$s" stop_reason)" = signal ] ||
		_fault_bad "$s: stop_reason '$(fault_get "$s" stop_reason)', expected 'signal'"
	grep -q '^Totals:' "$TEST_TMP/$s.out" ||
		_fault_bad "$s: no totals on stdout: $(tail -n 3 "$TEST_TMP/$s.out")"
	fault_stderr "$s" 'Received SIGINT' "the first signal is acknowledged"
done
# Time from the (last) signal to the exit: the grace for one SIGINT, next
# to nothing after the second.
fault_wall_only sigint 0 3
fault_stderr sigint 'grace time over' "the grace ran out on the stalled commands"
fault_wall_only sigint-twice 0 0
fault_stderr sigint-twice 'second signal' "the second signal is acknowledged"

for s in error-quit-word error-quit-long; do
	fault_note "$s"
	# secs=30 and grace 30, yet it must stop within the 5 s slack.
	fault_common "$s" 0 0
	fault_exit "$s" 1
	fault_kinds "$s" no
	[ "$(fault_get "$s" stop_reason)" = error_quit ] ||
		_fault_bad "$s: stop_reason '$(fault_get "$s" stop_reason)', expected 'error_quit'"
done

fault_finish
