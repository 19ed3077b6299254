/* Sessions, written against MPI 4.1: two sessions at once, process sets and their info,
 * groups and communicators from them (tags), intercommunicators from groups, session error
 * handlers, sessions beside MPI_Init. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, wrank = -1;
#include "conf_check.h"

static int handler_calls, handler_code;
static void sess_handler(MPI_Session *s, int *code, ...)
{
    (void)s;
    handler_calls++;
    handler_code = *code;
}

/* Every process set: names by the length protocol, mpi_size in its info. */
static void psets(MPI_Session s, int *world_found, int *self_found)
{
    int n, i;
    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    CHECK(n >= 2, "num_psets %d", n);
    for (i = 0; i < n; i++) {
        int len = 0, flag;
        char *name, size[32];
        MPI_Info info;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        CHECK(len > 0, "pset %d length %d", i, len);
        name = malloc(len);
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
        CHECK((int)strlen(name) == len - 1, "pset %d name %s len %d", i, name, len);
        MPI_Session_get_pset_info(s, name, &info);
        MPI_Info_get(info, "mpi_size", sizeof size - 1, size, &flag);
        CHECK(flag, "pset %s has no mpi_size", name);
        if (strcmp(name, "mpi://WORLD") == 0)
            *world_found = flag ? atoi(size) : -1;
        if (strcmp(name, "mpi://SELF") == 0)
            *self_found = flag ? atoi(size) : -1;
        MPI_Info_free(&info);
        free(name);
    }
}

static MPI_Comm comm_from(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Group_from_session_pset(s, pset, &g);
    MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group_free(&g);
    return c;
}

static void check_comm(MPI_Comm c, int want_size)
{
    int size, rank, sum = 0;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    CHECK(size == want_size, "comm size %d want %d", size, want_size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
}

static void inter_from_groups(MPI_Session s, int wsize, int rank)
{
    MPI_Group wg, lg, rg;
    MPI_Comm ic;
    int half = wsize / 2, range[1][3], lsize, rsize, flag;
    if (wsize < 2)
        return;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &wg);
    range[0][0] = 0, range[0][1] = half - 1, range[0][2] = 1;
    MPI_Group_range_incl(wg, 1, range, rank < half ? &lg : &rg);
    range[0][0] = half, range[0][1] = wsize - 1;
    MPI_Group_range_incl(wg, 1, range, rank < half ? &rg : &lg);
    MPI_Intercomm_create_from_groups(lg, 0, rg, 0, "conf.session.inter", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &ic);
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    CHECK(flag && lsize == (rank < half ? half : wsize - half) && lsize + rsize == wsize,
          "inter from groups: %d %d", lsize, rsize);
    {
        int v = rank, got = -1, lr;
        MPI_Comm_rank(ic, &lr);
        if (lr == 0) {
            MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE);
            CHECK(got == (rank < half ? half : 0), "inter leaders got %d", got);
        }
    }
    MPI_Comm_free(&ic);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
}

static void errhandlers(MPI_Session s)
{
    MPI_Errhandler eh, got;

    MPI_Session_create_errhandler(sess_handler, &eh);
    MPI_Session_set_errhandler(s, eh);
    MPI_Session_get_errhandler(s, &got);
    CHECK(got == eh, "get_errhandler differs");
    MPI_Errhandler_free(&got);
    MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "call_errhandler: %d calls",
          handler_calls);
#ifndef MPICH /* MPICH 4.0 raises this error on MPI_COMM_WORLD's handler (fatal) */
    /* an error in a call on the session goes to its handler */
    {
        MPI_Group g = MPI_GROUP_NULL;
        int rc = MPI_Group_from_session_pset(s, "mpi://no-such-set", &g);
        CHECK(rc != MPI_SUCCESS && handler_calls == 2, "bad pset: rc %d calls %d", rc,
              handler_calls);
    }
#endif
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
}

int main(int argc, char **argv)
{
    MPI_Session s1, s2;
    MPI_Info info, got;
    MPI_Comm c1, c2, c3;
    int wsize = -1, self = -1, flag, rank, tot, inited;
    char v[64];
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE");
    MPI_Session_init(info, MPI_ERRORS_RETURN, &s1);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
    MPI_Info_free(&info);
    MPI_Initialized(&inited);
    CHECK(!inited, "session init made MPI initialized");
    psets(s1, &wsize, &self);
    CHECK(wsize >= 1 && self == 1, "WORLD %d SELF %d", wsize, self);
    MPI_Session_get_info(s1, &got);
    MPI_Info_get(got, "thread_level", sizeof v - 1, v, &flag);
    CHECK(flag && strncmp(v, "MPI_THREAD_", 11) == 0, "session thread_level %s", flag ? v : "-");
    MPI_Info_free(&got);
    c1 = comm_from(s1, "mpi://WORLD", "org.conf.world1");
    c2 = comm_from(s2, "mpi://WORLD", "org.conf.world2");
    c3 = comm_from(s1, "mpi://SELF", "org.conf.self");
    MPI_Comm_rank(c1, &rank);
    wrank = rank;
    check_comm(c1, wsize);
    check_comm(c2, wsize);
    check_comm(c3, 1);
    {
        int r2;
        MPI_Comm_rank(c2, &r2);
        CHECK(r2 == rank, "ranks differ across sessions");
    }
    inter_from_groups(s1, wsize, rank);
    errhandlers(s2);
    /* the world model beside the sessions */
    MPI_Init(&argc, &argv);
    {
        int ws, wr;
        MPI_Comm_size(MPI_COMM_WORLD, &ws);
        MPI_Comm_rank(MPI_COMM_WORLD, &wr);
        CHECK(ws == wsize && wr == rank, "world %d/%d session %d/%d", wr, ws, rank, wsize);
    }
    MPI_Comm_free(&c3);
    MPI_Comm_free(&c2);
    MPI_Session_finalize(&s2);
    CHECK(s2 == MPI_SESSION_NULL, "session finalize did not null");
    MPI_Allreduce(&errs, &tot, 1, MPI_INT, MPI_SUM, c1);
    MPI_Comm_free(&c1);
    MPI_Finalize();
    /* a session can still be used after MPI_Finalize */
    {
        MPI_Comm c4 = comm_from(s1, "mpi://WORLD", "org.conf.after");
        check_comm(c4, wsize);
        MPI_Comm_free(&c4);
    }
    MPI_Session_finalize(&s1);
    if (rank == 0 && tot == 0 && errs == 0)
        printf("conf_session: ok\n");
    return tot != 0 || errs != 0;
}
