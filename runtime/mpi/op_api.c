/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI entry points on reduction operations: user ops and MPI_Reduce_local.
 * The datatype and op calls enter with IBEX_ENTER_ANYTIME: they never checked that MPI is
 * running (before MPI_Init no handle is valid, so they fail on the handle) and their unit tests
 * (tests/runtime/engine) call them without MPI_Init.
 */
#include "dt_priv.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "op_priv.h"
#include "ibex_entry.h"

static int op_lookup(MPI_Op handle, const char *call, ibex_op_t **op_p)
{
    ibex_op_t *op = ibex_op_get(handle);
    if (!op)
        return ibex_mpi_error(NULL, MPI_ERR_OP, call, "invalid op 0x%x", handle);
    *op_p = op;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    IBEX_ENTER_ANYTIME(Op_create);
    if (!user_fn || !op)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL", op ? "user_fn" : "op");
    ibex_op_t *o = ibex_op_create(user_fn, commute != 0);
    if (!o)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for an op");
    *op = o->handle;
    return MPI_SUCCESS;
}

int PMPI_Op_free(MPI_Op *op)
{
    IBEX_ENTER_ANYTIME(Op_free);
    ibex_op_t *o = NULL;
    IBEX_ARGS(Op_free, op);
    IBEX_CHECK(op_lookup(*op, call, &o));
    if (o->predefined)
        return ibex_mpi_error(NULL, MPI_ERR_OP, call, "cannot free predefined op 0x%x", *op);
    ibex_op_free(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    IBEX_ENTER_ANYTIME(Op_commutative);
    ibex_op_t *o = NULL;
    IBEX_CHECK(op_lookup(op, call, &o));
    IBEX_ARGS(Op_commutative, commute);
    *commute = o->commutative;
    return MPI_SUCCESS;
}

/* MPI_Reduce_local and its _c form: any count (ibex_op_apply_c cuts it for the int functions). */
static int reduce_local(const char *call, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    ibex_op_t *o = NULL;
    ibex_dt_t *dt = NULL;
    int rc;
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %lld", (long long)count);
    /* MPI_Reduce_local has no in-place form, and its two buffers may not be aliased */
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return ibex_mpi_error(NULL, MPI_ERR_BUFFER, call, "%s is MPI_IN_PLACE",
                              inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf");
    if (count > 0 && inbuf == inoutbuf)
        return ibex_mpi_error(NULL, MPI_ERR_BUFFER, call, "inbuf and inoutbuf are the same buffer");
    if ((rc = op_lookup(op, call, &o)) || (rc = ibex_dt_lookup(datatype, call, true, &dt)))
        return rc;
    rc = ibex_op_apply_c(o, inbuf, inoutbuf, count, datatype);
    if (rc != MPI_SUCCESS)
        return ibex_mpi_error(NULL, rc, call, "op 0x%x is not defined on datatype %s", op,
                              dt->name[0] ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    IBEX_ENTER_ANYTIME(Reduce_local);
    return reduce_local(call, inbuf, inoutbuf, count, datatype, op);
}

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    IBEX_ENTER_ANYTIME(Reduce_local_c);
    return reduce_local(call, inbuf, inoutbuf, count, datatype, op);
}

IBEX_MPI_ALIASES(op_api)
