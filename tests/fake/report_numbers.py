"""tests/fake/report_numbers.py: the numbers on a page `imapstress report`
wrote are the input's (t_report_numbers.sh).  Every chart series carries
its values in data-x/data-y, every table cell its number in data-v
(src/htmlreport/); this reads them back and compares them with what the
JSON says, value by value.

  report_numbers.py run PAGE JSONL       a run page against its --json
  report_numbers.py compare PAGE JSON    a compare page against compare --json
  report_numbers.py capacity PAGE DIR    a capacity page against capacity.csv,
                                         capacity-fit.csv and, when there,
                                         capacity-answer.json

Prints "ok N" (N values compared) or the differences, exit 1.
"""
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_page import page  # noqa: E402

problems = []
compared = [0]


def same(what, got, want):
    compared[0] += 1
    if want is None or (isinstance(want, float) and math.isnan(want)):
        if got is not None:
            problems.append("%s: page %r, input has none" % (what, got))
        return
    if got is None:
        problems.append("%s: page has none, input %r" % (what, want))
        return
    # The page prints %.6g: six significant digits.
    if abs(got - want) > 5e-6 * max(abs(want), 1e-9) + 1e-12:
        problems.append("%s: page %r, input %r" % (what, got, want))


def series(p, chart, name):
    for f in p.figures:
        if f["id"] == chart:
            if name not in f["series"]:
                problems.append("chart %s: no series %s (has %s)" % (chart, name, sorted(f["series"])))
                return None
            return f["series"][name]
    problems.append("no chart %s" % chart)
    return None


def distribution(p, chart, c, lat):
    d = series(p, chart, c)
    if d is None:
        return
    # The summary's six points; a result file's page has more (its
    # histograms' whole curve), these six among them.
    for pct, k in ((50, "p50"), (90, "p90"), (95, "p95"), (99, "p99"),
                   (99.9, "p999"), (100, "max")):
        i = [j for j, x in enumerate(d["x"]) if x is not None and abs(x - pct) < 1e-9]
        if not i:
            problems.append("%s %s: no point at %g" % (chart, c, pct))
            continue
        same("%s %s at %g" % (chart, c, pct), d["y"][i[0]], lat[k])
    ys = [y for y in d["y"] if y is not None]
    if ys != sorted(ys):
        problems.append("%s %s: not non-decreasing: %r" % (chart, c, ys))


def tick_pop3(t):
    """A tick's profile.pop3 ({} in a second without POP3 activity)."""
    return (t.get("profile") or {}).get("pop3") or {}


def check_pop3(p, s, ticks, over_time):
    """The POP3 section: sessions and messages, +OK per command per
    second and p50/p95/p99 per command over time; the totals, the
    commands table and the percentile plot against the summary's."""
    p3 = (s.get("profile") or {}).get("pop3")
    if p3 is None:
        if "pop3-totals" in p.tables:
            problems.append("a POP3 section on the page of a run without POP3")
        return
    for k in ("sessions", "logins", "retrieved", "deleted"):
        over_time("pop3-sessions", k, lambda t, k=k: tick_pop3(t).get(k, 0), True)
    tot = p.tables.get("pop3-totals", {}).get("", {})
    for k in ("sessions", "logins", "retrieved", "retr_bytes", "deleted", "delete_lost"):
        same("pop3 totals %s" % k, tot.get(k), p3[k])
    for k, v in p3["failed_sessions"].items():
        same("pop3 totals failed_sessions.%s" % k, tot.get("failed_sessions." + k), v)
    for c, row in p3["commands"].items():
        cmd = lambda t, c=c: tick_pop3(t).get("commands", {}).get(c, {})
        over_time("pop3-throughput", c, lambda t, cmd=cmd: cmd(t).get("ok"), True)
        # A chart over time for each command measured in some second.
        if any((cmd(t).get("p99_us") or 0) > 0 for t in ticks):
            for k in ("p50", "p95", "p99"):
                over_time("pop3-" + c, k, lambda t, cmd=cmd, k=k: cmd(t).get(k + "_us"), False)
        tab = p.tables.get("pop3-commands", {}).get(c, {})
        for k in ("ok", "err", "failed", "rate"):
            if k not in row:
                problems.append("summary pop3.commands.%s has no %s" % (c, k))
                continue
            same("pop3 table %s.%s" % (c, k), tab.get(k), row[k])
        for k, v in row["latency_us"].items():
            same("pop3 table %s.%s" % (c, k), tab.get(k), v)
        distribution(p, "pop3-distribution", c, row["latency_us"])


def check_run(path, jpath):
    p = page(path)
    lines = [json.loads(l) for l in open(jpath)]
    ticks = [l for l in lines if l["type"] == "tick"]
    s = [l for l in lines if l["type"] == "summary"][0]
    xs = [t["t"] for t in ticks]
    # A tick's window runs from the tick before (its t) to its own: a
    # tick fires late on a loaded machine, so not always 1 s.  The last
    # tick can come within the JSON's precision of the one before (a run
    # that ends just after a tick): then its partial_s is its length, as
    # hr_tick_secs takes it.
    secs = []
    for i, t in enumerate(xs):
        d = t - (xs[i - 1] if i else 0)
        if not 0 < d < 1e9:
            d = ticks[i].get("partial_s") or 1.0
        secs.append(d)

    def over_time(chart, name, get, rate):
        se = series(p, chart, name)
        if se is None:
            return
        if len(se["y"]) != len(ticks):
            problems.append("%s/%s: %d points, %d ticks" % (chart, name, len(se["y"]), len(ticks)))
            return
        for i, t in enumerate(ticks):
            v = get(t)
            if rate:
                v = (v or 0) / secs[i]
            same("%s/%s x[%d]" % (chart, name, i), se["x"][i], xs[i])
            same("%s/%s y[%d]" % (chart, name, i), se["y"][i], v)

    for c, row in s["commands"].items():
        over_time("throughput", c, lambda t, c=c: t["commands"].get(c, {}).get("ok"), True)
        for k in ("p50", "p95", "p99"):
            over_time("latency-" + c, k, lambda t, c=c, k=k: t["commands"].get(c, {}).get(k + "_us"), False)
        tab = p.tables["commands"].get(c, {})
        for k in ("ok", "no", "bad", "failed", "rate"):
            same("table %s.%s" % (c, k), tab.get(k), row[k])
        for k, v in row["latency_us"].items():
            same("table %s.%s" % (c, k), tab.get(k), v)
        distribution(p, "distribution", c, row["latency_us"])
    # Errors: a series for each kind with a count, and the totals' tables.
    for key, prefix in (("errors", ""), ("state_kinds", "state/"), ("benign_codes", "benign NO/")):
        for k, v in s[key].items():
            same("table %s.%s" % (key, k), p.tables[key].get(k, {}).get("v"), v)
            total = v + sum(t[key].get(k, 0) for t in ticks)
            if total > 0:
                over_time("errors", prefix + k, lambda t, key=key, k=k: t[key].get(k, 0), True)
    if sum(s["errors"].values()) == 0 and sum(s["benign_codes"].values()) == 0:
        same("no-errors note", float(p.notes.get("errors", "nan")), 0.0)
    over_time("connections", "past the greeting", lambda t: t["conns_open"], False)
    over_time("connections", "existing", lambda t: t["conns_total"], False)
    over_time("client-cpu", "cpu", lambda t: t["cpu_pct"], False)
    run = p.tables["run"].get("", {})
    for k, key in (("clients", "clients"), ("workers", "workers"),
                   ("exit status", "exit_status"), ("duration", "duration_s"),
                   ("measured", "measured_s")):
        same("run table %s" % k, run.get(k), s[key])
    srv = s.get("server") or {}
    if srv.get("sampled"):
        over_time("server-cpu", "server cpu", lambda t: t["server"].get("cpu_pct"), False)
        over_time("server-mem", "server memory", lambda t: t["server"].get("mem_kb"), False)
    for c, row in ((s.get("profile") or {}).get("actions") or {}).items():
        over_time("actions", c, lambda t, c=c: t["profile"]["actions"].get(c, {}).get("ok"), True)
    check_pop3(p, s, ticks, over_time)


def check_compare(path, jpath):
    p = page(path)
    c = json.load(open(jpath))
    rows = {}
    for f in p.figures:
        if f["id"] == "ratios":
            rows = f["rows"]
    tab = p.tables["rows"]
    if len(rows) != len(c["rows"]):
        problems.append("interval chart: %d rows, compare has %d" % (len(rows), len(c["rows"])))
    for r in c["rows"]:
        name = "%s %s" % (r["command"], r["figure"])
        g = rows.get(name, {})
        same("chart %s ratio" % name, g.get("v"), r["ratio"])
        same("chart %s ci_low" % name, g.get("lo"), r["ci_low"])
        same("chart %s ci_high" % name, g.get("hi"), r["ci_high"])
        t = tab.get(name, {})
        for k in ("base", "new", "ratio", "ci_low", "ci_high", "base_samples", "new_samples"):
            same("table %s.%s" % (name, k), t.get(k), r[k])


def check_capacity(path, d):
    p = page(path)
    rows = list(csv.DictReader(open(os.path.join(d, "capacity.csv"))))
    tab = p.tables["steps"]
    def num(v):
        try:
            return float(v)
        except ValueError:
            return None     # empty, or a word (a verdict): no data-v
    for i, r in enumerate(rows):
        t = tab.get(str(i + 1), {})
        for k, v in r.items():
            same("row %d %s" % (i + 1, k), t.get(k), num(v))
    order = sorted(rows, key=lambda r: int(r["users"]))
    for f in p.figures:
        if f["id"] == "capacity-p95":
            for name, se in f["series"].items():
                # login_p95_ms, the script's estimate, is named apart
                # from LOGIN's p95.
                col = "login_p95_ms" if name.startswith("login (") else name + "_p95_ms"
                for i, r in enumerate(order):
                    same("p95 %s at %s users" % (name, r["users"]), se["y"][i],
                         num(r[col]))
                    same("users %s" % r["users"], se["x"][i], float(r["users"]))
    fit = os.path.join(d, "capacity-fit.csv")
    if os.path.exists(fit):
        ftab = p.tables["fit"]
        # Its table's rows are named by their line in the file.
        ordered = list(csv.DictReader(open(fit)))
        for i, r in enumerate(ordered):
            for k, v in r.items():
                same("fit row %d %s" % (i + 1, k), ftab.get(str(i + 1), {}).get(k), num(v))
    cap = [a for t, a in p.attrs_seen if "data-capacity" in a]
    got = cap[0]["data-capacity"] if cap else None
    got = None if got in (None, "-") else float(got)
    ans_path = os.path.join(d, "capacity-answer.json")
    if os.path.exists(ans_path):
        check_answer(p, json.load(open(ans_path)), rows, num)
        same("capacity (the answer's)", got, json.load(open(ans_path))["users"])
    else:
        # An older directory: the most users a run held, and a note.
        held = [int(r["users"]) for r in rows if r["held"] == "1"]
        same("capacity (most users held)", got, float(max(held)) if held else None)
        if p.answer is not None:
            problems.append("an answer on a page whose directory has none")


def words(text, line):
    """(at least, N, A, B, open, metric, S) of the page's sentence and of
    the script's line: the same numbers, each in its own words."""
    import re
    pat = (r"(?i)holds (at least )?(\d+) users(?: \(95%% %s (\d+)\.\.(\d+)(\+?)"
           r"[^)]*\))? at (.+?) ([\d.]+) ms")
    m1 = re.search(pat % "interval", text)
    m2 = re.search(pat % "CI", line)
    return m1 and m1.groups(), m2 and m2.groups()


def check_answer(p, a, rows, num):
    """The answer paragraph, the limit chart and the bars against
    capacity-answer.json (and its line, what the script printed)."""
    if p.answer is None:
        problems.append("no answer paragraph")
        return
    at = p.answer["attrs"]
    def attr(k):
        v = at.get("data-" + k)
        return None if v in (None, "-") else float(v)
    if at.get("data-verdict") != a["verdict"]:
        problems.append("verdict: page %r, file %r" % (at.get("data-verdict"), a["verdict"]))
    for k, key in (("lo", "lo"), ("hi", "hi"), ("top", "top"),
                   ("value", "value_ms"), ("threshold", "threshold_ms")):
        same("answer %s" % k, attr(k), a[key])
    same("answer open above", attr("open-above"), float(a["open_above"]))
    # Where a repeat would answer (a script older than the keys: none).
    same("answer repeat from", attr("repeat-lo"), a.get("repeat_lo"))
    same("answer repeat to", attr("repeat-hi"), a.get("repeat_hi"))
    page_w, line_w = words(p.answer["text"], a["line"])
    compared[0] += 1
    if a["users"] is None:
        if "fewer" not in p.answer["text"] or "fewer" not in a["line"]:
            problems.append("fewer: page %r, line %r" % (p.answer["text"], a["line"]))
    elif page_w is None or page_w != line_w:
        problems.append("the sentence %r says %r, the script's line %r says %r"
                        % (p.answer["text"], page_w, a["line"], line_w))
    # The limit chart: the limit, the band, every run's value.
    f = [f for f in p.figures if f["id"] == "capacity-score"]
    if not f:
        problems.append("no capacity-score chart")
        return
    f = f[0]
    same("limit line", f["limit"], a["threshold_ms"])
    if a["lo"] is not None:
        top = a["hi"] if a["hi"] is not None else a["top"]
        band = f["band"] or (None, None)
        same("band from", band[0], a["lo"] - 0.5)
        same("band to", band[1], top + 0.5)
    col = "score_ms" if a["metric"] == "score" else a["metric"][:-4] + "_p95_ms"
    order = sorted(rows, key=lambda r: int(r["users"]))
    for name, held in (("run that held", "1"), ("run that did not", "0")):
        want = [num(r[col]) if r["held"] == held else None for r in order]
        se = f["series"].get(name)
        if se is None:
            if any(v is not None for v in want):
                problems.append("capacity-score: no series %r" % name)
            continue
        for i, v in enumerate(want):
            same("%s %d" % (name, i), se["y"][i], v)
    # The counts' bars: capacity-fit.csv's share_lo/share_hi, which are
    # the answer's counts to the CSV's three decimals.
    fit = [f for f in p.figures if f["id"] == "capacity-fit"]
    bars = fit[0]["bars"].get("share held") if fit else None
    if bars is None:
        problems.append("no bars on the share chart")
        return
    for i, c in enumerate(sorted(a["counts"], key=lambda c: c["users"])):
        for k, got in (("share_lo", bars["lo"][i]), ("share_hi", bars["hi"][i])):
            compared[0] += 1
            if got is None or abs(got - c[k]) > 0.0005 + 1e-9:
                problems.append("count %d %s: page %r, answer %r" % (c["users"], k, got, c[k]))


def main():
    what, path, inp = sys.argv[1:4]
    {"run": check_run, "compare": check_compare, "capacity": check_capacity}[what](path, inp)
    if problems:
        for x in problems[:30]:
            print(x)
        print("%d of %d values differ" % (len(problems), compared[0]))
        sys.exit(1)
    print("ok %d" % compared[0])


if __name__ == "__main__":
    main()
