/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Alltoallv and Alltoallw in the communicator's shared segment (base/coll_shm.h), built as
 * alltoall_shm.c. A receiver knows only the size of the blocks it receives, not where a sender
 * keeps them, so each sender writes a table at the head of its inline slot of generation g: for
 * every destination either "inline at offset o of this slot" or the address of the block's
 * packed bytes in its own memory. Each block goes inline while the slot has room for it (at
 * two ranks with a core each only up to IBEX_COLL_SHM_PAIR_INLINE, as Alltoall), else single
 * copy: its address in the send buffer when it is one dense run, else in a packed copy (always
 * under MPI_IN_PLACE, since the receive buffer is overwritten while others read it). The sender
 * says arrive = g; each receiver takes its block of every sender as the sender arrives, any
 * arrived sender first (ibex_coll_shm_each_arrived), copying it out of the slot or reading it
 * with process_vm_readv, and after a read adds one to the sender's read count; a sender with
 * blocks read by address returns once its count says all of them are read, as the Alltoall.
 * Cost per rank: the own block's copy, the sum of its inline blocks in and out, one
 * process_vm_readv per block read by address; no message, no rendezvous. A slot too small for
 * the table (p 8-byte entries) or no process_vm_readv between the ranks (the same on every
 * rank): the point-to-point algorithm.
 */
#include <stdlib.h>

#include "coll_shm.h"
#include "ibex_datatype.h"

#define INLINE_BIT (1ULL << 63) /* table entry: offset in the slot, else an address */

/* One side of the exchange: block j is count[j] elements at vblock(j). */
typedef struct side {
    char *buf;
    const int *counts, *displs;
    MPI_Datatype dt;
    const MPI_Datatype *dts;
} side_t;

typedef struct a2av {
    const ibex_coll_args_t *a;
    side_t snd, rcv;
    uint64_t g;
    bool inplace;
} a2av_t;

static void *block(const side_t *s, int j, int *count_p, MPI_Datatype *dt_p)
{
    void *b = ibex_coll_vblock(s->buf, s->dt, s->dts, s->displs, j, dt_p);
    *count_p = s->counts[j];
    if (*count_p == 0)
        *dt_p = MPI_BYTE; /* Alltoallw: an empty block's type may be anything */
    return b;
}

static char *slot_of(ibex_coll_shm_t *seg, int rank, uint64_t g)
{
    return ibex_coll_shm_slot(seg, rank, g, seg->slot_size);
}

static size_t table_bytes(const ibex_coll_shm_t *seg)
{
    return (size_t)seg->size * sizeof(uint64_t);
}

/* Way of each block j != rank into tab; bytes of the packed copy the single ones need. */
static size_t plan(ibex_coll_shm_t *seg, const a2av_t *v, uint64_t *tab, int *nsingle_p)
{
    size_t used = table_bytes(seg), packed = 0;
    *nsingle_p = 0;
    for (int j = 0; j < seg->size; j++) {
        int count;
        MPI_Datatype dt;
        block(&v->snd, j, &count, &dt);
        const ibex_dt_t *d = ibex_dt_get(dt);
        size_t n = (size_t)count * d->size;
        if (j == seg->rank)
            continue;
        if (n <= seg->slot_size - used && !ibex_coll_shm_pair_single(seg, n)) {
            tab[j] = INLINE_BIT | used;
            used += n;
            continue;
        }
        tab[j] = 0;
        ++*nsingle_p;
        if (v->inplace || !ibex_dt_is_contig(d, count))
            packed += n;
    }
    return packed;
}

/* Packs the inline blocks into the slot, and the single ones that need it into tmp. */
static void fill(ibex_coll_shm_t *seg, const a2av_t *v, uint64_t *tab, char *slot, char *tmp)
{
    for (int j = 0; j < seg->size; j++) {
        int count;
        MPI_Datatype dt;
        char *b = block(&v->snd, j, &count, &dt);
        const ibex_dt_t *d = ibex_dt_get(dt);
        size_t n = (size_t)count * d->size;
        if (j == seg->rank)
            continue;
        if (tab[j] & INLINE_BIT) {
            ibex_dt_pack(b, count, d, 0, slot + (tab[j] & ~INLINE_BIT), n);
        } else if (v->inplace || !ibex_dt_is_contig(d, count)) {
            ibex_dt_pack(b, count, d, 0, tmp, n);
            tab[j] = (uint64_t)(uintptr_t)tmp;
            tmp += n;
        } else {
            tab[j] = (uint64_t)(uintptr_t)(b + d->true_lb);
        }
    }
}

/* This rank's block of src: out of src's slot, or read and counted at src. */
static ibex_status_t take(ibex_coll_shm_t *seg, int src, void *ctx)
{
    const a2av_t *v = ctx;
    const uint64_t *tab = (const uint64_t *)(void *)slot_of(seg, src, v->g);
    uint64_t e = tab[seg->rank];
    int count;
    MPI_Datatype dt;
    char *b = block(&v->rcv, src, &count, &dt);
    const ibex_dt_t *d = ibex_dt_get(dt);
    if (e & INLINE_BIT) {
        ibex_dt_unpack(b, count, d, 0, slot_of(seg, src, v->g) + (e & ~INLINE_BIT),
                       (size_t)count * d->size);
        return IBEX_OK;
    }
    ibex_status_t st = ibex_coll_shm_fetch_addr(seg, src, e, b, count, dt);
    /* counted even after a failure, so src does not wait for ever; this rank reports it */
    __atomic_fetch_add(&seg->count[src].nread, 1, __ATOMIC_RELEASE);
    return st;
}

static ibex_status_t own_copy(const ibex_coll_shm_t *seg, const a2av_t *v)
{
    if (v->inplace)
        return IBEX_OK;
    int sc, rc;
    MPI_Datatype sdt, rdt;
    void *sb = block(&v->snd, seg->rank, &sc, &sdt), *rb = block(&v->rcv, seg->rank, &rc, &rdt);
    return ibex_coll_copy(sb, sc, sdt, rb, rc, rdt);
}

static ibex_status_t run(ibex_coll_shm_t *seg, a2av_t *v)
{
    v->g = ibex_coll_shm_begin(seg);
    ibex_coll_shm_claim(seg, v->g);
    char *slot = slot_of(seg, seg->rank, v->g), *tmp = NULL;
    uint64_t *tab = (uint64_t *)(void *)slot;
    int nsingle;
    size_t packed = plan(seg, v, tab, &nsingle);
    if (packed && !(tmp = malloc(packed)))
        return IBEX_ERR_NO_MEMORY; /* fatal for the job: the others wait for these blocks */
    fill(seg, v, tab, slot, tmp);
    ibex_coll_shm_arrive(seg, v->g);
    ibex_status_t st = own_copy(seg, v);
    ibex_status_t cst = ibex_coll_shm_each_arrived(seg, v->g, take, v);
    seg->all_seen = v->g;
    seg->nread_want += (uint64_t)nsingle;
    ibex_coll_shm_wait(&seg->count[seg->rank].nread, seg->nread_want);
    free(tmp);
    return st != IBEX_OK ? st : cst;
}

static ibex_status_t alltoallv_shm(ibex_coll_kind_t kind, const ibex_coll_args_t *a)
{
    ibex_coll_shm_t *seg;
    ibex_status_t st = ibex_coll_shm_get(a->comm, &seg);
    if (st != IBEX_OK)
        return st;
    if (!seg || !seg->cma || table_bytes(seg) > seg->slot_size ||
        seg->slot_size <= IBEX_COLL_SHM_TINY)
        return ibex_coll_fallback(kind, a, 0);
    a2av_t v = {.a = a, .inplace = a->sbuf == MPI_IN_PLACE};
    v.rcv = (side_t){a->rbuf, a->rcounts, a->rdispls, a->rdt, a->rdts};
    v.snd = v.inplace ? v.rcv : (side_t){(char *)a->sbuf, a->scounts, a->sdispls, a->sdt, a->sdts};
    return run(seg, &v);
}

ibex_status_t ibex_coll_alltoallv_shm(const ibex_coll_args_t *args)
{
    return alltoallv_shm(IBEX_COLL_ALLTOALLV, args);
}

ibex_status_t ibex_coll_alltoallw_shm(const ibex_coll_args_t *args)
{
    return alltoallv_shm(IBEX_COLL_ALLTOALLW, args);
}
