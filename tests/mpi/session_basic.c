/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sessions (MPI 4.1 section 11.3) next to the world model: a session started and finalized
 * before MPI_Init (the engine starts and stops), a second one that lives across MPI_Init and
 * MPI_Finalize, and a third started after MPI_Finalize; process sets, their info and groups;
 * communicators and intercommunicators from groups carrying traffic checked against values
 * computed here; session info, error handlers and error classes; then many stops and starts
 * of the engine in a row, each with traffic (the engine's restart). With the argument
 * "startfail" (run under a bad setting): MPI_Session_init fails and returns its error to the
 * session's MPI_ERRORS_RETURN instead of ending the job. Standard MPI only.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me = -1;

/* MPI_COMM_WORLD is not there in a session-only phase: report on our own. */
#define SCHECK(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL rank %d %s:%d: %s\n", me, __FILE__, __LINE__, #cond);            \
            fflush(stderr);                                                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define SCHECK_RC(call) SCHECK((call) == MPI_SUCCESS)

static int handler_calls, handler_code;

static void session_handler(MPI_Session *s, int *code, ...)
{
    (void)s;
    handler_calls++;
    handler_code = *code;
}

static void check_psets(MPI_Session s)
{
    int n = 0, len = 0;
    char name[MPI_MAX_PSET_NAME_LEN];
    SCHECK_RC(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    SCHECK(n >= 2);
    int world = 0, self = 0;
    for (int i = 0; i < n; i++) {
        len = 0; /* asks for the length only */
        SCHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        SCHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN);
        int full = len;
        SCHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        SCHECK(len == full && (int)strlen(name) == full - 1);
        world += strcmp(name, "mpi://WORLD") == 0;
        self += strcmp(name, "mpi://SELF") == 0;
        char shortname[4];
        len = sizeof(shortname);
        SCHECK_RC(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, shortname));
        SCHECK(strlen(shortname) == 3 && strncmp(shortname, name, 3) == 0);
    }
    SCHECK(world == 1 && self == 1);
}

static int pset_size(MPI_Session s, const char *pset)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int len = sizeof(value), flag = 0;
    SCHECK_RC(MPI_Session_get_pset_info(s, pset, &info));
    SCHECK_RC(MPI_Info_get_string(info, "mpi_size", &len, value, &flag));
    SCHECK(flag);
    SCHECK_RC(MPI_Info_free(&info));
    return atoi(value);
}

/* A communicator over mpi://WORLD: its ranks are the world's; a ring and an allreduce. */
static MPI_Comm world_comm(MPI_Session s, const char *tag, int *size_p)
{
    MPI_Group g;
    MPI_Comm c;
    int size, rank, gsize;
    SCHECK_RC(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    SCHECK_RC(MPI_Group_size(g, &gsize));
    SCHECK_RC(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    SCHECK_RC(MPI_Group_free(&g));
    SCHECK_RC(MPI_Comm_size(c, &size));
    SCHECK_RC(MPI_Comm_rank(c, &rank));
    SCHECK(size == gsize && size == pset_size(s, "mpi://WORLD"));
    int sum = 0, right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    SCHECK_RC(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    SCHECK(sum == size * (size - 1) / 2);
    SCHECK_RC(
        MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE));
    SCHECK(got == left);
    *size_p = size;
    me = rank;
    return c;
}

/* mpi://SELF: a communicator of one. */
static void self_comm(MPI_Session s)
{
    MPI_Group g;
    MPI_Comm c;
    int size, v = 41, w = 0;
    SCHECK(pset_size(s, "mpi://SELF") == 1);
    SCHECK_RC(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
    SCHECK_RC(MPI_Comm_create_from_group(g, "self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    SCHECK_RC(MPI_Comm_size(c, &size));
    SCHECK(size == 1);
    SCHECK_RC(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, c));
    SCHECK(w == 41);
    SCHECK_RC(MPI_Comm_free(&c));
    SCHECK_RC(MPI_Group_free(&g));
}

/* Even and odd ranks of c as two groups joined by an intercommunicator; leaders 0 and 1. */
static void inter_from_groups(MPI_Session s, MPI_Comm c, int size)
{
    if (size < 2)
        return;
    MPI_Group all, even, odd, mine, other;
    int rank, ne = (size + 1) / 2, no = size / 2, rsize, rrank;
    int range_e[1][3] = {{0, size - 1, 2}}, range_o[1][3] = {{1, size - 1, 2}};
    SCHECK_RC(MPI_Comm_rank(c, &rank));
    SCHECK_RC(MPI_Group_from_session_pset(s, "mpi://WORLD", &all));
    SCHECK_RC(MPI_Group_range_incl(all, 1, range_e, &even));
    SCHECK_RC(MPI_Group_range_incl(all, 1, range_o, &odd));
    mine = rank % 2 ? odd : even;
    other = rank % 2 ? even : odd;
    MPI_Comm inter;
    SCHECK_RC(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "ibex.test.inter", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &inter));
    int flag = 0;
    SCHECK_RC(MPI_Comm_test_inter(inter, &flag));
    SCHECK(flag);
    SCHECK_RC(MPI_Comm_remote_size(inter, &rsize));
    SCHECK(rsize == (rank % 2 ? ne : no));
    SCHECK_RC(MPI_Comm_rank(inter, &rrank));
    SCHECK(rrank == rank / 2);
    /* local rank i talks to remote rank i when both exist: the value is the world rank */
    if (rrank < rsize) {
        int got = -1;
        SCHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, rrank, 3, &got, 1, MPI_INT, rrank, 3, inter,
                               MPI_STATUS_IGNORE));
        SCHECK(got == (rank % 2 ? rank - 1 : rank + 1));
    }
    SCHECK_RC(MPI_Comm_free(&inter));
    SCHECK_RC(MPI_Group_free(&all));
    SCHECK_RC(MPI_Group_free(&even));
    SCHECK_RC(MPI_Group_free(&odd));
}

/* The session's "thread_level" in its info is want. */
static void check_level(MPI_Session s, const char *want)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int len = sizeof(value), flag = 0;
    SCHECK_RC(MPI_Session_get_info(s, &info));
    SCHECK_RC(MPI_Info_get_string(info, "thread_level", &len, value, &flag));
    SCHECK(flag && strcmp(value, want) == 0);
    SCHECK_RC(MPI_Info_free(&info));
}

static void check_info_and_errors(MPI_Session s)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int len = sizeof(value), flag = 0;
    SCHECK_RC(MPI_Session_get_info(s, &info));
    SCHECK_RC(MPI_Info_get_string(info, "thread_level", &len, value, &flag));
    SCHECK(flag && strncmp(value, "MPI_THREAD_", 11) == 0);
    SCHECK_RC(MPI_Info_free(&info));
    MPI_Group g = MPI_GROUP_NULL;
    SCHECK(MPI_Group_from_session_pset(s, "mpi://NO_SUCH_SET", &g) == MPI_ERR_ARG);
    SCHECK(g == MPI_GROUP_NULL);
    int n = 0;
    SCHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &n, NULL) == MPI_ERR_ARG);
    MPI_Errhandler eh, got;
    SCHECK_RC(MPI_Session_create_errhandler(session_handler, &eh));
    SCHECK_RC(MPI_Session_set_errhandler(s, eh));
    SCHECK_RC(MPI_Session_get_errhandler(s, &got));
    SCHECK(got == eh);
    SCHECK_RC(MPI_Errhandler_free(&got));
    SCHECK_RC(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    SCHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER);
    SCHECK(MPI_Group_from_session_pset(s, "nope", &g) == MPI_ERR_ARG);
    SCHECK(handler_calls == 2 && handler_code == MPI_ERR_ARG);
    SCHECK_RC(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    SCHECK_RC(MPI_Errhandler_free(&eh));
}

/* Stop and start the engine many times in a row, every rank at once, with traffic each time:
 * a start must never mix with the previous stop (addresses, fences). */
static void restart_rounds(int rounds)
{
    for (int r = 0; r < rounds; r++) {
        MPI_Session s;
        int size;
        SCHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
        MPI_Comm c = world_comm(s, "restart", &size);
        int right = (me + 1) % size, left = (me + size - 1) % size, got = -1, tag = r;
        SCHECK_RC(MPI_Sendrecv(&me, 1, MPI_INT, right, tag, &got, 1, MPI_INT, left, tag, c,
                               MPI_STATUS_IGNORE));
        SCHECK(got == left);
        SCHECK_RC(MPI_Comm_free(&c));
        SCHECK_RC(MPI_Session_finalize(&s));
    }
}

/* Under a bad IBEX_* setting the engine cannot start: the error goes to the handler given. */
static int start_fails(void)
{
    MPI_Session s = MPI_SESSION_NULL;
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    SCHECK(rc != MPI_SUCCESS && s == MPI_SESSION_NULL);
    int cls = -1;
    SCHECK_RC(MPI_Error_class(rc, &cls));
    SCHECK(cls == MPI_ERR_OTHER);
    printf("session_basic: ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Session s0, s1, s2;
    MPI_Info hints;
    int size, flag = 1;
    if (argc > 1 && strcmp(argv[1], "startfail") == 0)
        return start_fails();
    /* 1. a session alone: the engine starts and stops again */
    SCHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s0));
    check_level(s0, "MPI_THREAD_MULTIPLE"); /* no hint: MULTIPLE, as MPI advises (session.c) */
    MPI_Comm c0 = world_comm(s0, "phase one", &size);
    SCHECK_RC(MPI_Comm_free(&c0));
    SCHECK_RC(MPI_Session_finalize(&s0));
    SCHECK(s0 == MPI_SESSION_NULL);
    SCHECK_RC(MPI_Initialized(&flag));
    SCHECK(!flag);
    /* 2. a session across the world model */
    SCHECK_RC(MPI_Info_create(&hints));
    SCHECK_RC(MPI_Info_set(hints, "thread_level", "MPI_THREAD_MULTIPLE"));
    SCHECK_RC(MPI_Session_init(hints, MPI_ERRORS_RETURN, &s1));
    SCHECK_RC(MPI_Info_free(&hints));
    check_psets(s1);
    SCHECK(MPI_Session_f2c(MPI_Session_c2f(s1)) == s1);
    self_comm(s1);
    MPI_Comm c1 = world_comm(s1, "phase two", &size);
    check_info_and_errors(s1);
    inter_from_groups(s1, c1, size);
    SCHECK_RC(MPI_Init(&argc, &argv));
    int wrank, wsize, sum = 0;
    SCHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    SCHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
    SCHECK(wrank == me && wsize == size);
    /* the same string tag again, on the world model's side: a different communicator */
    MPI_Group wg;
    MPI_Comm c2;
    SCHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    SCHECK_RC(MPI_Comm_create_from_group(wg, "phase two", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c2));
    SCHECK_RC(MPI_Group_free(&wg));
    SCHECK_RC(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, c2));
    SCHECK(sum == size * (size - 1) / 2);
    SCHECK_RC(MPI_Comm_free(&c2));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Session bad = MPI_SESSION_NULL;
    SCHECK(MPI_Session_finalize(&bad) == MPI_ERR_SESSION);
    SCHECK_RC(MPI_Finalize());
    /* 3. after MPI_Finalize: s1's communicator still works, and a new session starts */
    sum = 0;
    SCHECK_RC(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c1));
    SCHECK(sum == size * (size - 1) / 2);
    SCHECK_RC(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    MPI_Comm c3 = world_comm(s2, "phase three", &size);
    SCHECK_RC(MPI_Comm_free(&c3));
    SCHECK_RC(MPI_Session_finalize(&s2));
    SCHECK_RC(MPI_Comm_free(&c1));
    SCHECK_RC(MPI_Session_finalize(&s1));
    SCHECK_RC(MPI_Finalized(&flag));
    SCHECK(flag);
    restart_rounds(25);
    if (me == 0)
        printf("session_basic: ok\n");
    return 0;
}
