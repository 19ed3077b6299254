/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scan and Exscan: recursive doubling (MPICH's scan_intra_recursive_doubling). In step k each
 * rank exchanges the combination of its aligned group of 2^k ranks (partial) with the rank
 * differing in bit k; what comes from a lower group is combined on the left of both partial
 * and the result, what comes from a higher group on the right of partial only, so every
 * combination keeps rank order (non-commutative ops are right). Exscan's result starts as the
 * first lower group's partial, never including the rank's own data; rank 0 gets none.
 *
 * Cost: ceil(log2 p) (alpha + n beta + 2 n gamma); the linear chain has p - 1 latency.
 */
#include <stdlib.h>

#include "coll.h"
#include "ibex_p2p.h"

typedef struct scan_state {
    const ibex_coll_args_t *a;
    void *partial, *tmp;
    bool have_result; /* rbuf holds something (Exscan: not until a lower group came) */
} scan_state_t;

/* tmp came from dst: lower ranks if dst < rank. */
static ibex_status_t scan_combine(scan_state_t *s, bool from_lower)
{
    const ibex_coll_args_t *a = s->a;
    ibex_status_t st = IBEX_OK;
    if (from_lower) {
        st = ibex_coll_apply(a->op, s->tmp, s->partial, a->rcount, a->rdt);
        if (st == IBEX_OK && s->have_result)
            st = ibex_coll_apply(a->op, s->tmp, a->rbuf, a->rcount, a->rdt);
        else if (st == IBEX_OK)
            st = ibex_coll_copy(s->tmp, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
        s->have_result = true;
        return st;
    }
    if (a->op->commutative)
        return ibex_coll_apply(a->op, s->tmp, s->partial, a->rcount, a->rdt);
    st = ibex_coll_apply(a->op, s->partial, s->tmp, a->rcount, a->rdt); /* partial op tmp */
    void *t = s->partial;
    s->partial = s->tmp;
    s->tmp = t;
    return st;
}

static ibex_status_t scan_steps(scan_state_t *s, int tag)
{
    const ibex_coll_args_t *a = s->a;
    ibex_comm_t *comm = a->comm;
    ibex_status_t st = IBEX_OK;
    for (int mask = 1; st == IBEX_OK && mask < comm->size; mask <<= 1) {
        int dst = comm->rank ^ mask;
        if (dst >= comm->size)
            continue;
        st = ibex_coll_sendrecv(s->partial, a->rcount, a->rdt, dst, s->tmp, a->rcount, a->rdt, dst,
                                tag, comm);
        if (st == IBEX_OK)
            st = scan_combine(s, dst < comm->rank);
    }
    return st;
}

static ibex_status_t scan_run(const ibex_coll_args_t *a, bool exclusive, int tag)
{
    if (a->rcount == 0)
        return IBEX_OK;
    void *pbase = NULL, *tbase = NULL;
    scan_state_t s = {.a = a, .have_result = !exclusive};
    s.partial = ibex_coll_tmp_alloc(a->rdt, a->rcount, &pbase);
    s.tmp = ibex_coll_tmp_alloc(a->rdt, a->rcount, &tbase);
    ibex_status_t st = s.partial && s.tmp ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    const void *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (st == IBEX_OK)
        st = ibex_coll_copy(mine, a->rcount, a->rdt, s.partial, a->rcount, a->rdt);
    if (st == IBEX_OK && !exclusive && a->sbuf != MPI_IN_PLACE)
        st = ibex_coll_copy(a->sbuf, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    if (st == IBEX_OK)
        st = scan_steps(&s, tag);
    free(pbase);
    free(tbase);
    return st;
}

ibex_status_t ibex_coll_scan_recursive_doubling(const ibex_coll_args_t *args)
{
    return scan_run(args, false, IBEX_COLL_TAG(IBEX_COLL_SCAN));
}

ibex_status_t ibex_coll_exscan_recursive_doubling(const ibex_coll_args_t *args)
{
    return scan_run(args, true, IBEX_COLL_TAG(IBEX_COLL_EXSCAN));
}
