/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake collective-context point-to-point layer for unit tests: threads play the ranks of one
 * communicator, and ibex_coll_send / recv / sendrecv move bytes through per-(source, dest)
 * FIFO mailboxes (sends are buffered, receives match source and tag in send order). Only
 * MPI_BYTE and MPI_INT are understood. Each rank's ibex_comm_t has rank and size set.
 */
#ifndef COLL_FAKE_H
#define COLL_FAKE_H

#include "ibex_comm.h"

#define COLL_FAKE_MAX_RANKS 16

typedef void (*coll_fake_fn_t)(ibex_comm_t *comm, void *arg);

/* Runs fn on nranks threads at once and joins them; the mailboxes must be empty at the end. */
void coll_fake_run(int nranks, coll_fake_fn_t fn, void *arg);
/* Messages sent and not received (0 after a correct collective). */
int coll_fake_pending(void);

#endif
