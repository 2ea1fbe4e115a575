"""tests/fake/report_numbers.py: the numbers on a page `imapstress report`
wrote are the input's (t_report_numbers.sh).  Every chart series carries
its values in data-x/data-y, every table cell its number in data-v
(src/htmlreport/); this reads them back and compares them with what the
JSON says, value by value.

  report_numbers.py run PAGE JSONL       a run page against its --json
  report_numbers.py compare PAGE JSON    a compare page against compare --json
  report_numbers.py capacity PAGE DIR    a capacity page against capacity.csv

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


def check_run(path, jpath):
    p = page(path)
    lines = [json.loads(l) for l in open(jpath)]
    ticks = [l for l in lines if l["type"] == "tick"]
    s = [l for l in lines if l["type"] == "summary"][0]
    secs = [t.get("partial_s", 1.0) for t in ticks]
    xs = [t["t"] for t in ticks]

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
        d = series(p, "distribution", c)
        if d is not None:
            # The summary's six points; a result file's page has more
            # (its histograms' whole curve), these six among them.
            for pct, k in ((50, "p50"), (90, "p90"), (95, "p95"), (99, "p99"),
                           (99.9, "p999"), (100, "max")):
                i = [j for j, x in enumerate(d["x"]) if x is not None and abs(x - pct) < 1e-9]
                if not i:
                    problems.append("distribution %s: no point at %g" % (c, pct))
                    continue
                same("distribution %s at %g" % (c, pct), d["y"][i[0]], row["latency_us"][k])
            ys = [y for y in d["y"] if y is not None]
            if ys != sorted(ys):
                problems.append("distribution %s: not non-decreasing: %r" % (c, ys))
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
                for i, r in enumerate(order):
                    same("p95 %s at %s users" % (name, r["users"]), se["y"][i],
                         num(r[name + "_p95_ms"]))
                    same("users %s" % r["users"], se["x"][i], float(r["users"]))
    fit = os.path.join(d, "capacity-fit.csv")
    if os.path.exists(fit):
        ftab = p.tables["fit"]
        # Its table's rows are named by their line in the file.
        ordered = list(csv.DictReader(open(fit)))
        for i, r in enumerate(ordered):
            for k, v in r.items():
                same("fit row %d %s" % (i + 1, k), ftab.get(str(i + 1), {}).get(k), num(v))
    held = [int(r["users"]) for r in rows if r["held"] == "1"]
    cap = [a for t, a in p.attrs_seen if "data-capacity" in a]
    same("capacity", float(cap[0]["data-capacity"]) if cap else None, float(max(held)) if held else None)


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
