#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The MPI functions Ibex lacks (runtime/mpi/bindings/missing.py): every MPI_X that MPICH's or
# Open MPI's mpi.h declares (and those MPI 4.1 added) is in mpi.def, an mpi.h macro, or the
# known list bindings/missing.txt with its reason; no name of that list is implemented; and
# the README's list is the one the script prints. Skips when neither header is installed.
set -u
S="${top_srcdir:-.}"
B="$S/runtime/mpi/bindings"
H=""
for h in /usr/include/x86_64-linux-gnu/mpich/mpi_proto.h /usr/include/x86_64-linux-gnu/mpich/mpio.h \
    /usr/include/x86_64-linux-gnu/openmpi/mpi.h; do
    [ -f "$h" ] && H="$H $h"
done
if [ -z "$H" ]; then
    echo "SKIP: no MPICH or Open MPI mpi.h to compare with"
    exit 77
fi
fails=0
out=$(python3 "$B/missing.py" "$B/mpi.def" "$S/include/mpi.h" "$B/missing.txt" $H)
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "PASS: every declared name is implemented or listed ($(printf '%s\n' "$out" | wc -l) listed)"
else
    echo "FAIL: not implemented and not listed, or listed and implemented:"
    printf '%s\n' "$out" | grep -E " (NEW|STALE)" | sed 's/^/    /'
    fails=$((fails + 1))
fi
groups=$(python3 "$B/missing.py" "$B/mpi.def" "$S/include/mpi.h" "$B/missing.txt" $H --groups)
printf '%s\n' "$groups" >"${TMPDIR:-/tmp}/ibex-missing.$$"
if grep -qxF -f "${TMPDIR:-/tmp}/ibex-missing.$$" "$S/README.md" &&
    [ "$(grep -cxF -f "${TMPDIR:-/tmp}/ibex-missing.$$" "$S/README.md")" -eq "$(printf '%s\n' "$groups" | wc -l)" ]; then
    echo "PASS: the README lists the missing functions as missing.py --groups prints them"
else
    echo "FAIL: README.md's list of missing functions differs from missing.py --groups:"
    printf '%s\n' "$groups" | sed 's/^/    /'
    fails=$((fails + 1))
fi
rm -f "${TMPDIR:-/tmp}/ibex-missing.$$"
[ "$fails" -eq 0 ]
