#!/usr/bin/python3
"""profile_rate.py PLAN COUNTS SECONDS: a profile run's LMTP deliveries per
folder (COUNTS: its --profile-counts file) against the rates
--profile-check promised (PLAN: its output), for t_profile_dovecot.

Each user block's "deliveries expected: X/hour (INBOX a, Spam b)" gives
one mail every 3600 * users / a seconds per user.  The expected count and
its spread come from the schedule imapstress follows (imaptest's, in
src/users/users_due.c): user i of N starts at ramp-up * (i + 1) / N, its
first mail of a folder uniform in [0, interval) later, each next one the
interval jittered (normal, sd interval / 2, clamped to [0, 2 * interval])
after the last, none after SECONDS; 3000 simulated runs of that give the
mean and the standard deviation.  A count more than 5 deviations off is
not that rate (one in ~10^6 by chance).  Prints "FOLDER GOT MEAN SD
ok|OUT" per folder; exit 1 when one is out."""
import json
import math
import random
import re
import sys

plan = open(sys.argv[1]).read().splitlines()
counts = json.load(open(sys.argv[2]))["totals"]["delivered"]
T = float(sys.argv[3])
m = re.match(r"profile .*: (\d+) users, .*ramp-up (\S+) s", plan[0])
N, rampup = int(m.group(1)), float(m.group(2))
streams = {"INBOX": [], "Spam": []}
i = 0
users = None
for line in plan[1:]:
    b = re.match(r"user \S+ \(line \d+\): (\d+) users", line)
    if b:
        users = int(b.group(1))
        continue
    d = re.match(r"  deliveries expected: \S+/hour \(INBOX (\d+), Spam (\d+)\)", line)
    if d and users is not None:
        for k, rate in (("INBOX", int(d.group(1))), ("Spam", int(d.group(2)))):
            if rate > 0:
                n = 3600.0 * users / rate
                streams[k] += [(rampup * (i + j + 1) / N, n) for j in range(users)]
        i += users
        users = None
rng = random.Random(1)
def one(ss):
    c = 0
    for off, n in ss:
        t = off + rng.random() * n
        while t < T:
            c += 1
            t += min(max(n + rng.gauss(0, n / 2), 0), 2 * n)
    return c
bad = 0
for k, ss in streams.items():
    xs = [one(ss) for _ in range(3000)]
    mean = sum(xs) / len(xs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
    got = counts[k]
    ok = abs(got - mean) <= 5 * sd
    print("%s %d %.1f %.1f %s" % (k, got, mean, sd, "ok" if ok else "OUT"))
    bad += not ok
sys.exit(1 if bad else 0)
