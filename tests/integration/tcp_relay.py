#!/usr/bin/python3
"""tcp_relay.py LISTEN_ADDR TO_PORT PORT_FILE [RECORD_DIR]: a TCP relay for
the shell tests, from LISTEN_ADDR:a free port (written to PORT_FILE once it
listens) to 127.0.0.1:TO_PORT, one pair of threads per connection, until it
is killed.  With RECORD_DIR, connection N's octets go to RECORD_DIR/N.c2s
and RECORD_DIR/N.s2c, each written before it is passed on, so what either
side has read is on file once both have closed."""
import itertools
import os
import socket
import sys
import threading


def pump(a, b, path):
    f = open(path, "wb", buffering=0) if path else None
    try:
        while True:
            x = a.recv(65536)
            if not x:
                break
            if f:
                f.write(x)
            b.sendall(x)
    except OSError:
        pass
    if f:
        f.close()
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    addr, to, port_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rec = sys.argv[4] if len(sys.argv) > 4 else None
    srv = socket.socket()
    srv.bind((addr, 0))
    srv.listen(64)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(port_file + ".tmp", port_file)
    for n in itertools.count():
        c, _ = srv.accept()
        u = socket.create_connection(("127.0.0.1", to))
        for a, b, side in ((c, u, "c2s"), (u, c, "s2c")):
            path = "%s/%d.%s" % (rec, n, side) if rec else None
            threading.Thread(target=pump, args=(a, b, path), daemon=True).start()


main()
