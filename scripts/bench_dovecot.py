"""scripts/bench_dovecot.py: bench-client's sections against a private
Dovecot (scripts/dovecot-private): the seed and FETCH runs with Dovecot's
own CPU beside imapstress's, and the imaptest comparison (the runs
themselves are in bench_imaptest.py).  A mixin of bench-client's Bench:
it uses Bench's run_imapstress, log_cmd, a (the options), env, raw and
failures."""
import os
import shutil
import subprocess
import time

import bench_imaptest
from bench_common import ROOT, note

DOVECOT_PRIVATE = os.path.join(ROOT, "scripts", "dovecot-private")


class DovecotSections:
    @staticmethod
    def proc_table():
        """pid -> (ppid, comm, utime+stime+cutime+cstime in ticks)."""
        out = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                s = open("/proc/%s/stat" % d).read()
            except OSError:
                continue
            head, _, rest = s.rpartition(")")
            f = rest.split()
            out[int(d)] = (int(f[1]), head.partition("(")[2], sum(int(x) for x in f[11:15]))
        return out

    def dovecot_cpu(self, master):
        """CPU seconds of the master and all its descendants; reaped
        children are in their parent's cutime/cstime."""
        tab = self.proc_table()
        tree, todo = set(), [master]
        while todo:
            p = todo.pop()
            if p in tree or p not in tab:
                continue
            tree.add(p)
            todo += [q for q, v in tab.items() if v[0] == p]
        return sum(tab[p][2] for p in tree) / os.sysconf("SC_CLK_TCK")

    def wait_sessions_gone(self, master, limit=20):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            left = [p for p, v in self.proc_table().items() if v[0] == master and v[1] == "imap"]
            if not left:
                return True
            time.sleep(0.1)
        note("imap processes still alive after %d s: their CPU so far is counted" % limit)
        return False

    def dovecot_run(self, dv, name, words, secs):
        self.wait_sessions_gone(dv["master"])
        before = self.dovecot_cpu(dv["master"])
        r = self.run_imapstress(name, words, dv["port"], secs)
        self.wait_sessions_gone(dv["master"])
        after = self.dovecot_cpu(dv["master"])
        if r is None:
            return None
        s = r[0]
        tool = s["cpu"]["user_s"] + s["cpu"]["sys_s"]
        cmds = sum(c.get("ok", 0) + c.get("no", 0) + c.get("bad", 0) for c in s["commands"].values())
        row = {"name": name, "tool_s": tool, "server_s": after - before,
               "pct": 100.0 * tool / (after - before) if after > before else 0.0,
               "cmds": cmds, "msgs": s.get("messages_appended", 0),
               "us_per_cmd": s["cpu"]["us_per_command"], "rss_kb": s.get("peak_rss_kb", 0),
               "errors": sum(s.get("errors", {}).values()), "workers": s.get("workers")}
        self.raw.append({"kind": "dovecot", "name": name, "us_per_cmd": row["us_per_cmd"],
                         "rss_kb": row["rss_kb"], "errors": row["errors"], "cmds_per_s": 0,
                         "tool_s": tool, "server_s": row["server_s"]})
        return row

    def count(self, dv, user):
        p = subprocess.run([DOVECOT_PRIVATE, "count",
                            "--dir", dv["dir"], user], capture_output=True, text=True)
        return int(p.stdout.strip()) if p.returncode == 0 and p.stdout.strip().isdigit() else -1

    def start_dovecot(self, *args):
        """`dovecot-private start ARGS`: the variables it prints, or None
        (counted as a failure, the reason noted)."""
        argv = [DOVECOT_PRIVATE, "start"] + list(args)
        self.log_cmd(argv)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=90)
        if p.returncode != 0:
            self.failures += 1
            note("could not start a private Dovecot: " + p.stderr.strip()[-500:])
            return None
        return dict(line.split("=", 1) for line in p.stdout.splitlines()
                    if "=" in line and not line.startswith("export"))

    def stop_dovecot(self, d):
        # Deleting a few GB of maildir takes a while on a busy disk.
        self.log_cmd([DOVECOT_PRIVATE, "stop", "--dir", d])
        try:
            subprocess.run([DOVECOT_PRIVATE, "stop", "--dir", d], timeout=600)
        except subprocess.TimeoutExpired:
            note("dovecot-private stop took over 600 s; %s may be left" % d)

    def section_dovecot(self):
        if shutil.which("dovecot") is None and not os.path.exists("/usr/sbin/dovecot"):
            note("dovecot is not installed (scripts/deps installs it): Dovecot section skipped")
            return None
        env = self.start_dovecot()
        if env is None:
            return None
        dv = {"dir": env["DOVECOT_DIR"], "port": int(env["DOVECOT_PORT"])}
        self.env["IMAPSTRESS_PASSWORD"] = env.get("DOVECOT_PASS", "pass")
        res = {}
        try:
            dv["master"] = int(open(os.path.join(dv["dir"], "run", "master.pid")).read())
            seed = ["-", "append=100", "seed=1", "msgs=1000000", "logout=0", "select=0",
                    "clients=100"]
            fill = ["-", "append=100,0", "select=0", "logout=0", "msgs=1000000",
                    "clients=10", "user=fetchbox"]
            for i in range(15):
                n = self.count(dv, "fetchbox") if i else 0
                if n >= 1000:
                    break
                note("filling fetchbox (%d messages so far)" % max(n, 0))
                self.run_imapstress("fill", fill, dv["port"], 2)
            fetch = ["-", "select=100", "fetch=100", "fet2=100", "logout=0", "clients=10",
                     "user=fetchbox"]
            dv["fetchbox"] = self.count(dv, "fetchbox")
            for rep in range(self.a.repeat):
                for name, words in (("seed 4KB", seed + ["user=s%da%%d" % rep, "users=1-100"]),
                                    ("seed 75KB", seed + ["user=s%db%%d" % rep, "users=1-100",
                                                          "--msg-size", "75k"]),
                                    ("FETCH+FETCH2", fetch)):
                    note("rep %d/%d: Dovecot %s" % (rep + 1, self.a.repeat, name))
                    r = self.dovecot_run(dv, name.replace(" ", "_"), words, 10)
                    if r:
                        note("  tool %.2f s, Dovecot %.2f s (%.1f%%), %d commands"
                             % (r["tool_s"], r["server_s"], r["pct"], r["cmds"]))
                        res.setdefault(name, []).append(r)
        finally:
            self.stop_dovecot(dv["dir"])
        return res, dv.get("fetchbox", -1)

    def section_imaptest(self):
        path = self.a.vs_imaptest
        if not path or not os.access(path, os.X_OK):
            note("no imaptest binary (%s): the imaptest comparison is skipped"
                 % (path or "--vs-imaptest PATH not given"))
            return None
        if shutil.which("dovecot") is None and not os.path.exists("/usr/sbin/dovecot"):
            note("dovecot is not installed (scripts/deps installs it): imaptest comparison skipped")
            return None
        started = []

        def start(*extra):
            env = self.start_dovecot("--fsync", "no", "--max-imap",
                                     str(bench_imaptest.RAMP_CLIENTS + 200), *extra)
            if env is None:
                return None
            started.append(env["DOVECOT_DIR"])
            return {"dir": env["DOVECOT_DIR"], "port": int(env["DOVECOT_PORT"]),
                    "master": int(env["DOVECOT_PID"]), "pass": env.get("DOVECOT_PASS", "pass")}
        try:
            dv = start()
            # The ramp's own instance: long-lived imap processes serving
            # many sessions each, so that 2,000 logins do not wait for
            # 2,000 forks (on a small, shared machine Dovecot's fork per
            # session is the limit for both tools alike).
            ramp_dv = start("--imap-clients", str(bench_imaptest.RAMP_IMAP_CLIENTS)) if dv else None
            if ramp_dv is None:
                return None
            return bench_imaptest.VsImaptest(self, os.path.abspath(path)).run(
                dv, dv["pass"], ramp_dv)
        finally:
            for d in started:
                self.stop_dovecot(d)
