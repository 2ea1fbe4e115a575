#!/usr/bin/python3
"""foreign_mail.py: mail imapstress did not put there, for t_foreign_mail.

  foreign_mail.py fill PORT PASS USER BOX N [MARKED]
      CREATE BOX (an existing one is fine) and APPEND N messages of the
      test's own, Message-ID <foreign-I@test>, and then MARKED messages
      that carry the X-Imapstress header (as imapstress's own would).
  foreign_mail.py ids PORT PASS USER BOX
      The Message-IDs in BOX, sorted, one a line ("" for a message
      without one); exit 1 when BOX does not exist.
  foreign_mail.py list PORT PASS USER PATTERN
      The mailbox names LIST "" PATTERN gives, sorted, one a line.
  foreign_mail.py search PORT PASS USER BOX
      "EXISTS FOREIGN": how many messages BOX holds, and how many of them
      the server's own answer to the guard's check, UID SEARCH NOT HEADER
      X-Imapstress "", names (an ESEARCH answer counts as unread: -1)."""
import socket
import sys


class Session:
    def __init__(self, port, user, password):
        self.sock = socket.create_connection(("127.0.0.1", int(port)), timeout=30)
        self.rfile = self.sock.makefile("rb")
        self.n = 0
        if not self.rfile.readline().startswith(b"* OK"):
            sys.exit("bad greeting")
        self.cmd('LOGIN "%s" "%s"' % (user, password))

    def cmd(self, text, literal=None, ok=True):
        """Send one command (with one literal), return (untagged, tagged)."""
        self.n += 1
        tag = "t%d" % self.n
        if literal is None:
            self.sock.sendall(("%s %s\r\n" % (tag, text)).encode())
        else:
            self.sock.sendall(("%s %s {%d+}\r\n" % (tag, text, len(literal))).encode()
                              + literal + b"\r\n")
        untagged = []
        while True:
            line = self.rfile.readline()
            if not line:
                sys.exit("connection closed during: %s" % text)
            while line.rstrip(b"\r\n").endswith(b"}") and b"{" in line:
                size = int(line[line.rindex(b"{") + 1:line.rindex(b"}")])
                line = line + self.rfile.read(size) + self.rfile.readline()
            if line.startswith((tag + " ").encode()):
                if ok and not line.startswith((tag + " OK").encode()):
                    sys.exit("%s: %s" % (text, line.decode("utf-8", "replace").strip()))
                return untagged, line
            untagged.append(line)


def message(i, marked):
    hdr = "X-Imapstress: run=0123456789abcdef (imapstress test)\r\n" if marked else ""
    return ("%sFrom: someone@example.com\r\nTo: user@example.com\r\n"
            "Subject: %s message %d\r\nMessage-ID: <%s-%d@test>\r\n\r\n"
            "Mail the test put here itself.\r\n"
            % (hdr, "marked" if marked else "foreign", i,
               "marked" if marked else "foreign", i)).encode()


def main():
    op, port, password, user, box = sys.argv[1:6]
    s = Session(port, user, password)
    if op == "fill":
        n = int(sys.argv[6])
        marked = int(sys.argv[7]) if len(sys.argv) > 7 else 0
        if box.upper() != "INBOX":
            s.cmd('CREATE "%s"' % box, ok=False)
        for i in range(n):
            s.cmd('APPEND "%s"' % box, message(i, False))
        for i in range(marked):
            s.cmd('APPEND "%s"' % box, message(i, True))
    elif op == "ids":
        _, tagged = s.cmd('EXAMINE "%s"' % box, ok=False)
        if b" OK" not in tagged:
            sys.exit(1)
        untagged, _ = s.cmd("FETCH 1:* (BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])",
                            ok=False)
        ids = []
        for line in untagged:
            text = line.decode("utf-8", "replace")
            if "FETCH" not in text:
                continue
            mid = ""
            for part in text.split("\r\n"):
                if part.lower().startswith("message-id:"):
                    mid = part.split(":", 1)[1].strip()
            ids.append(mid)
        for mid in sorted(ids):
            print(mid)
    elif op == "list":
        untagged, _ = s.cmd('LIST "" "%s"' % box)
        names = [l.decode("utf-8", "replace").rstrip("\r\n").rsplit(" ", 1)[1].strip('"')
                 for l in untagged if l.startswith(b"* LIST ")]
        for name in sorted(names):
            print(name)
    elif op == "search":
        untagged, _ = s.cmd('EXAMINE "%s"' % box)
        exists = [int(l.split()[1]) for l in untagged if l.endswith(b" EXISTS\r\n")]
        untagged, _ = s.cmd('UID SEARCH NOT HEADER X-Imapstress ""')
        found = [len(l.split()) - 2 for l in untagged if l.startswith(b"* SEARCH")]
        print(exists[0] if exists else -1, found[0] if found else -1)
    s.cmd("LOGOUT", ok=False)


if __name__ == "__main__":
    main()
