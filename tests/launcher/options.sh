# SPDX-License-Identifier: BSD-3-Clause
# ibexrun's command line and I/O: usage errors (exit 2 with a message naming the problem),
# --help / --version, -x, --tag-output, stdin to rank 0, whole lines, --report-bindings, --softib,
# and an outer launcher's PMIx variables that must not leak into our ranks.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
P=$PROGS/pmix_client

usage_error() { # WHAT REGEX ARGS...
    what=$1; re=$2; shift 2
    run 20 "$@"
    expect "usage: $what" 2 "$re"
}
usage_error "-n 0" "^ibexrun: -n: .*'0'" -n 0 /bin/true
usage_error "-n abc" "^ibexrun: -n: .*'abc'" -n abc /bin/true
usage_error "--bind-to socket" "unsupported value 'socket'" --bind-to socket /bin/true
usage_error "--timeout -1" "--timeout: .*'-1'" --timeout -1 /bin/true
usage_error "unknown option" "unknown option '--frobnicate'" --frobnicate /bin/true
usage_error "missing program" "no program to run" -n 2
usage_error "missing value" "needs a value" -n
usage_error "missing host file" "cannot read $WORK/none" --hostfile "$WORK/none" /bin/true
printf 'localhost\n\nlocalhost slots=x\n' >"$WORK/hosts"
usage_error "bad host file" "^ibexrun: --hostfile: .*/hosts:3: slots must be a whole number" \
    --hostfile "$WORK/hosts" /bin/true
printf '# two nodes\nlocalhost slots=2\nnot-this-node-xyz\n' >"$WORK/hosts"
# Remote hosts start a daemon through the launch agent: one that cannot is a failure naming the
# host (tests/launcher/hosts_sim.sh has the real cases).
run 30 --launch-agent /bin/false --hostfile "$WORK/hosts" /bin/true
expect "remote host, agent fails" 125 "host not-this-node-xyz: the launch agent ended before the daemon connected"
usage_error "not found" "'no-such-program-xyz': not found in PATH" -n 2 no-such-program-xyz
usage_error "no such path" "'/no/such/prog': No such file" /no/such/prog
printf 'echo hi\n' >"$WORK/noexec"
usage_error "not executable" "not an executable file" "$WORK/noexec"
usage_error "directory" "Is a directory" "$WORK"
printf '%s\n' "$ERR" | grep -q "Try 'ibexrun --help'" || true

# A host file naming only this node: its slots give the number of ranks.
printf 'localhost slots=2 # here\n%s\n' "$(hostname)" >"$WORK/hosts"
run 30 --hostfile "$WORK/hosts" "$P" ok "$MARK"
[ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c 'of 3 ok$')" -eq 3 ] &&
    pass "local host file (3 slots)" || fail "local host file: exit $RC, $OUT $ERR"
leftovers "local host file"

run 20 --help
{ [ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -q "^usage: ibexrun"; } && pass "--help" ||
    fail "--help: exit $RC, $OUT"
run 20 --version
{ [ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -q "^ibexrun (Ibex) "; } && pass "--version" ||
    fail "--version: exit $RC, $OUT"

# -x VAR=VALUE and -x VAR reach every rank.
X_TEST_B=from-here; export X_TEST_B
run 20 -n 2 -x X_TEST_A=a=1 -x X_TEST_B /usr/bin/env
[ "$(printf '%s\n' "$OUT" | grep -c '^X_TEST_A=a=1$')" -eq 2 ] &&
    [ "$(printf '%s\n' "$OUT" | grep -c '^X_TEST_B=from-here$')" -eq 2 ] && pass "-x" ||
    fail "-x: $OUT"
leftovers "-x"

# An outer launcher's PMIx variables are dropped before our server starts.
PMIX_NAMESPACE=bogus PMIX_RANK=9 PMIX_SERVER_URI4=bogus:1 PMIX_SERVER_URI41=bogus:1 \
    run 30 -n 2 "$P" ok "$MARK"
[ "$RC" -eq 0 ] && [ "$(printf '%s\n' "$OUT" | grep -c 'of 2 ok$')" -eq 2 ] &&
    pass "outer PMIx variables" || fail "outer PMIx variables: exit $RC, $OUT $ERR"
leftovers "outer PMIx variables"

# --tag-output
run 30 -n 2 --tag-output "$P" ok "$MARK"
printf '%s\n' "$OUT" | grep -qx '\[1,0\]<stdout>:pmix rank 0 of 2 ok' &&
    printf '%s\n' "$OUT" | grep -qx '\[1,1\]<stdout>:pmix rank 1 of 2 ok' && pass "--tag-output" ||
    fail "--tag-output: $OUT"
leftovers "--tag-output"

# stdin goes to rank 0 only (the others read /dev/null).
mkdir -p "$WORK/tmp"
OUT=$(printf 'line one\nline two\n' | TMPDIR=$WORK/tmp timeout -k 5 20 "$IBEXRUN" -n 3 /bin/cat)
[ "$OUT" = "$(printf 'line one\nline two')" ] && pass "stdin to rank 0" || fail "stdin: '$OUT'"
leftovers "stdin"

# Lines are never cut by another rank's output: 4 ranks x 2000 lines of 300 characters.
run 60 -n 4 /bin/sh -c 'l=$(printf "%0300d" "$PMIX_RANK"); i=0
    while [ $i -lt 2000 ]; do echo "$PMIX_RANK:$l"; i=$((i + 1)); done' "$MARK"
good=$(grep -Ec '^([0-3]):0{299}\1$' "$WORK/out")
[ "$RC" -eq 0 ] && [ "$good" -eq 8000 ] && [ "$(wc -l <"$WORK/out")" -eq 8000 ] &&
    pass "whole lines ($good)" || fail "whole lines: exit $RC, $good of 8000 intact"
leftovers "whole lines"

# --report-bindings, and the binding is real.
run 20 -n 1 --report-bindings --bind-to core /bin/grep Cpus_allowed_list /proc/self/status
printf '%s\n' "$ERR" | grep -q '^ibexrun: rank 0 bound to core 0 (cpus ' &&
    printf '%s\n' "$OUT" | grep -Eq 'Cpus_allowed_list:[[:space:]]+0$' && pass "binding" ||
    fail "binding: $ERR / $OUT"
run 20 -n 2 --report-bindings --bind-to none /bin/true
[ "$(printf '%s\n' "$ERR" | grep -c 'not bound (--bind-to none)')" -eq 2 ] &&
    pass "--bind-to none" || fail "--bind-to none: $ERR"
leftovers "bindings"

# --softib preloads libsoftib.so (or says clearly that it is missing).
run 20 -n 1 --softib /usr/bin/env
if [ -e "$B/softib/.libs/libsoftib.so" ]; then
    printf '%s\n' "$OUT" | grep -q '^LD_PRELOAD=.*libsoftib.so' &&
        printf '%s\n' "$OUT" | grep -qx 'IBEX_TRANSPORTS=verbs' && pass "--softib" ||
        fail "--softib: exit $RC $OUT $ERR"
else
    [ "$RC" -eq 2 ] && printf '%s\n' "$ERR" | grep -q 'libsoftib.so not found' &&
        pass "--softib without the library" || fail "--softib missing: exit $RC $ERR"
fi
leftovers "--softib"
finish
