/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "external32" (MPI 4.1 section 13.5.2): MPI_Pack_external, MPI_Unpack_external,
 * MPI_Pack_external_size. Every basic element goes big-endian at its external32 size, in the
 * type map's order, with no padding: integers and floats are byte-swapped, complex numbers
 * per half, MPI_LONG / MPI_UNSIGNED_LONG and MPI_WCHAR shrink to their external32 sizes of
 * 4 and 2 bytes (values that do not fit are truncated, as the standard leaves them
 * undefined). Long double (external32 is IEEE binary128, x86 has 80-bit extended) and its
 * complex form are not supported: MPI_ERR_TYPE, saying so.
 *
 * The walk: a type whose basic elements are all of one predefined type goes by its flattened
 * blocks; a mixed one (a struct, or built from one) by its constructor's record, member by
 * member; the predefined pair types by their two members. Subarray and darray types of mixed
 * members are not supported yet (MPI_ERR_TYPE).
 */
#include <stdint.h>
#include <string.h>

#include "dt_priv.h"
#include "ibex_err.h"
#include "ibex_entry.h"

typedef struct ext_conv {
    int native, ext, unit; /* sizes in bytes; unit: the swapped piece (complex: a half) */
    bool is_signed;
} ext_conv_t;

static bool conv_of(MPI_Datatype t, ext_conv_t *c)
{
    if (t == MPI_LONG_DOUBLE || t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_CXX_LONG_DOUBLE_COMPLEX)
        return false;
    ibex_dt_t *dt = ibex_dt_get(t);
    int n = (int)dt->size;
    *c = (ext_conv_t){n, n, n, false};
    if (t == MPI_LONG || t == MPI_UNSIGNED_LONG) {
        c->ext = c->unit = 4;
        c->is_signed = t == MPI_LONG;
    } else if (t == MPI_WCHAR) {
        c->ext = c->unit = 2;
    } else if (t == MPI_C_FLOAT_COMPLEX || t == MPI_C_DOUBLE_COMPLEX || t == MPI_COMPLEX ||
               t == MPI_DOUBLE_COMPLEX || t == MPI_CXX_FLOAT_COMPLEX ||
               t == MPI_CXX_DOUBLE_COMPLEX || t == MPI_COMPLEX8 || t == MPI_COMPLEX16) {
        c->unit = n / 2;
    }
    return true;
}

typedef struct ext_walk {
    bool pack, size_only;
    char *ext;    /* the external32 stream, at the current position */
    size_t bytes; /* external32 bytes so far */
    int err;      /* MPI_SUCCESS, or MPI_ERR_TYPE for a type not supported */
} ext_walk_t;

/* One native value of n bytes (little-endian here) to / from ext big-endian bytes. */
static void conv_one(const ext_conv_t *c, char *native, char *ext, bool pack)
{
    if (c->native == c->ext) {
        for (int h = 0; h < c->native; h += c->unit)
            for (int i = 0; i < c->unit; i++) {
                if (pack)
                    ext[h + i] = native[h + c->unit - 1 - i];
                else
                    native[h + c->unit - 1 - i] = ext[h + i];
            }
        return;
    }
    /* narrowing integer (long: 8 -> 4, wchar_t: 4 -> 2): the low bytes, sign-extended back */
    for (int i = 0; i < c->ext; i++)
        if (pack)
            ext[i] = native[c->ext - 1 - i];
        else
            native[c->ext - 1 - i] = ext[i];
    if (!pack) {
        char fill = c->is_signed && (ext[0] & 0x80) ? (char)0xff : 0;
        memset(native + c->ext, fill, (size_t)(c->native - c->ext));
    }
}

static void visit(ext_walk_t *w, MPI_Datatype t, char *addr)
{
    ext_conv_t c;
    if (w->err != MPI_SUCCESS)
        return;
    if (!conv_of(t, &c)) {
        w->err = MPI_ERR_TYPE;
        return;
    }
    if (!w->size_only)
        conv_one(&c, addr, w->ext + w->bytes, w->pack);
    w->bytes += (size_t)c.ext;
}

static void walk(ext_walk_t *w, const ibex_dt_t *dt, char *base, size_t count);

/* A mixed derived type made by a _c constructor: its record holds large counts. */
static void walk_large(ext_walk_t *w, const ibex_dt_t *dt, char *base)
{
    const ibex_dt_contents_t *c = ibex_dt_priv(dt)->contents;
    const MPI_Count *in = c->counts;
    int comb = ibex_dt_priv(dt)->combiner;
    bool block = comb == IBEX_DT_COMBINER_INDEXED_BLOCK || comb == IBEX_DT_COMBINER_HINDEXED_BLOCK;
    bool bytes = comb != IBEX_DT_COMBINER_INDEXED && comb != IBEX_DT_COMBINER_INDEXED_BLOCK;
    switch (comb) {
    case IBEX_DT_COMBINER_CONTIGUOUS:
        walk(w, c->types[0], base, (size_t)in[0]);
        return;
    case IBEX_DT_COMBINER_VECTOR:
    case IBEX_DT_COMBINER_HVECTOR: {
        ibex_dt_t *old = c->types[0];
        ptrdiff_t stride = (ptrdiff_t)in[2] * (comb == IBEX_DT_COMBINER_VECTOR ? old->extent : 1);
        for (MPI_Count i = 0; i < in[0]; i++)
            walk(w, old, base + i * stride, (size_t)in[1]);
        return;
    }
    case IBEX_DT_COMBINER_INDEXED:
    case IBEX_DT_COMBINER_HINDEXED:
    case IBEX_DT_COMBINER_INDEXED_BLOCK:
    case IBEX_DT_COMBINER_HINDEXED_BLOCK:
    case IBEX_DT_COMBINER_STRUCT: {
        MPI_Count n = in[0];
        const MPI_Count *disp = in + 1 + (block ? 1 : n);
        for (MPI_Count i = 0; i < n; i++) {
            ibex_dt_t *old = c->types[comb == IBEX_DT_COMBINER_STRUCT ? i : 0];
            ptrdiff_t d = (ptrdiff_t)disp[i] * (bytes ? 1 : old->extent);
            walk(w, old, base + d, (size_t)(block ? in[1] : in[1 + i]));
        }
        return;
    }
    default:
        walk(w, c->types[0], base, 1); /* resized */
    }
}

/* A mixed derived type by its constructor's record. */
static void walk_contents(ext_walk_t *w, const ibex_dt_t *dt, char *base)
{
    const ibex_dt_contents_t *c = ibex_dt_priv(dt)->contents;
    if (c && c->nc > 0 && ibex_dt_priv(dt)->combiner != IBEX_DT_COMBINER_SUBARRAY &&
        ibex_dt_priv(dt)->combiner != IBEX_DT_COMBINER_DARRAY) {
        walk_large(w, dt, base);
        return;
    }
    const int *in = c ? c->ints : NULL;
    switch (c ? ibex_dt_priv(dt)->combiner : -1) {
    case IBEX_DT_COMBINER_DUP:
    case IBEX_DT_COMBINER_RESIZED:
        walk(w, c->types[0], base, 1);
        return;
    case IBEX_DT_COMBINER_CONTIGUOUS:
        walk(w, c->types[0], base, (size_t)in[0]);
        return;
    case IBEX_DT_COMBINER_VECTOR:
    case IBEX_DT_COMBINER_HVECTOR: {
        ibex_dt_t *old = c->types[0];
        ptrdiff_t stride = c->na ? c->aints[0] : (ptrdiff_t)in[2] * old->extent;
        for (int i = 0; i < in[0]; i++)
            walk(w, old, base + i * stride, (size_t)in[1]);
        return;
    }
    case IBEX_DT_COMBINER_INDEXED:
    case IBEX_DT_COMBINER_HINDEXED:
    case IBEX_DT_COMBINER_INDEXED_BLOCK:
    case IBEX_DT_COMBINER_HINDEXED_BLOCK: {
        int comb = ibex_dt_priv(dt)->combiner, n = in[0];
        bool block =
            comb == IBEX_DT_COMBINER_INDEXED_BLOCK || comb == IBEX_DT_COMBINER_HINDEXED_BLOCK;
        const int *idisp = c->na ? NULL : in + 1 + (block ? 1 : n);
        ibex_dt_t *old = c->types[0];
        for (int i = 0; i < n; i++) {
            ptrdiff_t d = idisp ? (ptrdiff_t)idisp[i] * old->extent : c->aints[i];
            walk(w, old, base + d, (size_t)(block ? in[1] : in[1 + i]));
        }
        return;
    }
    case IBEX_DT_COMBINER_STRUCT:
        for (int i = 0; i < in[0]; i++)
            walk(w, c->types[i], base + c->aints[i], (size_t)in[1 + i]);
        return;
    default:
        w->err = MPI_ERR_TYPE; /* subarray / darray of mixed members */
    }
}

/* The pair types' members (value, then index). */
static bool pair_members(MPI_Datatype t, MPI_Datatype *a, MPI_Datatype *b)
{
    static const MPI_Datatype pairs[][3] = {
        {MPI_FLOAT_INT, MPI_FLOAT, MPI_INT},
        {MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT},
        {MPI_LONG_INT, MPI_LONG, MPI_INT},
        {MPI_2INT, MPI_INT, MPI_INT},
        {MPI_SHORT_INT, MPI_SHORT, MPI_INT},
        {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT},
        {MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER},
        {MPI_2REAL, MPI_REAL, MPI_REAL},
        {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (pairs[i][0] == t) {
            *a = pairs[i][1], *b = pairs[i][2];
            return true;
        }
    return false;
}

static void walk_one(ext_walk_t *w, const ibex_dt_t *dt, char *base)
{
    MPI_Datatype a, b;
    if (dt->basic_type >= 0 && !(dt->predefined && pair_members(dt->handle, &a, &b))) {
        size_t bsize = ibex_dt_get(dt->basic_type)->size;
        for (int i = 0; i < dt->nblocks && w->err == MPI_SUCCESS; i++)
            for (size_t k = 0; k + bsize <= dt->blocks[i].len; k += bsize)
                visit(w, dt->basic_type, base + dt->blocks[i].disp + (ptrdiff_t)k);
    } else if (dt->predefined && pair_members(dt->handle, &a, &b)) {
        visit(w, a, base + dt->blocks[0].disp);
        visit(w, b, base + dt->blocks[dt->nblocks - 1].disp);
    } else {
        walk_contents(w, dt, base);
    }
}

static void walk(ext_walk_t *w, const ibex_dt_t *dt, char *base, size_t count)
{
    for (size_t i = 0; i < count && w->err == MPI_SUCCESS; i++)
        walk_one(w, dt, base + (ptrdiff_t)i * dt->extent);
}

static int ext_check(const char *call, const char *datarep, int count, MPI_Datatype datatype,
                     ibex_dt_t **dt_p)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call,
                              "data representation \"%s\" (only "
                              "\"external32\" is defined)",
                              datarep ? datarep : "(null)");
    if (count < 0)
        return ibex_mpi_error(NULL, MPI_ERR_COUNT, call, "negative count %d", count);
    return ibex_dt_lookup(datatype, call, true, dt_p);
}

static int ext_size(const char *call, ibex_dt_t *dt, int count, size_t *bytes_p)
{
    ext_walk_t w = {.size_only = true};
    walk(&w, dt, NULL, (size_t)count);
    if (w.err != MPI_SUCCESS)
        return ibex_mpi_error(NULL, w.err, call,
                              "datatype %s has elements external32 does not support here "
                              "(long double, or a subarray / darray of mixed types)",
                              dt->name);
    *bytes_p = w.bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    IBEX_ENTER_ANYTIME(Pack_external_size);
    ibex_dt_t *dt = NULL;
    size_t bytes = 0;
    IBEX_CHECK(ext_check(call, datarep, incount, datatype, &dt));
    IBEX_ARGS(Pack_external_size, size);
    IBEX_CHECK(ext_size(call, dt, incount, &bytes));
    *size = (MPI_Aint)bytes;
    return MPI_SUCCESS;
}

/* Pack (pack = true) or unpack count elements at position of the external buffer. */
static int ext_move(const char *call, bool pack, char *native, int count, ibex_dt_t *dt, char *ext,
                    MPI_Aint extsize, MPI_Aint *position)
{
    size_t bytes = 0;
    if (!position)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "position is NULL");
    IBEX_CHECK(ext_size(call, dt, count, &bytes));
    if (*position < 0 || *position > extsize || bytes > (size_t)(extsize - *position))
        return ibex_mpi_error(NULL, MPI_ERR_TRUNCATE, call,
                              "%zu bytes do not fit at position %ld of a %ld-byte buffer", bytes,
                              (long)*position, (long)extsize);
    ext_walk_t w = {.pack = pack, .ext = ext + *position};
    walk(&w, dt, native, (size_t)count);
    *position += (MPI_Aint)w.bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    IBEX_ENTER_ANYTIME(Pack_external);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ext_check(call, datarep, incount, datatype, &dt));
    return ext_move(call, true, (char *)inbuf, incount, dt, outbuf, outsize, position);
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    IBEX_ENTER_ANYTIME(Unpack_external);
    ibex_dt_t *dt = NULL;
    IBEX_CHECK(ext_check(call, datarep, outcount, datatype, &dt));
    return ext_move(call, false, outbuf, outcount, dt, (char *)inbuf, insize, position);
}

IBEX_MPI_ALIASES(dt_external)
