#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Under the default error handler (MPI_ERRORS_ARE_FATAL) a bad argument ends the job with one
# clear message naming the rank, the call and the cause, and a non-zero exit.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
out=$(env MPITEST_RUN_MARK="$MT_MARK" timeout -k 5 60 "$IBEXRUN" -n 2 --timeout 50 "$MPI_T/p2p_errors" --fatal 2>&1)
rc=$?
echo "$out" | tail -5
if [ "$rc" -ne 0 ] && echo "$out" | grep -q "rank 0.*MPI_Send.*rank" && \
   [ -z "$(mt_left)" ]; then
    echo "ok   fatal error handler (exit $rc)"
    mt_pass=1
else
    echo "FAIL fatal error handler (exit $rc)"
    mt_fail=1
fi
mt_finish
