/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI-IO large-count forms (MPI_File_read_c .. MPI_File_write_ordered_end's begin, made by
 * the generator in runtime/mpi/ibex_mpi_large.c) past INT_MAX: count elements of a datatype
 * become one element of a contiguous type of them (MPI_Type_contiguous_c; the datatype engine
 * counts in MPI_Count), which the int call moves like any other type. An access's stream is
 * MPI_Offset bytes and pread / pwrite loop over their partial transfers (Linux moves at most
 * 0x7ffff000 bytes a call), so nothing else changes. The status counts bytes, so
 * MPI_Get_count_c with the program's type gives the true count. Every access completes at its
 * call (non-blocking and split forms included), so the type is freed as the _c call returns.
 */
#include <limits.h>

#include "ibex_io.h"

int ibex_file_large_type(MPI_File fh, const char *call, MPI_Count count, MPI_Datatype datatype,
                         int *count_p, MPI_Datatype *dt_p)
{
    *dt_p = datatype;
    if (count <= INT_MAX) {
        *count_p = count < INT_MIN ? -1 : (int)count; /* negative: the int checks say so */
        return MPI_SUCCESS;
    }
    *count_p = 1;
    const ibex_dt_t *dt = ibex_dt_get(datatype);
    if (!dt || !dt->committed)
        return MPI_SUCCESS; /* the int call reports the datatype */
    MPI_Count bytes, span;
    if (__builtin_mul_overflow((MPI_Count)dt->size, count, &bytes) ||
        __builtin_mul_overflow((MPI_Count)dt->extent, count, &span))
        return ibex_file_raise(fh, MPI_ERR_COUNT, call,
                               "count %lld of a %zu-byte datatype is more bytes than an "
                               "MPI_Offset holds",
                               (long long)count, dt->size);
    /* count elements must merge into one block: the datatype engine keeps types flattened and
     * refuses one of more than 2^26 separate blocks (on the default handler: check first) */
    if (dt->size != 0 && !(dt->nblocks == 1 && (MPI_Count)dt->blocks[0].len == dt->extent))
        return ibex_file_raise(fh, MPI_ERR_UNSUPPORTED_OPERATION, call,
                               "count %lld of a datatype with gaps or several blocks: past %d "
                               "elements Ibex takes dense datatypes only (one block, no gap)",
                               (long long)count, INT_MAX);
    if (PMPI_Type_contiguous_c(count, datatype, dt_p) != MPI_SUCCESS ||
        PMPI_Type_commit(dt_p) != MPI_SUCCESS)
        return ibex_file_raise(fh, MPI_ERR_INTERN, call,
                               "cannot make a type of %lld elements for the access",
                               (long long)count);
    return MPI_SUCCESS;
}
