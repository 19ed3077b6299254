/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Put, Get, Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap and the request
 * forms Rput, Rget, Raccumulate, Rget_accumulate: argument checks (raised on the window's
 * handler), then runtime/win's ibex_win_op_start, which checks the epoch, the type signatures,
 * the op and the target range before anything goes on the wire.
 */
#include <stdio.h>

#include "ibex_op.h"
#include "ibex_request.h"
#include "ibex_win_api.h"

typedef struct rma_args {
    const char *call;
    ibex_win_t *win;
    ibex_win_op_t op;
    MPI_Datatype odt, rdt, tdt;
    MPI_Request *request; /* R* calls */
} rma_args_t;

static int type_of(rma_args_t *a, MPI_Datatype h, const char *what, ibex_dt_t **dt_p)
{
    const char *call = a->call;
    ibex_dt_t *dt = ibex_dt_get(h);
    if (!dt || !dt->committed)
        return IBEX_WIN_ERROR(a->win, MPI_ERR_TYPE, "%s datatype 0x%x is %s", what, (unsigned)h,
                              dt ? "not committed" : "not a datatype");
    *dt_p = dt;
    return MPI_SUCCESS;
}

static int count_check(rma_args_t *a, MPI_Count count, const char *what)
{
    const char *call = a->call;
    if (count < 0)
        return IBEX_WIN_ERROR(a->win, MPI_ERR_COUNT, "invalid %s count %lld (negative)", what,
                              (long long)count);
    return MPI_SUCCESS;
}

static int rma_check(rma_args_t *a)
{
    const char *call = a->call;
    ibex_win_op_t *op = &a->op;
    int n = a->win->comm->size;
    if (op->target != MPI_PROC_NULL && (op->target < 0 || op->target >= n))
        return IBEX_WIN_ERROR(a->win, MPI_ERR_RANK, "invalid target rank %d (window of %d ranks)",
                              op->target, n);
    IBEX_CHECK(count_check(a, op->ocount, "origin"));
    IBEX_CHECK(count_check(a, op->tcount, "target"));
    IBEX_CHECK(type_of(a, a->tdt, "target", &op->tdt));
    if (!(op->kind == IBEX_WIN_OP_GACC && op->op_handle == MPI_NO_OP))
        IBEX_CHECK(type_of(a, a->odt, "origin", &op->odt));
    else
        op->odt = op->tdt;
    if (op->kind == IBEX_WIN_OP_GACC || op->kind == IBEX_WIN_OP_CAS) {
        IBEX_CHECK(count_check(a, op->rcount, "result"));
        IBEX_CHECK(type_of(a, a->rdt, "result", &op->rdt));
    }
    if (op->kind == IBEX_WIN_OP_ACC || op->kind == IBEX_WIN_OP_GACC) {
        op->op = ibex_op_get(op->op_handle);
        if (!op->op)
            return IBEX_WIN_ERROR(a->win, MPI_ERR_OP, "invalid op 0x%x", (unsigned)op->op_handle);
    }
    if (a->win->flavor != MPI_WIN_FLAVOR_DYNAMIC && op->disp < 0 && op->target != MPI_PROC_NULL)
        return IBEX_WIN_ERROR(a->win, MPI_ERR_RMA_RANGE, "negative target displacement %lld",
                              (long long)op->disp);
    return MPI_SUCCESS;
}

/* R* calls: only in a passive target epoch; the request completes with the operation. One to
   MPI_PROC_NULL is valid anywhere (a lock of MPI_PROC_NULL opens no epoch) and completes at
   once, as the others to it do. */
static int rma_request(rma_args_t *a)
{
    const char *call = a->call;
    if (!a->request)
        return MPI_SUCCESS;
    if (a->op.target != MPI_PROC_NULL && !(a->win->epoch & IBEX_WIN_EPOCH_LOCK_ALL) &&
        a->win->nlocked == 0)
        return IBEX_WIN_ERROR(a->win, MPI_ERR_RMA_SYNC,
                              "request-based operations need a passive target epoch (lock)");
    ibex_req_t *req = ibex_req_alloc(IBEX_REQ_SEND);
    if (!req || ibex_req_publish(req, a->request) != 0) {
        if (req)
            ibex_req_release(req);
        return IBEX_WIN_ERROR(a->win, MPI_ERR_NO_MEM, "out of memory for a request");
    }
    a->op.user_req = req;
    return MPI_SUCCESS;
}

static int rma_run(rma_args_t *a)
{
    const char *call = a->call;
    if (a->request)
        *a->request = MPI_REQUEST_NULL;
    IBEX_CHECK(rma_check(a));
    IBEX_CHECK(rma_request(a));
    char msg[512]; /* not zeroed: 512 bytes of stores on every put */
    msg[0] = '\0';
    int rc = ibex_win_op_start(a->win, &a->op, msg, sizeof(msg));
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (a->op.user_req) {
        ibex_req_release(a->op.user_req);
        *a->request = MPI_REQUEST_NULL;
    }
    return IBEX_WIN_ERROR(a->win, rc, "%s", msg);
}

#define RMA_ARGS(k)                                                                                \
    rma_args_t a = {.call = call, .win = w};                                                       \
    a.op.kind = (k);                                                                               \
    a.op.target = target_rank;                                                                     \
    a.op.disp = target_disp;                                                                       \
    a.op.tcount = target_count;                                                                    \
    a.tdt = target_datatype

static int put(const char *call, ibex_win_t *w, const void *origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
               MPI_Count target_count, MPI_Datatype target_datatype, MPI_Request *request)
{
    RMA_ARGS(IBEX_WIN_OP_PUT);
    a.op.origin = origin_addr;
    a.op.ocount = origin_count;
    a.odt = origin_datatype;
    a.request = request;
    return rma_run(&a);
}

static int get(const char *call, ibex_win_t *w, void *origin_addr, MPI_Count origin_count,
               MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
               MPI_Count target_count, MPI_Datatype target_datatype, MPI_Request *request)
{
    RMA_ARGS(IBEX_WIN_OP_GET);
    a.op.origin = origin_addr;
    a.op.result = origin_addr;
    a.op.ocount = origin_count;
    a.odt = origin_datatype;
    a.request = request;
    return rma_run(&a);
}

/* Accumulate and Get_accumulate (result_addr NULL and kind ACC for the first). */
typedef struct acc_in {
    const void *origin;
    MPI_Count ocount;
    MPI_Datatype odt;
    void *result;
    MPI_Count rcount;
    MPI_Datatype rdt;
} acc_in_t;

static int acc(const char *call, ibex_win_t *w, const acc_in_t *in, int target_rank,
               MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
               MPI_Op op, MPI_Request *request, ibex_win_op_kind_t kind)
{
    RMA_ARGS(kind);
    a.op.origin = in->origin;
    a.op.ocount = in->ocount;
    a.odt = in->odt;
    a.op.result = in->result;
    a.op.rcount = in->rcount;
    a.rdt = in->rdt;
    a.op.op_handle = op;
    a.request = request;
    return rma_run(&a);
}

/* The latency-bound put / get: committed types, counts >= 0, a rank of the window (the checks
 * of rma_check such an operation needs), then ibex_win_op_start, whose short path checks the
 * rest (contiguous types, epoch, range, sizes) and whose general path takes anything else, as
 * after rma_run. False: none of it done, the general way (MPI_PROC_NULL, bad arguments). */
static inline bool short_args(ibex_win_t *w, ibex_win_op_t *op, MPI_Datatype odt, int ocount,
                              MPI_Datatype tdt, int tcount)
{
    op->odt = ibex_win_dt(odt);
    op->tdt = tdt == odt ? op->odt : ibex_win_dt(tdt); /* usually one type: one lookup */
    op->ocount = ocount;
    op->tcount = tcount;
    return op->odt && op->tdt && op->odt->committed && op->tdt->committed && ocount >= 0 &&
           tcount >= 0 && (unsigned)op->target < (unsigned)w->comm->size;
}

static int short_run(const char *call, ibex_win_t *w, ibex_win_op_t *op)
{
    char msg[512]; /* not zeroed: as rma_run */
    msg[0] = '\0';
    int rc = ibex_win_op_start(w, op, msg, sizeof(msg));
    return rc == MPI_SUCCESS ? rc : IBEX_WIN_ERROR(w, rc, "%s", msg);
}

/* One element of one committed predefined type on every side, a valid op, a rank of the
 * window: the checks of rma_check such a call needs, in place, then ibex_win_op_start, whose
 * short path on the shared mapping checks the rest (epoch, range, alignment, the (type, op)
 * pair once) and whose general path takes anything else, as after rma_run. False: none of it
 * done, the general way (MPI_PROC_NULL, derived types, bad arguments). */
static inline bool short_elem_args(ibex_win_t *w, ibex_win_op_t *op, MPI_Datatype datatype,
                                   MPI_Op op_handle)
{
    ibex_dt_t *dt = ibex_win_dt(datatype);
    op->odt = op->tdt = dt;
    op->ocount = op->tcount = 1;
    op->op_handle = op_handle;
    op->op = ibex_op_get(op_handle);
    return dt && dt->predefined && dt->committed && op->op &&
           (unsigned)op->target < (unsigned)w->comm->size;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win)
{
    IBEX_ENTER_WIN_FAST(Put, win, w);
    ibex_win_op_t op = {
        .kind = IBEX_WIN_OP_PUT, .origin = origin_addr, .target = target_rank, .disp = target_disp};
    if (short_args(w, &op, origin_datatype, origin_count, target_datatype, target_count))
        return short_run(call, w, &op);
    return put(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, NULL);
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
              MPI_Win win, MPI_Request *request)
{
    IBEX_ENTER_WIN(Rput, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    return put(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, request);
}

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    IBEX_ENTER_WIN_FAST(Get, win, w);
    ibex_win_op_t op = {.kind = IBEX_WIN_OP_GET,
                        .origin = origin_addr,
                        .result = origin_addr,
                        .target = target_rank,
                        .disp = target_disp};
    if (short_args(w, &op, origin_datatype, origin_count, target_datatype, target_count))
        return short_run(call, w, &op);
    return get(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, NULL);
}

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    IBEX_ENTER_WIN(Rget, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    return get(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, request);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    IBEX_ENTER_WIN_FAST(Accumulate, win, w);
    ibex_win_op_t o = {
        .kind = IBEX_WIN_OP_ACC, .origin = origin_addr, .target = target_rank, .disp = target_disp};
    if (origin_count == 1 && target_count == 1 && origin_datatype == target_datatype &&
        short_elem_args(w, &o, target_datatype, op))
        return short_run(call, w, &o);
    acc_in_t in = {origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, NULL,
               IBEX_WIN_OP_ACC);
}

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    IBEX_ENTER_WIN(Raccumulate, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    acc_in_t in = {origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, request,
               IBEX_WIN_OP_ACC);
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    IBEX_ENTER_WIN(Get_accumulate, win, w);
    acc_in_t in = {origin_addr, origin_count, origin_datatype,
                   result_addr, result_count, result_datatype};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, NULL,
               IBEX_WIN_OP_GACC);
}

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    IBEX_ENTER_WIN(Rget_accumulate, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    acc_in_t in = {origin_addr, origin_count, origin_datatype,
                   result_addr, result_count, result_datatype};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, request,
               IBEX_WIN_OP_GACC);
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    IBEX_ENTER_WIN_FAST(Fetch_and_op, win, w);
    ibex_win_op_t o = {.kind = IBEX_WIN_OP_GACC,
                       .origin = origin_addr,
                       .result = result_addr,
                       .rcount = 1,
                       .target = target_rank,
                       .disp = target_disp};
    if (short_elem_args(w, &o, datatype, op)) {
        o.rdt = o.tdt;
        return short_run(call, w, &o);
    }
    acc_in_t in = {origin_addr, 1, datatype, result_addr, 1, datatype};
    return acc(call, w, &in, target_rank, target_disp, 1, datatype, op, NULL, IBEX_WIN_OP_GACC);
}

/* One element of one predefined type on every side: the checks of rma_check such a call needs
 * (committed, a rank of the window) in place, then ibex_win_op_start, whose short path on the
 * shared mapping checks the rest (epoch, range, alignment, the type once) and whose general
 * path takes anything else, as after rma_run. MPI_PROC_NULL and bad ranks go through rma_run. */
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    IBEX_ENTER_WIN_FAST(Compare_and_swap, win, w);
    ibex_dt_t *dt = ibex_win_dt(datatype);
    if (!dt || !dt->predefined)
        return IBEX_WIN_ERROR(w, MPI_ERR_TYPE,
                              "Compare_and_swap takes one predefined datatype (0x%x is not)",
                              (unsigned)datatype);
    ibex_win_op_t op = {.kind = IBEX_WIN_OP_CAS,
                        .origin = origin_addr,
                        .ocount = 1,
                        .odt = dt,
                        .result = result_addr,
                        .rcount = 1,
                        .rdt = dt,
                        .compare = compare_addr,
                        .target = target_rank,
                        .disp = target_disp,
                        .tcount = 1,
                        .tdt = dt,
                        .op_handle = MPI_REPLACE};
    if (dt->committed && (unsigned)target_rank < (unsigned)w->comm->size)
        return short_run(call, w, &op);
    int target_count = 1;
    MPI_Datatype target_datatype = datatype;
    RMA_ARGS(IBEX_WIN_OP_CAS);
    a.op = op;
    a.odt = datatype;
    a.rdt = datatype;
    return rma_run(&a);
}

/* The large-count forms: the same calls with MPI_Count counts, carried to runtime/win. */
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    IBEX_ENTER_WIN(Put_c, win, w);
    return put(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, NULL);
}

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    IBEX_ENTER_WIN(Rput_c, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    return put(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, request);
}

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    IBEX_ENTER_WIN(Get_c, win, w);
    return get(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, NULL);
}

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    IBEX_ENTER_WIN(Rget_c, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    return get(call, w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
               target_count, target_datatype, request);
}

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                      MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    IBEX_ENTER_WIN(Accumulate_c, win, w);
    acc_in_t in = {origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, NULL,
               IBEX_WIN_OP_ACC);
}

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                       MPI_Request *request)
{
    IBEX_ENTER_WIN(Raccumulate_c, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    acc_in_t in = {origin_addr, origin_count, origin_datatype, NULL, 0, MPI_DATATYPE_NULL};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, request,
               IBEX_WIN_OP_ACC);
}

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win)
{
    IBEX_ENTER_WIN(Get_accumulate_c, win, w);
    acc_in_t in = {origin_addr, origin_count, origin_datatype,
                   result_addr, result_count, result_datatype};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, NULL,
               IBEX_WIN_OP_GACC);
}

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request)
{
    IBEX_ENTER_WIN(Rget_accumulate_c, win, w);
    if (!request)
        return IBEX_WIN_ERROR(w, MPI_ERR_ARG, "request is NULL");
    acc_in_t in = {origin_addr, origin_count, origin_datatype,
                   result_addr, result_count, result_datatype};
    return acc(call, w, &in, target_rank, target_disp, target_count, target_datatype, op, request,
               IBEX_WIN_OP_GACC);
}

IBEX_MPI_ALIASES(win_rma_api)
