# SPDX-License-Identifier: BSD-3-Clause
# Shared by the softib shell tests (sourced). Finds libsoftib.so, isolates
# the run in its own softib namespace, and cleans up on exit.
#   SOFTIB_LIB      path of libsoftib.so (default: the libtool build output)

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
SOFTIB_LIB=${SOFTIB_LIB:-$top_builddir/softib/.libs/libsoftib.so}
if [ ! -f "$SOFTIB_LIB" ]; then
    echo "libsoftib.so not found at $SOFTIB_LIB" >&2
    exit 99
fi
SOFTIB_NAMESPACE=sh$$
export SOFTIB_NAMESPACE
WORK=$(mktemp -d "${TMPDIR:-/tmp}/softib-test.XXXXXX")
SERVER_PID=

softib_cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null
        wait "$SERVER_PID" 2>/dev/null
    fi
    rm -rf "$WORK"
}
trap softib_cleanup EXIT INT TERM

# Skip (77) only when the ibverbs-utils program itself is missing.
need_prog() {
    command -v "$1" >/dev/null 2>&1 || { echo "$1 not installed: skip" >&2; exit 77; }
}

# A TCP port of our own: parallel tests must not meet on the default 18515.
# Below Linux's ephemeral range (32768-60999), where another program's
# outgoing connection may hold the port; the attempt number moves it on.
test_port() {
    echo $((20000 + ($$ * 7 + ${1:-0} * 1009) % 12000))
}

# One attempt of server + client on a port; 2 when the server could not listen.
pingpong_once() {
    port=$1
    shift
    LD_PRELOAD=$SOFTIB_LIB timeout 60 "$prog" -p "$port" "$@" >"$WORK/server.out" 2>&1 &
    SERVER_PID=$!
    i=0
    rc=1
    while [ $i -lt 50 ]; do
        if LD_PRELOAD=$SOFTIB_LIB timeout 60 "$prog" -p "$port" "$@" 127.0.0.1 \
            >"$WORK/client.out" 2>&1; then
            rc=0
            break
        fi
        # The server may not listen yet: retry only a refused TCP connection.
        grep -q "Couldn't connect to 127" "$WORK/client.out" || break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    wait "$SERVER_PID"
    src=$?
    SERVER_PID=
    grep -q "Couldn't listen" "$WORK/server.out" && return 2
    [ $rc -eq 0 ] && [ $src -eq 0 ]
}

# Runs server and client of an rdma-core pingpong program over softib.
# usage: pingpong PROG ARGS...; output in $WORK/server.out and $WORK/client.out
pingpong() {
    prog=$1
    shift
    attempt=0
    while :; do
        pingpong_once "$(test_port $attempt)" "$@"
        prc=$?
        [ $prc -ne 2 ] || [ $attempt -ge 3 ] && break
        echo "port $(test_port $attempt) is taken: trying another" >&2
        attempt=$((attempt + 1))
    done
    cat "$WORK/client.out" "$WORK/server.out"
    [ $prc -eq 0 ] || echo "pingpong $prog $*: failed (client rc $rc, server rc $src)" >&2
    return $prc
}

# Fails if softib left shared-memory files of this namespace behind.
check_leftovers() {
    if ls /dev/shm 2>/dev/null | grep -q "^softib-$(id -u)$SOFTIB_NAMESPACE"; then
        echo "leftover softib files in /dev/shm" >&2
        return 1
    fi
}
