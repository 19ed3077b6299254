/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The semantics the short paths of small messages must keep (issue 18): order across many
 * laps of a shared-memory box with its tail published in batches; MPI_ANY_SOURCE with two
 * senders, each one's order kept; a posted receive that is not the oldest one; truncation of an
 * expected receive (MPI_ERR_TRUNCATE with source, tag and count); Waitall over windows of sends
 * and receives with and without statuses, with a persistent request and a failed one among
 * them; probes, matched probes and the cancel of a posted receive beside the short path;
 * messages of many sizes in a row through one box; a 256 KiB PIPE rendezvous in whole-slot
 * fragments, and truncated.
 */
#include <stdbool.h>

#include "mpitest.h"

enum { LAPS = 20, WINDOW = 100, TAG = 5 };

/* Rank 0 sends LAPS windows of WINDOW 8-byte messages (more than a box holds), numbered;
 * rank 1 takes every other window with blocking receives, the rest with pre-posted Irecvs
 * and one Waitall. Every message arrives once, in order. */
static void order_windows(int rank)
{
    if (rank == 0) {
        MPI_Request r[WINDOW];
        for (int64_t lap = 0, k = 0; lap < LAPS; lap++) {
            int64_t v[WINDOW];
            for (int i = 0; i < WINDOW; i++, k++) {
                v[i] = k;
                CHECK_RC(MPI_Isend(&v[i], 1, MPI_INT64_T, 1, TAG, MPI_COMM_WORLD, &r[i]));
            }
            CHECK_RC(MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE));
            for (int i = 0; i < WINDOW; i++)
                CHECK(r[i] == MPI_REQUEST_NULL);
        }
    } else if (rank == 1) {
        int64_t want = 0;
        for (int lap = 0; lap < LAPS; lap++) {
            int64_t got[WINDOW];
            if (lap % 2 == 0) {
                for (int i = 0; i < WINDOW; i++) {
                    MPI_Status st;
                    CHECK_RC(
                        MPI_Recv(&got[i], 1, MPI_INT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == TAG);
                }
            } else {
                MPI_Request r[WINDOW];
                MPI_Status st[WINDOW];
                for (int i = 0; i < WINDOW; i++)
                    CHECK_RC(MPI_Irecv(&got[i], 1, MPI_INT64_T, 0, TAG, MPI_COMM_WORLD, &r[i]));
                CHECK_RC(MPI_Waitall(WINDOW, r, st));
                for (int i = 0; i < WINDOW; i++) {
                    int count;
                    CHECK_RC(MPI_Get_count(&st[i], MPI_INT64_T, &count));
                    CHECK(count == 1 && st[i].MPI_SOURCE == 0 && st[i].MPI_TAG == TAG);
                }
            }
            for (int i = 0; i < WINDOW; i++, want++)
                CHECK(got[i] == want);
        }
    }
    mt_barrier(MPI_COMM_WORLD);
}

/* Ranks 1 and 2 each send N numbered messages; rank 0 receives 2N with MPI_ANY_SOURCE, half
 * blocking, half pre-posted, and sees each sender's numbers in order. */
static void any_source_two_senders(int rank, int size)
{
    enum { N = 300 };
    if (size < 3)
        return;
    if (rank == 1 || rank == 2) {
        for (int i = 0; i < N; i++) {
            int v[2] = {rank, i};
            CHECK_RC(MPI_Send(v, 2, MPI_INT, 0, TAG, MPI_COMM_WORLD));
        }
    } else if (rank == 0) {
        int next[3] = {0, 0, 0};
        for (int i = 0; i < 2 * N; i++) {
            int v[2];
            MPI_Status st;
            if (i % 2 == 0) {
                CHECK_RC(MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st));
            } else {
                MPI_Request r;
                CHECK_RC(MPI_Irecv(v, 2, MPI_INT, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &r));
                CHECK_RC(MPI_Wait(&r, &st));
            }
            CHECK(st.MPI_SOURCE == 1 || st.MPI_SOURCE == 2);
            CHECK(v[0] == st.MPI_SOURCE && st.MPI_TAG == TAG);
            CHECK(v[1] == next[st.MPI_SOURCE]);
            next[st.MPI_SOURCE]++;
        }
        CHECK(next[1] == N && next[2] == N);
    }
    mt_barrier(MPI_COMM_WORLD);
}

/* Two receives posted before their messages, tags 1 then 2; the messages come tag 2 first:
 * the newer receive takes it (the oldest one does not fit), then the older one its own. */
static void not_the_oldest(int rank)
{
    if (rank == 0) {
        int a = 10, b = 20;
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Send(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int x = 0, y = 0, flag = 0;
        MPI_Request r[2];
        CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r[0]));
        CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[1]));
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        CHECK(y == 20);
        CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        CHECK(x == 10);
        CHECK_RC(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
        CHECK(flag);
    } else {
        mt_barrier(MPI_COMM_WORLD);
    }
    mt_barrier(MPI_COMM_WORLD);
}

/* A receive posted before its message, too small for it: MPI_ERR_TRUNCATE, the status says
 * who sent it with which tag, and what fits was written; a blocking one the same. Then a
 * Waitall with the truncated receive among good ones: MPI_ERR_IN_STATUS, each status its own. */
static void truncated(int rank)
{
    if (rank == 0) {
        int v[4] = {1, 2, 3, 4};
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Send(v, 4, MPI_INT, 1, 7, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(v, 4, MPI_INT, 1, 8, MPI_COMM_WORLD));
        mt_barrier(MPI_COMM_WORLD);
        for (int i = 0; i < 3; i++)
            CHECK_RC(MPI_Send(v, 4, MPI_INT, 1, 9 + i, MPI_COMM_WORLD));
    } else if (rank == 1) {
        int got[4] = {0, 0, 0, 0}, count;
        MPI_Request r;
        MPI_Status st;
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        CHECK_RC(MPI_Irecv(got, 2, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r));
        mt_barrier(MPI_COMM_WORLD);
        int rc = MPI_Wait(&r, &st), cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
        CHECK(got[0] == 1 && got[1] == 2 && got[2] == 0);
        CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == 2);
        got[0] = got[1] = 0;
        rc = MPI_Recv(got, 3, MPI_INT, 0, 8, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE && st.MPI_TAG == 8 && got[2] == 3 && got[3] == 0);
        int a[4], b[2], c[4];
        MPI_Request w[3];
        MPI_Status ws[3];
        CHECK_RC(MPI_Irecv(a, 4, MPI_INT, 0, 9, MPI_COMM_WORLD, &w[0]));
        CHECK_RC(MPI_Irecv(b, 2, MPI_INT, 0, 10, MPI_COMM_WORLD, &w[1]));
        CHECK_RC(MPI_Irecv(c, 4, MPI_INT, 0, 11, MPI_COMM_WORLD, &w[2]));
        mt_barrier(MPI_COMM_WORLD);
        rc = MPI_Waitall(3, w, ws);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_IN_STATUS);
        CHECK(ws[0].MPI_ERROR == MPI_SUCCESS && ws[2].MPI_ERROR == MPI_SUCCESS);
        MPI_Error_class(ws[1].MPI_ERROR, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE && ws[1].MPI_TAG == 10);
        CHECK(a[3] == 4 && b[1] == 2 && c[3] == 4);
        CHECK(w[0] == MPI_REQUEST_NULL && w[1] == MPI_REQUEST_NULL && w[2] == MPI_REQUEST_NULL);
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    } else {
        mt_barrier(MPI_COMM_WORLD);
        mt_barrier(MPI_COMM_WORLD);
    }
    mt_barrier(MPI_COMM_WORLD);
}

/* Waitall over sends and receives mixed with a persistent receive (it stays allocated,
 * inactive, after the wait) and MPI_REQUEST_NULL entries. */
static void waitall_mixed(int rank)
{
    enum { M = 8 };
    if (rank > 1) {
        mt_barrier(MPI_COMM_WORLD);
        return;
    }
    int peer = 1 - rank, out[M], in[M], pin = -1, pout = 77;
    MPI_Request r[2 * M + 2], pr;
    for (int i = 0; i < M; i++) {
        out[i] = rank * 1000 + i;
        CHECK_RC(MPI_Irecv(&in[i], 1, MPI_INT, peer, 20 + i, MPI_COMM_WORLD, &r[2 * i]));
        CHECK_RC(MPI_Isend(&out[i], 1, MPI_INT, peer, 20 + i, MPI_COMM_WORLD, &r[2 * i + 1]));
    }
    CHECK_RC(MPI_Recv_init(&pin, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &pr));
    CHECK_RC(MPI_Start(&pr));
    r[2 * M] = pr;
    r[2 * M + 1] = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Send(&pout, 1, MPI_INT, peer, 40, MPI_COMM_WORLD));
    CHECK_RC(MPI_Waitall(2 * M + 2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < M; i++)
        CHECK(in[i] == peer * 1000 + i && r[2 * i] == MPI_REQUEST_NULL);
    CHECK(pin == 77 && r[2 * M] == pr); /* persistent: still allocated */
    CHECK_RC(MPI_Request_free(&pr));
    mt_barrier(MPI_COMM_WORLD);
}

/* Probe / Mprobe beside the short path: a message that arrived before any receive is seen by
 * a probe and received by its matched receive; a posted receive cancelled leaves the next
 * message to the next receive. */
static void probes_and_cancel(int rank)
{
    if (rank == 0) {
        int v = 5, w = 6;
        CHECK_RC(MPI_Send(&v, 1, MPI_INT, 1, 50, MPI_COMM_WORLD));
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Send(&w, 1, MPI_INT, 1, 51, MPI_COMM_WORLD));
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Message msg;
        int x = 0, y = 0, z = 0, cancelled = 0;
        CHECK_RC(MPI_Probe(0, 50, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_TAG == 50);
        CHECK_RC(MPI_Mprobe(0, 50, MPI_COMM_WORLD, &msg, &st));
        CHECK_RC(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
        CHECK(x == 5 && msg == MPI_MESSAGE_NULL);
        MPI_Request r;
        CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, 0, 51, MPI_COMM_WORLD, &r));
        CHECK_RC(MPI_Cancel(&r));
        CHECK_RC(MPI_Wait(&r, &st));
        CHECK_RC(MPI_Test_cancelled(&st, &cancelled));
        CHECK(cancelled && y == 0);
        mt_barrier(MPI_COMM_WORLD);
        CHECK_RC(MPI_Recv(&z, 1, MPI_INT, 0, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(z == 6);
    } else {
        mt_barrier(MPI_COMM_WORLD);
    }
    mt_barrier(MPI_COMM_WORLD);
}

/* Messages of many sizes in a row through one box (issue 18, 256 B - 1 KiB): after a message
 * longer than a line the sender takes ownership of the next slot's lines (IBEX_SHM_OWN_NEXT);
 * whatever the sizes before and after, over several laps, every byte arrives as sent. */
static void mixed_sizes(int rank)
{
    enum { ROUNDS = 200, MAXB = 16000 };
    static const int sizes[] = {8, 256, 100, 1024, 24, 4096, 300, 16000, 64, 65, 1000};
    enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
    if (rank > 1) {
        mt_barrier(MPI_COMM_WORLD);
        return;
    }
    unsigned char *buf = malloc(MAXB);
    CHECK(buf != NULL);
    for (int i = 0; i < ROUNDS; i++) {
        int n = sizes[i % NS];
        if (rank == 0) {
            for (int k = 0; k < n; k++)
                buf[k] = (unsigned char)(i * 31 + k);
            CHECK_RC(MPI_Send(buf, n, MPI_BYTE, 1, 60, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int count;
            memset(buf, 0, MAXB);
            CHECK_RC(MPI_Recv(buf, MAXB, MPI_BYTE, 0, 60, MPI_COMM_WORLD, &st));
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK(count == n);
            for (int k = 0; k < n; k++)
                CHECK(buf[k] == (unsigned char)(i * 31 + k));
        }
    }
    free(buf);
    mt_barrier(MPI_COMM_WORLD);
}

/* A started MPI_T counter by name (*ok false when there is none), and its value. */
static MPI_T_pvar_handle counter_open(MPI_T_pvar_session s, const char *name, bool *ok)
{
    int i, count;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i) != MPI_SUCCESS) {
        *ok = false;
        return h;
    }
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    CHECK_RC(MPI_T_pvar_start(s, h));
    return h;
}

static long long counter_read(MPI_T_pvar_session s, MPI_T_pvar_handle h, bool ok)
{
    unsigned long long v = 0;
    if (ok)
        CHECK_RC(MPI_T_pvar_read(s, h, &v));
    return (long long)v;
}

static long long slot_size_now(void)
{
    int i, count;
    long long v = 0;
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_get_index("IBEX_SHM_SLOT_SIZE", &i) != MPI_SUCCESS)
        return 0;
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK_RC(MPI_T_cvar_read(h, &v));
    CHECK_RC(MPI_T_cvar_handle_free(&h));
    return v;
}

/* The PIPE rendezvous (issue 18, 128-256 KiB), which a strided send buffer takes up to
 * IBEX_RNDV_PIPE_MAX (a contiguous one only to IBEX_RNDV_PIPE_CONTIG_MAX), between eager
 * messages, in order: 256 KiB in blocks of 1 KiB 2 KiB apart arrive intact in a contiguous
 * receive; a receive too small for them gets MPI_ERR_TRUNCATE, what fits and nothing more.
 * Over shared memory with the default fragment size (IBEX_RNDV_PIPE_FRAG unset) the sender
 * hands the transport the RTS and whole-slot fragments: at most 1 + ceil(256 KiB / (slot -
 * 32)) messages for the PIPE send (17 with 16 KiB slots; 4 KiB fragments took 65, more than a
 * 64-slot box holds). */
static void pipe_whole_slots(int rank)
{
    enum { BIG = 256 << 10, SHORT = BIG - 5000 };
    if (rank > 1) {
        mt_barrier(MPI_COMM_WORLD);
        return;
    }
    unsigned char *buf = malloc(2 * BIG);
    CHECK(buf != NULL);
    int a = 1, b = 2;
    if (rank == 0) {
        MPI_T_pvar_session s;
        MPI_Datatype strided;
        CHECK_RC(MPI_Type_vector(BIG / 1024, 1024, 2048, MPI_BYTE, &strided));
        CHECK_RC(MPI_Type_commit(&strided));
        CHECK_RC(MPI_T_pvar_session_create(&s));
        for (int k = 0; k < BIG; k++)
            buf[k / 1024 * 2048 + k % 1024] = (unsigned char)(k * 7 + k / 4096);
        bool ok = true;
        MPI_T_pvar_handle hm = counter_open(s, "ibex_shm_msgs", &ok);
        MPI_T_pvar_handle hp = counter_open(s, "ibex_rndv_pipe", &ok);
        long long m0 = counter_read(s, hm, ok), p0 = counter_read(s, hp, ok);
        CHECK_RC(MPI_Send(&a, 1, MPI_INT, 1, 70, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(buf, 1, strided, 1, 71, MPI_COMM_WORLD));
        long long m1 = counter_read(s, hm, ok), p1 = counter_read(s, hp, ok);
        CHECK_RC(MPI_Send(&b, 1, MPI_INT, 1, 72, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(buf, 1, strided, 1, 73, MPI_COMM_WORLD));
        long long slot = slot_size_now();
        if (ok && p1 == p0 + 1 && slot > 64 && !getenv("IBEX_RNDV_PIPE_FRAG")) {
            long long per = slot - 8 - 24, most = 1 + 1 + (BIG + per - 1) / per;
            if (m1 - m0 > most)
                fprintf(stderr, "p2p_fastpath: 256 KiB PIPE took %lld messages, want <= %lld\n",
                        m1 - m0, most);
            CHECK(m1 - m0 <= most);
        }
        CHECK_RC(MPI_T_pvar_session_free(&s));
        CHECK_RC(MPI_Type_free(&strided));
    } else {
        int x = 0, y = 0, rc, cls, count;
        MPI_Status st;
        memset(buf, 0, BIG);
        CHECK_RC(MPI_Recv(&x, 1, MPI_INT, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_RC(MPI_Recv(buf, BIG, MPI_BYTE, 0, 71, MPI_COMM_WORLD, &st));
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(x == 1 && count == BIG);
        for (int k = 0; k < BIG; k++)
            CHECK(buf[k] == (unsigned char)(k * 7 + k / 4096));
        CHECK_RC(MPI_Recv(&y, 1, MPI_INT, 0, 72, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(y == 2);
        memset(buf, 0, BIG);
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        rc = MPI_Recv(buf, SHORT, MPI_BYTE, 0, 73, MPI_COMM_WORLD, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE && st.MPI_SOURCE == 0 && st.MPI_TAG == 73);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == SHORT);
        for (int k = 0; k < SHORT; k++)
            CHECK(buf[k] == (unsigned char)(k * 7 + k / 4096));
        for (int k = SHORT; k < BIG; k++)
            CHECK(buf[k] == 0);
        CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }
    free(buf);
    mt_barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    order_windows(rank);
    any_source_two_senders(rank, size);
    not_the_oldest(rank);
    truncated(rank);
    waitall_mixed(rank);
    probes_and_cancel(rank);
    mixed_sizes(rank);
    int provided;
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    pipe_whole_slots(rank);
    CHECK_RC(MPI_T_finalize());
    mt_done("p2p_fastpath");
    MPI_Finalize();
    return 0;
}
