#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Large counts end to end: tests/mpi/large_msg.c at 2 ranks through lib.sh's run_case (time
# limit, no process or file left). make check: every point-to-point _c call with small counts,
# over shared memory and over verbs on softib (a second); one 2.5 GiB message takes 50-80 s on
# this machine when it is loaded, so the big ones are only in MT_LARGE_FULL=1 (make
# check-large): large_coll (Bcast_c / Reduce_c / Allreduce_c / Gather(v)_c past INT_MAX
# elements, Bcast_c / Gatherv_c also non-blocking and persistent), every case at 3 GiB over shared memory, again with forced WRITE rendezvous, and
# over verbs on softib (about 10 GiB of memory at once: skipped when it is not available).
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-400}
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
# large CASE MIB [VAR=VALUE ...]: one case of large_msg at MIB MiB
large() {
    echo "large_msg case $1, $2 MiB:"
    MT_ARGS="$2 $1"
    shift 2
    run_case 2 large_msg "$@"
    MT_ARGS=
}
if [ -z "${MT_LARGE_FULL:-}" ]; then
    MT_ARGS=1 # the collectives' _c forms with 1 MiB: the int path (v / w: displacements past it)
    run_case 2 large_coll
    MT_ARGS=
    large calls 1
    if [ -f "$SOFTIB" ]; then
        large calls 1 IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
        softib_sweep "$SOFTIB"
    fi
    mt_finish
    exit $?
fi
avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
if [ "${avail_mib:-0}" -lt 11000 ]; then
    echo "SKIP: ${avail_mib} MiB available, 3 GiB messages need about 11000 MiB"
    exit 77
fi
# the same-count collectives' _c forms with INT_MAX + 9 bytes per rank (about 8 GiB at the
# root; 13 minutes on this machine when it is loaded), then Bcast_c and Gatherv_c again
# non-blocking and persistent (started twice)
saved_timeout=$CASE_TIMEOUT
CASE_TIMEOUT=3000
run_case 2 large_coll
CASE_TIMEOUT=$saved_timeout
for c in contig strided scatter chunks; do
    large "$c" 3072
    large "$c" 3072 IBEX_RNDV_SCHEME=write
    if [ -f "$SOFTIB" ]; then
        large "$c" 3072 IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
        softib_sweep "$SOFTIB"
    fi
done
mt_finish
