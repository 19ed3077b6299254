#!/bin/sh
# Side-by-side point-to-point speed: examples/pingpong.c built with Ibex, Open MPI and MPICH,
# run interleaved (ibex, ompi, mpich, ibex, ...) ROUNDS times on 2 ranks, then the median of
# each figure per implementation. Small-message latency on these VMs jumps between two modes
# about 3x apart within seconds, so single runs mean nothing.
# Usage: examples/bench_compare.sh [ROUNDS] [SIZES...]   (from the build directory)
set -u
ROUNDS=${1:-7}
[ $# -gt 0 ] && shift
SIZES=${*:-8 4k 64k 1m}
top_builddir=${top_builddir:-$(pwd)}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
src="$top_srcdir/examples/pingpong.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
have_ompi=0
have_mpich=0
command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$tmp/pp_ompi" "$src" && have_ompi=1
command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$tmp/pp_mpich" "$src" && have_mpich=1

run_ibex() {
    "$top_builddir/launcher/ibexrun" -n 2 "$top_builddir/examples/pingpong" $SIZES
}
run_ompi() {
    mpirun.openmpi --allow-run-as-root -n 2 --bind-to core "$tmp/pp_ompi" $SIZES
}
run_mpich() {
    mpiexec.mpich -launcher fork -n 2 -bind-to core "$tmp/pp_mpich" $SIZES
}

for r in $(seq "$ROUNDS"); do
    run_ibex 2>/dev/null | sed 's/^/ibex /' >>"$tmp/all"
    [ $have_ompi = 1 ] && run_ompi 2>/dev/null | sed 's/^/ompi /' >>"$tmp/all"
    [ $have_mpich = 1 ] && run_mpich 2>/dev/null | sed 's/^/mpich /' >>"$tmp/all"
done

# median per (implementation, metric, size)
sort -k1,1 -k2,2 -k3,3n -k4,4g "$tmp/all" | awk '
    { key = $1 " " $2 " " $3; v[key, ++n[key]] = $4; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    END {
        printf "%-6s %-4s %10s %12s   (median of %s interleaved runs; lat in us, bw in MB/s)\n", "mpi", "what", "bytes", "median", n[order[1]]
        for (i = 1; i <= k; i++) {
            key = order[i]; c = n[key]
            m = (c % 2) ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2
            split(key, f, " ")
            printf "%-6s %-4s %10s %12.3f\n", f[1], f[2], f[3], m
        }
    }'
