#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The soak (tests/soak/soak.c) at 4 ranks over shared memory and over verbs on softib: random
# sizes 0 B to 4 MiB, tags, sources with ANY_SOURCE, every send mode, each payload checksummed,
# resident set flat after warm-up. Short in make check; `make soak` runs SOAK_MSGS (a million by
# default) over each path.
# the long soak (SOAK_MSGS set) gets hours, not lib.sh's 4 minutes
[ -n "${SOAK_MSGS:-}" ] && CASE_TIMEOUT=${CASE_TIMEOUT:-14400}
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
[ -f "$SOFTIB" ] || { echo "softib not built at $SOFTIB"; exit 1; }
MPI_T="$top_builddir/tests/soak"
SHM_MSGS=${SOAK_MSGS:-15000}
VERBS_MSGS=${SOAK_MSGS:-10000}
SEED=${SOAK_SEED:-$(date +%s)}
echo "soak seed $SEED (SOAK_SEED=$SEED reruns it)"

soak_case() {
    n=$1
    shift
    MT_ARGS="$n $SEED" run_case 4 soak "$@"
    printf '%s\n' "$out" | grep '^soak:' | grep -v ': ok' | sed 's/^/    /'
}
soak_case "$SHM_MSGS"
soak_case "$VERBS_MSGS" IBEX_TRANSPORTS=verbs LD_PRELOAD="$SOFTIB"
softib_sweep "$SOFTIB"
mt_finish
