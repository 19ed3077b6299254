/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI 4.1 buffered-send buffers (section 3.6) beside the world model: a session's buffer
 * serves the communicators derived from the session (made from its process set, and their
 * duplicates and splits), a communicator's own buffer comes first, the process's last; proven
 * by buffers too small for the message (MPI_ERR_BUFFER) on the paths that must not be used.
 * MPI_BUFFER_AUTOMATIC for the process, a communicator and a session (many messages buffered
 * before any receive), the flush and iflush calls, detach results, error classes; the
 * deprecated MPI_Keyval_* / MPI_Attr_* calls. A ring:
 * each rank Bsends to the next and receives from the previous, values checked. Standard MPI.
 */
#include "mpitest.h"

#define BIG   (64 * 1024)
#define SMALL (4 * 1024)

static int rank, size, next, prev;
static MPI_Session sess = MPI_SESSION_NULL;

static int cls(int rc)
{
    int c = MPI_SUCCESS;
    MPI_Error_class(rc, &c);
    return c;
}

/* One Bsend of n ints around the ring on comm, value base + i; MPI_SUCCESS or its class. */
static int ring_bsend(MPI_Comm comm, int n, int base)
{
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    int crank, csize;
    CHECK(out && in);
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    for (int i = 0; i < n; i++)
        out[i] = base + crank * 1000003 + i;
    int rc = MPI_Bsend(out, n, MPI_INT, (crank + 1) % csize, 5, comm);
    free(out); /* Bsend copied it */
    int ok = rc == MPI_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    CHECK(all == ok); /* every rank has the same buffers: all fail or none */
    if (ok) {
        int from = (crank + csize - 1) % csize;
        CHECK_RC(MPI_Recv(in, n, MPI_INT, from, 5, comm, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            CHECK(in[i] == base + from * 1000003 + i);
        /* the space is free again only once the message has left (the flushes say so) */
        CHECK_RC(MPI_Buffer_flush());
        CHECK_RC(MPI_Comm_flush_buffer(comm));
        CHECK_RC(MPI_Session_flush_buffer(sess));
    }
    free(in);
    return cls(rc);
}

static void *attach_size(int ints, int *bytes)
{
    *bytes = (int)(ints * sizeof(int)) + MPI_BSEND_OVERHEAD;
    void *p = malloc((size_t)*bytes);
    CHECK(p != NULL);
    return p;
}

/* comm buffer, then session buffer, then process buffer */
static void lookup_order(MPI_Session s, MPI_Comm scomm)
{
    int nbig, nsmall, n;
    void *big = attach_size(BIG, &nbig), *small = attach_size(SMALL, &nsmall), *got;
    void *small2 = attach_size(SMALL, &n);
    CHECK_RC(MPI_Buffer_attach(small, nsmall));
    CHECK_RC(MPI_Session_attach_buffer(s, big, nbig));
    CHECK(ring_bsend(scomm, BIG, 1) == MPI_SUCCESS); /* the session's */
    MPI_Comm dup, split;
    CHECK_RC(MPI_Comm_dup(scomm, &dup));
    CHECK(ring_bsend(dup, BIG, 2) == MPI_SUCCESS); /* derived: the session's too */
    CHECK_RC(MPI_Comm_split(dup, 0, size - rank, &split));
    CHECK(ring_bsend(split, BIG, 3) == MPI_SUCCESS);
    /* the world model's communicators use the process's (too small) */
    CHECK(ring_bsend(MPI_COMM_WORLD, BIG, 4) == MPI_ERR_BUFFER);
    CHECK(ring_bsend(MPI_COMM_WORLD, SMALL, 5) == MPI_SUCCESS);
    CHECK_RC(MPI_Comm_attach_buffer(dup, small2, n)); /* the communicator's first */
    CHECK(ring_bsend(dup, BIG, 6) == MPI_ERR_BUFFER);
    CHECK(ring_bsend(dup, SMALL, 7) == MPI_SUCCESS);
    CHECK_RC(MPI_Comm_flush_buffer(dup));
    CHECK_RC(MPI_Comm_detach_buffer(dup, &got, &n));
    CHECK(got == small2);
    CHECK(ring_bsend(dup, BIG, 8) == MPI_SUCCESS); /* the session's again */
    CHECK_RC(MPI_Session_flush_buffer(s));
    MPI_Count nc = 0;
    CHECK_RC(MPI_Session_detach_buffer_c(s, &got, &nc));
    CHECK(got == big && nc == nbig);
    CHECK(ring_bsend(dup, BIG, 9) == MPI_ERR_BUFFER); /* now the process's, too small */
    CHECK_RC(MPI_Buffer_detach(&got, &n));
    CHECK(got == small && n == nsmall);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    free(big);
    free(small);
    free(small2);
}

/* MPI_BUFFER_AUTOMATIC: 50 messages of 16 KiB buffered before the first receive. */
static void automatic_on(MPI_Comm comm, const char *what)
{
    enum { M = 50, L = 4096 };
    int *out = malloc(sizeof(int) * L), *in = malloc(sizeof(int) * L);
    CHECK(out && in);
    for (int k = 0; k < M; k++) {
        for (int i = 0; i < L; i++)
            out[i] = k * L + i + rank;
        CHECK_RC(MPI_Bsend(out, L, MPI_INT, next, 6, comm));
    }
    MPI_Barrier(comm); /* every message sits in a buffer or in flight */
    for (int k = 0; k < M; k++) {
        CHECK_RC(MPI_Recv(in, L, MPI_INT, prev, 6, comm, MPI_STATUS_IGNORE));
        for (int i = 0; i < L; i++)
            CHECK(in[i] == k * L + i + prev);
    }
    (void)what;
    free(out);
    free(in);
}

static void automatic(MPI_Session s, MPI_Comm scomm)
{
    void *got = NULL;
    int n = -1;
    MPI_Request r;
    CHECK_RC(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    automatic_on(MPI_COMM_WORLD, "process");
    CHECK_RC(MPI_Buffer_iflush(&r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Buffer_detach(&got, &n));
    CHECK(got == MPI_BUFFER_AUTOMATIC && n == 0);
    CHECK_RC(MPI_Comm_attach_buffer(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, 12345));
    automatic_on(MPI_COMM_WORLD, "communicator");
    CHECK_RC(MPI_Comm_iflush_buffer(MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &got, &n));
    CHECK(got == MPI_BUFFER_AUTOMATIC && n == 0);
    CHECK_RC(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    automatic_on(scomm, "session");
    CHECK_RC(MPI_Session_iflush_buffer(s, &r));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Session_detach_buffer(s, &got, &n));
    CHECK(got == MPI_BUFFER_AUTOMATIC && n == 0);
    /* left attached: MPI_Session_finalize flushes and detaches it */
    CHECK_RC(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    automatic_on(scomm, "session");
}

static void errors(MPI_Session s)
{
    void *got;
    int n, nb;
    MPI_Request r;
    void *b = attach_size(16, &nb);
    CHECK(cls(MPI_Session_detach_buffer(s, &got, &n)) == MPI_ERR_BUFFER);
    CHECK_RC(MPI_Session_attach_buffer(s, b, nb));
    CHECK(cls(MPI_Session_attach_buffer(s, b, nb)) == MPI_ERR_BUFFER);
    CHECK(cls(MPI_Session_detach_buffer(s, NULL, &n)) == MPI_ERR_ARG);
    CHECK(cls(MPI_Session_iflush_buffer(s, NULL)) == MPI_ERR_ARG);
    CHECK_RC(MPI_Session_detach_buffer(s, &got, &n));
    CHECK(got == b && n == nb);
    CHECK(cls(MPI_Session_attach_buffer(s, b, -1)) == MPI_ERR_BUFFER);
    CHECK(cls(MPI_Session_attach_buffer(MPI_SESSION_NULL, b, nb)) == MPI_ERR_SESSION);
    CHECK(cls(MPI_Session_flush_buffer(MPI_SESSION_NULL)) == MPI_ERR_SESSION);
    CHECK(cls(MPI_Session_iflush_buffer(MPI_SESSION_NULL, &r)) == MPI_ERR_SESSION);
    CHECK(cls(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &got, &n)) == MPI_ERR_BUFFER);
    CHECK_RC(MPI_Session_flush_buffer(s)); /* nothing attached: nothing to do */
    free(b);
}

/* The MPI-2.0-deprecated attribute calls (still in MPI 4.1) and window handle conversion. */
static void deprecated_attrs(void)
{
    int key = MPI_KEYVAL_INVALID, flag = 0, *tag_ub = NULL, val = 42, *got = NULL;
    MPI_Comm dup;
    CHECK_RC(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &key, NULL));
    CHECK_RC(MPI_Attr_put(MPI_COMM_WORLD, key, &val));
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag));
    CHECK(flag && got == &val);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup)); /* MPI_DUP_FN copies the value */
    CHECK_RC(MPI_Comm_get_attr(dup, key, &got, &flag));
    CHECK(flag && got == &val);
    MPI_Comm_free(&dup);
    CHECK_RC(MPI_Attr_delete(MPI_COMM_WORLD, key));
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, key, &got, &flag));
    CHECK(!flag);
    CHECK_RC(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID);
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767);
    CHECK(cls(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, &val)) == MPI_ERR_KEYVAL);
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL);
}

int main(int argc, char **argv)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm scomm;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    sess = s;
    CHECK_RC(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    CHECK_RC(MPI_Comm_create_from_group(g, "ibex.test.buf_session", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &scomm));
    MPI_Group_free(&g);
    deprecated_attrs();
    lookup_order(s, scomm);
    errors(s);
    automatic(s, scomm);
    MPI_Comm_free(&scomm);
    CHECK_RC(MPI_Session_finalize(&s));
    mt_done("buf_session");
    MPI_Finalize();
    return 0;
}
