# SPDX-License-Identifier: BSD-3-Clause
# The build tree's wrapper compilers: -show prints a real command line, and a program compiled
# with ibexcc / ibexcxx runs as a singleton and under ibexrun.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
CC_W=$B/launcher/ibexcc
CXX_W=$B/launcher/ibexcxx

show=$("$CC_W" -show -o x x.c)
case $show in
*" -I$S/include "*"-o x x.c -L$B/.libs -Wl,-rpath,$B/.libs -libex") pass "ibexcc -show: $show" ;;
*) fail "ibexcc -show: $show" ;;
esac
cc=${show%% *}
command -v "$cc" >/dev/null || fail "ibexcc -show: '$cc' is not a compiler on PATH"
[ "$("$CC_W" -showme -c x.c)" = "${show%% -o *} -c x.c" ] && pass "-showme -c: no link flags" ||
    fail "-showme -c: $("$CC_W" -showme -c x.c)"
[ "$("$CC_W" -showme:link)" = "-L$B/.libs -Wl,-rpath,$B/.libs -libex" ] && pass "-showme:link" ||
    fail "-showme:link: $("$CC_W" -showme:link)"
case $(IBEX_CC=mycc "$CC_W" -show "a b.c") in
"mycc -I"*" 'a b.c' -L"*) pass "IBEX_CC and quoting" ;;
*) fail "IBEX_CC and quoting: $(IBEX_CC=mycc "$CC_W" -show "a b.c")" ;;
esac
case $("$CXX_W" -show) in
*"-I$S/include"*"-libex") pass "ibexcxx -show: $("$CXX_W" -show)" ;;
*) fail "ibexcxx -show: $("$CXX_W" -show)" ;;
esac

# Compile, link, run.
if "$CC_W" -o "$WORK/hello" "$S/examples/hello.c" 2>"$WORK/err"; then
    pass "ibexcc builds examples/hello.c"
    out=$(cd "$WORK" && timeout -k 5 30 ./hello </dev/null 2>&1)
    case $out in "hello from rank 0 of 1 on "*) pass "singleton: $out" ;;
    *) fail "singleton run of the ibexcc-built hello: $out" ;; esac
    run 60 -n 2 "$WORK/hello" "$MARK"
    [ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c 'of 2 on')" -eq 2 ] &&
        pass "ibexrun -n 2 of the ibexcc-built hello" || fail "ibexrun -n 2: $RC $OUT $ERR"
    leftovers "wrapper hello"
else
    fail "ibexcc cannot build hello.c: $(cat "$WORK/err")"
fi

cat >"$WORK/hello.cpp" <<'CPP'
#include <mpi.h>
#include <iostream>
int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::cout << "c++ rank " << rank << " of " << size << std::endl;
    MPI_Finalize();
    return 0;
}
CPP
if "$CXX_W" -o "$WORK/hellocxx" "$WORK/hello.cpp" 2>"$WORK/err"; then
    out=$(cd "$WORK" && timeout -k 5 30 ./hellocxx </dev/null 2>&1)
    [ "$out" = "c++ rank 0 of 1" ] && pass "ibexcxx program runs" || fail "ibexcxx run: $out"
else
    fail "ibexcxx cannot build a C++ program: $(cat "$WORK/err")"
fi
finish
