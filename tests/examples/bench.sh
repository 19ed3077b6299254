#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ibex-bench under ibexrun: each point-to-point benchmark with -c (data validated) in each output
# format, every collective, non-blocking collective and one-sided benchmark this Ibex build has
# (ibex-bench -l) with -c, several benchmarks in one run (CSV with a benchmark column, a JSON
# array), the output parsed (header, columns, one row per size, JSON valid); -c catches
# corrupted data (a PMPI shim flips bits: exit 1); bad options, benchmarks not built and odd
# rank counts for the pairwise ones exit 2 with a message; the source builds unchanged with
# mpicc.openmpi and mpicc.mpich and validates there; a one-round compare.sh (and its --doc)
# writes its Markdown, CSV, machine and plot files with a column per library present.
# Speed is never asserted.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
BENCH=$B/examples/bench/ibex-bench
# The libtool wrapper execs the real program from .libs/: what would be left behind.
PROC=$B/examples/bench/.libs/
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# no_ranks_left WHAT: leftovers (job files, PMIx), plus no ibex-bench process of this build.
no_ranks_left() {
    leftovers "$1"
    if pgrep -f -- "$PROC" >/dev/null; then
        fail "$1: ibex-bench processes left behind: $(pgrep -af -- "$PROC")"
        pkill -KILL -f -- "$PROC"
    fi
}

# check_output FORMAT FULL MIN MAX STEP BENCHMARK...: python3 parses $WORK/out against what
# ibex-bench must print for these benchmarks and sizes; prints a reason on failure.
check_output() {
    python3 - "$WORK/out" "$@" <<'PY'
import csv, json, sys
path, fmt, full, lo, hi, step = sys.argv[1], sys.argv[2], sys.argv[3] == "1", *map(int, sys.argv[4:7])
benches = sys.argv[7:]
multi = len(benches) > 1
def fail(why):
    print(why); sys.exit(1)
def cols(b):
    if b in ("latency", "bw", "bibw", "mbw_mr"):
        first, rest = ("latency_us" if b == "latency" else "bw_MBps"), (["msg_rate_per_s"] if b == "mbw_mr" else [])
    elif b[0] == "i" and b != "latency":
        first, rest = "overlap_pct", ["pure_us", "overall_us", "compute_us"]
    else:
        first, rest = ("bw_MBps" if b.endswith("_bw") else "latency_us"), []
    return ["size_B", first] + (["min_" + first, "max_" + first] if full else []) + rest
def sizes(b):
    base = b[1:] if b[0] == "i" and b not in ("latency",) else b
    if base == "barrier": return [0]
    if b in ("fop_latency", "cas_latency", "swap_latency", "acc8_latency"): return [8]
    unit = 4 if base in ("reduce", "allreduce", "scan", "exscan", "reduce_scatter",
                         "reduce_scatter_block") or b == "acc_latency" else 1
    out, n = [], lo
    while n <= hi:
        if n % unit == 0: out.append(n)
        n = (lo if lo > 0 else 1) if n == 0 else n * step
    return out
text = open(path).read()
blocks = []   # (benchmark, columns, rows)
if fmt == "json":
    docs = json.loads(text)
    if multi != isinstance(docs, list): fail("json: an array for several benchmarks, else an object")
    for d in docs if multi else [docs]:
        if not d.get("library"): fail("json: no library")
        rows = d["results"]
        blocks.append((d["benchmark"], list(rows[0].keys()) if rows else [], [[r[k] for k in r] for r in rows]))
        if any(list(r.keys()) != blocks[-1][1] for r in rows): fail("json: rows with different keys")
elif fmt == "csv":
    for r in csv.reader(text.splitlines()):
        if r[0] in ("benchmark", "size_B"):
            blocks.append([None, r[1:] if multi else r, []])
        else:
            if multi: blocks[-1][0] = r[0]
            blocks[-1][2].append([float(x) for x in (r[1:] if multi else r)])
    if not multi: blocks[0][0] = benches[0]
else:
    for l in text.splitlines():
        if l.startswith("# ibex-bench "):
            blocks.append([l.split()[2], None, []])
        elif l.strip() and not l.startswith("#"):
            if blocks[-1][1] is None: blocks[-1][1] = l.split()
            else: blocks[-1][2].append([float(x) for x in l.split()])
if [b[0] for b in blocks] != benches:
    fail("benchmarks %r, want %r" % ([b[0] for b in blocks], benches))
for b, c, rows in blocks:
    if c != cols(b): fail("%s: columns %r, want %r" % (b, c, cols(b)))
    if any(len(r) != len(c) for r in rows): fail("%s: a row without %d columns" % (b, len(c)))
    if [int(r[0]) for r in rows] != sizes(b): fail("%s: sizes %r, want %r" % (b, [int(r[0]) for r in rows], sizes(b)))
    if any(v < 0 for r in rows for v in r): fail("%s: a negative figure" % b)
    if b.startswith("i") and any(r[1] > 100 for r in rows): fail("%s: overlap above 100%%" % b)
PY
}

# bench_ok WHAT FORMAT FULL MIN MAX STEP BENCHMARK...: the last run exited 0 with that output.
bench_ok() {
    what=$1
    shift
    why=$(check_output "$@")
    if [ "$RC" -ne 0 ]; then
        fail "$what: exit $RC; stderr: $ERR"
    elif [ -n "$why" ]; then
        fail "$what: $why"
    else
        pass "$what (${MS} ms)"
    fi
    no_ranks_left "$what"
}

for b in latency bw bibw mbw_mr; do
    for fmt in table csv json; do
        run 60 -n 2 "$BENCH" "$b" -c -m 0:64k -i 20 -x 2 --format "$fmt"
        bench_ok "$b -c --format $fmt" "$fmt" 0 0 65536 2 "$b"
    done
done
# The last run above was mbw_mr --format json: the same check with python3 -m json.tool.
if [ "$(printf '%s\n' "$OUT" | python3 -m json.tool >/dev/null 2>&1; echo $?)" -ne 0 ]; then
    fail "json output is not valid for python3 -m json.tool"
fi
# --thread: the library's cost at MPI_THREAD_MULTIPLE with one thread calling
run 60 -n 2 "$BENCH" latency -c -m 0:4k -i 20 -x 2 --thread multiple
bench_ok "latency -c --thread multiple" table 0 0 4096 2 latency
# The thread area (bench_thread.c): mt_rate at MULTIPLE with 3 threads per rank, 0, 1 and 8 B, a
# positive rate on every row; call_cost at single and multiple, positive nanoseconds.
run 60 -n 2 "$BENCH" mt_rate --threads 3 -m 0:8 --step 8 -i 5 -x 1 -w 8 --format csv
rows=$(printf '%s\n' "$OUT" | awk -F, '$1 ~ /^[0-9]+$/ && $2 > 0 && NF == 3' | wc -l)
[ "$RC" -eq 0 ] && [ "$rows" -eq 3 ] && pass "mt_rate --threads 3" ||
    fail "mt_rate --threads 3: exit $RC, $rows good rows: $OUT $ERR"
for lv in single multiple; do
    run 60 -n 2 "$BENCH" call_cost -i 1000 --thread "$lv" --format csv
    rows=$(printf '%s\n' "$OUT" | awk -F, '$1 ~ /^[0-9]+$/ && $2 > 0 && $3 > 0' | wc -l)
    [ "$RC" -eq 0 ] && [ "$rows" -eq 1 ] && pass "call_cost --thread $lv" ||
        fail "call_cost --thread $lv: exit $RC: $OUT $ERR"
done
# --block: strided vectors on both sides, checked byte by byte (past the eager limit too)
for b in latency bw; do
    run 60 -n 2 "$BENCH" "$b" -c -m 0:64k -i 5 -x 1 -w 4 --block 8 --format csv
    bench_ok "$b -c --block 8" csv 0 0 65536 2 "$b"
done
for b in latency mbw_mr; do
    run 60 -n 2 "$BENCH" "$b" -f -m 0:64k -i 10 -x 1 --format csv
    bench_ok "$b -f" csv 1 0 65536 2 "$b"
done

# What this build has, by area (the rest is switched off in examples/bench/bench.am).
run 30 -n 1 "$BENCH" -l
built() { printf '%s\n' "$OUT" | awk -v a="$1" '$2 == a { print $1 }' | tr '\n' ' '; }
coll=$(built coll) nbc=$(built nbc) rma=$(built rma)
[ -n "$coll" ] && pass "ibex-bench -l: coll $coll; nbc ${nbc:-(none)}; rma ${rma:-(none)}" ||
    fail "ibex-bench -l lists no collective: $OUT $ERR"

# Every collective at 3 ranks (sizes that do not divide), validated, several in one run.
run 90 -n 3 "$BENCH" $coll -c -f -m 0:4k --step 4 -i 3 -x 1 --format csv
bench_ok "collectives -c -f at 3 ranks: $coll" csv 1 0 4096 4 $coll
if [ -n "$nbc" ]; then
    run 90 -n 3 "$BENCH" $nbc -c -m 0:1k --step 8 -i 3 -x 1 --format json
    bench_ok "non-blocking collectives -c at 3 ranks" json 0 0 1024 8 $nbc
    # OSU's -t: MPI_Test probes inside the computation, results still checked
    run 90 -n 2 "$BENCH" iallreduce ialltoall -c -t 5 -m 0:64k --step 16 -i 3 -x 1 --format csv
    bench_ok "iallreduce ialltoall -c -t 5 at 2 ranks" csv 0 0 65536 16 iallreduce ialltoall
fi
if [ -n "$rma" ]; then
    for s in flush lock fence; do
        run 90 -n 2 "$BENCH" $rma -c -s "$s" -m 0:4k --step 16 -i 3 -x 1 --format csv
        bench_ok "one-sided -c -s $s" csv 0 0 4096 16 $rma
    done
    run 90 -n 4 "$BENCH" $rma -c --win create -m 0:256 --step 16 -i 2 -x 1
    bench_ok "one-sided -c --win create at 4 ranks" table 0 0 256 16 $rma
fi
run 60 -n 2 "$BENCH" latency barrier bcast -m 0:64 --step 8 -i 3 --format json
bench_ok "several benchmarks, --format json (an array)" json 0 0 64 8 latency barrier bcast
run 60 -n 2 "$BENCH" latency barrier bcast -m 0:64 --step 8 -i 3
bench_ok "several benchmarks, table" table 0 0 64 8 latency barrier bcast

# -c catches bad data: the same sources with a shim that corrupts MPI_Recv and MPI_Allreduce.
off=
case " $coll " in *" scan "*) ;; *) off="$off -DIBEX_BENCH_VCOLL=0" ;; esac
[ -n "$nbc" ] || off="$off -DIBEX_BENCH_NBC=0"
[ -n "$rma" ] || off="$off -DIBEX_BENCH_RMA=0"
if "$B/launcher/ibexcc" $off -o "$WORK/bench_bad" "$S"/examples/bench/*.c \
    "$S/tests/examples/bench_corrupt.c" 2>"$WORK/err"; then
    for b in latency allreduce; do
        run 60 -n 2 "$WORK/bench_bad" "$b" -c -m 0:64 -i 3 -x 0
        expect "-c catches corrupted $b data" 1 "ibex-bench: $b: validation failed at size [14]:"
        run 60 -n 2 "$WORK/bench_bad" "$b" -m 0:64 -i 3 -x 0
        [ "$RC" -eq 0 ] && pass "without -c corrupted $b data goes unnoticed" ||
            fail "$b without -c: exit $RC: $ERR"
    done
else
    fail "ibexcc cannot build ibex-bench with the corrupting shim: $(cat "$WORK/err")"
fi

# Bad options and benchmarks: usage on stderr, exit 2 (as a singleton: no launcher needed).
bad() {
    TMPDIR=$WORK/tmp timeout -k 5 30 "$BENCH" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
    RC=$? ERR=$(cat "$WORK/err")
    if [ "$RC" -ne 2 ] || ! grep -q "^ibex-bench: " "$WORK/err" || ! grep -q "^usage: ibex-bench" "$WORK/err"; then
        fail "bad arguments '$*': exit $RC, stderr: $ERR"
    else
        pass "bad arguments '$*': $(head -1 "$WORK/err")"
    fi
}
mkdir -p "$WORK/tmp"
for args in "latency -m 9:2" "latency -m 4x" "bw -i 0" "bw -w" "latency --format xml" "pingpong" \
    "latency -q" "" "latency -s sometimes" "latency --win dynamic" "latency --step 3" \
    "latency -x" "latency --thread many" "iallreduce -t x" "latency --block 0"; do
    bad $args
done
for b in scan ibcast put_latency; do
    case " $coll $nbc $rma " in *" $b "*) continue ;; esac
    bad "$b"
    grep -q "^ibex-bench: $b: not built into this ibex-bench" "$WORK/err" ||
        fail "$b: not the 'not built' message: $ERR"
done
leftovers "bad arguments"
run 30 -n 3 "$BENCH" latency bw -m 0:8 -i 2
expect "bw at 3 ranks" 2 "ibex-bench: bw needs an even number of ranks \\(got 3\\)"

# The same source with Open MPI and MPICH: builds, and validates every area at 2 ranks.
for mpi in openmpi mpich; do
    command -v "mpicc.$mpi" >/dev/null || { echo "skip: mpicc.$mpi not installed"; continue; }
    if ! "mpicc.$mpi" -O1 -o "$WORK/b_$mpi" "$S"/examples/bench/*.c 2>"$WORK/err"; then
        fail "mpicc.$mpi cannot build ibex-bench: $(cat "$WORK/err")"
        continue
    fi
    pass "mpicc.$mpi builds ibex-bench"
    case $mpi in
    openmpi) launch="mpirun.openmpi --oversubscribe --bind-to none --mca osc sm,pt2pt -n 2" ;;
    mpich) launch="mpiexec.mpich -launcher fork -n 2" ;;
    esac
    t0=$(date +%s%N)
    (cd "$WORK" && TMPDIR=$WORK/tmp timeout -k 5 90 $launch "$WORK/b_$mpi" coll nbc rma -c \
        -m 0:256 --step 16 -i 2 -x 1 --format csv >"$WORK/out" 2>"$WORK/err" </dev/null)
    RC=$? MS=$(( ($(date +%s%N) - t0) / 1000000 )) ERR=$(tail -3 "$WORK/err")
    set -- $(awk -F, '$1 == "benchmark" { next } !seen[$1]++ { print $1 }' "$WORK/out")
    [ $# -eq 41 ] || fail "$mpi: $# benchmarks in the output, want 41"
    bench_ok "$mpi: coll nbc rma -c" csv 0 0 256 16 "$@"
    rm -rf "${WORK:?}/tmp/"*
done

# compare.sh: one round, two sizes, two benchmarks; then its --doc on a copy of the document.
libs=ibex
command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null && libs="$libs ompi"
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null && libs="$libs mpich"
cp "$S/docs/PERFORMANCE.md" "$WORK/doc.md"
t0=$(date +%s%N)
(cd "$WORK" && TMPDIR=$WORK/tmp top_builddir=$B top_srcdir=$S timeout -k 5 120 \
    "$S/examples/bench/compare.sh" -r 1 -b "latency allreduce" -m 8:16 -i 20 -t 60 \
    -o "$WORK/cmp" --doc "$WORK/doc.md" >"$WORK/out" 2>"$WORK/err" </dev/null)
RC=$?; MS=$(( ($(date +%s%N) - t0) / 1000000 ))
why=$(python3 - "$WORK/cmp" "$libs" "$WORK/doc.md" <<'PY'
import csv, os, shutil, sys
d, libs, doc = sys.argv[1], sys.argv[2].split(), sys.argv[3]
def fail(why):
    print(why); sys.exit(1)
for f in ("results.md", "results.csv", "raw.csv", "machine.txt"):
    if not os.path.isfile(os.path.join(d, f)): fail("no " + f)
rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
want = [("latency", "latency_us", "2", "8"), ("latency", "latency_us", "2", "16"),
        ("allreduce", "latency_us", "2", "8"), ("allreduce", "latency_us", "2", "16")]
if [(r["benchmark"], r["metric"], r["ranks"], r["size_B"]) for r in rows] != want:
    fail("results.csv rows: %r" % rows)
for l in libs:
    if any(float(r.get(l) or -1) <= 0 for r in rows): fail("results.csv: no figure for " + l)
md = [l for l in open(os.path.join(d, "results.md")) if l.startswith(("| latency |", "| allreduce |"))]
if len(md) != 2 or any(len(l.split("|")) != 8 + len(libs) for l in md):   # sizes 0 and 16^k only
    fail("results.md rows: %r" % md)
m = open(os.path.join(d, "machine.txt")).read()
if "cpu:" not in m or "kernel:" not in m or any("\n%s: " % l not in m for l in libs):
    fail("machine.txt: %r" % m)
pngs = sorted(f for f in os.listdir(d) if f.endswith(".png"))
if shutil.which("gnuplot") and pngs != ["coll_latency_us_np2.png", "pt2pt_latency_us_np2.png"]:
    fail("plots: %r" % pngs)
text = open(doc).read()
if "| allreduce | latency_us | 2 | 16 |" not in text or "perf/machine.txt" not in text:
    fail("--doc: no generated tables in the document")
perf = os.path.join(os.path.dirname(doc), "perf")
if not os.path.isfile(os.path.join(perf, "results.csv")) or (pngs and "![" not in text):
    fail("--doc: perf/ files or plot links missing")
PY
)
if [ "$RC" -ne 0 ] || [ -n "$why" ]; then
    fail "compare.sh: exit $RC $why; stderr: $(cat "$WORK/err")"
else
    pass "compare.sh -r 1 --doc ($libs, ${MS} ms)"
fi
rm -rf "$WORK/cmp" "$WORK/perf"
no_ranks_left "compare.sh"
finish
