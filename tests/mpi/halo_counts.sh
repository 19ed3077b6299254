#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per message of `ibex-bench latency -m S:S [--block B]` over shared memory, 2 ranks,
# both ranks under callgrind (counts, not timings), as runtime/engine/README.md ("The strided
# halo in instructions") gives them: the difference between -i 120 and -i 20 of the inclusive
# counts of ibex_dt_pack + ibex_dt_unpack (the datatype's share, whatever the protocol), of the
# PIPE sender's ibex_proto_pipe_stream + the receiver's ibex_proto_pipe_on_frag (pack, ring
# copy, unpack), divided by the messages between the runs (MPI_Send + MPI_Recv as a whole is not
# given: the receive's spin moves with how valgrind paces the two ranks). A contiguous message
# takes SPLIT from 32 KiB (the copy in the kernel): IBEX_RNDV_PIPE_CONTIG_MAX=256k forces PIPE.
# rep movsb is counted as its vector loop (GLIBC_TUNABLES below), not one instruction per byte.
# Not part of make check (about 20 s a case).
# Usage: tests/mpi/halo_counts.sh PREFIX [SIZE:BLOCK ...]   (BLOCK 0: contiguous; default: 64k:0
# 64k:8 64k:64). CG_KEEP=DIR keeps the callgrind files there; extra environment passes through.
set -u
prefix=${1:?usage: halo_counts.sh PREFIX [SIZE:BLOCK ...]}
shift
cases=${*:-64k:0 64k:8 64k:64}
if [ -n "${CG_KEEP:-}" ]; then
    out=$CG_KEEP
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT INT TERM
fi
export GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=4294967295
for c in $cases; do
    s=${c%%:*} b=${c#*:}
    blk=
    [ "$b" != 0 ] && blk="--block $b"
    for it in 20 120; do
        rm -f "$out/cg.$s.$b.$it".*
        "$prefix/bin/ibexrun" -n 2 --timeout 300 \
            valgrind --tool=callgrind --callgrind-out-file="$out/cg.$s.$b.$it.%p" \
            "$prefix/bin/ibex-bench" latency -m "$s:$s" $blk -i "$it" >/dev/null 2>&1 ||
            { echo "run $c $it failed"; exit 1; }
    done
    python3 - "$out" "$s" "$b" <<'PY'
import glob, re, sys
out, s, b = sys.argv[1:4]
groups = {"dt": ["ibex_dt_pack", "ibex_dt_unpack"],
          "pipe": ["ibex_proto_pipe_stream", "ibex_proto_pipe_on_frag"]}
wanted = {f for g in groups.values() for f in g} | {"PMPI_Send"}


def parse(path):
    names, calls, incl = {}, dict.fromkeys(wanted, 0), dict.fromkeys(wanted, 0)
    cfn = pending = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("cfn="):
                m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.strip())
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                cfn = names.get(m.group(1))
            elif line.startswith("fn="):
                m = re.match(r"fn=\((\d+)\)(?: (.*))?", line.strip())
                if m and m.group(2):
                    names[m.group(1)] = m.group(2)
            elif line.startswith("calls="):
                pending = int(line.split("=")[1].split()[0])
            elif pending is not None:
                parts = line.split()
                if cfn in wanted and len(parts) >= 2:
                    calls[cfn] += pending
                    incl[cfn] += int(parts[1])
                pending = None
    return calls, incl


tot = {}
for it in ("20", "120"):
    t = {k: 0 for k in list(groups) + ["sends"]}
    for f in glob.glob(f"{out}/cg.{s}.{b}.{it}.*"):
        calls, incl = parse(f)
        for g, fns in groups.items():
            t[g] += sum(incl[x] for x in fns)
        t["sends"] += calls["PMPI_Send"]
    tot[it] = t
n = tot["120"]["sends"] - tot["20"]["sends"]
per = {g: (tot["120"][g] - tot["20"][g]) / n for g in groups}
what = "contiguous" if b == "0" else f"{b}-byte blocks"
print(f"{s} {what}: dt pack+unpack {per['dt']:,.0f}, PIPE stream+on_frag {per['pipe']:,.0f} "
      f"per message ({n} messages between the runs)")
PY
done
