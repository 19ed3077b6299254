#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The full matrix of the standard-only programs (make check-std-full, not make check): each
# program at 2, 3, 4 and 5 ranks over shared memory and over verbs on softib with shared memory
# off, with every algorithm of every collective kind forced in turn (IBEX_COLL_<KIND>=algo, the
# list from ibex_info), and with a forced node split (IBEX_COLL_NODE_SIZE=2: the hierarchical
# paths). STD_FULL_PROGS and STD_FULL_NP narrow it.
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-300}
. "$top_srcdir/tests/mpi/lib.sh"
MPI_T="$top_builddir/tests/std"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
PROGS=${STD_FULL_PROGS:-"std_ops std_dtype std_nbc std_coll std_inter std_coll2"}
NPS=${STD_FULL_NP:-"2 3 4 5"}
VERBS=
[ -f "$SOFTIB" ] && VERBS="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
# "KIND algo algo ..." lines from ibex_info
ALGS=$("$top_builddir/runtime/ibex_info" | sed -n '/^collective algorithms/,/^$/p' |
    sed -n 's/^    \([a-z_]*\)  *\(.*\)$/\1 \2/p' | tr -d ',')
for prog in $PROGS; do
    for np in $NPS; do
        run_case "$np" "$prog"
        [ -n "$VERBS" ] && run_case "$np" "$prog" $VERBS
        run_case "$np" "$prog" IBEX_COLL_NODE_SIZE=2
        [ -n "$VERBS" ] && run_case "$np" "$prog" IBEX_COLL_NODE_SIZE=2 $VERBS
    done
    # every forced algorithm at 3 and 5 ranks (odd sizes: the non-power-of-two paths), shm and verbs
    while read -r kind list; do
        var=IBEX_COLL_$(printf '%s' "$kind" | tr a-z A-Z)
        for alg in $list; do
            for np in 3 4 5; do
                [ "$np" = 4 ] && continue
                run_case "$np" "$prog" "$var=$alg"
                case $alg in shmem*) ;; *) [ -n "$VERBS" ] && run_case "$np" "$prog" "$var=$alg" $VERBS ;; esac
            done
        done
    done <<END
$ALGS
END
done
[ -n "$VERBS" ] && softib_sweep "$SOFTIB"
mt_finish
