/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * put / get: RDMA WRITE / RDMA READ split into fragments of VERBS_RMA_FRAG (or the port's
 * max_msg_sz if smaller), all posted back to back
 * (pipelined), every fragment signalled; the request completes when its last fragment does.
 * Fragments that do not fit the send queue, the CQ or the peer's limit of parallel READs
 * (max_dest_rd_atomic) wait in the endpoint's queue and are posted from progress().
 *
 * Piece lists (IBEX_TL_CAP_RMA_IOV): a local side given as pieces is registered once as the
 * span from its first byte to its last, and each WR gathers (WRITE) or scatters (READ) up to
 * rma_sge pieces against the next stretch of the one remote range, so a strided receive lands
 * in its blocks with no staging. When the span cannot be registered (pieces far apart, across
 * unmapped memory) the pieces go through a bounce buffer: packed before a put, unpacked after
 * a get.
 */
#include <stdlib.h>
#include <string.h>

#include "ibex_log.h"
#include "verbs.h"

struct verbs_rma_req {
    verbs_rma_req_t *next;
    ibex_tl_comp_t *comp;
    char *local;
    uint64_t remote;
    size_t len, off;
    uint32_t lkey, rkey;
    ibex_tl_mem_t *own_mem;  /* registration taken here when the runtime gave none */
    const struct iovec *iov; /* piece list of the local side (posted unless bounce), or NULL */
    int iovcnt, iov_i;       /* pieces, and the next one to post */
    size_t iov_off;          /* bytes of piece iov_i already posted */
    char *bounce;            /* the pieces' bytes, when their span is not registered */
    uint32_t frags_out;
    bool is_read; /* RDMA READ, or an atomic (both take a read slot of the responder) */
    bool inl;     /* a WRITE of at most max_inline bytes: posted inline, nothing registered */
    /* an atomic: its opcode (0 for READ / WRITE) and operands */
    enum ibv_wr_opcode atomic;
    uint64_t compare_add, swap;
    ibex_status_t status;
} __attribute__((aligned(8)));

const char *ibex_verbs_rma_opname(const verbs_rma_req_t *req)
{
    if (req->atomic)
        return req->atomic == IBV_WR_ATOMIC_FETCH_AND_ADD ? "atomic fetch-and-add"
                                                          : "atomic compare-and-swap";
    return req->is_read ? "rdma read" : "rdma write";
}

static bool frag_room(ibex_tl_ep_t *ep, const verbs_rma_req_t *req)
{
    return ep->sq_avail >= 2 && ep->tl->cq_room >= 1 && (!req->is_read || ep->rd_out < ep->rd_max);
}

/* The work request of one fragment: RDMA READ / WRITE, or the one WR of an atomic. */
static void frag_wr(const verbs_rma_req_t *req, struct ibv_send_wr *wr)
{
    if (req->atomic) {
        wr->opcode = req->atomic;
        wr->wr.atomic.remote_addr = req->remote;
        wr->wr.atomic.rkey = req->rkey;
        wr->wr.atomic.compare_add = req->compare_add;
        wr->wr.atomic.swap = req->swap;
        return;
    }
    wr->opcode = req->is_read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
    wr->wr.rdma.remote_addr = req->remote + req->off;
    wr->wr.rdma.rkey = req->rkey;
}

/* The next fragment's gather list from the pieces: up to rma_sge of them (the last one cut at
 * the fragment size); returns its bytes and advances the piece cursor. */
static size_t iov_sges(verbs_rma_req_t *req, uint32_t max_sge, size_t max_len, struct ibv_sge *sge,
                       int *nsge_p)
{
    size_t len = 0;
    int n = 0;
    while ((uint32_t)n < max_sge && len < max_len && req->iov_i < req->iovcnt) {
        const struct iovec *v = &req->iov[req->iov_i];
        size_t take = v->iov_len - req->iov_off;
        if (take > max_len - len)
            take = max_len - len;
        if (take > 0)
            sge[n++] =
                (struct ibv_sge){(uintptr_t)v->iov_base + req->iov_off, (uint32_t)take, req->lkey};
        len += take;
        req->iov_off += take;
        if (req->iov_off == v->iov_len)
            req->iov_i++, req->iov_off = 0;
    }
    *nsge_p = n;
    return len;
}

/* Posts fragments of req while there is room; returns how many. */
static int rma_pump(ibex_tl_ep_t *ep, verbs_rma_req_t *req)
{
    int n = 0;
    struct ibv_sge sge[VERBS_RMA_SGE];
    while (req->off < req->len && frag_room(ep, req)) {
        size_t flen = req->len - req->off;
        if (flen > ep->tl->rma_frag)
            flen = ep->tl->rma_frag;
        int nsge = 1;
        if (req->iov && !req->bounce)
            flen = iov_sges(req, ep->tl->rma_sge, flen, sge, &nsge);
        else
            sge[0] =
                (struct ibv_sge){(uintptr_t)(req->local + req->off), (uint32_t)flen, req->lkey};
        struct ibv_send_wr wr = {
            .wr_id = (uintptr_t)req | VERBS_WR_RMA,
            .sg_list = sge,
            .num_sge = nsge,
            .send_flags = req->inl ? IBV_SEND_INLINE : 0,
        };
        frag_wr(req, &wr);
        int rc = ibex_verbs_post(ep, &wr, true);
        if (rc) {
            ibex_error(TL, "cannot post %s to peer rank %d (qp 0x%x): %s",
                       ibex_verbs_rma_opname(req), ep->peer, ep->qp->qp_num, strerror(rc));
            ibex_verbs_ep_fail(ep, IBV_WC_LOC_QP_OP_ERR, ibex_verbs_rma_opname(req));
            break;
        }
        req->off += flen;
        req->frags_out++;
        ep->rd_out += req->is_read;
        n++;
    }
    return n;
}

/* Copies between the bounce buffer and the pieces (to the pieces after a get). */
static void bounce_copy(verbs_rma_req_t *req, bool to_pieces)
{
    size_t off = 0;
    for (int i = 0; i < req->iovcnt; i++) {
        char *p = req->iov[i].iov_base;
        size_t n = req->iov[i].iov_len;
        if (to_pieces)
            memcpy(p, req->bounce + off, n);
        else
            memcpy(req->bounce + off, p, n);
        off += n;
    }
}

/* Requests are kept on the transport's free list (at most VERBS_RMA_FREE_MAX) instead of a
 * calloc / free per put, get and atomic: the latency loop's one request comes back each time.
 * The list is the transport's state like rma_out, under the same serialisation. */
#define VERBS_RMA_FREE_MAX 64

static verbs_rma_req_t *req_alloc(ibex_tl_t *tl)
{
    verbs_rma_req_t *req = tl->rma_free;
    if (!req)
        return calloc(1, sizeof(*req));
    tl->rma_free = req->next;
    tl->rma_nfree--;
    memset(req, 0, sizeof(*req));
    return req;
}

static void req_release(ibex_tl_t *tl, verbs_rma_req_t *req)
{
    if (req->bounce) /* a call to free(NULL) on every transfer otherwise */
        free(req->bounce);
    if (tl->rma_nfree >= VERBS_RMA_FREE_MAX) {
        free(req);
        return;
    }
    req->next = tl->rma_free;
    tl->rma_free = req;
    tl->rma_nfree++;
}

void ibex_verbs_rma_free_all(ibex_tl_t *tl)
{
    while (tl->rma_free) {
        verbs_rma_req_t *next = tl->rma_free->next;
        free(tl->rma_free);
        tl->rma_free = next;
    }
    tl->rma_nfree = 0;
}

/* Inline: in the completion of every transfer (ibex_verbs_rma_done). */
static inline __attribute__((always_inline)) void rma_finish(ibex_tl_ep_t *ep, verbs_rma_req_t *req)
{
    ibex_tl_t *tl = ep->tl;
    if (req->own_mem)
        ibex_verbs_rcache_put(&tl->rcache, req->own_mem);
    if (req->bounce && req->is_read && req->status == IBEX_OK)
        bounce_copy(req, true);
    tl->rma_out--;
    ibex_tl_comp_t *comp = req->comp;
    ibex_status_t st = req->status;
    req_release(tl, req);
    comp->cb(comp, st);
}

/* The local side of a piece list: its span registered (req->iov kept for rma_pump), or, when
 * that fails, a bounce buffer of len bytes registered in its place (req->local). */
static ibex_status_t iov_prepare(ibex_tl_t *tl, const ibex_tl_rma_t *desc, bool is_read,
                                 verbs_rma_req_t *req, ibex_tl_mem_t **mem_p)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < desc->local_iovcnt; i++) {
        uintptr_t b = (uintptr_t)desc->local_iov[i].iov_base;
        if (desc->local_iov[i].iov_len == 0)
            continue;
        lo = b < lo ? b : lo;
        hi = b + desc->local_iov[i].iov_len > hi ? b + desc->local_iov[i].iov_len : hi;
    }
    req->iov = desc->local_iov;
    req->iovcnt = desc->local_iovcnt;
    if (hi > lo && hi - lo <= 4 * desc->len &&
        ibex_verbs_rcache_get(&tl->rcache, (void *)lo, hi - lo, mem_p) == IBEX_OK)
        return IBEX_OK;
    req->bounce = malloc(desc->len);
    if (!req->bounce)
        return IBEX_ERR_NO_MEMORY;
    if (!is_read)
        bounce_copy(req, false);
    req->local = req->bounce; /* from here on one contiguous local side; iov for the copy */
    ibex_status_t st = ibex_verbs_rcache_get(&tl->rcache, req->bounce, desc->len, mem_p);
    if (st != IBEX_OK) {
        free(req->bounce);
        req->bounce = NULL;
    }
    return st;
}

/* The fields of a request from desc; mem NULL: an inline WRITE (no local key). */
static verbs_rma_req_t *rma_req_fill(verbs_rma_req_t *req, const ibex_tl_rma_t *desc,
                                     const ibex_tl_mem_t *mem, bool is_read)
{
    uint32_t rkey;
    memcpy(&rkey, desc->rkey, sizeof(rkey));
    req->comp = desc->comp;
    req->remote = desc->remote;
    req->len = desc->len;
    req->lkey = mem ? mem->mr->lkey : 0;
    req->inl = !mem;
    req->rkey = rkey;
    req->is_read = is_read;
    req->status = IBEX_OK;
    return req;
}

/* A request for desc (its local memory registered, by the runtime or here; a WRITE of at most
 * max_inline bytes needs none: its data is copied at the post, as for an inline SEND), or
 * NULL. */
static verbs_rma_req_t *rma_req_new(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc, bool is_read,
                                    ibex_status_t *st_p)
{
    verbs_rma_req_t *req = req_alloc(ep->tl);
    *st_p = IBEX_ERR_NO_MEMORY;
    if (!req)
        return NULL;
    req->local = desc->local;
    ibex_tl_mem_t *mem = desc->local_mem;
    if (!is_read && !desc->local_iov && desc->len <= ep->tl->max_inline)
        return rma_req_fill(req, desc, NULL, false);
    if (desc->local_iov)
        *st_p = iov_prepare(ep->tl, desc, is_read, req, &mem);
    else if (!mem)
        *st_p = ibex_verbs_rcache_get(&ep->tl->rcache, desc->local, desc->len, &mem);
    if ((desc->local_iov || !desc->local_mem) && *st_p != IBEX_OK) {
        req_release(ep->tl, req);
        return NULL;
    }
    if (desc->local_iov || !desc->local_mem)
        req->own_mem = mem;
    return rma_req_fill(req, desc, mem, is_read);
}

static ibex_status_t rma_post(ibex_tl_ep_t *ep, verbs_rma_req_t *req)
{
    ep->tl->rma_out++;
    if (!ep->rma_head)
        rma_pump(ep, req);
    if (ep->failed) {
        req->len = req->off; /* nothing more will be posted */
        req->status = ep->fail_status;
        if (req->frags_out > 0)
            return IBEX_INPROGRESS;
        if (req->own_mem)
            ibex_verbs_rcache_put(&ep->tl->rcache, req->own_mem);
        ep->tl->rma_out--;
        req_release(ep->tl, req);
        return ep->fail_status;
    }
    if (req->off < req->len) {
        if (ep->rma_tail)
            ep->rma_tail->next = req;
        else
            ep->rma_head = req;
        ep->rma_tail = req;
        ibex_verbs_work_add(ep);
    }
    return IBEX_INPROGRESS;
}

/* rma_one's and atomic_one's post of their one work request for req, the free list's head
 * (next behind it): on success req leaves the free list, reads (READs and atomics) count
 * against the endpoint's limit; on failure nothing changed but own's registration is given
 * back, and the general way posts again and fails it. */
static inline bool one_post(ibex_tl_ep_t *ep, struct ibv_send_wr *wr, verbs_rma_req_t *req,
                            verbs_rma_req_t *next, ibex_tl_mem_t *own, int reads)
{
    ibex_tl_t *tl = ep->tl;
    if (ibex_verbs_post(ep, wr, true) != 0) {
        req->next = next; /* still the free list's head */
        if (own)
            ibex_verbs_rcache_put(&tl->rcache, own);
        return false;
    }
    tl->rma_free = next; /* taken off the free list only now */
    tl->rma_nfree--;
    ep->rd_out += reads;
    tl->rma_out++;
    return true;
}

/* The latency-bound transfer (a window's 8-byte put / get): one fragment of a contiguous local
 * side, nothing queued before it, room in the queues. Its request gets the fields completion
 * reads (no clearing of the rest), its one work request is posted at once; a WRITE of at most
 * max_inline bytes goes inline (no registration). False: nothing done, the general way. */
static bool rma_one(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc, bool is_read)
{
    ibex_tl_t *tl = ep->tl;
    if (desc->local_iov || desc->len > tl->rma_frag || ep->rma_head || ep->sq_avail < 2 ||
        tl->cq_room < 1 || (is_read && ep->rd_out >= ep->rd_max) || !tl->rma_free)
        return false;
    bool inl = !is_read && desc->len <= tl->max_inline;
    ibex_tl_mem_t *mem = desc->local_mem, *own = NULL;
    if (!inl && !mem) {
        if (ibex_verbs_rcache_get(&tl->rcache, desc->local, desc->len, &own) != IBEX_OK)
            return false;
        mem = own;
    }
    verbs_rma_req_t *req = tl->rma_free, *next = req->next;
    uint32_t rkey;
    memcpy(&rkey, desc->rkey, sizeof(rkey));
    /* what completion reads (rma_done, rma_finish, req_release, the error's name) */
    req->comp = desc->comp;
    req->len = req->off = desc->len;
    req->own_mem = own;
    req->bounce = NULL;
    req->frags_out = 1;
    req->is_read = is_read;
    req->atomic = 0;
    req->status = IBEX_OK;
    struct ibv_sge *sge = &tl->one_sge; /* the rest of both stays zero */
    struct ibv_send_wr *wr = &tl->one_wr;
    *sge = (struct ibv_sge){(uintptr_t)desc->local, (uint32_t)desc->len, inl ? 0 : mem->mr->lkey};
    wr->wr_id = (uintptr_t)req | VERBS_WR_RMA;
    wr->sg_list = sge;
    wr->num_sge = 1;
    wr->opcode = is_read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
    wr->send_flags = inl ? IBV_SEND_INLINE : 0;
    wr->wr.rdma.remote_addr = desc->remote;
    wr->wr.rdma.rkey = rkey;
    return one_post(ep, wr, req, next, own, is_read);
}

static ibex_status_t rma_start(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc, bool is_read)
{
    if (ep->failed)
        return ep->fail_status;
    if (desc->len == 0)
        return IBEX_OK;
    if (rma_one(ep, desc, is_read))
        return IBEX_INPROGRESS;
    ibex_status_t st;
    verbs_rma_req_t *req = rma_req_new(ep, desc, is_read, &st);
    return req ? rma_post(ep, req) : st;
}

ibex_status_t ibex_verbs_put(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    return rma_start(ep, desc, false);
}

/* The latency-bound atomic (a window's Compare_and_swap / Fetch_and_op short path): as
 * rma_one, nothing queued before it and room in the queues (an atomic takes a read slot of
 * the responder), its request gets the fields completion reads and its one work request is
 * posted from the template at once. The template's rdma fields share a union with these:
 * rma_one sets its own each time. False: nothing done, the general way. */
static bool atomic_one(ibex_tl_ep_t *ep, const ibex_tl_atomic_t *desc, enum ibv_wr_opcode opcode)
{
    ibex_tl_t *tl = ep->tl;
    if (ep->rma_head || ep->sq_avail < 2 || tl->cq_room < 1 || ep->rd_out >= ep->rd_max ||
        !tl->rma_free)
        return false;
    ibex_tl_mem_t *mem = desc->result_mem, *own = NULL;
    if (!mem) {
        if (ibex_verbs_rcache_get(&tl->rcache, desc->result, 8, &own) != IBEX_OK)
            return false;
        mem = own;
    }
    verbs_rma_req_t *req = tl->rma_free, *next = req->next;
    uint32_t rkey;
    memcpy(&rkey, desc->rkey, sizeof(rkey));
    req->comp = desc->comp; /* what completion reads, as rma_one, and the error's name */
    req->len = req->off = 8;
    req->own_mem = own;
    req->bounce = NULL;
    req->frags_out = 1;
    req->is_read = true;
    req->atomic = opcode;
    req->status = IBEX_OK;
    struct ibv_sge *sge = &tl->one_sge;
    struct ibv_send_wr *wr = &tl->one_wr;
    *sge = (struct ibv_sge){(uintptr_t)desc->result, 8, mem->mr->lkey};
    wr->wr_id = (uintptr_t)req | VERBS_WR_RMA;
    wr->sg_list = sge;
    wr->num_sge = 1;
    wr->opcode = opcode;
    wr->send_flags = 0;
    wr->wr.atomic.remote_addr = desc->remote;
    wr->wr.atomic.compare_add = desc->operand;
    wr->wr.atomic.swap = desc->swap;
    wr->wr.atomic.rkey = rkey;
    return one_post(ep, wr, req, next, own, 1);
}

/* One atomic WR of 8 bytes into desc->result; its remote alignment and access are the
 * responder's to check (a misaligned address is a remote invalid request error). */
ibex_status_t ibex_verbs_atomic(ibex_tl_ep_t *ep, const ibex_tl_atomic_t *desc)
{
    if (ep->failed)
        return ep->fail_status;
    enum ibv_wr_opcode opcode =
        desc->op == IBEX_TL_ATOMIC_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
    if (atomic_one(ep, desc, opcode))
        return IBEX_INPROGRESS;
    ibex_tl_rma_t rd = {.local = desc->result,
                        .len = 8,
                        .local_mem = desc->result_mem,
                        .remote = desc->remote,
                        .rkey = desc->rkey,
                        .comp = desc->comp};
    ibex_status_t st;
    verbs_rma_req_t *req = rma_req_new(ep, &rd, true, &st);
    if (!req)
        return st;
    req->atomic = opcode;
    req->compare_add = desc->operand;
    req->swap = desc->swap;
    return rma_post(ep, req);
}

ibex_status_t ibex_verbs_get(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    return rma_start(ep, desc, true);
}

void ibex_verbs_rma_done(ibex_tl_ep_t *ep, verbs_rma_req_t *req, enum ibv_wc_status st)
{
    req->frags_out--;
    if (req->is_read && ep->rd_out)
        ep->rd_out--;
    if (st != IBV_WC_SUCCESS && req->status == IBEX_OK)
        req->status = ep->failed ? ep->fail_status : ibex_verbs_wc_status(st);
    if (req->frags_out == 0 && req->off >= req->len)
        rma_finish(ep, req);
}

int ibex_verbs_ep_work_rma(ibex_tl_ep_t *ep)
{
    int n = 0;
    while (ep->rma_head && !ep->failed) {
        verbs_rma_req_t *req = ep->rma_head;
        n += rma_pump(ep, req);
        if (req->off < req->len)
            break;
        ep->rma_head = req->next;
        req->next = NULL;
        if (!ep->rma_head)
            ep->rma_tail = NULL;
    }
    return n;
}

void ibex_verbs_rma_fail_queued(ibex_tl_ep_t *ep)
{
    verbs_rma_req_t *req = ep->rma_head;
    ep->rma_head = ep->rma_tail = NULL;
    while (req) {
        verbs_rma_req_t *next = req->next;
        req->next = NULL;
        if (req->status == IBEX_OK)
            req->status = ep->fail_status;
        req->len = req->off; /* nothing more will be posted */
        if (req->frags_out == 0)
            rma_finish(ep, req);
        req = next;
    }
}
