/* SPDX-License-Identifier: BSD-3-Clause */
/* The blocked-call record of the one-sided waits (runtime/win/win_blk.c). */
#ifndef IBEX_BLOCKED_WIN_H
#define IBEX_BLOCKED_WIN_H

#include <stdbool.h>

#include "ibex_win.h"

typedef enum {
    IBEX_WIN_BLK_COMPLETES, /* MPI_Win_wait: the post group's MPI_Win_complete */
    IBEX_WIN_BLK_POST,      /* MPI_Win_start: rank's MPI_Win_post */
    IBEX_WIN_BLK_TARGET,    /* a flush, lock, unlock or reply at rank */
    IBEX_WIN_BLK_ALL,       /* replies from every target with some still to come */
} ibex_win_blk_t;

/* Writes the record of a one-sided wait that lasts; returns true (end it with ibex_blk_end). */
bool ibex_win_blk_wait(const ibex_win_t *win, ibex_win_blk_t kind, int rank);
/* MPI_Win_test that found the epoch open: what a polling loop of it waits for. */
void ibex_win_blk_poll(const ibex_win_t *win);

#endif
