"""scripts/bench_tables.py: bench-client's result tables: printed and
written as CSV into the output directory."""
import csv
import os
import statistics


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 100:
        return "%.1f" % v
    return "%.*f" % (digits, v)


def best_med(rows, key, best=min):
    vals = [r[key] for r in rows if r.get(key) is not None]
    if not vals:
        return None, None
    return best(vals), statistics.median(vals)


def emit(out, fname, title, header, rows):
    print()
    print(title)
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    line = lambda cells: "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    print(line(header))
    for r in rows:
        print(line(r))
    with open(os.path.join(out, fname), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def table_cpu(b, res):
    rows = []
    for name, _, _ in b.workloads():
        for piped in (True, False):
            ir = res.get((name, 1, piped, "is"))
            if not ir:
                continue
            fr = res.get((name, 1, piped, "floor"), [])
            ib, im = best_med(ir, "us_per_cmd")
            fb, fm = best_med(fr, "us_per_cmd")
            _, wm = best_med(ir, "whole_us")
            _, um = best_med(ir, "user_us")
            _, fum = best_med(fr, "user_us")
            _, cm = best_med(ir, "cmds_per_s")
            _, rm = best_med(ir, "rss_kb")
            rows.append([name, "10" if piped else "1", fmt(cm), fmt(ib), fmt(im), fmt(wm),
                         fmt(um), fmt(fb), fmt(fm), fmt(fum), fmt(ib / fb) if fb else "-",
                         fmt(rm / 1024, 1), max(r["errors"] for r in ir)])
    emit(b.out, "cpu.csv",
         "Client CPU per command vs fakeimapd, --workers 1, clients=%d, secs=%d, %d run(s) each"
         % (b.a.clients, b.a.secs, b.a.repeat),
         ["workload", "inflight", "cmds/s med", "us/cmd best", "us/cmd med", "whole us/cmd med",
          "user us/cmd med", "floor best", "floor med", "floor user med", "x floor", "RSS MiB",
          "errors"], rows)


def table_scale(b, res):
    rows = []
    for name, _, _ in b.workloads():
        one, two = res.get((name, 1, True, "is")), res.get((name, 2, True, "is"))
        if not one or not two:
            continue
        cells = [name]
        rates = []
        for rr in (one, two):
            _, rate = best_med(rr, "cmds_per_s")
            _, cores = best_med(rr, "cores")
            rates.append(rate)
            cells += [fmt(rate), fmt(cores), fmt(rate / cores if cores else None)]
        cells.append(fmt(rates[1] / rates[0], 2) if rates[0] else "-")
        rows.append(cells)
    emit(b.out, "scale.csv",
         "Scaling, pipelined, clients=%d, medians of %d run(s) (cores = client CPU / wall)"
         % (b.a.clients, b.a.repeat),
         ["workload", "w1 cmds/s", "w1 cores", "w1 cmds/s/core", "w2 cmds/s", "w2 cores",
          "w2 cmds/s/core", "w2/w1 cmds/s"], rows)


def table_rss(b, res):
    rows = []
    base = best_med(res.get(10, []), "rss_kb")[0]
    for n in sorted(res):
        rr = res[n]
        rb, rm = best_med(rr, "rss_kb")
        rows.append([n, min(r["logins"] for r in rr), min(r["max_open"] for r in rr),
                     min(r["held_s"] for r in rr),
                     fmt(statistics.median(r["ramp_s"] or 0 for r in rr), 1), fmt(rb / 1024, 1), fmt(rm / 1024, 1),
                     fmt(rb / n, 1), fmt((rb - base) / n, 2) if base and n > 10 else "-",
                     fmt(statistics.median(r["cpu_s"] for r in rr)),
                     max(r["errors"] for r in rr)])
    emit(b.out, "rss.csv",
         "Peak RSS, mostly idle connections (IDLE), --workers 1, connect-rate %d/s, %d run(s)"
         % (b.a.connect_rate, b.a.repeat),
         ["conns", "logins", "max open", "held s", "ramp s", "RSS MiB best", "RSS MiB med",
          "KB/conn", "KB/conn over 10", "cpu s med", "errors"], rows)


def table_dovecot(b, res, fetchbox):
    rows = []
    for name in ("seed 4KB", "seed 75KB", "FETCH+FETCH2"):
        rr = res.get(name)
        if not rr:
            continue
        pb, pm = best_med(rr, "pct")
        med = sorted(rr, key=lambda r: r["pct"])[len(rr) // 2]
        rows.append([name, med["cmds"], med["msgs"], fmt(med["tool_s"]), fmt(med["server_s"]),
                     fmt(pb, 1), fmt(pm, 1), fmt(best_med(rr, "us_per_cmd")[1]),
                     fmt(best_med(rr, "rss_kb")[1] / 1024, 1), max(r["errors"] for r in rr)])
    emit(b.out, "dovecot.csv",
         "Against a private Dovecot (maildir, fsync on), secs=10, %d run(s); FETCH box holds %d "
         "messages; counts and CPU s from the median run" % (b.a.repeat, fetchbox),
         ["workload", "commands", "msgs", "tool cpu s", "dovecot cpu s", "tool % best",
          "tool % med", "tool us/cmd", "RSS MiB", "errors"], rows)
