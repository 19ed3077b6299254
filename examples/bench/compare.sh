#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ibex-bench side by side: Ibex, Open MPI and MPICH (Debian's mpicc.openmpi / mpicc.mpich; a
# missing one is skipped with a note) run interleaved (ibex ompi mpich ibex ompi mpich ...) for
# ROUNDS rounds, then per benchmark, rank count and size the median of each library and Ibex's
# ratio to the best peer. Small-message latency on these VMs jumps between two modes about 3x
# apart within seconds, so single runs mean nothing: read medians of several rounds.
# Usage (from the build directory, or with top_builddir set):
#   examples/bench/compare.sh [-r ROUNDS] [-b "latency bw ..."] [-m MIN:MAX] [-i ITERS]
#                             [--np "2 4 8"] [--softib] [-t SECONDS] [-o DIR]
# Writes into DIR (default: a new ibex-bench-compare.XXXXXX in the current directory):
#   results.md   Markdown table, results.csv the same as CSV, raw.csv every run's figures,
#   machine.txt  CPU, cores, kernel, library versions, the command line,
#   latency.png / bandwidth.png when gnuplot is installed.
# ratio = Ibex's median / the best peer's median: for latency (us) below 1 means Ibex is faster,
# for bandwidth (MB/s) above 1 means Ibex is faster.
set -u
usage() {
    sed -n 's/^#   \{0,1\}//p' "$0" | sed -n '/^examples/,/^ratio/p' >&2
    exit 2
}
rounds=7 benches="latency bw" sizes=0:1m iters= nps=2 softib= limit=300 out=
while [ $# -gt 0 ]; do
    case "$1" in
    -r) rounds=${2:-}; shift ;;
    -b) benches=${2:-}; shift ;;
    -m) sizes=${2:-}; shift ;;
    -i) iters=${2:-}; shift ;;
    --np) nps=${2:-}; shift ;;
    --softib) softib=--softib ;;
    -t) limit=${2:-}; shift ;;
    -o) out=${2:-}; shift ;;
    -h | --help) usage ;;
    *) echo "compare.sh: unknown option '$1'" >&2; usage ;;
    esac
    shift
done
case "$rounds" in '' | *[!0-9]* | 0) echo "compare.sh: -r wants a count >= 1" >&2; exit 2 ;; esac
case "$limit" in '' | *[!0-9]* | 0) echo "compare.sh: -t wants seconds >= 1" >&2; exit 2 ;; esac
for np in $nps; do
    case "$np" in '' | *[!0-9]* | 0 | 1) echo "compare.sh: --np wants rank counts >= 2" >&2; exit 2 ;; esac
done
for b in $benches; do
    case "$b" in latency | bw | bibw | mbw_mr) ;;
    *) echo "compare.sh: unknown benchmark '$b' (latency bw bibw mbw_mr)" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$(pwd)}
[ -x "$top_builddir/launcher/ibexrun" ] || top_builddir=$top_srcdir
IBEXRUN=$top_builddir/launcher/ibexrun
IBEXBENCH=$top_builddir/examples/bench/ibex-bench
if [ ! -x "$IBEXRUN" ] || [ ! -x "$IBEXBENCH" ]; then
    echo "compare.sh: no built Ibex (launcher/ibexrun, examples/bench/ibex-bench) in $top_builddir; run make, or set top_builddir" >&2
    exit 2
fi
if [ -z "$out" ]; then
    out=$(mktemp -d "$(pwd)/ibex-bench-compare.XXXXXX") || exit 1
else
    mkdir -p "$out" || exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
src=$top_srcdir/examples/bench/ibex_bench.c
cores=$(nproc)

libs=ibex
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
    mpicc.openmpi -O2 -o "$tmp/b_ompi" "$src" && libs="$libs ompi"
else
    echo "compare.sh: note: Open MPI (mpicc.openmpi) not installed, skipped" >&2
fi
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
    mpicc.mpich -O2 -o "$tmp/b_mpich" "$src" 2>/dev/null && libs="$libs mpich"
else
    echo "compare.sh: note: MPICH (mpicc.mpich) not installed, skipped" >&2
fi

# run LIB NP ARGS...: one ibex-bench run; Open MPI and MPICH bind a rank per core while the
# ranks fit, none past that (Open MPI then needs --oversubscribe); ibexrun decides itself.
run() {
    lib=$1 np=$2
    shift 2
    case "$lib" in
    ibex) timeout -k 5 "$limit" "$IBEXRUN" -n "$np" $softib "$IBEXBENCH" "$@" ;;
    ompi)
        if [ "$np" -le "$cores" ]; then bind="--bind-to core"; else bind="--oversubscribe --bind-to none"; fi
        timeout -k 5 "$limit" mpirun.openmpi -n "$np" $bind "$tmp/b_ompi" "$@" ;;
    mpich)
        if [ "$np" -le "$cores" ]; then bind="-bind-to core"; else bind=""; fi
        timeout -k 5 "$limit" mpiexec.mpich -launcher fork -n "$np" $bind "$tmp/b_mpich" "$@" ;;
    esac </dev/null
}

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "command: $0 -r $rounds -b \"$benches\" -m $sizes ${iters:+-i $iters }--np \"$nps\" $softib"
    echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "cores: $cores"
    echo "kernel: $(uname -srm)"
    [ -n "$softib" ] && echo "ibex transport: verbs over softib (ibexrun --softib)"
    for lib in $libs; do
        v=$(run "$lib" 2 latency -m 0:0 -i 1 -x 0 2>/dev/null | sed -n 's/^# ibex-bench latency (\(.*\))$/\1/p')
        echo "$lib: ${v:-unknown (the version run failed)}"
    done
} >"$out/machine.txt"

echo "lib,np,benchmark,round,size_B,value" >"$out/raw.csv"
failed=0
for r in $(seq "$rounds"); do
    for np in $nps; do
        for b in $benches; do
            for lib in $libs; do
                [ -t 2 ] && printf '\r\033[Kround %s/%s: %s %s at %s ranks' "$r" "$rounds" "$lib" "$b" "$np" >&2
                if run "$lib" "$np" "$b" --format csv -m "$sizes" ${iters:+-i "$iters"} >"$tmp/one" 2>"$tmp/err"; then
                    sed 1d "$tmp/one" | awk -F, -v p="$lib,$np,$b,$r" '{ print p "," $1 "," $2 }' >>"$out/raw.csv"
                else
                    [ -t 2 ] && printf '\r\033[K' >&2
                    echo "compare.sh: $lib $b at $np ranks, round $r failed: $(tail -2 "$tmp/err" | tr '\n' ' ')" >&2
                    failed=$((failed + 1))
                fi
            done
        done
    done
done
[ -t 2 ] && printf '\r\033[K' >&2

# Medians per (benchmark, np, size, lib), then one row per (benchmark, np, size).
sort -t, -k3,3 -k2,2n -k5,5n -k1,1 -k6,6g "$out/raw.csv" | awk -F, -v libs="$libs" -v md="$out/results.md" -v csv="$out/results.csv" '
    NR == 1 { next }
    {
        k = $3 "," $2 "," $5; v[k, $1, ++n[k, $1]] = $6
        if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
    }
    function median(k, l,   c) {
        c = n[k, l]
        if (c == 0) return ""
        return (c % 2) ? v[k, l, (c + 1) / 2] : (v[k, l, c / 2] + v[k, l, c / 2 + 1]) / 2
    }
    END {
        nl = split(libs, L, " ")
        hdr = "benchmark,ranks,size_B,unit"; mh = "| benchmark | ranks | size (B) | unit |"; ms = "|---|---|---|---|"
        for (i = 1; i <= nl; i++) { hdr = hdr "," L[i]; mh = mh " " L[i] " |"; ms = ms "---|" }
        hdr = hdr ",ibex_to_best_peer"; mh = mh " Ibex / best peer |"; ms = ms "---|"
        print hdr > csv; print mh > md; print ms > md
        for (j = 1; j <= nk; j++) {
            k = order[j]; split(k, f, ",")
            lat = f[1] == "latency"; unit = lat ? "us" : "MB/s"
            line = k "," unit; mline = "| " f[1] " | " f[2] " | " f[3] " | " unit " |"
            best = ""
            for (i = 1; i <= nl; i++) {
                m = median(k, L[i])
                line = line "," m; mline = mline " " m " |"
                if (L[i] != "ibex" && m != "" && (best == "" || (lat ? m < best : m > best))) best = m
            }
            ib = median(k, "ibex")
            ratio = (ib != "" && best != "" && best > 0) ? sprintf("%.2f", ib / best) : ""
            print line "," ratio > csv; print mline " " ratio " |" > md
        }
    }'
{
    echo
    echo "Medians of $rounds interleaved rounds; $(sed -n 's/^cpu: //p' "$out/machine.txt"), $cores cores."
    echo "Ibex / best peer: for latency below 1 is faster, for bandwidth above 1 is faster."
    [ -n "$softib" ] && echo "Ibex ran over verbs on softib (ibexrun --softib); Open MPI and MPICH over their shared memory."
} >>"$out/results.md"

# Plots, only when gnuplot is installed: one line per library, log scales.
if command -v gnuplot >/dev/null; then
    for kind in latency bandwidth; do
        case $kind in
        latency) sel='$3 == "latency"'; ylabel="one-way latency (us)" ;;
        bandwidth) sel='$3 != "latency"'; ylabel="bandwidth (MB/s)" ;;
        esac
        plot=
        for b in $benches; do
            [ "$kind" = latency ] && [ "$b" != latency ] && continue
            [ "$kind" = bandwidth ] && [ "$b" = latency ] && continue
            for np in $nps; do
                for lib in $libs; do
                    f=$tmp/plot_${b}_${np}_$lib
                    awk -F, -v b="$b" -v np="$np" -v l="$lib" -v u="$(echo "$libs" | tr ' ' ',')" \
                        'NR > 1 && $1 == b && $2 == np && $3 > 0 { split(u, L, ","); for (i = 1; i <= length(L); i++) if (L[i] == l) print $3, $(4 + i) }' \
                        "$out/results.csv" | awk '$2 != "" && $2 > 0' >"$f"
                    [ -s "$f" ] && plot="$plot${plot:+, }'$f' using 1:2 with linespoints title '$lib $b np=$np'"
                done
            done
        done
        [ -n "$plot" ] && gnuplot <<GP
set terminal pngcairo size 900,600 noenhanced
set output '$out/$kind.png'
set logscale xy
set xlabel 'message size (bytes)'
set ylabel '$ylabel'
set key top left
set grid
plot $plot
GP
    done
else
    echo "compare.sh: gnuplot is not installed: no plots (apt-get install gnuplot-nox)" >&2
fi

cat "$out/results.md"
echo "compare.sh: results in $out (results.md, results.csv, raw.csv, machine.txt)" >&2
[ "$failed" -eq 0 ]
