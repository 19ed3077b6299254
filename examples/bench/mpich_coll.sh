#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds MPICH's collective tests (test/mpi/coll) with an MPI library and runs each program at
# the rank counts of MPICH's coll/testlist, one line per run (ok / FAIL / BUILD and why) and a
# summary. The sources are not part of Ibex: give the directory holding MPICH's test/mpi tree
# (coll/, util/, include/ with a mpitestconf.h, and dtpools/include/dtpools.h for the headers
# of allred / allred2 / reduce / op_coll). Nothing is written into it.
#
#   examples/bench/mpich_coll.sh --src ~/mpich/test/mpi --prefix /opt/ibex
#   examples/bench/mpich_coll.sh --src DIR --prefix DIR --softib --maxnp 3   # verbs, no shm
#   examples/bench/mpich_coll.sh --src DIR --mpi mpich                        # the same tests on MPICH
#
# Options:
#   --src DIR        MPICH's test/mpi directory (required)
#   --prefix DIR     Ibex installation (bin/ibexcc, bin/ibexrun); default: the one in PATH
#   --mpi NAME       ibex (default), mpich (mpicc.mpich, mpiexec.mpich) or openmpi
#                    (mpicc.openmpi, mpirun.openmpi --oversubscribe)
#   --work DIR       where to build and keep the logs (default: a new directory in $TMPDIR)
#   --softib         Ibex over verbs on softib with shared memory off (IBEX_TRANSPORTS=verbs)
#   --node-size N    Ibex with faked nodes of N ranks (IBEX_COLL_NODE_SIZE=N: the hierarchy)
#   --minnp N / --maxnp N   run only the entries with N or more / N or fewer ranks
#   --np N           run every program at N ranks instead of the list's counts (once each;
#                    a program that needs other sizes says so and fails: coll2, coll6, coll7,
#                    gatherv, nbcoll2, p_gatherv want a divisor of 10, iallred 2 ranks)
#   --timeout S      time limit of one run (default 120)
#   --only REGEX     run only the entries whose name matches (extended regex)
# A run passes when it exits 0 and prints " No Errors"; anything else is FAIL (exit code, the
# first error line; a time-out has ibexrun's hang report in its log). Exit status: 0 when
# everything passed, 1 otherwise, 2 on usage. Left out of MPICH's list: the neighbourhood
# tests (tests/mpi/topo_conf.sh covers them), bcast_full / bcast_comm_world (they need the
# dtpools library), gather_big (a large-memory test) and the GPU list.
ME=mpich_coll USAGE=31 NODES= MINNP=0 NP=
. "$(dirname "$0")/mpich_lib.sh"
MAXNP=1000
runner_opt() {
    case $1 in
    --node-size) NODES=$2; SHIFT=2 ;;
    --minnp) MINNP=$2; SHIFT=2 ;;
    --maxnp) MAXNP=$2; SHIFT=2 ;;
    --np) NP=$2; SHIFT=2 ;;
    *) return 1 ;;
    esac
}
mlib_options "$@"
mlib_need coll util/mtest.c include/mpitestconf.h
mlib_select
CONF=$MPI${SOFTIB:+-verbs}${NODES:+-nodes$NODES}${NP:+-np$NP}
LOGS=$WORK/logs/$CONF
mkdir -p "$LOGS" || exit 2
[ -z "$NODES" ] || export IBEX_COLL_NODE_SIZE="$NODES"
CFLAGS="-O1 -w -I$SRC/include -I$SRC/dtpools/include"
LIB=$(mlib_util libmtest "$CFLAGS" util/mtest.c util/mtest_common.c util/mtest_single.c) || exit 1

# The list: NAME NP [ARGS]. NAME is the source file, or nbNAME: NAME.c built with
# -DUSE_MTEST_NBC (MPICH's non-blocking variants of blocking tests).
LIST='allred 4 -count=10
allred 7 -count=10
allred 4 -count=100
allredmany 4
allred2 4
allred3 10
allred4 4
allred5 5
allred5 10
allred6 4
allred6 7
reduce 5
reduce 10
reduce_local 2
op_coll 4
op_commutative 2
red3 10
red4 10
alltoall1 8
alltoallv 10
alltoallv0 10
alltoallw1 10
alltoallw2 10
alltoallw_zeros 1
alltoallw_zeros 2
alltoallw_zeros 5
alltoallw_zeros 8
allgather2 10
allgather3 10
allgatherv2 10
allgatherv3 10
allgatherv4 4
allgather_struct 10
bcasttest 4
bcasttest 8
bcasttest 10
bcastzerotype 1
bcastzerotype 4
bcastzerotype 5
bcastzerotype 10
coll2 5
gatherv 5
coll4 4
coll5 4
coll6 5
coll7 1
coll7 2
coll7 5
coll8 4
coll9 4
coll10 4
coll12 4
coll13 4
longuser 4
redscat 4
redscat 6
redscat2 4
redscat2 5
redscat2 10
redscat3 8
redscatinter 8
red_scat_block 4
red_scat_block 5
red_scat_block 8
red_scat_block2 4
red_scat_block2 5
red_scat_block2 10
redscatblk3 8
redscatblk3 10
redscatbkinter 8
redscatbkinter 10
scantst 4
exscan 10
exscan2 5
gather 4
gather2 4
scattern 4
scatter2 4
scatter3 4
scatterv 4
icbcast 4
icbcast 10
icallreduce 5
icallreduce 7
icreduce 5
icreduce 7
icscatter 5
icscatter 7
icgather 5
icgather 7
icallgather 5
icallgather 7
icbarrier 5
icbarrier 7
icallgatherv 5
icallgatherv 7
icgatherv 5
icgatherv 7
icscatterv 5
icscatterv 7
icalltoall 5
icalltoall 7
icalltoallv 5
icalltoallv 7
icalltoallw 5
icalltoallw 7
opland 4
oplor 4
oplxor 4
oplxor 5
opband 4
opbor 4
opbxor 4
opbxor 5
opprod 5
opprod 6
opsum 4
opmin 4
opminloc 4
opmax 5
opmaxloc 5
uoplong 4
uoplong 11
uoplong 16
nonblocking 4
nonblocking 5
nonblocking 10
nonblocking2 1
nonblocking2 4
nonblocking2 5
nonblocking2 10
nonblocking3 1
nonblocking3 4
nonblocking3 5
nonblocking3 10
iallred 2
ibarrier 2
nballtoall1 8
nbcoll2 5
nbredscat 4
nbredscat 8
nbredscat3 8
nbredscatinter 8
nbicbcast 8
nbicallreduce 8
nbicreduce 8
nbicscatter 8
nbicgather 8
nbicallgather 8
nbicbarrier 8
nbicallgatherv 8
nbicgatherv 8
nbicscatterv 8
nbicalltoall 8
nbicalltoallv 8
nbicalltoallw 8
coll_large 8
p_bcast 4
p_bcast2 8
p_allred 4
p_red 4
p_alltoall 8
p_allgather 10
p_allgatherv 10
p_red_scat_block 4
p_redscat 4
p_scan 4
p_gather 4
p_gatherv 5
p_scatter 4
p_scatterv 4
p_alltoallv 10
p_alltoallw 10
p_exscan 5
p_barrier 2
p_order 2'

# build NAME: compiles $WORK/bin/NAME once; returns non-zero (log in $WORK/logs) on failure.
build() {
    case $1 in
    nb*) src=${1#nb} def=-DUSE_MTEST_NBC ;;
    *) src=$1 def= ;;
    esac
    mlib_build "$1" "$WORK/logs/$1.build" "$CFLAGS $def" "$SRC/coll/$src.c" "$LIB"
}

seen=' '
echo "$LIST" | while read -r name np args; do
    [ -n "$NP" ] && {
        case $seen in *" $name "*) continue ;; esac
        seen="$seen$name "
        np=$NP
    }
    [ "$np" -ge "$MINNP" ] && [ "$np" -le "$MAXNP" ] || continue
    label="$name $np${args:+ $args}"
    echo "$label" | grep -Eq -- "$ONLY" || continue
    if ! build "$name"; then
        printf '%-40s BUILD (%s)\n' "$label" "$(grep -m1 -E 'error|undefined' "$WORK/logs/$name.build" | cut -c1-100)"
        continue
    fi
    log="$LOGS/$(echo "$label" | tr ' =/' '___').log"
    # shellcheck disable=SC2086
    mlib_launch "$np" "$T" "$WORK/bin/$name" $args >"$log" 2>&1
    rc=$?
    if mlib_check $rc "$log"; then
        printf '%-40s ok\n' "$label"
    else
        printf '%-40s FAIL (exit %s: %s)\n' "$label" "$rc" "$(mlib_why "$log")"
    fi
done | tee "$LOGS/table"
npass=$(grep -c ' ok$' "$LOGS/table")
nfail=$(grep -c ' FAIL (' "$LOGS/table")
nbuild=$(grep -c ' BUILD (' "$LOGS/table")
echo "mpich_coll ($CONF): $npass passed, $nfail failed, $nbuild not built; logs in $LOGS"
[ "$nfail" -eq 0 ] && [ "$nbuild" -eq 0 ]
