/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib: a software RDMA device for processes on one machine.
 *
 * Internal header shared by the softib_*.c files. The library is loaded with
 * LD_PRELOAD and defines the exported ibv_* functions of libibverbs; see
 * README.md for the design (shared-memory layout, progress model, limits).
 */
#ifndef SOFTIB_H
#define SOFTIB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <infiniband/verbs.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Internal symbols stay out of the dynamic symbol table; ibv_* keep default. */
#pragma GCC visibility push(hidden)

/*
 * Helpers of the RC hot path (post_send, poll_cq) that the UD path shares:
 * inlined whatever the number of callers, so RC code stays as it was.
 */
#define SIB_HOT inline __attribute__((always_inline))

/* Device limits advertised by ibv_query_device and enforced at creation. */
#define SIB_MAX_QP_WR   16384
#define SIB_MAX_SGE     30
#define SIB_MAX_CQE     65535
#define SIB_MAX_INLINE  512
#define SIB_MAX_RD_ATOM 16
#define SIB_MAX_MR      4096
#define SIB_MAX_QP      4096
#define SIB_MAX_CHAN    32 /* channel 0 is the context's async event channel */
#define SIB_ASYNC_RING  64
#define SIB_TINY        128 /* SEND payloads up to this travel inside the CQE */
#define SIB_TINY_SGE    2
#define SIB_NAME_LEN    64
#define SIB_SEG_SIZE    (256UL << 20) /* sparse tmpfs file: pages appear when touched */
#define SIB_VENDOR_ID   0x02c9
#define SIB_PORT_MTU    IBV_MTU_4096 /* active MTU: the largest UD message */
#define SIB_MTU_BYTES   4096
#define SIB_GRH_LEN     40 /* the head of every UD receive buffer */
#define SIB_GUID_BASE   0x0002c9fffe000000ULL

/* Per-segment magic; a peer refuses a segment whose header does not match. */
#define SIB_SEG_MAGIC 0x534f465449425347ULL

/* QP state in shared memory: the ibv_qp_state values plus a freed marker. */
#define SIB_QPS_FREED 0xdeadu

struct sib_mr_shm {
    _Atomic uint32_t valid;
    uint32_t key; /* lkey == rkey: (index << 8) | generation */
    uint32_t pd;
    uint32_t access;
    uint64_t iova;
    uint64_t uaddr; /* the owner's virtual address of iova */
    uint64_t len;
    uint64_t ident_off; /* stale check: offset of per-page identity array, 0 if none */
    uint64_t npages;
};

struct sib_chan_shm {
    _Atomic uint32_t gen; /* odd while in use */
};

struct sib_async_shm {
    uint32_t type;
    uint32_t pad;
    uint64_t obj_off; /* segment offset of the CQ / QP / SRQ concerned */
};

struct sib_freeblk {
    uint64_t off;
    uint64_t size;
};

/* Header of a per-context shared-memory segment. */
struct sib_seg {
    uint64_t magic;
    int32_t pid;
    _Atomic uint32_t alive;
    uint32_t lid;
    uint32_t pad;
    uint64_t size;
    pthread_mutex_t alloc_lock;
    uint64_t brk;
    struct sib_freeblk freel[128];
    pthread_mutex_t atomic_lock; /* serialises softib atomics targeting this context */
    _Atomic uint32_t err_epoch;  /* bumped when a peer moves one of our QPs to ERR */
    pthread_mutex_t async_lock;
    uint32_t async_head, async_tail;
    struct sib_async_shm async[SIB_ASYNC_RING];
    struct sib_chan_shm chan[SIB_MAX_CHAN];
    uint32_t pd_next;
    uint32_t mr_gen;
    struct sib_mr_shm mr[SIB_MAX_MR];
};

/*
 * A spinlock for the hot queues, robust like the mutexes: it holds the pid of
 * its holder, and a waiter takes it over if that process died.
 */
typedef struct {
    _Atomic int32_t owner;
} sib_spin_t;

/*
 * A send queue's lock: process-local, held for one post or one retry pass. A
 * test-and-set spin that yields every 64 tries (the holder may be preempted, or
 * in a long process_vm_readv); inline, where a pthread mutex's lock and unlock
 * calls cost as much as the rest of a work request's bookkeeping.
 */
typedef struct {
    atomic_flag f;
} sib_qlock_t;

static inline void sib_qlock_init(sib_qlock_t *l)
{
    atomic_flag_clear(&l->f);
}

static inline bool sib_qtrylock(sib_qlock_t *l)
{
    return !atomic_flag_test_and_set_explicit(&l->f, memory_order_acquire);
}

static inline void sib_qlock(sib_qlock_t *l)
{
    unsigned n = 0;

    while (!sib_qtrylock(l)) {
        if (++n % 64)
            __builtin_ia32_pause();
        else
            sched_yield();
    }
}

static inline void sib_qunlock(sib_qlock_t *l)
{
    atomic_flag_clear_explicit(&l->f, memory_order_release);
}

/* A receive queue or SRQ: descriptors posted by the owner, taken by senders. */
struct sib_wq_shm {
    sib_spin_t lock;
    uint32_t max_wr, max_sge, stride;
    uint32_t head, tail; /* head: next to consume; tail: next free */
    uint32_t limit;      /* SRQ limit; 0 = disarmed */
    uint32_t is_srq;
    uint32_t pd;
    uint64_t ring_off;
};

struct sib_rwqe {
    uint64_t wr_id;
    uint32_t num_sge;
    uint32_t pad;
    struct ibv_sge sge[];
};

struct sib_cqe {
    struct ibv_wc wc;
    uint32_t flags; /* SIB_CQE_* */
    uint32_t sq_idx;
    uint64_t sq_qp; /* owner-private struct sib_qp * for send completions */
    uint32_t tiny_len, tiny_nsge;
    struct {
        uint64_t addr;
        uint32_t len;
        uint32_t pad;
    } tiny_sge[SIB_TINY_SGE];
    uint8_t tiny[SIB_TINY];
};

#define SIB_CQE_TINY 1u
#define SIB_CQE_SEND 2u

struct sib_cq_shm {
    sib_spin_t lock;
    uint32_t cqe, cap;
    _Atomic uint32_t head, tail;
    uint64_t ring_off;
    _Atomic uint32_t armed; /* 0, 1 = next completion, 2 = solicited only */
    _Atomic uint32_t pending;
    int32_t chan;
    uint32_t chan_gen;
    _Atomic uint32_t overflow;
};

struct sib_qp_shm {
    _Atomic uint32_t state;
    uint32_t qpn;
    uint32_t pd;
    uint32_t access;
    uint32_t min_rnr_timer;
    uint32_t dest_qpn;
    uint32_t type; /* IBV_QPT_RC or IBV_QPT_UD */
    uint32_t qkey; /* UD: datagrams carrying another Q_Key are dropped */
    uint64_t rcq_off;
    uint64_t srq_off;
    struct sib_wq_shm rq;
};

/* Per-user registry of hosts (network namespaces), contexts and QP numbers. */
struct sib_reg_host {
    uint64_t netns;
    uint32_t lid;
    uint32_t next_qpn;
};

struct sib_reg_ctx {
    int32_t pid;
    uint32_t lid;
    char seg[SIB_NAME_LEN];
};

struct sib_reg_qp {
    uint32_t qpn; /* 0 = free */
    uint16_t lid;
    uint16_t ctx;
    uint64_t off;
};

#define SIB_REG_HOSTS 64
#define SIB_REG_CTXS  256

struct sib_reg {
    uint64_t magic;
    uint64_t size;
    uint32_t nhosts;
    uint32_t pad;
    struct sib_reg_host host[SIB_REG_HOSTS];
    struct sib_reg_ctx ctx[SIB_REG_CTXS];
    struct sib_reg_qp qp[SIB_MAX_QP];
};

/* A mapped context segment, our own or a peer's; cached for the process life. */
struct sib_rctx {
    struct sib_rctx *next;
    char name[SIB_NAME_LEN];
    struct sib_seg *seg;
    pid_t pid;
    bool self;
    int reg_idx; /* own contexts: slot in the registry */
    uint64_t checked_ns;
    uint32_t nops;
    bool dead;
    int fifo[SIB_MAX_CHAN];
    uint32_t fifo_gen[SIB_MAX_CHAN];
};

struct sib_qp;
struct sib_cq;
struct sib_srq;

struct sib_ctx {
    struct verbs_context vctx; /* must be first: ibv_context is its last member */
    struct sib_rctx *self;
    struct sib_seg *seg;
    int reg_idx;
    pthread_mutex_t lock; /* object lists */
    struct sib_qp *qps;
    struct sib_cq *cqs;
    struct sib_srq *srqs;
    uint32_t err_seen;
    pthread_mutex_t tlock; /* progress thread state */
    pthread_t thread;
    bool thread_on, stop;
    pthread_cond_t cond;
    _Atomic uint32_t npending;
};

struct sib_chan {
    struct ibv_comp_channel ibv;
    int idx;
};

struct sib_cq {
    struct ibv_cq ibv;
    struct sib_cq *next;
    struct sib_cq_shm *sh;
    uint64_t off;
};

struct sib_srq {
    struct ibv_srq ibv;
    struct sib_srq *next;
    struct sib_wq_shm *sh;
    uint64_t off;
};

struct sib_pd {
    struct ibv_pd ibv;
    uint32_t handle;
    _Atomic uint32_t nah; /* address handles: a PD holding some is busy */
};

/* An address handle: the attributes given and the host (LID) they name. */
struct sib_ah {
    struct ibv_ah ibv;
    struct ibv_ah_attr attr;
    uint32_t lid;
};

struct sib_mr {
    struct ibv_mr ibv;
    int idx;
    int pin; /* stale check: fd of the pipe holding the pages, or -1 */
};

/* A send work request as queued in the (private) send queue. */
struct sib_swqe {
    uint64_t wr_id;
    uint32_t opcode, flags;
    uint32_t imm;
    uint32_t num_sge;
    uint32_t inline_len;
    uint32_t rnr_count;
    union {
        struct { /* RC */
            uint64_t raddr;
            uint64_t cmp_add, swap;
            uint32_t rkey;
            uint32_t pad;
        };
        struct { /* UD: a UD request executes inside ibv_post_send, while ah is valid */
            const struct sib_ah *ah;
            uint32_t rqpn, rqkey;
        } ud;
    };
    uint64_t not_before; /* ns; retry time after RNR / drop / transport retry */
    uint64_t first_try;  /* ns; first failed transport attempt */
    struct ibv_sge sge[];
    /* followed by inline data */
};

struct sib_qp {
    struct ibv_qp ibv;
    struct sib_qp *next;
    struct sib_qp_shm *sh;
    uint64_t off;
    sib_qlock_t sq_lock;
    uint8_t *sq;
    uint32_t sq_stride, max_send_wr, max_send_sge, max_recv_wr, max_recv_sge, max_inline;
    uint32_t sq_tail, sq_exec;
    bool waiting; /* a work request waits (RNR, retry, drop): counted in npending */
    _Atomic uint32_t sq_retired;
    bool sq_sig_all;
    struct ibv_qp_attr attr; /* as last set by modify_qp */
    struct sib_rctx *peer;   /* RC: the connected QP; UD: the last destination */
    uint64_t peer_off;
    uint64_t ops; /* work requests executed, for SOFTIB_FAIL_AFTER */
    uint64_t rng; /* fault-injection PRNG state */
    uint32_t lid;
    uint32_t peer_qpn; /* UD: QPN of the cached destination */
};

static inline bool sib_qp_is_ud(const struct sib_qp *qp)
{
    return qp->ibv.qp_type == IBV_QPT_UD;
}

/* Configuration from SOFTIB_* variables, parsed once. */
struct sib_config {
    int log;
    int roce;
    int stale_check;
    uint64_t seed;
    uint64_t delay_us;
    uint64_t fail_after;
    double drop_rate;
    uint64_t timeout_cap_us;
    int faults; /* any of delay_us, fail_after, drop_rate, SOFTIB_FAULT_*: the slow path */
};

extern struct sib_config sib_cfg;

#define sib_log(...)                                                                               \
    do {                                                                                           \
        if (sib_cfg.log)                                                                           \
            sib_log_write(__VA_ARGS__);                                                            \
    } while (0)

static inline struct sib_ctx *sib_ctx_of(struct ibv_context *c)
{
    return (struct sib_ctx *)((uint8_t *)c - offsetof(struct sib_ctx, vctx.context));
}

static inline void *sib_at(struct sib_seg *seg, uint64_t off)
{
    return (uint8_t *)seg + off;
}

/* softib_shm.c */
void sib_config_load(void);
void sib_log_write(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t sib_now_ns(void);
extern pid_t sib_g_pid;
pid_t sib_pid_init(void);
int sib_lock(pthread_mutex_t *m);
void sib_unlock(pthread_mutex_t *m);
int sib_mutex_init_shared(pthread_mutex_t *m);
void sib_spin_lock_wait(sib_spin_t *l);

/* Our pid, cached (reset in a forked child). */
static inline pid_t sib_pid(void)
{
    pid_t p = sib_g_pid;

    return p ? p : sib_pid_init();
}

/* The hot queues' spinlock: one compare-and-swap inline, the wait (and the take-over from a
 * dead holder) out of line. */
static inline void sib_spin_lock(sib_spin_t *l)
{
    int32_t cur = 0;

    if (!atomic_compare_exchange_weak_explicit(&l->owner, &cur, sib_pid(), memory_order_acquire,
                                               memory_order_relaxed))
        sib_spin_lock_wait(l);
}

static inline void sib_spin_unlock(sib_spin_t *l)
{
    atomic_store_explicit(&l->owner, 0, memory_order_release);
}
int sib_host_lid(uint32_t *lid_p);
int sib_seg_create(struct sib_ctx *ctx);
void sib_seg_destroy(struct sib_ctx *ctx);
uint64_t sib_alloc(struct sib_seg *seg, uint64_t size);
void sib_free(struct sib_seg *seg, uint64_t off, uint64_t size);
int sib_qp_register(struct sib_ctx *ctx, uint64_t off, uint32_t *qpn_p);
void sib_qp_unregister(uint32_t qpn, uint32_t lid);
struct sib_rctx *sib_qp_lookup(uint32_t lid, uint32_t qpn, uint64_t *off_p);
bool sib_rctx_alive(struct sib_rctx *r, bool force);
int sib_chan_fifo_path(struct sib_rctx *r, int idx, char *buf, size_t len);
void sib_chan_signal(struct sib_rctx *r, int idx);

/* softib_xfer.c */
int sib_xfer(pid_t pid, const struct iovec *local, int nl, const struct iovec *remote, int nr,
             bool write);
uint64_t sib_rand(uint64_t *state);
int sib_stale_record(struct sib_seg *seg, struct sib_mr_shm *m, int *pin_p);
bool sib_stale_ok(pid_t pid, struct sib_seg *seg, struct sib_mr_shm *m, uint64_t ua, uint64_t len);
void sib_fault_delay(void);
bool sib_fault_active(void);

/* softib_fault.c */
void sib_fault_config_load(void);

/* softib_mr.c */
struct sib_mr_shm *sib_mr_find(struct sib_seg *seg, uint32_t key);
int sib_mr_check(struct sib_seg *seg, pid_t pid, const struct sib_mr_shm *mr, uint64_t addr,
                 uint64_t len, uint32_t access, uint64_t *ua_p);

/* softib_cq.c */
int sib_cq_push(struct sib_rctx *r, struct sib_cq_shm *cq, const struct sib_cqe *e, bool solicited);
int sib_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int sib_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void sib_async_push(struct sib_rctx *r, uint32_t type, uint64_t obj_off);
void sib_cq_forget_qp(struct sib_cq *cq, struct sib_qp *qp);

/* softib_dev.c */
int sib_gid_count(void);
void sib_gid_of(uint32_t lid, int index, union ibv_gid *gid);
int sib_gid_find(uint32_t lid, const union ibv_gid *gid);

/* softib_qp.c */
int sib_av_check(const struct ibv_ah_attr *ah);
uint32_t sib_av_lid(const struct ibv_ah_attr *ah);
void sib_qp_set_err(struct sib_rctx *r, struct sib_qp_shm *q);
void sib_qp_set_sqe(struct sib_qp *qp);
void sib_wq_flush(struct sib_rctx *r, struct sib_qp_shm *q, struct sib_wq_shm *wq);
int sib_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int sib_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
struct sib_rwqe *sib_wq_slot(struct sib_seg *seg, struct sib_wq_shm *wq, uint32_t i);

/* softib_post.c */
int sib_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
void sib_sq_progress(struct sib_qp *qp);
void sib_sq_flush(struct sib_qp *qp);
void sib_ctx_progress_run(struct sib_ctx *ctx, uint32_t err_epoch);

/* Retries and flushes when something waits or a peer put a QP in ERR: inline, since every
 * poll of a CQ asks (two loads when nothing is due). */
static inline void sib_ctx_progress(struct sib_ctx *c)
{
    uint32_t e = atomic_load_explicit(&c->seg->err_epoch, memory_order_relaxed);

    if (atomic_load_explicit(&c->npending, memory_order_relaxed) || e != c->err_seen)
        sib_ctx_progress_run(c, e);
}
void sib_thread_kick(struct sib_ctx *ctx);
void sib_thread_stop(struct sib_ctx *ctx);

#pragma GCC visibility pop

#endif
