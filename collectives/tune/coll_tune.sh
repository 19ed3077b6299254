#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make coll-tune: measures every algorithm of each collective (forced with IBEX_COLL_<KIND>)
# with ibex-bench at each rank count, interleaved (every algorithm once per round, ROUNDS
# rounds), takes the median per algorithm and size, and prints a table with the fastest per
# size, then the rows for collectives/base/coll_tuned.h that encode it (the rank count as the
# rule's communicator-size bound, "yes" for oversubscribed when the ranks outnumber this
# machine's cores). Not part of make check; run it on a quiet machine, from the build tree.
# Settings (environment): COLL_TUNE_KINDS (default "bcast reduce allreduce gather scatter
# allgather alltoall"), COLL_TUNE_RANKS ("2 4"), COLL_TUNE_MAX (largest size, 1m),
# COLL_TUNE_ROUNDS (3), COLL_TUNE_ITERS (iterations per size, 200), COLL_TUNE_VARIANTS (a
# tunable's setting measured as one more column, "kind/label/VAR=value[,VAR=value]" each, e.g.
# "reduce/pull/IBEX_COLL_SHM_PAIR_REDUCE=pull bcast/single/IBEX_COLL_SHM_BCAST_SINGLE=32k": the
# kind's shmem with those settings, column shmem+label; a row naming it sets the tunable, not
# the table: see collectives/README.md, "Three points behind Open MPI").
set -u
top=${top_builddir:-.}
run="$top/launcher/ibexrun"
bench="$top/examples/bench/ibex-bench"
info="$top/runtime/ibex_info"
KINDS=${COLL_TUNE_KINDS:-"bcast reduce allreduce gather scatter allgather alltoall"}
RANKS=${COLL_TUNE_RANKS:-"2 4"}
MAX=${COLL_TUNE_MAX:-1m}
ROUNDS=${COLL_TUNE_ROUNDS:-3}
ITERS=${COLL_TUNE_ITERS:-200}
cores=$(nproc)
for f in "$run" "$bench" "$info"; do
    [ -x "$f" ] || { echo "coll-tune: $f not built (run make first)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The algorithms ibex_info lists for a kind, without hier (it needs several nodes).
algos_of() {
    "$info" | awk -v k="$1" '/^collective algorithms/ { on = 1; next }
        on && $1 == k { $1 = ""; gsub(/,/, ""); print; exit }' |
        tr ' ' '\n' | grep -v -e '^$' -e '^hier$'
}

# measure KIND NP: "algo size us" lines, ROUNDS interleaved rounds.
measure() {
    K=$(echo "$1" | tr a-z A-Z)
    for r in $(seq "$ROUNDS"); do
        for a in $(algos_of "$1"); do
            env "IBEX_COLL_$K=$a" timeout 600 "$run" -n "$2" "$bench" "$1" -m "1:$MAX" \
                -i "$ITERS" --format csv 2>/dev/null |
                awk -F, -v a="$a" '$NF ~ /^[0-9.]+$/ { print a, $(NF - 1), $NF }'
        done
        for v in ${COLL_TUNE_VARIANTS:-}; do
            [ "${v%%/*}" = "$1" ] || continue
            rest=${v#*/} label=${rest%%/*} envs=$(echo "${rest#*/}" | tr ',' ' ')
            # shellcheck disable=SC2086 # envs: one VAR=value per word
            env "IBEX_COLL_$K=shmem" $envs timeout 600 "$run" -n "$2" "$bench" "$1" -m "1:$MAX" \
                -i "$ITERS" --format csv 2>/dev/null |
                awk -F, -v a="shmem+$label" '$NF ~ /^[0-9.]+$/ { print a, $(NF - 1), $NF }'
        done
    done
}

# medians FILE: "algo size median" per (algo, size).
medians() {
    sort -k1,1 -k2,2n -k3,3g "$1" | awk '
        function flush() { if (n) print key, v[int((n + 1) / 2)] }
        { k = $1 " " $2; if (k != key) { flush(); key = k; n = 0 } v[++n] = $3 }
        END { flush() }'
}

echo "# coll-tune on $(hostname), $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
echo "# medians of $ROUNDS interleaved rounds, us; oversubscribed = ranks > cores"
rows="$tmp/rows"
: >"$rows"
for kind in $KINDS; do
    for np in $RANKS; do
        over=no
        [ "$np" -gt "$cores" ] && over=yes
        measure "$kind" "$np" >"$tmp/raw"
        medians "$tmp/raw" >"$tmp/med"
        algos=$(cut -d' ' -f1 "$tmp/med" | sort -u | tr '\n' ' ')
        echo
        echo "## $kind, $np ranks, oversubscribed: $over"
        printf '%10s' size
        for a in $algos; do printf ' %18s' "$a"; done
        printf ' %18s\n' best
        for size in $(cut -d' ' -f2 "$tmp/med" | sort -un); do
            printf '%10s' "$size"
            best= bt=
            for a in $algos; do
                t=$(awk -v a="$a" -v s="$size" '$1 == a && $2 == s { print $3 }' "$tmp/med")
                printf ' %18s' "${t:--}"
                if [ -n "$t" ] && { [ -z "$bt" ] || awk -v x="$t" -v y="$bt" 'BEGIN { exit !(x < y) }'; }; then
                    best=$a bt=$t
                fi
            done
            printf ' %18s\n' "$best"
            echo "$kind $over $np $size $best" >>"$rows"
        done
    done
done
echo
echo "## rows for collectives/base/coll_tuned.h (kind, oversubscribed, max ranks, max bytes, algorithm)"
awk '
    function flush() { if (n) printf "    {IBEX_COLL_%s, IBEX_COLL_OVERSUB_%s, %s, %s, \"%s\"},\n", toupper(k), toupper(o), p, last, b }
    { if ($1 != k || $2 != o || $3 != p || $5 != b) { if (n && ($1 != k || $2 != o || $3 != p)) last = "SIZE_MAX"; flush(); n = 0 }
      k = $1; o = $2; p = $3; b = $5; last = $4; n++ }
    END { last = "SIZE_MAX"; flush() }' "$rows"
