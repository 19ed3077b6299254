/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI 4.0 large-count forms whose outputs change (MPI_Count or MPI_Aint results, MPI_Count
 * arrays), written by hand because the generator only widens inputs: the datatype queries,
 * Pack / Unpack and the external32 forms, the datatype constructors (the Bsend buffers' _c
 * forms are p2p_bsend.c's).
 *
 * The constructors' _c forms count in MPI_Count through the same bodies as the int forms
 * (dt_create.c: the engine's sizes, extents and displacements are size_t / ptrdiff_t): counts,
 * block lengths, strides and displacements past an int work, and the type records them as
 * large counts for MPI_Type_get_envelope_c / get_contents_c (MPI 4.1 section 5.1.13). Subarray
 * and darray are built in MPI_Count (dt_array.c's ibex_dt_subarray / ibex_dt_darray, shared with
 * the int forms), so their sizes may pass an int too; the _c forms record large counts. Outputs are
 * computed in MPI_Count and never clipped: a type of more than 2^31 bytes has its true size in
 * MPI_Type_size_c. Pack_c / Unpack_c move any size at any position.
 */
#include <limits.h>
#include <stdlib.h>

#include "dt_priv.h"
#include "ibex_dt_api.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

static int fits(ibex_entry_t *e, MPI_Count v, const char *what)
{
    if (v > INT_MAX || v < INT_MIN)
        return ibex_mpi_error(e->comm, MPI_ERR_COUNT, e->call,
                              "%s %lld does not fit in an int (Ibex's constructors count in int)",
                              what, (long long)v);
    return MPI_SUCCESS;
}

/* ---- queries ---- */

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    IBEX_ENTER_ANYTIME(Get_count_c);
    ibex_dt_t *dt = NULL;
    if (!status || status == MPI_STATUS_IGNORE)
        return IBEX_ERROR(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Get_count_c, count);
    MPI_Count bytes = status->ibex_count, size = (MPI_Count)dt->size;
    *count = size == 0 ? 0 : bytes % size ? MPI_UNDEFINED : bytes / size;
    return MPI_SUCCESS;
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    IBEX_ENTER_ANYTIME(Get_elements_c);
    ibex_dt_t *dt = NULL;
    if (!status || status == MPI_STATUS_IGNORE)
        return IBEX_ERROR(MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Get_elements_c, count);
    *count = ibex_dt_elements(dt, status->ibex_count);
    return MPI_SUCCESS;
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    IBEX_ENTER_ANYTIME(Type_size_c);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_size_c, size);
    *size = (MPI_Count)dt->size;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    IBEX_ENTER_ANYTIME(Type_get_extent_c);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_extent_c, lb, extent);
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    IBEX_ENTER_ANYTIME(Type_get_true_extent_c);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Type_get_true_extent_c, true_lb, true_extent);
    *true_lb = dt->true_lb;
    *true_extent = dt->true_extent;
    return MPI_SUCCESS;
}

/* ---- packing ---- */

/* The packed size of (count, datatype) at *position of a size-byte buffer, or the class. */
static int pack_room(ibex_entry_t *e, MPI_Count count, MPI_Datatype datatype, MPI_Count size,
                     const MPI_Count *position, ibex_dt_t **dt_p, MPI_Count *bytes_p)
{
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, e->call, "negative count %lld",
                              (long long)count);
    int rc = ibex_dt_lookup(datatype, e->call, true, dt_p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*position < 0 || *position > size)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, e->call,
                              "position %lld is outside the buffer of %lld bytes",
                              (long long)*position, (long long)size);
    *bytes_p = count * (MPI_Count)(*dt_p)->size;
    if (*bytes_p > size - *position)
        return ibex_mpi_error(NULL, MPI_ERR_TRUNCATE, e->call,
                              "%lld bytes do not fit at position %lld of a %lld-byte buffer",
                              (long long)*bytes_p, (long long)*position, (long long)size);
    return MPI_SUCCESS;
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    IBEX_ENTER_ANYTIME(Pack_c);
    IBEX_ARGS(Pack_c, position);
    ibex_dt_t *dt = NULL;
    MPI_Count bytes = 0;
    (void)comm;
    IBEX_CHECK(pack_room(&ibex_e, incount, datatype, outsize, position, &dt, &bytes));
    ibex_dt_pack(inbuf, incount, dt, 0, (char *)outbuf + *position, (size_t)bytes);
    *position += bytes;
    return MPI_SUCCESS;
}

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    IBEX_ENTER_ANYTIME(Unpack_c);
    IBEX_ARGS(Unpack_c, position);
    ibex_dt_t *dt = NULL;
    MPI_Count bytes = 0;
    (void)comm;
    IBEX_CHECK(pack_room(&ibex_e, outcount, datatype, insize, position, &dt, &bytes));
    ibex_dt_unpack(outbuf, outcount, dt, 0, (const char *)inbuf + *position, (size_t)bytes);
    *position += bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    IBEX_ENTER_ANYTIME(Pack_size_c);
    ibex_dt_t *dt = NULL;
    (void)comm;
    if (incount < 0)
        return IBEX_ERROR(MPI_ERR_COUNT, "negative count %lld", (long long)incount);
    IBEX_CHECK(ibex_dt_lookup(datatype, call, false, &dt));
    IBEX_ARGS(Pack_size_c, size);
    *size = incount * (MPI_Count)dt->size; /* Pack adds no header */
    return MPI_SUCCESS;
}

int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    IBEX_ENTER_ANYTIME(Pack_external_c);
    IBEX_ARGS(Pack_external_c, position);
    IBEX_CHECK(fits(&ibex_e, incount, "incount"));
    MPI_Aint pos = (MPI_Aint)*position;
    int rc =
        PMPI_Pack_external(datarep, inbuf, (int)incount, datatype, outbuf, (MPI_Aint)outsize, &pos);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return rc;
}

int PMPI_Unpack_external_c(const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    IBEX_ENTER_ANYTIME(Unpack_external_c);
    IBEX_ARGS(Unpack_external_c, position);
    IBEX_CHECK(fits(&ibex_e, outcount, "outcount"));
    MPI_Aint pos = (MPI_Aint)*position;
    int rc = PMPI_Unpack_external(datarep, inbuf, (MPI_Aint)insize, &pos, outbuf, (int)outcount,
                                  datatype);
    if (rc == MPI_SUCCESS)
        *position = pos;
    return rc;
}

int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    IBEX_ENTER_ANYTIME(Pack_external_size_c);
    IBEX_ARGS(Pack_external_size_c, size);
    MPI_Aint one = 0;
    /* external32 sizes are linear in the count: the size of one element times incount */
    if (incount < 0)
        return IBEX_ERROR(MPI_ERR_COUNT, "negative count %lld", (long long)incount);
    int rc = PMPI_Pack_external_size(datarep, 1, datatype, &one);
    if (rc == MPI_SUCCESS)
        *size = incount * (MPI_Count)one;
    return rc;
}

/* ---- constructors ---- */

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_contiguous_c);
    return ibex_dt_create_contiguous(call, count, oldtype, true, newtype);
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_vector_c);
    ibex_dt_hvector_t v = {count, blocklength, stride, IBEX_DT_COMBINER_VECTOR, true};
    return ibex_dt_create_hvector(call, &v, oldtype, newtype);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hvector_c);
    ibex_dt_hvector_t v = {count, blocklength, stride, IBEX_DT_COMBINER_HVECTOR, true};
    return ibex_dt_create_hvector(call, &v, oldtype, newtype);
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_indexed_c);
    ibex_dt_indexed_t a = {.count = count,
                           .clens = array_of_blocklengths,
                           .cdisps = array_of_displacements,
                           .combiner = IBEX_DT_COMBINER_INDEXED,
                           .large = true};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hindexed_c);
    ibex_dt_indexed_t a = {.count = count,
                           .clens = array_of_blocklengths,
                           .cdisps = array_of_displacements,
                           .bytes = true,
                           .combiner = IBEX_DT_COMBINER_HINDEXED,
                           .large = true};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_indexed_block_c);
    ibex_dt_indexed_t a = {.count = count,
                           .block = true,
                           .len = blocklength,
                           .cdisps = array_of_displacements,
                           .combiner = IBEX_DT_COMBINER_INDEXED_BLOCK,
                           .large = true};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_hindexed_block_c);
    ibex_dt_indexed_t a = {.count = count,
                           .block = true,
                           .len = blocklength,
                           .cdisps = array_of_displacements,
                           .bytes = true,
                           .combiner = IBEX_DT_COMBINER_HINDEXED_BLOCK,
                           .large = true};
    return ibex_dt_create_indexed(call, &a, oldtype, NULL, newtype);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_struct_c);
    ibex_dt_indexed_t a = {.count = count,
                           .clens = array_of_blocklengths,
                           .cdisps = array_of_displacements,
                           .bytes = true,
                           .combiner = IBEX_DT_COMBINER_STRUCT,
                           .large = true};
    if (count > 0 && !array_of_types)
        return IBEX_ERROR(MPI_ERR_ARG, "array_of_types is NULL");
    return ibex_dt_create_indexed(call, &a, MPI_DATATYPE_NULL, array_of_types, newtype);
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_resized_c);
    MPI_Count counts[2] = {lb, extent};
    IBEX_CHECK(PMPI_Type_create_resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype));
    return ibex_dt_record_large(call, newtype, NULL, 0, counts, 2);
}

/* A subarray _c form's record: ndims and order as ints, sizes, subsizes, starts as counts. */
static int record_subarray(const char *call, MPI_Datatype *newtype, int n, const MPI_Count *sz,
                           const MPI_Count *sub, const MPI_Count *st, int order)
{
    MPI_Count counts[3 * n];
    int ints[2] = {n, order};
    for (int i = 0; i < n; i++)
        counts[i] = sz[i], counts[n + i] = sub[i], counts[2 * n + i] = st[i];
    return ibex_dt_record_large(call, newtype, ints, 2, counts, 3 * n);
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_subarray_c);
    IBEX_CHECK(ibex_dt_subarray(call, ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                order, oldtype, newtype));
    IBEX_CHECK(
        ibex_dt_record(call, newtype, IBEX_DT_COMBINER_SUBARRAY, NULL, 0, NULL, 0, &oldtype, 1));
    return record_subarray(call, newtype, ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                           order);
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    IBEX_ENTER_ANYTIME(Type_create_darray_c);
    IBEX_CHECK(ibex_dt_darray(call, size, rank, ndims, array_of_gsizes, array_of_distribs,
                              array_of_dargs, array_of_psizes, order, oldtype, newtype));
    IBEX_CHECK(
        ibex_dt_record(call, newtype, IBEX_DT_COMBINER_DARRAY, NULL, 0, NULL, 0, &oldtype, 1));
    int n = ndims, ints[4 + 3 * n];
    ints[0] = size, ints[1] = rank, ints[2] = ndims, ints[3 + 3 * n] = order;
    for (int i = 0; i < n; i++) {
        ints[3 + i] = array_of_distribs[i];
        ints[3 + n + i] = array_of_dargs[i];
        ints[3 + 2 * n + i] = array_of_psizes[i];
    }
    return ibex_dt_record_large(call, newtype, ints, 4 + 3 * n, array_of_gsizes, n);
}

/* ---- buffers ---- */

IBEX_MPI_ALIASES(dt_large)
