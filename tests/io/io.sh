#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI-IO tests (tests/io/io_*.c) at 1, 2, 3 and 4 ranks (io_large at 1 and 2) through
# tests/mpi/lib.sh's run_case (time limit, no rank process left), their files in a private
# temporary directory removed at the end and checked empty after each run. With
# MT_LARGE_FULL=1 (make check-large) io_large also writes and reads back INT_MAX + 9 bytes in
# one call (1 rank, about 2 GiB of memory and of disk).
set -u
CASE_TIMEOUT=${CASE_TIMEOUT:-150}
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
MPI_T="$top_builddir/tests/io"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ibex-io.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
# io NPROCS PROGRAM [ARG]: one run, then no file may be left in $dir
io() {
    MT_ARGS="$dir ${3:-}"
    run_case "$1" "$2"
    left=$(ls -A "$dir")
    if [ -n "$left" ]; then
        echo "FAIL $2 -n $1 left files: $left"
        rm -rf "${dir:?}"/*
        mt_fail=$((mt_fail + 1))
    fi
}
for prog in io_open io_view io_shared; do
    for n in 1 2 3 4; do io "$n" "$prog"; done
done
io 1 io_large
io 2 io_large
[ "${MT_LARGE_FULL:-0}" = 1 ] && CASE_TIMEOUT=600 io 1 io_large full
mt_finish
