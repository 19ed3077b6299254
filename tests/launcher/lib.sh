# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers of the launcher's shell tests (sourced, not a test itself).
# Every job runs under timeout(1) with a private TMPDIR, and every test checks that nothing is
# left behind: no process carrying this test's marker argument, no file in the private TMPDIR,
# no new PMIx file in /dev/shm.
set -u
B=${top_builddir:?top_builddir must be set (make check exports it)}
S=${top_srcdir:-$B}
IBEXRUN=$B/launcher/ibexrun
PROGS=$B/tests/launcher/progs
MARK="ibex-test-$$"     # appended to the rank's arguments, so pgrep finds only our ranks
FAILS=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibex-launcher-test.XXXXXX")
SHM_BEFORE=$(ls /dev/shm 2>/dev/null | grep -i pmix | sort)
trap 'pkill -KILL -f -- "$MARK" 2>/dev/null; rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { echo "ok: $*"; }

# run LIMIT_S ARGS...: runs ibexrun ARGS under a time limit; sets RC, OUT, ERR, MS (elapsed).
run() {
    limit=$1; shift
    mkdir -p "$WORK/tmp"
    t0=$(date +%s%N)
    TMPDIR=$WORK/tmp timeout -k 5 "$limit" "$IBEXRUN" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
    RC=$?
    MS=$(( ($(date +%s%N) - t0) / 1000000 ))
    OUT=$(cat "$WORK/out"); ERR=$(cat "$WORK/err")
}

# leftovers WHAT: no rank process, no job file, no PMIx shared memory left.
leftovers() {
    sleep 0.2
    if pgrep -f -- "$MARK" >/dev/null; then
        fail "$1: rank processes left behind: $(pgrep -af -- "$MARK")"
        pkill -KILL -f -- "$MARK"
    fi
    if [ -n "$(ls -A "$WORK/tmp" 2>/dev/null)" ]; then
        fail "$1: files left in TMPDIR: $(ls -A "$WORK/tmp")"
        rm -rf "${WORK:?}/tmp/"*
    fi
    now=$(ls /dev/shm 2>/dev/null | grep -i pmix | sort)
    [ "$now" = "$SHM_BEFORE" ] || fail "$1: new PMIx files in /dev/shm: $now"
}

# expect WHAT RC_WANTED REGEX_IN_STDERR
expect() {
    if [ "$RC" != "$2" ]; then
        fail "$1: exit code $RC, expected $2; stderr: $ERR"
    elif ! printf '%s\n' "$ERR" | grep -Eq -- "$3"; then
        fail "$1: stderr does not match /$3/: $ERR"
    else
        pass "$1 (exit $RC, ${MS} ms)"
    fi
    leftovers "$1"
}

finish() {
    [ "$FAILS" -eq 0 ] || { echo "$FAILS failure(s)"; exit 1; }
    exit 0
}
