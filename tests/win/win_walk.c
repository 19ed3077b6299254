/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The count guard of MPICH's manyget (many Gets in one fence epoch): on the active-message
 * path a target answers a Get of one contiguous run straight from window memory and keeps the
 * reply until it completes; the kept replies are reaped by walks whose total length must stay
 * about one entry per reply (a walk per request was quadratic in the replies in flight:
 * manyget's 100,000 Gets never finished). Rank 0 is the target; every other rank issues
 * WALK_GETS Gets of WALK_BYTES from it in one epoch. Run with IBEX_WIN_DIRECT=0,
 * IBEX_WIN_AM_POLL=0 (the origins do not progress while they issue, so every reply is still
 * in flight at the target) and an eager limit below WALK_BYTES (rendezvous replies). The
 * target reads Ibex's performance variables ibex_win_direct_replies and ibex_win_reply_steps
 * (MPI_T counters) around the epoch: at least one direct reply per Get, at most
 * WALK_MAX_STEPS steps per reply (the amortised walk takes about 2, the quadratic one about
 * half the Gets in flight: hundreds). Without those variables (another MPI) only the data is
 * checked.
 */
#include <stdbool.h>

#include "mpitest.h"

#define WALK_GETS      1000
#define WALK_BYTES     4096
#define WALK_MAX_STEPS 4

typedef struct {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h[2];
    bool on;
} walk_vars_t;

static void vars_start(walk_vars_t *v)
{
    int idx[2] = {mt_pvar_index("ibex_win_direct_replies"), mt_pvar_index("ibex_win_reply_steps")};
    v->on = idx[0] >= 0 && idx[1] >= 0;
    if (!v->on)
        return;
    CHECK_RC(MPI_T_pvar_session_create(&v->s));
    for (int i = 0; i < 2; i++) {
        int count;
        CHECK_RC(MPI_T_pvar_handle_alloc(v->s, idx[i], NULL, &v->h[i], &count));
        CHECK(count == 1);
        CHECK_RC(MPI_T_pvar_start(v->s, v->h[i]));
    }
}

static void vars_check(walk_vars_t *v, unsigned long long gets)
{
    if (!v->on)
        return;
    unsigned long long replies = 0, steps = 0;
    CHECK_RC(MPI_T_pvar_read(v->s, v->h[0], &replies));
    CHECK_RC(MPI_T_pvar_read(v->s, v->h[1], &steps));
    printf("win_walk: %llu Gets, %llu direct replies, %llu walk steps (%.2f per reply)\n", gets,
           replies, steps, replies ? (double)steps / (double)replies : 0.0);
    CHECK(replies >= gets);
    CHECK(steps <= WALK_MAX_STEPS * replies);
    for (int i = 0; i < 2; i++)
        MPI_T_pvar_handle_free(v->s, &v->h[i]);
    MPI_T_pvar_session_free(&v->s);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mem, *buf = malloc((size_t)WALK_GETS * WALK_BYTES);
    CHECK(buf);
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(rank == 0 ? WALK_BYTES : 0, sizeof(int), MPI_INFO_NULL,
                              MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; rank == 0 && i < WALK_BYTES / 4; i++)
        mem[i] = i * 7 + 1;
    walk_vars_t v = {0};
    if (rank == 0)
        vars_start(&v);
    MPI_Win_fence(0, win);
    for (int g = 0; rank != 0 && g < WALK_GETS; g++)
        MPI_Get(buf + (size_t)g * (WALK_BYTES / 4), WALK_BYTES / 4, MPI_INT, 0, 0, WALK_BYTES / 4,
                MPI_INT, win);
    MPI_Win_fence(0, win);
    for (size_t i = 0; rank != 0 && i < (size_t)WALK_GETS * (WALK_BYTES / 4); i++)
        CHECK(buf[i] == (int)(i % (WALK_BYTES / 4)) * 7 + 1);
    if (rank == 0)
        vars_check(&v, (unsigned long long)WALK_GETS * (unsigned long long)(size - 1));
    MPI_Win_free(&win);
    free(buf);
    mt_done("win_walk");
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
