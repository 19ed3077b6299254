#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer targets (clang -fsanitize=fuzzer,address,undefined) from the parsers'
# own sources and runs each for FUZZ_SECONDS (3 in make check; `make fuzz`: 300) over its corpus
# in tests/fuzz/corpus/<target> (read only) plus a scratch corpus in the build tree. A crash,
# an out-of-bounds access, undefined behaviour or a failed property check fails the run and
# leaves the input as tests/fuzz/crash-* (or leak-*, timeout-*) in the build tree: add it to the
# corpus once fixed, so it stays a regression test. Exit 77 (skip) when clang cannot link
# libFuzzer. FUZZ_TARGETS picks targets.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
S=$top_srcdir
OUT=$top_builddir/tests/fuzz
SECS=${FUZZ_SECONDS:-3}
CLANG=${CLANG:-clang}
mkdir -p "$OUT"
CFLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
-fno-sanitize-recover=undefined -fno-omit-frame-pointer"
INC="-I$S/include -I$S/runtime/base -I$S/runtime/boot -I$S/transport -I$S/runtime/engine \
-I$S/transport/shm -I$S/transport/verbs -I$S/launcher -I$S/launcher/lib -I$top_builddir"
BASE="$S/runtime/base/log.c"

sources() {
    case $1 in
    fuzz_config) echo "$S/runtime/base/config.c $BASE" ;;
    fuzz_hostfile) echo "$S/launcher/lib/run_hostfile.c $BASE" ;;
    fuzz_options) echo "$S/launcher/run_options.c $BASE" ;;
    fuzz_wire) echo "$S/runtime/engine/proto_wire.c $S/transport/verbs/verbs_wire.c" ;;
    esac
}

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
    $CLANG -fsanitize=fuzzer -x c - -o "$OUT/.probe" 2>/dev/null; then
    echo "clang with libFuzzer not available: skipped (apt-get install clang)"
    exit 77
fi
rm -f "$OUT/.probe"

pass=0
fail=0
for t in ${FUZZ_TARGETS:-fuzz_config fuzz_hostfile fuzz_options fuzz_wire}; do
    # shellcheck disable=SC2046
    if ! $CLANG $CFLAGS $INC -o "$OUT/$t" "$S/tests/fuzz/$t.c" $(sources "$t") 2>"$OUT/$t.build.log"; then
        fail=$((fail + 1))
        echo "FAIL $t: does not build"
        tail -20 "$OUT/$t.build.log" | sed 's/^/    /'
        continue
    fi
    corpus=$S/tests/fuzz/corpus/${t#fuzz_}
    scratch=$OUT/scratch-${t#fuzz_}
    mkdir -p "$scratch"
    if "$OUT/$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$OUT/" "$scratch" "$corpus" >"$OUT/$t.log" 2>&1; then
        pass=$((pass + 1))
        echo "ok   $t: $(grep -oE 'Done [0-9]+ runs in [0-9]+ second' "$OUT/$t.log" | tail -1)s"
    else
        fail=$((fail + 1))
        echo "FAIL $t (log: $OUT/$t.log)"
        grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$OUT/$t.log" | head -8 |
            sed 's/^/    /'
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
