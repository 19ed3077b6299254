/* SPDX-License-Identifier: BSD-3-Clause */
/* What the blocking (bench_coll.c) and non-blocking (bench_nbc.c) collectives share: the
 * buffers, the counts of the v forms and the validation against a local reference. */
#ifndef IBEX_BENCH_COLL_H
#define IBEX_BENCH_COLL_H

#include "bench.h"

enum coll_op {
    BARRIER,
    BCAST,
    REDUCE,
    ALLREDUCE,
    GATHER,
    GATHERV,
    SCATTER,
    SCATTERV,
    ALLGATHER,
    ALLGATHERV,
    ALLTOALL,
    ALLTOALLV,
    REDUCE_SCATTER,
    REDUCE_SCATTER_BLOCK,
    SCAN,
    EXSCAN
};

struct coll_ctx {
    unsigned char *sbuf, *rbuf; /* max_size * ranks bytes each */
    int *counts, *displs;       /* per rank, for the v forms and reduce_scatter */
};

int bench_coll_setup(const struct bench *b, const struct bench_opts *o, void **ctx);
void bench_coll_teardown(void *ctx);
/* counts / displs for size n of collective op (reduce_scatter: its split of the vector). */
void bench_coll_counts(struct coll_ctx *c, int op, long n);
/* Under -c: the send data of call seq before it, the check of what arrived after it. */
void bench_coll_fill(int op, struct coll_ctx *c, long n, long seq);
void bench_coll_check(int op, struct coll_ctx *c, long n, long seq);

#endif
