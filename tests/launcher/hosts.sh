# SPDX-License-Identifier: BSD-3-Clause
# Host options on this node (hosts area): -H and host files naming this node, --map-by,
# --npernode / -N, slot limits, MPMD with MPI_APPNUM per application, and the mpiexec / mpirun /
# mpicc / mpicxx links. Remote hosts: tests/launcher/hosts_sim.sh.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
APPNUM=$B/tests/launcher/progs/mpi_appnum
ME=$(hostname)

# apps_want "N0 N1 ...": the lines "rank R app A" expected, computed from the -n of each app.
apps_want() {
    r=0; a=0
    for n in $1; do
        k=0
        while [ "$k" -lt "$n" ]; do echo "rank $r app $a"; r=$((r + 1)); k=$((k + 1)); done
        a=$((a + 1))
    done
}
apps_got() { printf '%s\n' "$OUT" | sed -n 's/^rank \([0-9]*\) of [0-9]* app \([0-9]*\) .*/rank \1 app \2/p' | sort -n -k2; }

# check_apps WHAT "N0 N1 ...": exit 0 and every rank in its application.
check_apps() {
    want=$(apps_want "$2"); got=$(apps_got)
    if [ "$RC" -eq 0 ] && [ "$got" = "$want" ]; then
        pass "$1 (${MS} ms)"
    else
        fail "$1: exit $RC; got '$got', want '$want'; stderr: $ERR"
    fi
    leftovers "$1"
}

# MPMD: two programs, own arguments, APPNUM 0 and 1, then three applications.
ln -s "$APPNUM" "$WORK/second"
run 60 -n 2 "$APPNUM" one "$MARK" : -n 3 "$WORK/second" two "$MARK"
check_apps "MPMD -n 2 : -n 3" "2 3"
n_one=$(printf '%s\n' "$OUT" | grep -c 'app 0 prog mpi_appnum .*args one$')
n_two=$(printf '%s\n' "$OUT" | grep -c 'app 1 prog .*args two$')
[ "$n_one" -eq 2 ] && [ "$n_two" -eq 3 ] && pass "MPMD: each application its program and arguments" ||
    fail "MPMD programs / arguments: $OUT"
run 60 -np 1 "$APPNUM" "$MARK" : "$APPNUM" "$MARK" : -n 2 "$APPNUM" "$MARK"
check_apps "MPMD three applications" "1 1 2"
run 60 -n 3 "$APPNUM" "$MARK"
check_apps "one application: APPNUM 0" "3"

# Host lists and files naming this node; without -n the slots give the ranks.
run 60 -H "localhost:2,$ME" "$APPNUM" "$MARK"
check_apps "-H localhost:2,$ME (3 slots)" "3"
printf 'localhost slots=1\n%s slots=1 # me\n' "$ME" >"$WORK/hosts"
run 60 --hostfile "$WORK/hosts" -H localhost "$APPNUM" "$MARK"
check_apps "--hostfile + -H add their slots" "3"
run 60 -H localhost:4 --map-by node -N 2 "$APPNUM" "$MARK"
check_apps "-N 2 on one host" "2"
run 60 --npernode 3 "$APPNUM" "$MARK"
check_apps "--npernode 3 without hosts" "3"
run 60 -H localhost:1 --oversubscribe -n 3 --map-by slot "$APPNUM" "$MARK"
check_apps "--oversubscribe past the slots" "3"
run 60 -H localhost:1 -n 2 --map-by core:OVERSUBSCRIBE "$APPNUM" "$MARK"
check_apps "--map-by core:OVERSUBSCRIBE" "2"

# Errors: one message, exit 2, nothing started.
run 30 -H localhost:2 -n 3 "$APPNUM" "$MARK"
expect "more ranks than slots" 2 "not enough slots: 3 ranks, 2 slots on 1 host .*--oversubscribe"
run 30 -H localhost:2 -N 3 "$APPNUM" "$MARK"
expect "--npernode past the slots" 2 "--npernode 3: host localhost has only 2 slots"
run 30 -n 2 -N 1 "$APPNUM" "$MARK"
expect "--npernode too small" 2 "--npernode 1 on 1 host places at most 1 ranks, not 2"
run 30 -H "localhost:x" "$APPNUM" "$MARK"
expect "bad -H" 2 "^ibexrun: -H: the slots of 'localhost' must be a whole number"
printf 'localhost\nlocalhost slots=2 cores=4\n' >"$WORK/hosts"
run 30 --hostfile "$WORK/hosts" "$APPNUM" "$MARK"
expect "bad host file line" 2 "hosts:2: unknown keyword 'cores'"
run 30 -n 1 "$APPNUM" : -n 2
expect "MPMD without a program" 2 "no program for application 2"
run 30 -n 1 "$APPNUM" : -n 1 /no/such/prog
expect "MPMD, second program missing" 2 "'/no/such/prog'"
run 30 --map-by ppr:2 "$APPNUM"
expect "--map-by ppr" 2 "unsupported value 'ppr:2'"

# The names users type: links next to ibexrun and the wrappers.
IBEXRUN=$B/launcher/mpiexec
run 60 -n 2 "$APPNUM" "$MARK"
check_apps "mpiexec -n 2" "2"
IBEXRUN=$B/launcher/mpirun
run 60 -n 1 "$APPNUM" "$MARK" : -n 1 "$APPNUM" "$MARK"
check_apps "mpirun MPMD" "1 1"
if "$B/launcher/mpicc" -o "$WORK/hello" "$S/examples/hello.c" 2>"$WORK/cc.err"; then
    IBEXRUN=$B/launcher/ibexrun
    run 60 -n 2 "$WORK/hello" "$MARK"
    [ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c 'of 2 on')" -eq 2 ] &&
        pass "mpicc builds hello" || fail "hello from mpicc: $RC $OUT $ERR"
    leftovers "mpicc hello"
else
    fail "mpicc: $(cat "$WORK/cc.err")"
fi
[ "$("$B/launcher/mpicxx" -show)" = "$("$B/launcher/ibexcxx" -show)" ] && pass "mpicxx is ibexcxx" ||
    fail "mpicxx -show differs from ibexcxx -show"
finish
