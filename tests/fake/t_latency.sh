#!/bin/bash
# Measure honestly: the latency imapstress reports is the latency the server
# imposed, no more (client overhead) and no less (a clock started late).
#   1. fakeimapd --delay-ms D, D = 5 and 50: a NOOP-only closed loop with
#      --no-pipelining (each command waits for its own reply, so nothing
#      queues behind another command); the JSON summary's NOOP p50 must lie
#      within max(10% of D, 1 ms) of D, and p99 may not lie below it.
#   2. --delay-ms 5 --slow-pct 10 --slow-ms 200: p50 in [4, 7] ms and p95
#      (and p99) in the slow tenth, i.e. about 200 ms.  See the comment there.
# Nothing here asserts throughput: the machine is shared and noisy.
# shellcheck source=SCRIPTDIR/latency_lib.sh disable=SC1091
. "$(dirname "$0")/latency_lib.sh"

# The question is what imapstress reports, not how busy the machine is: on a
# shared 2-core box a timer wakeup can come milliseconds late, which would
# show up as latency that neither the server nor imapstress caused.  Where
# we may (root, or CAP_SYS_NICE), both processes run SCHED_FIFO; they sleep
# on epoll almost all the time and the kernel's RT throttling still leaves
# the rest of the machine 5% of every second.  Elsewhere they run as usual.
# (latency_lib.sh puts RT in front of both command lines.)
realtime_take

# assert_between ACTUAL LO HI MSG: integers, LO <= ACTUAL <= HI.
assert_between() {
	case $1 in '' | *[!0-9]*) fail "$4: '$1' is not a non-negative integer" ;; esac
	if [ "$1" -lt "$2" ] || [ "$1" -gt "$3" ]; then
		fail "$4: expected $2..$3, got $1"
	fi
}

# How late a timer fires on this machine right now, measured beside each
# run by tests/fake/timer_probe.py in the same scheduling class (its
# comment says how it samples): on an idle machine tens of us, on a loaded
# shared one most of a millisecond for a few percent of wakeups, which no
# client could avoid.  It is printed beside the NOOP p99, not used in a
# bound: the lower bounds are never widened (nothing may be reported as
# faster than the server was), and the upper tail is a figure.
PROBE=$ROOT/tests/fake/timer_probe.py

# --- 1. a fixed delay ------------------------------------------------------
# --workers 1: with the server's loop that makes two busy threads, which
# two CPUs can run at once.
for d in 5 50; do
	fake_start --delay-ms "$d"
	# The NOOPs start once the probe's python has (timer_probe.py --ready).
	mkfifo "$TEST_TMP/probe$d"
	"${RT[@]}" "$PYTHON" "$PROBE" 3 "$d" --ready >"$TEST_TMP/probe$d" &
	probe_pid=$!
	exec {probe_fd}<"$TEST_TMP/probe$d"
	ready=
	read -r -u "$probe_fd" ready || true
	[ "$ready" = ready ] || fail "delay $d: the timer probe did not start"
	noop_run "delay$d" --no-pipelining clients=4 secs=3 --workers 1
	wait "$probe_pid" || fail "delay $d: the timer probe failed"
	fake_stop
	read -r -u "$probe_fd" probe50 probe99 || fail "delay $d: the timer probe printed nothing"
	exec {probe_fd}<&-
	vals=$(summary_get "$TEST_TMP/delay$d.json" commands.NOOP.ok \
		commands.NOOP.latency_us.p50 commands.NOOP.latency_us.p99) ||
		fail "delay $d: no usable JSON summary"
	read -r n p50 p99 <<<"$vals"
	note "delay ${d} ms: $n NOOPs, p50 ${p50} us, p99 ${p99} us;" \
		"timer overshoot here: p50 ${probe50} us, p99 ${probe99} us;" \
		"load $(cut -d' ' -f1-3 /proc/loadavg)"
	assert_ge "$n" 20 "delay $d: NOOPs answered"
	want=$((d * 1000))
	tol=$((want / 10 > 1000 ? want / 10 : 1000))
	assert_between "$p50" $((want - tol)) $((want + tol)) "delay $d ms: NOOP p50 (us)"
	# How far p99 lies above D is the machine's tail, not the client's: CI
	# saw 61,087 us at D = 50 ms beside a compiler, against 2 x 1,851 us of
	# probe noise (and 11 ms over D once before).  A bound that load can
	# break is a figure (the note above prints it with the probe's), not a
	# test; what stays is the promise that nothing is faster than the server.
	# scripts/bench-latency prints this p99 and p99/D for D = 5, 20 and
	# 50 ms beside the probe's p99, as a table.
	assert_ge "$p99" $((want - tol)) "delay $d ms: NOOP p99 (us), never below D"
done

# --- 2. one reply in ten is slow -------------------------------------------
# Each NOOP is slow (200 ms instead of 5 ms) with probability 1/10, drawn
# per command, so about 10% of the samples are ~200 ms and 90% are ~5 ms,
# whatever the closed loop does to the rate.  A percentile p is the smallest
# value with at least p% of the samples at or below it:
#   p50: half the samples are fast, so it is a fast one, ~5 ms -> [4, 7] ms;
#   p95: only ~90% of the samples are fast, so the 95% mark lies inside the
#        slow tenth (about half way into it) -> ~200 ms, not 5 ms and not
#        some average;  p99 likewise;
#   p90: right on the boundary, fast or slow by the luck of the draw: not
#        asserted.
# 8 clients for 3 s make ~1000 NOOPs (~100 slow, sd ~10); p95 would only
# leave the slow tenth if fewer than 5% were slow, over 5 sd away.  Slow
# replies cannot arrive before 200 ms, so 200 ms is a hard lower bound; the
# upper one allows the same 10% as part 1.
fake_start --delay-ms 5 --slow-pct 10 --slow-ms 200
noop_run slow --no-pipelining clients=8 secs=3
fake_stop
vals=$(summary_get "$TEST_TMP/slow.json" commands.NOOP.ok \
	commands.NOOP.latency_us.p50 commands.NOOP.latency_us.p95 \
	commands.NOOP.latency_us.p99) || fail "slow: no usable JSON summary"
read -r n p50 p95 p99 <<<"$vals"
note "10% slow: $n NOOPs, p50 ${p50} us, p95 ${p95} us, p99 ${p99} us"
assert_ge "$n" 200 "slow: NOOPs answered"
assert_between "$p50" 4000 7000 "slow: NOOP p50 (us), the fast 90%"
assert_between "$p95" 200000 220000 "slow: NOOP p95 (us), inside the slow tenth"
assert_ge "$p99" "$p95" "slow: NOOP p99 (us), at or above p95 (its upper tail is the machine's, as in part 1)"

note "ok"
