#!/usr/bin/python3
"""fake_pop3.py: a small POP3 server on 127.0.0.1 for the faults a real
server will not make on demand (t_fault_pop3.sh).

    fake_pop3.py --fault FAULT --port-file FILE --log FILE [--msgs N]

Every user's maildrop starts with N messages (default 3) the first time it
logs in; RETR sends one (a line starting with a dot among them, stuffed);
DELE marks one, QUIT's +OK removes what was marked (RFC 1939's UPDATE
state).  CAPA offers USER, UIDL, PIPELINING and SASL PLAIN; AUTH PLAIN
takes its initial response only (RFC 5034), any password.  It misbehaves
as FAULT says:

    none       every step succeeds
    greet      "-ERR" as the greeting (with an ESC in its text)
    user pass auth stat uidl retr dele quit
               that command gets -ERR (retr and dele: message 1 only;
               uidl: the client falls back to LIST)
    stall      after PASS, says nothing, ever (the client's timeout)
    hugeline   RETR's body is one line of 4 MB without an end
    garbage    "* OK" instead of STAT's status line
    plain      USER gets -ERR, AUTH PLAIN works (the client must use it)

Each QUIT answered +OK logs "quit USER retr=R dele=D" (D: removed by that
QUIT), so a test can compare what the client counts with what the server
did.  Only the standard library.
"""
import base64
import binascii
import socketserver
import threading

import fake_line_server

LOCK = threading.Lock()
BOXES = {}
MSG = (b"From: fake@example.invalid\r\nSubject: m%d\r\n\r\nbody\r\n"
       b"..a line that starts with a dot\r\n")


class Handler(socketserver.StreamRequestHandler):
    def send(self, s):
        self.wfile.write(s if isinstance(s, bytes) else s.encode() + b"\r\n")
        self.wfile.flush()

    def handle(self):
        fault = self.server.fault
        if fault == "greet":
            self.send(b"-ERR \x1b[31mgo away\r\n")
            return
        self.send("+OK fake POP3 ready")
        user, box, marked, retr = None, None, set(), 0
        while True:
            line = self.rfile.readline(4096)
            if not line:
                return
            cmd = line.decode("latin-1").rstrip("\r\n")
            verb, _, arg = cmd.partition(" ")
            verb = verb.upper()
            if verb == "CAPA":
                self.send(b"+OK\r\nUSER\r\nUIDL\r\nPIPELINING\r\nSASL PLAIN\r\n.\r\n")
            elif verb == "USER":
                user = arg
                self.send("-ERR no such user" if fault in ("user", "plain") else "+OK")
            elif verb in ("PASS", "AUTH"):
                if verb == "AUTH":
                    mech, _, ir = arg.partition(" ")
                    try:
                        parts = base64.b64decode(ir, validate=True).split(b"\0")
                    except binascii.Error:
                        parts = []
                    if mech.upper() != "PLAIN" or len(parts) != 3:
                        self.send("-ERR bad AUTH PLAIN")
                        continue
                    user = parts[1].decode("latin-1")
                if fault == verb.lower():
                    self.send("-ERR [AUTH] \x1b[31mwrong password")
                    continue
                with LOCK:
                    box = BOXES.setdefault(
                        user, ["%s-%d" % (user, i) for i in range(self.server.msgs)])
                self.send("+OK logged in")
                if fault == "stall":
                    while self.rfile.readline(4096):
                        pass
                    return
            elif verb == "STAT":
                if fault == "garbage":
                    self.send("* OK this is not POP3")
                elif fault == "stat":
                    self.send("-ERR stat failed")
                else:
                    self.send("+OK %d %d" % (len(box), 100 * len(box)))
            elif verb in ("UIDL", "LIST"):
                if verb == "UIDL" and fault == "uidl":
                    self.send("-ERR no UIDL here")
                    continue
                out = [b"+OK"]
                for i, uid in enumerate(box):
                    out.append(b"%d %s" % (i + 1, uid.encode() if verb == "UIDL"
                                           else b"100"))
                out.append(b".")
                self.send(b"\r\n".join(out) + b"\r\n")
            elif verb == "RETR":
                n = int(arg) if arg.isdigit() else 0
                if fault == "hugeline":
                    self.send(b"+OK\r\n" + b"x" * (4 << 20))
                    continue
                if n < 1 or n > len(box) or (fault == "retr" and n == 1):
                    self.send("-ERR no such message")
                    continue
                retr += 1
                self.send(b"+OK\r\n" + MSG % n + b".\r\n")
            elif verb == "DELE":
                n = int(arg) if arg.isdigit() else 0
                if n < 1 or n > len(box) or (fault == "dele" and n == 1):
                    self.send("-ERR cannot delete")
                    continue
                marked.add(n - 1)
                self.send("+OK marked")
            elif verb == "QUIT":
                if fault == "quit":
                    self.send("-ERR some deleted messages not removed")
                    return
                with LOCK:
                    for i in sorted(marked, reverse=True):
                        del box[i]
                    with open(self.server.log, "a") as f:
                        f.write("quit %s retr=%d dele=%d\n" % (user, retr, len(marked)))
                self.send("+OK bye")
                return
            else:
                self.send("-ERR unknown command")


if __name__ == "__main__":
    fake_line_server.serve(Handler, (("--msgs", {"type": int, "default": 3}),))
