/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reductions as MPICH's allred, allredmany, red3, red4, uoplong, redscat, redscat2, redscat3,
 * redscatblk3, scantst, exscan, exscan2 and reduce_local check them, each in blocking,
 * non-blocking and persistent form: Allreduce / Reduce (every root) / Reduce_scatter /
 * Reduce_scatter_block / Scan / Exscan with SUM, with a non-commutative user op (composition of
 * affine maps x -> a x + b mod 2^32, on a contiguous derived type: only rank order gives the
 * reference), with a commutative user op on a vector type with holes that must stay untouched, in
 * place where allowed, counts 0 to past the large-message algorithms; Reduce_local with the
 * non-commutative op; many small Allreduces back to back; a persistent Allreduce started three
 * times with new data. References are folded in the program in rank order.
 */
#include "conf_mode.h"

typedef struct {
    unsigned a, b;
} aff_t;

static MPI_Datatype aff_type, vec_type;

static aff_t aff_val(int r, int i)
{
    aff_t v = {2u * (unsigned)r + 3u + 5u * (unsigned)i, 7u * (unsigned)r + (unsigned)i + 1u};
    return v;
}

/* x first, then y */
static aff_t aff_comp(aff_t x, aff_t y)
{
    aff_t v = {x.a * y.a, x.b * y.a + y.b};
    return v;
}

static void aff_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    aff_t *x = in, *y = inout;

    if (*dt != aff_type) {
        fprintf(stderr, "affine op called with another datatype\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int k = 0; k < *len; k++)
        y[k] = aff_comp(x[k], y[k]);
}

/* The vector type: ints 0 and 2 of every 3 (extent 3 ints: MPI_Type_vector(2, 1, 2) spans 3). */
static void vsum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *x = in, *y = inout;

    if (*dt != vec_type) {
        fprintf(stderr, "vector op called with another datatype\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (int k = 0; k < *len; k++) {
        y[3 * k] += x[3 * k];
        y[3 * k + 2] += x[3 * k + 2];
    }
}

static void isum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *x = in, *y = inout;

    (void)dt;
    for (int k = 0; k < *len; k++)
        y[k] += x[k];
}

static MPI_Op aff_op, vsum_op, isum_op;
static const int counts[] = {0, 1, 5, 600};
#define NCOUNTS 4

/* Fold of ranks lo..hi-1 of element i (hi > lo). */
static aff_t aff_fold(int lo, int hi, int i)
{
    aff_t acc = aff_val(lo, i);

    for (int r = lo + 1; r < hi; r++)
        acc = aff_comp(acc, aff_val(r, i));
    return acc;
}

static int aff_eq(aff_t x, aff_t y)
{
    return x.a == y.a && x.b == y.b;
}

static void red_affine(MPI_Comm comm, const char *cn)
{
    int rank, size, n, i;
    aff_t *in, *out;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int k = 0; k < NCOUNTS; k++) {
        n = counts[k];
        in = conf_alloc(sizeof(aff_t) * n);
        out = conf_alloc(sizeof(aff_t) * n);
        for (i = 0; i < n; i++)
            in[i] = aff_val(rank, i);
        CONF_RUN(Allreduce, allreduce, in, out, n, aff_type, aff_op, comm);
        for (i = 0; i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, size, i))) {
                CHECK(0, "%s Allreduce(affine) n %d on %s: element %d", conf_mode_name[conf_mode],
                      n, cn, i);
                break;
            }
        memcpy(out, in, sizeof(aff_t) * n);
        CONF_RUN(Allreduce, allreduce, MPI_IN_PLACE, out, n, aff_type, aff_op, comm);
        for (i = 0; i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, size, i))) {
                CHECK(0, "%s Allreduce(affine, in place) n %d on %s: element %d",
                      conf_mode_name[conf_mode], n, cn, i);
                break;
            }
        for (int root = 0; root < size; root++) {
            memcpy(out, in, sizeof(aff_t) * n);
            if (root % 2)
                CONF_RUN(Reduce, reduce, rank == root ? MPI_IN_PLACE : in, out, n, aff_type, aff_op,
                         root, comm);
            else
                CONF_RUN(Reduce, reduce, in, out, n, aff_type, aff_op, root, comm);
            if (rank != root)
                continue;
            for (i = 0; i < n; i++)
                if (!aff_eq(out[i], aff_fold(0, size, i))) {
                    CHECK(0, "%s Reduce(affine) root %d n %d on %s: element %d",
                          conf_mode_name[conf_mode], root, n, cn, i);
                    break;
                }
        }
        CONF_RUN(Scan, scan, in, out, n, aff_type, aff_op, comm);
        for (i = 0; i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, rank + 1, i))) {
                CHECK(0, "%s Scan(affine) n %d on %s: element %d", conf_mode_name[conf_mode], n, cn,
                      i);
                break;
            }
        memcpy(out, in, sizeof(aff_t) * n);
        CONF_RUN(Scan, scan, MPI_IN_PLACE, out, n, aff_type, aff_op, comm);
        for (i = 0; i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, rank + 1, i))) {
                CHECK(0, "%s Scan(affine, in place) n %d on %s: element %d",
                      conf_mode_name[conf_mode], n, cn, i);
                break;
            }
        CONF_RUN(Exscan, exscan, in, out, n, aff_type, aff_op, comm);
        for (i = 0; rank > 0 && i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, rank, i))) {
                CHECK(0, "%s Exscan(affine) n %d on %s: element %d", conf_mode_name[conf_mode], n,
                      cn, i);
                break;
            }
        memcpy(out, in, sizeof(aff_t) * n);
        CONF_RUN(Exscan, exscan, MPI_IN_PLACE, out, n, aff_type, aff_op, comm);
        for (i = 0; rank > 0 && i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, rank, i))) {
                CHECK(0, "%s Exscan(affine, in place) n %d on %s: element %d",
                      conf_mode_name[conf_mode], n, cn, i);
                break;
            }
        free(in);
        free(out);
    }
}

/* Reduce_scatter (rank r gets r + n blocks... counts (r + k) % 3 * n: some zero) and
 * Reduce_scatter_block with the affine op and with SUM, in place and not (redscat, redscat2,
 * redscat3, redscatblk3). */
static void red_scatter(MPI_Comm comm, const char *cn)
{
    int rank, size, i, total, off, *rc;
    aff_t *in, *out;
    int *iin, *iout;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rc = conf_alloc(sizeof(int) * size);
    for (int k = 0; k < NCOUNTS; k++) {
        int n = counts[k];
        total = 0;
        for (i = 0; i < size; i++) {
            rc[i] = (i + k) % 3 * n;
            total += rc[i];
        }
        for (off = 0, i = 0; i < rank; i++)
            off += rc[i];
        in = conf_alloc(sizeof(aff_t) * total);
        out = conf_alloc(sizeof(aff_t) * total);
        iin = conf_alloc(sizeof(int) * (total + size * n));
        iout = conf_alloc(sizeof(int) * (total + size * n));
        for (i = 0; i < total; i++)
            in[i] = aff_val(rank, i);
        CONF_RUN(Reduce_scatter, reduce_scatter, in, out, rc, aff_type, aff_op, comm);
        for (i = 0; i < rc[rank]; i++)
            if (!aff_eq(out[i], aff_fold(0, size, off + i))) {
                CHECK(0, "%s Reduce_scatter(affine) n %d on %s: element %d",
                      conf_mode_name[conf_mode], n, cn, i);
                break;
            }
        memcpy(out, in, sizeof(aff_t) * total);
        CONF_RUN(Reduce_scatter, reduce_scatter, MPI_IN_PLACE, out, rc, aff_type, aff_op, comm);
        for (i = 0; i < rc[rank]; i++)
            if (!aff_eq(out[i], aff_fold(0, size, off + i))) {
                CHECK(0, "%s Reduce_scatter(affine, in place) n %d on %s: element %d",
                      conf_mode_name[conf_mode], n, cn, i);
                break;
            }
        free(in);
        free(out);
        in = conf_alloc(sizeof(aff_t) * size * n);
        out = conf_alloc(sizeof(aff_t) * size * n);
        for (i = 0; i < size * n; i++)
            in[i] = aff_val(rank, i);
        CONF_RUN(Reduce_scatter_block, reduce_scatter_block, in, out, n, aff_type, aff_op, comm);
        for (i = 0; i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, size, rank * n + i))) {
                CHECK(0, "%s Reduce_scatter_block(affine) n %d on %s: element %d",
                      conf_mode_name[conf_mode], n, cn, i);
                break;
            }
        memcpy(out, in, sizeof(aff_t) * size * n);
        CONF_RUN(Reduce_scatter_block, reduce_scatter_block, MPI_IN_PLACE, out, n, aff_type, aff_op,
                 comm);
        for (i = 0; i < n; i++)
            if (!aff_eq(out[i], aff_fold(0, size, rank * n + i))) {
                CHECK(0, "%s Reduce_scatter_block(affine, in place) n %d on %s: element %d",
                      conf_mode_name[conf_mode], n, cn, i);
                break;
            }
        /* SUM of ints: value rank * 1000 + i, so the sum is size * i + 1000 * size (size-1) / 2 */
        for (i = 0; i < size * n || i < total; i++)
            iin[i] = rank * 1000 + i;
        CONF_RUN(Reduce_scatter_block, reduce_scatter_block, iin, iout, n, MPI_INT, MPI_SUM, comm);
        for (i = 0; i < n; i++)
            CHECK(iout[i] == size * (rank * n + i) + 1000 * size * (size - 1) / 2,
                  "%s Reduce_scatter_block(SUM) n %d on %s: element %d = %d",
                  conf_mode_name[conf_mode], n, cn, i, iout[i]);
        CONF_RUN(Reduce_scatter, reduce_scatter, iin, iout, rc, MPI_INT, isum_op, comm);
        for (i = 0; i < rc[rank]; i++)
            CHECK(iout[i] == size * (off + i) + 1000 * size * (size - 1) / 2,
                  "%s Reduce_scatter(user SUM) n %d on %s: element %d = %d",
                  conf_mode_name[conf_mode], n, cn, i, iout[i]);
        free(in);
        free(out);
        free(iin);
        free(iout);
    }
    free(rc);
}

/* SUM and a commutative user op on a vector type (ints 0 and 2 of every 3); the holes (int 1)
 * of the receive buffer must stay as they were (red4 / coll with derived types). */
static void red_vector(MPI_Comm comm, const char *cn)
{
    int rank, size, i, n;
    int *in, *out;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int k = 0; k < NCOUNTS; k++) {
        n = counts[k];
        in = conf_alloc(sizeof(int) * 3 * n);
        out = conf_alloc(sizeof(int) * 3 * n);
        for (int pass = 0; pass < 4; pass++) {
            /* Predefined ops apply to predefined types only (MPI 4.1 6.9.2): a user op here,
             * and MPI_INT with SUM as the contiguous control. */
            MPI_Datatype dt = pass % 2 ? vec_type : MPI_INT;
            MPI_Op op = pass % 2 ? vsum_op : MPI_SUM;
            int m = pass % 2 ? n : 3 * n;
            int root = (pass / 2) ? size - 1 : -1;
            for (i = 0; i < 3 * n; i++) {
                in[i] = i % 3 == 1 && pass % 2 ? -7 : rank + i;
                out[i] = -1;
            }
            if (root < 0)
                CONF_RUN(Allreduce, allreduce, in, out, m, dt, op, comm);
            else
                CONF_RUN(Reduce, reduce, in, out, m, dt, op, root, comm);
            if (root >= 0 && rank != root)
                continue;
            for (i = 0; i < 3 * n; i++) {
                int want = i % 3 == 1 && pass % 2 ? -1 : size * i + size * (size - 1) / 2;
                if (out[i] != want) {
                    CHECK(0, "%s %s(vector, %s) n %d on %s: int %d = %d, expected %d",
                          conf_mode_name[conf_mode], root < 0 ? "Allreduce" : "Reduce",
                          pass % 2 ? "user op" : "SUM", n, cn, i, out[i], want);
                    break;
                }
            }
        }
        free(in);
        free(out);
    }
}

/* SUM of ints in every size up to past the large-message thresholds (allred, uoplong), also
 * with a commutative user op; Scan / Exscan SUM in place (scantst, exscan2). */
static void red_sum(MPI_Comm comm, const char *cn)
{
    static const int sizes[] = {0, 1, 2, 7, 100, 513, 4096, 20000};
    int rank, size, n, i;
    int *in, *out;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int k = 0; k < 8; k++) {
        n = sizes[k];
        in = conf_alloc(sizeof(int) * n);
        out = conf_alloc(sizeof(int) * n);
        for (int pass = 0; pass < 2; pass++) {
            for (i = 0; i < n; i++)
                in[i] = rank * 3 + i;
            CONF_RUN(Allreduce, allreduce, in, out, n, MPI_INT, pass ? isum_op : MPI_SUM, comm);
            for (i = 0; i < n; i++)
                if (out[i] != size * i + 3 * size * (size - 1) / 2) {
                    CHECK(0, "%s Allreduce(%s) n %d on %s: element %d", conf_mode_name[conf_mode],
                          pass ? "user" : "SUM", n, cn, i);
                    break;
                }
            memcpy(out, in, sizeof(int) * n);
            CONF_RUN(Scan, scan, MPI_IN_PLACE, out, n, MPI_INT, pass ? isum_op : MPI_SUM, comm);
            for (i = 0; i < n; i++)
                if (out[i] != (rank + 1) * i + 3 * rank * (rank + 1) / 2) {
                    CHECK(0, "%s Scan(%s, in place) n %d on %s: element %d",
                          conf_mode_name[conf_mode], pass ? "user" : "SUM", n, cn, i);
                    break;
                }
            CONF_RUN(Exscan, exscan, in, out, n, MPI_INT, pass ? isum_op : MPI_SUM, comm);
            for (i = 0; rank > 0 && i < n; i++)
                if (out[i] != rank * i + 3 * rank * (rank - 1) / 2) {
                    CHECK(0, "%s Exscan(%s) n %d on %s: element %d", conf_mode_name[conf_mode],
                          pass ? "user" : "SUM", n, cn, i);
                    break;
                }
        }
        free(in);
        free(out);
    }
}

/* allredmany: many small Allreduces in a row; a persistent one started three times with new
 * data each time; Reduce_local with the non-commutative op (inoutbuf = inbuf op inoutbuf). */
static void red_misc(MPI_Comm comm, const char *cn)
{
    int rank, size, v, s;
    aff_t a[3], b[3];

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int it = 0; it < 500; it++) {
        v = rank + it;
        MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, comm);
        CHECK(v == size * it + size * (size - 1) / 2, "Allreduce %d of many on %s: %d", it, cn, v);
        if (v != size * it + size * (size - 1) / 2)
            break;
    }
#if MPI_VERSION >= 4
    MPI_Request req;
    MPI_Allreduce_init(&v, &s, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req);
    for (int it = 0; it < 3; it++) {
        v = rank * (it + 1);
        s = -1;
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(s == (it + 1) * size * (size - 1) / 2, "persistent Allreduce start %d on %s: %d", it,
              cn, s);
    }
    MPI_Request_free(&req);
#endif
    for (int i = 0; i < 3; i++) {
        a[i] = aff_val(rank, i);
        b[i] = aff_val(rank + 1, i);
    }
    MPI_Reduce_local(a, b, 3, aff_type, aff_op);
    for (int i = 0; i < 3; i++)
        CHECK(aff_eq(b[i], aff_fold(rank, rank + 2, i)), "Reduce_local(affine) element %d", i);
    (void)s;
}

int main(int argc, char **argv)
{
    const char *cn;
    MPI_Comm comm;

    conf_init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &aff_type);
    MPI_Type_commit(&aff_type);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec_type);
    MPI_Type_commit(&vec_type);
    MPI_Op_create(aff_fn, 0, &aff_op);
    MPI_Op_create(vsum_fn, 1, &vsum_op);
    MPI_Op_create(isum_fn, 1, &isum_op);
    for (int ci = 0; ci < CONF_NCOMMS; ci++) {
        comm = conf_comm_get(ci, &cn);
        if (comm == MPI_COMM_NULL)
            continue;
        for (conf_mode = 0; conf_mode < CONF_NMODES; conf_mode++) {
            red_affine(comm, cn);
            red_scatter(comm, cn);
            red_vector(comm, cn);
            red_sum(comm, cn);
        }
        red_misc(comm, cn);
        MPI_Comm_free(&comm);
    }
    MPI_Op_free(&aff_op);
    MPI_Op_free(&vsum_op);
    MPI_Op_free(&isum_op);
    MPI_Type_free(&aff_type);
    MPI_Type_free(&vec_type);
    return conf_finish("conf_red");
}
