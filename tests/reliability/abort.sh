#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Abort while the peers still send to the aborting rank: rank 0 of 3 takes two messages from
# each, then calls MPI_Abort(MPI_COMM_WORLD, 3) while ranks 1 and 2 each MPI_Send 300 more to it
# (err_prog abortsend), over shared memory (eager sizes that fill the ring, so sends wait in the
# backlog, and PIPE) and over verbs on softib. The job must end under its time limit with the
# abort's own message and a non-zero code, no peer may die on an assertion (a send from the
# backlog that found rank 0 gone completed its request twice: `!req->complete` in
# ibex_req_complete), and nothing may be left: no rank process, nothing in TMPDIR, no PMIx or
# softib file in /dev/shm (tests/launcher/lib.sh; softib's under a namespace of this test).
. "${top_srcdir:?}/tests/launcher/lib.sh"
R=$B/tests/reliability
NS=abort$$
SIB_BEFORE=$(ls /dev/shm 2>/dev/null | grep -- "-$(id -u)$NS" | sort)

# abort_case WHAT BYTES IBEXRUN-ARGS...
abort_case() {
    what=$1 bytes=$2
    shift 2
    run 60 -n 3 --timeout 40 -x SOFTIB_NAMESPACE=$NS "$@" "$R/err_prog" abortsend 300 "$bytes" \
        "$MARK"
    if [ "$RC" = 0 ] || [ "$RC" = 124 ]; then
        fail "$what: exit code $RC (0: not failed, 124: timed out); stderr: $ERR"
    elif ! printf '%s\n' "$ERR" | grep -Eq "rank 0 \(pid [0-9]+\) aborted the job with code 3"; then
        fail "$what: no abort message naming rank 0 and code 3: $ERR"
    elif printf '%s\n' "$ERR$OUT" | grep -Eiq "assert|signal 6|Aborted \(core"; then
        fail "$what: an assertion: $ERR"
    else
        pass "$what (exit $RC, ${MS} ms)"
    fi
    leftovers "$what"
    case "$*" in *--softib*) # ranks killed by the job's end leave their softib segments, which
        # the next softib process of the namespace sweeps (softib_shm.c reg_sweep): one does
        TMPDIR=$WORK/tmp timeout 30 "$IBEXRUN" -n 1 --softib -x SOFTIB_NAMESPACE=$NS \
            "$R/err_prog" sleep 0 "$MARK" >/dev/null 2>&1 </dev/null ;;
    esac
    now=$(ls /dev/shm 2>/dev/null | grep -- "-$(id -u)$NS" | sort)
    [ "$now" = "$SIB_BEFORE" ] || fail "$what: softib files left in /dev/shm: $now"
}

abort_case "MPI_Abort against blocking sends, shm, 8 B" 8
abort_case "MPI_Abort against blocking sends, shm, 4 KiB" 4096
abort_case "MPI_Abort against blocking sends, shm, 16 KiB" 16000
abort_case "MPI_Abort against blocking sends, shm PIPE, 64 KiB" 65536
abort_case "MPI_Abort against blocking sends, verbs on softib, 4 KiB" 4096 --softib
abort_case "MPI_Abort against blocking sends, verbs on softib, 64 KiB" 65536 --softib
finish
