"""fake_selftest.py: the checks behind t_fake_selftest.sh.

Starts fakeimapd ($FAKEIMAPD) on 127.0.0.1 with a free port for each
group of checks, talks IMAP to it, and prints one "ok"/"FAIL" line per
check.  Every server must exit 0 on SIGTERM with nothing from the
sanitizers on stderr.  Timing checks only assert lower bounds.
"""
import os
import re
import socket
import subprocess
import sys
import time

from fake_selftest_faults import t_faults, t_tls
from fake_selftest_stream import t_streams
from fake_selftest_lib import FAKE, SCEN, TMP, Client, Server, check, main_groups


# ---- normal mode -------------------------------------------------------------

def t_normal():
    srv = Server("--messages", "10", "--msg-size", "1000")
    c = Client(srv.port)
    g = c.line()
    check("greeting carries the default CAPABILITY",
          g.startswith("* OK [CAPABILITY IMAP4rev1 LITERAL+ MULTIAPPEND")
          and "AUTH=PLAIN" in g and g.endswith("fakeimapd ready"), g)
    r = c.cmd("a1", "CAPABILITY")
    check("CAPABILITY", r[0].startswith("* CAPABILITY IMAP4rev1")
          and r[-1].startswith("a1 OK"), r)
    r = c.cmd("a2", 'LOGIN "user" "secret"')
    check("LOGIN OK", r == ["a2 OK LOGIN completed"], r)
    r = c.cmd("a3", "SELECT INBOX")
    check("SELECT shows 10 EXISTS, UIDNEXT 11, READ-WRITE",
          "* 10 EXISTS" in r and "* 0 RECENT" in r
          and any("[UIDVALIDITY 1]" in x for x in r)
          and any("[UIDNEXT 11]" in x for x in r)
          and r[-1].startswith("a3 OK [READ-WRITE]"), r)

    m1 = b"Subject: one\r\n\r\nbody one\r\n"
    c.send("a4 APPEND INBOX (\\Seen) {%d}\r\n" % len(m1))
    cont = c.line()
    c.send(m1 + b"\r\n")
    r = c.until("a4")
    check("APPEND with a sync literal: '+' then EXISTS and APPENDUID",
          cont.startswith("+") and r == ["* 11 EXISTS",
                                         "a4 OK [APPENDUID 1 11] APPEND completed"],
          (cont, r))

    msgs = [b"Subject: a\r\n\r\nA\r\n", b"Subject: bb\r\n\r\nBB\r\n",
            b"Subject: ccc\r\n\r\nCCC\r\n"]
    data = b"a5 APPEND INBOX {%d+}\r\n%s" % (len(msgs[0]), msgs[0])
    data += b' (\\Seen) "01-Jan-2024 00:00:00 +0000" {%d+}\r\n%s' % (
        len(msgs[1]), msgs[1])
    data += b" {%d+}\r\n%s\r\n" % (len(msgs[2]), msgs[2])
    # One byte at a time: literals must survive any split.
    for i in range(len(data)):
        c.send(data[i:i + 1])
    r = c.until("a5")
    check("MULTIAPPEND of 3 with LITERAL+ (sent byte by byte)",
          r == ["* 14 EXISTS", "a5 OK [APPENDUID 1 12:14] APPEND completed"], r)

    c.send("a6 FETCH 2 (UID BODY.PEEK[])\r\n")
    hdr = c.line()
    m = re.match(r"\* 2 FETCH \(UID 2 BODY\[\] \{(\d+)\}$", hdr)
    body = c.exactly(int(m.group(1))) if m else b""
    tail = c.until("a6")
    check("FETCH BODY[] returns exactly --msg-size bytes",
          m is not None and int(m.group(1)) == 1000 and len(body) == 1000
          and body.endswith(b"\r\n") and tail == [")", "a6 OK FETCH completed"],
          (hdr, len(body), tail))
    r = c.cmd("a7", "UID FETCH 12:* (FLAGS)")
    check("UID FETCH 12:* FLAGS lists the appended UIDs",
          r == ["* 12 FETCH (UID 12 FLAGS (\\Seen))",
                "* 13 FETCH (UID 13 FLAGS (\\Seen))",
                "* 14 FETCH (UID 14 FLAGS (\\Seen))",
                "a7 OK UID FETCH completed"], r)
    r = c.cmd("a8", "FETCH 99 (FLAGS)")
    check("FETCH of a missing message returns only OK",
          r == ["a8 OK FETCH completed"], r)
    r = c.cmd("a9", "STORE 1:2 +FLAGS (\\Deleted)")
    r2 = c.cmd("a10", "STORE 1 +FLAGS.SILENT (\\Seen)")
    check("STORE answers FETCH FLAGS, .SILENT does not",
          r[:2] == ["* 1 FETCH (UID 1 FLAGS (\\Deleted))",
                    "* 2 FETCH (UID 2 FLAGS (\\Deleted))"]
          and r2 == ["a10 OK STORE completed"], (r, r2))
    r = c.cmd("a11", "SEARCH ALL")
    check("SEARCH", r == ["* SEARCH 1 2 3", "a11 OK SEARCH completed"], r)
    r = c.cmd("a12", "STATUS INBOX (MESSAGES UIDNEXT)")
    check("STATUS", r[0] == "* STATUS INBOX (MESSAGES 14 UIDNEXT 15)", r)
    r = c.cmd("a13", 'LIST "" "*"')
    check("LIST returns INBOX", r[0].endswith(" INBOX")
          and r[-1].startswith("a13 OK"), r)
    c.send("a14 IDLE\r\n")
    cont = c.line()
    quiet = c.silent(0.2)
    c.send("DONE\r\n")
    r = c.until("a14")
    check("IDLE: '+ idling', quiet, OK after DONE",
          cont == "+ idling" and quiet and r == ["a14 OK IDLE terminated"],
          (cont, r))
    r = c.cmd("a15", "XYZZY")
    check("unknown command gets BAD", r == ["a15 BAD unknown command"], r)
    r = c.cmd("a16", "FETCH x:y (FLAGS)")
    check("bad sequence set gets BAD", r[-1].startswith("a16 BAD"), r)
    for cmd in ("NOOP", "CHECK", "EXPUNGE", "CLOSE", "ENABLE CONDSTORE",
                "ID NIL", "NAMESPACE", "UNSELECT"):
        r = c.cmd("b", cmd)
        if not r[-1].startswith("b OK"):
            break
    check("NOOP CHECK EXPUNGE CLOSE ENABLE ID NAMESPACE UNSELECT all OK",
          r[-1].startswith("b OK"), r)
    r = c.cmd("a17", "LOGOUT")
    check("LOGOUT: BYE, OK, then EOF",
          r == ["* BYE logging out", "a17 OK LOGOUT completed"] and c.eof(), r)
    c.close()

    # AUTHENTICATE PLAIN both ways, on a second connection.
    c = Client(srv.port)
    c.line()
    r = c.cmd("x1", "AUTHENTICATE PLAIN AHVzZXIAc2VjcmV0")
    c.send("x2 AUTHENTICATE PLAIN\r\n")
    cont = c.line()
    c.send("AHVzZXIAc2VjcmV0\r\n")
    r2 = c.until("x2")
    check("AUTHENTICATE PLAIN with SASL-IR and via '+' continuation",
          r == ["x1 OK AUTHENTICATE completed"] and cont == "+ "
          and r2 == ["x2 OK AUTHENTICATE completed"], (r, cont, r2))
    c.close()

    st = srv.stop()
    check("stats file: connections=2 logins=3 appends=4",
          st.get("connections") == 2 and st.get("logins") == 3
          and st.get("appends") == 4, st)
    check("stats file: append_bytes, fetches, commands exact",
          st.get("append_bytes") == len(m1) + sum(len(x) for x in msgs)
          and st.get("fetches") == 3 and st.get("commands") == 27, st)
    check("stats file: bytes_in and bytes_out counted",
          st.get("bytes_in", 0) > 400 and st.get("bytes_out", 0) > 1400, st)


def t_long_line():
    srv = Server()
    c = Client(srv.port)
    c.line()
    try:
        c.send(b"a1 NOOP " + b"x" * (70 * 1024))
    except OSError:
        pass
    ln = c.line()
    check("an over-long command line gets '* BAD' and a close",
          ln.startswith("* BAD") and c.closed(), ln)
    srv.stop()


# ---- timing ------------------------------------------------------------------

def t_delay():
    srv = Server("--delay-ms", "50")
    c = Client(srv.port)
    c.line()
    t0 = time.monotonic()
    r = c.cmd("a1", "NOOP")
    dt = time.monotonic() - t0
    check("--delay-ms 50: reply no sooner than 50 ms",
          r == ["a1 OK NOOP completed"] and dt >= 0.05, "%.3f s" % dt)
    srv.stop()


def t_slow_order():
    srv = Server("--slow-pct", "50", "--slow-ms", "40")
    c = Client(srv.port)
    c.line()
    c.send("".join("t%d NOOP\r\n" % i for i in range(30)))
    got = [c.line() for _ in range(30)]
    check("--slow-pct: pipelined replies keep their order",
          got == ["t%d OK NOOP completed" % i for i in range(30)], got)
    srv.stop()


def t_stall():
    srv = Server("--stall-after-ms", "500", "--stall-ms", "1500")
    c = Client(srv.port)
    c.line()
    time.sleep(max(0.0, srv.t_port + 0.6 - time.monotonic()))
    r = c.cmd("a1", "NOOP")
    t = time.monotonic()
    # The server started after t_spawn, so the stall ends after t_spawn+2.0.
    check("--stall-after-ms/--stall-ms hold replies until the stall ends",
          r == ["a1 OK NOOP completed"] and t >= srv.t_spawn + 2.0,
          "%.3f s after spawn" % (t - srv.t_spawn))
    srv.stop()


# ---- scripts -----------------------------------------------------------------

def t_scripts():
    srv = Server("--script", os.path.join(SCEN, "basic.conf"))
    c = Client(srv.port)
    g = c.line()
    r1 = c.cmd("a1", "login u p")
    r2 = c.cmd("a2", "SELECT INBOX")
    r3 = c.cmd("a3", "FETCH 1:* FLAGS")
    c.send("a4 APPEND INBOX {5}\r\n")
    cont = c.line()
    c.send("hello {3+}\r\nabc\r\n")
    r4 = c.until("a4")
    check("script basic.conf: greeting, LOGIN, SELECT, FETCH, * rule",
          g == "* OK [CAPABILITY IMAP4rev1 LITERAL+] scripted"
          and r1 == ["a1 OK logged in"]
          and r2 == ["* 3 EXISTS", "* 0 RECENT", "* OK [UIDVALIDITY 7]",
                     "a2 OK [READ-WRITE] done"]
          and r3 == ["* 5 FETCH (FLAGS ())", "a3 OK done"], (g, r1, r2, r3))
    check("script mode reads client literals (sync and LITERAL+)",
          cont.startswith("+") and r4 == ["a4 OK done"], (cont, r4))
    st = srv.stop()
    check("script mode stats count the MULTIAPPEND",
          st.get("appends") == 2 and st.get("append_bytes") == 8, st)

    srv = Server("--script", os.path.join(SCEN, "flaky.conf"))
    for round_ in (1, 2):
        c = Client(srv.port)
        c.line()
        c.cmd("a1", "LOGIN u p")
        t0 = time.monotonic()
        r1 = c.cmd("a2", "SELECT INBOX")
        dt = time.monotonic() - t0
        r2 = c.cmd("a3", "SELECT INBOX")
        r3 = c.cmd("a4", "NOOP")
        r4 = c.cmd("a5", "NOOP")
        c.send("a6 FETCH 1 FLAGS\r\n")
        closed = c.eof()
        check("script flaky.conf (connection %d): once rules, sleep, close"
              % round_,
              r1[-1] == "a2 OK [READ-WRITE] slow select" and dt >= 0.2
              and r2[-1] == "a3 OK [READ-WRITE] select"
              and r3 == ["a4 NO [UNAVAILABLE] try again"]
              and r4 == ["a5 OK done"] and closed, (r1, dt, r2, r3, r4))
    c = Client(srv.port)
    c.line()
    c.send("z LOGOUT\r\n")
    check("script flaky.conf: bye directive", c.line() == "* BYE see you"
          and c.eof())
    srv.stop()

    srv = Server("--script", os.path.join(SCEN, "literals.conf"))
    c = Client(srv.port)
    c.line()
    c.send("a1 FETCH 1 BODY[]\r\n")
    hdr = c.line()
    body = c.exactly(5)
    r = c.until("a1")
    c.send("a2 IDLE\r\n")
    cont = c.line()
    c.send("DONE\r\n")
    r2 = c.until("a2")
    r3 = c.cmd("a3", "LOGOUT")
    check("script literals.conf: literal reply, IDLE/DONE, LOGOUT close",
          hdr == "* 1 FETCH (UID 1 BODY[] {5}" and body == b"hello"
          and r == [")", "a1 OK fetched"] and cont == "+ idling"
          and r2 == ["a2 OK idle done"]
          and r3 == ["* BYE bye", "a3 OK logout"] and c.eof(),
          (hdr, body, r, cont, r2, r3))
    srv.stop()


# ---- threads and option errors -------------------------------------------------

def t_threads():
    srv = Server("--threads", "4")
    clients = [Client(srv.port) for _ in range(40)]
    ok = True
    for i, c in enumerate(clients):
        ok = ok and c.line().startswith("* OK")
        c.send("a LOGIN u p\r\nb NOOP\r\nc LOGOUT\r\n")
    for c in clients:
        ok = ok and c.until("c")[-1] == "c OK LOGOUT completed"
        c.close()
    st = srv.stop()
    check("--threads 4: 40 clients served, stats summed over loops",
          ok and st.get("connections") == 40 and st.get("logins") == 40
          and st.get("commands") == 120, st)


def t_listen():
    pf = os.path.join(TMP, "port")
    srv = Server("--port-file", pf, "--caps", "IMAP4rev1 XTEST",
                 "--messages", "0")
    with open(pf) as f:
        filed = f.read()
    c = Client(srv.port)
    g = c.line()
    r = c.cmd("a1", "CAPABILITY")
    c.cmd("a2", "LOGIN u p")
    r2 = c.cmd("a3", "FETCH 1:* (FLAGS)")
    c.send("a4 APPEND {5}\r\n")
    c.line()
    c.send("INBOX {2+}\r\nhi\r\n")
    r3 = c.until("a4")
    c.send("\r\n")
    r4 = c.line()
    check("--port-file holds the port", filed == "%d\n" % srv.port, filed)
    check("--caps replaces greeting and CAPABILITY",
          g == "* OK [CAPABILITY IMAP4rev1 XTEST] fakeimapd ready"
          and r[0] == "* CAPABILITY IMAP4rev1 XTEST", (g, r))
    check("--messages 0: FETCH 1:* answers only OK",
          r2 == ["a3 OK FETCH completed"], r2)
    check("APPEND with the mailbox as a literal stores one message",
          r3 == ["* 1 EXISTS", "a4 OK [APPENDUID 1 1] APPEND completed"], r3)
    check("an empty line gets '* BAD'", r4.startswith("* BAD"), r4)
    st = srv.stop()
    check("mailbox literal is not counted as a message",
          st.get("appends") == 1 and st.get("append_bytes") == 2, st)

    try:
        probe = socket.socket(socket.AF_INET6)
        probe.bind(("::1", 0))
        probe.close()
    except OSError:
        print("skip - --listen ::1 (no IPv6 loopback here)")
        return
    srv = Server("--listen", "::1")
    s = socket.create_connection(("::1", srv.port), timeout=5)
    g = s.recv(100)
    s.close()
    check("--listen ::1 serves IPv6 loopback", g.startswith(b"* OK"), g)
    srv.stop()


def t_robust():
    """Random bytes, half commands, abrupt hang-ups mid-literal and with
    replies still queued: the server must keep serving and exit clean."""
    import random
    rnd = random.Random(1234)
    pieces = [b"a LOGIN u p\r\n", b"b SELECT INBOX\r\n",
              b"c APPEND INBOX {100}\r\n", b"d APPEND INBOX {50+}\r\n",
              b"e FETCH 1:* BODY[]\r\n", b"f IDLE\r\n", b"DONE\r\n",
              b"g AUTHENTICATE PLAIN\r\n", b"h UID FETCH 1:*,3 FLAGS\r\n",
              b"i STORE 1 FLAGS (\\Seen)\r\n", b"{99999999999999999999}\r\n",
              b"j NOOP {18446744073709551615+}\r\n", b"\r\n", b"\n",
              b"k LOGOUT\r\n", b"* * *\r\n", b"l UID\r\n"]
    for args in ([], ["--slow-pct", "50", "--slow-ms", "20"],
                 ["--mode", "drip"],
                 ["--script", os.path.join(SCEN, "literals.conf")]):
        srv = Server("--messages", "5", "--msg-size", "3000", *args)
        for _ in range(30):
            try:
                c = Client(srv.port, timeout=0.5)
                for _ in range(rnd.randint(1, 12)):
                    if rnd.random() < 0.2:
                        c.send(bytes(rnd.getrandbits(8)
                                     for _ in range(rnd.randint(1, 300))))
                    else:
                        c.send(rnd.choice(pieces))
                if rnd.random() < 0.5:
                    try:
                        c._fill(0.05)
                    except (OSError, EOFError):
                        pass
                c.close()
            except OSError:
                pass
        c = Client(srv.port)
        alive = c.exactly(1) == b"*"
        c.close()
        srv.stop()
        check("robust under random input (%s)" % (" ".join(args) or "normal"),
              alive)


def t_options():
    bad_script = os.path.join(TMP, "bad.conf")
    with open(bad_script, "w") as f:
        f.write("on LOGIN $tag OK\nwhatever this is\n")
    cases = [
        (["--listen", "8.8.8.8"], "loopback"),
        (["--listen", "0.0.0.0"], "loopback"),
        (["--listen", "localhost"], "loopback"),
        (["--mode", "bogus"], "unknown mode 'bogus'"),
        (["--port", "70000"], "--port: '70000'"),
        (["--delay-ms", "-1"], "--delay-ms: '-1'"),
        (["--slow-pct", "10"], "--slow-ms"),
        (["--tls-cert", "x.pem"], "--tls-key"),
        (["--mode", "script"], "--script"),
        (["--script", bad_script], "line 2"),
        (["--script", os.path.join(TMP, "missing.conf")], "cannot open"),
        (["--bogus"], "unknown option '--bogus'"),
        (["--port"], "needs a value"),
    ]
    for args, want in cases:
        p = subprocess.run([FAKE] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=10)
        err = p.stderr.decode()
        check("bad option %s: exit 2 naming the problem" % " ".join(args),
              p.returncode == 2 and want in err and "PORT" not in
              p.stdout.decode(), "rc=%d %s" % (p.returncode, err.strip()))


def main():
    return main_groups([("normal mode", t_normal), ("long line", t_long_line),
                        ("delay", t_delay), ("slow order", t_slow_order),
                        ("stall", t_stall), ("fault modes", t_faults),
                        ("tls", t_tls), ("scripts", t_scripts),
                        ("streamed repeat", t_streams),
                        ("threads", t_threads), ("listen", t_listen),
                        ("robust", t_robust), ("options", t_options)])


if __name__ == "__main__":
    sys.exit(main())
