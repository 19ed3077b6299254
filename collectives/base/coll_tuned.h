/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measured part of the selection table (coll_select.c reads it, and only it): rows
 * (kind, oversubscribed, max communicator size, max bytes) -> algorithm, consulted in order
 * before the published defaults of coll_select.c; the first row that fits wins, and a kind
 * with no fitting row falls through to the defaults. Oversubscription is its own axis: a
 * communicator within one node whose node runs more ranks than cores (ibex_rt.oversubscribed,
 * the same on every rank of such a communicator) takes the OVERSUB_YES rows, every other one
 * the OVERSUB_NO rows, so thresholds measured while ranks share cores never decide for one rank
 * per core. A row naming a spanned algorithm (shmem) applies only where that span does.
 *
 * Regenerate with `make coll-tune` (collectives/tune/coll_tune.sh: ibex-bench over every
 * algorithm, interleaved rounds, medians), which prints these rows. The rows below are ROUGH:
 * measured 2026-12-01 (make coll-tune, 2 rounds, 100 iterations, to 64 KiB) on this 2-core VM
 * while other developers were building and testing on it (load 11-13), so they record which
 * algorithm won by a clear margin, not exact crossovers; re-measure on a quiet machine before
 * trusting a boundary.
 */
#ifndef IBEX_COLL_TUNED_H
#define IBEX_COLL_TUNED_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"

typedef enum {
    IBEX_COLL_OVERSUB_NO,  /* one rank per core or fewer, or several nodes */
    IBEX_COLL_OVERSUB_YES, /* one node, more ranks than cores */
} ibex_coll_oversub_t;

typedef struct ibex_coll_tuned {
    ibex_coll_kind_t kind;
    ibex_coll_oversub_t oversub;
    int max_comm_size;
    size_t max_bytes;
    const char *algo;
} ibex_coll_tuned_t;

static const ibex_coll_tuned_t ibex_coll_tuned[] = {
    /* alltoall, 2 ranks, one per core: shmem (inline) 0.37-0.83 us against pairwise 0.53-0.97 up
     * to 1 KiB; from 16 KiB pairwise (12-49 us against 15-315, load 11-13). Blocks of 32 KiB to
     * 256 KiB (coll, 2026-12-02, from counts, not timed): there the blocks are past the
     * 64 KiB slot (p n > IBEX_COLL_SHM_INLINE), so shmem is single copy: per rank one
     * process_vm_readv of the peer's block + the own block's copy (2 n bytes moved), one wait
     * for the peer's arrival, one on the read count; pairwise sends the block through the
     * point-to-point rendezvous pipe (IBEX_RNDV_PIPE_MAX, 256 KiB: fragments copied into the
     * node transport's ring and out again), 3 n bytes moved per rank plus the rendezvous handshake.
     * Open MPI 4.1 moves these with one CMA read per rank (btl/vader), as shmem does. Past 256 KiB
     * the pipe gives way to the split rendezvous (both ranks copy, 2 n), so pairwise stays;
     * but at 1 MiB it makes one process_vm_readv and one process_vm_writev per rank and call
     * where shmem and Open MPI make one process_vm_readv (perf tracepoints, coll 2026-12-02),
     * and the quiet machine had it at 211 us against Open MPI's 205. Timed against shmem there
     * (lead, 2026-12-02, 5 interleaved rounds, medians, us, pairwise / shmem / Open MPI): 256 KiB
     * 32.6 / 32.9 / 31-32, 512 KiB 70.4 / 67.3 / 61-62, 1 MiB 226 / 132 / 123-124: shmem from
     * 32 KiB up (collectives/README.md, "Three points behind Open MPI"). */
    /* Session 12 (lead, 2026-12-02, slower VM mode, load 5-6, 5 interleaved rounds, us): with
     * all blocks together past IBEX_COLL_SHM_PAIR_INLINE (8 KiB) single copy, shmem / pairwise
     * at 4 / 8 / 16 / 32 / 64 KiB blocks 1.10 / 1.52 / 1.96 / 2.89 / 5.03 against 1.04 / 1.76 /
     * 3.48 / 4.13 / 6.12 (Open MPI on the quiet machine: 16 KiB 2.77): shmem at every size. */
    {IBEX_COLL_ALLTOALL, IBEX_COLL_OVERSUB_NO, 2, SIZE_MAX, "shmem"},
    /* alltoall, 4 ranks on 2 cores: shmem 4.2-55 us against pairwise 10-1211 and bruck 8-602
     * up to 16 KiB (no rounds that each wait for a peer without a core); above, too noisy to
     * call, so the defaults decide */
    {IBEX_COLL_ALLTOALL, IBEX_COLL_OVERSUB_YES, 4, 16384, "shmem"},
    /* barrier, more ranks than cores (coll, 2026-12-02, from counts, not timed): the fan-in to
     * rank 0 and its one release flag, so rank 0 leaves first and a rooted collective from rank
     * 0 right after the barrier (every benchmark loop; programs that hand out work from rank 0)
     * finds its root ahead of the leaves. 16-byte Bcast / Scatter / Scatterv at 4 ranks in that
     * loop: context switches per call and leaf 0.96-8.8 with the flat barrier (`shmem`: the
     * last to arrive leaves first, rank 0 is then behind), 0.02-0.04 with this one; Open MPI
     * 4.1's leaves 0.000, because its barrier at 4 ranks is the same fan-in (forced to
     * recursive doubling its Scatter leaves wait as Ibex's did: 0.79 per call).
     * IBEX_COLL_BARRIER=shmem puts the flat barrier back (collectives/README.md, "Rooted
     * collectives after a barrier"). */
    {IBEX_COLL_BARRIER, IBEX_COLL_OVERSUB_YES, 64, SIZE_MAX, "shmem_fanin"},
    /* bcast, 4 ranks on 2 cores: shmem 2.0-5.5 us against binomial 2.5-35 at every size to
     * 64 KiB */
    {IBEX_COLL_BCAST, IBEX_COLL_OVERSUB_YES, 4, 65536, "shmem"},
    /* allgather, 8 ranks on 2 cores, 1 MiB blocks (coll10, 2026-12-01 18:49 UTC, 7 interleaved
     * rounds of 10 iterations, load 15-20): ring 71 ms (50-94) against shmem 103 (69-123); at
     * 256 KiB 24 against 26 and at 4 ranks 1 MiB 16 against 19, within the noise, so shmem
     * stays there. Every rank reading all p - 1 blocks from cold send buffers at once loses to
     * forwarding the block just received, which is still in cache.
     * Replaced (coll12, 2026-12-02, from counts, timings indicative: load 8-11 from the other
     * helpers): past the inline limit shmem_staged (allgather_shm_staged.c: each block copied
     * into its owner's staging slot once and out by every reader, no system call, nobody waits
     * for its readers; single copy past IBEX_COLL_SHM_STAGE). Per call, all 8 ranks, 1 MiB
     * blocks (perf: tracepoints and context switches over the job, the difference of two loop
     * lengths, each call followed by a barrier): process_vm_readv ring 56 + 56 writev (the split
     * rendezvous), shmem 56, Open MPI 4.1 24 (its recursive doubling: 3 per rank), staged 0;
     * context switches 7552 / 2862 / 2813 / 1412. Mean time per call and rank (probe with the
     * barrier outside the timing, 200 calls): ring 41.7 ms, shmem 20.6, Open MPI 15.4, staged
     * 9.07; 512 KiB 23.1 / 9.13 / 12.5 / 5.11, 256 KiB 15.8 / 6.53 / 8.18 / 2.43, 128 KiB
     * 8.46 / 2.24 / 4.84 / 1.33. At 4 ranks 1 MiB shmem 5.14 ms, Open MPI 2.73, staged 2.38;
     * 512 KiB 2.28 / 2.43 / 1.75, 256 KiB 0.72 / 1.37 / 0.32; 128 KiB 0.056 / 0.31 / 0.076, so
     * shmem (single copy) stays up to 128 KiB there (collectives/README.md, "Bcast, Allgather
     * and Alltoall at 4 and 8 ranks on 2 cores"). */
    {IBEX_COLL_ALLGATHER, IBEX_COLL_OVERSUB_YES, 4, 131072, "shmem"},
    {IBEX_COLL_ALLGATHER, IBEX_COLL_OVERSUB_YES, 4, SIZE_MAX, "shmem_staged"},
    {IBEX_COLL_ALLGATHER, IBEX_COLL_OVERSUB_YES, 8, 65536, "shmem"},
    {IBEX_COLL_ALLGATHER, IBEX_COLL_OVERSUB_YES, 8, SIZE_MAX, "shmem_staged"},
    /* allgatherv (collv12): the Allgather's rows above, keyed on the mean block; each block
     * takes the Allgather's way by its own size (allgatherv_shm.c), so the same counts apply;
     * not measured on Allgatherv itself past 64 KiB */
    {IBEX_COLL_ALLGATHERV, IBEX_COLL_OVERSUB_YES, 4, 131072, "shmem"},
    {IBEX_COLL_ALLGATHERV, IBEX_COLL_OVERSUB_YES, 4, SIZE_MAX, "shmem_staged"},
    {IBEX_COLL_ALLGATHERV, IBEX_COLL_OVERSUB_YES, 8, 65536, "shmem"},
    {IBEX_COLL_ALLGATHERV, IBEX_COLL_OVERSUB_YES, 8, SIZE_MAX, "shmem_staged"},
    /* alltoallv / alltoallw, 2 ranks with a core each (collv12, 2026-12-02, from counts, not
     * timed; perf stat over the job, per call, both ranks): 64 KiB blocks shmem 2
     * process_vm_readv and no process_vm_writev, as Open MPI 4.1, against scattered's 2 + 2
     * (the split rendezvous) and pairwise's 2 + 2 with 80 sched_yield; 16 KiB shmem 2
     * process_vm_readv (single copy past IBEX_COLL_SHM_PAIR_INLINE: n moved per block) against
     * the point-to-point ring's copy in and out (2 n); no context switch either way. Their
     * selection key is 0 (a rank does not know the others' counts), so one row for every size.
     * Oversubscribed the context switches swung more than the difference under load 4-6
     * (collectives/README.md, "Allgatherv, Alltoallv and Alltoallw in shared memory"): the
     * defaults stay there. */
    {IBEX_COLL_ALLTOALLV, IBEX_COLL_OVERSUB_NO, 2, SIZE_MAX, "shmem"},
    {IBEX_COLL_ALLTOALLW, IBEX_COLL_OVERSUB_NO, 2, SIZE_MAX, "shmem"},
};

#endif
