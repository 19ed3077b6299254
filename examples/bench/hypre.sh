#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A real application side by side: hypre's algebraic-multigrid driver `ij` (AMG-preconditioned
# CG on a 3D Laplacian) built against Ibex, Open MPI and MPICH from the same hypre source, run
# interleaved (ibex ompi mpich ibex ...) for ROUNDS rounds; prints per library the median setup
# and solve wall-clock times of hypre's own timers. hypre's setup polls MPI_Testall / Iprobe in
# its data exchange and the solve does a small Allreduce per CG step plus halo exchanges, so at
# more ranks than cores this is the polling-loop case of docs/PERFORMANCE.md on a real code.
# Usage (from the build directory, or with top_builddir set):
#   examples/bench/hypre.sh [-r ROUNDS] [--np N] [-g GRID] [-s SRC] [-d DIR] [-t SECONDS]
#   -r    rounds (default 7)
#   --np  ranks (default 4)
#   -g    points per dimension of the whole grid (default 40: 64,000 unknowns)
#   -s    an unpacked hypre source tree (its src/ directory); default: DIR/hypre-*/src, fetched
#         with `apt-get source --download-only hypre` into DIR when missing (needs a deb-src
#         line for Debian's main archive in the apt sources, then `apt-get update`)
#   -d    work directory for the three builds (default ./hypre-compare); reused by later runs
#   -t    time limit per run in seconds (default 300)
set -u
usage() {
    sed -n 's/^#   \{0,1\}//p' "$0" | sed -n '/^examples/,/default 300/p' >&2
    exit 2
}
rounds=7 np=4 grid=40 src= dir=./hypre-compare limit=300
while [ $# -gt 0 ]; do
    case "$1" in
    -r) rounds=${2:-}; shift ;;
    --np) np=${2:-}; shift ;;
    -g) grid=${2:-}; shift ;;
    -s) src=${2:-}; shift ;;
    -d) dir=${2:-}; shift ;;
    -t) limit=${2:-}; shift ;;
    -h | --help) usage ;;
    *) echo "hypre.sh: unknown option '$1'" >&2; usage ;;
    esac
    shift
done
for v in "$rounds" "$np" "$grid" "$limit"; do
    case "$v" in '' | *[!0-9]*) echo "hypre.sh: '$v' is not a positive integer" >&2; exit 2 ;; esac
done
top=$(cd "${top_builddir:-.}" && pwd)
[ -x "$top/launcher/ibexcc" ] || { echo "hypre.sh: no launcher/ibexcc under $top (build Ibex first)" >&2; exit 2; }
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 2

fetch_source() {
    [ -n "$src" ] && return 0
    src=$(ls -d "$dir"/hypre-*/src 2>/dev/null | head -n 1)
    [ -n "$src" ] && return 0
    (cd "$dir" && apt-get source --download-only hypre >/dev/null 2>&1) || {
        echo "hypre.sh: apt-get source hypre failed: add 'deb-src' to the Types of Debian's main" \
             "archive in /etc/apt/sources.list.d/debian.sources, run apt-get update, or pass -s" >&2
        exit 2
    }
    tar xzf "$dir"/hypre_*.orig.tar.gz -C "$dir" || exit 2
    src=$(ls -d "$dir"/hypre-*/src | head -n 1)
}

# build NAME CC CXX: a copy of the source per library, configured with that compiler wrapper
build() {
    b="$dir/build-$1"
    [ -x "$b/src/test/ij" ] && return 0
    rm -rf "$b" && cp -r "$(dirname "$src")" "$b" || return 1
    echo "hypre.sh: building hypre with $2 (a few minutes)" >&2
    (cd "$b/src" && ./configure CC="$2" CXX="$3" --disable-fortran && make -j2 &&
        cd test && make ij) >"$b/build.log" 2>&1 ||
        { echo "hypre.sh: the $1 build failed, see $b/build.log" >&2; return 1; }
}

fetch_source
libs=
build ibex "$top/launcher/ibexcc" "$top/launcher/ibexcxx" && libs="$libs ibex"
command -v mpicc.openmpi >/dev/null && build ompi mpicc.openmpi mpicxx.openmpi && libs="$libs ompi"
command -v mpicc.mpich >/dev/null && build mpich mpicc.mpich mpicxx.mpich && libs="$libs mpich"

launch() {
    case "$1" in
    ibex) echo "$top/launcher/ibexrun -n $np" ;;
    ompi) echo "mpirun.openmpi --allow-run-as-root --oversubscribe -n $np" ;;
    mpich) echo "mpiexec.mpich -launcher fork -n $np" ;;
    esac
}

# the 4th and 5th "wall clock time" lines of ij are the setup and solve phases
raw="$dir/raw.txt"
: >"$raw"
r=1
while [ "$r" -le "$rounds" ]; do
    for l in $libs; do
        # shellcheck disable=SC2046
        t=$(cd "$dir" && timeout "$limit" $(launch "$l") "$dir/build-$l/src/test/ij" \
            -n "$grid" "$grid" "$grid" -solver 1 2>&1 | awk '/wall clock time/ {n++; if (n == 4 || n == 5) printf "%s ", $5}')
        set -- $t
        if [ $# -eq 2 ]; then echo "$l $1 $2" >>"$raw"; else echo "hypre.sh: $l round $r failed" >&2; fi
    done
    r=$((r + 1))
done

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print "-"}'; }
echo "hypre ij, AMG-PCG, ${grid}^3 grid, $np ranks on $(nproc) cores, $rounds interleaved rounds (median seconds)"
printf '%-6s %10s %10s %6s\n' library setup solve runs
for l in $libs; do
    printf '%-6s %10s %10s %6s\n' "$l" "$(awk -v l="$l" '$1 == l {print $2}' "$raw" | median)" \
        "$(awk -v l="$l" '$1 == l {print $3}' "$raw" | median)" "$(grep -c "^$l " "$raw")"
done
