/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared receive queue of the shm transport: one bounded multi-producer single-consumer
 * queue per receiving process (D. Vyukov's bounded queue), of ids of fragments that the senders
 * own (as in Open MPI's vader, whose fragments also live with the sender).
 *
 * A sender owns a pool of fragments in its own segment. To send, it takes a free fragment,
 * writes header + payload into it, then claims the next cell of the receiver's queue (a
 * compare-and-swap on the queue's position) and stores the fragment's id and the cell's
 * sequence word. The receiver polls the sequence word of the one cell it expects next, in its
 * own segment, however many senders there are. It takes the id out of the cell at once (so a
 * message it must hold back does not block the queue), delivers the fragment from the sender's
 * pool and then sets the fragment's `busy` word to 0, which gives it back to its sender.
 *
 * A fragment id is (sender's local rank + 1) << 32 | index in the sender's pool; an id with
 * IBEX_SHM_ID_CLAIM set carries no fragment: it tells the receiver that the sender now owns fast
 * box (index) and sends everything else through it.
 *
 * A sender killed between its claim of a cell and its store of the sequence word stops the queue
 * (a window of a few instructions); that is not detected.
 */
#ifndef IBEX_SHM_FIFO_H
#define IBEX_SHM_FIFO_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "shm_ring.h"

#define IBEX_SHM_ID_CLAIM 0x80000000u

typedef struct ibex_shm_cell {
    _Atomic uint64_t seq; /* pos + 1 once cell pos is filled, pos + cells once free again */
    uint64_t id;
} ibex_shm_cell_t;

/* In the receiver's segment, then `cells` cells: the producers' position and the fast-box claim
 * counter each on their own lines (the consumer's position is private). */
typedef struct ibex_shm_fifo_ctl {
    alignas(IBEX_SHM_CTL_ALIGN) _Atomic uint64_t pos;
    alignas(IBEX_SHM_CTL_ALIGN) _Atomic uint32_t boxes_claimed;
    alignas(IBEX_SHM_CTL_ALIGN) ibex_shm_cell_t cells[];
} ibex_shm_fifo_ctl_t;

/* A fragment: this header, then header + payload of one message. */
typedef struct ibex_shm_frag {
    _Atomic uint32_t busy; /* 1 from the sender's take until the receiver is done with it */
    uint32_t len;          /* bytes of data */
    alignas(8) unsigned char data[];
} ibex_shm_frag_t;

#define IBEX_SHM_FRAG_HDR offsetof(ibex_shm_frag_t, data)

static inline uint64_t ibex_shm_frag_id(int src_local, uint32_t idx)
{
    return ((uint64_t)(uint32_t)(src_local + 1) << 32) | idx;
}

static inline int ibex_shm_id_src(uint64_t id)
{
    return (int)(id >> 32) - 1;
}

static inline uint32_t ibex_shm_id_idx(uint64_t id)
{
    return (uint32_t)id & ~IBEX_SHM_ID_CLAIM;
}

static inline bool ibex_shm_id_is_claim(uint64_t id)
{
    return ((uint32_t)id & IBEX_SHM_ID_CLAIM) != 0;
}

/* The owner's set-up of a new queue (every cell free for its first lap). */
static inline void ibex_shm_fifo_init(ibex_shm_fifo_ctl_t *fifo, uint32_t cells)
{
    for (uint32_t i = 0; i < cells; i++)
        atomic_store_explicit(&fifo->cells[i].seq, i, memory_order_relaxed);
    atomic_store_explicit(&fifo->pos, 0, memory_order_release);
}

/* Appends id; false (nothing done) when every cell is taken. */
static inline bool ibex_shm_fifo_push(ibex_shm_fifo_ctl_t *fifo, uint32_t mask, uint64_t id)
{
    uint64_t pos = atomic_load_explicit(&fifo->pos, memory_order_relaxed);
    for (;;) {
        ibex_shm_cell_t *cell = &fifo->cells[pos & mask];
        uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&fifo->pos, &pos, pos + 1,
                                                      memory_order_relaxed, memory_order_relaxed)) {
                cell->id = id;
                atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
                return true;
            }
        } else if (dif < 0) {
            return false; /* the consumer has not freed this cell since the last lap */
        } else {
            pos = atomic_load_explicit(&fifo->pos, memory_order_relaxed);
        }
    }
}

/* Whether the consumer's next take at pos would find an id (the same one load, no change). */
static inline bool ibex_shm_fifo_ready(const ibex_shm_fifo_ctl_t *fifo, uint32_t mask, uint64_t pos)
{
    return atomic_load_explicit(&fifo->cells[pos & mask].seq, memory_order_acquire) == pos + 1;
}

/* The consumer's take at its position *pos_p: the id, or 0 when the queue is empty (one load). */
static inline uint64_t ibex_shm_fifo_pop(ibex_shm_fifo_ctl_t *fifo, uint32_t mask, uint64_t *pos_p)
{
    uint64_t pos = *pos_p;
    ibex_shm_cell_t *cell = &fifo->cells[pos & mask];
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos + 1)
        return 0;
    uint64_t id = cell->id;
    atomic_store_explicit(&cell->seq, pos + mask + 1, memory_order_release);
    *pos_p = pos + 1;
    return id ? id : UINT64_MAX; /* 0 from a broken peer must not read as "empty" */
}

#endif
