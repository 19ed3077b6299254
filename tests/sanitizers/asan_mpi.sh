#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI suites' programs at 2 ranks in the AddressSanitizer + UndefinedBehaviorSanitizer build
# (make check-asan): every point-to-point program over shared memory and over verbs on softib,
# the chaos program under injected errors, a short soak. A sanitizer report makes the rank exit
# non-zero (halt_on_error), which fails the case. Run from the sanitizer build tree only.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
# softib comes before libasan in the preload order: tell ASan that is fine; leaks are checked by
# LeakSanitizer with the suppressions of what PMIx / hwloc keep until exit.
export ASAN_OPTIONS="verify_asan_link_order=0:halt_on_error=1:abort_on_error=0:detect_leaks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/sanitizers/lsan.supp:print_suppressions=0"
V="IBEX_TRANSPORTS=verbs LD_PRELOAD=$SOFTIB"
PROGS=${ASAN_PROGS:-$P2P_PROGS}

for prog in $PROGS; do
    run_case 2 "$prog" MT_MAX_MB=16
    run_case 2 "$prog" $V MT_MAX_MB=16
done
MPI_T="$top_builddir/tests/chaos"
MT_ARGS=8 run_case 2 chaos_p2p $V
MPI_T="$top_builddir/tests/soak"
MT_ARGS="2000 1" run_case 2 soak
MT_ARGS="1000 1" run_case 2 soak $V
softib_sweep "$SOFTIB"
mt_finish
