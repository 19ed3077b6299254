#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Collective timings of examples/collbench with Ibex, Open MPI and MPICH (Debian's, if
# installed), interleaved ROUNDS times at each rank count, then the median over rounds of each
# run's median per (implementation, ranks, collective, bytes) and Ibex's ratio to the best peer
# and to Open MPI. Each run prints "op ranks bytes median_us min_us".
# Usage (from the build directory): examples/collbench_compare.sh [ROUNDS] [collbench args]
#   NPROCS="2 4 8" (default); MPICH only where ranks fit the cores unless MPICH_OVERSUB=1
#   (it busy-polls). Also prints Ibex's 8-byte one-way latency (examples/pingpong)
#   measured in the same rounds, the reference of the 2-rank allreduce target.
set -u
ROUNDS=${1:-5}
[ $# -gt 0 ] && shift
ARGS=${*:--r 5 allreduce bcast reduce barrier -- 8 64k 1m}
NPROCS=${NPROCS:-2 4 8}
top_builddir=${top_builddir:-$(pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
src="$top_srcdir/examples/collbench.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
have_ompi=0
have_mpich=0
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$tmp/b_ompi" "$src" && have_ompi=1
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$tmp/b_mpich" "$src" && have_mpich=1
cores=$(nproc)

run_ompi() {
    bind="--bind-to core"
    [ "$1" -gt "$cores" ] && bind="--oversubscribe --bind-to none"
    timeout 600 mpirun.openmpi -n "$1" $bind "$tmp/b_ompi" $ARGS
}
run_mpich() {
    bind="-bind-to core"
    [ "$1" -gt "$cores" ] && bind=""
    timeout 600 mpiexec.mpich -launcher fork -n "$1" $bind "$tmp/b_mpich" $ARGS
}

for r in $(seq "$ROUNDS"); do
    "$top_builddir/launcher/ibexrun" -n 2 "$top_builddir/examples/pingpong" -i 5000 8 2>/dev/null |
        awk '$1 ~ /lat/ || /^8 / { print "ibex 2 pingpong 8", $NF }' | head -1 >>"$tmp/lat"
    for np in $NPROCS; do
        timeout 600 "$top_builddir/launcher/ibexrun" -n "$np" "$top_builddir/examples/collbench" $ARGS \
            2>/dev/null | sed "s/^/ibex /" >>"$tmp/all"
        [ $have_ompi = 1 ] && run_ompi "$np" 2>/dev/null | sed "s/^/ompi /" >>"$tmp/all"
        # MPICH busy-polls: with more ranks than cores a collective takes milliseconds, and a
        # run tens of minutes, so it runs there only with MPICH_OVERSUB=1
        [ $have_mpich = 1 ] && { [ "$np" -le "$cores" ] || [ "${MPICH_OVERSUB:-0}" = 1 ]; } &&
            run_mpich "$np" 2>/dev/null | sed "s/^/mpich /" >>"$tmp/all"
    done
done
[ -s "$tmp/lat" ] && cat "$tmp/lat" | sort -k5,5g | awk '{ v[++n] = $5 } END { print "ibex 8-byte one-way latency, median of", n, "rounds:", v[int((n + 1) / 2)], "us" }'
# lines: impl op ranks bytes median min
sort -k2,2 -k3,3n -k4,4n -k5,5g "$tmp/all" | awk '
    { key = $2 " " $3 " " $4; impl = $1; c = ++n[impl, key]; v[impl, key, c] = $5
      if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    function med(impl, key,   c) { c = n[impl, key]; return c ? v[impl, key, int((c + 1) / 2)] : 0 }
    END {
        printf "%-10s %5s %8s %10s %10s %10s %8s %8s\n", "op", "ranks", "bytes", "ibex", "ompi", "mpich", "/best", "/ompi"
        for (i = 1; i <= k; i++) {
            split(order[i], f, " "); key = order[i]
            a = med("ibex", key); o = med("ompi", key); m = med("mpich", key)
            best = o; if (m > 0 && (best == 0 || m < best)) best = m
            printf "%-10s %5s %8s %10.3f %10.3f %10.3f %8.2f %8.2f\n", f[1], f[2], f[3], a, o, m, best ? a / best : 0, o ? a / o : 0
        }
    }'
