/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Errors and requests (standard MPI only): user error classes, codes and strings with
 * MPI_LASTUSEDCODE following them, Error_class / Error_string of user codes, the MPI 4.1
 * Remove_error_* calls; generalized requests through Wait, Test, Waitall, Request_get_status,
 * Request_free and Cancel with their callbacks counted; the MPI 4.1 Request_get_status_any /
 * all / some on receives that complete; MPI_Buffer_flush.
 */
#include "mpitest.h"

static int wrank, wsize;

static int ecls(int rc)
{
    int c = rc;
    MPI_Error_class(rc, &c);
    return c;
}

static int lastused(void)
{
    int *v, flag;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag);
    return *v;
}

static void check_errors(void)
{
    int cls, code, code2, c, len;
    char s[MPI_MAX_ERROR_STRING];
    int before = lastused();
    CHECK_RC(MPI_Add_error_class(&cls));
    CHECK(cls > before && lastused() >= cls);
    CHECK_RC(MPI_Add_error_code(cls, &code));
    CHECK_RC(MPI_Add_error_code(MPI_ERR_ARG, &code2));
    CHECK(code != cls && code2 != cls);
#ifdef IBEX_MPI_H /* MPICH encodes codes above MPI_LASTUSEDCODE */
    CHECK(lastused() >= code && lastused() >= code2);
#endif
    CHECK_RC(MPI_Error_class(code, &c));
    CHECK(c == cls);
    CHECK_RC(MPI_Error_class(code2, &c));
    CHECK(c == MPI_ERR_ARG);
    CHECK_RC(MPI_Error_class(cls, &c));
    CHECK(c == cls);
    CHECK_RC(MPI_Error_string(code, s, &len));
    CHECK(len == 0 && s[0] == '\0'); /* no string yet: empty */
    CHECK_RC(MPI_Add_error_string(code, "my code"));
    CHECK_RC(MPI_Add_error_string(cls, "my class"));
    CHECK_RC(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "my code") == 0 && len == 7);
    CHECK_RC(MPI_Add_error_string(code, "changed"));
    CHECK_RC(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "changed") == 0);
    /* a user code through an error handler: MPI_ERRORS_RETURN gives it back */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code) == MPI_SUCCESS);
#if defined(IBEX_MPI_H) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    CHECK(ecls(MPI_Remove_error_class(cls)) == MPI_ERR_ARG); /* still has a code */
    CHECK_RC(MPI_Remove_error_string(code));
    CHECK_RC(MPI_Error_string(code, s, &len));
    CHECK(len == 0);
    CHECK_RC(MPI_Remove_error_code(code));
    CHECK_RC(MPI_Remove_error_code(code2));
    CHECK_RC(MPI_Remove_error_class(cls));
    CHECK(ecls(MPI_Remove_error_code(code)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Remove_error_class(MPI_ERR_ARG)) == MPI_ERR_ARG); /* predefined */
    /* many rounds of adding and removing (each removal once scanned every number ever added:
     * MPICH's adderr, 10,000 rounds of 32 classes, took hours), a class refused while any of
     * its codes is left, in whatever order they go */
    for (int round = 0; round < 3000; round++) {
        int k[8], kc[8][3];
        for (int i = 0; i < 8; i++) {
            CHECK_RC(MPI_Add_error_class(&k[i]));
            for (int j = 0; j < 3; j++)
                CHECK_RC(MPI_Add_error_code(k[i], &kc[i][j]));
        }
        for (int i = 0; i < 8; i++) {
            for (int j = (round + i) % 3, n = 0; n < 3; j = (j + 1) % 3, n++) {
                CHECK(ecls(MPI_Remove_error_class(k[i])) == MPI_ERR_ARG);
                CHECK_RC(MPI_Remove_error_code(kc[i][j]));
            }
            CHECK_RC(MPI_Remove_error_class(k[i]));
        }
    }
#endif
#ifdef IBEX_MPI_H /* the standard names no class for these */
    CHECK(ecls(MPI_Add_error_code(-5, &c)) == MPI_ERR_ARG);
    CHECK(ecls(MPI_Add_error_string(MPI_ERR_ARG, "no")) == MPI_ERR_ARG);
#endif
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- generalized requests ---- */
typedef struct state {
    int queries, frees, cancels, last_complete;
    int source;
} state_t;

static int query_fn(void *extra, MPI_Status *status)
{
    state_t *s = extra;
    s->queries++;
    MPI_Status_set_elements(status, MPI_BYTE, 12);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = s->source;
    status->MPI_TAG = 77;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    ((state_t *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    state_t *s = extra;
    s->cancels++;
    s->last_complete = complete;
    return MPI_SUCCESS;
}

static void check_grequests(void)
{
    state_t s = {0, 0, 0, -1, 5};
    MPI_Request r, rs[2];
    MPI_Status st;
    int flag, count;
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
    CHECK_RC(MPI_Test(&r, &flag, &st));
    CHECK(!flag && s.queries == 0);
    CHECK_RC(MPI_Cancel(&r));
    CHECK(s.cancels == 1 && s.last_complete == 0);
    CHECK_RC(MPI_Grequest_complete(r));
    CHECK_RC(MPI_Request_get_status(r, &flag, &st)); /* reports, frees nothing */
    CHECK(flag && s.queries == 1 && s.frees == 0 && st.MPI_SOURCE == 5 && st.MPI_TAG == 77);
    CHECK_RC(MPI_Wait(&r, &st));
    CHECK(r == MPI_REQUEST_NULL && s.queries == 2 && s.frees == 1);
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 12);
    /* two at once under Waitall; one freed before it completes */
    state_t a = {0, 0, 0, -1, 1}, b = {0, 0, 0, -1, 2};
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, &rs[0]));
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &b, &rs[1]));
    CHECK_RC(MPI_Grequest_complete(rs[1]));
    CHECK_RC(MPI_Grequest_complete(rs[0]));
    MPI_Status sts[2];
    CHECK_RC(MPI_Waitall(2, rs, sts));
    CHECK(sts[0].MPI_SOURCE == 1 && sts[1].MPI_SOURCE == 2 && a.frees == 1 && b.frees == 1);
    state_t c = {0, 0, 0, -1, 3};
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c, &r));
    MPI_Request keep = r;
    CHECK_RC(MPI_Request_free(&r));
#ifdef IBEX_MPI_H /* MPICH calls free_fn here already */
    CHECK(c.frees == 0);
#endif
    CHECK_RC(MPI_Grequest_complete(keep)); /* freed by the program: free_fn now */
    CHECK(c.frees == 1 && c.queries == 0);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
#ifdef IBEX_MPI_H
    CHECK(ecls(MPI_Grequest_complete(MPI_REQUEST_NULL)) == MPI_ERR_REQUEST);
    CHECK(ecls(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c, NULL)) == MPI_ERR_ARG);
#endif
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* ---- MPI 4.1 status queries ---- */
static void check_get_status(void)
{
#if defined(IBEX_MPI_H) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    int right = (wrank + 1) % wsize, left = (wrank + wsize - 1) % wsize, in[2] = {-1, -1};
    int out[2] = {wrank, wrank + 100}, flag = 0, index = -1, outcount = -1, idx[3];
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[3];
    CHECK_RC(MPI_Request_get_status_any(3, r, &index, &flag, &st[0]));
    CHECK(flag && index == MPI_UNDEFINED); /* all inactive */
    CHECK_RC(MPI_Request_get_status_some(3, r, &outcount, idx, st));
    CHECK(outcount == MPI_UNDEFINED);
    CHECK_RC(MPI_Irecv(&in[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r[0]));
    CHECK_RC(MPI_Irecv(&in[1], 1, MPI_INT, left, 2, MPI_COMM_WORLD, &r[2]));
    CHECK_RC(MPI_Send(&out[0], 1, MPI_INT, right, 1, MPI_COMM_WORLD));
    do /* the first receive completes; nothing is freed by asking */
        CHECK_RC(MPI_Request_get_status_any(3, r, &index, &flag, &st[0]));
    while (!flag);
    CHECK(index == 0 && st[0].MPI_SOURCE == left && st[0].MPI_TAG == 1 && r[0] != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Request_get_status_all(3, r, &flag, st));
    CHECK(!flag); /* the second is still pending */
    CHECK_RC(MPI_Request_get_status_some(3, r, &outcount, idx, st));
    CHECK(outcount == 1 && idx[0] == 0);
    mt_barrier(MPI_COMM_WORLD); /* no one sends tag 2 before every rank checked the above */
    CHECK_RC(MPI_Send(&out[1], 1, MPI_INT, right, 2, MPI_COMM_WORLD));
    do
        CHECK_RC(MPI_Request_get_status_all(3, r, &flag, st));
    while (!flag);
    CHECK(st[0].MPI_TAG == 1 && st[2].MPI_TAG == 2 && st[1].MPI_TAG == MPI_ANY_TAG);
    CHECK(r[0] != MPI_REQUEST_NULL && r[2] != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK(in[0] == left && in[1] == left + 100);
#endif
}

static void check_buffer_flush(void)
{
#if defined(IBEX_MPI_H) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    static char buf[1 << 16];
    int right = (wrank + 1) % wsize, left = (wrank + wsize - 1) % wsize, v = wrank, got = -1;
    MPI_Request r;
    CHECK_RC(MPI_Buffer_attach(buf, sizeof(buf)));
    CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r));
    CHECK_RC(MPI_Bsend(&v, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
    CHECK_RC(MPI_Buffer_flush()); /* every buffered message is on its way */
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(got == left);
    MPI_Request fr;
    CHECK_RC(MPI_Buffer_iflush(&fr));
    CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    void *b;
    int size;
    CHECK_RC(MPI_Buffer_detach(&b, &size));
    CHECK(b == buf);
    /* a communicator's own buffer (4.1): Bsend on it works with no process buffer */
    static char cbuf[1 << 16];
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CHECK_RC(MPI_Comm_attach_buffer(d, cbuf, sizeof(cbuf)));
    got = -1;
    CHECK_RC(MPI_Irecv(&got, 1, MPI_INT, left, 10, d, &r));
    CHECK_RC(MPI_Bsend(&v, 1, MPI_INT, right, 10, d));
    CHECK_RC(MPI_Comm_flush_buffer(d));
    CHECK_RC(MPI_Comm_iflush_buffer(d, &fr));
    CHECK_RC(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(got == left);
    CHECK_RC(MPI_Comm_detach_buffer(d, &b, &size));
    CHECK(b == cbuf && size > 0);
    CHECK_RC(MPI_Comm_free(&d));
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    check_errors();
    check_grequests();
    check_get_status();
    check_buffer_flush();
    mt_barrier(MPI_COMM_WORLD);
    mt_done("err_req");
    MPI_Finalize();
    return 0;
}
