#!/usr/bin/python3
"""precreate.py PORT PASSWORD USER...: log every user in once, one session at
a time, and SELECT its INBOX, so the storage exists before a test starts.

Dovecot 2.3 panics when two sessions of a brand-new user create its storage
at the same moment (see t_append_counts.sh); tests that draw users at random
call this first so that server bug stays out of their counts."""
import socket
import sys


def precreate(port, password, user):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        rfile = sock.makefile("rb")
        if not rfile.readline().startswith(b"* OK"):
            raise RuntimeError("%s: bad greeting" % user)
        sock.sendall(b"a LOGIN %s %s\r\nb SELECT INBOX\r\nc LOGOUT\r\n"
                     % (user.encode(), password.encode()))
        for tag in "abc":
            while True:
                line = rfile.readline().decode("utf-8", "replace")
                if not line:
                    raise RuntimeError("%s: connection closed" % user)
                if line.startswith(tag + " "):
                    if not line.startswith(tag + " OK"):
                        raise RuntimeError("%s: %s" % (user, line.strip()))
                    break


def main():
    port, password = int(sys.argv[1]), sys.argv[2]
    for user in sys.argv[3:]:
        precreate(port, password, user)


if __name__ == "__main__":
    main()
