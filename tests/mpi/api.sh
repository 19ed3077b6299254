#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI 4.1 API beyond point-to-point and communicators (tests/mpi/info_*.c, attr_*.c, ...) at 1, 2, 3
# and 4 ranks under ibexrun. Each program is given the arguments "first second" (info_basic
# checks them in MPI_INFO_ENV's argv).
set -u
run="$top_builddir/launcher/ibexrun"
status=0
for prog in info_basic attr_basic p2p_isendrecv misc_small mpit_basic; do
    for n in 1 2 3 4; do
        out=$(IBEX_SPIN_COUNT=777 timeout 150 "$run" -n "$n" --timeout 120 "$top_builddir/tests/mpi/$prog" first second 2>&1)
        rc=$?
        if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^$prog: ok$"; then
            echo "FAIL: $prog -n $n (exit $rc)"
            printf '%s\n' "$out" | tail -20
            status=1
        else
            echo "ok: $prog -n $n"
        fi
    done
done
exit $status
