#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The large-count one-sided calls (tests/win/win_large.c) at 2 ranks. make check: counts and
# displacement units past an int with little memory, over shared memory, on the network
# direct path over verbs on softib and on the active-message path. MT_LARGE_FULL=1 (make
# check-large): 2.5 GiB Put_c / Get_c / Accumulate_c / Get_accumulate_c over the shared
# mapping (allocated window), cross-memory attach (created window),
# verbs on softib (RDMA WRITE / READ, accumulate lock in pieces of 64 MiB), and on active
# messages (in pieces of whole target elements, 1 GiB each), each also with a strided target
# type past INT_MAX bytes;
# about 8 GiB of memory at once. make check runs the same with 16 MiB on active messages in
# 1 MiB pieces (IBEX_WIN_AM_PIECE) and on the shared mapping.
CASE_TIMEOUT=${CASE_TIMEOUT:-900} # a 2.5 GiB case takes minutes on a loaded machine
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/win"
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
if [ -z "${MT_LARGE_FULL:-}" ]; then
    CASE_TIMEOUT=120
    run_case 2 win_large
    run_case 2 win_large IBEX_WIN_DIRECT=0
    if [ -f "$SOFTIB" ]; then
        run_case 2 win_large $V IBEX_WIN_DIRECT=0
        run_case 2 win_large $V IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0
        softib_sweep "$SOFTIB"
    fi
    MT_ARGS=16
    run_case 2 win_large
    run_case 2 win_large IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0 IBEX_WIN_AM_PIECE=1048573
    if [ -f "$SOFTIB" ]; then
        # the strided accumulate of 32 MiB is 8,192 runs, more than softib's 4,096 memory
        # regions: it once registered each run's pages (MPI_ERR_NO_MEM); then in pieces
        MT_ARGS=32
        run_case 2 win_large $V IBEX_WIN_DIRECT=0
        run_case 2 win_large $V IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA_PIECE=1048573
    fi
    MT_ARGS=
    mt_finish
    exit $?
fi
avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
if [ "${avail_mib:-0}" -lt 9000 ]; then
    echo "SKIP: ${avail_mib} MiB available, 2.5 GiB windows need about 9000 MiB"
    exit 77
fi
MT_ARGS=2560
run_case 2 win_large
run_case 2 win_large MT_LARGE_CREATE=1
run_case 2 win_large IBEX_WIN_DIRECT=0 IBEX_WIN_RDMA=0
if [ -f "$SOFTIB" ]; then
    run_case 2 win_large $V IBEX_WIN_DIRECT=0
    softib_sweep "$SOFTIB"
fi
MT_ARGS=
mt_finish
