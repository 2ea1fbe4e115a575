"""fake_line_server.py: what the small line-protocol fakes share
(fake_smtp.py, fake_pop3.py): a threading TCP server on a free loopback
port, the --fault/--port-file/--log options, and the port written to its
file (whole, by rename) once the server listens.  Only the standard
library."""
import argparse
import os
import socketserver


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that hangs up on a fault is the test, not news.
        pass


def serve(handler, more=()):
    """Parse the options (more: (name, argparse kwargs) pairs, set as
    attributes of the server too), listen, write the port file, serve."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--fault", default="none")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    for name, kw in more:
        ap.add_argument(name, **kw)
    a = ap.parse_args()
    srv = Server(("127.0.0.1", 0), handler)
    for k, v in vars(a).items():
        setattr(srv, k, v)
    open(a.log, "w").close()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    srv.serve_forever()
