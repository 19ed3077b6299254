# SPDX-License-Identifier: BSD-3-Clause
# The measurements behind docs/SCALING.md (not part of make check: `make scaling-measure`).
# For each (ranks, simulated hosts): start-up to the end of a job where every rank sends 8 bytes
# to every other one (wall ms, median of 3), the data of the MPI_Init fence across hosts (the
# head's debug line), endpoints to other hosts (Ibex's counter, all pairs) and the largest
# resident set of a rank. One line per case, "ranks hosts ms fence_bytes offnode_eps rss_kb".
. "${top_srcdir:-.}/tests/launcher/lib.sh"
. "$S/tests/launcher/simhosts.sh"
export SOFTIB_FABRIC_DIR=$SIM_FABRIC
SOFTIB=$B/softib/.libs/libsoftib.so
CASES=${SCALING_CASES:-"2:2 4:2 8:2 8:4 16:2 16:4 32:4"}
sim_up h1 h2 h3 h4
echo "ranks hosts ms fence_bytes offnode_eps rss_kb"
for c in $CASES; do
    np=${c%:*}; nh=${c#*:}; per=$(( (np + nh - 1) / nh )); list=""
    for k in $(seq 1 "$nh"); do list="$list${list:+,}h$k:$per"; done
    times=""
    for rep in 1 2 3; do
        mkdir -p "$WORK/tmp"
        t0=$(date +%s%N)
        TMPDIR=$WORK/tmp IBEX_LOG=debug timeout -k 5 300 "$IBEXRUN" --launch-agent "$AGENT" \
            -x IBEX_LOG=warn -x LD_PRELOAD="$SOFTIB" -n "$np" -H "$list" \
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
    echo "$np $nh ${ms:-?} ${fence:-?} ${eps:-?} ${rss:-?}"
done
finish
