#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The shared-memory collectives (tests/collectives/coll_shm.c) under ibexrun, at the rank counts
# of COLL_SHM_RANKS (default 1 2 3 8: on this 2-core machine 3 and 8 are oversubscribed), with
# the two-rank Reduce paths and the early single-copy Bcast forced (tunables) at 2 and 4, and
# coll_all (every algorithm) at COLL_ALL_RANKS (default 5 8: coll.sh runs it at 1-4; `make
# check-coll-shm` runs 5-8 too), and both at COLL_HIER_RANKS (default 4 5) with
# IBEX_COLL_NODE_SIZE=2 for the hierarchical algorithms. Fails if a segment name is left in
# /dev/shm.
set -u
run="$top_builddir/launcher/ibexrun"
status=0
one() {
    prog=$1 n=$2
    out=$(timeout 200 "$run" -n "$n" --timeout 180 "$top_builddir/tests/collectives/$prog" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^$prog: ok$"; then
        echo "FAIL: $prog -n $n (exit $rc)"
        printf '%s\n' "$out" | tail -20
        status=1
    else
        echo "ok: $prog -n $n"
    fi
    if ls /dev/shm 2>/dev/null | grep -q '^ibex-coll'; then
        echo "FAIL: $prog -n $n left $(ls /dev/shm | grep '^ibex-coll' | head -1) in /dev/shm"
        status=1
    fi
}
for n in ${COLL_SHM_RANKS:-1 2 3 8}; do one coll_shm "$n"; done
# the two-rank Reduce paths other than the default pull (IBEX_COLL_SHM_PAIR_REDUCE: every
# root, in place, odd counts, non-commutative ops), from 4 KiB (the single-copy Allgather
# too), in pieces, and Bcast single copy below the inline limit (IBEX_COLL_SHM_BCAST_SINGLE),
# with a core each and oversubscribed
for m in slots push; do IBEX_COLL_SHM_PAIR_REDUCE=$m one coll_shm 2; done
IBEX_COLL_SHM_PAIR_REDUCE=pull IBEX_COLL_SHM_PAIR_INLINE=4k one coll_shm 2
# the pull and the push in pieces of 4 KiB (IBEX_COLL_SHM_PAIR_CHUNK): many pieces per call
for m in pull push; do
    IBEX_COLL_SHM_PAIR_REDUCE=$m IBEX_COLL_SHM_PAIR_INLINE=4k IBEX_COLL_SHM_PAIR_CHUNK=4k one coll_shm 2
done
for n in 2 4; do IBEX_COLL_SHM_BCAST_SINGLE=4k one coll_shm "$n"; done
# the two-rank split Bcast (IBEX_COLL_SHM_PAIR_SPLIT: the root writes the second half while the
# other reads the first) from 17 bytes, odd halves and derived types included, and turned off
IBEX_COLL_SHM_PAIR_SPLIT=1 IBEX_COLL_SHM_PAIR_INLINE=16 one coll_shm 2
IBEX_COLL_SHM_PAIR_SPLIT=1 IBEX_COLL_SHM_PAIR_INLINE=16 one coll_all 2
IBEX_COLL_SHM_PAIR_SPLIT=0 one coll_shm 2
# the two-rank Reduce where both ranks fold (IBEX_COLL_SHM_PAIR_REDUCE_SPLIT) from 9 KiB: every
# root, in place, odd counts; non-commutative user ops (split at root 1, pulled at root 0)
for p in coll_shm conf_red; do IBEX_COLL_SHM_PAIR_REDUCE_SPLIT=9k one "$p" 2; done
# the staging slots (IBEX_COLL_SHM_STAGE; the staged Allgather is forced inside coll_shm, the
# staged Bcast is the oversubscribed default): slots of 100 KiB, so that the 40000-int blocks go
# past them (single copy) and the 16385-int ones through them, then none at all
for n in 3 4; do IBEX_COLL_SHM_STAGE=100k one coll_shm "$n"; done
IBEX_COLL_SHM_STAGE=0 one coll_shm 4
# Gatherv / Scatterv in shared memory (every algorithm forced by coll_v): at 8 ranks, and with
# 256-byte slots so that one call mixes inline blocks and blocks read by address (Scatterv's
# shares of the root's slot are 64 bytes at 3 ranks)
one coll_v 8
IBEX_COLL_SHM_INLINE=256 one coll_v 3
# Allgatherv in shared memory (shmem, shmem_staged; forced by coll_v, as the Alltoallv /
# Alltoallw shmem below): one call mixing inline,
# staged and single-copy blocks (the 30000 + r int blocks on both sides of 120010 bytes), and
# single copy from 4 KiB at two ranks with a core each
IBEX_COLL_SHM_INLINE=256 IBEX_COLL_SHM_STAGE=120010 one coll_v 8
IBEX_COLL_SHM_PAIR_INLINE=4k one coll_v 2
# ... and from 16 bytes, so that the 7-int blocks, which fit Scatterv's shares and the slots, go
# single copy too (the two-rank rule of Gatherv / Scatterv / Allgatherv)
IBEX_COLL_SHM_PAIR_INLINE=16 one coll_v 2
# Alltoallv / Alltoallw in shared memory with a slot that holds the table and little else
# (64 bytes: at 8 ranks the table fills it, so every non-empty block is read by address)
IBEX_COLL_SHM_INLINE=64 one coll_v 8
# Scan / Exscan in shared memory past the inline limit (3001 ints: recursive doubling instead)
IBEX_COLL_SHM_INLINE=256 one coll_red 3
# the waits' spin before the first yield (IBEX_COLL_SHM_SPIN), oversubscribed
IBEX_COLL_SHM_SPIN=1000 one coll_shm 3
for n in ${COLL_ALL_RANKS-5 8}; do one coll_all "$n"; done
# the hierarchy, with nodes of 2 ranks faked (5: the last node has one rank)
for n in ${COLL_HIER_RANKS-4 5}; do
    IBEX_COLL_NODE_SIZE=2 one coll_shm "$n"
    IBEX_COLL_NODE_SIZE=2 one coll_all "$n"
done
# MPI_Allreduce's short path (at most 24 bytes of a predefined type and op): every size, type
# and op against references, which path ran, forced algorithms, bad arguments; oversubscribed
# at 3 and 8; never without shared memory among the transports (verbs on softib)
for n in 1 2 3 8; do one coll_short "$n"; done
IBEX_TRANSPORTS=verbs LD_PRELOAD="$top_builddir/softib/.libs/libsoftib.so" one coll_short 3
# the shared accumulator of Reduce / Allreduce (a commutative op past the inline limit, 3 to
# 16 ranks): which path ran, back to back, late ranks; at 4 KiB chunks (past its 64 chunks:
# longer ones) and turned off (IBEX_COLL_SHM_ACC=0: never counted)
for n in 1 3 4 8; do one coll_acc "$n"; done
IBEX_COLL_SHM_CHUNK=4k one coll_acc 5
IBEX_COLL_SHM_ACC=0 one coll_acc 3
# Scatter / Alltoall in shared memory; the segment is a memfd (checked by the program)
for n in ${COLL_A2A_RANKS-2 3 5}; do one coll_shm_a2a "$n"; done
# ... with the oversubscribed single-copy Alltoall moving each block by whichever of its two
# ranks gets to it first (IBEX_COLL_SHM_A2A_PAIRS, from 8 ranks by default) at 3 and 5 ranks
for n in 3 5; do IBEX_COLL_SHM_A2A_PAIRS=2 one coll_shm_a2a "$n"; done
# without shared memory among the transports no segment is made (the verbs path on softib)
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB" COLL_A2A_NOSEG=1 one coll_shm_a2a 3
# a rank dying with the segment mapped: the job fails and leaves no process and no file
out=$(timeout 100 "$run" -n 3 --timeout 60 "$top_builddir/tests/collectives/coll_shm_a2a" die 2>&1)
rc=$?
left=$(pgrep -f "$top_builddir/tests/collectives/coll_shm_a2a" | head -3)
if [ $rc -eq 0 ] || [ -n "$left" ] || ls /dev/shm 2>/dev/null | grep -q '^ibex-coll'; then
    echo "FAIL: coll_shm_a2a -n 3 die (exit $rc${left:+, processes left: $left})"
    printf '%s\n' "$out" | tail -10
    [ -n "$left" ] && pkill -9 -f "$top_builddir/tests/collectives/coll_shm_a2a"
    status=1
else
    echo "ok: coll_shm_a2a -n 3 die (exit $rc, nothing left)"
fi
exit $status
