/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-communicator shared segment of the shared-memory collectives (coll_shm.h says what
 * is in it and how its flags are used). Made lazily and collectively over the point-to-point
 * algorithms as an anonymous memory file (no name anywhere), its descriptor closed as soon as
 * every rank has it mapped, unmapped with the communicator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coll_shm.h"
#include "ibex_blocked_rec.h"
#include "ibex_config.h"
#include "ibex_datatype.h"
#include "ibex_log.h"
#include "ibex_p2p.h"
#include "ibex_request.h"
#include "ibex_runtime.h"

#define SEG_NAME_MAX 64

static long long seg_inline = 65536;
static long long seg_chunk = 65536;
static long long pair_inline = 8192;
static long long pair_chunk = 1048576;
static long long pair_split = 32768;
static long long bcast_single;
static long long stage_max = 1048576;
static int bcast_pipe = 1;
static int acc_on = 1;
static long long acc_min = 1024;
static int pair_reduce; /* ibex_coll_pair_reduce_t */
static long long pair_reduce_split = 262144;
static int node_size;
static int node_level; /* index into level_types[] */
static int wait_spin;
static int a2a_pairs = 8;

static const ibex_cfg_entry_t coll_shm_table[] = {
    {"COLL_SHM_INLINE", IBEX_CFG_SIZE, "64k", NULL, &seg_inline,
     "shared-memory collectives: largest payload carried inline in the communicator's segment "
     "(two slots of this size per rank); larger ones go single-copy with process_vm_readv"},
    {"COLL_SHM_CHUNK", IBEX_CFG_SIZE, "64k", NULL, &seg_chunk,
     "shared-memory collectives: bytes per step of the single-copy reductions (read, reduce, "
     "while the chunk is in cache)"},
    {"COLL_SHM_PAIR_INLINE", IBEX_CFG_SIZE, "8k", NULL, &pair_inline,
     "shared-memory Bcast, Allgather and Reduce at two ranks with a core each: past this many "
     "bytes the Bcast and the Allgather go single copy (one process_vm_readv per receiver) and "
     "the Reduce takes IBEX_COLL_SHM_PAIR_REDUCE's path, even below the inline limit"},
    {"COLL_SHM_PAIR_CHUNK", IBEX_CFG_SIZE, "1m", NULL, &pair_chunk,
     "shared-memory Reduce at two ranks with a core each, pushed: bytes per process_vm_writev "
     "of the other rank's input into the root's buffer (the root folds each as it lands)"},
    {"COLL_SHM_PAIR_SPLIT", IBEX_CFG_SIZE, "32k", NULL, &pair_split,
     "shared-memory Bcast at two ranks with a core each, single copy: from this many bytes the "
     "root writes the second half into the receiver's buffer (process_vm_writev) while the "
     "receiver reads the first, so both cores copy, as the point-to-point SPLIT rendezvous "
     "does from IBEX_RNDV_SPLIT_MIN; 0: the receiver reads it all"},
    {"COLL_SHM_PAIR_REDUCE", IBEX_CFG_ENUM, "pull", "slots|push|pull", &pair_reduce,
     "shared-memory Reduce at two ranks with a core each past IBEX_COLL_SHM_PAIR_INLINE bytes: "
     "slots (pipelined inline slots up to the inline limit, push past it), push (the other rank "
     "process_vm_writev's its input into the root's buffer, the root folds its own into it), "
     "pull (the root process_vm_readv's the other's input in pieces of "
     "IBEX_COLL_SHM_PAIR_CHUNK and folds each: Open MPI 4.1's scheme; from "
     "IBEX_COLL_SHM_PAIR_REDUCE_SPLIT bytes both ranks fold)"},
    {"COLL_SHM_PAIR_REDUCE_SPLIT", IBEX_CFG_SIZE, "256k", NULL, &pair_reduce_split,
     "shared-memory Reduce at two ranks with a core each, pulled: from this many bytes both "
     "ranks fold (the root pulls and folds the first 5/8 of the elements, the other rank reads "
     "the root's input for the rest, folds its own into it and writes the result into the "
     "root's buffer), for a commutative op or root 1; 0: never"},
    {"COLL_SHM_BCAST_SINGLE", IBEX_CFG_SIZE, "0", NULL, &bcast_single,
     "shared-memory Bcast: past this many bytes every receiver reads the root's buffer itself "
     "(process_vm_readv, single copy) even below the inline limit; 0: only past the inline "
     "limit (and IBEX_COLL_SHM_PAIR_INLINE at two ranks with a core each)"},
    {"COLL_SHM_STAGE", IBEX_CFG_SIZE, "1m", NULL, &stage_max,
     "shared-memory collectives: bytes of each of the two staging slots per rank, a second "
     "mapping made at the first collective that wants it (communicators of up to 16 ranks): "
     "payloads past the inline limit and up to this size are copied through them instead of "
     "read with process_vm_readv (Bcast on a node with more ranks than cores, the shmem_staged "
     "Allgather); 0: none"},
    {"COLL_SHM_BCAST_PIPE", IBEX_CFG_BOOL, "1", NULL, &bcast_pipe,
     "shared-memory Bcast on a node with more ranks than cores: the root writes its slot (inline "
     "or staging) in 8 KiB chunks and the others copy each as it lands (1), or whole (0); with "
     "a core per rank it is pipelined from 16 KiB either way"},
    {"COLL_SHM_ACC", IBEX_CFG_BOOL, "1", NULL, &acc_on,
     "shared-memory Reduce, Allreduce and Reduce_scatter(_block) of a commutative op past "
     "IBEX_COLL_SHM_ACC_MIN on communicators of 3 to 16 ranks: every rank folds its own input "
     "straight "
     "into a shared accumulator (pieces of IBEX_COLL_SHM_STAGE bytes), chunk by chunk in "
     "whatever order the chunks are free, and the result is copied out of it (1); or the "
     "single-copy chunks read with process_vm_readv (0). The same on every rank"},
    {"COLL_SHM_ACC_MIN", IBEX_CFG_SIZE, "1k", NULL, &acc_min,
     "shared-memory Allreduce and Reduce_scatter(_block): the shared accumulator "
     "(IBEX_COLL_SHM_ACC) past this many bytes of the vector (below: the inline slots); Reduce "
     "past the larger of this and IBEX_COLL_SHM_INLINE (its inline slots let the leaves return "
     "at once)"},
    {"COLL_SHM_A2A_PAIRS", IBEX_CFG_INT, "8", NULL, &a2a_pairs,
     "shared-memory Alltoall past the inline limit on a node with more ranks than cores, on "
     "communicators of at least this many ranks: each block is moved by whichever of its two "
     "ranks gets to it first (the receiver with process_vm_readv or the sender with "
     "process_vm_writev), so a running rank serves arrived peers that have no core and "
     "nobody waits for a descheduled reader; smaller communicators (and 0: all) have every "
     "rank read its own blocks. The same on every rank"},
    {"COLL_SHM_SPIN", IBEX_CFG_INT, "0", NULL, &wait_spin,
     "shared-memory collectives: loads of a flag before a wait's first progress call and yield "
     "(the rank that sets it may be running on another core and about to; 0: none, the "
     "engine's rule from the first empty poll)"},
    {"COLL_NODE_SIZE", IBEX_CFG_INT, "0", NULL, &node_size,
     "treat each block of this many consecutive world ranks as one node for the collectives (0: "
     "the real nodes); runs the multi-node paths on one machine"},
    {"COLL_NODE_LEVEL", IBEX_CFG_ENUM, "none", "none|package|l3|numa", &node_level,
     "split each node at this hwloc level for the collectives (HWLOC_SYNTHETIC is honoured): "
     "each package / L3 / NUMA domain is a node of the hierarchical algorithms, the local ranks "
     "taken onto the PUs in order; none: a node is flat"},
};
IBEX_CFG_MODULE(coll_shm, "coll_shm", IBEX_CFG_LAYER_COLL, coll_shm_table);

/* What a probing rank reads in its neighbour's memory. */
static const uint64_t probe_magic = 0x1bec011c0115aa55ull;

size_t ibex_coll_shm_inline_max(void)
{
    return (size_t)seg_inline;
}

size_t ibex_coll_shm_pair_inline(void)
{
    return (size_t)pair_inline;
}

size_t ibex_coll_shm_pair_split(void)
{
    return (size_t)pair_split;
}

size_t ibex_coll_shm_pair_reduce_split(void)
{
    return (size_t)pair_reduce_split;
}

ibex_coll_pair_reduce_t ibex_coll_shm_pair_reduce(void)
{
    return (ibex_coll_pair_reduce_t)pair_reduce;
}

size_t ibex_coll_shm_bcast_single(void)
{
    return (size_t)bcast_single;
}

bool ibex_coll_shm_acc_on(void)
{
    return acc_on != 0;
}

size_t ibex_coll_shm_acc_min(void)
{
    return acc_min > 0 ? (size_t)acc_min : 0;
}

bool ibex_coll_shm_bcast_pipe(void)
{
    return bcast_pipe != 0;
}

int ibex_coll_shm_a2a_pairs(void)
{
    return a2a_pairs > 0 ? a2a_pairs : INT_MAX;
}

size_t ibex_coll_shm_stage_max(void)
{
    return stage_max > 0 ? (size_t)stage_max : 0;
}

bool ibex_coll_shm_stage_fits(const ibex_coll_shm_t *seg, size_t bytes)
{
    return bytes > seg->slot_size && bytes <= ibex_coll_shm_stage_max() &&
           seg->size <= IBEX_COLL_SHM_STAGE_RANKS;
}

size_t ibex_coll_shm_pair_chunk(void)
{
    return pair_chunk >= 4096 ? (size_t)pair_chunk : 4096;
}

size_t ibex_coll_shm_chunk(void)
{
    return seg_chunk >= 4096 ? (size_t)seg_chunk : 4096;
}

/* The real node, cut into blocks of IBEX_COLL_NODE_SIZE world ranks when that is set, then at
 * the hwloc level IBEX_COLL_NODE_LEVEL (coll_level.c): a faked node never spans two real ones,
 * so the segment is only ever shared within a machine. */
static int node_of(int world_rank)
{
    int real = ibex_rt.boot.node_of ? ibex_rt.boot.node_of[world_rank] : 0;
    if (node_size > 0)
        real = real * (ibex_rt.boot.size / node_size + 1) + world_rank / node_size;
    if (node_level == 0)
        return real;
    int parts = ibex_coll_level_count(node_level);
    return real * parts + ibex_coll_level_of(node_level, world_rank);
}

int ibex_coll_node_of(const ibex_comm_t *comm, int rank)
{
    return node_of(ibex_comm_world_rank(comm, rank));
}

bool ibex_coll_shm_comm_local(const ibex_comm_t *comm)
{
    int mine = node_of(ibex_comm_world_rank(comm, comm->rank));
    for (int i = 0; i < comm->size; i++)
        if (node_of(ibex_comm_world_rank(comm, i)) != mine)
            return false;
    return true;
}

/* NODE: more than one rank, all on one node; NODES: several nodes, one of them with more
 * than one rank of comm (else a hierarchy has nothing to share); else ANY. */
static ibex_coll_span_t comm_span(const ibex_comm_t *comm)
{
    /* no open transport shares memory (IBEX_TRANSPORTS left it out): neither may we */
    if (comm->size < 2 || !ibex_ep_node_memory())
        return IBEX_COLL_SPAN_ANY;
    if (ibex_coll_shm_comm_local(comm))
        return IBEX_COLL_SPAN_NODE;
    for (int i = 0; i < comm->size; i++)
        for (int j = i + 1; j < comm->size; j++)
            if (ibex_coll_node_of(comm, i) == ibex_coll_node_of(comm, j))
                return IBEX_COLL_SPAN_NODES;
    return IBEX_COLL_SPAN_ANY;
}

void ibex_coll_shm_pipe_put(ibex_coll_shm_t *seg, uint64_t g, char *slot, const char *src,
                            size_t bytes)
{
    ibex_coll_shm_ctl_t *me = &seg->ctl[seg->rank];
    ibex_coll_shm_pipe_begin(seg, g);
    for (size_t off = 0; off < bytes; off += IBEX_COLL_SHM_PIPE_CHUNK) {
        size_t len =
            bytes - off < IBEX_COLL_SHM_PIPE_CHUNK ? bytes - off : IBEX_COLL_SHM_PIPE_CHUNK;
        memcpy(slot + off, src + off, len);
        ibex_coll_shm_set(&me->pbytes, off + len);
    }
}

void ibex_coll_shm_pipe_wait(const ibex_coll_shm_ctl_t *c, uint64_t g, size_t need)
{
    int idle = 0;
    while (!ibex_coll_shm_pipe_has(c, g, need))
        ibex_wait_step(&idle);
}

void ibex_coll_shm_wait(const uint64_t *flag, uint64_t g)
{
    for (int i = 0; i < wait_spin; i++)
        if (ibex_coll_shm_load(flag) >= g)
            return;
    int idle = 0;
    bool rec = false;
    int spins = 0;
    while (ibex_coll_shm_load(flag) < g) {
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins))
            rec = ibex_blk_wait_coll();
    }
    if (rec)
        ibex_blk_end();
}

void ibex_coll_shm_wait_all(ibex_coll_shm_t *seg, size_t offset, uint64_t g)
{
    for (int i = 0; i < seg->size; i++)
        if (i != seg->rank)
            ibex_coll_shm_wait((const uint64_t *)((char *)&seg->ctl[i] + offset), g);
}

void ibex_coll_shm_wait_any(ibex_coll_shm_t *seg, size_t offset, uint64_t g, const bool *which)
{
    int idle = 0, spins = 0;
    bool rec = false;
    for (;;) {
        for (int i = 0; i < seg->size; i++)
            if (which[i] &&
                ibex_coll_shm_load((const uint64_t *)((char *)&seg->ctl[i] + offset)) >= g)
                goto out;
        ibex_wait_step(&idle);
        if (!rec && ibex_blk_due(&spins))
            rec = ibex_blk_wait_coll();
    }
out:
    if (rec)
        ibex_blk_end();
}

/* After algo ran a call of `bytes` that ibex_coll_run gave it (the segment's generation was
 * g0 before): a note for its short path if the call went through the tiny slots as generation
 * g0 + 1 (not the fallback, not another route a tunable chose). */
void ibex_coll_shm_short_note(const ibex_coll_args_t *a, const ibex_coll_algo_t *algo, size_t bytes,
                              uint64_t g0)
{
    ibex_coll_shm_t *seg = (ibex_coll_shm_t *)a->comm->coll_shm;
    if (!seg || !seg->ctl || bytes == 0 || seg->gen != g0 + 1 || seg->tiny_gen != seg->gen)
        return;
    ibex_coll_short_t *sp = &seg->shortp[algo->short_kind - 1];
    if (sp->epoch != ibex_coll_select_epoch) {
        sp->sizes = 0;
        sp->epoch = ibex_coll_select_epoch;
    }
    sp->sizes |= 1u << bytes;
    sp->algo = algo;
}

bool ibex_coll_short_type(ibex_coll_short_t *sp, MPI_Datatype dt)
{
    const ibex_dt_t *d = ibex_dt_get(dt);
    if (!d || !d->predefined || !d->contiguous || d->true_lb != 0 || d->size == 0)
        return false;
    sp->dt = dt;
    sp->dsize = d->size;
    return true;
}

void ibex_coll_shm_claim_ring(ibex_coll_shm_t *seg, uint64_t g)
{
    uint64_t need = g > IBEX_COLL_SHM_RING ? g - IBEX_COLL_SHM_RING + 1 : 0;
    if (need == 0 || seg->all_seen >= need)
        return;
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, arrive), need);
    seg->all_seen = need;
}

void ibex_coll_shm_claim(ibex_coll_shm_t *seg, uint64_t g)
{
    if (g < 3 || seg->all_seen >= g - 1)
        return;
    ibex_coll_shm_wait_all(seg, offsetof(ibex_coll_shm_ctl_t, arrive), g - 1);
    seg->all_seen = g - 1;
}

/* process_vm_readv until len bytes are in; the errno of the failure, or 0. */
static int cma_read(pid_t pid, uint64_t addr, void *dst, size_t len)
{
    while (len > 0) {
        struct iovec liov = {.iov_base = dst, .iov_len = len};
        struct iovec riov = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
        ssize_t n = process_vm_readv(pid, &liov, 1, &riov, 1, 0);
        if (n <= 0)
            return n < 0 ? errno : EFAULT;
        dst = (char *)dst + n;
        addr += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

ibex_status_t ibex_coll_shm_read(ibex_coll_shm_t *seg, int rank, uint64_t addr, void *dst,
                                 size_t len)
{
    if (rank == seg->rank) {
        memcpy(dst, (const void *)(uintptr_t)addr, len);
        return IBEX_OK;
    }
    int err = cma_read(seg->ctl[rank].pid, addr, dst, len);
    if (err == 0)
        return IBEX_OK;
    ibex_error(COLL, "reading %zu bytes of rank %d (pid %d) failed: %s", len, rank,
               (int)seg->ctl[rank].pid, strerror(err));
    return IBEX_ERR_IO;
}

ibex_status_t ibex_coll_shm_write(ibex_coll_shm_t *seg, int rank, uint64_t addr, const void *src,
                                  size_t len)
{
    if (rank == seg->rank) {
        memcpy((void *)(uintptr_t)addr, src, len);
        return IBEX_OK;
    }
    while (len > 0) {
        struct iovec liov = {.iov_base = (void *)src, .iov_len = len};
        struct iovec riov = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
        ssize_t n = process_vm_writev(seg->ctl[rank].pid, &liov, 1, &riov, 1, 0);
        if (n <= 0) {
            ibex_error(COLL, "writing %zu bytes to rank %d (pid %d) failed: %s", len, rank,
                       (int)seg->ctl[rank].pid, n < 0 ? strerror(errno) : "nothing written");
            return IBEX_ERR_IO;
        }
        src = (const char *)src + n;
        addr += (uint64_t)n;
        len -= (size_t)n;
    }
    return IBEX_OK;
}

int ibex_coll_shm_work_claim(ibex_coll_shm_t *seg, uint64_t g, int n)
{
    uint64_t w = ibex_coll_shm_load(&seg->work->next);
    for (;;) {
        uint64_t wg = w >> IBEX_COLL_SHM_WORK_BITS;
        int i = wg < g ? 0 : (int)(w & IBEX_COLL_SHM_WORK_MAX);
        if (wg > g || i >= n)
            return -1;
        uint64_t nw = (g << IBEX_COLL_SHM_WORK_BITS) | (uint64_t)(i + 1);
        if (__atomic_compare_exchange_n(&seg->work->next, &w, nw, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return i;
    }
}

void ibex_coll_shm_work_finish(ibex_coll_shm_t *seg, uint64_t g)
{
    uint64_t w = ibex_coll_shm_load(&seg->work->fin);
    for (;;) {
        uint64_t base = g << IBEX_COLL_SHM_WORK_BITS;
        uint64_t nw = (w < base ? base : w) + 1;
        if (__atomic_compare_exchange_n(&seg->work->fin, &w, nw, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return;
    }
}

void ibex_coll_shm_work_wait(ibex_coll_shm_t *seg, uint64_t g, int n)
{
    ibex_coll_shm_wait(&seg->work->fin, (g << IBEX_COLL_SHM_WORK_BITS) | (uint64_t)n);
}

static void seg_free(void *state)
{
    ibex_coll_shm_t *seg = state;
    if (seg && seg->ctl)
        munmap(seg->ctl, seg->map_size);
    if (seg && seg->stage)
        munmap(seg->stage, seg->stage_map);
    if (seg) {
        free(seg->scratch);
        ibex_coll_hier_free(seg);
    }
    free(seg);
}

static size_t seg_bytes(int size, size_t slot)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t ring = (size_t)IBEX_COLL_SHM_RING * IBEX_COLL_SHM_RING_SLOT;
    size_t bytes = (size_t)size * (sizeof(ibex_coll_shm_ctl_t) + 2 * slot + ring);
    bytes += sizeof(ibex_coll_shm_work_t) + (size_t)size * sizeof(ibex_coll_shm_count_t);
    bytes += (size_t)size * (size_t)size * sizeof(uint64_t);
    return (bytes + page - 1) / page * page;
}

/* Rank 0: an anonymous memory file (memfd_create: it has no name in any file system, so there
 * is nothing to guess, nothing to unlink and nothing left behind whoever dies when); `path`
 * gets /proc/<pid>/fd/<fd>, through which the others open it, which the kernel allows only to a
 * process that may inspect rank 0 (the same user): owner-only. -1 and "" on failure. */
static int seg_create(char *path, size_t bytes)
{
    path[0] = '\0';
    int fd = memfd_create("ibex-coll", MFD_CLOEXEC);
    if (fd < 0) {
        ibex_warn(COLL, "memfd_create() of a collective segment failed: %m");
        return -1;
    }
    /* Reserve the pages now: when memory runs short a sparse segment maps fine and the first
     * store to it is a SIGBUS; this way the collectives fall back to point-to-point. */
    int err = ftruncate(fd, (off_t)bytes) != 0 ? errno : posix_fallocate(fd, 0, (off_t)bytes);
    if (err != 0) {
        ibex_warn(COLL, "sizing a %zu-byte collective segment failed: %s", bytes, strerror(err));
        close(fd);
        return -1;
    }
    snprintf(path, SEG_NAME_MAX, "/proc/%d/fd/%d", (int)getpid(), fd);
    return fd;
}

static int seg_open(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        ibex_warn(COLL, "opening rank 0's collective segment (%s) failed: %m", path);
    return fd;
}

static void *seg_map(int fd, size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        ibex_warn(COLL, "mapping a %zu-byte collective segment failed: %m", bytes);
        return NULL;
    }
    return p;
}

/* MIN-allreduce of one int over the point-to-point algorithm (the segment is not there yet). */
static ibex_status_t agree(ibex_comm_t *comm, int *value)
{
    int in = *value;
    ibex_coll_args_t a = {.comm = comm,
                          .sbuf = &in,
                          .rbuf = value,
                          .rcount = 1,
                          .rdt = MPI_INT,
                          .op = ibex_op_get(MPI_MIN)};
    return ibex_coll_allreduce_recursive_doubling(&a);
}

/* Yama's ptrace_scope 1 allows reading a process that named us: name everyone (as the shared-memory
 * transport does); the neighbour probe below finds out whether it worked. */
static void cma_allow(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = 0;
    if (!f)
        return;
    if (fscanf(f, "%d", &scope) == 1 && scope == 1)
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    fclose(f);
}

/* Every rank reads the next one's probe word: agreed, so either all use single copy or none. */
static ibex_status_t cma_probe(ibex_comm_t *comm, ibex_coll_shm_t *seg)
{
    uint64_t word = 0;
    int next = (seg->rank + 1) % seg->size;
    int ok = cma_read(seg->ctl[next].pid, seg->ctl[next].saddr, &word, sizeof(word)) == 0 &&
             word == probe_magic;
    ibex_status_t st = agree(comm, &ok);
    seg->cma = ok;
    if (st == IBEX_OK && !ok && seg->rank == 0)
        ibex_info(COLL, "process_vm_readv between ranks not allowed: large shared-memory "
                        "collectives fall back to point-to-point");
    return st;
}

static void seg_attach(ibex_comm_t *comm, ibex_coll_shm_t *seg, void *map, size_t bytes)
{
    seg->ctl = map;
    seg->map_size = bytes;
    seg->slots = (char *)map + (size_t)comm->size * sizeof(ibex_coll_shm_ctl_t);
    seg->ring = seg->slots + (size_t)comm->size * 2 * seg->slot_size;
    seg->work = (ibex_coll_shm_work_t *)(seg->ring + (size_t)comm->size * IBEX_COLL_SHM_RING *
                                                         IBEX_COLL_SHM_RING_SLOT);
    seg->count = (ibex_coll_shm_count_t *)(seg->work + 1);
    seg->pair = (uint64_t *)(seg->count + comm->size);
    seg->ctl[seg->rank].pid = (int32_t)getpid();
    seg->ctl[seg->rank].saddr = (uint64_t)(uintptr_t)&probe_magic;
}

/* Rank 0 makes an anonymous memory file of `bytes` and sends its path (point-to-point bcast),
 * every rank opens and maps it: *map_p (NULL where that failed) and the descriptor *fd_p, which
 * map_agree closes. */
static ibex_status_t map_shared(ibex_comm_t *comm, size_t bytes, void **map_p, int *fd_p)
{
    char path[SEG_NAME_MAX] = "";
    int fd = comm->rank == 0 ? seg_create(path, bytes) : -1;
    ibex_coll_args_t a = {
        .comm = comm, .rbuf = path, .rcount = SEG_NAME_MAX, .rdt = MPI_CHAR, .root = 0};
    ibex_status_t st = ibex_coll_bcast_binomial(&a);
    if (st == IBEX_OK && path[0] && comm->rank != 0)
        fd = seg_open(path);
    *map_p = fd >= 0 ? seg_map(fd, bytes) : NULL;
    *fd_p = fd;
    return st;
}

/* After map_shared: agrees whether every rank mapped it (*ok, the same everywhere; also: every
 * rank has opened it, so rank 0's descriptor can go) and closes the descriptor. */
static ibex_status_t map_agree(ibex_comm_t *comm, ibex_status_t st, const void *map, int fd,
                               int *ok)
{
    *ok = map != NULL;
    if (st == IBEX_OK)
        st = agree(comm, ok);
    if (fd >= 0)
        close(fd); /* the mappings keep the memory */
    return st;
}

/* Around a segment's set-up inside the first collective that needs it: its waits are recorded as
 * the set-up's, not as the collective's algorithm's (a hang report would show rank 0's address
 * broadcast as a 64-byte message of the program's). */
typedef struct setup_blk {
    const char *algo;
    int step;
} setup_blk_t;

static setup_blk_t setup_blk_enter(void)
{
    setup_blk_t saved = {ibex_blk.algo, ibex_blk.step};
    ibex_blk.algo = IBEX_BLK_ALGO_SEG_SETUP;
    ibex_blk.step = 0;
    return saved;
}

static void setup_blk_leave(setup_blk_t saved)
{
    ibex_blk.algo = saved.algo;
    ibex_blk.step = saved.step;
}

static ibex_status_t seg_setup(ibex_comm_t *comm, ibex_coll_shm_t *seg)
{
    size_t bytes = seg_bytes(comm->size, seg->slot_size);
    void *map;
    int fd, ok;
    ibex_status_t st = map_shared(comm, bytes, &map, &fd);
    if (map)
        seg_attach(comm, seg, map, bytes); /* before the agreement: the probe reads it */
    st = map_agree(comm, st, map, fd, &ok);
    if (st != IBEX_OK || !ok)
        return st != IBEX_OK ? st : IBEX_ERR_UNSUPPORTED;
    cma_allow();
    return cma_probe(comm, seg);
}

ibex_status_t ibex_coll_shm_stage_get(ibex_comm_t *comm, ibex_coll_shm_t *seg, bool *ok_p)
{
    if (seg->stage_tried) {
        *ok_p = seg->stage != NULL;
        return IBEX_OK;
    }
    seg->stage_tried = true;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t slot = (ibex_coll_shm_stage_max() + 63) / 64 * 64;
    size_t bytes = (size_t)comm->size * 2 * slot + IBEX_COLL_SHM_ACC_WORDS;
    bytes = (bytes + page - 1) / page * page;
    void *map;
    int fd, ok;
    setup_blk_t saved = setup_blk_enter();
    ibex_status_t st = map_shared(comm, bytes, &map, &fd);
    st = map_agree(comm, st, map, fd, &ok);
    setup_blk_leave(saved);
    if (map && (st != IBEX_OK || !ok)) {
        munmap(map, bytes);
        map = NULL;
    }
    seg->stage = map;
    seg->stage_slot = slot;
    seg->stage_map = bytes;
    *ok_p = map != NULL;
    return st;
}

/* The collectives' state of comm, made on first use (local: no message). */
ibex_coll_shm_t *ibex_coll_state_make(ibex_comm_t *comm)
{
    ibex_coll_shm_t *seg = calloc(1, sizeof(*seg));
    if (!seg)
        return NULL;
    seg->size = comm->size;
    seg->rank = comm->rank;
    seg->slot_size = (ibex_coll_shm_inline_max() + 63) / 64 * 64;
    seg->span = comm_span(comm);
    seg->oversub = ibex_rt.oversubscribed && ibex_coll_shm_comm_local(comm);
    comm->coll_shm = seg;
    comm->coll_shm_free = seg_free;
    return seg;
}

ibex_status_t ibex_coll_shm_get_slow(ibex_comm_t *comm, ibex_coll_shm_t **seg_p)
{
    ibex_coll_shm_t *seg = ibex_coll_state(comm);
    *seg_p = NULL;
    if (!seg)
        return IBEX_ERR_NO_MEMORY; /* before any message: every rank must say the same */
    if (seg->tried || seg->span != IBEX_COLL_SPAN_NODE) {
        *seg_p = seg->ctl ? seg : NULL;
        return IBEX_OK;
    }
    seg->tried = true;
    setup_blk_t saved = setup_blk_enter();
    ibex_status_t st = seg_setup(comm, seg);
    setup_blk_leave(saved);
    if (st == IBEX_ERR_UNSUPPORTED) {
        if (seg->ctl)
            munmap(seg->ctl, seg->map_size);
        seg->ctl = NULL;
        return IBEX_OK;
    }
    if (st == IBEX_OK)
        *seg_p = seg;
    return st;
}

_Static_assert(sizeof(ibex_coll_shm_ctl_t) == 128, "a control block is two cache lines");
_Static_assert(sizeof(ibex_coll_shm_work_t) == 128, "claims and finishes on lines of their own");
_Static_assert(sizeof(ibex_coll_shm_count_t) == 64, "one rank's read count per line");
_Static_assert(offsetof(ibex_coll_shm_ctl_t, ready) == 64, "the arrive line ends at 64 bytes");
