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
#   --timeout S      time limit of one run (default 120)
#   --only REGEX     run only the programs whose name matches
# The matrix: OSU point-to-point at 2 ranks, collectives (blocking and non-blocking) at 2, 3 and
# 4, one-sided at 2 with every -w create|allocate|dynamic and -s mode the program offers, all
# with -i 10 -x 2 -m 1:65536 and -c where the program validates; IMB-MPI1 and IMB-NBC at 2, 3
# and 4 (-npmin N), IMB-RMA and IMB-EXT at 2 and 3, all with -iter 10 -msglog 0:16 -time 1.
# A run fails on a non-zero exit, a time-out (a hang: ibexrun's hang report is in its log), or a
# failed validation in the output. Exit status: 0 when nothing failed, 1 otherwise, 2 on usage.
set -u
OSU= IMB= PREFIX= WORK= SOFTIB= QUICK=0 T=120 ONLY=.
usage() {
    sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'
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

imb_build() {
    rm -rf "$WORK/imb" && cp -r "$IMB/src_c" "$WORK/imb" || return 1
    for t in MPI1 NBC RMA EXT; do
        echo "IMB-$t" | grep -q -E "$ONLY" || continue
        if make -C "$WORK/imb" -f Makefile TARGET="$t" CC="$IBEXCC" >"$WORK/imb/build-$t.log" 2>&1 &&
            [ -x "$WORK/imb/IMB-$t" ]; then
            echo "$t" >>"$WORK/imb/built"
        else
            line "imb build IMB-$t" FAIL "$(why "$WORK/imb/build-$t.log")"
        fi
    done
}

imb_run() {
    [ -f "$WORK/imb/built" ] || return 0
    while read -r t; do
        case $t in
        MPI1 | NBC) nps="2 3 4" ;;
        *) nps="2 3" ;;
        esac
        for np in $nps; do
            run "IMB-$t -n $np" "$np" "$WORK/imb/IMB-$t" -npmin "$np" $IMB_ARGS
            [ "$res" = usage ] && res=FAIL
            line "imb IMB-$t -n $np" "$res" "$reason"
        done
    done <"$WORK/imb/built"
}

OSU_ARGS="-i 10 -x 2 -m 1:65536"
IMB_ARGS="-iter 10 -msglog 0:16 -time 1"
echo "# suites_check: $IBEXRUN ${SOFTIB:-(shared memory)}; logs in $WORK/logs"
[ -n "$OSU" ] && { osu_build; osu_run; }
[ -n "$IMB" ] && { imb_build; imb_run; }
echo "suites_check: $npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
