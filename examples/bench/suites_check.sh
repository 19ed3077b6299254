#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the public benchmark suites with ibexcc and runs each program in a short matrix, one
# line per run (ok / skip / FAIL and why) and a summary. The sources are not part of Ibex: give
# the directories of an OSU micro-benchmarks tree (the one holding c/util and c/mpi, 7.x) and of
# an Intel MPI Benchmarks tree (the one holding src_c). Nothing is written into them.
#
#   examples/bench/suites_check.sh --osu ~/src/osu-micro-benchmarks --imb ~/src/mpi-benchmarks
#   examples/bench/suites_check.sh --osu DIR --softib      # the same over verbs on softib
#
# Options:
#   --osu DIR        OSU tree (c/util/osu_util*.c, c/mpi/{pt2pt,collective,one-sided}/osu_*.c)
#   --imb DIR        IMB tree (src_c/Makefile with TARGET=MPI1|NBC|RMA|EXT)
#   --prefix DIR     Ibex installation (bin/ibexcc, bin/ibexrun); default: the one in PATH
#   --work DIR       where to build and keep the logs (default: a new directory in $TMPDIR)
#   --softib         run over verbs on softib, shared memory off (ibexrun --softib)
#   --quick          one-sided: flush, fence and pscw only; collectives at 2 and 4 ranks
#   --timeout S      time limit of one run (default 120; an IMB run, a whole program: 5 times that)
#   --only REGEX     run only the programs whose name matches
# The matrix: OSU point-to-point at 2 ranks, collectives (blocking and non-blocking) at 2, 3 and
# 4, one-sided at 2 with every -w create|allocate|dynamic and -s mode the program offers, all
# with -i 10 -x 2 -m 1:65536 and -c where the program validates. IMB: IMB-MPI1, IMB-NBC, IMB-RMA
# and IMB-EXT, each built twice (plain, and IMB's checking build, CFLAGS=-DCHECK, whose runs
# compare every received buffer), every benchmark of the lists below named on the command line,
# the check build at 2, 3 and 4 ranks (-npmin N -iter 20 -msglog 0:16 -time 2), the plain build at
# 2, and the big sizes (-msglog 20:22 -iter 5 -mem 2) with the check build at 2 ranks; one line
# per benchmark and run. A run fails on a non-zero exit, a time-out (a hang: ibexrun's hang
# report is in its log), or a failed validation in the output (OSU's, IMB's "FAILED").
# Exit status: 0 when nothing failed, 1 otherwise, 2 on usage.
set -u
OSU= IMB= PREFIX= WORK= SOFTIB= QUICK=0 T=120 ONLY=.
usage() {
    sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --osu) OSU=$2; shift ;;
    --imb) IMB=$2; shift ;;
    --prefix) PREFIX=$2; shift ;;
    --work) WORK=$2; shift ;;
    --softib) SOFTIB=--softib ;;
    --quick) QUICK=1 ;;
    --timeout) T=$2; shift ;;
    --only) ONLY=$2; shift ;;
    -h | --help) usage ;;
    *) echo "suites_check: unknown option $1" >&2; usage ;;
    esac
    shift
done
[ -n "$OSU$IMB" ] || { echo "suites_check: give --osu DIR and/or --imb DIR" >&2; usage; }
if [ -n "$PREFIX" ]; then
    IBEXCC=$PREFIX/bin/ibexcc IBEXRUN=$PREFIX/bin/ibexrun
else
    IBEXCC=$(command -v ibexcc) IBEXRUN=$(command -v ibexrun)
fi
[ -x "${IBEXCC:-}" ] && [ -x "${IBEXRUN:-}" ] || { echo "suites_check: no ibexcc / ibexrun (--prefix)" >&2; exit 2; }
[ -n "$WORK" ] || WORK=$(mktemp -d "${TMPDIR:-/tmp}/suites_check.XXXXXX")
mkdir -p "$WORK/logs" || exit 2
npass=0 nfail=0 nskip=0

# line NAME RESULT [REASON]: one line per run, counted.
line() {
    case $2 in
    ok) npass=$((npass + 1)) ;;
    skip) nskip=$((nskip + 1)) ;;
    *) nfail=$((nfail + 1)) ;;
    esac
    printf '%-58s %s%s\n' "$1" "$2" "${3:+ ($3)}"
}

# why LOG: the first line of a log that says what went wrong.
why() {
    grep -m1 -i -E 'MPI_ERR|error|fail|abort|signal|not supported|undefined|without calling|timeout after|must return' \
        "$1" | cut -c1-150
}

# run NAME NP PROG ARGS...: one run under ibexrun with a time limit; sets $res (ok, skip,
# usage, FAIL) and prints nothing; the output is in $WORK/logs/NAME.log.
run() {
    name=$1 np=$2
    shift 2
    log="$WORK/logs/$(echo "$name" | tr ' /' '__').log"
    timeout -k 10 "$T" "$IBEXRUN" -n "$np" $SOFTIB --timeout "$((T - 5))" "$@" </dev/null >"$log" 2>&1
    rc=$?
    if grep -q -E 'requires (exactly|at least) [a-z0-9]+ process' "$log"; then
        res=skip reason="not for $np ranks"
    elif grep -q -E 'Invalid option|does not support validation|Option Missing|when validation is enabled' "$log"; then
        res=usage reason=$(grep -m1 -E 'Invalid|does not support|Missing|when validation' "$log")
    elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        res=FAIL reason="timed out after $T s (hang?): $(why "$log")"
    elif [ "$rc" != 0 ]; then
        res=FAIL reason="exit $rc: $(why "$log")"
    elif grep -q -E '[[:space:]]Fail[[:space:]]*$|failed$|^FAILED|DATA VALIDATION ERROR' "$log"; then
        res=FAIL reason="validation: $(grep -m1 -E 'Fail|failed|FAILED|VALIDATION' "$log")"
    else
        res=ok reason=
    fi
}

# try NAME NP PROG ARGS...: run with -c first, without it when the program has no validation.
try_c() {
    name=$1 np=$2 prog=$3
    shift 3
    run "$name" "$np" "$prog" "$@" -c
    if [ "$res" = usage ]; then
        run "$name" "$np" "$prog" "$@"
        [ "$res" = usage ] && res=FAIL
        [ "$res" = ok ] && reason="no -c"
    fi
    line "$name" "$res" "$reason"
}

osu_build() {
    b="$WORK/osu"
    mkdir -p "$b/obj" && : >"$b/config.h"
    flags="-O2 -I$OSU/c/util -I$b -DPACKAGE_VERSION=\"suites_check\" -D_ENABLE_MPI4_"
    objs=
    for u in "$OSU"/c/util/osu_util*.c; do
        o="$b/obj/$(basename "$u" .c).o"
        # shellcheck disable=SC2086
        if ! "$IBEXCC" $flags -c -o "$o" "$u" >"$b/obj/$(basename "$u").log" 2>&1; then
            line "osu build $(basename "$u")" FAIL "$(why "$b/obj/$(basename "$u").log")"
            return 1
        fi
        objs="$objs $o"
    done
    for src in $(find "$OSU/c/mpi/pt2pt" "$OSU/c/mpi/collective" "$OSU/c/mpi/one-sided" \
        -name 'osu_*.c' 2>/dev/null | sort); do
        p=$(basename "$src" .c)
        echo "$p" | grep -q -E "$ONLY" || continue
        # shellcheck disable=SC2086
        if "$IBEXCC" $flags -o "$b/$p" "$src" $objs -lm -lpthread >"$b/$p.build.log" 2>&1; then
            echo "$src" >>"$b/built"
        else
            line "osu build $p" FAIL "$(why "$b/$p.build.log")"
        fi
    done
}

osu_onesided() {
    prog=$1 p=$(basename "$1")
    syncs="lock flush flush_local lock_all fence pscw"
    [ "$QUICK" = 1 ] && syncs="flush fence pscw"
    for w in create allocate dynamic; do
        for s in $syncs; do
            run "$p -w $w -s $s" 2 "$prog" $OSU_ARGS -w "$w" -s "$s" -c
            if [ "$res" = usage ]; then
                run "$p -w $w -s $s" 2 "$prog" $OSU_ARGS -w "$w" -s "$s"
                case $res in
                usage) res=skip reason="-s $s not offered" ;;
                ok) reason="no -c" ;;
                esac
            fi
            line "osu $p -w $w -s $s" "$res" "$reason"
        done
    done
}

osu_run() {
    [ -f "$WORK/osu/built" ] || return 0
    nps="2 3 4"
    [ "$QUICK" = 1 ] && nps="2 4"
    while read -r src; do
        p=$(basename "$src" .c) prog="$WORK/osu/$(basename "$src" .c)"
        case $src in
        */one-sided/*) osu_onesided "$prog" ;;
        */collective/*) for np in $nps; do try_c "osu $p -n $np" "$np" "$prog" $OSU_ARGS; done ;;
        *) try_c "osu $p -n 2" 2 "$prog" $OSU_ARGS ;;
        esac
    done <"$WORK/osu/built"
}

# The IMB programs and the benchmarks each runs (named on its command line, so the non-default
# ones run too); a name the given IMB version does not know is reported as skip.
IMB_MPI1="PingPong PingPing Sendrecv Exchange Allreduce Reduce Reduce_scatter Allgather Allgatherv
 Gather Gatherv Scatter Scatterv Alltoall Alltoallv Bcast Barrier Uniband Biband"
IMB_NBC="Ibcast Iallgather Iallgatherv Igather Igatherv Iscatter Iscatterv Ialltoall Ialltoallv
 Ireduce Ireduce_scatter Iallreduce Ibarrier"
IMB_RMA="Unidir_put Unidir_get Bidir_put Bidir_get One_put_all One_get_all All_put_all All_get_all
 Put_local Put_all_local Exchange_put Get_local Get_all_local Exchange_get Accumulate
 Get_accumulate Fetch_and_op Compare_and_swap Truly_passive_put"
IMB_EXT="Window Unidir_Put Unidir_Get Bidir_Put Bidir_Get Accumulate"
IMB_ARGS="-iter 20 -msglog 0:16 -time 2"
IMB_BIG="-iter 5 -msglog 20:22 -time 2 -mem 2"

# imb_build: IMB-T (plain) and IMB-T-check (-DCHECK) for T in MPI1 NBC RMA EXT, with IMB's own
# Makefile in a copy of src_c.
imb_build() {
    rm -rf "$WORK/imb" && cp -r "$IMB/src_c" "$WORK/imb" || return 1
    rm -rf "$WORK/imb"/IMB-* "$WORK/imb"/build_* # the given tree's own builds, if any
    for t in MPI1 NBC RMA EXT; do
        echo "IMB-$t" | grep -q -E "$ONLY" || continue
        for v in "" -check; do
            if [ -n "$v" ]; then
                set -- CFLAGS=-DCHECK BUILDDIR="build_${t}_check" BINARY="IMB-$t-check"
            else
                set --
            fi
            log="$WORK/imb/build-$t$v.log"
            if make -C "$WORK/imb" -f Makefile TARGET="$t" CC="$IBEXCC" "$@" >"$log" 2>&1 &&
                [ -x "$WORK/imb/IMB-$t$v" ]; then
                echo "$t$v" >>"$WORK/imb/built"
            else
                line "imb build IMB-$t$v" FAIL "$(why "$log")"
            fi
        done
    done
}

# imb_lines PROG NP LOG BENCHMARKS...: one line per benchmark of a run that $res / $reason judged
# as a whole. IMB runs them in order and prints "# Benchmarking NAME" as each starts: in a failed
# run the last one started is the one that failed, those after it were not reached; a checking
# build lists "NAME : FAILED" for a wrong result.
imb_lines() {
    prog=$1 np=$2 lg=$3 whole=$res why_whole=$reason
    shift 3
    last=$(grep '^# Benchmarking ' "$lg" | tail -n 1 | awk '{print $3}')
    reached=1
    for b in "$@"; do
        n="imb $prog -n $np $b"
        if grep -q -i "Invalid benchmark name $b\$" "$lg"; then
            line "$n" skip "not in this IMB version"
        elif ! grep -q "^# Benchmarking $b " "$lg"; then
            if [ "$whole" = ok ]; then
                line "$n" skip "not run by IMB at $np ranks"
            else
                line "$n" FAIL "not reached: the run failed in $last"
            fi
        elif grep -q -E "^$b +: FAILED" "$lg"; then
            line "$n" FAIL "validation: IMB's check found a wrong result"
        elif [ "$whole" != ok ] && [ "$b" = "$last" ]; then
            line "$n" FAIL "$why_whole"
        else
            line "$n" ok
        fi
    done
}

imb_run() {
    [ -f "$WORK/imb/built" ] || return 0
    nps="2 3 4"
    [ "$QUICK" = 1 ] && nps="2 4"
    t_osu=$T T=$((T * 5)) # one IMB run holds a whole program's benchmarks
    while read -r tv; do
        t=${tv%-check}
        eval "list=\$IMB_$t"
        if [ "$t" = "$tv" ]; then
            runs="2:$IMB_ARGS"
        else
            runs=
            for np in $nps; do runs="$runs${runs:+,}$np:$IMB_ARGS"; done
            runs="$runs,2:$IMB_BIG"
        fi
        oldifs=$IFS
        IFS=,
        for r in $runs; do
            IFS=$oldifs
            np=${r%%:*} args=${r#*:}
            tag=
            [ "$args" = "$IMB_BIG" ] && tag=" (big)"
            # shellcheck disable=SC2086
            run "IMB-$tv -n $np$tag" "$np" "$WORK/imb/IMB-$tv" -npmin "$np" $args $list
            imb_lines "IMB-$tv$tag" "$np" "$log" $list
        done
        IFS=$oldifs
    done <"$WORK/imb/built"
    T=$t_osu
}

OSU_ARGS="-i 10 -x 2 -m 1:65536"
echo "# suites_check: $IBEXRUN ${SOFTIB:-(shared memory)}; logs in $WORK/logs"
[ -n "$OSU" ] && { osu_build; osu_run; }
[ -n "$IMB" ] && { imb_build; imb_run; }
echo "suites_check: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
