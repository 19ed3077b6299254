/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small MPI 4.1 calls: MPI_Status_get/set_source / tag / error round-trips (and that a received
 * status reads back through them), MPI_Pcontrol at any level, MPI_Comm_get_parent without
 * dynamic processes, and their argument errors under MPI_ERRORS_RETURN.
 */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, v, cls;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Status st;
    memset(&st, 0x5a, sizeof(st));
    CHECK_RC(MPI_Status_set_source(&st, 3));
    CHECK_RC(MPI_Status_set_tag(&st, 12345));
    CHECK_RC(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 12345 && st.MPI_ERROR == MPI_ERR_TRUNCATE);
    CHECK_RC(MPI_Status_get_source(&st, &v));
    CHECK(v == 3);
    CHECK_RC(MPI_Status_get_tag(&st, &v));
    CHECK(v == 12345);
    CHECK_RC(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_ERR_TRUNCATE);
    /* Setting one field leaves the others and the count alone. */
    CHECK_RC(MPI_Status_set_elements(&st, MPI_INT, 5));
    CHECK_RC(MPI_Status_set_tag(&st, 7));
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &v));
    CHECK(v == 5 && st.MPI_SOURCE == 3 && st.MPI_ERROR == MPI_ERR_TRUNCATE);

    /* A received status reads back the same through the accessors. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, x = rank, y = -1;
    CHECK_RC(MPI_Sendrecv(&x, 1, MPI_INT, right, 40 + rank, &y, 1, MPI_INT, left, MPI_ANY_TAG,
                          MPI_COMM_WORLD, &st));
    CHECK(y == left);
    CHECK_RC(MPI_Status_get_source(&st, &v));
    CHECK(v == left);
    CHECK_RC(MPI_Status_get_tag(&st, &v));
    CHECK(v == 40 + left);

    for (int level = -2; level <= 3; level++)
        CHECK_RC(MPI_Pcontrol(level));
    CHECK_RC(MPI_Pcontrol(1, "extra", 2));

    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL);

    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Status_get_source(MPI_STATUS_IGNORE, &v);
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    rc = MPI_Status_set_tag(MPI_STATUS_IGNORE, 1);
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    rc = MPI_Status_get_error(&st, NULL);
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    rc = MPI_Comm_get_parent(NULL);
    CHECK(rc != MPI_SUCCESS);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    mt_barrier(MPI_COMM_WORLD);
    mt_done("misc_small");
    MPI_Finalize();
    return 0;
}
