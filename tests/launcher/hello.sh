# SPDX-License-Identifier: BSD-3-Clause
# examples/hello at 1, 2, 4 and 8 ranks under ibexrun: N distinct ranks, all of size N, and a
# singleton run with no launcher at all.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
HELLO=$B/examples/hello

# check_hello N: OUT holds exactly N lines "hello from rank R of N on HOST", R = 0..N-1 once each.
check_hello() {
    n=$1
    lines=$(printf '%s\n' "$OUT" | grep -c "^hello from rank [0-9]* of $n on ")
    ranks=$(printf '%s\n' "$OUT" | sed -n "s/^hello from rank \([0-9]*\) of $n on .*/\1/p" |
            sort -n | uniq | tr '\n' ' ')
    want=$(seq 0 $((n - 1)) | tr '\n' ' ')
    if [ "$RC" -ne 0 ] || [ "$lines" -ne "$n" ] || [ "$ranks" != "$want" ]; then
        fail "hello -n $n: exit $RC, ranks '$ranks' (want '$want'); output: $OUT; stderr: $ERR"
    else
        pass "hello -n $n (${MS} ms)"
    fi
    leftovers "hello -n $n"
}

for n in 1 2 4 8; do
    run 60 -n "$n" "$HELLO" "$MARK"
    check_hello "$n"
done

# Singleton: no launcher, a 1-rank job.
mkdir -p "$WORK/tmp"
OUT=$(cd "$WORK" && TMPDIR=$WORK/tmp timeout -k 5 30 "$HELLO" "$MARK" 2>"$WORK/err" </dev/null)
RC=$?; ERR=$(cat "$WORK/err"); MS=0
check_hello 1
finish
