"""fake_selftest_lib.py: the harness for fake_selftest.py.

check() prints one "ok"/"FAIL" line; Server starts $FAKEIMAPD on a free
loopback port and, on stop(), demands exit 0 with nothing from the
sanitizers on stderr; Client is a tiny line/literal-aware IMAP client.
"""
import os
import re
import select
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

FAKE = os.environ.get("FAKEIMAPD", "./build/fakeimapd")
HERE = os.path.dirname(os.path.abspath(__file__))
SCEN = os.path.join(HERE, "scenarios")
TMP = tempfile.mkdtemp(prefix="fake-selftest.")
LIVE = []
FAILED = []


def check(name, cond, detail=""):
    if cond:
        print("ok   - %s" % name)
    else:
        print("FAIL - %s%s" % (name, (": " + str(detail)) if detail else ""))
        FAILED.append(name)
    sys.stdout.flush()
    return cond


class Server:
    def __init__(self, *args):
        self.err_path = os.path.join(TMP, "stderr.%d" % len(LIVE))
        self.errf = open(self.err_path, "w+")
        self.stats_path = os.path.join(TMP, "stats.%d" % len(LIVE))
        self.t_spawn = time.monotonic()
        self.p = subprocess.Popen(
            [FAKE, "--port", "0", "--stats-file", self.stats_path] + list(args),
            stdout=subprocess.PIPE, stderr=self.errf)
        LIVE.append(self)
        line = b""
        deadline = time.monotonic() + 15
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise RuntimeError("no PORT line from %s" % " ".join(args))
            c = os.read(self.p.stdout.fileno(), 1)
            if not c:
                raise RuntimeError("fakeimapd exited early: %s" % self.stderr())
            line += c
        m = re.match(rb"PORT (\d+)\n", line)
        if not m:
            raise RuntimeError("bad PORT line %r" % line)
        self.port = int(m.group(1))
        self.t_port = time.monotonic()

    def stderr(self):
        self.errf.flush()
        with open(self.err_path) as f:
            return f.read()

    def stop(self):
        """SIGTERM; returns the stats dict; checks exit 0 and clean stderr."""
        if self in LIVE:
            LIVE.remove(self)
        self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            rc = "hung after SIGTERM"
        err = self.stderr()
        self.p.stdout.close()
        self.errf.close()
        bad = ("Sanitizer" in err or "runtime error" in err or "ERROR" in err)
        if rc != 0 or bad:
            check("server exits 0 and clean after SIGTERM", False,
                  "rc=%s stderr=%s" % (rc, err[-2000:]))
        stats = {}
        if os.path.exists(self.stats_path):
            with open(self.stats_path) as f:
                for ln in f:
                    k, _, v = ln.strip().partition("=")
                    stats[k] = int(v)
        return stats

    def kill(self):
        if self in LIVE:
            LIVE.remove(self)
        self.p.kill()
        self.p.wait()


class Client:
    def __init__(self, port, tls=False, timeout=5.0):
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        if tls:
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            s = ctx.wrap_socket(s)
        self.s = s
        self.buf = b""
        self.timeout = timeout

    def close(self):
        self.s.close()

    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.s.sendall(data)

    def _fill(self, timeout):
        self.s.settimeout(timeout)
        d = self.s.recv(65536)
        if not d:
            raise EOFError("server closed the connection")
        self.buf += d

    def line(self, timeout=None):
        while b"\r\n" not in self.buf:
            self._fill(timeout or self.timeout)
        ln, _, self.buf = self.buf.partition(b"\r\n")
        return ln.decode("latin-1")

    def exactly(self, n, timeout=None):
        while len(self.buf) < n:
            self._fill(timeout or self.timeout)
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def cmd(self, tag, text):
        """Sends one command line, returns all lines up to the tagged one."""
        self.send("%s %s\r\n" % (tag, text))
        return self.until(tag)

    def until(self, tag):
        lines = []
        while True:
            ln = self.line()
            lines.append(ln)
            if ln.startswith(tag + " "):
                return lines

    def eof(self, timeout=3.0):
        """True when the server closes (FIN) before sending more."""
        if self.buf:
            return False
        try:
            self._fill(timeout)
        except EOFError:
            return True
        except OSError:
            return False
        return False

    def closed(self, timeout=3.0):
        """True on EOF or RST (a close with our bytes still unread)."""
        if self.buf:
            return False
        try:
            self._fill(timeout)
        except (EOFError, ConnectionResetError):
            return True
        except OSError:
            return False
        return False

    def silent(self, seconds):
        """True when nothing at all arrives for `seconds`."""
        if self.buf:
            return False
        try:
            self._fill(seconds)
        except socket.timeout:
            return True
        except (EOFError, OSError):
            return False
        return False


def run(name, fn):
    try:
        fn()
    except Exception as e:  # one broken group must not hide the others
        check(name, False, "%s: %s" % (type(e).__name__, e))
    finally:
        for srv in list(LIVE):
            srv.kill()


def main_groups(groups):
    """Runs each (name, fn) group, cleans up, prints the verdict; the
    exit status for sys.exit."""
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    try:
        for name, fn in groups:
            run(name, fn)
    finally:
        for srv in list(LIVE):
            srv.kill()
        subprocess.run(["rm", "-rf", TMP])
    if FAILED:
        print("%d check(s) failed" % len(FAILED))
        return 1
    print("all checks passed")
    return 0


def scenario(name):
    """fakeimapd arguments for tests/fake/scenarios/NAME.conf: the faults a
    rule file expresses are no --mode of their own."""
    return ["--mode", "script", "--script", os.path.join(SCEN, name + ".conf")]
