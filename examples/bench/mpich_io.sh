#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds and runs MPICH's MPI-IO test programs (test/mpi/io, the 29 entries of its testlist)
# and, with --romio, ROMIO's own C tests (src/mpi/romio/test) against an MPI library and prints
# a pass / fail table. The test sources are not part of Ibex: give the directory laid out as
# MPICH's test/mpi (include/, util/mtest.c, util/mtest_common.c, util/dtypes.c, io/, with an
# include/mpitestconf.h written for the machine). Nothing is written into it; the programs'
# files go to a fresh directory under --work, removed at the end.
#
#   examples/bench/mpich_io.sh --src ~/mpich-tests --prefix /opt/ibex
#   examples/bench/mpich_io.sh --src DIR --romio ~/romio-tests --prefix DIR
#   examples/bench/mpich_io.sh --src DIR --mpi mpich                 # the same with MPICH
#
# Options:
#   --src DIR        the assembled MPICH test sources (required)
#   --romio DIR      also ROMIO's C tests from DIR (simple.c, noncontig.c, ...)
#   --prefix DIR     Ibex installation (bin/ibexcc, bin/ibexrun); default: the one in PATH
#   --mpi NAME       ibex (default), mpich (mpicc.mpich, mpiexec.mpich) or openmpi
#                    (mpicc.openmpi, mpirun.openmpi --oversubscribe)
#   --work DIR       where to build and keep the logs (default: a new directory in $TMPDIR)
#   --softib         Ibex over verbs on softib with shared memory off (IBEX_TRANSPORTS=verbs),
#                    rank counts capped at 3
#   --nodes N        Ibex with faked nodes of N ranks (IBEX_COLL_NODE_SIZE=N)
#   --max-np N       cap every rank count at N (programs adapt to the size they get)
#   --timeout S      time limit of one run (default 120)
#   --only REGEX     run only the programs whose dir/name matches
# A run passes when it exits 0 and prints "No Errors" (any case). Exit status: 0 when nothing
# failed, 1 otherwise, 2 on usage.
set -u
SRC= ROMIO= PREFIX= MPI=ibex WORK= SOFTIB=0 NODES= MAXNP= T=120 ONLY=.
usage() {
    sed -n '3,29p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --src) SRC=$2; shift ;;
    --romio) ROMIO=$2; shift ;;
    --prefix) PREFIX=$2; shift ;;
    --mpi) MPI=$2; shift ;;
    --work) WORK=$2; shift ;;
    --softib) SOFTIB=1 ;;
    --nodes) NODES=$2; shift ;;
    --max-np) MAXNP=$2; shift ;;
    --timeout) T=$2; shift ;;
    --only) ONLY=$2; shift ;;
    -h | --help) usage ;;
    *) echo "mpich_io: unknown option $1" >&2; usage ;;
    esac
    shift
done
[ -n "$SRC" ] && [ -f "$SRC/util/mtest.c" ] && [ -f "$SRC/include/mpitestconf.h" ] ||
    { echo "mpich_io: --src DIR must hold util/mtest.c and include/mpitestconf.h" >&2; usage; }
RUNOPT=
case $MPI in
ibex)
    if [ -n "$PREFIX" ]; then
        CC=$PREFIX/bin/ibexcc RUN=$PREFIX/bin/ibexrun
    else
        CC=$(command -v ibexcc) RUN=$(command -v ibexrun)
    fi
    [ "$SOFTIB" = 1 ] && { RUNOPT=--softib; export IBEX_TRANSPORTS=verbs; [ -n "$MAXNP" ] || MAXNP=3; }
    [ -n "$NODES" ] && export IBEX_COLL_NODE_SIZE=$NODES
    ;;
mpich) CC=$(command -v mpicc.mpich) RUN=$(command -v mpiexec.mpich) ;;
openmpi)
    CC=$(command -v mpicc.openmpi) RUN=$(command -v mpirun.openmpi)
    RUNOPT="--oversubscribe --allow-run-as-root"
    ;;
*) echo "mpich_io: --mpi ibex|mpich|openmpi" >&2; exit 2 ;;
esac
[ -x "${CC:-}" ] && [ -x "${RUN:-}" ] || { echo "mpich_io: no compiler / launcher for $MPI" >&2; exit 2; }
[ -n "$WORK" ] || WORK=$(mktemp -d "${TMPDIR:-/tmp}/mpich_io.XXXXXX")
mkdir -p "$WORK/bin" "$WORK/logs" "$WORK/files" || exit 2

# The list: directory (io: MPICH's, romio: ROMIO's), program, ranks, then optional words:
# tl=S (a time limit of its own), mem=X (ignored), arg=A (a program argument; @F is a file name
# in the run's directory).
LIST='
io rdwrord 4
io rdwrzero 4
io getextent 2
io setinfo 4
io setviewcur 4
io i_noncontig 2
io async 4
io async_any 4
io userioerr 1
io resized 1
io resized2 1
io bigtype 1 mem=6.5
io hindexed_io 1
io tst_fileview 1
io zero_count 4
io simple_collective 1 arg=@F
io external32_derived_dtype 1
io i_bigtype 1 mem=6.5
io i_hindexed_io 1
io i_rdwrord 4
io i_setviewcur 4
io i_aggregation1 4
io i_aggregation2 4
io i_coll_test 4
io i_darray_read 4
io i_hindexed 4
io i_noncontig_coll 2
io i_noncontig_coll2 4
io i_types_with_zeros 2
romio simple 4 arg=-fname arg=@F
romio async 4 arg=-fname arg=@F
romio async-multiple 4 arg=-fname arg=@F
romio atomicity 4 arg=-fname arg=@F
romio coll_test 4 arg=-fname arg=@F
romio excl 4 arg=-fname arg=@F
romio file_info 4 arg=-fname arg=@F
romio i_noncontig 2 arg=-fname arg=@F
romio noncontig 2 arg=-fname arg=@F
romio noncontig_coll 2 arg=-fname arg=@F
romio noncontig_coll2 4 arg=-fname arg=@F
romio aggregation1 4 arg=-h arg=-f arg=@F
romio aggregation2 4 arg=@F
romio hindexed 4 arg=@F
romio shared_fp 4 arg=-fname arg=@F
romio ordered_fp 4 arg=-fname arg=@F
romio split_coll 4 arg=-fname arg=@F
romio psimple 4 arg=-fname arg=@F
romio error 1 arg=-fname arg=@F
romio status 1 arg=-fname arg=@F
romio types_with_zeros 2 arg=@F
romio darray_read 4 arg=@F
romio creat_excl 4 arg=-fname arg=@F
romio big_extents 1 arg=@F
'

# The support objects, once.
SUPPORT=
for f in mtest mtest_common mtest_single dtypes; do
    [ -f "$SRC/util/$f.c" ] || continue
    if "$CC" -c -I"$SRC/include" -o "$WORK/bin/$f.o" "$SRC/util/$f.c" >"$WORK/logs/$f.build" 2>&1; then
        SUPPORT="$SUPPORT $WORK/bin/$f.o"
    else
        echo "mpich_io: util/$f.c does not build (see $WORK/logs/$f.build)" >&2
        exit 1
    fi
done

npass=0 nfail=0 nbuild=0
rm -f "$WORK/counts"
printf '%-44s %-3s %s\n' program np result
echo "$LIST" | while read -r dir prog np rest; do
    [ -n "$dir" ] || continue
    echo "$dir/$prog" | grep -Eq -- "$ONLY" || continue
    expect=ok tl=$T args=
    srcdir=$SRC/$dir
    if [ "$dir" = romio ]; then
        [ -n "$ROMIO" ] || continue
        srcdir=$ROMIO
    fi
    files="$WORK/files/$dir.$prog"
    rm -rf "$files" && mkdir -p "$files"
    for w in $rest; do
        case $w in
        tl=*) tl=${w#tl=} ;;
        mem=*) ;;
        arg=@F) args="$args $files/testfile" ;;
        arg=*) args="$args ${w#arg=}" ;;
        esac
    done
    [ -n "$MAXNP" ] && [ "$np" -gt "$MAXNP" ] && np=$MAXNP
    name="$dir/$prog"
    log="$WORK/logs/$dir.$prog.$np"
    bin="$WORK/bin/$dir.$prog"
    if [ ! -x "$bin" ]; then
        if ! "$CC" -I"$SRC/include" -o "$bin" "$srcdir/$prog.c" $SUPPORT -lm >"$log.build" 2>&1; then
            printf '%-44s %-3s %s\n' "$name" "$np" "BUILD FAILED: $(grep -m1 -i error "$log.build")"
            echo build >>"$WORK/counts"
            continue
        fi
    fi
    case $MPI in
    ibex) set -- "$RUN" $RUNOPT -n "$np" --timeout "$tl" "$bin" ;;
    mpich) set -- timeout "$tl" "$RUN" -n "$np" "$bin" ;;
    openmpi) set -- timeout "$tl" "$RUN" $RUNOPT -n "$np" "$bin" ;;
    esac
    # shellcheck disable=SC2086
    (cd "$files" && MPIEXEC_TIMEOUT=$tl "$@" $args) >"$log" 2>&1 </dev/null
    rc=$?
    rm -rf "$files"
    case $expect in
    ok) if [ $rc -eq 0 ] && grep -Eiq '^ *No Errors *$' "$log"; then res=pass; else res=FAIL; fi ;;
    esac
    if [ $res = pass ]; then
        printf '%-44s %-3s %s\n' "$name" "$np" pass
        echo pass >>"$WORK/counts"
    else
        why=$(grep -v '^ *$' "$log" | head -n 1 | cut -c1-100)
        printf '%-44s %-3s %s\n' "$name" "$np" "FAIL (exit $rc) $why"
        echo fail >>"$WORK/counts"
    fi
done
npass=$(grep -c pass "$WORK/counts" 2>/dev/null)
nfail=$(grep -c fail "$WORK/counts" 2>/dev/null)
nbuild=$(grep -c build "$WORK/counts" 2>/dev/null)
echo "mpich_io ($MPI): ${npass:-0} passed, ${nfail:-0} failed, ${nbuild:-0} did not build; logs in $WORK/logs"
[ "${nfail:-0}" = 0 ] && [ "${nbuild:-0}" = 0 ]
