#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The bindings generated from runtime/mpi/bindings/mpi.def:
#   - libibex exports PMPI_X (strong) and MPI_X (weak) for every function of mpi.def, and no
#     PMPI_ / MPI_ function that mpi.def does not list;
#   - mpi.h declares MPI_X and PMPI_X of every function, as C and as C++;
#   - the large-count variants X_c (tests/runtime/mpi/large_count, a singleton) forward counts
#     that fit and refuse larger ones with MPI_ERR_COUNT;
#   - gen_bindings.py refuses a malformed description (unknown kind, a function listed twice,
#     a function before any "file" line, a line it cannot read), naming the line.
# Usage (from make check): top_builddir=BUILD top_srcdir=SRC sh tests/runtime/mpi/bindings.sh
set -u
B=${top_builddir:-.}
S=${top_srcdir:-.}
DEF=$S/runtime/mpi/bindings/mpi.def
GEN=$S/runtime/mpi/bindings/gen_bindings.py
LIB=$B/.libs/libibex.so
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
fails=0
pass() { echo "PASS: $1"; }
fail() {
    echo "FAIL: $1"
    fails=$((fails + 1))
}

# the names mpi.def lists
sed -e 's/#.*//' "$DEF" | sed -n -e 's/^[a-z]* \([A-Za-z0-9_]*\)(.*) *large\(_native\)\{0,1\}$/\1\
\1_c/p' -e 's/^[a-z]* \([A-Za-z0-9_]*\)(.*)$/\1/p' | sort >"$WORK/def"
[ "$(wc -l <"$WORK/def")" -ge 100 ] && pass "mpi.def lists $(wc -l <"$WORK/def") functions" ||
    fail "mpi.def lists too few functions: $(wc -l <"$WORK/def")"

nm -D --defined-only "$LIB" >"$WORK/nm" || fail "nm $LIB"
awk '$2 == "T" && $3 ~ /^PMPI_/ {sub(/^PMPI_/, "", $3); print $3}' "$WORK/nm" | sort >"$WORK/pmpi"
awk '$2 == "W" && $3 ~ /^MPI_/ {sub(/^MPI_/, "", $3); print $3}' "$WORK/nm" | sort >"$WORK/weak"
awk '$2 != "W" && $3 ~ /^MPI_/ {print $3}' "$WORK/nm" >"$WORK/strong_mpi"
cmp -s "$WORK/def" "$WORK/pmpi" && pass "PMPI_X defined for every function of mpi.def, no other" ||
    fail "PMPI_ symbols differ from mpi.def: $(diff "$WORK/def" "$WORK/pmpi" | grep '^[<>]' | tr '\n' ' ')"
cmp -s "$WORK/def" "$WORK/weak" && pass "MPI_X is a weak alias for every function" ||
    fail "weak MPI_ symbols differ from mpi.def: $(diff "$WORK/def" "$WORK/weak" | grep '^[<>]' | tr '\n' ' ')"
[ ! -s "$WORK/strong_mpi" ] && pass "no strong MPI_ function (profilers can interpose)" ||
    fail "strong MPI_ symbols: $(tr '\n' ' ' <"$WORK/strong_mpi")"

# every prototype is there, in C and in C++ (the library, compiled against them, checks they match)
{
    echo '#include <mpi.h>'
    sed 's/.*/void *use_MPI_&[] = {(void *)MPI_&, (void *)PMPI_&};/' "$WORK/def"
} >"$WORK/use.c"
CC=${CC:-cc}
if $CC -fsyntax-only -Wall -Werror -I"$S/include" -I"$B/include" "$WORK/use.c" 2>"$WORK/err"; then
    pass "mpi.h declares MPI_X and PMPI_X of every function (C)"
else
    fail "mpi.h as C: $(head -5 "$WORK/err")"
fi
cp "$WORK/use.c" "$WORK/use.cc"
if ${CXX:-c++} -fsyntax-only -I"$S/include" -I"$B/include" "$WORK/use.cc" 2>"$WORK/err"; then
    pass "mpi.h declares them in C++"
else
    fail "mpi.h as C++: $(head -5 "$WORK/err")"
fi

# the large-count calls, in a singleton (no PMIx server in the environment)
if out=$(env -u PMIX_NAMESPACE timeout -k 5 60 "$B/tests/runtime/mpi/large_count" 2>&1) &&
    echo "$out" | grep -q "large_count: ok"; then
    pass "large-count calls: forwarded when the count fits, MPI_ERR_COUNT above INT_MAX"
else
    fail "large_count: $out"
fi

# malformed descriptions are refused with the line named
bad() { # name, expected text, description
    printf '%s\n' "$3" >"$WORK/bad.def"
    if python3 "$GEN" "$WORK/bad.def" proto "$WORK/out.h" 2>"$WORK/err"; then
        fail "gen_bindings.py accepted $1"
    elif grep -q "bad.def:[0-9]*: .*$2" "$WORK/err"; then
        pass "gen_bindings.py refuses $1"
    else
        fail "gen_bindings.py on $1 said: $(cat "$WORK/err")"
    fi
}
bad "an unknown kind" "unknown kind 'handle'" "file a.c
int F(handle h)"
bad "a function listed twice" "F listed twice" "file a.c
int F(int x)
int F(count n)"
bad "a function before any file line" "before any 'file' line" "int F(int x)"
bad "an unreadable line" "not 'RET NAME" "file a.c
int F(int x"
bad "a parameter without a name" "is not 'KIND NAME'" "file a.c
int F(count)"
bad "large without a count" "marked large but has no count" "file a.c
int F(int x) large"
[ ! -e "$WORK/out.h" ] && pass "nothing written for a refused description" ||
    fail "gen_bindings.py wrote $WORK/out.h from a refused description"

[ "$fails" -eq 0 ]
