"""scripts/bench_imaptest.py: the --vs-imaptest section of scripts/bench-client.

imaptest and imapstress side by side on one private Dovecot
(scripts/dovecot-private, maildir, fsync off so that the server is not the
bottleneck), runs alternating between the two tools, each tool given the
same imaptest-style words (host= port= user= pass= secs= clients= mbox= and
the state words), so that both do the same IMAP work.  Client CPU is the
child's own getrusage (os.wait4: user + system, the whole run from exec to
exit, both tools measured the same way), divided by the commands in its
Totals table.  Both tools print the same Totals table; imapstress's ID
before LOGIN is not in it, so its cost is charged to the commands that are
(imaptest sends no ID: in the no_pipelining rows, one session per command,
that is a fifth more round trips, so there imapstress runs with --no-id for
the same work; the default mix keeps ID on, as the issue asks).
Peak RSS is the tool's ru_maxrss as GNU time (/usr/bin/time, package
time) reports it.

Workloads (clients=10 unless named, secs=--secs, mbox of 4096-octet messages):
  mix           imaptest's default mix (ID on for imapstress)
  mix 100       the same at clients=100: issue 35's own measure of the
                mix (client CPU from wait4 over the Totals commands,
                alternating), the figure its target of 0.5 is judged by
  APPEND 1      - append=100,0 no_pipelining    (a session per APPEND:
                  connect, LOGIN, SELECT, APPEND, LOGOUT, as imaptest does)
  NOOP 1        - noop=100 no_pipelining        (likewise)
  APPEND piped  - append=100,0 logout=0
Every APPEND workload adds msgs=1000000: both tools APPEND only while the
mailbox holds fewer than msgs= (default 1000) messages, and repeated runs
fill the users' INBOXes past that (imaptest then spins without output,
imapstress idles).
  FETCH piped   - select=100 fet2=100 logout=0 user=fetchbox (one
                  mailbox filled first with >= 200 messages)
  NOOP piped    - noop=100 logout=0
The floor (scripts/bench-floor.c) against the same Dovecot, one LOGIN and
SELECT per connection then one command at a time, against imapstress with
`- append=100,0 logout=0 no_pipelining` and `- noop=100 logout=0
no_pipelining` (persistent sessions: the floor never logs out).  The floor
logs in as u1..u10 (--user u%d), a mailbox per connection as imapstress's
user=u%d has, and counts CPU and commands after its first second only; so
in these rows imapstress's us/cmd is its steady state too (the JSON ticks
after the first second, as the cpu section measures it), not the whole
run with its start-up, logins and exit.

Ramp: clients=2000 `- noop=100 logout=0 no_pipelining`, secs=RAMP_SECS; cumulative
logins per second from each tool's per-second lines (first column);
imaptest's ramp time is the second in which it reached 2000; imapstress
passes a run when it reached 2000 by then.  3 runs each, alternating.  The
ramp has a private Dovecot of its own, started with --imap-clients
RAMP_IMAP_CLIENTS (long-lived imap processes serving that many sessions
each): with Dovecot's one fork per session, neither tool got 2,000 logins
in on this 2-core machine.  Beside each run, Dovecot's CPU seconds over it
(master and all descendants, from /proc), to show when it is the limit.
"""

import os
import re
import statistics
import subprocess
import time

RAMP_CLIENTS = 2000
RAMP_SECS = 12
RAMP_IMAP_CLIENTS = 100
MBOX_MESSAGES = 50
MSG_SIZE = 4096
TIME = "/usr/bin/time"
MSGS = "msgs=1000000"
# One session per command: imaptest sends no ID, so neither do we there.
NO_ID = ("--no-id",)
NO_ID_ROWS = ("APPEND 1", "NOOP 1")
# The ramp's sessions: one NOOP at a time for both tools, so that the
# sessions already logged in load Dovecot alike (pipelined, imapstress keeps
# 10 NOOPs in flight per session against imaptest's fewer, and the extra
# NOOP load slows everyone's LOGIN: that would measure the workload, not the
# ramp).
RAMP_WORDS = ["-", "noop=100", "logout=0", "no_pipelining"]
# A per-second line: the counts, then "open/ total" (imapstress may add a note).
SEC_LINE = re.compile(r"^\s*\d+(\s+\d+)*\s+\d+/\s*\d+(\s|$)")


def write_mbox(path, n, size):
    """N messages of exactly SIZE octets each (CRLF lines)."""
    with open(path, "w", newline="") as f:
        for i in range(n):
            hdr = ("From: bench <bench@example.invalid>\r\nTo: test <test@example.invalid>\r\n"
                   "Subject: bench message %d\r\nMessage-ID: <%d@bench.invalid>\r\n"
                   "Date: Mon, 01 Jan 2024 00:00:00 +0000\r\n\r\n" % (i, i))
            body_len = size - len(hdr)
            line = "abcdefghijklmnopqrstuvwxyz0123456789" * 2 + "\r\n"
            body = (line * (body_len // len(line) + 1))[:body_len - 2] + "\r\n"
            f.write("From bench@example.invalid Mon Jan  1 00:00:00 2024\n")
            f.write(hdr + body)
    return path


def sec_counts(line):
    """A per-second line's counts, one per state column (before "open/ total")."""
    out = []
    for f in line.split():
        if not f.isdigit():
            break
        out.append(int(f))
    return out


def parse_output(text):
    """(commands in Totals, [counts per second, a list per line])."""
    lines = text.splitlines()
    per_sec = [sec_counts(l) for l in lines if SEC_LINE.match(l)]
    total = None
    for i, l in enumerate(lines):
        if l.startswith("Totals:"):
            for l2 in lines[i + 1:]:
                f = l2.split()
                if f and all(x.isdigit() for x in f):
                    total = sum(int(x) for x in f)
                    break
    return total, per_sec


class VsImaptest:
    def __init__(self, bench, imaptest):
        self.b = bench
        self.imaptest = imaptest
        self.rows = {}
        self.ramp = {}

    def run_tool(self, tool, name, words, secs, dv=None, ours=()):
        b = self.b
        dv = dv or self.dv
        b.seq += 1
        base = os.path.join(b.out, "runs", "%03d-%s-%s" % (b.seq, tool, name))
        exe = self.imaptest if tool == "imaptest" else b.imapstress
        argv = [exe, "host=127.0.0.1", "port=%d" % dv["port"], "pass=%s" % self.pw,
                "secs=%d" % secs, "mbox=%s" % self.mbox] + words
        if tool != "imaptest":
            # Both tools use the same users' mailboxes, and imaptest's
            # mail carries no X-Imapstress header: without this the
            # foreign-mail check stops imapstress's first EXPUNGE after an
            # imaptest run (the mix then ran 1-2 s of its 5 and reported
            # 2.7x imaptest's CPU per command).  The Dovecot is private.
            argv += list(ours) + ["--allow-foreign-mail", "--json", base + ".json"]
        if not any(w.startswith("user=") for w in words):
            argv.insert(3, "user=u%d")
        # Run under GNU time for the peak RSS: a child forked from this
        # Python inherits its ~15 MB high-water mark into ru_maxrss, one
        # forked from time(1) does not.  wait4 on time still returns the
        # tool's CPU (a reaped child's usage is added to its parent's).
        rss_file = base + ".rss"
        if os.access(TIME, os.X_OK):
            argv = [TIME, "-f", "%M", "-o", rss_file] + argv
        b.log_cmd(argv)
        with open(base + ".out", "w") as o:
            p = subprocess.Popen(argv, stdout=o, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, cwd=b.out, env=b.env)
            t0 = time.monotonic()
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = status
            wall = time.monotonic() - t0
        text = open(base + ".out", errors="replace").read()
        if tool != "imaptest" and os.waitstatus_to_exitcode(status) != 0:
            b.note("%s %s: exit status %d, its figures cover less than secs=; see %s.out"
                   % (tool, name, os.waitstatus_to_exitcode(status), base))
        cmds, per_sec = parse_output(text)
        if not cmds:
            b.failures += 1
            b.note("%s %s: no Totals (status %d); see %s.out" % (tool, name, status, base))
            return None
        cpu = ru.ru_utime + ru.ru_stime
        # Context switches: each is a sleep in epoll_wait and a wake-up by
        # a reply (voluntary) or a preemption; with equal wire behaviour
        # the kernel's work per switch is the same for both tools.
        csw = ru.ru_nvcsw + ru.ru_nivcsw
        steady = None
        if tool != "imaptest":
            summary, ticks = b.read_json(base + ".json")
            st = b.steady(summary, ticks, secs) if summary else None
            steady = st["us_per_cmd"] if st else None
        try:
            rss = int(open(rss_file).read().split()[-1])
        except (OSError, ValueError, IndexError):
            rss = None
        return {"cmds": cmds, "cpu_s": cpu, "user_s": ru.ru_utime, "us_per_cmd": cpu * 1e6 / cmds,
                "user_us": ru.ru_utime * 1e6 / cmds, "sys_us": ru.ru_stime * 1e6 / cmds,
                "csw": csw / cmds,
                "steady_us": steady,
                "rss_kb": rss, "wall": wall, "per_sec": per_sec}

    def floor(self, name, cmd, secs):
        b = self.b
        if b.floor_bin is None:
            return None
        argv = [b.floor_bin, "--port", str(self.dv["port"]), "--clients", "10",
                "--secs", str(secs), "--warmup", "1", "--cmd", cmd, "--size", str(MSG_SIZE),
                "--pipeline", "1", "--user", "u%d"]
        b.log_cmd(argv)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=secs + 60)
        if p.returncode != 0:
            b.failures += 1
            b.note("floor %s failed: %s" % (name, p.stderr.strip()))
            return None
        kv = dict(x.split("=", 1) for x in p.stdout.split())
        return {"us_per_cmd": float(kv["us_per_command"]), "cmds": int(kv["commands"])}

    def fill_fetchbox(self):
        for _ in range(10):
            r = self.run_tool("imapstress", "fill", ["-", "append=100,0", "logout=0",
                                                      "user=fetchbox", "-q"], 2)
            n = self.b.count(self.dv, "fetchbox")
            if n >= 200:
                return n
        return -1

    def workloads(self):
        return [("mix", [], True),
                ("mix 100", ["clients=100"], True),
                ("APPEND 1", ["-", "append=100,0", "no_pipelining", MSGS], True),
                ("NOOP 1", ["-", "noop=100", "no_pipelining"], True),
                ("APPEND piped", ["-", "append=100,0", "logout=0", MSGS], True),
                ("FETCH piped", ["-", "select=100", "fet2=100", "logout=0", "user=fetchbox"], True),
                ("NOOP piped", ["-", "noop=100", "logout=0"], True),
                ("APPEND 1 persistent", ["-", "append=100,0", "logout=0", "no_pipelining", MSGS],
                 False),
                ("NOOP 1 persistent", ["-", "noop=100", "logout=0", "no_pipelining"], False)]

    def run(self, dv, password, ramp_dv):
        b = self.b
        self.dv, self.pw = dv, password
        self.mbox = write_mbox(os.path.join(b.out, "vs-imaptest.mbox"), MBOX_MESSAGES, MSG_SIZE)
        b.build_floor()
        self.fill_fetchbox()
        secs = b.a.secs
        for rep in range(b.a.repeat):
            for name, words, both in self.workloads():
                tools = ["imaptest", "imapstress"] if both else ["imapstress"]
                if rep % 2:
                    tools.reverse()
                for tool in tools:
                    b.note("rep %d/%d: %s %s" % (rep + 1, b.a.repeat, tool, name))
                    r = self.run_tool(tool, name.replace(" ", "_"), words, secs,
                                      ours=NO_ID if name in NO_ID_ROWS else ())
                    if r:
                        self.rows.setdefault((name, tool), []).append(r)
                if not both:
                    f = self.floor(name, "append" if "APPEND" in name else "noop", secs)
                    if f:
                        self.rows.setdefault((name, "floor"), []).append(f)
        for rep in range(3):
            tools = ["imaptest", "imapstress"] if rep % 2 == 0 else ["imapstress", "imaptest"]
            for tool in tools:
                b.note("ramp %d/3: %s clients=%d" % (rep + 1, tool, RAMP_CLIENTS))
                before = b.dovecot_cpu(ramp_dv["master"])
                r = self.run_tool(tool, "ramp", RAMP_WORDS + ["clients=%d" % RAMP_CLIENTS],
                                  RAMP_SECS, ramp_dv)
                if r:
                    r["server_s"] = b.dovecot_cpu(ramp_dv["master"]) - before
                    self.ramp.setdefault(tool, []).append(r)
        return self

    # ---- tables ------------------------------------------------------------

    def med(self, key, tool, field):
        rr = [r[field] for r in self.rows.get((key, tool), []) if r.get(field) is not None]
        return statistics.median(rr) if rr else None

    @staticmethod
    def reached(per_sec, n):
        tot = 0
        for i, v in enumerate(per_sec):
            tot += v[0] if v else 0
            if tot >= n:
                return i + 1
        return None

    def split_table(self, fmt, emit):
        """Where each tool's CPU goes, per command: user space, the kernel
        and context switches.  'kernel floor' is imapstress's system time
        alone over imaptest's whole CPU: the ratio it would have with no
        user-space cost at all, so a target below it cannot be met with
        the same connects, reads, writes and wake-ups."""
        rows = []
        for name, _, both in self.workloads():
            if not both:
                continue
            m = lambda tool, f: self.med(name, tool, f)
            theirs = m("imaptest", "us_per_cmd")
            floor = m("imapstress", "sys_us") / theirs if theirs and m("imapstress", "sys_us") else None
            rows.append([name, fmt(m("imapstress", "user_us")), fmt(m("imapstress", "sys_us")),
                         fmt(m("imapstress", "csw")), fmt(m("imaptest", "user_us")),
                         fmt(m("imaptest", "sys_us")), fmt(m("imaptest", "csw")), fmt(floor)])
        emit(self.b.out, "vs-imaptest-split.csv",
             "Per command (medians): user and system us and context switches, imapstress then "
             "imaptest; kernel floor = imapstress's system us / imaptest's user+system us",
             ["workload", "user us", "sys us", "ctx sw", "their user us", "their sys us",
              "their ctx sw", "kernel floor"], rows)

    def tables(self, fmt, emit):
        rows = []
        for name, _, both in self.workloads():
            # against the floor: steady state against steady state
            ours = self.med(name, "imapstress", "us_per_cmd" if both else "steady_us")
            other = self.med(name, "imaptest" if both else "floor", "us_per_cmd")
            rows.append([name, "imaptest" if both else "floor",
                         fmt(self.med(name, "imapstress", "cmds")),
                         fmt(self.med(name, "imaptest" if both else "floor", "cmds")),
                         fmt(ours), fmt(other), fmt(ours / other if ours and other else None),
                         fmt(self.med(name, "imapstress", "rss_kb") / 1024, 1)
                         if self.med(name, "imapstress", "rss_kb") else "-",
                         fmt(self.med(name, "imaptest", "rss_kb") / 1024, 1)
                         if both and self.med(name, "imaptest", "rss_kb") else "-"])
        emit(self.b.out, "vs-imaptest.csv",
             "imapstress vs imaptest / floor on one private Dovecot, clients=10 (mix 100: 100), secs=%d, "
             "medians of %d alternating run(s); CPU = getrusage of the child / Totals commands "
             "(vs floor: the steady ticks after the first second, as the floor counts)"
             % (self.b.a.secs, self.b.a.repeat),
             ["workload", "vs", "commands", "their commands", "us/cmd", "their us/cmd",
              "ratio", "RSS MiB", "their RSS MiB"], rows)
        self.split_table(fmt, emit)
        rrows = []
        it_ramp = [self.reached(r["per_sec"], RAMP_CLIENTS) for r in self.ramp.get("imaptest", [])]
        limit = max([x for x in it_ramp if x] or [RAMP_SECS])
        for tool in ("imaptest", "imapstress"):
            rr = self.ramp.get(tool, [])
            secs = [self.reached(r["per_sec"], RAMP_CLIENTS) for r in rr]
            logins = [sum(v[0] for v in r["per_sec"][:limit] if v) for r in rr]
            # What the sessions already logged in got from Dovecot by then
            # (the last state column is NOOP in RAMP_WORDS): the server's
            # CPU the logins still waiting had to share.
            noops = [sum(v[-1] for v in r["per_sec"][:limit] if v) for r in rr]
            ok = sum(1 for s in secs if s is not None and s <= limit)
            rrows.append([tool, " ".join(str(s or "-") for s in secs),
                          " ".join(str(x) for x in logins), "%d of %d" % (ok, len(rr)),
                          " ".join(str(x) for x in noops),
                          " ".join("%.1f" % r["cpu_s"] for r in rr),
                          " ".join("%.1f" % r["server_s"] for r in rr)])
        emit(self.b.out, "vs-imaptest-ramp.csv",
             "%d clients against Dovecot (--imap-clients %d; %s): second in which all had "
             "logged in, and logins after imaptest's ramp time (%d s)"
             % (RAMP_CLIENTS, RAMP_IMAP_CLIENTS, " ".join(RAMP_WORDS), limit),
             ["tool", "all logged in at s", "logins by ramp time", "within ramp time",
              "NOOPs by ramp time", "client CPU s", "Dovecot CPU s"], rrows)
