#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ibex-bench under ibexrun at 2 ranks: each benchmark with -c (data validated) in each output
# format, the output parsed (header, columns, one row per size from 0, JSON valid); bad options
# and an odd rank count for the pairwise benchmarks exit 2 with a message; a one-round
# compare.sh run writes its Markdown, CSV and machine files with a column per library present.
# Speed is never asserted.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
BENCH=$B/examples/bench/ibex-bench
# The libtool wrapper execs the real program from .libs/: what would be left behind.
PROC=$B/examples/bench/.libs/

# no_ranks_left WHAT: leftovers (job files, PMIx), plus no ibex-bench process of this build.
no_ranks_left() {
    leftovers "$1"
    if pgrep -f -- "$PROC" >/dev/null; then
        fail "$1: ibex-bench processes left behind: $(pgrep -af -- "$PROC")"
        pkill -KILL -f -- "$PROC"
    fi
}

# check_output BENCH FORMAT FULL: python3 parses $WORK/out; prints a reason on failure.
check_output() {
    python3 - "$1" "$2" "$3" "$WORK/out" <<'PY'
import csv, json, sys
bench, fmt, full, path = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
text = open(path).read()
fig = "latency_us" if bench == "latency" else "bw_MBps"
cols = ["size_B", fig] + (["min_" + fig, "max_" + fig] if full else []) + \
       (["msg_rate_per_s"] if bench == "mbw_mr" else [])
sizes = [0] + [1 << k for k in range(17)]   # 0, 1, 2, ..., 64k
def fail(why):
    print(why); sys.exit(1)
if fmt == "json":
    doc = json.loads(text)
    if doc.get("benchmark") != bench or not doc.get("library"):
        fail("json: benchmark / library fields wrong: %r" % {k: doc.get(k) for k in ("benchmark", "library")})
    rows = doc["results"]
    if any(list(r.keys()) != cols for r in rows):
        fail("json: keys %r, want %r" % (list(rows[0].keys()) if rows else None, cols))
    got = [r["size_B"] for r in rows]
    vals = [r[c] for r in rows for c in cols]
elif fmt == "csv":
    rows = list(csv.reader(text.splitlines()))
    if rows[0] != cols:
        fail("csv: header %r, want %r" % (rows[0], cols))
    got = [int(r[0]) for r in rows[1:]]
    vals = [float(x) for r in rows[1:] for x in r]
else:
    lines = text.splitlines()
    if not lines[0].startswith("# ibex-bench %s (" % bench):
        fail("table: first line %r" % lines[0])
    body = [l for l in lines if not l.startswith("#")]
    if body[0].split() != cols:
        fail("table: columns %r, want %r" % (body[0].split(), cols))
    if any(len(l.split()) != len(cols) for l in body[1:]):
        fail("table: a row without %d columns" % len(cols))
    got = [int(l.split()[0]) for l in body[1:]]
    vals = [float(x) for l in body[1:] for x in l.split()]
if got != sizes:
    fail("sizes %r, want %r" % (got, sizes))
if any(v < 0 for v in vals):
    fail("a negative figure")
PY
}

for b in latency bw bibw mbw_mr; do
    for fmt in table csv json; do
        run 60 -n 2 "$BENCH" "$b" -c -m 0:64k -i 20 -x 2 --format "$fmt"
        why=$(check_output "$b" "$fmt" 0)
        if [ "$RC" -ne 0 ]; then
            fail "$b --format $fmt: exit $RC; stderr: $ERR"
        elif [ -n "$why" ]; then
            fail "$b --format $fmt: $why"
        else
            pass "$b -c --format $fmt (${MS} ms)"
        fi
        no_ranks_left "$b $fmt"
    done
done
# The last run above was mbw_mr --format json: the same check with python3 -m json.tool.
if [ "$(printf '%s\n' "$OUT" | python3 -m json.tool >/dev/null 2>&1; echo $?)" -ne 0 ]; then
    fail "json output is not valid for python3 -m json.tool"
fi

# -f: min / avg / max columns.
for b in latency mbw_mr; do
    run 60 -n 2 "$BENCH" "$b" -f -m 0:64k -i 10 -x 1 --format csv
    why=$(check_output "$b" csv 1)
    if [ "$RC" -ne 0 ] || [ -n "$why" ]; then
        fail "$b -f: exit $RC $why; stderr: $ERR"
    else
        pass "$b -f (${MS} ms)"
    fi
    no_ranks_left "$b -f"
done

# Bad options: usage on stderr, exit 2.
for args in "latency -m 9:2" "latency -m 4x" "bw -i 0" "bw -w" "latency --format xml" \
    "pingpong" "latency -q" ""; do
    run 30 -n 2 "$BENCH" $args
    expect "bad options '$args'" 2 "^ibex-bench: .*"
    printf '%s\n' "$ERR" | grep -q "^usage: ibex-bench" || fail "bad options '$args': no usage"
done
for b in bw bibw mbw_mr; do
    run 30 -n 3 "$BENCH" "$b" -m 0:8 -i 2
    expect "$b at 3 ranks" 2 "ibex-bench: $b needs an even number of ranks \\(got 3\\)"
done

# compare.sh: one round, two sizes, latency only.
libs=ibex
command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null && libs="$libs ompi"
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null && libs="$libs mpich"
t0=$(date +%s%N)
(cd "$WORK" && TMPDIR=$WORK/tmp top_builddir=$B top_srcdir=$S timeout -k 5 120 \
    "$S/examples/bench/compare.sh" -r 1 -b latency -m 8:16 -i 50 -t 60 -o "$WORK/cmp" \
    >"$WORK/out" 2>"$WORK/err" </dev/null)
RC=$?; MS=$(( ($(date +%s%N) - t0) / 1000000 ))
why=$(python3 - "$WORK/cmp" "$libs" <<'PY'
import csv, os, sys
d, libs = sys.argv[1], sys.argv[2].split()
for f in ("results.md", "results.csv", "raw.csv", "machine.txt"):
    if not os.path.isfile(os.path.join(d, f)):
        print("no " + f); sys.exit(1)
rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
if [(r["benchmark"], r["ranks"], r["size_B"]) for r in rows] != [("latency", "2", "8"), ("latency", "2", "16")]:
    print("results.csv rows: %r" % rows); sys.exit(1)
for l in libs:
    if any(float(r.get(l) or -1) <= 0 for r in rows):
        print("results.csv: no figure for " + l); sys.exit(1)
md = [l for l in open(os.path.join(d, "results.md")) if l.startswith("| latency | 2 |")]
if len(md) != 2 or any(len(l.split("|")) != 7 + len(libs) for l in md):
    print("results.md rows: %r" % md); sys.exit(1)
m = open(os.path.join(d, "machine.txt")).read()
if "cpu:" not in m or "kernel:" not in m or any("\n%s: " % l not in m for l in libs):
    print("machine.txt: %r" % m); sys.exit(1)
PY
)
if [ "$RC" -ne 0 ] || [ -n "$why" ]; then
    fail "compare.sh: exit $RC $why; stderr: $(cat "$WORK/err")"
else
    pass "compare.sh -r 1 ($libs, ${MS} ms)"
fi
rm -rf "$WORK/cmp"
no_ranks_left "compare.sh"
[ -z "$(ls -A "$WORK/tmp" 2>/dev/null)" ] || fail "compare.sh left files in TMPDIR: $(ls -A "$WORK/tmp")"
finish
