# SPDX-License-Identifier: BSD-3-Clause
# The same Ibex binary started by Open MPI's mpirun (which hosts a PMIx server): correct ranks
# and size, and PMIx put / fence / get through Open MPI's server. Skipped only if Open MPI's
# mpirun is not installed.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
MPIRUN=${OMPI_MPIRUN:-$(command -v mpirun.openmpi || true)}
[ -n "$MPIRUN" ] && [ -x "$MPIRUN" ] || { echo "SKIP: mpirun.openmpi not installed"; exit 77; }
ROOT=
[ "$(id -u)" -ne 0 ] || ROOT=--allow-run-as-root

for n in 2 4; do
    OUT=$(TMPDIR=$WORK/tmp timeout -k 5 120 "$MPIRUN" $ROOT --oversubscribe -n "$n" \
        "$B/examples/hello" "$MARK" 2>"$WORK/err" </dev/null)
    RC=$?
    ranks=$(printf '%s\n' "$OUT" | sed -n "s/^hello from rank \([0-9]*\) of $n on .*/\1/p" |
            sort -n | tr '\n' ' ')
    [ "$RC" -eq 0 ] && [ "$ranks" = "$(seq 0 $((n - 1)) | tr '\n' ' ')" ] &&
        pass "mpirun -n $n hello: $ranks" || fail "mpirun -n $n hello: exit $RC, '$OUT' $(cat "$WORK/err")"
    leftovers "mpirun -n $n"
done

OUT=$(TMPDIR=$WORK/tmp timeout -k 5 120 "$MPIRUN" $ROOT --oversubscribe -n 3 \
    "$PROGS/pmix_client" ok "$MARK" 2>"$WORK/err" </dev/null)
RC=$?
[ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c 'of 3 ok$')" -eq 3 ] &&
    pass "mpirun -n 3 pmix_client (put/fence/get)" || fail "mpirun pmix_client: $RC $OUT $(cat "$WORK/err")"
finish
