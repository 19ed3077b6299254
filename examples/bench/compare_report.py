#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compare.sh's report: raw.csv (every run's figures) into medians per library, Ibex's ratio to
the best peer, Markdown and CSV tables, gnuplot plots and, with --doc, the generated part of
docs/PERFORMANCE.md.

  compare_report.py --dir DIR --libs "ibex ompi mpich" [--rounds N] [--doc FILE]

DIR holds raw.csv (lib,np,benchmark,metric,round,size_B,value) and machine.txt; the report
writes results.md, results.csv and, when gnuplot is installed, one PNG per area, metric and
rank count (a panel per benchmark, a line per library, log scales).
"""
import argparse
import csv
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

P2P = ["latency", "bw", "bibw", "mbw_mr"]
COLL = ["barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
        "allgather", "allgatherv", "alltoall", "alltoallv", "reduce_scatter",
        "reduce_scatter_block", "scan", "exscan"]
AREAS = [("pt2pt", "Point-to-point"), ("coll", "Blocking collectives"),
         ("nbc", "Non-blocking collectives (overlap with computation)"),
         ("rma", "One-sided")]
# metric suffix: unit, axis label, whether a higher figure is better, log y axis
UNITS = {"_us": ("us", "time (us)", False, True),
         "_MBps": ("MB/s", "bandwidth (MB/s, 10^6 B/s)", True, True),
         "_per_s": ("msgs/s", "message rate (messages/s)", True, True),
         "_pct": ("%", "overlap (%)", True, False)}
NAMES = {"ibex": "Ibex (shm)", "ibex-softib": "Ibex (verbs on softib)", "ibex-base": "Ibex (baseline)",
         "ibex-async": "Ibex (progress thread)", "ompi": "Open MPI",
         "mpich": "MPICH"}
# one-sided floors (compare.sh): columns beside the libraries, never a peer of the ratio
FLOORS = {"floor": "floor (memcpy, process_vm_writev, cache-line ping)",
          "raw-verbs": "raw verbs on softib (ib_write_lat / ib_read_lat)"}
NAMES.update(FLOORS)
STYLE = {"ibex": ("#d62728", 7), "ibex-softib": ("#ff7f0e", 9), "ibex-base": ("#7f7f7f", 11),
         "ibex-async": ("#9467bd", 3), "ompi": ("#1f77b4", 5),
         "mpich": ("#2ca02c", 13)}  # the same colour and point for a library in every panel
BEGIN = "<!-- BEGIN GENERATED: examples/bench/compare.sh --doc; do not edit by hand -->"
END = "<!-- END GENERATED -->"


def area(bench):
    base = bench.split(".")[0]
    if base in P2P:
        return "pt2pt"
    if base in COLL:
        return "coll"
    if base.startswith("i") and base[1:] in COLL:
        return "nbc"
    return "rma"


def unit(metric):
    for sfx, u in UNITS.items():
        if metric.endswith(sfx):
            return u
    return ("", metric, True, True)


def bench_order(bench):
    base, _, sync = bench.partition(".")
    order = P2P + COLL + ["i" + c for c in COLL] + \
        ["put_latency", "get_latency", "put_bw", "get_bw", "acc_latency", "fop_latency",
         "cas_latency"]
    return (order.index(base) if base in order else len(order), sync)


def load(path):
    """{(bench, metric, np, size): {lib: [values]}}"""
    runs = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["benchmark"], row["metric"], int(row["np"]), int(row["size_B"]))
            runs.setdefault(key, {}).setdefault(row["lib"], []).append(float(row["value"]))
    return runs


def medians(runs, libs):
    """Rows (bench, metric, np, size, unit, {lib: median}, ratio), sorted."""
    rows = []
    for (b, m, np, size), by_lib in runs.items():
        med = {l: statistics.median(by_lib[l]) for l in libs if l in by_lib}
        u, _, higher, _ = unit(m)
        peers = [v for l, v in med.items() if not l.startswith("ibex") and l not in FLOORS]
        best = (max if higher else min)(peers) if peers else None
        ratio = med["ibex"] / best if "ibex" in med and best else None
        rows.append((b, m, np, size, u, med, ratio))
    rows.sort(key=lambda r: (AREAS.index(next(a for a in AREAS if a[0] == area(r[0]))),
                             bench_order(r[0]), r[1], r[2], r[3]))
    return rows


def fmt(v):
    if v is None:
        return ""
    if v == 0:
        return "0"
    digits = max(0, 3 - int(math.floor(math.log10(abs(v)))) - 1)
    return "%.*f" % (min(digits, 3), v)


def write_csv(rows, libs, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "metric", "ranks", "size_B", "unit"] + libs +
                   ["ibex_to_best_peer"])
        for b, m, np, size, u, med, ratio in rows:
            w.writerow([b, m, np, size, u] + [fmt(med.get(l)) for l in libs] +
                       ["%.2f" % ratio if ratio else ""])


def shown(rows):
    """The Markdown shows size 0 and powers of 16 (1, 16, 256, 4k, 64k, 1m), and every size of a
    benchmark measured at only one; the CSV has all."""
    sizes = {}
    for r in rows:
        sizes.setdefault((r[0], r[1], r[2]), set()).add(r[3])
    return [r for r in rows if len(sizes[(r[0], r[1], r[2])]) == 1 or r[3] == 0 or
            (r[3] & (r[3] - 1) == 0 and int(math.log2(r[3])) % 4 == 0)]


def table(rows, libs, key):
    """The Markdown table of one area (empty if it has no rows)."""
    part = [r for r in shown(rows) if area(r[0]) == key]
    if not part:
        return []
    out = ["| benchmark | metric | ranks | size (B) | unit | " +
           " | ".join(NAMES.get(l, l) for l in libs) + " | Ibex / best peer |",
           "|---|---|---|---|---|" + "---|" * len(libs) + "---|"]
    for b, m, np, size, u, med, ratio in part:
        cells = [fmt(med.get(l)) or "–" for l in libs]
        out.append("| %s | %s | %d | %d | %s | %s | %s |" % (
            b, m, np, size, u, " | ".join(cells), "%.2f" % ratio if ratio else ""))
    return out


def footnote(rounds):
    return ("Medians of %d interleaved rounds. Ibex / best peer: for times (us) below 1 is "
            "faster, for bandwidth, rate and overlap above 1 is better; – : not measured (the "
            "library lacks it, or every run failed). The tables show size 0 and powers of 16; "
            "results.csv has every size." % rounds)


def markdown(rows, libs, rounds, images=None, level="##"):
    """Per area: a heading, its plots (images: file names, linked from perf/), its table."""
    out = []
    for key, title in AREAS:
        t = table(rows, libs, key)
        if not t:
            continue
        out += ["", "%s %s" % (level, title), ""]
        for name in images or []:
            if name.startswith(key + "_"):
                out += ["![%s](perf/%s)" % (alt(name), name), ""]
        if images is None:
            out += t
        else:  # in the document the plots come first, the long table folded under them
            out += ["<details><summary>%s: the table (%d rows)</summary>" % (title, len(t) - 2),
                    ""] + t + ["", "</details>"]
    return out + ["", footnote(rounds)]


def alt(name):
    key, rest = name[:-4].split("_", 1)
    metric, np = rest.rsplit("_np", 1)
    return "%s: %s at %s ranks" % (dict(AREAS)[key], unit(metric)[1], np)


def panels(rows, key, metric, np):
    """{bench: {lib: [(size, value)]}} for the plot of one area, metric and rank count."""
    data = {}
    for b, m, n, size, u, med, ratio in rows:
        if area(b) == key and m == metric and n == np and size > 0:
            for l, v in med.items():
                data.setdefault(b, {}).setdefault(l, []).append((size, v))
    return {b: d for b, d in data.items() if max(len(v) for v in d.values()) > 1}


def plot(rows, libs, outdir):
    """One PNG per area, metric and rank count; returns their file names."""
    if shutil.which("gnuplot") is None:
        print("compare_report: gnuplot is not installed: no plots (apt-get install gnuplot-nox)",
              file=sys.stderr)
        return []
    made = []
    tmp = tempfile.mkdtemp()
    try:
        first = ["latency_us", "bw_MBps", "msg_rate_per_s", "overlap_pct", "pure_us"]
        combos = sorted({(area(r[0]), r[1], r[2]) for r in rows},
                        key=lambda c: ([a[0] for a in AREAS].index(c[0]),
                                       first.index(c[1]) if c[1] in first else 9, c[1], c[2]))
        for key, metric, np in combos:
            data = panels(rows, key, metric, np)
            if not data:
                continue
            name = "%s_%s_np%d.png" % (key, metric, np)
            script = gnuplot_script(data, libs, (key, metric, np), os.path.join(outdir, name), tmp)
            subprocess.run(["gnuplot"], input=script, text=True, check=True)
            made.append(name)
    finally:
        shutil.rmtree(tmp)
    return made


def gnuplot_script(data, libs, what, png, tmp):
    key, metric, np = what
    u, ylabel, _, logy = unit(metric)
    benches = sorted(data, key=bench_order)
    cols = min(4, len(benches))
    nrows = (len(benches) + cols - 1) // cols
    lines = ["set terminal pngcairo size %d,%d noenhanced font ',9'" %
             (max(430 * cols, 860), max(330 * nrows, 440)),
             "set output '%s'" % png,
             "set multiplot layout %d,%d title '%s: %s at %d ranks, medians of the rounds "
             "(sizes: Ki = 1024 B, Mi = 1024^2 B)' font ',12'" % (nrows, cols, dict(AREAS)[key],
                                                                   ylabel, np),
             "set logscale x 2", "set format x '%.0b%B'",
             "set xlabel 'message size (bytes)'",
             "set ylabel '%s'" % ylabel, "set key below horizontal samplen 2 font ',8'", "set bmargin 5", "set grid"]
    lines.append("set logscale y" if logy else "unset logscale y; set yrange [0:105]")
    for b in benches:
        series = []
        for i, l in enumerate(libs):
            pts = sorted(data[b].get(l, []))
            if not pts:
                continue
            f = os.path.join(tmp, "%s_%s_%d_%s" % (re.sub(r"\W", "_", b), metric, np, l))
            with open(f, "w") as fh:
                fh.writelines("%d %g\n" % p for p in pts if not logy or p[1] > 0)
            color, point = STYLE.get(l, ("black", i + 1))
            series.append("'%s' using 1:2 with linespoints lw 2 lc rgb '%s' pt %d title '%s'" %
                          (f, color, point, NAMES.get(l, l)))
        lines += ["set title '%s (%s)'" % (b, metric), "plot " + ", ".join(series)]
    lines.append("unset multiplot")
    return "\n".join(lines) + "\n"


def write_doc(doc, md, images, outdir, machine):
    """Replaces the generated part of doc: the machine, the tables and the plots (copied into
    perf/ beside the document)."""
    text = open(doc).read()
    if BEGIN not in text or END not in text:
        sys.exit("compare_report: %s has no %s ... %s marks" % (doc, BEGIN, END))
    perf = os.path.join(os.path.dirname(os.path.abspath(doc)), "perf")
    os.makedirs(perf, exist_ok=True)
    for name in images + ["results.csv", "machine.txt"]:
        shutil.copy(os.path.join(outdir, name), perf)
    body = ["", "The machine and the run (`perf/machine.txt`):", "", "```", machine.strip(),
            "```"]
    body += md + ["", "Every size of every benchmark: [perf/results.csv](perf/results.csv).", ""]
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(doc, "w") as f:
        f.write(head + BEGIN + "\n" + "\n".join(body) + "\n" + END + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--libs", required=True)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--doc")
    a = ap.parse_args()
    libs = a.libs.split()
    rows = medians(load(os.path.join(a.dir, "raw.csv")), libs)
    write_csv(rows, libs, os.path.join(a.dir, "results.csv"))
    md = markdown(rows, libs, a.rounds)
    with open(os.path.join(a.dir, "results.md"), "w") as f:
        f.write("\n".join(md).lstrip("\n") + "\n")
    images = plot(rows, libs, a.dir)
    if a.doc:
        machine = open(os.path.join(a.dir, "machine.txt")).read()
        write_doc(a.doc, markdown(rows, libs, a.rounds, images or [], "###"), images, a.dir,
                  machine)


if __name__ == "__main__":
    main()
