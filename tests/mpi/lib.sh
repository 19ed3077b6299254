# SPDX-License-Identifier: BSD-3-Clause
# Shared by the MPI suites: runs test programs under ibexrun with a time limit, one line per
# case, and checks that no rank process is left behind. Sourced, not run.
IBEXRUN="$top_builddir/launcher/ibexrun"
MPI_T="$top_builddir/tests/mpi"
P2P_PROGS="p2p_order p2p_wildcard p2p_probe p2p_special p2p_persist p2p_sizes p2p_many
p2p_flood p2p_datatype p2p_errors p2p_progress p2p_realloc p2p_fastpath p2p_sent"
CASE_TIMEOUT=${CASE_TIMEOUT:-240}
mt_pass=0
mt_fail=0
# Ranks of this suite carry MT_MARK in their environment, so the leftover check finds only
# them, not the same program run by another suite at the same time (make -j check).
MT_MARK="ibex-mt-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
# softib's shared-memory names carry a namespace of this suite too, so softib_sweep sees only
# the files of this suite's ranks, not those of another suite's live softib jobs.
SOFTIB_NAMESPACE=${SOFTIB_NAMESPACE:-mt$(printf '%s' "$MT_MARK" | tr -dc '0-9a-f' | tail -c 12)}
export SOFTIB_NAMESPACE

# mt_left: the pids (up to 3) of processes still carrying this suite's mark.
mt_left() {
    grep -lszx -- "MPITEST_RUN_MARK=$MT_MARK" /proc/[0-9]*/environ 2>/dev/null |
        sed 's|/proc/\([0-9]*\)/environ|\1|' | head -3
}

# run_case NPROCS PROGRAM [VAR=VALUE ...]: the program must exit 0 and print "PROGRAM: ok".
# MT_ARGS, when set, are the program's arguments. The run reads /dev/null: ibexrun forwards standard
# input, so a caller looping over `while read` would lose the rest of its list to the first run.
run_case() {
    np=$1
    prog=$2
    shift 2
    out=$(env MPITEST_RUN_MARK="$MT_MARK" "$@" timeout -k 5 "$CASE_TIMEOUT" "$IBEXRUN" -n "$np" --timeout "$((CASE_TIMEOUT - 10))" \
        "$MPI_T/$prog" ${MT_ARGS:-} 2>&1 </dev/null)
    rc=$?
    left=$(mt_left)
    if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "^$prog: ok" && [ -z "$left" ]; then
        mt_pass=$((mt_pass + 1))
        echo "ok   $prog -n $np $*"
    else
        mt_fail=$((mt_fail + 1))
        echo "FAIL $prog -n $np $* (exit $rc${left:+, processes left: $left})"
        printf '%s\n' "$out" | tail -25 | sed 's/^/    /'
        [ -n "$left" ] && kill -9 $left 2>/dev/null
    fi
}

# p2p_suite [VAR=VALUE ...]: every point-to-point program at 2, 3 and 4 ranks.
p2p_suite() {
    for np in 2 3 4; do
        for prog in $P2P_PROGS; do
            run_case "$np" "$prog" "$@"
        done
    done
}

mt_finish() {
    echo "$mt_pass passed, $mt_fail failed"
    [ "$mt_fail" -eq 0 ]
}

mt_require_ibexrun() {
    if [ ! -x "$IBEXRUN" ]; then
        echo "ibexrun not built at $IBEXRUN"
        exit 1
    fi
}

# softib_sweep: after ranks were killed under softib (no destructor ran), open and close the
# device once so softib removes the dead contexts' segments, then check nothing is left.
softib_sweep() {
    LD_PRELOAD="$1" timeout 30 ibv_devinfo >/dev/null 2>&1
    left=$(ls /dev/shm 2>/dev/null | grep "^softib-$(id -u)$SOFTIB_NAMESPACE[-.]")
    if [ -n "$left" ]; then
        mt_fail=$((mt_fail + 1))
        echo "FAIL files left in /dev/shm: $left"
    fi
}
