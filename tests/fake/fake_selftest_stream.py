"""fake_selftest_stream.py: a script's large "repeat" is streamed
(fake_stream.c): every line in order, the rest of the reply after it,
other connections served meanwhile, and the fake's memory bounded by a
piece, not by the reply.
"""
import os
import zlib

from fake_selftest_lib import TMP, Client, Server, check

N = 2000000
# "* 2000000 FETCH (UID 1)" ... about 25 octets a line: 50 MB in all.
# Made whole, as before, the fake's peak RSS passed 50 MB; streamed it
# holds a piece (256 KiB) and its start-up size (about 5 MB).
RSS_MAX_KB = 20 * 1024


def peak_rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith("VmHWM:"):
                return int(ln.split()[1])
    return -1


def want_lines(n, tag):
    return ["* %d FETCH (UID %d)" % (n + 1 - i, i) for i in range(1, n + 1)] \
        + ["* after", "%s OK fetched" % tag]


def read_until(recv, tag, start=b""):
    """All the lines up to the tagged one, read in bulk (2 million lines
    one by one through Client.line would take minutes), and the octets
    after them."""
    end = ("\r\n%s " % tag).encode()
    parts, tail = [start], start[-4096:]
    while True:
        d = recv()
        if not d:
            raise EOFError("server closed the connection")
        parts.append(d)
        tail = (tail + d)[-4096:]
        i = tail.find(end)
        if i >= 0 and tail.find(b"\r\n", i + 2) >= 0:
            break
    data = b"".join(parts).decode("latin-1")
    lines = data.split("\r\n")
    k = lines.index(next(ln for ln in lines if ln.startswith(tag + " ")))
    return lines[:k + 1], "\r\n".join(lines[k + 1:])


def start(name, n, between):
    """fakeimapd answering FETCH with a repeat of n lines, `between`, then
    "* after" and the tagged OK; a client that has read the greeting."""
    path = os.path.join(TMP, name + ".conf")
    with open(path, "w") as f:
        f.write("greeting * OK [CAPABILITY IMAP4rev1 COMPRESS=DEFLATE] s\n"
                "on COMPRESS $tag OK DEFLATE active\\r\\ndeflate\n"
                "on FETCH repeat %d * $j FETCH (UID $i)\\r\\n%s"
                "* after\\r\\n$tag OK fetched\n"
                "on NOOP $tag OK noop\n" % (n, between))
    srv = Server("--script", path)
    c = Client(srv.port, timeout=30)
    c.line()
    return srv, c


def t_stream():
    srv, a = start("stream", N, "sleep 50\\r\\n")
    # a2 is pipelined: its reply must come after all of a1's.
    a.send("a1 FETCH 1:* UID\r\na2 NOOP\r\n")
    first = a.line()
    b = Client(srv.port)
    b.line()
    rb = b.cmd("b1", "NOOP")
    rss = peak_rss_kb(srv.p.pid)
    check("a repeat of %d lines streams: another connection is answered "
          "meanwhile, peak RSS %d kB <= %d kB" % (N, rss, RSS_MAX_KB),
          rb == ["b1 OK noop"] and 0 < rss <= RSS_MAX_KB, (rb, rss))
    got, rest = read_until(lambda: a.s.recv(1 << 20), "a1", a.buf)
    got.insert(0, first)
    a.buf = rest.encode("latin-1")
    ra2 = a.until("a2")
    want = want_lines(N, "a1")
    bad = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), None)
    check("the streamed repeat: every line in order, then a sleep, the "
          "rest of the reply, then the pipelined command's",
          len(got) == len(want) and bad is None and ra2 == ["a2 OK noop"],
          (len(got), bad, got[bad] if bad is not None else None, ra2))
    srv.stop()


def t_stream_compress():
    n = 300000
    srv, c = start("stream-z", n, "")
    r = c.cmd("z1", "COMPRESS DEFLATE")
    z = zlib.decompressobj(-15)
    wire = c.buf
    zo = zlib.compressobj(9, zlib.DEFLATED, -15)
    c.s.sendall(zo.compress(b"a1 FETCH 1:* UID\r\n") +
                zo.flush(zlib.Z_SYNC_FLUSH))
    pending = [wire] if wire else []

    def recv():
        """Inflated octets, b"" only at EOF."""
        while True:
            d = pending.pop() if pending else c.s.recv(1 << 20)
            if not d:
                return d
            out = z.decompress(d)
            if out:
                return out
    got, _ = read_until(recv, "a1")
    want = want_lines(n, "a1")
    check("a streamed repeat under COMPRESS: every line in order",
          r == ["z1 OK DEFLATE active"] and got == want,
          (r, len(got), got[:2], got[-2:]))
    srv.stop()


def t_streams():
    t_stream()
    t_stream_compress()
