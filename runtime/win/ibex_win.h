/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI windows (runtime/win): one-sided communication built on collectives (window creation is
 * collective) and on the engine's active-message path (runtime/engine/ibex_am.h).
 *
 * Every window has a private duplicate of its communicator (no program handle, so its traffic
 * never matches a user receive) and an active-message port on it. The direct paths (a shared
 * mapping or cross-memory attach within a node, RDMA and remote atomics between nodes,
 * README.md) serve what they can without the target's CPU; every other operation is a request
 * to the target's port, applied by the target's progress engine in the order each origin sent
 * them (so accumulates from one origin are ordered, and the target applies each one whole:
 * accumulates to one window are atomic with each other). Requests that return data (Get,
 * Get_accumulate, Fetch_and_op, Compare_and_swap, flush, lock, unlock, the regions of a dynamic
 * window) are answered on a reply tag the origin posted a receive for before it asked.
 *
 * The origin checks every access against the target's window (sizes are exchanged at creation;
 * a dynamic window's attached regions are fetched on a miss and cached) before anything goes on
 * the wire; the target checks again and drops an access that falls outside (a detach that raced
 * with the access), so a bad access never corrupts memory.
 *
 * Functions return ibex_status_t, or for checks of the program's use an MPI error class through
 * ibex_win_err_t (the MPI layer raises it with the window's error handler).
 */
#ifndef IBEX_WIN_H
#define IBEX_WIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "ibex_am.h"
#include "ibex_comm.h"
#include "ibex_datatype.h"
#include "ibex_op.h"
#include "ibex_status.h"

typedef struct ibex_win_region {
    uint64_t base, len;
} ibex_win_region_t;

/* The target's lock queue entry: a lock request that waits. */
typedef struct ibex_win_waiter {
    struct ibex_win_waiter *next;
    int src, type, tag;
} ibex_win_waiter_t;

enum {
    IBEX_WIN_EPOCH_FENCE = 1u << 0,    /* between fences (not closed by MPI_MODE_NOSUCCEED) */
    IBEX_WIN_EPOCH_LOCK_ALL = 1u << 1, /* MPI_Win_lock_all */
    IBEX_WIN_EPOCH_START = 1u << 2,    /* MPI_Win_start .. complete */
    IBEX_WIN_EPOCH_POST = 1u << 3,     /* MPI_Win_post .. wait / test */
};

/* Per rank of a window with a shared segment, at its end, on a cache line of its own: the
 * passive-target lock (bit 31 exclusive, below it the shared holders) and the accumulate lock
 * (a spin lock held while one accumulate is applied), so that no target CPU is needed. */
typedef struct ibex_win_ctrl {
    uint32_t lock;
    uint32_t acc;
    char pad[56];
} ibex_win_ctrl_t;

#define IBEX_WIN_LOCK_EXCL 0x80000000u

typedef struct ibex_win {
    int handle;
    ibex_comm_t *comm; /* private duplicate */
    ibex_am_port_t *port;
    int flavor; /* MPI_WIN_FLAVOR_* */
    int model;  /* MPI_WIN_UNIFIED */
    void *base;
    MPI_Aint size;
    MPI_Aint disp_unit; /* MPI_Aint as in the _c creation calls */
    MPI_Aint *sizes;    /* per rank of comm */
    MPI_Aint *disp_units;
    /* Win_allocate_shared: the segment every local member maps, and each rank's part in it */
    void *seg;
    size_t seg_len;
    MPI_Aint *seg_offs;
    bool own_mem; /* base from ibex_p2p_mem_alloc (Win_allocate) */
    /* every member on this node and the memory in the shared segment (Win_allocate_shared,
     * Win_allocate on one node): operations are done by the origin's CPU on the mapping,
     * locks are the words in ctrl */
    bool direct;
    bool mapped; /* the segment exists but operations go to the targets (IBEX_WIN_DIRECT=0) */
    ibex_win_ctrl_t *ctrl;
    /* the predefined type Compare_and_swap's short path last accepted (win_rma.c: an 8-byte
     * CAS type), so its type checks run once per type, not per call; NULL before the first */
    const ibex_dt_t *cas_type_seen;
    /* the (type, op) pair the short path of a one-element Fetch_and_op / Accumulate last
     * accepted (win_rma.c), with how elem_cpu applies it (how: a win_rma.c fop_how_t) and the
     * element type ops other than REPLACE / NO_OP compute on; type NULL before the first */
    struct {
        const ibex_dt_t *type;
        MPI_Op op;
        int how;
        const ibex_dt_t *basic;
    } fop_seen;
    /* the word the network direct path's short REPLACE last swapped and the value it left
     * there (win_rdma.c: the next REPLACE's first guess); remote 0 before the first */
    struct {
        int target;
        uint64_t remote, value;
    } swap_seen;
    /* MPI_Win_create on one node: operations by cross-memory attach (process_vm_readv /
     * writev) into each member's memory at bases[] in process pids[], lock words in ctrl */
    bool cma;
    uint64_t *bases;
    int *pids;
    /* every member reached by a transport with remote atomics (win_rdma.c): contiguous put /
     * get are RDMA WRITE / READ, locks and 8-byte atomics remote atomics */
    bool rdma;
    struct ibex_rma *rma;
    struct ibex_tl_inst *rtl; /* the transport rma runs on: the waits poll it alone first */
    unsigned rpolls;          /* those polls, for the engine's step every WIN_POLL_ENGINE */
    struct ibex_tl_mem *rmem, *rctl_mem; /* registrations of base and rctl */
    uint64_t *rctl;                      /* this rank's lock word, then scratch */
    struct win_rkey *rkeys;              /* per rank: addresses and keys */
    struct rdma_req *rreq_free;          /* finished transfer records kept for reuse */
    int rreq_nfree;
    char *rmw_buf; /* scratch of accumulates under the accumulate lock, registered as rmw_mem */
    size_t rmw_len;
    struct ibex_tl_mem *rmw_mem;
    /* active-message target: Get replies sent straight from the window, until they complete */
    struct ibex_req **rsends;
    int nrsends, rsends_cap;
    /* dynamic windows on the direct paths (win_dyn.c): this rank's published table of regions,
     * the copy a target's table is read into, the registrations of the regions, and per rank
     * the table's address and the keys of its cached regions */
    struct win_dyn_table *dyn, *dyn_copy;
    struct ibex_tl_mem *dyn_copy_mem;
    struct ibex_tl_mem **dyn_mems;
    uint8_t **dyn_keys;
    uint64_t *dyn_addrs;
    /* dynamic: this rank's attached regions; per target, the regions last fetched */
    ibex_win_region_t *regions;
    int nregions, cap_regions;
    ibex_win_region_t **rcache;
    int *rcache_n;
    /* origin */
    unsigned epoch;   /* IBEX_WIN_EPOCH_* */
    bool fence_ops;   /* an operation was issued since the last fence */
    uint8_t *locked;  /* per target: 0, or the lock held (win_sync.c LOCK_*) */
    int nlocked;      /* targets in locked[] */
    bool *touched;    /* per target: requests sent since its last flush */
    int *pending;     /* per target: replies still to come */
    long outstanding; /* all of pending */
    ibex_group_t *start_group;
    int *post_seen; /* per rank: MPI_Win_post notices not yet consumed by a start */
    /* target: exposure (post / wait) and the lock */
    ibex_group_t *post_group;
    int complete_seen;
    int lock_excl;   /* rank holding the exclusive lock, or -1 */
    int lock_shared; /* shared holders */
    ibex_win_waiter_t *waiters, *waiters_tail;
    /* the MPI layer's: attributes (uattrs: user keyvals, runtime/mpi/win_attr.c), name, error
     * handler, info */
    struct ibex_win_attrs *uattrs;
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
    int errhandler;
    MPI_Info info;
    char name[MPI_MAX_OBJECT_NAME];
} ibex_win_t;

/* What windows count (win_target.c), for the performance variables of runtime/mpi/mpit_pvar.c:
 * the Get replies an active-message target sent straight from window memory, and the entries
 * the walks over those still in flight visited (amortised: about one per reply; a walk per
 * request, quadratic in the replies in flight, shows as many per reply); the Compare_and_swaps
 * this origin did on the shared mapping's short path (win_rma.c), and the Fetch_and_ops
 * (one-element Get_accumulates) and one-element Accumulates it did there; the
 * Compare_and_swaps, Fetch_and_ops and one-element Accumulates it did on the network direct
 * path's short path (one remote atomic posted, or REPLACE's compare-and-swap loop: short_rcas /
 * short_rfop / short_racc). Plain increments. */
typedef struct ibex_win_stats {
    unsigned long long direct_replies, reply_steps, short_cas, short_fop, short_acc;
    unsigned long long short_rcas, short_rfop, short_racc;
} ibex_win_stats_t;
extern ibex_win_stats_t ibex_win_stats;

/* IBEX_WIN_DIRECT (win_cfg.c): 0 keeps every window on the active-message path. */
extern int ibex_win_cfg_direct;
/* IBEX_WIN_RDMA (win_cfg.c): 0 keeps windows off the network direct path (win_rdma.c). */
extern int ibex_win_cfg_rdma;
extern int ibex_win_cfg_am_piece;         /* data bytes per active-message request (win_cfg.c) */
extern int ibex_win_cfg_am_poll;          /* IBEX_WIN_AM_POLL: a progress poll per AM operation */
extern long long ibex_win_cfg_rdma_piece; /* IBEX_WIN_RDMA_PIECE: accumulate bytes per piece */

/* ---- creation and destruction (win.c) ---- */
/* Collective over comm. base / size / disp_unit: this rank's memory (MPI_Win_create), or
 * allocated here by flavor (ALLOCATE, SHARED); DYNAMIC has none until attached. */
typedef struct ibex_win_args {
    ibex_comm_t *comm;
    int flavor;
    void *base;
    MPI_Aint size;
    MPI_Aint disp_unit;
} ibex_win_args_t;
ibex_status_t ibex_win_create(const ibex_win_args_t *args, ibex_win_t **win_p);
/* Collective; the caller checked that no epoch is open. */
ibex_status_t ibex_win_free(ibex_win_t *win);
/* Every member of comm is on this node (MPI_Win_allocate_shared needs it). */
bool ibex_win_comm_is_local(const ibex_comm_t *comm);
/* MPI_Win_shared_query: rank's part (rank MPI_PROC_NULL: the lowest rank with size > 0). */
void ibex_win_shared_query(const ibex_win_t *win, int rank, MPI_Aint *size_p, MPI_Aint *disp_unit_p,
                           void **base_p);
/* Dynamic windows: MPI error class (MPI_SUCCESS, MPI_ERR_RMA_ATTACH, MPI_ERR_NO_MEM). */
int ibex_win_attach(ibex_win_t *win, void *base, MPI_Aint size);
int ibex_win_detach(ibex_win_t *win, const void *base);

/* ---- operations (win_rma.c) ---- */
typedef enum {
    IBEX_WIN_OP_PUT,
    IBEX_WIN_OP_GET,
    IBEX_WIN_OP_ACC,
    IBEX_WIN_OP_GACC,
    IBEX_WIN_OP_CAS,
} ibex_win_op_kind_t;

/* One operation as the program gave it (datatypes committed, checked by the MPI layer). */
typedef struct ibex_win_op {
    ibex_win_op_kind_t kind;
    const void *origin;
    MPI_Count ocount; /* counts: MPI_Count, as the _c calls give them */
    ibex_dt_t *odt;
    void *result; /* GET: = origin; GACC / CAS: the result buffer */
    MPI_Count rcount;
    ibex_dt_t *rdt;
    const void *compare; /* CAS */
    int target;
    MPI_Aint disp;
    MPI_Count tcount;
    ibex_dt_t *tdt;
    const ibex_op_t *op;
    MPI_Op op_handle;
    struct ibex_req *user_req; /* R* calls: completed when the operation is locally complete */
} ibex_win_op_t;

/* Checks (epoch, sizes, range, op / type) and starts the operation. Returns MPI_SUCCESS or an
 * MPI error class, with a message in msg. */
int ibex_win_op_start(ibex_win_t *win, ibex_win_op_t *op, char *msg, size_t msg_len);

/* ---- synchronisation (win_sync.c): each returns MPI_SUCCESS or an error class + msg ---- */
int ibex_win_fence(ibex_win_t *win, int assert, char *msg, size_t len);
int ibex_win_lock(ibex_win_t *win, int type, int rank, int assert, char *msg, size_t len);
int ibex_win_unlock(ibex_win_t *win, int rank, char *msg, size_t len);
int ibex_win_lock_all(ibex_win_t *win, int assert, char *msg, size_t len);
int ibex_win_unlock_all(ibex_win_t *win, char *msg, size_t len);
/* rank MPI_PROC_NULL - 1 (IBEX_WIN_ALL) flushes every target */
#define IBEX_WIN_ALL (-100)
int ibex_win_flush(ibex_win_t *win, int rank, bool local, char *msg, size_t len);
/* The flush of a valid target rank with only direct transfers in flight, in a passive epoch:
 * true when done (their completions polled), false when the general flush must run. */
bool ibex_win_flush_short(ibex_win_t *win, int rank);
int ibex_win_post(ibex_win_t *win, ibex_group_t *group, int assert, char *msg, size_t len);
int ibex_win_start(ibex_win_t *win, ibex_group_t *group, int assert, char *msg, size_t len);
int ibex_win_complete(ibex_win_t *win, char *msg, size_t len);
/* wait: blocks; test: one poll step, *flag says whether the exposure epoch ended. */
int ibex_win_wait(ibex_win_t *win, bool test, int *flag, char *msg, size_t len);
/* True when an epoch is open that MPI_Win_free must not meet. */
bool ibex_win_busy(const ibex_win_t *win);

/* ---- internals shared by the win files ---- */
/* win_target.c: the port's handler. */
void ibex_win_handle(void *arg, int src, void *msg, size_t len);
/* Waits for the Get replies still sent from the window's memory (before it is freed). */
void ibex_win_rsends_drain(ibex_win_t *win);
/* Applies a data request (win_wire.h: header, then nblocks blocks, then its data) to the
 * window memory at base (the window's base + the request's displacement); GET / GACC / CAS
 * write the old contents (hdr->bytes) to out. */
struct win_hdr;
void ibex_win_apply(const struct win_hdr *h, char *base, const char *body, char *out);
/* ACC / GACC / CAS on packed streams: cur (the target's old contents, h->bytes) becomes the
 * new contents from data (the request's data). */
void ibex_win_acc_packed(const struct win_hdr *h, const char *data, char *cur);
/* win_sync.c: waits until cond(win) holds, driving progress. */
void ibex_win_wait_until(ibex_win_t *win, bool (*cond)(const ibex_win_t *win, int rank), int rank);
/* win_sync.c: waits until *done (a blocking transfer of the network direct path) is set,
 * polling the window's transport alone first as ibex_win_wait_until does. */
void ibex_win_wait_done(ibex_win_t *win, volatile int *done);
/* win_rma.c: sends a control request (type) to rank and counts its reply as pending. */
ibex_status_t ibex_win_ctl(ibex_win_t *win, int type, int rank, int lock_type);

/* win_rdma.c: the network direct path. Setup is collective (every member must qualify, else
 * the window stays on active messages, IBEX_OK); free after every transfer completed. */
ibex_status_t ibex_win_rdma_setup(ibex_win_t *win);
void ibex_win_rdma_free(ibex_win_t *win);
/* Starts a put / get with a contiguous target as one RDMA transfer (false: not one). */
bool ibex_win_rdma_copy(ibex_win_t *win, const ibex_win_op_t *op, const struct win_hdr *h,
                        int *rc_p);
/* The short path's one WRITE / READ (contiguous types, in range: checked by the caller) of
 * bytes at offset off of the target's part; MPI_SUCCESS or an error class with its message in
 * msg (len bytes). */
int ibex_win_rdma_short(ibex_win_t *win, const ibex_win_op_t *op, uint64_t off, size_t bytes,
                        char *msg, size_t len);
/* The short path's one remote atomic (win_rma.c checked the rest: a created or allocated
 * window, the type (and op) of one 8-byte element, the epoch, the range): a compare-and-swap
 * (cas) or fetch-and-add (the origin's value, or 0 for NO_OP) of the 8 bytes at offset off of
 * the target's part, the old value written into op->result by its completion (an
 * Accumulate's into the window's discard slot). -1 when that element is off an 8-byte
 * boundary at the target (the general way); else MPI_SUCCESS or an error class with its
 * message in msg (len bytes). */
int ibex_win_rdma_atomic_short(ibex_win_t *win, const ibex_win_op_t *op, uint64_t off, bool cas,
                               char *msg, size_t len);
/* The short path's REPLACE (Fetch_and_op, one-element Get_accumulate or Accumulate) of the 8
 * bytes at offset off of the target's part, checked as for ibex_win_rdma_atomic_short: a
 * remote compare-and-swap loop, waited for, complete on return (the old value in op->result
 * unless an Accumulate). -1, MPI_SUCCESS or an error class as that. */
int ibex_win_rdma_swap_short(ibex_win_t *win, const ibex_win_op_t *op, uint64_t off, char *msg,
                             size_t len);
/* ACC / GACC / CAS served by 8-byte atomics: every one on a dense 8-byte basic type (the same
 * rule for remote atomics and CPU atomics on the shared mapping). Per element: fetch-and-add
 * when ibex_win_elem_fadd (SUM on integers, NO_OP), else compare-and-swap (a loop computing
 * ibex_win_elem_new). */
bool ibex_win_atomic_kind(const ibex_win_op_t *op);
bool ibex_win_elem_fadd(const struct win_hdr *h);
uint64_t ibex_win_elem_new(const struct win_hdr *h, uint64_t old, uint64_t in);
/* Calls fn for each 8-byte element of a request's target layout (blocks in body): its
 * displacement from the target base + h->addr and its index; stops at a non-zero return. */
typedef int (*ibex_win_elem_cb_t)(void *arg, uint64_t disp, size_t i);
int ibex_win_elems(const struct win_hdr *h, const char *body, ibex_win_elem_cb_t fn, void *arg);
bool ibex_win_elems_aligned(const struct win_hdr *h, const char *body, uint64_t base);
/* An accumulate (ACC / GACC / CAS) by remote atomics, complete on return (MPI_SUCCESS or a
 * class): an ibex_win_atomic_kind with every element 8-byte aligned at the target element by
 * element, any other under the target's accumulate lock (READ, compute, WRITE). */
int ibex_win_rdma_acc(ibex_win_t *win, const ibex_win_op_t *op, const struct win_hdr *h,
                      char *body);
/* A blocking READ of len bytes at offset off of rank t's published block (its window memory,
 * or a dynamic window's table) into local (registered as mem). */
ibex_status_t ibex_win_rdma_read_ctl(ibex_win_t *win, int t, void *local, struct ibex_tl_mem *mem,
                                     size_t off, size_t len);

/* win_dyn.c: dynamic windows without the target's CPU (cross-memory attach or RDMA READ of the
 * target's table of regions). At most IBEX_WIN_DYN_MAX regions attached at once. */
#define IBEX_WIN_DYN_MAX 1024
ibex_status_t ibex_win_dyn_create(ibex_win_t *win); /* collective: the tables' addresses */
void ibex_win_dyn_destroy(ibex_win_t *win);
bool ibex_win_dyn_probe(const ibex_win_t *win);
size_t ibex_win_dyn_table_size(void);
int ibex_win_dyn_attach(ibex_win_t *win, int i);
void ibex_win_dyn_detach(ibex_win_t *win, int i);
ibex_status_t ibex_win_dyn_fetch(ibex_win_t *win, int t);
const void *ibex_win_dyn_key(const ibex_win_t *win, int t, uint64_t addr);

/* The lock word of rank t by remote atomics. */
ibex_status_t ibex_win_rdma_lock(ibex_win_t *win, int t, bool excl);
ibex_status_t ibex_win_rdma_unlock(ibex_win_t *win, int t, bool excl);

#endif
