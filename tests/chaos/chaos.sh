#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The seeded chaos matrix: chaos_p2p over verbs on softib under each injected fault (softib's
# SOFTIB_FAULT_* and SOFTIB_DROP_RATE, see softib/README.md), for every seed. Each run must
#   ok:  complete with every byte right (delays, retransmissions, duplicates: invisible to MPI);
#   err: end within CHAOS_ERR_S (20 s) with a clear error naming the peer (and the IBV_WC_ status,
#        or, for a vanished process, the launcher's line naming the killed rank);
#   any: one or the other (faults drawn with a probability may not hit a short run).
# Never a hang (ibexrun --timeout fires: FAIL), never wrong data ("CORRUPT": FAIL), no process
# or /dev/shm file left behind.
# CHAOS_LONG=1 (make check-chaos): more seeds, 2 to 4 ranks, longer runs.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
PROG="$top_builddir/tests/chaos/chaos_p2p"
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
if [ "${CHAOS_LONG:-0}" = 1 ]; then
    SEEDS=${CHAOS_SEEDS:-"1 2 3 4 5 6"}
    NPS="2 3 4"
    ROUNDS=48
else
    SEEDS=${CHAOS_SEEDS:-"1"}
    NPS="2"
    ROUNDS=16
fi
LIMIT=${CHAOS_LIMIT:-60}
# an injected error must end the job this fast: softib's transport timeout is capped at 100 ms,
# retries at 7, so the slowest detection (a retry-exceeded peer) takes under 1 s
ERR_S=${CHAOS_ERR_S:-20}
clear_re='peer rank [0-9]+ on [^ ]+ .*IBV_WC_[A-Z_]+|rank [0-9]+ \(pid [0-9]+\) killed by signal 9'

# chaos_run NAME EXPECT NP SEED VAR=VALUE...
chaos_run() {
    name=$1 expect=$2 np=$3 seed=$4
    shift 4
    start=$(date +%s)
    out=$(env $V SOFTIB_SEED="$seed" "$@" timeout -k 5 "$LIMIT" "$IBEXRUN" -n "$np" \
        --timeout "$((LIMIT - 10))" "$PROG" "$ROUNDS" 2>&1)
    rc=$?
    secs=$(( $(date +%s) - start ))
    left=$(pgrep -f "$PROG" | head -3)
    [ -n "$left" ] && pkill -9 -f "$PROG"
    got=fail
    if printf '%s\n' "$out" | grep -q CORRUPT; then
        got=corrupt
    elif [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^chaos_p2p: ok'; then
        got=ok
    elif [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
         [ "$secs" -le "$ERR_S" ] && printf '%s\n' "$out" | grep -qE "$clear_re"; then
        got=err
    fi
    # a fault case that injected nothing proves nothing (transport/fault.c counts at close)
    case "$name" in shm-delay* | shm-stall)
        printf '%s\n' "$out" | grep -Eq "refused ([1-9][0-9]* sends|[0-9]+ sends and [1-9])" ||
            got="$got, nothing injected" ;;
    esac
    if [ -z "$left" ] && { [ "$got" = "$expect" ] ||
        { [ "$expect" = any ] && { [ "$got" = ok ] || [ "$got" = err ]; }; }; }; then
        mt_pass=$((mt_pass + 1))
        why=$(printf '%s\n' "$out" | grep -oE "$clear_re" | head -1)
        echo "ok   $name -n $np seed $seed: $got in $secs s${why:+ ($why)}"
    else
        mt_fail=$((mt_fail + 1))
        echo "FAIL $name -n $np seed $seed: wanted $expect, got $got (exit $rc, $secs s${left:+, left: $left})"
        printf '%s\n' "$out" | grep -v "injected" | tail -12 | sed 's/^/    /'
    fi
}

for np in $NPS; do
    for s in $SEEDS; do
        skip="SOFTIB_FAULT_ERR_SKIP=$((10 + 7 * s))"
        # a lost packet is retransmitted: late, never lost, never twice
        chaos_run drop ok "$np" "$s" SOFTIB_DROP_RATE=0.05
        chaos_run delay ok "$np" "$s" SOFTIB_FAULT_DELAY_RATE=0.2 SOFTIB_FAULT_DELAY_MAX_US=3000
        chaos_run dup-read ok "$np" "$s" SOFTIB_FAULT_DUP_RATE=0.5 IBEX_RNDV_SCHEME=read
        chaos_run err-send err "$np" "$s" "$skip" SOFTIB_FAULT_ERR_RATE=0.1 SOFTIB_FAULT_OPS=send
        chaos_run err-write err "$np" "$s" "$skip" SOFTIB_FAULT_ERR_RATE=0.2 SOFTIB_FAULT_OPS=write \
            IBEX_RNDV_SCHEME=write
        chaos_run err-read err "$np" "$s" "$skip" SOFTIB_FAULT_ERR_RATE=0.2 SOFTIB_FAULT_OPS=read \
            IBEX_RNDV_SCHEME=read
        chaos_run retry-exc err "$np" "$s" "$skip" SOFTIB_FAULT_ERR_RATE=0.1 SOFTIB_FAULT_STATUS=retry_exc
        chaos_run rem-access err "$np" "$s" "$skip" SOFTIB_FAULT_ERR_RATE=0.1 SOFTIB_FAULT_STATUS=rem_access \
            SOFTIB_FAULT_OPS=read,write
        chaos_run qp-err err "$np" "$s" SOFTIB_FAULT_QP_ERR_AFTER=$((20 + 9 * s))
        chaos_run vanish-read err "$np" "$s" SOFTIB_FAULT_VANISH_AFTER=$((3 + s)) IBEX_RNDV_SCHEME=read
        if [ "${CHAOS_LONG:-0}" = 1 ]; then
            chaos_run vanish-write err "$np" "$s" SOFTIB_FAULT_VANISH_AFTER=$((3 + s)) \
                IBEX_RNDV_SCHEME=write
            chaos_run mixed any "$np" "$s" SOFTIB_DROP_RATE=0.02 SOFTIB_FAULT_DELAY_RATE=0.05 \
                SOFTIB_FAULT_DUP_RATE=0.1 SOFTIB_FAULT_ERR_RATE=0.0005
            chaos_run drop-heavy ok "$np" "$s" SOFTIB_DROP_RATE=0.3
        fi
    done
done
# Shared memory has no fault injection of its own: the decorator of transport/fault.c wraps its
# ops (IBEX_TL_FAULT=shm): delays that reorder across peers (never within a pair), stalls, a
# rank killed at its N-th put / get (a rendezvous under way: READ makes the receiver get, WRITE
# the sender put).
VSAVE=$V
V="IBEX_TL_FAULT=shm"
for np in $NPS; do
    for s in $SEEDS; do
        f="IBEX_TL_FAULT_SEED=$s"
        chaos_run shm-delay ok "$np" "$s" "$f" IBEX_TL_FAULT_DELAY=30 IBEX_TL_FAULT_HOLD=16
        chaos_run shm-stall ok "$np" "$s" "$f" IBEX_TL_FAULT_STALL=2 IBEX_TL_FAULT_STALL_US=500 \
            IBEX_TL_FAULT_DELAY=5
        chaos_run shm-kill-get err "$np" "$s" "$f" IBEX_TL_FAULT_KILL_AFTER=$((2 + s)) \
            IBEX_TL_FAULT_KILL_RANK=$((s % np)) IBEX_RNDV_SCHEME=read
        if [ "${CHAOS_LONG:-0}" = 1 ]; then
            chaos_run shm-kill-put err "$np" "$s" "$f" IBEX_TL_FAULT_KILL_AFTER=$((2 + s)) \
                IBEX_TL_FAULT_KILL_RANK=$(((s + 1) % np)) IBEX_RNDV_SCHEME=write
            chaos_run shm-delay-heavy ok "$np" "$s" "$f" IBEX_TL_FAULT_DELAY=80 \
                IBEX_TL_FAULT_HOLD=64 IBEX_TL_FAULT_STALL=1
        fi
    done
done
V=$VSAVE
softib_sweep "$SOFTIB"
mt_finish
