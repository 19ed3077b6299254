#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI-level tests of start-up and errors (tests/mpi/base_*.c): under ibexrun at 1-4 ranks and
# as singletons (no launcher). Each case checks the exit code and a line of the output.
set -u
B=${top_builddir:-.}
RUN="$B/launcher/ibexrun"
T="$B/tests/mpi"
if [ ! -x "$RUN" ]; then
    echo "base.sh: $RUN is not built"
    exit 1
fi
OUT=$(mktemp /tmp/ibex-base.XXXXXX)
trap 'rm -f "$OUT"' EXIT INT TERM
fail=0

# check NAME WANT_RC PATTERN COUNT cmd...: runs cmd (90 s limit), wants exit code WANT_RC
# ("nonzero" for any failure) and COUNT output lines matching the fixed string PATTERN.
check() {
    name=$1 want=$2 pattern=$3 count=$4
    shift 4
    timeout -k 5 90 "$@" >"$OUT" 2>&1
    rc=$?
    got=$(grep -cF -- "$pattern" "$OUT")
    ok=1
    if [ "$want" = nonzero ]; then
        [ "$rc" -ne 0 ] || ok=0
    else
        [ "$rc" -eq "$want" ] || ok=0
    fi
    [ "$got" -eq "$count" ] || ok=0
    if [ $ok = 1 ]; then
        echo "PASS: $name"
    else
        echo "FAIL: $name: exit code $rc (want $want), $got lines with '$pattern' (want $count)"
        sed 's/^/    | /' "$OUT" | head -30
        fail=1
    fi
}

check "singleton init" 0 "base_init: ok rank 0 provided 3" 1 "$T/base_init"
check "singleton init single" 0 "base_init: ok rank 0 provided 0" 1 "$T/base_init" single
check "init 2 ranks" 0 "provided 3" 2 "$RUN" -n 2 --timeout 60 "$T/base_init"
check "init 4 ranks funneled" 0 "provided 1" 4 "$RUN" -n 4 --timeout 60 "$T/base_init" funneled
check "init serialized" 0 "provided 2" 1 "$RUN" -n 1 --timeout 60 "$T/base_init" serialized
check "errors returned 3 ranks" 0 "base_errors: ok" 3 "$RUN" -n 3 --timeout 60 "$T/base_errors"
check "errors returned singleton" 0 "base_errors: ok" 1 "$T/base_errors"
check "fatal invalid rank" 6 \
    "MPI_Send: invalid rank 3 (communicator size 2) [MPI_ERR_RANK]" 1 \
    "$RUN" -n 2 --timeout 60 "$T/base_fatal" rank
check "fatal names the handler" 6 "error handler MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD" 1 \
    "$RUN" -n 2 --timeout 60 "$T/base_fatal" rank
check "abort code" 42 "MPI_Abort called on MPI_COMM_WORLD with error code 42" 1 \
    "$RUN" -n 3 --timeout 60 "$T/base_fatal" abort 42
check "abort code singleton" 7 "rank 0" 1 "$T/base_fatal" abort 7
check "send before init" nonzero "ibex: MPI_Send called before MPI_Init" 1 \
    "$RUN" -n 1 --timeout 60 "$T/base_fatal" before
check "send after finalize" 16 "ibex: MPI_Send called after MPI_Finalize" 1 \
    "$T/base_fatal" after
check "bad tunable" 16 "MPI_Init: invalid IBEX_* setting" 1 \
    env IBEX_EAGER_LIMIT=junk "$RUN" -n 1 --timeout 60 "$T/base_fatal" init
check "bad tunable names it" 16 "IBEX_EAGER_LIMIT='junk' is not valid" 1 \
    env IBEX_EAGER_LIMIT=junk "$T/base_fatal" init

check "boot singleton" 0 "base_boot: ok rank 0 of 1" 1 "$T/base_boot"
check "boot 4 ranks" 0 "base_boot: ok" 4 "$RUN" -n 4 --timeout 60 "$T/base_boot"
# The same binaries under Open MPI's mpirun (a PMIx 4.2 server), found by configure.
if [ -n "${OMPI_MPIRUN:-}" ]; then
    OMPI="$OMPI_MPIRUN --allow-run-as-root --oversubscribe -n 3"
    check "boot under mpirun" 0 "base_boot: ok" 3 $OMPI "$T/base_boot"
    check "abort code under mpirun" 42 "MPI_Abort called on MPI_COMM_WORLD with error code 42" \
        1 $OMPI "$T/base_fatal" abort 42
else
    echo "NOTE: Open MPI's mpirun not found by configure: its cases are not run"
fi

INFO="$B/runtime/ibex_info"
check "ibex_info lists tunables" 0 "IBEX_EAGER_LIMIT=auto (default auto)" 1 env -u IBEX_EAGER_LIMIT "$INFO"
check "ibex_info transports" 0 ": compiled in" 3 "$INFO"
# the node line of --all (tunable descriptions may say "cores" too)
check "ibex_info --all" 0 "node: " 1 "$INFO" --all
check "ibex_info lists pvars" 0 "performance variables (MPI_T" 1 "$INFO"
check "ibex_info pvar per transport" 0 "ibex_shm_bytes " 1 "$INFO"
check "ibex_info pvar state and values" 0 "1=scatter_allgather" 1 "$INFO"
check "ibex_info --param" 0 "IBEX_SPIN_COUNT=" 1 "$INFO" --param SPIN_COUNT
check "ibex_info -p lowercase" 0 "IBEX_EAGER_LIMIT=" 1 "$INFO" -p ibex_eager_limit
check "ibex_info --param unknown" 1 "no tunable named NOPE" 1 "$INFO" --param NOPE
check "ibex_info bad option" 2 "Usage: ibex_info" 1 "$INFO" --bogus
check "ibex_info --help" 0 "Usage: ibex_info" 1 "$INFO" --help

# Nothing of ours may outlive the jobs.
sleep 1
if pgrep -f "$T/base_" >/dev/null; then
    echo "FAIL: stray processes:"
    pgrep -af "$T/base_"
    fail=1
fi
exit $fail
