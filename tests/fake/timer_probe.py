"""tests/fake/timer_probe.py SECS D_MS [--ready]: how late a timer fires on
this machine right now.  Sleeps D ms over and over for SECS seconds and
prints the p50 and p99 of the overshoot, in microseconds: "P50 P99".  With
--ready it first prints "ready" once its sleepers run: python's own start
(~0.1 s of CPU, under SCHED_FIFO as much as the measured processes) is
then over before the caller starts what it measures; started together,
it put ~1% of NOOPs at ~100 ms in a 3 s run at D = 20 ms.

Run beside a latency measurement (tests/fake/t_latency.sh,
scripts/bench-latency), in the same scheduling class, it says how much of
a reply's lateness the machine alone adds: a reply against fakeimapd
--delay-ms D takes two such wakeups (the server's timer, then the
client's read).  It sleeps in D/5 threads (at least one) started
D/threads apart, so a 50 ms run is probed about as often as a 5 ms one: a
single 50 ms sleeper wakes only 60 times in 3 s, and its "p99" is then
just the largest of 60, while the NOOPs beside it make 7 times as many
wakeups and so meet more of the machine's stalls (CI once saw 11 ms over D
on a NOOP p99 next to a 60-sample probe p99 of 2.9 ms, at load 7 on 2
cores).
"""
import sys
import threading
import time

secs, d = float(sys.argv[1]), float(sys.argv[2]) / 1000.0
nthreads = max(1, int(round(d / 0.005)))
end = time.monotonic() + secs
over = []  # list.append is atomic under the GIL


def sleeper(phase):
    time.sleep(phase)
    while time.monotonic() < end:
        t = time.monotonic()
        time.sleep(d)
        over.append(max(0.0, time.monotonic() - t - d))


threads = [threading.Thread(target=sleeper, args=(i * d / nthreads,))
           for i in range(nthreads)]
for t in threads:
    t.start()
if sys.argv[3:] == ["--ready"]:
    print("ready", flush=True)
for t in threads:
    t.join()
over.sort()
print(int(over[len(over) // 2] * 1e6),
      int(over[min(len(over) - 1, int(len(over) * 0.99))] * 1e6))
