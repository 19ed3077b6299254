#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Side-by-side speed of examples/pollring (polling when ranks outnumber cores, issue #19) built
# with Ibex, Open MPI and MPICH, run interleaved (ibex, ompi, mpich, ibex, ...) ROUNDS times at
# each rank count, then the median of each figure per implementation. Small-message latency on
# these VMs jumps between two modes about 3x apart within seconds, so single runs mean nothing.
# The micro-benchmarks (ibex-bench) have their own, fuller command: examples/bench/compare.sh.
# Usage (from the build directory):
#   [BENCH=pollring] [NPROCS="2 4 8"] examples/bench_compare.sh [ROUNDS] [MODES...]
#   MODES: testall test iprobe waitall (default all four); POLL_STEPS: steps per batch (1000)
#   IBEX_BASELINE=DIR: also run pollring from another Ibex build directory (as "ibex-base"),
#   e.g. the last release, to show a change is within noise
# Each program prints lines "METRIC KEY VALUE"; the table has one median per
# (implementation, metric, key, ranks).
set -u
ROUNDS=${1:-7}
[ $# -gt 0 ] && shift
BENCH=${BENCH:-pollring}
case "$BENCH" in
pollring) ARGS="-i ${POLL_STEPS:-1000} ${*:-testall test iprobe waitall}"; NPROCS=${NPROCS:-2 4 8} ;;
pingpong) echo "bench_compare.sh: pingpong is retired: examples/bench/compare.sh -b \"latency bw\" runs ibex-bench" >&2; exit 2 ;;
*) echo "bench_compare.sh: unknown BENCH '$BENCH' (pollring; for ibex-bench see examples/bench/compare.sh)" >&2; exit 2 ;;
esac
top_builddir=${top_builddir:-$(pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
src="$top_srcdir/examples/$BENCH.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
have_ompi=0
have_mpich=0
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$tmp/b_ompi" "$src" && have_ompi=1
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$tmp/b_mpich" "$src" && have_mpich=1
cores=$(nproc)

# Every implementation binds one rank per core while ranks fit, and none when they do not.
run_ibex() {
    "$top_builddir/launcher/ibexrun" -n "$1" "$top_builddir/examples/$BENCH" $ARGS
}
run_base() {
    "$IBEX_BASELINE/launcher/ibexrun" -n "$1" "$IBEX_BASELINE/examples/$BENCH" $ARGS
}
run_ompi() {
    bind="--bind-to core"
    [ "$1" -gt "$cores" ] && bind="--oversubscribe --bind-to none"
    mpirun.openmpi -n "$1" $bind "$tmp/b_ompi" $ARGS
}
# MPICH busy-polls: with more ranks than cores a ring step takes milliseconds, so pollring runs
# it for a tenth of the steps (the figure is a time per step either way).
run_mpich() {
    bind="-bind-to core"
    args=$ARGS
    if [ "$1" -gt "$cores" ]; then
        bind=""
        [ "$BENCH" = pollring ] && args=$(echo "$ARGS" | sed "s/^-i [0-9]*/-i $((${POLL_STEPS:-1000} / 10 + 1))/")
    fi
    timeout 300 mpiexec.mpich -launcher fork -n "$1" $bind "$tmp/b_mpich" $args
}

for r in $(seq "$ROUNDS"); do
    for np in $NPROCS; do
        run_ibex "$np" 2>/dev/null | sed "s/^/ibex $np /" >>"$tmp/all"
        [ -n "${IBEX_BASELINE:-}" ] && run_base "$np" 2>/dev/null | sed "s/^/ibex-base $np /" >>"$tmp/all"
        [ $have_ompi = 1 ] && run_ompi "$np" 2>/dev/null | sed "s/^/ompi $np /" >>"$tmp/all"
        [ $have_mpich = 1 ] && run_mpich "$np" 2>/dev/null | sed "s/^/mpich $np /" >>"$tmp/all"
    done
done

# median per (implementation, ranks, metric, key)
sort -k1,1 -k3,3 -k2,2n -k4,4n -k5,5g "$tmp/all" | awk '
    { key = $1 " " $2 " " $3 " " $4; v[key, ++n[key]] = $5; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    END {
        printf "%-9s %5s %-8s %10s %12s   (median of %s interleaved runs; times in us, bw in MB/s)\n", "mpi", "ranks", "what", "key", "median", n[order[1]]
        for (i = 1; i <= k; i++) {
            key = order[i]; c = n[key]
            m = (c % 2) ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2
            split(key, f, " ")
            printf "%-9s %5s %-8s %10s %12.3f\n", f[1], f[2], f[3], f[4], m
        }
    }'
