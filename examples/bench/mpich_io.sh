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
ME=mpich_io USAGE=28 NODES= ROMIO=
. "$(dirname "$0")/mpich_lib.sh"
runner_opt() {
    case $1 in
    --romio) ROMIO=$2; SHIFT=2 ;;
    --nodes) NODES=$2; SHIFT=2 ;;
    --max-np) MAXNP=$2; SHIFT=2 ;;
    *) return 1 ;;
    esac
}
mlib_options "$@"
mlib_need util/mtest.c include/mpitestconf.h
mlib_select
[ "$MPI" = ibex ] && [ -n "$SOFTIB" ] && [ -z "$MAXNP" ] && MAXNP=3
[ "$MPI" = ibex ] && [ -n "$NODES" ] && export IBEX_COLL_NODE_SIZE=$NODES
mkdir -p "$WORK/files" || exit 2

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

LIB=$(mlib_util libmtest "-I$SRC/include" util/mtest.c util/mtest_common.c util/mtest_single.c \
    util/dtypes.c) || exit 1

rm -f "$WORK/counts"
printf '%-44s %-3s %s\n' program np result
echo "$LIST" | while read -r dir prog np rest; do
    [ -n "$dir" ] || continue
    echo "$dir/$prog" | grep -Eq -- "$ONLY" || continue
    tl=$T args=
    srcdir=$SRC/$dir
    if [ "$dir" = romio ]; then
        [ -n "$ROMIO" ] || continue
        srcdir=$ROMIO
    fi
    # Each run in a fresh directory of its own (the programs' files), removed after it.
    RUNDIR="$WORK/files/$dir.$prog"
    rm -rf "$RUNDIR" && mkdir -p "$RUNDIR"
    for w in $rest; do
        case $w in
        tl=*) tl=${w#tl=} ;;
        mem=*) ;;
        arg=@F) args="$args $RUNDIR/testfile" ;;
        arg=*) args="$args ${w#arg=}" ;;
        esac
    done
    [ -n "$MAXNP" ] && [ "$np" -gt "$MAXNP" ] && np=$MAXNP
    name="$dir/$prog"
    log="$WORK/logs/$dir.$prog.$np"
    if ! mlib_build "$dir.$prog" "$log.build" "-I$SRC/include" "$srcdir/$prog.c" "$LIB"; then
        mlib_build_failed 44 "$name" "$np" "$log.build" "$WORK/counts" build
        continue
    fi
    # shellcheck disable=SC2086
    mlib_launch "$np" "$tl" "$WORK/bin/$dir.$prog" $args >"$log" 2>&1
    rc=$?
    rm -rf "$RUNDIR"
    mlib_verdict "$rc" "$log" ok 44 "$name" "$np" "$WORK/counts" fail
done
mlib_summary "$WORK/counts" pass fail build "$MPI"
