"""tests/fake/report_page.py: reading what `imapstress report` wrote and
what headless Chromium made of it, for t_report_html.sh and
t_report_numbers.sh.  Standard library only (no PIL: a PNG is decoded
here, zlib and the five row filters).

  report_page.py charts DOM_OR_HTML       print one line per chart:
                                          id kind svg series drawn (a line
                                          chart's series with path data;
                                          an interval chart's rows with
                                          their point drawn)
  report_page.py marks DOM_OR_HTML        print one line per chart with a
                                          limit, a shaded band or bars:
                                          id limit band-lo band-hi bars
                                          ("-" for none; bars: drawn/of
                                          the points or rows with both
                                          ends of an interval)
  report_page.py answer DOM_OR_HTML       print the capacity answer's
                                          data-* (verdict capacity lo hi
                                          top open-above value threshold)
                                          and its text, or "none"
  report_page.py png PNG                  print: width height nonwhite
                                          palette (pixel counts)
  report_page.py netlog NETLOG            print the URLs the page (not the
                                          browser's own services) asked for
"""
import html.parser
import json
import struct
import sys
import zlib


class Page(html.parser.HTMLParser):
    """Figures, their SVG elements and series; tables' data-v cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.figures = []      # dicts: id, kind, svg, paths, series
        self.cur = None
        self.tables = {}       # data-table -> {row name: {key: value}}
        self.table = None
        self.row = None
        self.notes = {}        # data-errors etc.
        self.row_g = None      # an interval chart's row being read
        self.answer = None     # <p class=answer>: its attributes, text
        self.in_answer = False
        self.all_tags = set()
        self.attrs_seen = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.all_tags.add(tag)
        self.attrs_seen.append((tag, a))
        if tag == "figure" and "data-chart" in a:
            self.cur = {"id": a["data-chart"], "kind": a.get("data-kind"),
                        "svg": 0, "paths": 0, "drawn": 0, "series": {},
                        "rows": {}, "limit": None, "band": None, "bars": {}}
            self.figures.append(self.cur)
        elif self.cur is not None and tag == "svg" and "plot" in a.get("class", ""):
            self.cur["svg"] += 1
        elif self.cur is not None and tag == "line" and "data-limit" in a:
            self.cur["limit"] = vals(a["data-limit"])[0]
        elif self.cur is not None and tag == "rect" and "data-lo" in a:
            self.cur["band"] = (vals(a.get("data-lo", ""))[0],
                                vals(a.get("data-hi", ""))[0])
        elif self.cur is not None and tag == "path" and "data-bars" in a:
            # One vertical stroke per bar ("M x y V y2"), caps apart.
            self.cur["bars"][a["data-bars"]] = {
                "lo": vals(a.get("data-lo", "")), "hi": vals(a.get("data-hi", "")),
                "drawn": a.get("d", "").count("V")}
        elif self.cur is not None and tag == "path":
            self.cur["paths"] += 1
            d = a.get("d", "")
            if self.row_g is not None and d.startswith("M"):
                self.row_g[a.get("class", "")] = True
            if "data-series" in a:
                s = {"x": vals(a.get("data-x", "")),
                     "y": vals(a.get("data-y", "")), "d": d}
                self.cur["series"][a["data-series"]] = s
                # Drawn: path data with at least one point.
                if d.startswith("M"):
                    self.cur["drawn"] += 1
        elif self.cur is not None and tag == "g" and "data-label" in a:
            self.row_g = {k: vals(a.get("data-" + k, ""))[0] for k in ("v", "lo", "hi")}
            self.cur["rows"][a["data-label"]] = self.row_g
        elif tag == "p" and "answer" in a.get("class", "").split():
            self.answer = {"attrs": a, "text": ""}
            self.in_answer = True
        elif tag == "table" and "data-table" in a:
            self.table = self.tables.setdefault(a["data-table"], {})
        elif tag == "tr" and self.table is not None:
            self.row = self.table.setdefault(a.get("data-name", ""), {})
        elif tag == "td" and self.row is not None and "data-v" in a:
            self.row[a.get("data-key", "v")] = float(a["data-v"])
        if "data-errors" in a:
            self.notes["errors"] = a["data-errors"]

    def handle_data(self, data):
        if self.in_answer:
            self.answer["text"] += data

    def handle_endtag(self, tag):
        if tag == "p":
            self.in_answer = False
        if tag == "g":
            self.row_g = None
        if tag == "figure":
            self.cur = None
        elif tag == "table":
            self.table = None
            self.row = None


def vals(s):
    return [None if v == "-" else float(v) for v in s.split()] or [None]


def page(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    return p


def png(path):
    """(width, height, rows of RGB(A) tuples' bytes, bytes per pixel)"""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("%s: not a PNG" % path)
    pos, idat = 8, b""
    w = h = bpp = None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise SystemExit("%s: PNG of depth %d type %d" % (path, depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


# The first colours of the page's palette (src/htmlreport/hr_axis.c).
PALETTE = [(0x00, 0x72, 0xB2), (0xD5, 0x5E, 0x00), (0x00, 0x9E, 0x73)]


def png_stats(path):
    w, h, rows, bpp = png(path)
    nonwhite = 0
    pal = [0] * len(PALETTE)
    for line in rows:
        for i in range(0, len(line), bpp):
            px = (line[i], line[i + 1], line[i + 2])
            if px != (255, 255, 255):
                nonwhite += 1
            for k, c in enumerate(PALETTE):
                if px == c:
                    pal[k] += 1
    return w, h, nonwhite, pal


def page_urls(path):
    """URLs requested on behalf of the page: its requests are those whose
    network isolation key is the file:// page's (the browser's own
    update and account checks carry their own sites' keys)."""
    d = json.load(open(path))
    types = {v: k for k, v in d["constants"]["logEventTypes"].items()}
    urls = set()
    for e in d["events"]:
        if types.get(e["type"]) != "URL_REQUEST_START_JOB":
            continue
        p = e.get("params", {})
        if not p.get("network_isolation_key", "").startswith("file://"):
            continue
        u = p.get("url", "")
        if not u.startswith(("file:", "data:", "about:")):
            urls.add(u)
    return sorted(urls)


def main():
    what, path = sys.argv[1], sys.argv[2]
    if what == "charts":
        for f in page(path).figures:
            if f["rows"]:   # an interval chart: rows with their point
                print(f["id"], f["kind"], f["svg"], len(f["rows"]),
                      sum(1 for r in f["rows"].values() if r.get("pt")))
            else:
                print(f["id"], f["kind"], f["svg"], len(f["series"]), f["drawn"])
    elif what == "marks":
        fmt = lambda v: "-" if v is None else "%g" % v
        for f in page(path).figures:
            # Bars: drawn/wanted, wanted being the points (or an interval
            # chart's rows) whose interval has both ends.
            if f["rows"]:
                want = [r for r in f["rows"].values()
                        if r["lo"] is not None and r["hi"] is not None]
                bars = "%d/%d" % (sum(1 for r in want if r.get("ci")), len(want))
            elif f["bars"]:
                bars = "%d/%d" % (
                    sum(b["drawn"] for b in f["bars"].values()),
                    sum(1 for b in f["bars"].values() for lo, hi in zip(b["lo"], b["hi"])
                        if lo is not None and hi is not None))
            elif f["limit"] is None and f["band"] is None:
                continue
            else:
                bars = "-"
            band = f["band"] or (None, None)
            print(f["id"], fmt(f["limit"]), fmt(band[0]), fmt(band[1]), bars)
    elif what == "answer":
        a = page(path).answer
        if a is None:
            print("none")
        else:
            print(*[a["attrs"].get("data-" + k, "?") for k in (
                "verdict", "capacity", "lo", "hi", "top", "open-above",
                "value", "threshold")], " ".join(a["text"].split()))
    elif what == "png":
        st = png_stats(path)
        print(*st[:3], *st[3])
    elif what == "netlog":
        for u in page_urls(path):
            print(u)


if __name__ == "__main__":
    main()
