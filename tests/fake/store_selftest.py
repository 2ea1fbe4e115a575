"""store_selftest.py: fakeimapd's mail-store mode (--lmtp-port), checked
with a small LMTP and IMAP client: a delivery is answered 250 and shows up
as EXISTS in IDLE no earlier than --push-delay-ms later, "+Spam" lands in
Spam, and the IMAP commands a profile user sends (LIST, CREATE, STATUS,
SELECT, IDLE, FETCH, STORE, APPEND, EXPUNGE, UID EXPUNGE, UID MOVE, COPY,
LOGOUT) act on the stored messages; the foreign-mail check (UID SEARCH
NOT HEADER X-Imapstress "") names the messages whose header had no
X-Imapstress field, however they came in.  Run by t_push_latency.sh.  Timing
checks assert lower bounds only (a generous upper bound against a hang).
"""
import os
import re
import subprocess
import sys
import time

from fake_selftest_lib import (FAKE, LIVE, TMP, Client, Server, check,
                               main_groups)


class Lmtp:
    def __init__(self, port):
        self.c = Client(port)
        g = self.c.line()
        check("LMTP greeting 220", g.startswith("220 "), g)
        self.c.send("LHLO test.invalid\r\n")
        lines = [self.c.line()]
        while lines[-1].startswith("250-"):
            lines.append(self.c.line())
        check("LHLO offers PIPELINING", "250-PIPELINING" in lines, lines)

    def deliver(self, rcpts, body):
        """Pipelined MAIL, RCPTs, DATA; returns (replies, the time the
        final dot was sent: the server's 250s, and so the delivery's
        clock, start after it)."""
        data = "".join("." + ln + "\r\n" if ln.startswith(".") else ln + "\r\n"
                       for ln in body.split("\n"))
        cmd = "MAIL FROM:<s@test.invalid>\r\n" + "".join(
            "RCPT TO:<%s>\r\n" % r for r in rcpts) + "DATA\r\n"
        self.c.send(cmd)
        replies = [self.c.line() for _ in range(len(rcpts) + 2)]
        self.c.send(data)
        t_dot = time.monotonic()
        self.c.send(".\r\n")
        replies += [self.c.line() for _ in rcpts]
        return replies, t_dot

    def close(self):
        self.c.send("QUIT\r\n")
        self.c.line()
        self.c.close()


def start(delay_ms):
    """The LMTP port: from --lmtp-port-file, and the same on stdout after
    the PORT line."""
    pf = os.path.join(TMP, "lmtp.port.%d" % len(LIVE))
    srv = Server("--lmtp-port-file", pf, "--push-delay-ms", str(delay_ms))
    line = b""
    while not line.endswith(b"\n"):
        c = os.read(srv.p.stdout.fileno(), 1)
        if not c:
            raise RuntimeError("no LMTP line")
        line += c
    m = re.match(rb"LMTP (\d+)\n", line)
    with open(pf) as f:
        check("LMTP port on stdout and in --lmtp-port-file",
              m is not None and int(f.read()) == int(m.group(1)), line)
    srv.lmtp = int(m.group(1))
    return srv


def login(srv, user="u1"):
    c = Client(srv.port)
    c.line()
    r = c.cmd("l", 'LOGIN "%s" "pw"' % user)
    check("LOGIN %s" % user, r[-1] == "l OK LOGIN completed", r)
    return c


def wait_exists(c, n, deadline_s=10.0):
    """Reads untagged lines until "* n EXISTS"; returns the time."""
    end = time.monotonic() + deadline_s
    while True:
        ln = c.line(timeout=max(0.01, end - time.monotonic()))
        if ln == "* %d EXISTS" % n:
            return time.monotonic()


MSG = "Subject: hello\nFrom: a@test.invalid\n\n.leading dot\n" + "x" * 900
# As stored: CRLF line ends, the stuffed dot removed.
MSG_SIZE = len(MSG.replace("\n", "\r\n")) + 2


def t_push(delay_ms):
    srv = start(delay_ms)
    a = login(srv)
    r = a.cmd("a1", 'LIST "" "*"')
    check("LIST: a new user has INBOX", r[0] == '* LIST (\\HasNoChildren) "/" '
          '"INBOX"' and len(r) == 2, r)
    for box in ("Spam", "Drafts", "Sent"):
        r = a.cmd("c", "CREATE %s" % box)
        check("CREATE %s" % box, r[-1].startswith("c OK"), r)
    r = a.cmd("c", "CREATE Spam")
    check("CREATE of an existing mailbox: NO [ALREADYEXISTS]",
          r[-1].startswith("c NO [ALREADYEXISTS]"), r)
    r = a.cmd("s", "SELECT INBOX")
    check("SELECT INBOX: 0 EXISTS", "* 0 EXISTS" in r and
          r[-1].startswith("s OK [READ-WRITE]"), r)
    a.send("i IDLE\r\n")
    check("IDLE continuation", a.line().startswith("+ "))

    lm = Lmtp(srv.lmtp)
    replies, t_dot = lm.deliver(["u1@example.invalid", "u1+Spam@example.invalid"],
                                MSG)
    check("LMTP: MAIL, 2 RCPT, DATA, then a 250 per recipient",
          [x[:3] for x in replies] == ["250", "250", "250", "354", "250", "250"],
          replies)
    # Never early (a lower bound only): the 250 came after the dot, the
    # EXISTS at least D after the 250.
    t = wait_exists(a, 1)
    check("IDLE hears * 1 EXISTS, not earlier than %d ms after the 250" %
          delay_ms, t - t_dot >= delay_ms / 1000.0,
          "after %.1f ms" % ((t - t_dot) * 1e3))
    a.send("DONE\r\n")
    r = a.until("i")
    check("DONE ends IDLE", r[-1] == "i OK IDLE terminated", r)

    a.send("f UID FETCH 1:* (UID FLAGS RFC822.SIZE BODY.PEEK[HEADER.FIELDS "
           "(Subject Message-ID)])\r\n")
    head = a.line()
    m = re.match(r"\* 1 FETCH \(UID 1 FLAGS \(\) RFC822.SIZE (\d+) "
                 r"BODY\[HEADER.FIELDS \(Subject Message-ID\)\] \{(\d+)\}$", head)
    check("UID FETCH of the delivery: size as delivered, the fields asked",
          m is not None and int(m.group(1)) == MSG_SIZE, head)
    lit = a.exactly(int(m.group(2))).decode() if m else ""
    check("HEADER.FIELDS holds Subject and Message-ID only",
          lit == "Subject: fakeimapd message 0000000001\r\n"
          "Message-ID: <0000000001@fakeimapd.invalid>\r\n\r\n", lit)
    r = a.until("f")
    check("UID FETCH OK", r[-1].startswith("f OK"), r)

    end = time.monotonic() + 10
    while True:
        r = a.cmd("st", "STATUS Spam (MESSAGES UIDNEXT)")
        if "MESSAGES 1" in r[0] or time.monotonic() > end:
            break
    check("+Spam delivered to Spam", r[0] == '* STATUS "Spam" (MESSAGES 1 '
          'UIDNEXT 2)', r)

    a.send("b FETCH 1 (BODY[TEXT])\r\n")
    head = a.line()
    check("FETCH BODY[] sets \\Seen", head.startswith("* 1 FETCH (UID 1 FLAGS "
          "(\\Seen) BODY[TEXT] {"), head)
    a.exactly(int(head.rsplit("{", 1)[1][:-1]))
    a.until("b")
    r = a.cmd("w", "UID STORE 1 +FLAGS (\\Answered)")
    check("UID STORE +FLAGS answers the new flags",
          r[0] == "* 1 FETCH (UID 1 FLAGS (\\Seen \\Answered))", r)

    a.send("p APPEND Drafts (\\Draft) {5+}\r\nhello\r\n")
    r = a.until("p")
    check("APPEND to Drafts: APPENDUID", re.match(r"p OK \[APPENDUID \d+ 1\]",
                                                   r[-1]) is not None, r)
    a.send("q APPEND Nosuch {5+}\r\nhello\r\n")
    r = a.until("q")
    check("APPEND to a missing mailbox: NO [TRYCREATE]",
          r[-1].startswith("q NO [TRYCREATE]"), r)

    b = login(srv)
    r = b.cmd("s", "SELECT INBOX")
    check("a second connection sees 1 EXISTS", "* 1 EXISTS" in r, r)
    r = a.cmd("m", "UID MOVE 1 Spam")
    check("UID MOVE: COPYUID, EXPUNGE, OK",
          re.match(r"\* OK \[COPYUID \d+ 1 2\]", r[0]) is not None
          and r[1] == "* 1 EXPUNGE" and r[2].startswith("m OK"), r)
    r = b.cmd("n", "NOOP")
    check("the other connection hears the EXPUNGE at NOOP",
          r == ["* 1 EXPUNGE", "n OK NOOP completed"], r)
    r = a.cmd("st", "STATUS Spam (MESSAGES)")
    check("Spam holds 2 after the move", r[0] == '* STATUS "Spam" (MESSAGES 2)',
          r)

    # Two more, seen in IDLE; then \Deleted, UID EXPUNGE one, EXPUNGE the
    # other.
    a.send("i IDLE\r\n")
    a.line()
    lm.deliver(["u1"], MSG)
    lm.deliver(["u1"], MSG)
    end = time.monotonic() + 10
    seen = 0
    while seen < 2 and time.monotonic() < end:
        ln = a.line(timeout=10)
        mm = re.match(r"\* (\d+) EXISTS$", ln)
        seen = int(mm.group(1)) if mm else seen
    check("IDLE hears both deliveries", seen == 2)
    a.send("DONE\r\n")
    a.until("i")
    r = a.cmd("d", "UID STORE 2:3 +FLAGS.SILENT (\\Deleted)")
    check("STORE .SILENT answers nothing untagged", len(r) == 1, r)
    r = a.cmd("x", "UID EXPUNGE 2")
    check("UID EXPUNGE removes only UID 2", r[0] == "* 1 EXPUNGE" and len(r) == 2,
          r)
    r = a.cmd("y", "EXPUNGE")
    check("EXPUNGE removes the other", r[0] == "* 1 EXPUNGE" and len(r) == 2, r)
    r = a.cmd("s", "SELECT Spam")
    check("SELECT Spam: 2 EXISTS", "* 2 EXISTS" in r, r)
    r = a.cmd("k", "COPY 1:2 Sent")
    check("COPY: COPYUID", re.match(r"k OK \[COPYUID \d+ 1,2 1,2\]", r[-1])
          is not None, r)
    r = a.cmd("st", "STATUS INBOX (MESSAGES UIDNEXT UNSEEN)")
    check("INBOX is empty, UIDNEXT 4", r[0] == '* STATUS "INBOX" (MESSAGES 0 '
          'UIDNEXT 4 UNSEEN 0)', r)
    r = a.cmd("o", "LOGOUT")
    check("LOGOUT", r[0].startswith("* BYE") and r[-1].startswith("o OK"), r)
    b.close()
    lm.close()
    st = srv.stop()
    check("stats: 4 recipients answered and delivered",
          st.get("lmtp_rcpts") == 4 and st.get("lmtp_delivered") == 4, st)
    check("stats: every INBOX delivery pushed to the IDLE connection",
          st.get("pushes") == 3, st)


MARK = "X-Imapstress: run=0123456789abcdef (imapstress test)\n"
GUARD = 'UID SEARCH NOT HEADER X-Imapstress ""'


def crlf(text):
    return text.replace("\n", "\r\n").encode()


def t_guard():
    """Messages with and without the marker, by LMTP, APPEND (one and
    MULTIAPPEND) and COPY: the check names exactly those without it."""
    srv = start(0)
    a = login(srv)
    lm = Lmtp(srv.lmtp)
    lm.deliver(["u1"], MSG)             # UID 1: foreign
    lm.deliver(["u1"], MARK + MSG)      # UID 2: ours
    end = time.monotonic() + 10
    while "MESSAGES 2" not in a.cmd("st", "STATUS INBOX (MESSAGES)")[0]:
        check("both deliveries stored", time.monotonic() < end)
        time.sleep(0.01)
    bodies = [
        MARK + "Subject: ours\n\nbody\n",                       # 3
        "Subject: foreign\n\nbody\n",                           # 4
        "x-imapstress: run=1 (any case)\nSubject: ours\n\nb\n",  # 5
        "X-Imapstress-Other: not the field\n\nb\n",             # 6
        "Subject: foreign\n\nX-Imapstress: in the body\n",        # 7
    ]
    for i, b in enumerate(bodies):
        data = crlf(b)
        a.send(b"a%d APPEND INBOX {%d+}\r\n" % (i, len(data)) + data + b"\r\n")
        r = a.until("a%d" % i)
        check("APPEND %d" % (3 + i), r[-1].startswith("a%d OK" % i), r)
    ours, foreign = crlf(MARK + "\nours\n"), crlf("\nforeign\n")
    a.send(b"m APPEND INBOX {%d+}\r\n" % len(ours) + ours +
           b" {%d+}\r\n" % len(foreign) + foreign + b"\r\n")    # 8, 9
    r = a.until("m")
    check("MULTIAPPEND: APPENDUID 8,9",
          re.match(r"m OK \[APPENDUID \d+ 8,9\]", r[-1]) is not None, r)
    r = a.cmd("s", "SELECT INBOX")
    check("SELECT INBOX: 9 EXISTS", "* 9 EXISTS" in r, r)
    r = a.cmd("g", GUARD)
    check("the check names the messages without the field",
          r[0] == "* SEARCH 1 4 6 7 9" and r[-1].startswith("g OK"), r)
    r = a.cmd("h", "SEARCH ALL")
    check("another SEARCH: every message, as before",
          r[0] == "* SEARCH 1 2 3 4 5 6 7 8 9", r)
    r = a.cmd("c", "CREATE Other")
    r = a.cmd("k", "UID COPY 1:3 Other")
    check("UID COPY", r[-1].startswith("k OK"), r)
    r = a.cmd("s", "SELECT Other")
    r = a.cmd("g", GUARD)
    check("a copy keeps what it was", r[0] == "* SEARCH 1", r)
    lm.close()
    srv.stop()


def t_options():
    cases = [
        (["--push-delay-ms", "20"], "--push-delay-ms needs --lmtp-port"),
        (["--lmtp-port", "0", "--threads", "2"], "one thread"),
        (["--lmtp-port", "0", "--mode", "garbage"], "mail-store mode"),
        (["--lmtp-port", "99999"], "--lmtp-port: '99999'"),
    ]
    for args, want in cases:
        p = subprocess.run([FAKE] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=10)
        err = p.stderr.decode()
        check("bad option %s: exit 2 naming the problem" % " ".join(args),
              p.returncode == 2 and want in err, "rc=%d %s" %
              (p.returncode, err.strip()))


def main():
    return main_groups([("push 20 ms", lambda: t_push(20)),
                        ("push 200 ms", lambda: t_push(200)),
                        ("foreign-mail check", t_guard),
                        ("options", t_options)])


if __name__ == "__main__":
    sys.exit(main())
