#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ibex-bench side by side: Ibex, Open MPI and MPICH (Debian's mpicc.openmpi / mpicc.mpich; a
# missing one is skipped with a note) run interleaved (ibex ompi mpich ibex ompi mpich ...) for
# ROUNDS rounds, then per benchmark, metric, rank count and size the median of each library and
# Ibex's ratio to the best peer. Small-message latency on these VMs jumps between two modes about
# 3x apart within seconds, so single runs mean nothing: read medians of several rounds.
# Usage (from the build directory, or with top_builddir set):
#   examples/bench/compare.sh [-r ROUNDS] [-b "BENCHMARKS"] [-m MIN:MAX] [--step F] [-i ITERS]
#                             [--np "2 4 8"] [-s "flush fence lock"] [--win allocate|create]
#                             [--softib] [--async] [--probes N] [--block B] [--baseline DIR] [--quick | --full] [-t SECONDS]
#                             [--budget SECONDS] [-o DIR] [--doc FILE]
#   -b      benchmark names or areas (pt2pt coll nbc rma all; default "latency bw")
#   -s      the one-sided synchronisations to run (each a separate run; default flush)
#   --softib  also Ibex over verbs on softib (ibexrun --softib), as the column ibex-softib
#   --async   also Ibex with its asynchronous progress thread (IBEX_ASYNC_PROGRESS=1), as the
#             column ibex-async (the thread refuses to start once the ranks outnumber the cores,
#             so past 2 ranks here the column is plain Ibex): for the non-blocking overlap
#   --probes  the non-blocking collectives call MPI_Test N times during their computation
#             (ibex-bench -t, OSU's -t; default none, as OSU)
#   --block   point-to-point messages of every library as the strided halo of ibex-bench --block B
#             (MPI_Type_vector(size/B, B, 2B) of MPI_BYTE on both sides); run once without it for
#             the contiguous time of the same bytes
#   --baseline  also another Ibex build directory (e.g. the last release), as the column
#             ibex-base: shows whether a change moved the figures beyond the noise
#   --quick   a bounded smoke run: 1 round, all areas, sizes 0:4k by 16, 5 iterations
#   --full    what docs/PERFORMANCE.md shows: 3 rounds, all areas, 2 4 8 ranks, flush and fence,
#             --softib, sizes by 4 (0:1m point-to-point, 0:64k the rest; the non-blocking
#             collectives by 16), 20 iterations, --budget 900 (at most 15 minutes)
#   --budget  start no further round once the next one would end past SECONDS from the start
#             (a round takes about as long as the first one did; --full: 900); at least 1 round
#   --doc     write the tables and plots into FILE (between its BEGIN / END GENERATED marks;
#             plots into perf/ beside it)
#   Writes into DIR (default: a new ibex-bench-compare.XXXXXX in the current directory):
#   results.md   Markdown tables, results.csv the same as CSV, raw.csv every run's figures,
#   machine.txt  CPU, cores, kernel, library versions, the command line, runs.log each run's
#                seconds and arguments,
#   *.png        plots per area and rank count (when gnuplot is installed).
#   One-sided runs carry their floors, interleaved in the same rounds: the column floor
#   (ibex-bench floor_memcpy_bw, floor_cma_bw, floor_ping: memcpy into a shared window,
#   process_vm_writev, a cache-line ping; no MPI while timed), and with --softib the column
#   raw-verbs at 2 ranks: perftest's ib_write_lat / ib_read_lat on the same softib (average) in
#   the rows put_latency.flush / get_latency.flush (when perftest is installed); the column
#   ibex-softib runs windows on the network direct path there (IBEX_WIN_DIRECT=0).
#   ratio = Ibex's median / the best peer's median: for times (us) below 1 means Ibex is faster,
#   for bandwidth, rate and overlap above 1 means Ibex is better.
set -u
usage() {
    sed -n 's/^#   \{0,1\}//p' "$0" | sed -n '/^examples/,/is better/p' >&2
    exit 2
}
budget= base= rounds= benches= sizes= step= iters= nps= syncs= win=allocate softib= async= probes= block= limit=300 out= doc= preset=
while [ $# -gt 0 ]; do
    case "$1" in
    -r) rounds=${2:-}; shift ;;
    -b) benches=${2:-}; shift ;;
    -m) sizes=${2:-}; shift ;;
    --step) step=${2:-}; shift ;;
    -i) iters=${2:-}; shift ;;
    --np) nps=${2:-}; shift ;;
    -s) syncs=${2:-}; shift ;;
    --win) win=${2:-}; shift ;;
    --softib) softib=1 ;;
    --async) async=1 ;;
    --probes) probes=${2:-}; shift ;;
    --block) block=${2:-}; shift ;;
    --baseline) base=${2:-}; shift ;;
    --quick) preset=quick ;;
    --full) preset=full ;;
    -t) limit=${2:-}; shift ;;
    -o) out=${2:-}; shift ;;
    --doc) doc=${2:-}; shift ;;
    --budget) budget=${2:-}; shift ;;
    -h | --help) usage ;;
    *) echo "compare.sh: unknown option '$1'" >&2; usage ;;
    esac
    shift
done
# The presets fill only what the command line left empty.
case "$preset" in
quick) : "${rounds:=1}" "${benches:=all}" "${sizes:=0:4k}" "${step:=16}" "${iters:=5}" "${syncs:=flush fence}" ;;
full) : "${rounds:=3}" "${benches:=all}" "${step:=4}" "${nps:=2 4 8}" "${syncs:=flush fence}" "${iters:=20}"
    softib=1 full=1 budget=${budget:-900} ;;
esac
: "${rounds:=7}" "${benches:=latency bw}" "${step:=2}" "${nps:=2}" "${syncs:=flush}" "${full:=0}"
case "$rounds" in '' | *[!0-9]* | 0) echo "compare.sh: -r wants a count >= 1" >&2; exit 2 ;; esac
case "${probes:-0}" in *[!0-9]*) echo "compare.sh: --probes wants a count >= 0" >&2; exit 2 ;; esac
case "${block:-1}" in *[!0-9kKmM]* | 0) echo "compare.sh: --block wants a size >= 1" >&2; exit 2 ;; esac
case "$limit" in '' | *[!0-9]* | 0) echo "compare.sh: -t wants seconds >= 1" >&2; exit 2 ;; esac
case "${budget:-1}" in *[!0-9]* | 0) echo "compare.sh: --budget wants seconds >= 1" >&2; exit 2 ;; esac
case "$win" in allocate | create) ;; *) echo "compare.sh: --win wants allocate or create" >&2; exit 2 ;; esac
for np in $nps; do
    case "$np" in '' | *[!0-9]* | 0 | 1) echo "compare.sh: --np wants rank counts >= 2" >&2; exit 2 ;; esac
done
for s in $syncs; do
    case "$s" in flush | lock | fence) ;; *) echo "compare.sh: -s wants flush, lock or fence" >&2; exit 2 ;; esac
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
if [ -n "$base" ] && { [ ! -x "$base/launcher/ibexrun" ] || [ ! -x "$base/examples/bench/ibex-bench" ]; }; then
    echo "compare.sh: --baseline $base: no built Ibex with ibex-bench there" >&2
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
cores=$(nproc)

# Every benchmark by area, from ibex-bench -h ("  coll   barrier bcast gatherv* ..."); what
# this Ibex build has, from ibex-bench -l.
"$IBEXRUN" -n 1 "$IBEXBENCH" -h 2>/dev/null | awk '/^  (pt2pt|coll|nbc|rma) / { a = $1; for (i = 2; i <= NF; i++) { sub(/\*$/, "", $i); print $i, a } }' >"$tmp/all"
"$IBEXRUN" -n 1 "$IBEXBENCH" -l >"$tmp/ibex_has" 2>/dev/null
[ -n "$base" ] && "$base/launcher/ibexrun" -n 1 "$base/examples/bench/ibex-bench" -l >"$tmp/ibex-base_has" 2>/dev/null
selected=
for b in $benches; do
    names=$(awk -v b="$b" 'b == "all" || $1 == b || $2 == b { print $1 }' "$tmp/all")
    [ -n "$names" ] || { echo "compare.sh: unknown benchmark or area '$b' (ibex-bench -h lists them)" >&2; exit 2; }
    selected="$selected $names"
done
selected=$(printf '%s\n' $selected | awk '!seen[$0]++')
area_of() { awk -v b="$1" '$1 == b { print $2 }' "$tmp/all"; }
plain= rma=
for b in $selected; do
    if [ "$(area_of "$b")" = rma ]; then rma="$rma $b"; else plain="$plain $b"; fi
done

src=$(ls "$top_srcdir"/examples/bench/*.c)
libs=ibex
[ -n "$base" ] && libs="$libs ibex-base"
[ -n "$softib" ] && libs="$libs ibex-softib"
[ -n "$async" ] && libs="$libs ibex-async"
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
    mpicc.openmpi -O2 -o "$tmp/b_ompi" $src && libs="$libs ompi"
else
    echo "compare.sh: note: Open MPI (mpicc.openmpi) not installed, skipped" >&2
fi
if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
    # MPICH's header makes gcc warn about MPI_STATUSES_IGNORE: a false positive, hence 2>/dev/null.
    mpicc.mpich -O2 -o "$tmp/b_mpich" $src 2>/dev/null && libs="$libs mpich"
else
    echo "compare.sh: note: MPICH (mpicc.mpich) not installed, skipped" >&2
fi

# run LIB NP ARGS...: one ibex-bench run. Open MPI and MPICH bind a rank per core while the ranks
# fit, none past that (Open MPI then needs --oversubscribe); ibexrun decides itself. Open MPI
# 4.1's default one-sided component (osc/rdma over btl/vader) crashes in MPI_Compare_and_swap on
# 64-bit types (open-mpi/ompi#11349), so cas_latency runs there on osc/sm (or osc/pt2pt).
run() {
    lib=$1 np=$2
    shift 2
    case "$lib" in
    ibex) timeout -k 5 "$limit" "$IBEXRUN" -n "$np" "$IBEXBENCH" "$@" ;;
    # IBEX_WIN_DIRECT=0: windows on one node take the network direct path (RDMA on softib), as
    # the column says, not the shared mapping (it changes nothing else)
    ibex-softib) IBEX_WIN_DIRECT=0 timeout -k 5 "$limit" "$IBEXRUN" -n "$np" --softib "$IBEXBENCH" "$@" ;;
    floor) timeout -k 5 "$limit" "$IBEXRUN" -n "$np" "$IBEXBENCH" "$@" ;;
    ibex-async) IBEX_ASYNC_PROGRESS=1 timeout -k 5 "$limit" "$IBEXRUN" -n "$np" "$IBEXBENCH" "$@" ;;
    ibex-base) timeout -k 5 "$limit" "$base/launcher/ibexrun" -n "$np" "$base/examples/bench/ibex-bench" "$@" ;;
    ompi)
        if [ "$np" -le "$cores" ]; then bind="--bind-to core"; else bind="--oversubscribe --bind-to none"; fi
        case " $* " in *" cas_latency "*) bind="$bind --mca osc sm,pt2pt" ;; esac
        timeout -k 5 "$limit" mpirun.openmpi -n "$np" $bind "$tmp/b_ompi" "$@" ;;
    mpich)
        if [ "$np" -le "$cores" ]; then bind="-bind-to core"; else bind=""; fi
        timeout -k 5 "$limit" mpiexec.mpich -launcher fork -n "$np" $bind "$tmp/b_mpich" "$@" ;;
    esac </dev/null
}

# args AREA LIB NP: the sizes and iterations of a run (--full: by area, and once the ranks
# outnumber the cores only the sizes the tables show, step 16). MPICH busy-polls: once its ranks
# outnumber the cores every call takes milliseconds (a polling rank holds its core for the
# scheduler's time slice), so there it runs a tenth of the iterations (at least 3; the figure is
# a time per call either way). That keeps the run within bounds.
args() {
    a=$1 m=$sizes i=$iters st=$step
    if [ "$full" = 1 ]; then
        [ "$a" = pt2pt ] && m=${m:-0:1m} || m=${m:-0:64k}
        # The overlap runs each call twice and computes for as long: the tables' sizes only.
        [ "$a" = nbc ] && [ "$st" -lt 16 ] && st=16
    fi
    [ "$full" = 1 ] && [ "$3" -gt "$cores" ] && [ "$st" -lt 16 ] && st=16
    if [ "$2" = mpich ] && [ "$3" -gt "$cores" ]; then
        i=$((${i:-100} / 10))
        [ "$i" -ge 3 ] || i=3
    fi
    t=
    [ "$a" = nbc ] && [ -n "$probes" ] && t="-t $probes"
    [ "$a" = pt2pt ] && [ -n "$block" ] && t="--block $block"
    echo "--format csv --step $st ${m:+-m $m} ${i:+-i $i}${t:+ $t}"
}

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "command: $0 -r $rounds -b \"$benches\" ${sizes:+-m $sizes }--step $step ${iters:+-i $iters }--np \"$nps\" -s \"$syncs\" --win $win${softib:+ --softib}${async:+ --async}${probes:+ --probes $probes}${block:+ --block $block}${base:+ --baseline $base}"
    echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "cores: $cores"
    echo "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "kernel: $(uname -srm)"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    for lib in $libs; do
        v=$(run "$lib" 2 latency -m 0:0 -i 1 -x 0 2>/dev/null | sed -n 's/^# ibex-bench latency (\(.*\))$/\1/p')
        echo "$lib: ${v:-unknown (the version run failed)}"
    done
    [ -n "$base" ] && echo "ibex-base: the Ibex build in $base"
    for np in $nps; do
        [ "$np" -gt "$cores" ] && case " $libs " in *" mpich "*)
            echo "mpich at $np ranks: $(args coll mpich "$np" | sed 's/^--format csv //') (fewer: it busy-polls, milliseconds per call once oversubscribed)" ;;
        esac
    done
    [ -n "$softib" ] && echo "ibex-softib: Ibex over verbs on softib (ibexrun --softib); the others over shared memory"
    [ -n "$async" ] && echo "ibex-async: Ibex with IBEX_ASYNC_PROGRESS=1 (the progress thread; not started when the ranks outnumber the $cores cores)"
} >"$out/machine.txt"

# collect LIB NP ROUND SUFFIX: the CSV of one run ($tmp/one) into raw.csv. A run of several
# benchmarks has a leading benchmark column; its header rows name the columns. min_, max_,
# overall_ and compute_ figures are left out (the table shows the headline ones).
collect() {
    awk -F, -v p="$1,$2" -v r="$3" -v sfx="$4" -v only="$5" '
        $1 == "benchmark" || $1 == "size_B" { off = ($1 == "benchmark"); for (i = 1; i <= NF; i++) h[i] = $i; next }
        {
            b = off ? $1 : only
            for (i = 2 + off; i <= NF; i++)
                if (h[i] !~ /^(min_|max_|overall_|compute_)/)
                    print p "," b sfx "," h[i] "," r "," $(1 + off) "," $i
        }' "$tmp/one" >>"$out/raw.csv"
}

# one LIB NP ROUND SUFFIX BENCHMARKS... -- ARGS...: one run of the benchmarks this library has.
failed=0
one() {
    lib=$1 np=$2 r=$3 sfx=$4
    shift 4
    list=
    while [ "$1" != -- ]; do
        case "$lib" in
        ibex-base) grep -q "^$1 " "$tmp/ibex-base_has" && list="$list $1" ;;
        ibex*) grep -q "^$1 " "$tmp/ibex_has" && list="$list $1" ;;
        *) list="$list $1" ;;
        esac
        shift
    done
    shift
    [ -n "$list" ] || return 0
    [ -t 2 ] && printf '\r\033[Kround %s/%s: %s at %s ranks:%s' "$r" "$rounds" "$lib" "$np" "$list" | cut -c1-100 >&2
    t0=$(date +%s)
    run "$lib" "$np" $list "$@" >"$tmp/one" 2>"$tmp/err"
    rc=$?
    echo "$(( $(date +%s) - t0 )) s: round $r, $lib at $np ranks:$list $*" >>"$out/runs.log"
    if [ "$rc" -eq 0 ]; then
        set -- $list
        collect "$lib" "$np" "$r" "$sfx" "$1"
    else
        [ -t 2 ] && printf '\r\033[K' >&2
        echo "compare.sh: $lib$list$sfx at $np ranks, round $r failed: $(tail -2 "$tmp/err" | tr '\n' ' ')" >&2
        failed=$((failed + 1))
    fi
}

# raw_verbs ROUND: perftest's ib_write_lat and ib_read_lat, server and client on softib (a port
# of this run's own: the network namespace is shared), their average latency (t_avg, the
# statistic ibex-bench reports; on a loaded machine the typical figure, a median, is far
# lower) as the raw-verbs figure of put_latency.flush / get_latency.flush at 2 ranks.
SOFTIB_LIB=$top_builddir/softib/.libs/libsoftib.so
raw_verbs() {
    port=$((20000 + $$ % 20000))
    for tool in ib_write_lat ib_read_lat; do
        [ $tool = ib_write_lat ] && b=put_latency.flush || b=get_latency.flush
        for sz in 8 16 256 4096 65536 1048576 4194304; do
            n=1000
            [ "$sz" -gt 65536 ] && n=100
            LD_PRELOAD=$SOFTIB_LIB timeout 60 $tool -s "$sz" -n "$n" -p "$port" >/dev/null 2>&1 &
            sleep 1
            v=$(LD_PRELOAD=$SOFTIB_LIB timeout 60 $tool -s "$sz" -n "$n" -p "$port" 127.0.0.1 2>/dev/null |
                awk -v s="$sz" '$1 == s && NF >= 6 { print $6 }')
            wait
            [ -n "$v" ] && echo "raw-verbs,2,$b,latency_us,$1,$sz,$v" >>"$out/raw.csv"
            echo "round $1, raw-verbs: $tool -s $sz: ${v:-failed}" >>"$out/runs.log"
        done
    done
}
floor_benches="floor_memcpy_bw floor_cma_bw floor_ping"
if [ -n "$rma" ]; then
    libs="$libs floor"
    [ -n "$softib" ] && command -v ib_write_lat >/dev/null && [ -f "$SOFTIB_LIB" ] && libs="$libs raw-verbs"
fi

echo "lib,np,benchmark,metric,round,size_B,value" >"$out/raw.csv"
start=$(date +%s) done_rounds=0
for r in $(seq "$rounds"); do
    now=$(date +%s)
    if [ -n "$budget" ] && [ "$r" -gt 1 ] && [ $((now + (now - start) / (r - 1) - start)) -gt "$budget" ]; then
        echo "compare.sh: the budget of $budget s allows no round $r (each takes about $(((now - start) / (r - 1))) s): $((r - 1)) rounds" >&2
        break
    fi
    done_rounds=$r
    for np in $nps; do
        for lib in $libs; do
            case "$lib" in
            floor) [ $((np % 2)) -eq 0 ] && one floor "$np" "$r" "" $floor_benches -- $(args rma ibex "$np")
                continue ;;
            raw-verbs) [ "$np" = 2 ] && raw_verbs "$r"
                continue ;;
            esac
            for a in pt2pt coll nbc; do
                # Areas in separate runs: their sizes may differ.
                in_area=$(for x in $plain; do [ "$(area_of "$x")" = "$a" ] && echo "$x"; done)
                [ -n "$in_area" ] && one "$lib" "$np" "$r" "" $in_area -- $(args "$a" "$lib" "$np")
            done
            for s in $syncs; do
                [ -n "$rma" ] || break
                cas=
                [ "$lib" = ompi ] && case " $rma " in *" cas_latency "*) cas=cas_latency ;; esac
                set -- $(for x in $rma; do [ "$x" != "$cas" ] && echo "$x"; done)
                [ $# -gt 0 ] && one "$lib" "$np" "$r" ".$s" "$@" -- $(args rma "$lib" "$np") -s "$s" --win "$win"
                [ -n "$cas" ] && one "$lib" "$np" "$r" ".$s" cas_latency -- $(args rma "$lib" "$np") -s "$s" --win "$win"
            done
        done
    done
done
[ -t 2 ] && printf '\r\033[K' >&2
{
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "rounds: $done_rounds of $rounds${budget:+ (budget $budget s)}, $(($(date +%s) - start)) s"
} >>"$out/machine.txt"

python3 "$here/compare_report.py" --libs "$libs" --rounds "$done_rounds" --dir "$out" ${doc:+--doc "$doc"} || failed=$((failed + 1))
cat "$out/results.md"
echo "compare.sh: results in $out (results.md, results.csv, raw.csv, machine.txt, *.png)" >&2
[ "$failed" -eq 0 ]
