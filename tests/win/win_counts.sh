#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per 8-byte Get + flush / Put + flush / Compare_and_swap + flush / Fetch_and_op +
# flush / Fetch_and_op REPLACE + flush (swap) / one-element Accumulate SUM + flush (acc8) over
# softib (counts, not timings: callgrind, user space, rank 0 = the origin), as
# runtime/win/README.md and transport/verbs/README.md (Counts) give them: ibex-bench
# get_latency / put_latency / cas_latency / fop_latency / swap_latency / acc8_latency (one
# MPI_UINT64_T; fop, acc8: MPI_SUM; swap: MPI_REPLACE) -m 8:8 -s flush on the network direct
# path (IBEX_WIN_DIRECT=0 ibexrun --softib), run with -i 1000 and -i 6000; the difference of the
# inclusive counts of MPI_Get / MPI_Put / MPI_Compare_and_swap / MPI_Fetch_and_op /
# MPI_Accumulate and MPI_Win_flush divided by the difference of their calls. Not part of make
# check (about a minute per benchmark under callgrind).
# Usage: tests/win/win_counts.sh PREFIX [get|put|cas|fop|swap|acc8 ...]   (PREFIX: an installed Ibex)
# WIN_COUNTS_SHM=1: the same over shared memory (the default transports and window paths).
set -u
prefix=${1:?usage: win_counts.sh PREFIX [get put cas fop swap acc8]}
shift
benches=${*:-get put}
# CG_KEEP=DIR keeps the callgrind files there (for callgrind_annotate)
if [ -n "${CG_KEEP:-}" ]; then
    out=$CG_KEEP
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT INT TERM
fi
mode=IBEX_WIN_DIRECT=0 opt=--softib
[ -n "${WIN_COUNTS_SHM:-}" ] && mode=IBEX_WIN_DIRECT=1 opt=
for b in $benches; do
    case $b in
    get) fn=MPI_Get ;;
    put) fn=MPI_Put ;;
    cas) fn=MPI_Compare_and_swap ;;
    fop | swap) fn=MPI_Fetch_and_op ;;
    acc8) fn=MPI_Accumulate ;;
    *) echo "unknown $b"; exit 2 ;;
    esac
    for it in 1000 6000; do
        rm -f "$out/cg.$b.$it".*
        env $mode "$prefix/bin/ibexrun" -n 2 $opt --timeout 600 \
            valgrind --tool=callgrind --callgrind-out-file="$out/cg.$b.$it.%p" \
            "$prefix/bin/ibex-bench" "${b}_latency" -m 8:8 -s flush -i "$it" >/dev/null 2>&1 ||
            { echo "run $b $it failed"; exit 1; }
    done
    python3 - "$out" "$b" "$fn" <<'EOF'
import glob, re, sys
out, b, fn = sys.argv[1:4]


# inclusive instructions and calls of the wanted functions, every call site summed
def parse(path, wanted):
    names = {}
    calls = {w: 0 for w in wanted}
    incl = {w: 0 for w in wanted}
    cfn = None
    pending = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("cfn="):
                m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.strip())
                if m:
                    if m.group(2):
                        names[m.group(1)] = m.group(2)
                    cfn = names.get(m.group(1))
                else:
                    cfn = line.strip()[4:]
                continue
            if line.startswith("fn="):
                m = re.match(r"fn=\((\d+)\)(?: (.*))?", line.strip())
                if m and m.group(2):
                    names[m.group(1)] = m.group(2)
                continue
            if line.startswith("calls="):
                pending = int(line.split("=")[1].split()[0])
                continue
            if pending is not None:
                parts = line.split()
                if cfn in calls and len(parts) >= 2:
                    calls[cfn] += pending
                    incl[cfn] += int(parts[1])
                pending = None
    return calls, incl


names = [fn, "P" + fn, "MPI_Win_flush", "PMPI_Win_flush"]
res = {}
for it in ("1000", "6000"):
    for f in glob.glob(f"{out}/cg.{b}.{it}.*"):
        calls, incl = parse(f, names)
        op = max(calls[fn], calls["P" + fn])
        if op == 0:
            continue  # the target
        fl = max(calls["MPI_Win_flush"], calls["PMPI_Win_flush"])
        res[it] = (op, max(incl[fn], incl["P" + fn]), fl,
                   max(incl["MPI_Win_flush"], incl["PMPI_Win_flush"]))
a, z = res["1000"], res["6000"]
n = z[0] - a[0]
opc = (z[1] - a[1]) / n
flc = (z[3] - a[3]) / (z[2] - a[2])
print(f"{fn} + flush: {opc + flc:,.0f} per operation ({fn} {opc:,.0f}, flush {flc:,.0f}; "
      f"{n} operations between the runs)")
EOF
done
