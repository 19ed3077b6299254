# SPDX-License-Identifier: BSD-3-Clause
# Simulated hosts (sourced by the multi-host tests after lib.sh). A host is a process in its own
# mount + UTS namespace: its own hostname, a private tmpfs on /tmp and on /dev/shm, as on a
# separate machine; all of them share this machine's loopback network and one softib fabric in
# a directory outside /tmp and /dev/shm ($SIM_FABRIC, SOFTIB_FABRIC_DIR), like one switch.
# sim_up NAME... starts them (SIMHOST_DIR holds their pids, for simhost-agent); sim_down ends
# them; sim_leftovers WHAT checks that no host has anything left in /tmp or /dev/shm.
AGENT=$S/tests/launcher/simhost-agent
# Both outside /tmp (each host has its own): /run, and short (softib's paths are bounded).
SIMHOST_DIR=$(mktemp -d /run/ibexsim.XXXXXX)
export SIMHOST_DIR
SIM_FABRIC=$(mktemp -d /run/ibexfab.XXXXXX)
chmod 700 "$SIM_FABRIC"
SIM_HOSTS=""

# Each host also gets a loopback address of its own (127.0.0.2, 127.0.0.3, ... in the order
# made), through a private /etc/hosts naming it: its daemon connects from there.
SIM_NEXT_IP=2
sim_up() {
    for h in "$@"; do
        { cat /etc/hosts; echo "127.0.0.$SIM_NEXT_IP $h"; } >"$SIMHOST_DIR/$h.hosts"
        SIM_NEXT_IP=$((SIM_NEXT_IP + 1))
        unshare --mount --uts --propagation private -- sh -c '
            mount -t tmpfs -o mode=1777 none /tmp && mount -t tmpfs -o mode=1777 none /dev/shm &&
            mount --bind "$3" /etc/hosts &&
            hostname "$1" && echo $$ >"$2.tmp" && mv "$2.tmp" "$2" && exec sleep 1800' \
            sim "$h" "$SIMHOST_DIR/$h.pid" "$SIMHOST_DIR/$h.hosts" &
        SIM_HOSTS="$SIM_HOSTS $h"
    done
    for h in "$@"; do
        n=0
        while [ ! -s "$SIMHOST_DIR/$h.pid" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
        [ -s "$SIMHOST_DIR/$h.pid" ] || fail "simulated host $h did not start"
    done
}

sim_down() {
    for h in $SIM_HOSTS; do
        [ -s "$SIMHOST_DIR/$h.pid" ] && kill "$(cat "$SIMHOST_DIR/$h.pid")" 2>/dev/null
        rm -f "$SIMHOST_DIR/$h.pid" "$SIMHOST_DIR/$h.hosts"
    done
    SIM_HOSTS=""
    rm -rf "$SIM_FABRIC" "$SIMHOST_DIR"
}

# sim_run HOST CMD...: runs CMD on a simulated host.
sim_run() { h=$1; shift; nsenter --target "$(cat "$SIMHOST_DIR/$h.pid")" --mount --uts -- "$@"; }

# sim_leftovers WHAT [killed]: with "killed", ranks died by signals and could not remove their
# softib files from the fabric (softib forgets dead processes' contexts): they are removed.
sim_leftovers() {
    [ "${2:-}" = killed ] && rm -rf "${SIM_FABRIC:?}"/*
    for h in $SIM_HOSTS; do
        left=$(sim_run "$h" sh -c 'ls -A /tmp /dev/shm | grep -v "^/\|^$"')
        [ -z "$left" ] || { fail "$1: left on $h: $left"; sim_run "$h" sh -c 'rm -rf /tmp/* /dev/shm/*'; }
    done
    [ -z "$(ls -A "$SIM_FABRIC")" ] || { fail "$1: left in the fabric: $(ls -A "$SIM_FABRIC")"; rm -rf "${SIM_FABRIC:?}"/*; }
}
# A host lives at most 30 min (sleep 1800) even if this shell is killed without its traps.
trap 'sim_down; pkill -KILL -f -- "$MARK" 2>/dev/null; rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM HUP
