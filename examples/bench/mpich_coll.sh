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
set -u
SRC= PREFIX= MPI=ibex WORK= SOFTIB= NODES= MINNP=0 MAXNP=1000 NP= T=120 ONLY=.
usage() {
    sed -n '3,31p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --src) SRC=$2; shift ;;
    --prefix) PREFIX=$2; shift ;;
    --mpi) MPI=$2; shift ;;
    --work) WORK=$2; shift ;;
    --softib) SOFTIB=1 ;;
    --node-size) NODES=$2; shift ;;
    --minnp) MINNP=$2; shift ;;
    --maxnp) MAXNP=$2; shift ;;
    --np) NP=$2; shift ;;
    --timeout) T=$2; shift ;;
    --only) ONLY=$2; shift ;;
    -h | --help) usage ;;
    *) echo "mpich_coll: unknown option $1" >&2; usage ;;
    esac
    shift
done
[ -d "$SRC/coll" ] && [ -f "$SRC/util/mtest.c" ] || { echo "mpich_coll: --src DIR must hold coll/ and util/mtest.c" >&2; usage; }
[ -f "$SRC/include/mpitestconf.h" ] || { echo "mpich_coll: $SRC/include/mpitestconf.h is missing (write it for this machine)" >&2; exit 2; }
case $MPI in
ibex)
    if [ -n "$PREFIX" ]; then
        CC=$PREFIX/bin/ibexcc RUN=$PREFIX/bin/ibexrun
    else
        CC=$(command -v ibexcc) RUN=$(command -v ibexrun)
    fi
    [ -x "${CC:-}" ] && [ -x "${RUN:-}" ] || { echo "mpich_coll: no ibexcc / ibexrun (--prefix)" >&2; exit 2; }
    ;;
mpich) CC=mpicc.mpich RUN=mpiexec.mpich ;;
openmpi) CC=mpicc.openmpi RUN=mpirun.openmpi ;;
*) echo "mpich_coll: --mpi ibex|mpich|openmpi" >&2; exit 2 ;;
esac
[ -n "$WORK" ] || WORK=$(mktemp -d "${TMPDIR:-/tmp}/mpich_coll.XXXXXX")
CONF=$MPI${SOFTIB:+-verbs}${NODES:+-nodes$NODES}${NP:+-np$NP}
LOGS=$WORK/logs/$CONF
mkdir -p "$WORK/bin" "$LOGS" || exit 2
[ -z "$NODES" ] || export IBEX_COLL_NODE_SIZE="$NODES"
CFLAGS="-O1 -w -I$SRC/include -I$SRC/dtpools/include"
npass=0 nfail=0 nbuild=0

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
    [ -x "$WORK/bin/$1" ] && return 0
    [ -f "$WORK/logs/$1.build" ] && return 1
    case $1 in
    nb*) src=${1#nb} def=-DUSE_MTEST_NBC ;;
    *) src=$1 def= ;;
    esac
    # shellcheck disable=SC2086
    $CC $CFLAGS $def -o "$WORK/bin/$1" "$SRC/coll/$src.c" "$SRC/util/mtest.c" \
        "$SRC/util/mtest_common.c" "$SRC/util/mtest_single.c" -lm >"$WORK/logs/$1.build" 2>&1
}

# run NP PROG ARGS...: one run with a time limit under the chosen library.
run() {
    np=$1
    shift
    case $MPI in
    ibex)
        if [ -n "$SOFTIB" ]; then
            IBEX_TRANSPORTS=verbs timeout -k 10 "$T" "$RUN" -n "$np" --softib --timeout "$((T - 5))" "$@"
        else
            timeout -k 10 "$T" "$RUN" -n "$np" --timeout "$((T - 5))" "$@"
        fi
        ;;
    mpich) timeout -k 10 "$T" "$RUN" -n "$np" "$@" ;;
    openmpi) timeout -k 10 "$T" "$RUN" --oversubscribe --allow-run-as-root -n "$np" "$@" ;;
    esac
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
    run "$np" "$WORK/bin/$name" $args </dev/null >"$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^ No Errors' "$log"; then
        printf '%-40s ok\n' "$label"
    else
        printf '%-40s FAIL (exit %s: %s)\n' "$label" "$rc" \
            "$(grep -v -m1 -E '^ No Errors|^$' "$log" | cut -c1-100)"
    fi
done | tee "$LOGS/table"
npass=$(grep -c ' ok$' "$LOGS/table")
nfail=$(grep -c ' FAIL (' "$LOGS/table")
nbuild=$(grep -c ' BUILD (' "$LOGS/table")
echo "mpich_coll ($CONF): $npass passed, $nfail failed, $nbuild not built; logs in $LOGS"
[ "$nfail" -eq 0 ] && [ "$nbuild" -eq 0 ]
