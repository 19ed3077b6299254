#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI-IO tests (tests/io/io_*.c) at 1, 2, 3 and 4 ranks under ibexrun, each with a time limit,
# their files in a private temporary directory removed at the end.
set -u
run="$top_builddir/launcher/ibexrun"
dir=$(mktemp -d "${TMPDIR:-/tmp}/ibex-io.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
status=0
for prog in io_open io_view io_shared; do
    for n in 1 2 3 4; do
        out=$(timeout -k 5 150 "$run" -n "$n" --timeout 120 "$top_builddir/tests/io/$prog" "$dir" 2>&1)
        rc=$?
        if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^$prog: ok$"; then
            echo "FAIL: $prog -n $n (exit $rc)"
            printf '%s\n' "$out" | tail -20
            status=1
        else
            echo "ok: $prog -n $n"
        fi
        left=$(ls -A "$dir")
        if [ -n "$left" ]; then
            echo "FAIL: $prog -n $n left files: $left"
            rm -rf "${dir:?}"/*
            status=1
        fi
    done
done
exit $status
