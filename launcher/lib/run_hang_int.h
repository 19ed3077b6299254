/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside libibexlaunch: the hang report's record (run_hang.c) and analysis (run_hang_report.c). */
#ifndef IBEX_LAUNCH_RUN_HANG_INT_H
#define IBEX_LAUNCH_RUN_HANG_INT_H

#include "ibex_blocked.h"
#include "ibex_launch.h"

struct ibex_run_hang {
    void *base; /* the whole record, mapped */
    int fd;     /* the memfd (ibexrun), -1 (ibex_stack) */
    int n;
    bool owner;            /* ibexrun: writes the head */
    ibex_blk_head_t *head; /* = base */
    bool reported;         /* --hang-report: said for this idle period */
};

long long ibex_run_hang_now_ns(void);
const ibex_blk_page_t *ibex_run_hang_page(const ibex_run_hang_t *h, int rank);
/* A consistent copy of rank's page; false if it has none (or keeps changing it). */
bool ibex_run_hang_snapshot(const ibex_run_hang_t *h, int rank, ibex_blk_page_t *out);

#endif
