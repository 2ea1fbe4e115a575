#!/usr/bin/python3
"""fake_smtp.py: a small SMTP submission server on 127.0.0.1 for the
faults a real MTA will not make on demand (t_fault_submit.sh).

    fake_smtp.py --fault FAULT --port-file FILE --log FILE

It listens on a free loopback port (written to FILE), speaks enough of RFC
5321/6409 for imapstress's submission client (EHLO with PIPELINING, SIZE,
8BITMIME and AUTH PLAIN LOGIN, AUTH, MAIL, RCPT, DATA, RSET, QUIT) and
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

Each message answered 250 after its dot is one line "accepted N" (N its
recipients) in the log, so a test can compare what the client counts as
delivered with what the server took.  Only the standard library.
"""
import socket
import socketserver
import threading

import fake_line_server

LOG_LOCK = threading.Lock()


class Handler(socketserver.StreamRequestHandler):
    def send(self, line):
        self.wfile.write(line.encode() + b"\r\n")
        self.wfile.flush()

    def handle(self):
        fault = self.server.fault
        if fault == "greet421":
            self.send("421 4.3.2 fake going down")
            return
        self.send("220 fake ESMTP")
        rcpts = 0
        seen = 0
        login_step = 0
        while True:
            line = self.rfile.readline(4096)
            if not line:
                return
            cmd = line.decode("latin-1").rstrip("\r\n")
            verb = cmd.split(" ", 1)[0].upper()
            if login_step == 1:
                login_step = 2
                self.send("334 UGFzc3dvcmQ6")
                continue
            if login_step == 2:
                login_step = 0
                self.auth_reply(fault)
                continue
            if verb == "EHLO":
                if fault == "ehlo554":
                    self.send("554 5.5.0 no EHLO for you")
                    continue
                auth = "LOGIN" if fault == "login" else "PLAIN LOGIN"
                self.send("250-fake")
                self.send("250-PIPELINING")
                self.send("250-SIZE 10240000")
                self.send("250-8BITMIME")
                self.send("250-ENHANCEDSTATUSCODES")
                self.send("250 AUTH " + auth)
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
                if fault == "mail451":
                    self.send("451 4.3.0 try later")
                elif fault == "close421":
                    self.send("421 4.4.2 closing")
                    return
                else:
                    self.send("250 2.1.0 ok")
            elif verb == "RCPT":
                seen += 1
                if fault == "rcpt550" and seen == 2:
                    self.send("550 5.1.1 no such user")
                else:
                    rcpts += 1
                    self.send("250 2.1.5 ok")
            elif verb == "DATA":
                if fault == "data554" or rcpts == 0:
                    self.send("554 5.5.1 no valid recipients"
                              if rcpts == 0 else "554 5.5.1 no DATA")
                    continue
                self.send("354 go ahead")
                while True:
                    body = self.rfile.readline(1 << 20)
                    if not body:
                        return
                    if body in (b".\r\n", b".\n"):
                        break
                if fault == "stall":
                    # Read and never answer, until the client goes.
                    while self.rfile.readline(4096):
                        pass
                    return
                if fault == "dot451":
                    self.send("451 4.3.0 queue trouble")
                elif fault == "dot554":
                    self.send("554 5.6.0 content refused")
                else:
                    with LOG_LOCK:
                        with open(self.server.log, "a") as f:
                            f.write("accepted %d\n" % rcpts)
                    self.send("250 2.0.0 queued")
            elif verb == "RSET":
                rcpts = seen = 0
                self.send("250 2.0.0 ok")
            elif verb == "QUIT":
                self.send("221 2.0.0 bye")
                return
            else:
                self.send("502 5.5.2 unknown command")

    def auth_reply(self, fault):
        if fault == "auth535":
            self.send("535 5.7.8 authentication failed")
        elif fault == "auth454":
            self.send("454 4.7.0 temporary authentication failure")
        else:
            self.send("235 2.7.0 ok")


if __name__ == "__main__":
    fake_line_server.serve(Handler)
