#!/usr/bin/python3
"""fake_smtp.py: a small SMTP submission server on 127.0.0.1 for the
faults a real MTA will not make on demand (t_fault_submit.sh).

    fake_smtp.py --fault FAULT --port-file FILE --log FILE [--cert PEM --key PEM]

It listens on a free loopback port (written to FILE), speaks enough of RFC
5321/6409 for imapstress's submission client (EHLO with PIPELINING, SIZE,
8BITMIME and AUTH PLAIN LOGIN, STARTTLS, AUTH, MAIL, RCPT, DATA, RSET, QUIT) and
misbehaves as FAULT says:

    none       every step succeeds; 250 after the dot
    login      as none, but offers AUTH LOGIN only
    greet421   "421 4.3.2" as the greeting, then closes
    ehlo554    refuses EHLO (554 5.5.0)
    auth535    refuses AUTH (535 5.7.8)
    auth454    AUTH fails for now (454 4.7.0)
    mail451    MAIL FROM 451 4.3.0
    rcpt550    the second RCPT TO of each transaction: 550 5.1.1
    data554    DATA refused: 554 5.5.1
    dot451     451 4.3.0 after the dot
    dot554     554 5.6.0 after the dot
    close421   421 4.4.2 to MAIL FROM, and the connection closed
    stall      after the dot, says nothing, ever (the client's timeout)
    tls        offers STARTTLS (with --cert and --key) and refuses AUTH
               before it (530 5.7.0)
    tls454     offers STARTTLS and answers it 454 4.7.0

Each message answered 250 after its dot is one line "accepted N" (N its
recipients; "accepted N tls" when it came over TLS) in the log, so a test can compare what the client counts as
delivered with what the server took.  Only the standard library.
"""
import socket
import socketserver
import ssl
import threading

import fake_line_server

LOG_LOCK = threading.Lock()

# (command, fault) -> the reply that replaces the usual one; a reply
# ending in "!" closes the connection after it.
FAULT_REPLY = {
    ("EHLO", "ehlo554"): "554 5.5.0 no EHLO for you",
    ("STARTTLS", "tls454"): "454 4.7.0 TLS not available now",
    ("MAIL", "mail451"): "451 4.3.0 try later",
    ("MAIL", "close421"): "421 4.4.2 closing!",
    ("DATA", "data554"): "554 5.5.1 no DATA",
    ("DOT", "dot451"): "451 4.3.0 queue trouble",
    ("DOT", "dot554"): "554 5.6.0 content refused",
}
AUTH_REPLY = {"auth535": "535 5.7.8 authentication failed",
              "auth454": "454 4.7.0 temporary authentication failure"}


class Handler(socketserver.StreamRequestHandler):
    def send(self, line):
        self.wfile.write(line.encode() + b"\r\n")
        self.wfile.flush()

    def reply(self, verb, usual):
        """The reply to verb under this fault: False when it closed."""
        r = FAULT_REPLY.get((verb, self.server.fault), usual)
        self.send(r.rstrip("!"))
        return not r.endswith("!")

    def ehlo(self):
        fault = self.server.fault
        auth = "LOGIN" if fault == "login" else "PLAIN LOGIN"
        lines = ["fake", "PIPELINING", "SIZE 10240000", "8BITMIME",
                 "ENHANCEDSTATUSCODES"]
        if fault in ("tls", "tls454") and not self.tls:
            lines.append("STARTTLS")
        lines.append("AUTH " + auth)
        for i, l in enumerate(lines):
            self.send("250%s%s" % (" " if i == len(lines) - 1 else "-", l))

    def starttls(self):
        """RFC 3207: 220, then the handshake; what EHLO said is gone."""
        if not self.reply("STARTTLS", "220 2.0.0 go ahead"):
            return False
        if self.server.fault == "tls454":
            return True
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.server.cert, self.server.key)
        try:
            self.request = ctx.wrap_socket(self.request, server_side=True)
        except (ssl.SSLError, OSError):
            return False    # the client refused our certificate
        self.rfile = self.request.makefile("rb")
        self.wfile = self.request.makefile("wb")
        self.tls = True
        return True

    def handle(self):
        fault = self.server.fault
        self.tls = False
        if fault == "greet421":
            self.send("421 4.3.2 fake going down")
            return
        self.send("220 fake ESMTP")
        rcpts = seen = login_step = 0
        while True:
            line = self.rfile.readline(4096)
            if not line:
                return
            cmd = line.decode("latin-1").rstrip("\r\n")
            verb = cmd.split(" ", 1)[0].upper()
            if login_step:
                login_step = (login_step + 1) % 3
                if login_step:
                    self.send("334 UGFzc3dvcmQ6")
                else:
                    self.auth_reply(fault)
                continue
            ok = True
            if verb == "EHLO":
                if fault == "ehlo554":
                    ok = self.reply(verb, "")
                else:
                    self.ehlo()
            elif verb == "STARTTLS":
                ok = self.starttls()
            elif verb == "AUTH" and fault == "tls" and not self.tls:
                self.send("530 5.7.0 Must issue a STARTTLS command first")
            elif verb == "AUTH":
                mech = cmd.split(" ")[1].upper() if " " in cmd else ""
                if mech == "LOGIN":
                    login_step = 1
                    self.send("334 VXNlcm5hbWU6")
                elif mech == "PLAIN" and fault != "login":
                    self.auth_reply(fault)
                else:
                    self.send("504 5.5.4 mechanism not offered")
            elif verb == "MAIL":
                rcpts = seen = 0
                ok = self.reply(verb, "250 2.1.0 ok")
            elif verb == "RCPT":
                seen += 1
                if fault == "rcpt550" and seen == 2:
                    self.send("550 5.1.1 no such user")
                else:
                    rcpts += 1
                    self.send("250 2.1.5 ok")
            elif verb == "DATA":
                if rcpts == 0:
                    self.send("554 5.5.1 no valid recipients")
                else:
                    ok = self.data(rcpts)
            elif verb == "RSET":
                rcpts = seen = 0
                self.send("250 2.0.0 ok")
            elif verb == "QUIT":
                self.send("221 2.0.0 bye")
                return
            else:
                self.send("502 5.5.2 unknown command")
            if not ok:
                return

    def data(self, rcpts):
        """DATA with recipients: False when the connection is done."""
        fault = self.server.fault
        if fault == "data554":
            return self.reply("DATA", "")
        self.send("354 go ahead")
        while True:
            body = self.rfile.readline(1 << 20)
            if not body:
                return False
            if body in (b".\r\n", b".\n"):
                break
        if fault == "stall":
            # Read and never answer, until the client goes.
            while self.rfile.readline(4096):
                pass
            return False
        if (("DOT", fault)) in FAULT_REPLY:
            return self.reply("DOT", "")
        with LOG_LOCK:
            with open(self.server.log, "a") as f:
                f.write("accepted %d%s\n" % (rcpts, " tls" if self.tls else ""))
        self.send("250 2.0.0 queued")
        return True

    def auth_reply(self, fault):
        self.send(AUTH_REPLY.get(fault, "235 2.7.0 ok"))


if __name__ == "__main__":
    fake_line_server.serve(Handler, (
        ("--cert", {"help": "PEM certificate for STARTTLS"}),
        ("--key", {"help": "its PEM key"})))
