/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared segment of a node-local communicator, for the shared-memory collectives
 * (collectives/<kind>_shm.c; base/coll_shm.c makes and frees it).
 *
 * One segment per communicator whose ranks are all on this node, made at the first collective
 * that wants it: rank 0 creates it (memfd_create(): an anonymous file, no name in /dev/shm or
 * anywhere), sends /proc/<pid>/fd/<fd> to the others with the point-to-point bcast (opening
 * that needs the right to inspect rank 0: the same user), every rank maps it and says so with
 * the point-to-point allreduce, which also agrees whether every rank could map it and read the
 * others' memory with process_vm_readv; then every rank closes its descriptor. Nothing is ever
 * named, so a rank dying at any point leaves nothing behind. The mappings go at MPI_Comm_free /
 * MPI_Finalize (comm->coll_shm_free). None of this runs while no open transport shares memory
 * within the node (IBEX_TRANSPORTS without it): then the point-to-point algorithms run.
 *
 * Layout: one control block per rank (two cache lines, written by that rank only; the first
 * holds the arrive flag and two tiny slots), then per rank two inline slots of `slot_size`
 * bytes, then per rank the bcast ring, then the work block and one read count per rank (see
 * below). Every collective on the segment is one
 * generation g = ++gen, the same on every rank since every rank calls a communicator's
 * collectives in the same order. A rank's flags only grow:
 *   arrive = g  on entering collective g, after its slot / addresses for g are published;
 *               it also says "I have finished everything of g - 1";
 *   ready  = g  its part of g is computed (a reduced slice is final);
 *   done   = g  it has finished reading the other ranks' buffers for g.
 * Slot (g & 1) of a rank is rewritten at g only after every rank has arrived at g - 1, i.e.
 * finished reading it at g - 2 (ibex_coll_shm_claim): no counter is ever written by two ranks,
 * so no atomic read-modify-write, only release stores and acquire loads.
 *
 * One exception to "one writer per word": the work block after the slots (ibex_coll_shm_work_t)
 * holds counters that any rank may advance with an atomic compare-and-swap or add, so work
 * can go to whichever ranks are running (a large Reduce's chunks, coll_shm_reduce.c) and a rank
 * can learn that its own data has been read without waiting for its readers to finish
 * everything else (a large Alltoall). Each claim / finish word carries its generation in the
 * top 40 bits, so it never needs a reset and only grows.
 *
 * Waiting on a flag runs the engine's one back-off rule (ibex_wait_step): progress, then spin
 * or yield by the policy, so on an oversubscribed node a waiter gives its core to the rank it
 * waits for, and point-to-point traffic other ranks need from this one keeps moving.
 */
#ifndef IBEX_COLL_SHM_H
#define IBEX_COLL_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "coll.h"
#include "ibex_blocked_rec.h"
#include "ibex_engine_stats.h"
#include "ibex_log.h"
#include "ibex_runtime.h"

#define IBEX_COLL_SHM_TINY 24 /* payloads this small travel in the arrive flag's cache line */
/* Oversubscribed nodes: a ring of this many small slots per rank (after the inline slots), so a
 * bcast root runs up to IBEX_COLL_SHM_RING - 1 bcasts ahead of the slowest rank instead of one:
 * a rank that has the core does several bcasts in its time slice rather than yielding at every
 * other one. */
#define IBEX_COLL_SHM_RING      8
#define IBEX_COLL_SHM_RING_SLOT 1024

/* Line 0 is what a waiting rank polls: the arrive flag and, beside it, the two tiny slots, so
 * a small allreduce / bcast costs one cache-line transfer per peer. Line 1 has the rest. */
typedef struct ibex_coll_shm_ctl {
    uint64_t arrive;
    int32_t pid;
    int32_t pad0;
    char tiny[2][IBEX_COLL_SHM_TINY];
    uint64_t ready, done;
    uint64_t saddr, raddr; /* this rank's send / result buffer for the current generation */
    /* a pipelined inline slot (bcast_shm.c: the root's; reduce_shm.c: each contributor's):
     * this rank has written pbytes of its slot at generation pgen (pbytes is reset before
     * pgen moves on) */
    uint64_t pgen, pbytes;
    char pad1[128 - 64 - 6 * sizeof(uint64_t)];
} __attribute__((aligned(128))) ibex_coll_shm_ctl_t;

/* Work shared between the ranks of one generation (coll_shm.h, the exception above): `next`
 * and `fin` are (g << IBEX_COLL_SHM_WORK_BITS) | count, claimed / finished items of
 * generation g; after them, one line per rank: `nread`, how many readers have finished with
 * that rank's published data, counted over the communicator's life. */
#define IBEX_COLL_SHM_WORK_BITS 24
#define IBEX_COLL_SHM_WORK_MAX  ((1 << IBEX_COLL_SHM_WORK_BITS) - 1)
typedef struct ibex_coll_shm_work {
    uint64_t next;
    char pad0[64 - sizeof(uint64_t)];
    uint64_t fin;
    char pad1[64 - sizeof(uint64_t)];
} __attribute__((aligned(64))) ibex_coll_shm_work_t;

typedef struct ibex_coll_shm_count {
    uint64_t nread;
    uint64_t nrecv; /* blocks delivered into this rank's receive buffer (the pair Alltoall) */
    char pad[64 - 2 * sizeof(uint64_t)];
} __attribute__((aligned(64))) ibex_coll_shm_count_t;

/* After the counts, size x size words: pair[s * size + d] is the last generation at which block
 * s -> d of an oversubscribed single-copy Alltoall was claimed, by s (process_vm_writev) or by d
 * (process_vm_readv), whichever got to it first (alltoall_shm.c). Only grows, as the work block. */

/* The short path of a blocking collective (MPI_Allreduce: allreduce_shm.c, MPI_Bcast:
 * bcast_shm.c, MPI_Alltoall: alltoall_shm.c), called first by its MPI entry: at most
 * IBEX_COLL_SHM_TINY bytes (Alltoall: per block) of a predefined
 * contiguous type (and op), on a communicator where the table gave that size to the collective's
 * shared-memory algorithm and that algorithm went through the tiny slots. The table stays the
 * one place that chooses: ibex_coll_run notes each size (ibex_coll_shm_short_note), and every
 * ibex_coll_force moves the selection epoch, which forgets the notes. */
enum {
    IBEX_COLL_SHORT_ALLREDUCE,
    IBEX_COLL_SHORT_BCAST,
    IBEX_COLL_SHORT_ALLTOALL,
    IBEX_COLL_SHORT_KINDS
};
typedef struct ibex_coll_short {
    uint32_t sizes;               /* bit b: b bytes were noted (b <= IBEX_COLL_SHM_TINY) */
    unsigned epoch;               /* the selection epoch of the notes */
    const ibex_coll_algo_t *algo; /* what the table chose, for MPI_T and the hang report */
    MPI_Datatype dt;              /* the last type of the short path (predefined) */
    size_t dsize;                 /* its size */
    MPI_Op op;                    /* Allreduce: the last op (predefined) */
    ibex_op_fn_t *fn;             /* its function on dt */
} ibex_coll_short_t;

typedef struct ibex_coll_shm {
    int size, rank;
    uint64_t gen;             /* generation of the last collective run on the segment */
    uint64_t all_seen;        /* every rank was seen arrived at this generation */
    size_t slot_size;         /* bytes of one inline slot */
    size_t map_size;          /* bytes mapped */
    bool cma;                 /* every rank can process_vm_readv every other */
    ibex_coll_shm_ctl_t *ctl; /* size of them */
    char *slots;
    char *ring; /* IBEX_COLL_SHM_RING slots of IBEX_COLL_SHM_RING_SLOT bytes per rank */
    ibex_coll_shm_work_t *work;   /* one, written by every rank (atomics) */
    ibex_coll_shm_count_t *count; /* size of them, written by every rank (atomics) */
    uint64_t nread_want;          /* what this rank's count.nread must reach (alltoall) */
    uint64_t *pair;               /* size x size claim words (alltoall), written by every rank */
    uint64_t nrecv_want;          /* what this rank's count.nrecv must reach (alltoall) */
    uint64_t a2a_moved;           /* blocks this rank moved in pair Alltoalls (reads + writes) */
    char *scratch;                /* chunks of the single-copy reductions, kept between calls */
    size_t scratch_size;
    char *stage;       /* the staging slots (ibex_coll_shm_stage_get); NULL until made */
    size_t stage_slot; /* bytes of one staging slot */
    size_t stage_map;  /* bytes of their mapping */
    bool stage_tried;  /* ibex_coll_shm_stage_get ran (stage is NULL if they could not be made) */
    ibex_coll_span_t span; /* of the communicator */
    bool oversub;          /* within one node, and the node runs more ranks than cores */
    bool tried;            /* the segment was tried (ctl is NULL if it could not be made) */
    /* the hierarchy of a communicator over several nodes (coll_hier.c) */
    bool hier_tried;
    struct ibex_comm *node;    /* this rank's node: its ranks in the parent's order */
    struct ibex_comm *leaders; /* the lowest parent rank of each node; NULL on the others */
    int *leader_of;            /* parent rank -> parent rank of its node's leader */
    int *leader_index;         /* parent rank -> rank of its node's leader in `leaders` */
    bool hier_ordered;         /* nodes are consecutive blocks of parent ranks: rank order holds */
    /* the short paths of MPI_Allreduce and MPI_Bcast (ibex_coll_short_t, below) */
    ibex_coll_short_t shortp[IBEX_COLL_SHORT_KINDS];
    uint64_t tiny_gen; /* the last generation run through the tiny slots (an inline path) */
} ibex_coll_shm_t;

/* The collectives' state of comm (segment, hierarchy), made on first use with no message;
 * NULL when out of memory. Inline (with the three below): every blocking collective asks
 * them, about 100 instructions a call out of line (callgrind, a 2-rank 8 B Allreduce). */
ibex_coll_shm_t *ibex_coll_state_make(ibex_comm_t *comm);
static inline ibex_coll_shm_t *ibex_coll_state(ibex_comm_t *comm)
{
    ibex_coll_shm_t *seg = (ibex_coll_shm_t *)comm->coll_shm;
    return __builtin_expect(seg != NULL, 1) ? seg : ibex_coll_state_make(comm);
}

/* The segment of a communicator, made on first use; NULL when the shared-memory algorithms
 * cannot run on it (ranks on several nodes, one rank only, or the segment could not be made
 * on some rank): the caller then runs a point-to-point algorithm. Collective: every rank of the
 * communicator gets the same answer. Only a failure to communicate is an error. */
ibex_status_t ibex_coll_shm_get_slow(ibex_comm_t *comm, ibex_coll_shm_t **seg_p);
static inline ibex_status_t ibex_coll_shm_get(ibex_comm_t *comm, ibex_coll_shm_t **seg_p)
{
    ibex_coll_shm_t *seg = (ibex_coll_shm_t *)comm->coll_shm;
    if (__builtin_expect(seg && seg->tried && seg->ctl, 1)) {
        *seg_p = seg;
        return IBEX_OK;
    }
    return ibex_coll_shm_get_slow(comm, seg_p);
}

/* What the rule table asks: the span of comm (ANY once its segment failed). Local, cached. */
static inline ibex_coll_span_t ibex_coll_comm_span(ibex_comm_t *comm)
{
    ibex_coll_shm_t *seg = ibex_coll_state(comm);
    if (!seg)
        return IBEX_COLL_SPAN_ANY; /* out of memory: the plain algorithms need no state */
    if (seg->span == IBEX_COLL_SPAN_NODE && seg->tried && !seg->ctl)
        return IBEX_COLL_SPAN_ANY; /* the segment could not be made */
    return seg->span;
}

/* What the measured rows ask (coll_tuned.h): comm is within one node and that node runs more
 * ranks than cores (the same answer on every rank of comm). Local, cached. */
static inline bool ibex_coll_comm_oversub(ibex_comm_t *comm)
{
    ibex_coll_shm_t *seg = ibex_coll_state(comm);
    return seg && seg->oversub;
}
/* The node of a rank of comm (the real one, or its block of IBEX_COLL_NODE_SIZE world ranks). */
int ibex_coll_node_of(const ibex_comm_t *comm, int rank);
/* Whether every rank of comm is on this node (or in this rank's block of IBEX_COLL_NODE_SIZE). */
bool ibex_coll_shm_comm_local(const ibex_comm_t *comm);
/* The largest payload of the inline path (IBEX_COLL_SHM_INLINE). */
size_t ibex_coll_shm_inline_max(void);
/* Two ranks with a core each: past this many bytes (IBEX_COLL_SHM_PAIR_INLINE, 8 KiB) Bcast and
 * Allgather go single copy and Reduce takes the path of IBEX_COLL_SHM_PAIR_REDUCE. */
size_t ibex_coll_shm_pair_inline(void);
/* Two ranks with a core each: from this many bytes (IBEX_COLL_SHM_PAIR_SPLIT, 32 KiB; 0: never)
 * a single-copy Bcast is copied half by each rank (bcast_shm.c). */
size_t ibex_coll_shm_pair_split(void);
/* That Reduce path (IBEX_COLL_SHM_PAIR_REDUCE, reduce_shm.c). */
typedef enum {
    IBEX_COLL_PAIR_SLOTS, /* the pipelined inline slots up to the inline limit, push past it */
    IBEX_COLL_PAIR_PUSH,  /* the other rank writes its input into the root's buffer */
    IBEX_COLL_PAIR_PULL,  /* up to the inline limit the root reads the other's input in one
                           * call, then folds; push past it */
} ibex_coll_pair_reduce_t;
ibex_coll_pair_reduce_t ibex_coll_shm_pair_reduce(void);
/* Pulled, from this many bytes (IBEX_COLL_SHM_PAIR_REDUCE_SPLIT, 256 KiB; 0: never) both ranks
 * fold a part (reduce_shm.c). */
size_t ibex_coll_shm_pair_reduce_split(void);
/* Bcast: past this many bytes single copy even below the inline limit; 0: only past it
 * (IBEX_COLL_SHM_BCAST_SINGLE). */
size_t ibex_coll_shm_bcast_single(void);
/* Staging slots (IBEX_COLL_SHM_STAGE): a second shared mapping with two slots of this many
 * bytes per rank, made at the first collective that wants it, for payloads past the inline limit
 * that are copied through shared memory (one copy in, one copy out per reader, no system call)
 * instead of read with process_vm_readv (bcast_shm.c on an oversubscribed node,
 * allgather_shm_staged.c); 0: none. The slots are used as the inline ones are (slot g & 1 of a
 * rank rewritten at g only once every rank arrived at g - 1: ibex_coll_shm_claim). */
size_t ibex_coll_shm_stage_max(void);
/* Communicators larger than this never make staging slots (2 slots per rank). */
#define IBEX_COLL_SHM_STAGE_RANKS 16
/* A payload of `bytes` fits the staging slots of seg: past the inline limit, within
 * IBEX_COLL_SHM_STAGE, on a communicator of at most IBEX_COLL_SHM_STAGE_RANKS (the same answer
 * on every rank of the collective). */
bool ibex_coll_shm_stage_fits(const ibex_coll_shm_t *seg, size_t bytes);
/* Makes the staging slots of seg on first use (collective over comm: every rank calls it in the
 * same collective); *ok says whether they exist, the same on every rank. Only a failure to
 * communicate is an error. */
ibex_status_t ibex_coll_shm_stage_get(ibex_comm_t *comm, ibex_coll_shm_t *seg, bool *ok);

/* Staging slot of `rank` for generation g (after ibex_coll_shm_stage_get said ok). */
static inline void *ibex_coll_shm_stage_slot(ibex_coll_shm_t *seg, int rank, uint64_t g)
{
    return seg->stage + ((size_t)rank * 2 + (g & 1)) * seg->stage_slot;
}

/* The shared accumulator of Reduce / Allreduce (coll_shm_acc.c): after the staging slots, per
 * generation parity IBEX_COLL_SHM_ACC_CHUNKS chunk words, each on a line of its own. */
#define IBEX_COLL_SHM_ACC_CHUNKS 64
#define IBEX_COLL_SHM_ACC_WORDS  (2 * IBEX_COLL_SHM_ACC_CHUNKS * 64)
/* IBEX_COLL_SHM_ACC: the shared accumulator is allowed; IBEX_COLL_SHM_ACC_MIN: past how many
 * bytes. */
bool ibex_coll_shm_acc_on(void);
size_t ibex_coll_shm_acc_min(void);
/* The reduction of a (`bytes` of vector; `rooted`: a Reduce) goes through the shared accumulator
 * (the same answer on every rank; the caller then makes the staging slots with
 * ibex_coll_shm_stage_get, which must say ok). */
bool ibex_coll_shm_acc_fits(const ibex_coll_shm_t *seg, const ibex_coll_args_t *a, size_t bytes,
                            bool rooted);
/* *use: the reduction goes through the accumulator (it fits, and the staging slots exist: made
 * on first use, collectively). Only a failure to communicate is an error. */
ibex_status_t ibex_coll_shm_acc_use(ibex_coll_shm_t *seg, const ibex_coll_args_t *a, size_t bytes,
                                    bool rooted, bool *use);
/* A reduction through the accumulator (one generation per staging slot's worth of the vector):
 * this rank's input `in` (a->rcount elements) folded in, and, when out is not NULL, elements
 * [lo, lo + n) of the result copied to out (Reduce: the root, Allreduce: everyone, the whole
 * vector; Reduce_scatter: each rank its block). */
ibex_status_t ibex_coll_shm_acc_reduce(ibex_coll_shm_t *seg, const ibex_coll_args_t *a,
                                       const char *in, char *out, int lo, int n);

/* Bcast on an oversubscribed node pipelines its slot (IBEX_COLL_SHM_BCAST_PIPE, bcast_shm.c). */
bool ibex_coll_shm_bcast_pipe(void);
/* IBEX_COLL_SHM_A2A_PAIRS: the smallest communicator whose oversubscribed single-copy Alltoall
 * moves each block by whichever of its two ranks gets to it first (alltoall_shm.c); INT_MAX for
 * none. */
int ibex_coll_shm_a2a_pairs(void);
/* Bytes per chunk of the single-copy paths (IBEX_COLL_SHM_CHUNK). */
size_t ibex_coll_shm_chunk(void);
/* Bytes per write of the two-rank pushed Reduce (IBEX_COLL_SHM_PAIR_CHUNK). */
size_t ibex_coll_shm_pair_chunk(void);

/* Starts a generation on this rank: g, which the caller publishes with ibex_coll_shm_arrive
 * once its slot / addresses for g are written. */
static inline uint64_t ibex_coll_shm_begin(ibex_coll_shm_t *seg)
{
    return ++seg->gen;
}

static inline void ibex_coll_shm_set(uint64_t *flag, uint64_t g)
{
    __atomic_store_n(flag, g, __ATOMIC_RELEASE);
}

static inline uint64_t ibex_coll_shm_load(const uint64_t *flag)
{
    return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static inline ibex_coll_shm_ctl_t *ibex_coll_shm_ctl(ibex_coll_shm_t *seg, int rank)
{
    return &seg->ctl[rank];
}

static inline void ibex_coll_shm_arrive(ibex_coll_shm_t *seg, uint64_t g)
{
    ibex_coll_shm_set(&seg->ctl[seg->rank].arrive, g);
}

/* Inline slot of `rank` for generation g and a payload of `bytes` (every rank of the
 * collective passes the same): the tiny one in the flag's line, or the rank's slot. */
static inline void *ibex_coll_shm_slot(ibex_coll_shm_t *seg, int rank, uint64_t g, size_t bytes)
{
    if (bytes <= IBEX_COLL_SHM_TINY)
        return seg->ctl[rank].tiny[g & 1];
    return seg->slots + ((size_t)rank * 2 + (g & 1)) * seg->slot_size;
}

/* The short path's record of kind k on comm's segment when its notes are current, else NULL
 * (no segment, or an algorithm was forced since: ibex_coll_select_epoch). */
static inline ibex_coll_short_t *ibex_coll_short_get(ibex_comm_t *comm, int k)
{
    ibex_coll_shm_t *seg = (ibex_coll_shm_t *)comm->coll_shm;
    if (!seg || seg->shortp[k].epoch != ibex_coll_select_epoch)
        return NULL;
    return &seg->shortp[k];
}
/* The short path of kind k for a call on communicator handle comm (*c_p: its object), or NULL:
 * MPI not running, a bad handle, no current notes (the general path raises any error). */
static inline ibex_coll_short_t *ibex_coll_short_enter(MPI_Comm comm, int k, ibex_comm_t **c_p)
{
    ibex_comm_t *c;
    if (!(__builtin_expect(ibex_rt.running, 1) &&
          (c = ibex_handle_get(&ibex_comm_handles, comm)) != NULL))
        return NULL;
    *c_p = c;
    return ibex_coll_short_get(c, k);
}
/* Learns the type of the short path: predefined, contiguous from 0. */
bool ibex_coll_short_type(ibex_coll_short_t *sp, MPI_Datatype dt);
/* Copies a short path's payload (at most IBEX_COLL_SHM_TINY bytes): the common sizes inline. */
static inline void ibex_coll_tiny_copy(void *dst, const void *src, size_t n)
{
    if (n == 8)
        __builtin_memcpy(dst, src, 8);
    else if (n == 4)
        __builtin_memcpy(dst, src, 4);
    else
        __builtin_memcpy(dst, src, n);
}

/* Ring slot of `rank` for generation g (bcast on an oversubscribed node, coll_shm.h). */
static inline void *ibex_coll_shm_ring_slot(ibex_coll_shm_t *seg, int rank, uint64_t g)
{
    size_t i = (size_t)rank * IBEX_COLL_SHM_RING + (size_t)(g % IBEX_COLL_SHM_RING);
    return seg->ring + i * IBEX_COLL_SHM_RING_SLOT;
}

/* Two ranks with a core each (Bcast): past IBEX_COLL_SHM_PAIR_INLINE bytes (a tunable) the payload
 * goes single copy even below the inline limit, so each rank copies it at most once (the
 * inline path copies it twice: into the slot and out), with one flag handshake; that is what
 * Open MPI 4.1 does there (strace -c at 64 KiB: one process_vm_readv per call at the Bcast's
 * receiver and at the Reduce's root, no copy at the other rank). Chosen from those counts, not
 * timed (collectives/README.md, "Six points at 2, 4 and 8 ranks"). The same on every rank:
 * size, oversub and cma are facts of the segment. */
static inline bool ibex_coll_shm_pair_single(const ibex_coll_shm_t *seg, size_t bytes)
{
    return seg->size == 2 && !seg->oversub && seg->cma && bytes > ibex_coll_shm_pair_inline();
}

/* Reduce at two ranks with a core each, pulled (reduce_shm.c; Scan's two-rank path too): the
 * other rank publishes `in` and waits; the root reads it in pieces and folds into `out` in
 * rank order. a: contiguous rdt, root and op set. */
ibex_status_t ibex_coll_shm_reduce_pull(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                        const char *in, char *out, size_t bytes);

/* Whether a payload of this many bytes goes through the inline slots (else single copy): up to
 * the inline limit, but at two ranks with a core each only up to IBEX_COLL_SHM_PAIR_INLINE
 * (Gather, Gatherv, Scatter, Allgather, Alltoall; collectives/README.md, "Two-rank defaults"). */
static inline bool ibex_coll_shm_goes_inline(const ibex_coll_shm_t *seg, size_t bytes)
{
    return bytes <= seg->slot_size && !ibex_coll_shm_pair_single(seg, bytes);
}

/* Pipelined inline slots: while every rank has a core (seg->oversub false, the same on every
 * rank) a payload of several chunks is written into its slot chunk by chunk, the writer saying
 * after each how far it is (ctl.pbytes of generation ctl.pgen), so its reader copies or folds
 * each chunk as it lands: the writer's pass and the reader's overlap. On an oversubscribed node
 * a reader waiting for the next chunk gives up its core at each one, so there the Reduce writes
 * its slot whole; the Bcast pipelines there too (bcast_shm.c, IBEX_COLL_SHM_BCAST_PIPE): its
 * readers on the other core keep pace with the root, where whole they yield until it is done. */
#define IBEX_COLL_SHM_PIPE_CHUNK 8192

static inline bool ibex_coll_shm_use_pipe(const ibex_coll_shm_t *seg, size_t bytes)
{
    return !seg->oversub && bytes >= 2 * IBEX_COLL_SHM_PIPE_CHUNK;
}

/* The writer starts streaming generation g (pbytes reset first: a reader of g never takes
 * g - 1's count for g's). */
static inline void ibex_coll_shm_pipe_begin(ibex_coll_shm_t *seg, uint64_t g)
{
    ibex_coll_shm_set(&seg->ctl[seg->rank].pbytes, 0);
    ibex_coll_shm_set(&seg->ctl[seg->rank].pgen, g);
}

/* The writer of c has written `need` bytes of g: it says so, or it has gone on to a later
 * streamed generation, which it starts only once g is written. */
static inline bool ibex_coll_shm_pipe_has(const ibex_coll_shm_ctl_t *c, uint64_t g, size_t need)
{
    uint64_t pg = ibex_coll_shm_load(&c->pgen);
    return pg > g || (pg == g && ibex_coll_shm_load(&c->pbytes) >= need);
}

/* Writes bytes from src into this rank's slot chunk by chunk, publishing each. */
void ibex_coll_shm_pipe_put(ibex_coll_shm_t *seg, uint64_t g, char *slot, const char *src,
                            size_t bytes);
/* Waits until the writer of c has written `need` bytes of g (the engine's back-off rule). */
void ibex_coll_shm_pipe_wait(const ibex_coll_shm_ctl_t *c, uint64_t g, size_t need);

/* Waits until *flag >= g, with the engine's back-off rule. */
void ibex_coll_shm_wait(const uint64_t *flag, uint64_t g);
/* Waits until the flag at `offset` of every rank's control block is >= g. */
void ibex_coll_shm_wait_all(ibex_coll_shm_t *seg, size_t offset, uint64_t g);
/* Waits until the flag at `offset` of some rank r with which[r] set is >= g (which has size
 * entries, at least one set). */
void ibex_coll_shm_wait_any(ibex_coll_shm_t *seg, size_t offset, uint64_t g, const bool *which);
/* Before writing this rank's slot at g: waits until every rank arrived at g - 1. */
void ibex_coll_shm_claim(ibex_coll_shm_t *seg, uint64_t g);
/* The start of a short path's run (of coll kind `kind`, record k): what ibex_coll_run does
 * around an algorithm for the tools (the trace line, the algorithm MPI_T reports, the
 * blocked-call record; ibex_blk_coll_leave ends it) and the count of short runs; then the
 * generation, with claim its slot claimed (ibex_coll_shm_claim's test inline). */
static inline uint64_t ibex_coll_short_begin(ibex_coll_shm_t *seg, const ibex_coll_short_t *sp,
                                             int k, ibex_coll_kind_t kind, const ibex_comm_t *c,
                                             size_t bytes, bool claim)
{
    ibex_trace(COLL, "%s %s: %d ranks, %zu bytes (short path)", ibex_coll_kind_name(kind),
               sp->algo->name, c->size, bytes);
    ibex_engine_stats.coll_algo[kind] = sp->algo;
    ibex_engine_stats.coll_short[k]++;
    ibex_blk_coll_enter(sp->algo->name, c);
    uint64_t g = ibex_coll_shm_begin(seg);
    if (claim && g >= 3 && seg->all_seen < g - 1)
        ibex_coll_shm_claim(seg, g);
    return g;
}
/* Before writing this rank's ring slot at g: waits until every rank arrived at
 * g - IBEX_COLL_SHM_RING + 1 (the slot's previous use, g - IBEX_COLL_SHM_RING, is read). */
void ibex_coll_shm_claim_ring(ibex_coll_shm_t *seg, uint64_t g);
/* Reads len bytes at `addr` in rank's address space into dst (process_vm_readv), or copies
 * when rank is this rank. */
ibex_status_t ibex_coll_shm_read(ibex_coll_shm_t *seg, int rank, uint64_t addr, void *dst,
                                 size_t len);

/* Writes len bytes of src at `addr` in rank's address space (process_vm_writev), or copies
 * when rank is this rank. */
ibex_status_t ibex_coll_shm_write(ibex_coll_shm_t *seg, int rank, uint64_t addr, const void *src,
                                  size_t len);
/* The next unclaimed of n items of generation g (every rank passes the same n <=
 * IBEX_COLL_SHM_WORK_MAX), or -1 when all are claimed. */
int ibex_coll_shm_work_claim(ibex_coll_shm_t *seg, uint64_t g, int n);
/* One item of generation g is finished (its results are stored). */
void ibex_coll_shm_work_finish(ibex_coll_shm_t *seg, uint64_t g);
/* Waits until all n items of generation g are finished. */
void ibex_coll_shm_work_wait(ibex_coll_shm_t *seg, uint64_t g, int n);

/* ---- levels inside a node (coll_level.c): level 1 package, 2 L3, 3 NUMA ---- */
/* Objects of the level on this node's topology (at least 1). */
int ibex_coll_level_count(int level);
/* The level's object of world rank w: its index among the ranks of its node, taken onto the
 * topology's PUs in order (the same answer on every rank, nodes alike). */
int ibex_coll_level_of(int level, int world_rank);

/* ---- the hierarchy (coll_hier.c) ---- */
/* Builds (once, collectively over comm) the node and leaders communicators of seg's comm;
 * IBEX_OK with seg->node NULL if there is no hierarchy to use. */
ibex_status_t ibex_coll_hier_get(ibex_comm_t *comm, ibex_coll_shm_t **seg_p);
void ibex_coll_hier_free(ibex_coll_shm_t *seg);
/* Rank of parent rank r in its node's communicator. */
int ibex_coll_hier_node_rank(const ibex_coll_shm_t *seg, int r);

/* ---- reduction steps (coll_shm_reduce.c) ---- */
/* dst (the dense result bytes) = the rank-order fold of every rank's slot of generation g,
 * each waited for; (rcount, rdt, op) from a. This rank's own part is read from `own` when that
 * is not NULL and not dst (its slot is then not read). */
ibex_status_t ibex_coll_shm_combine(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                    const char *own, char *dst);
/* The same fold over the slots of ranks 0 .. last only (Scan, Exscan); every rank's slot need
 * not be written yet, so nothing is recorded in all_seen. */
ibex_status_t ibex_coll_shm_combine_prefix(ibex_coll_shm_t *seg, uint64_t g,
                                           const ibex_coll_args_t *a, const char *own, char *dst,
                                           int last);
/* The same fold (a Reduce root's) over slots written chunk by chunk (ibex_coll_shm_use_pipe):
 * each chunk of the result is folded once every contributor has published it, so the fold
 * overlaps the contributors' copies into their slots. */
ibex_status_t ibex_coll_shm_combine_pipe(ibex_coll_shm_t *seg, uint64_t g,
                                         const ibex_coll_args_t *a, const char *own, char *dst);
/* Slice r of count elements over p ranks: first element and length. */
void ibex_coll_shm_slice(int count, int p, int r, int *lo_p, int *n_p);
/* This rank's slice of the reduction of every rank's published send buffer (ctl.saddr, dense)
 * into dst (dense, indexed from element 0 of the whole vector); own is this rank's input.
 * Waits until every rank arrived at g. */
ibex_status_t ibex_coll_shm_reduce_slice(ibex_coll_shm_t *seg, uint64_t g,
                                         const ibex_coll_args_t *a, const char *own, char *dst);
/* Elements [lo, lo + n) of the same reduction into dst (the same layout), from every rank's
 * published send buffer; ibex_coll_shm_reduce_slice is this rank's slice of it, the root-only
 * reduce (reduce_shm_root.c) the whole vector. Waits until every rank arrived at g. */
ibex_status_t ibex_coll_shm_reduce_range(ibex_coll_shm_t *seg, uint64_t g,
                                         const ibex_coll_args_t *a, const char *own, char *dst,
                                         int lo, int n);
/* A buffer of at least `bytes` kept in seg between calls (NULL when out of memory). */
char *ibex_coll_shm_scratch(ibex_coll_shm_t *seg, size_t bytes);
/* The whole reduction of every rank's published send buffer (ctl.saddr, dense) into the root's
 * result (out at the root, published in its ctl.raddr; NULL elsewhere), in chunks that go to
 * whichever ranks are running: each claims the next chunk (ibex_coll_shm_work_claim), folds it
 * over every source in the order of ibex_coll_shm_reduce_range and stores it in the root's
 * buffer (process_vm_writev from the others). Waits until every rank arrived at g, then until
 * every chunk is stored, so on return no rank reads this rank's input any more and the root's
 * result is complete. */
ibex_status_t ibex_coll_shm_reduce_shared(ibex_coll_shm_t *seg, uint64_t g,
                                          const ibex_coll_args_t *a, const char *own, char *out);
/* Every other rank's final slice (its ctl.raddr + the slice's offset, read once its ready flag
 * reaches g) into the same place of out: the second phase of reduce and allreduce. */
ibex_status_t ibex_coll_shm_collect_slices(ibex_coll_shm_t *seg, uint64_t g,
                                           const ibex_coll_args_t *a, char *out);

/* ---- one rank's block (coll_shm_data.c) ---- */
/* Packs (buf, count, dt) into this rank's slot of generation g (after ibex_coll_shm_claim). */
void ibex_coll_shm_put_inline(ibex_coll_shm_t *seg, uint64_t g, const void *buf, int count,
                              MPI_Datatype dt);
/* Unpacks rank src's slot of generation g into (buf, count, dt). */
void ibex_coll_shm_get_inline(ibex_coll_shm_t *seg, uint64_t g, int src, void *buf, int count,
                              MPI_Datatype dt);
/* Unpacks (buf, count, dt) from `off` bytes into rank src's slot of generation g, which holds
 * slot_bytes in all (the writer's total picks the tiny or the full slot). */
void ibex_coll_shm_get_inline_at(ibex_coll_shm_t *seg, uint64_t g, int src, size_t slot_bytes,
                                 size_t off, void *buf, int count, MPI_Datatype dt);
/* Publishes the packed bytes of (buf, count, dt) in ctl.saddr: the buffer itself when dense,
 * else a packed copy returned in *tmp_p, to free once no rank reads it any more. */
ibex_status_t ibex_coll_shm_publish(ibex_coll_shm_t *seg, const void *buf, int count,
                                    MPI_Datatype dt, void **tmp_p);
/* Reads what rank src published into (buf, count, dt). */
ibex_status_t ibex_coll_shm_fetch(ibex_coll_shm_t *seg, int src, void *buf, int count,
                                  MPI_Datatype dt);
/* The same from `off` bytes into what src published. */
ibex_status_t ibex_coll_shm_fetch_at(ibex_coll_shm_t *seg, int src, size_t off, void *buf,
                                     int count, MPI_Datatype dt);
/* A Gather(v) leaf's part: its block (sbuf, scount, sdt) packed into its slot of generation g
 * when inline_ (it returns at once), else published for the root to read, returning once the
 * root says done = g. */
ibex_status_t ibex_coll_shm_gather_leaf(ibex_coll_shm_t *seg, uint64_t g, const ibex_coll_args_t *a,
                                        bool inline_);
/* What ibex_coll_shm_each_arrived does with one source rank. */
typedef ibex_status_t (*ibex_coll_shm_visit_t)(ibex_coll_shm_t *seg, int src, void *ctx);
/* fn(seg, src, ctx) once for every other rank src, each once it has arrived at g: in shift order
 * (rank + 1, rank + 2, ...) so the ranks start on different peers, but any arrived source before
 * one that has not, so this rank waits (yields) only when no source it still needs has arrived
 * (a fixed order waits for a rank without a core while others are ready). Every source is
 * visited; returns the first failure. */
ibex_status_t ibex_coll_shm_each_arrived(ibex_coll_shm_t *seg, uint64_t g, ibex_coll_shm_visit_t fn,
                                         void *ctx);
/* The same from `addr` in src's address space (an address src published some other way). */
ibex_status_t ibex_coll_shm_fetch_addr(ibex_coll_shm_t *seg, int src, uint64_t addr, void *buf,
                                       int count, MPI_Datatype dt);

#endif
