/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The blocked-call record: what each rank is blocked in, in a page the launcher reads without
 * the rank's help (a rank that computes or is stuck cannot answer a request). The format is
 * shared by the writer (the ranks: runtime/engine/blocked.c) and the readers (ibexrun's hang
 * report and ibex_stack: launcher/lib/run_hang.c), so it lives here, in base, which both use.
 *
 * ibexrun makes one memfd per job (no name in any file system, owner-only, gone with the last
 * descriptor): its first IBEX_BLK_HEAD_SIZE bytes are the launcher's (when each rank's call
 * count last changed), then one page per rank. A rank finds the descriptor in IBEX_BLOCKED_FD, maps
 * its page and closes it; without one (another launcher, a singleton) it writes to a private page,
 * so the writing code never tests for it.
 *
 * Cost: every MPI call stores its name pointer and counts itself (ibex_blk_enter: four
 * instructions, PMPI_Send 13 -> 17); the rest is written only when a wait lasts
 * (IBEX_BLK_WAIT_AFTER turns of its loop, so a ping-pong's waits never write it) and cleared
 * when that wait ends.
 */
#ifndef IBEX_BLOCKED_H
#define IBEX_BLOCKED_H

#include <stdint.h>

#define IBEX_BLK_MAGIC     0x49424c4bu /* "IBLK" */
#define IBEX_BLK_VERSION   1u
#define IBEX_BLK_PAGE      4096
#define IBEX_BLK_MAX_ITEMS 32
#define IBEX_BLK_MAX_RANKS 1024
#define IBEX_BLK_NAME      32
/* The `algo` of a collective's wait while it sets up the communicator's shared segment (rank 0's
 * address broadcast, the agreements that it mapped): internal messages the report does not show
 * as the program's ("setting up the communicator's shared segment",
 * launcher/lib/run_hang_report.c). */
#define IBEX_BLK_ALGO_SEG_SETUP "segment set-up"

typedef enum {
    IBEX_BLK_STATE_NONE = 0, /* not in MPI yet (before MPI_Init maps the page) */
    IBEX_BLK_STATE_RUNNING,  /* between MPI_Init and MPI_Finalize */
    IBEX_BLK_STATE_FINALIZED,
} ibex_blk_state_t;

/* What one item of a wait waits for. */
typedef enum {
    IBEX_BLK_PEER = 0, /* one world rank: a receive from it, a send it must match */
    IBEX_BLK_ANY,      /* any member of the communicator (MPI_ANY_SOURCE): an OR-wait */
    IBEX_BLK_COLL,     /* the members of the communicator that are not in this collective yet */
} ibex_blk_kind_t;

typedef enum {
    IBEX_BLK_OP_RECV = 0,
    IBEX_BLK_OP_SEND,
    IBEX_BLK_OP_PROBE,
    IBEX_BLK_OP_SYNC, /* a collective's flag or a fence: no message of its own */
    /* One-sided: an operation, flush or lock at the peer, which its progress engine serves
     * whatever its program is blocked in; only a peer that has exited or finished MPI cannot. */
    IBEX_BLK_OP_RMA,
} ibex_blk_op_t;

/* The tag of an item that has none (one-sided synchronisation, a drain of sends). */
#define IBEX_BLK_NO_TAG (-2)

typedef struct ibex_blk_item {
    uint8_t kind; /* ibex_blk_kind_t */
    uint8_t op;   /* ibex_blk_op_t */
    uint16_t pad;
    int32_t peer;   /* IBEX_BLK_PEER: world rank; else -1 */
    int32_t tag;    /* user tag, or -1 (MPI_ANY_TAG) / internal, IBEX_BLK_NO_TAG */
    int32_t rank;   /* the peer's rank in the communicator (for the message) */
    uint64_t bytes; /* message size, 0 if unknown */
} ibex_blk_item_t;

/* One rank's page. The wait part is written under seq (odd while it changes). */
typedef struct ibex_blk_page {
    uint32_t magic, version;
    int32_t rank, pid;
    int32_t state; /* ibex_blk_state_t */
    int32_t world_size;
    uint64_t ncalls; /* MPI calls entered so far (read with an atomic load) */
    volatile uint32_t seq;
    int32_t waiting;  /* 1 while the wait below holds; 2: polling (MPI_Test, Iprobe...) in a row
                       * without progress since since_ns; its items (if any) are what the polls
                       * look for, their union an OR over the calls of the loop */
    int32_t or_wait;  /* 1: any one item ends the wait (Waitany, Waitsome, Testsome) */
    int32_t nitems;   /* items filled in */
    int32_t nmore;    /* items left out (more than IBEX_BLK_MAX_ITEMS) */
    int32_t coll;     /* 1: inside a collective */
    int64_t since_ns; /* CLOCK_MONOTONIC when the wait began */
    uint32_t ctx;     /* context id of the communicator waited on (its first item's) */
    int32_t comm_size;
    int32_t step; /* collective: which wait of the algorithm this is (1-based) */
    int32_t pad;
    char call[IBEX_BLK_NAME];      /* "MPI_Recv" */
    char comm_name[IBEX_BLK_NAME]; /* "MPI_COMM_WORLD", or "comm 0x8" */
    char algo[IBEX_BLK_NAME];      /* collective algorithm, "" for point-to-point */
    ibex_blk_item_t items[IBEX_BLK_MAX_ITEMS];
    uint8_t members[IBEX_BLK_MAX_RANKS / 8]; /* world ranks of the comm (ANY and COLL items) */
} ibex_blk_page_t;

/* The launcher's page (page 0): written by ibexrun only. */
typedef struct ibex_blk_head {
    uint32_t magic, version;
    int32_t nranks, launcher_pid;
    int64_t start_ns;                        /* when the job started */
    uint64_t seen_calls[IBEX_BLK_MAX_RANKS]; /* the count last sampled, per rank */
    int64_t changed_ns[IBEX_BLK_MAX_RANKS];  /* when it last changed */
} ibex_blk_head_t;

/* Rank r's page starts at IBEX_BLK_HEAD_SIZE + r * IBEX_BLK_PAGE. */
#define IBEX_BLK_HEAD_SIZE (5 * IBEX_BLK_PAGE)
#define IBEX_BLK_OFFSET(r) ((long)IBEX_BLK_HEAD_SIZE + (long)(r)*IBEX_BLK_PAGE)

_Static_assert(sizeof(ibex_blk_page_t) <= IBEX_BLK_PAGE, "one page per rank");
_Static_assert(sizeof(ibex_blk_head_t) <= IBEX_BLK_HEAD_SIZE, "the launcher's pages");

/* The fast path: the call running now and the page its count goes to. */
typedef struct ibex_blk {
    const char *call;      /* "MPI_X" of the last MPI call entered */
    ibex_blk_page_t *page; /* the shared page, or a private one */
    const char *algo;      /* the blocking collective's algorithm running now, or NULL */
    const void *coll_comm; /* its communicator (an ibex_comm_t, opaque here) */
    int step;              /* waits so far in that collective */
    /* Polling without progress (runtime/engine/blocked.c): while poll_window > 0 each polling
     * call says what it polls for (ibex_blk_poll_*) and sets poll_noted. */
    int poll_window;
    int poll_noted;
    int poll_described; /* the record of this polling streak has its first call's items */
} ibex_blk_t;

/* Hidden: the entry macro reaches it without the GOT (PMPI_Send: 4 more instructions). */
extern ibex_blk_t ibex_blk __attribute__((visibility("hidden")));

static inline void ibex_blk_enter(const char *call)
{
    ibex_blk.call = call;
    ibex_blk.page->ncalls++;
}

#endif
