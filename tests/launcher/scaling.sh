# SPDX-License-Identifier: BSD-3-Clause
# The measurements behind docs/SCALING.md (not part of make check: `make scaling-measure`).
# For each (ranks, simulated hosts[, fanout of the tree of daemons]): start-up to the end of a
# job where every rank sends 8 bytes to every other one (wall ms, median of 3), the data of the
# MPI_Init fence across hosts (the head's debug line), endpoints to other hosts (Ibex's
# counter, all pairs), the largest resident set of a rank, and the tree: its depth and the most
# daemons any node started and serves (from the daemons' own debug lines). One line per case,
# "ranks hosts fanout ms fence_bytes offnode_eps rss_kb depth max_children". Then, for the
# tree alone (SCALING_TREE="hosts:fanout ..."; one PMIx rank per host, no MPI): the mean time
# of a fence without data and of rank 0's lazy gets of every peer's key (the direct modex),
# medians of 3: "hosts fanout depth fence_us dmodex_us".
. "${top_srcdir:-.}/tests/launcher/lib.sh"
. "$S/tests/launcher/simhosts.sh"
export SOFTIB_FABRIC_DIR=$SIM_FABRIC
SOFTIB=$B/softib/.libs/libsoftib.so
CASES=${SCALING_CASES:-"2:2 4:2 8:2 8:4 16:2 16:4 32:4"}
most=1
TREE=${SCALING_TREE:-""}
for c in $CASES; do h=$(echo "$c" | cut -d: -f2); [ "$h" -gt "$most" ] && most=$h; done
for c in $TREE; do h=${c%%:*}; [ "$h" -gt "$most" ] && most=$h; done
sim_up $(seq -f 'h%g' 1 "$most")
echo "ranks hosts fanout ms fence_bytes offnode_eps rss_kb depth max_children"
for c in $CASES; do
    np=$(echo "$c" | cut -d: -f1); nh=$(echo "$c" | cut -d: -f2); k=$(echo "$c:" | cut -d: -f3)
    k=${k:-16}; per=$(( (np + nh - 1) / nh )); list=""
    for i in $(seq 1 "$nh"); do list="$list${list:+,}h$i:$per"; done
    times=""
    for rep in 1 2 3; do
        mkdir -p "$WORK/tmp"
        t0=$(date +%s%N)
        TMPDIR=$WORK/tmp IBEX_LOG=debug IBEX_DAEMON_FANOUT=$k timeout -k 5 300 "$IBEXRUN" \
            --launch-agent "$AGENT" -x IBEX_LOG=warn -x LD_PRELOAD="$SOFTIB" -n "$np" -H "$list" \
            "$B/tests/launcher/progs/mpi_hosts" small "$MARK" >"$WORK/out" 2>"$WORK/err"
        rc=$?
        times="$times $(( ($(date +%s%N) - t0) / 1000000 ))"
        [ "$rc" -eq 0 ] || { echo "# $np ranks on $nh hosts failed: $(tail -3 "$WORK/err")"; break; }
        rm -rf "${SIM_FABRIC:?}"/*
    done
    ms=$(printf '%s\n' $times | sort -n | sed -n 2p)
    fence=$(grep -m1 -o 'fence across [0-9]* hosts: [0-9]* bytes' "$WORK/err" | awk '{print $5}')
    eps=$(awk '/offnode_eps/ {print $4}' "$WORK/out")
    rss=$(awk '/rss_kb_max/ {print $2}' "$WORK/out")
    depth=$(grep -m1 -o 'fanout [0-9]*, depth [0-9]*' "$WORK/err" | awk '{print $4}')
    kids=$(grep -o 'node [0-9]* of [0-9]*: [0-9]* children' "$WORK/err" | awk '{print $5}' | sort -n | tail -1)
    echo "$np $nh $k ${ms:-?} ${fence:-?} ${eps:-?} ${rss:-?} ${depth:-?} ${kids:-?}"
done
[ -n "$TREE" ] && echo "hosts fanout depth fence_us dmodex_us"
for c in $TREE; do
    nh=${c%%:*}; k=${c#*:}; list=""
    for i in $(seq 1 "$nh"); do list="$list${list:+,}h$i:1"; done
    f=""; d=""
    for rep in 1 2 3; do
        mkdir -p "$WORK/tmp"
        TMPDIR=$WORK/tmp IBEX_DAEMON_FANOUT=$k timeout -k 5 120 "$IBEXRUN" --launch-agent "$AGENT" \
            -H "$list" "$B/tests/launcher/progs/pmix_client" timing "$MARK" >"$WORK/out" 2>"$WORK/err" ||
            { echo "# $nh hosts, fanout $k failed: $(tail -3 "$WORK/err")"; break; }
        f="$f $(awk '/fence_us/ {print $2}' "$WORK/out")"; d="$d $(awk '/fence_us/ {print $4}' "$WORK/out")"
    done
    depth=$(awk -v n="$nh" -v k="$k" 'BEGIN { d = 0; c = 1; l = 1; while (c < n + 1) { l *= k; c += l; d++ } print d }')
    echo "$nh $k $depth $(printf '%s\n' $f | sort -n | sed -n 2p) $(printf '%s\n' $d | sort -n | sed -n 2p)"
done
finish
