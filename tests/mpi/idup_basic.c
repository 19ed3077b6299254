/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Comm_idup / idup_with_info as non-blocking calls: rank 0 posts its idup and then sends
 * synchronously to every other rank, which receives before posting its own (a blocking idup
 * would deadlock here); two idups outstanding on one parent completed in either order; idups
 * overlapping point-to-point traffic, a non-blocking collective, a blocking Comm_dup and an
 * idup of another communicator; 24 at once completed by polling MPI_Test; each result checked
 * (size, rank, congruent, traffic on it that does not mix with its siblings, attributes copied
 * with MPI_COMM_DUP_FN, hints given); idups of two parents posted in opposite orders on even
 * and odd ranks; the idup of an intercommunicator, non-blocking in the
 * same way across its two groups (each group's leader posts its idup and then sends
 * synchronously to the other group's other ranks, which receive before posting theirs), two
 * outstanding on it completed in reverse order, each a working congruent intercommunicator
 * whose traffic does not mix with the parent's. Standard MPI only.
 */
#include "mpitest.h"

static int rank, size;

/* c is a working duplicate of world, told apart from its siblings by `mark`. */
static void check_dup(MPI_Comm c, int mark)
{
    int r, s, cmp, sum = 0, v = rank + mark;
    CHECK(c != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_rank(c, &r));
    CHECK_RC(MPI_Comm_size(c, &s));
    CHECK(r == rank && s == size);
    CHECK_RC(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2 + size * mark);
}

/* Messages on a and b with the same tag do not mix: each arrives on its own communicator. */
static void check_apart(MPI_Comm a, MPI_Comm b)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size, x = -1, y = -1;
    int ma = 1000 + rank, mb = 2000 + rank;
    MPI_Request r[4];
    CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, from, 0, b, &r[0]));
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, from, 0, a, &r[1]));
    CHECK_RC(MPI_Isend(&ma, 1, MPI_INT, to, 0, a, &r[2]));
    CHECK_RC(MPI_Isend(&mb, 1, MPI_INT, to, 0, b, &r[3]));
    CHECK_RC(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    CHECK(x == 1000 + from && y == 2000 + from);
}

/* Rank 0 goes on after its idup and needs the others before they post theirs. */
static void not_blocking(void)
{
    MPI_Comm c;
    MPI_Request req;
    int token = 7;
    if (rank == 0) {
        CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c, &req));
        for (int r = 1; r < size; r++)
            CHECK_RC(MPI_Ssend(&token, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
    } else {
        CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(token == 7);
        CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c, &req));
    }
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL);
    check_dup(c, 1);
    CHECK_RC(MPI_Comm_free(&c));
}

static int keyval, copies;

static int copy_fn(MPI_Comm old, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)kv, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Two on world in order, with traffic, a non-blocking collective, a blocking dup and an idup
 * of a split communicator in between; completed in the reverse order. */
static void overlapping(void)
{
    MPI_Comm c1, c2, c3, half, h1;
    MPI_Request r1, r2, r3, rb;
    static int attr_value = 42;
    CHECK_RC(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &attr_value));
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info));
    CHECK_RC(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c1, &r1));
    CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &c2, &r2));
    CHECK_RC(MPI_Info_free(&info)); /* the call kept its own copy */
    int v = rank, sum = 0;
    CHECK_RC(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rb));
    CHECK_RC(MPI_Comm_idup(half, &h1, &r3));
    int to = (rank + 1) % size, from = (rank + size - 1) % size, got = -1;
    CHECK_RC(MPI_Sendrecv(&v, 1, MPI_INT, to, 3, &got, 1, MPI_INT, from, 3, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    CHECK(got == from);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c3)); /* a blocking agreement meanwhile */
    CHECK_RC(MPI_Wait(&r2, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&rb, MPI_STATUS_IGNORE));
    CHECK(sum == size * (size - 1) / 2);
    CHECK_RC(MPI_Wait(&r3, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&r1, MPI_STATUS_IGNORE));
    check_dup(c1, 2);
    check_dup(c2, 3);
    check_dup(c3, 4);
    check_apart(c1, c2);
    check_apart(c2, c3);
    check_apart(c1, MPI_COMM_WORLD);
    int hs, hr, cmp;
    CHECK_RC(MPI_Comm_size(h1, &hs));
    CHECK_RC(MPI_Comm_rank(h1, &hr));
    CHECK(hs == (size + 1 - rank % 2) / 2 && hr == rank / 2);
    CHECK_RC(MPI_Comm_compare(h1, half, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    void *val = NULL;
    int flag = 0;
    CHECK_RC(MPI_Comm_get_attr(c1, keyval, &val, &flag));
    CHECK(flag && val == &attr_value);
    CHECK(copies >= 3); /* c1, c2, c3 */
    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1];
    int len = sizeof(value);
    CHECK_RC(MPI_Comm_get_info(c2, &used));
    CHECK_RC(MPI_Info_get_string(used, "mpi_assert_no_any_tag", &len, value, &flag));
    CHECK(flag && strcmp(value, "true") == 0);
    CHECK_RC(MPI_Info_free(&used));
    MPI_Comm all[] = {c1, c2, c3, h1, half};
    for (int i = 0; i < 5; i++)
        CHECK_RC(MPI_Comm_free(&all[i]));
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval));
    CHECK_RC(MPI_Comm_free_keyval(&keyval));
}

/* Many at once, completed by polling. */
static void many(void)
{
    enum { K = 24 };
    MPI_Comm c[K];
    MPI_Request r[K];
    for (int i = 0; i < K; i++)
        CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &r[i]));
    int left = K;
    while (left > 0) {
        for (int i = 0; i < K; i++) {
            int flag = 0;
            if (r[i] == MPI_REQUEST_NULL)
                continue;
            CHECK_RC(MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE));
            left -= flag != 0;
        }
    }
    for (int i = 0; i < K; i++)
        check_dup(c[i], i);
    for (int i = 1; i < K; i++)
        check_apart(c[i - 1], c[i]);
    for (int i = 0; i < K; i++)
        CHECK_RC(MPI_Comm_free(&c[i]));
}

/* Idups of two parents posted in opposite orders on even and odd ranks, both waited for at
 * once, several times (each idup took a whole word of context pairs on some rank, and the two
 * parents' retries went to the same word every time: they failed after 1000 tries). */
static void crossed(void)
{
    MPI_Comm p[2], c[2];
    MPI_Request r[2];
    for (int i = 0; i < 2; i++) {
        CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &p[i], &r[0]));
        CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    }
    for (int round = 0; round < 4; round++) {
        int first = (rank + round) % 2;
        CHECK_RC(MPI_Comm_idup(p[first], &c[first], &r[0]));
        CHECK_RC(MPI_Comm_idup(p[1 - first], &c[1 - first], &r[1]));
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 2; i++)
            check_dup(c[i], 10 * round + i);
        check_apart(c[0], c[1]);
        for (int i = 0; i < 2; i++)
            CHECK_RC(MPI_Comm_free(&c[i]));
    }
    for (int i = 0; i < 2; i++)
        CHECK_RC(MPI_Comm_free(&p[i]));
}

/* d is a working duplicate of the intercommunicator ic (this side's rank lrank, lsize ranks
 * here, rsize there): congruent, a collective across both groups, traffic apart from ic's. */
static void check_inter_dup(MPI_Comm ic, MPI_Comm d, int lrank, int rsize)
{
    int flag = 0, cmp, rs, sum = -1, v = lrank, from = -1, other = -1;
    CHECK(d != MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_test_inter(d, &flag));
    CHECK(flag);
    CHECK_RC(MPI_Comm_compare(d, ic, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    CHECK_RC(MPI_Comm_remote_size(d, &rs));
    CHECK(rs == rsize);
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d)); /* the remote group's ranks */
    CHECK(sum == rsize * (rsize - 1) / 2);
    if (lrank == 0) { /* the leaders swap on both, same tag: each arrives on its own */
        int a = 100, b = 200;
        MPI_Request r[4];
        CHECK_RC(MPI_Irecv(&other, 1, MPI_INT, 0, 5, ic, &r[0]));
        CHECK_RC(MPI_Irecv(&from, 1, MPI_INT, 0, 5, d, &r[1]));
        CHECK_RC(MPI_Isend(&b, 1, MPI_INT, 0, 5, d, &r[2]));
        CHECK_RC(MPI_Isend(&a, 1, MPI_INT, 0, 5, ic, &r[3]));
        CHECK_RC(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
        CHECK(other == 100 && from == 200);
    }
}

/* Intercommunicator idups (2 or more ranks): even and odd world ranks are the two groups. */
static void inter(void)
{
    if (size < 2)
        return;
    MPI_Comm local, ic, d[2];
    MPI_Request r[2];
    int lrank, lsize, rsize, token = 9;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local));
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &ic));
    CHECK_RC(MPI_Comm_rank(ic, &lrank));
    CHECK_RC(MPI_Comm_size(ic, &lsize));
    CHECK_RC(MPI_Comm_remote_size(ic, &rsize));
    if (lrank == 0) {
        CHECK_RC(MPI_Comm_idup(ic, &d[0], &r[0]));
        for (int q = 1; q < rsize; q++)
            CHECK_RC(MPI_Ssend(&token, 1, MPI_INT, q, 3, ic));
    } else {
        token = 0;
        CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
        CHECK(token == 9);
        CHECK_RC(MPI_Comm_idup(ic, &d[0], &r[0]));
    }
    CHECK_RC(MPI_Comm_idup(ic, &d[1], &r[1]));
    CHECK_RC(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < 2; i++)
        check_inter_dup(ic, d[i], lrank, rsize);
    int cmp;
    CHECK_RC(MPI_Comm_compare(d[0], d[1], &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    for (int i = 0; i < 2; i++)
        CHECK_RC(MPI_Comm_free(&d[i]));
    CHECK_RC(MPI_Comm_free(&ic));
    CHECK_RC(MPI_Comm_free(&local));
    (void)lsize;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    not_blocking();
    overlapping();
    many();
    crossed();
    inter();
    MPI_Barrier(MPI_COMM_WORLD);
    mt_done("idup_basic");
    MPI_Finalize();
    return 0;
}
