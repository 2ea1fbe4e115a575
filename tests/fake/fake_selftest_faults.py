"""fake_selftest_faults.py: fake_selftest.py's fault-mode and TLS groups:
greetings that never come, close or BYE, refused logins, replies cut or
wrong, and TLS handshakes that fail or succeed."""
import os
import ssl
import subprocess
import time

from fake_selftest_lib import TMP, Client, Server, check, scenario


# ---- fault modes -------------------------------------------------------------

def login(srv):
    c = Client(srv.port)
    c.line()
    r = c.cmd("a1", "LOGIN u p")
    return c, r


def t_faults():
    srv = Server("--mode", "no-greeting")
    c = Client(srv.port)
    check("no-greeting: nothing within 0.5 s", c.silent(0.5))
    srv.stop()

    srv = Server(*scenario("fault-close-at-greeting"))
    c = Client(srv.port)
    check("close-at-greeting: EOF at once", c.eof())
    st = srv.stop()
    check("close-at-greeting: connection counted", st.get("connections") == 1, st)

    srv = Server(*scenario("fault-bye-greeting"))
    c = Client(srv.port)
    check("bye-greeting: '* BYE go away' then EOF",
          c.line() == "* BYE go away" and c.eof())
    srv.stop()

    srv = Server(*scenario("fault-login-refuse"))
    c = Client(srv.port)
    c.line()
    r = c.cmd("a1", "LOGIN u p")
    r2 = c.cmd("a2", "AUTHENTICATE PLAIN AHUAcA==")
    check("login-refuse: LOGIN and AUTHENTICATE get NO [AUTHENTICATIONFAILED]",
          r == ["a1 NO [AUTHENTICATIONFAILED] refused"]
          and r2 == ["a2 NO [AUTHENTICATIONFAILED] refused"], (r, r2))
    srv.stop()

    srv = Server("--mode", "refuse")
    try:
        Client(srv.port)
        refused = False
    except ConnectionRefusedError:
        refused = True
    check("refuse: connection refused", refused)
    srv.stop()

    srv = Server("--mode", "close-mid-command")
    c, r = login(srv)
    c.send("a2 SELECT INBOX\r\n")
    check("close-mid-command: LOGIN OK, next command gets EOF",
          r == ["a1 OK LOGIN completed"] and c.eof(), r)
    srv.stop()

    srv = Server("--mode", "close-mid-literal")
    c, r = login(srv)
    c.send("a2 FETCH 1 BODY[]\r\n")
    hdr = c.line()
    part = c.exactly(100)
    check("close-mid-literal: {1000} announced, 100 bytes, EOF",
          hdr == "* 1 FETCH (BODY[] {1000}" and len(part) == 100 and c.eof(),
          hdr)
    srv.stop()

    srv = Server("--mode", "reset")
    c, r = login(srv)
    try:
        c._fill(3)
        how = "data"
    except ConnectionResetError:
        how = "reset"
    except EOFError:
        how = "eof"
    check("reset: LOGIN OK then RST", r == ["a1 OK LOGIN completed"]
          and how == "reset", (r, how))
    srv.stop()

    srv = Server("--mode", "bye-random", "--pct", "100")
    c, r = login(srv)
    c.send("a2 NOOP\r\n")
    check("bye-random --pct 100: '* BYE random bye' then EOF",
          c.line() == "* BYE random bye" and c.eof())
    srv.stop()

    for mode, word in (("reply-no", "NO"), ("reply-bad", "BAD")):
        srv = Server(*scenario("fault-" + mode))
        c, r = login(srv)
        r2 = c.cmd("a2", "SELECT INBOX")
        check("%s: commands after LOGIN get '%s failing'" % (mode, word),
              r == ["a1 OK LOGIN completed"]
              and r2 == ["a2 %s failing" % word], r2)
        srv.stop()

    srv = Server(*scenario("fault-unknown-tag"))
    c, r = login(srv)
    c.send("a2 NOOP\r\n")
    check("unknown-tag: reply tagged zz999", c.line() == "zz999 OK completed")
    srv.stop()

    srv = Server("--mode", "garbage")
    c, r = login(srv)
    c.send("a2 NOOP\r\n")
    junk = c.exactly(258)
    r2 = c.cmd("a3", "NOOP")
    check("garbage: 256 binary bytes with NUL + CRLF, then normal again",
          junk.endswith(b"\r\n") and b"\0" in junk[:256]
          and b"\r\n" not in junk[:256] and r2 == ["a3 OK NOOP completed"],
          (junk[:16], r2))
    srv.stop()

    srv = Server("--mode", "endless-line")
    c, r = login(srv)
    c.send("a2 NOOP\r\n")
    got = c.exactly(1024 * 1024, timeout=10)
    check("endless-line: '* OK ' and 1 MB of x without CRLF",
          got.startswith(b"* OK xxxx") and b"\r" not in got and b"\n" not in got
          and got.count(b"x") == len(got) - 5)
    c.close()
    srv.stop()

    srv = Server("--mode", "huge-literal")
    c, r = login(srv)
    c.send("a2 NOOP\r\n")
    check("huge-literal: {4294967296} then nothing",
          c.line() == "* 1 FETCH (BODY[] {4294967296}" and c.silent(0.3))
    srv.stop()

    srv = Server("--mode", "drip")
    c = Client(srv.port)
    t0 = time.monotonic()
    first = c.exactly(3)
    dt = time.monotonic() - t0
    check("drip: the greeting trickles (3 bytes take >= 0.2 s)",
          first == b"* O" and dt >= 0.2, "%r %.3f" % (first, dt))
    srv.stop()

    srv = Server("--mode", "stall")
    c, r = login(srv)
    c.send("a2 NOOP\r\n")
    check("stall: LOGIN OK, then silence on an open connection",
          r == ["a1 OK LOGIN completed"] and c.silent(0.5))
    srv.stop()


# ---- TLS ---------------------------------------------------------------------

def tls_client_fails(port):
    try:
        c = Client(port, tls=True)
        c.line()
        return False
    except (ssl.SSLError, EOFError, ConnectionResetError):
        return True


def t_tls():
    srv = Server("--mode", "tls-fail")
    check("tls-fail: the TLS handshake fails", tls_client_fails(srv.port))
    srv.stop()

    srv = Server("--mode", "plain-on-tls")
    failed = tls_client_fails(srv.port)
    c = Client(srv.port)
    check("plain-on-tls: TLS fails, plaintext greets",
          failed and c.line().startswith("* OK"))
    srv.stop()

    cert = os.path.join(TMP, "cert.pem")
    key = os.path.join(TMP, "key.pem")
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec",
                        "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", key, "-out", cert, "-days", "2",
                        "-subj", "/CN=localhost"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        print("skip - implicit TLS (no openssl command to make a certificate)")
        return
    srv = Server("--tls-cert", cert, "--tls-key", key, "--msg-size", "5000")
    c = Client(srv.port, tls=True)
    g = c.line()
    r = c.cmd("a1", "LOGIN u p")
    c.send("a2 FETCH 1 BODY[]\r\n")
    hdr = c.line()
    body = c.exactly(5000)
    tail = c.until("a2")
    check("implicit TLS: greeting, LOGIN, 5000-byte FETCH",
          g.startswith("* OK") and r == ["a1 OK LOGIN completed"]
          and hdr.endswith("{5000}") and len(body) == 5000
          and tail[-1] == "a2 OK FETCH completed", (g, r, hdr))
    c.close()
    srv.stop()
