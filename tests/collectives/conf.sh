#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Conformance programs written against the MPI standard only, as MPICH's test/mpi/coll and the
# conformance suites check collectives (tests/collectives/conf_*.c; each also builds and runs
# with Open MPI and MPICH, -DCONF_PEER): every predefined op on every type (conf_ops), the
# reductions with user ops commutative and not (conf_red), the data-movement collectives with
# derived types, MPI_IN_PLACE and zero counts (conf_data), intercommunicator collectives
# (conf_inter), many non-blocking collectives in flight, persistent restarts, NULL buffers at
# zero counts, a displaced struct type, the _c forms and error classes (conf_nbc), equal type
# signatures from different (count, datatype) pairs (conf_sig); conf_red, conf_data, conf_inter
# and conf_sig run every case blocking, non-blocking and persistent.
# make check: each program at 2-5 ranks by the table; every algorithm forced (all kinds at
# once, the k-th algorithm of each kind in set k, so five sets cover every name ibex_info
# lists) at 3 ranks; the sets naming hier with faked nodes; the table with faked nodes;
# one case over verbs on softib. CONF_FULL=1 (make check-coll-conf): every set at 2-5 ranks,
# the hierarchy at 2-5, verbs at 2-4 and no eager data.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/collectives"
CASE_TIMEOUT=${CONF_TIMEOUT:-180}
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
PROGS="conf_ops conf_red conf_data conf_inter conf_nbc conf_sig"
FULL=${CONF_FULL:-0}

# algo_set K: IBEX_COLL_<KIND>=<its K-th algorithm, modulo its count> for every kind.
algo_set() {
    "$top_builddir/runtime/ibex_info" 2>/dev/null | sed -n '/^collective algorithms/,/^$/p' |
        awk -v k="$1" 'NR > 1 && NF > 1 {
            kind = toupper($1); $1 = ""; gsub(/ /, ""); n = split($0, a, ",");
            printf "IBEX_COLL_%s=%s ", kind, a[k % n + 1] }'
}

ranks="2 3 4 5"
for np in $ranks; do
    for prog in $PROGS; do
        run_case "$np" "$prog"
    done
done
set_ranks=3
[ "$FULL" = 1 ] && set_ranks="2 3 4 5"
for k in 0 1 2 3 4; do
    set=$(algo_set "$k")
    [ -n "$set" ] || { mt_fail=$((mt_fail + 1)); echo "FAIL no algorithm list from ibex_info"; break; }
    for np in $set_ranks; do
        for prog in conf_red conf_data conf_inter conf_nbc conf_sig; do
            # shellcheck disable=SC2086
            run_case "$np" "$prog" $set
        done
    done
done
hier="IBEX_COLL_NODE_SIZE=2"
# the sets naming hier again with faked nodes, so hier runs instead of falling back
for k in 2 3 4; do
    [ "$FULL" = 1 ] || [ "$k" != 2 ] || continue
    for np in $([ "$FULL" = 1 ] && echo "3 4 5" || echo 4); do
        for prog in conf_red conf_data conf_sig; do
            # shellcheck disable=SC2086
            run_case "$np" "$prog" $(algo_set "$k") $hier
        done
    done
done
for np in $([ "$FULL" = 1 ] && echo "2 3 4 5" || echo 4); do
    for prog in $PROGS; do
        run_case "$np" "$prog" $hier
    done
done
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
for np in $([ "$FULL" = 1 ] && echo "2 3 4" || echo 3); do
    for prog in $PROGS; do
        # shellcheck disable=SC2086
        run_case "$np" "$prog" $V
    done
done
if [ "$FULL" = 1 ]; then
    for prog in $PROGS; do
        run_case 4 "$prog" IBEX_EAGER_LIMIT=0
    done
fi
softib_sweep "$SOFTIB"
mt_finish
