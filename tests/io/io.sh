#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI-IO tests (tests/io/io_*.c) at 1, 2, 3 and 4 ranks under ibexrun, each with a time limit,
# their files in a private temporary directory removed at the end. With MT_LARGE_FULL=1 (make
# check-large) io_large also writes and reads back INT_MAX + 9 bytes in one call (1 rank).
set -u
run="$top_builddir/launcher/ibexrun"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ibex-io.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
status=0
runs='io_open:1 io_open:2 io_open:3 io_open:4 io_view:1 io_view:2 io_view:3 io_view:4
io_shared:1 io_shared:2 io_shared:3 io_shared:4 io_large:1 io_large:2'
[ "${MT_LARGE_FULL:-0}" = 1 ] && runs="$runs io_large:1:full"
for r in $runs; do
    prog=${r%%:*} n=${r#*:} arg= lim=120
    case $n in *:*) arg=${n#*:} n=${n%%:*} lim=570 ;; esac
    out=$(timeout -k 5 $((lim + 30)) "$run" -n "$n" --timeout "$lim" "$top_builddir/tests/io/$prog" "$dir" $arg 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^$prog: ok$"; then
        echo "FAIL: $prog -n $n $arg (exit $rc)"
        printf '%s\n' "$out" | tail -20
        status=1
    else
        echo "ok: $prog -n $n $arg"
    fi
    left=$(ls -A "$dir")
    if [ -n "$left" ]; then
        echo "FAIL: $prog -n $n left files: $left"
        rm -rf "${dir:?}"/*
        status=1
    fi
done
exit $status
