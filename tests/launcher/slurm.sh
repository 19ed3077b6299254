# SPDX-License-Identifier: BSD-3-Clause
# Ibex under a local 3-node Slurm cluster (Debian's Slurm 22.05 and munge, as in
# /work/shared/FACTS.md): a private munged, slurmctld, and slurmd -N n1 / n2 / n3, each slurmd
# in its own mount + UTS namespace (hostname n1 ..., private /tmp and /dev/shm, as separate
# machines), all stopped at the end. Then:
#   srun -N 3 -n 6 --mpi=pmix_v4 mpi_hosts   (ranks are PMIx clients of slurmstepd: shm inside a
#                                             node, verbs on softib between nodes, counted)
#   srun -N 3 -n 6 --mpi=pmix_v4 coll_all    (the collective suite's program, standard MPI)
#   salloc -N 3 -n 6 ibexrun mpi_hosts       (ibexrun takes the allocation's nodes and starts its
#                                             daemons with srun), also as a chain of daemons
#                                             (IBEX_DAEMON_FANOUT=1: daemons start daemons
#                                             with srun from inside their own step)
# Skips (77) with a message if Slurm or munge is not installed or namespaces cannot be made.
. "${top_srcdir:-.}/tests/launcher/lib.sh"
for t in slurmctld slurmd srun salloc munged unshare nsenter; do
    command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (.ci/install-deps installs Slurm)"; exit 77; }
done
[ -d /usr/lib/x86_64-linux-gnu/slurm-wlm ] && ls /usr/lib/*/slurm-wlm/mpi_pmix_v4.so >/dev/null 2>&1 ||
    { echo "SKIP: Slurm's mpi/pmix_v4 plugin is not installed"; exit 77; }
unshare --mount --uts true 2>/dev/null || { echo "SKIP: no mount / UTS namespaces (needs root)"; exit 77; }

D=$(mktemp -d /run/ibexslurm.XXXXXX) # outside /tmp: the slurmds have their own
chmod 755 "$D"
mkdir -p "$D/state" "$D/spool" "$D/log"
PORT=$((17000 + ($$ % 500) * 8))
FAB=$(mktemp -d /run/ibexfab.XXXXXX); chmod 700 "$FAB"
PIDS=""
slurm_down() {
    for p in $PIDS; do kill "$p" 2>/dev/null; done
    sleep 0.5
    for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
    if [ -f "$D/munged.pid" ]; then
        m=$(cat "$D/munged.pid"); kill "$m" 2>/dev/null
        n=0; while kill -0 "$m" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    fi
    rm -rf "$D" "$FAB"
}
trap 'slurm_down; pkill -KILL -f -- "$MARK" 2>/dev/null; rm -rf "$WORK"' EXIT

# munge: a key and socket of our own
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$D/munge.key"
munged --force --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
    --log-file="$D/log/munged.log" --seed-file="$D/munge.seed" 2>"$D/log/munged.err" ||
    { echo "SKIP: munged does not start: $(cat "$D/log/munged.err")"; exit 77; }

cat >"$D/slurm.conf" <<CONF
ClusterName=ibex
SlurmctldHost=localhost
SlurmctldPort=$PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=n[1-3] NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((PORT + 1))-$((PORT + 3)) CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=n[1-3] Default=YES OverSubscribe=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$D/log/slurmctld.out" 2>&1 &
PIDS="$PIDS $!"
for n in n1 n2 n3; do
    mkdir -p "$D/spool/$n"
    unshare --mount --uts --propagation private -- sh -c '
        mount -t tmpfs -o mode=1777 none /tmp && mount -t tmpfs -o mode=1777 none /dev/shm &&
        hostname "$1" && exec slurmd -D -N "$1" -f "$2"' sd "$n" "$SLURM_CONF" \
        >"$D/log/slurmd.$n.out" 2>&1 &
    PIDS="$PIDS $!"
done
n=0
until [ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -c idle)" -eq 3 ] || [ $n -ge 150 ]; do
    sleep 0.2; n=$((n + 1))
done
if [ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -c idle)" -ne 3 ]; then
    fail "the 3 Slurm nodes did not come up: $(sinfo -N 2>&1); $(tail -5 "$D/log/slurmctld.log")"
    finish
fi
pass "Slurm: 3 nodes idle"

P=$B/tests/launcher/progs
export SOFTIB_FABRIC_DIR=$FAB
SOFTIB=$B/softib/.libs/libsoftib.so
want="hosts 3 offnode_eps 24 shm_offnode_eps 0 errors 0" # 6 ranks, 2 per node
t0=$(date +%s%N)
OUT=$(LD_PRELOAD=$SOFTIB timeout -k 5 120 srun -N 3 -n 6 --mpi=pmix_v4 "$P/mpi_hosts" "$MARK" 2>"$WORK/err")
RC=$?; MS=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -qx "$want" &&
    pass "srun -N 3 -n 6 --mpi=pmix_v4: p2p, collectives, one-sided, no shm between nodes (${MS} ms)" ||
    fail "srun -N 3 -n 6 --mpi=pmix_v4: exit $RC; want '$want'; out: $OUT; err: $(tail -20 "$WORK/err")"

# A standard MPI program of the collective suite, straight under Slurm's PMIx.
t0=$(date +%s%N)
OUT=$(LD_PRELOAD=$SOFTIB timeout -k 5 150 srun -N 3 -n 6 --mpi=pmix_v4 "$B/tests/collectives/coll_all" "$MARK" 2>"$WORK/err")
RC=$?; MS=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -q "^coll_all: ok" &&
    pass "srun -N 3 -n 6 --mpi=pmix_v4 coll_all (${MS} ms)" ||
    fail "srun coll_all: exit $RC; out: $(printf '%s\n' "$OUT" | tail -5); err: $(tail -20 "$WORK/err")"

mkdir -p "$WORK/tmp"
for fanout in 16 1; do
    t0=$(date +%s%N)
    OUT=$(IBEX_DAEMON_FANOUT=$fanout IBEX_LOG=debug TMPDIR=$WORK/tmp timeout -k 5 120 \
        salloc -N 3 -n 6 "$IBEXRUN" -x IBEX_LOG=warn -x LD_PRELOAD="$SOFTIB" "$P/mpi_hosts" \
        "$MARK" 2>"$WORK/err")
    RC=$?; MS=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -qx "$want" &&
        pass "salloc -N 3 -n 6 ibexrun, fanout $fanout (daemons started by srun) (${MS} ms)" ||
        fail "salloc ibexrun, fanout $fanout: exit $RC; want '$want'; out: $OUT; err: $(tail -20 "$WORK/err")"
    # in the chain, n1's daemon started and authenticated n2's, n2's n3's
    [ "$fanout" = 1 ] && for k in 2 3; do
        grep -q "@n$((k - 1))\] .*host n$k: daemon connected from" "$WORK/err" ||
            fail "salloc chain: n$k's daemon did not connect to n$((k - 1))'s: $(grep 'connected from' "$WORK/err")"
    done
    leftovers "slurm, fanout $fanout"
done
finish
