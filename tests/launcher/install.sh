# SPDX-License-Identifier: BSD-3-Clause
# `make install` into a temporary prefix, then compile with the installed ibexcc and run with
# the installed ibexrun; nothing may point back into the build tree. Not part of `make check`
# (it runs make inside the build tree): run it from CI as
#   top_builddir=BUILD top_srcdir=SRC sh tests/launcher/install.sh
. "${top_srcdir:-.}/tests/launcher/lib.sh"
PREFIX=$WORK/prefix
if ! make -C "$B" install prefix="$PREFIX" >"$WORK/install.log" 2>&1; then
    fail "make install prefix=$PREFIX: $(tail -20 "$WORK/install.log")"
    finish
fi
for f in bin/ibexrun bin/ibexcc bin/ibexcxx include/mpi.h; do
    [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
show=$("$PREFIX/bin/ibexcc" -show -o hello hello.c)
case $show in
*"-I$PREFIX/include "*"-L$PREFIX/lib -Wl,-rpath,$PREFIX/lib -libex") pass "installed -show: $show" ;;
*) fail "installed ibexcc -show: $show" ;;
esac
case $show in *"$B"*) fail "installed ibexcc points into the build tree: $show" ;; esac
if "$PREFIX/bin/ibexcc" -o "$WORK/hello" "$S/examples/hello.c" 2>"$WORK/err"; then
    ldd "$WORK/hello" | grep -q "$PREFIX/lib/libibex.so" && pass "linked to the installed libibex" ||
        fail "hello does not use the installed libibex: $(ldd "$WORK/hello")"
    IBEXRUN=$PREFIX/bin/ibexrun
    run 60 -n 2 "$WORK/hello" "$MARK"
    [ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c 'of 2 on')" -eq 2 ] &&
        pass "installed ibexrun -n 2 hello" || fail "installed ibexrun: $RC $OUT $ERR"
    leftovers "installed"
else
    fail "installed ibexcc cannot build hello.c: $(cat "$WORK/err")"
fi
# ibex_info runs from a prefix given only to make install (its RUNPATH has $ORIGIN/../lib)
if "$PREFIX/bin/ibex_info" >"$WORK/info" 2>&1 && grep -q IBEX_EAGER_LIMIT "$WORK/info"; then
    lib=$(ldd "$PREFIX/bin/ibex_info" | awk '/libibex/ { print $3 }')
    [ "$(readlink -f "$lib")" = "$(readlink -f "$PREFIX/lib/libibex.so.0")" ] && pass "installed ibex_info" ||
        fail "installed ibex_info does not use the installed libibex: $(ldd "$PREFIX/bin/ibex_info")"
else
    fail "installed ibex_info does not run: $(head -5 "$WORK/info")"
fi
finish
