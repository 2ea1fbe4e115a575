#!/bin/bash
# scripts/capacity's arithmetic, without a server: its doctests (the
# isotonic fit, the two bounds of the knee, the posterior interval, the
# login p95 estimated from per-second percentiles, the disk guard's
# estimate), then properties of the fit on noisy outcomes that a doctest
# would spell out badly:
# - runs that disagree at one count (2 of 3 held) still count as held,
#   1 of 3 does not; three runs a count leave the interval open at both
#   ends (the share's posterior is wide), six close it;
# - outcomes out of order (a count that holds above one that did not)
#   are pooled, never answered by the highest count that held once;
# - where a repeat would answer: wider than the interval where the draws
#   spread, the interval itself where they do not, none without a knee;
# - the search on scripted outcomes: a count whose repeats hold after its
#   first run did not is not "--max reached" (the search goes on above
#   it); a clean knee is found with its bounds run 3 to 6 times; all
#   held up to --max is "max"; --max-time ends it undecided;
# - the ramp's verdict with --profile counts the users logged in at least
#   once by the end of the warm-up, not those in at that instant;
# - the quiet-server wait: --server-pid found in the arguments, the tree's
#   CPU read from /proc, no wait without it.
# shellcheck source=SCRIPTDIR/../lib.sh disable=SC1091
. "$(dirname "$0")/../lib.sh"

PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3 || true)}
need_cmd "${PYTHON:-python3}"

"$PYTHON" - "$ROOT/scripts/capacity" <<'PY' || fail "scripts/capacity's fit"
import doctest, importlib.machinery, importlib.util, random, sys
loader = importlib.machinery.SourceFileLoader("capacity", sys.argv[1])
spec = importlib.util.spec_from_loader("capacity", loader)
cap = importlib.util.module_from_spec(spec)
loader.exec_module(cap)
r = doctest.testmod(cap)
assert r.attempted >= 15 and r.failed == 0, r
T, F = True, False
assert cap.bounds({4: [T, T, F], 5: [T, F, F], 6: [F, F, F]}) == (4, 5)
# Three runs a count say little: the interval is open (0: it may hold
# nowhere; None: it may hold everywhere).  Six a count close it.
a, b = cap.interval({2: [T] * 3, 4: [T, T, F], 5: [T, F, F], 6: [F] * 3},
                    random.Random(7))
assert (a, b) == (0, None), (a, b)
six = {2: [T] * 6, 4: [T, T, T, T, F, F], 5: [T, T, F, F, F, F], 6: [F] * 6}
assert cap.bounds(six) == (4, 5)
a, b = cap.interval(six, random.Random(7))
assert (a, b) == (2, 5), (a, b)
# The issue's steps: 1216 holds, 1224 over, 1220 holds, 1222 over, 1221
# holds, one run each, then repeats that disagree: the answer is where
# the pooled share crosses 1/2, not the last single run that held.
out = {1216: [T, T, T], 1220: [T, F, F], 1221: [T, F, F], 1222: [F, F, T],
       1224: [F, F, F]}
lo, hi = cap.bounds(out)
assert (lo, hi) == (1216, 1220), (lo, hi)
a, b = cap.interval(out, random.Random(3))
assert a <= 1216 and b >= 1221, (a, b)

# The search itself on scripted outcomes: a count's runs hold as its list
# says, in turn.
class FakeSteps:
    def __init__(self, script):
        self.script, self.rows = script, []
    def disk_check(self, n):
        return None
    def run(self, n):
        i = sum(1 for r in self.rows if r["users"] == n)
        held = self.script(n)[i % len(self.script(n))]
        self.rows.append({"users": n, "held": held})
        return held
opts = {"start": 1, "max": 256, "repeats": 3, "width": 10.0, "resolution": 1,
        "max_time": None, "init": False}
# The first run at 2 does not hold, its repeats do: 2 is not "--max
# reached", the search goes on to 4, which never holds.
st = FakeSteps(lambda n: [T] if n == 1 else ([F, T, T] if n == 2 else [F]))
ans = cap.search(st, opts, lambda: 0)
assert (ans.how, ans.lo, ans.hi) == ("decided", 2, 3), (ans.how, ans.lo, ans.hi, [(r["users"], r["held"]) for r in st.rows])
assert any(r["users"] == 4 for r in st.rows), st.rows
# A clean knee at 20: doubling to 32, then between, every bound run 3 to 6
# times before the decision; the answer 20, its interval closed and
# containing 20.
st = FakeSteps(lambda n: [n <= 20])
ans = cap.search(st, opts, lambda: 0)
assert (ans.how, ans.lo, ans.hi) == ("decided", 20, 21), (ans.how, ans.lo, ans.hi)
assert ans.ci[0] <= 20 <= ans.ci[1], ans.ci
# Then the confirmation: the counts the interval's ends rest on (its
# lower end, and the first tried count above its upper end) get
# --repeats fresh runs each, last, and the answer is the fit of all runs.
tested_above = min(r["users"] for r in st.rows if r["users"] > ans.ci[1])
assert [r["users"] for r in st.rows[-6:]] == [ans.ci[0]] * 3 + [tested_above] * 3, st.rows[-6:]
runs = {}
for row in st.rows[:-6]:
    runs[row["users"]] = runs.get(row["users"], 0) + 1
assert 3 <= runs[20] <= 6 and 3 <= runs[21] <= 6, runs
# A noisy knee (a real Dovecot search: 32 held 3 of 4, 33 half its runs,
# 34 none): the bounds' runs alone left the interval at 4..33, its lower
# end dragged to the counts the doubling ran once.  Those get --repeats
# runs and the gap below the knee is tried, until the interval is within
# the width: 16 ran 3 times, 24 was tried, and the interval is 28..33.
st = FakeSteps(lambda n: [T] if n < 32 else [T, T, F, T] if n == 32
               else [F, T] if n == 33 else [F])
ans = cap.search(st, opts, lambda: 0)
runs = {}
for row in st.rows:
    runs[row["users"]] = runs.get(row["users"], 0) + 1
assert (ans.how, ans.lo, ans.hi) == ("decided", 33, 34), (ans.how, ans.lo, ans.hi)
assert runs[16] == 3 and 24 in runs, runs
assert ans.ci[1] == 33 and ans.ci[1] - ans.ci[0] <= 2 * 0.10 * 33, ans.ci
# Where a repeat of that search would answer: each draw of the capacity
# plus another draw's error, so wider than the interval of the truth
# (here above it: 33 held half its runs) and nowhere narrower; a
# repeat_interval() of outcomes with no spread is the interval itself.
rep = cap.answer_repeat(st, ans)
assert rep[0] <= ans.ci[0] and rep[1] >= ans.ci[1] and rep != ans.ci, (rep, ans.ci)
clean = {1: [T] * 6, 2: [T] * 6, 3: [F] * 6}
assert cap.interval(clean, random.Random(1)) == (2, 2)
assert cap.repeat_interval(clean, random.Random(1), (2, 2)) == (2, 2)
noisy_ans, noisy_rep = ans, rep
# Everything holds up to --max: "max" once --max ran --repeats times.
st = FakeSteps(lambda n: [T])
ans = cap.search(st, dict(opts, max=8), lambda: 0)
assert (ans.how, ans.lo) == ("max", 8) and sum(1 for r in st.rows if r["users"] == 8) == 3, st.rows
assert cap.answer_repeat(st, ans) is None, "a repeat span without a knee"
# --max-time: a clock past it ends the search undecided.
st = FakeSteps(lambda n: [n <= 20])
t = iter(range(0, 10**6, 100))
ans = cap.search(st, dict(opts, max_time=250), lambda: next(t))
assert ans.how == "undecided", ans.how
rep = cap.answer_repeat(st, ans)
assert rep[0] <= ans.ci[0] and (rep[1] is None or ans.ci[1] is not None
                                and rep[1] >= ans.ci[1]), (rep, ans.ci)
# The ramp's verdict with --profile: users logged in at least once by the
# end of the warm-up (profile.users_started), not the users in at that
# instant, one of whom may be logged off by its own day (Cyrus's cached
# runs: "46 of 47"); a user that never got in still fails it, and a file
# from before users_started falls back to users_in.
def ramp_verdict(last_warm):
    st = cap.Steps(dict(profile="p.conf", warmup=2, secs=6, max_errors=0,
                        max_login_p95=2000, max_score=1000, max_p95=[]),
                   [], "imapstress", "/tmp")
    ticks = [dict(t=1, warmup=True, profile=dict(users_in=30)),
             dict(t=2, warmup=True, profile=last_warm),
             dict(t=3, warmup=False, profile=dict(users_in=47, users_started=47))]
    row = dict(users=47, exit=0, summary=dict(score=dict(score_us=30000)))
    st.steady(row, ticks)
    return st.judge(row)[0], row["users_in"]
assert ramp_verdict(dict(users_in=46, users_started=47)) == ("holds", 47)
assert ramp_verdict(dict(users_in=46, users_started=46))[0] == "not-steady"
assert ramp_verdict(dict(users_in=46)) == ("not-steady", 46)
assert ramp_verdict(dict(users_in=47)) == ("holds", 47)
# The quiet server before a run: --server-pid read from the imapstress
# arguments in either form; its tree's CPU from /proc never falls and is
# None once the process is gone; without --server-pid settle() waits for
# nothing.
mk = lambda args: cap.Steps(dict(profile=None, warmup=None, secs=6), args,
                            "imapstress", "/tmp")
assert mk(["port=1", "--server-pid", "42"]).server_pid() == 42
assert mk(["--server-pid=43", "port=1"]).server_pid() == 43
assert mk(["port=1"]).server_pid() is None
assert mk(["--server-pid", "x1"]).server_pid() is None
import os, subprocess, time
child = subprocess.Popen(["sleep", "30"])
a = cap.tree_cpu_s(os.getpid())
b = cap.tree_cpu_s(os.getpid())
assert a is not None and b >= a, (a, b)
child.kill(); child.wait()
assert cap.tree_cpu_s(child.pid) is None
calls = []
st = mk(["port=1"])
orig = time.sleep
time.sleep = lambda s: calls.append(s)
st.settle(4)
time.sleep = orig
assert calls == [], calls
print("doctests", r.attempted, "interval", a, b, "noisy", noisy_ans.lo,
      noisy_ans.ci, "repeat", noisy_rep, "search ok")
PY
note "ok"
