/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype decoding (MPI 4.1 section 5.1.13): MPI_Type_get_envelope / get_contents and their
 * large-count forms. Every derived type keeps its constructor's arguments
 * (ibex_dt_contents_t, recorded by the constructors); get_contents copies them out, with the
 * member types as their predefined handles or, for derived ones, as new handles on clones
 * (same layout, combiner and arguments) that the program frees. No Ibex constructor takes
 * MPI_Count arguments yet, so the number of large counts is always 0.
 */
#include "dt_priv.h"
#include "ibex_dt_api.h"
#include "ibex_err.h"
#include "ibex_entry.h"

static void envelope(const ibex_dt_t *dt, int *ni, int *na, int *nd, int *combiner)
{
    const ibex_dt_contents_t *c = ibex_dt_priv(dt)->contents;
    *combiner = ibex_dt_priv(dt)->combiner;
    *ni = c ? c->ni : 0;
    *na = c ? c->na : 0;
    *nd = c ? c->nd : 0;
}

static int large_count(const ibex_dt_t *dt)
{
    const ibex_dt_contents_t *c = ibex_dt_priv(dt)->contents;
    return c ? c->nc : 0;
}

static int need_c(const char *call, const ibex_dt_t *dt)
{
    return ibex_mpi_error(NULL, MPI_ERR_TYPE, call,
                          "the datatype was made by a large-count constructor (%d large counts): "
                          "decode it with %s_c",
                          large_count(dt), call);
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    IBEX_ENTER_ANYTIME(Type_get_envelope);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    if (large_count(dt))
        return need_c(call, dt);
    IBEX_ARGS(Type_get_envelope, num_integers, num_addresses, num_datatypes, combiner);
    envelope(dt, num_integers, num_addresses, num_datatypes, combiner);
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    IBEX_ENTER_ANYTIME(Type_get_envelope_c);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_envelope_c, num_integers, num_addresses, num_large_counts, num_datatypes,
              combiner);
    int ni, na, nd;
    envelope(dt, &ni, &na, &nd, combiner);
    *num_integers = ni, *num_addresses = na, *num_datatypes = nd;
    *num_large_counts = large_count(dt);
    return MPI_SUCCESS;
}

/* The member types: predefined handles as they are, derived ones as clones. */
static int contents_types(const char *call, const ibex_dt_contents_t *c, MPI_Datatype *out)
{
    for (int i = 0; i < c->nd; i++) {
        ibex_dt_t *t = c->types[i];
        int rc =
            t->predefined ? (out[i] = t->handle, MPI_SUCCESS) : ibex_dt_clone(call, t, &out[i]);
        if (rc != MPI_SUCCESS) {
            for (int j = 0; j < i; j++)
                if (!c->types[j]->predefined)
                    PMPI_Type_free(&out[j]);
            return rc;
        }
    }
    return MPI_SUCCESS;
}

typedef struct contents_out {
    MPI_Count max_i, max_a, max_c, max_d;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    MPI_Datatype *types;
} contents_out_t;

static int contents(const char *call, MPI_Datatype datatype, const contents_out_t *o, bool large)
{
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    const ibex_dt_contents_t *c = ibex_dt_priv(dt)->contents;
    if (!c)
        return ibex_mpi_error(NULL, MPI_ERR_TYPE, call,
                              "%s is a named datatype: it has no contents", dt->name);
    if (!large && c->nc)
        return need_c(call, dt);
    if (o->max_i < c->ni || o->max_a < c->na || o->max_d < c->nd || o->max_c < c->nc)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call,
                              "arrays too small: %d ints, %d addresses, %d large counts, %d "
                              "datatypes needed",
                              c->ni, c->na, c->nc, c->nd);
    if ((c->ni && !o->ints) || (c->na && !o->aints) || (c->nd && !o->types) ||
        (c->nc && !o->counts))
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "an output array is NULL");
    for (int i = 0; i < c->ni; i++)
        o->ints[i] = c->ints[i];
    for (int i = 0; i < c->na; i++)
        o->aints[i] = c->aints[i];
    for (int i = 0; i < c->nc; i++)
        o->counts[i] = c->counts[i];
    return contents_types(call, c, o->types);
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    IBEX_ENTER_ANYTIME(Type_get_contents);
    contents_out_t o = {max_integers,      max_addresses,      0,    max_datatypes,
                        array_of_integers, array_of_addresses, NULL, array_of_datatypes};
    return contents(call, datatype, &o, false);
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    IBEX_ENTER_ANYTIME(Type_get_contents_c);
    contents_out_t o = {max_integers,          max_addresses,     max_large_counts,
                        max_datatypes,         array_of_integers, array_of_addresses,
                        array_of_large_counts, array_of_datatypes};
    return contents(call, datatype, &o, true);
}

IBEX_MPI_ALIASES(dt_decode)
