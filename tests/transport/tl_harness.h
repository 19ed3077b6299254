/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small multi-process harness for transport tests: tlw_run() forks n ranks that share one
 * anonymous page (addresses, a barrier, scratch words), runs body() in each with a time limit and
 * reports whether every rank exited 0. Children must not use cmocka asserts (a failed assert
 * would longjmp into the child's copy of the test runner): use TLW_CHECK, which exits the child.
 */
#ifndef TL_HARNESS_H
#define TL_HARNESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "transport.h"

#define TLW_MAX      64
#define TLW_ADDR_MAX 128
#define TLW_SCRATCH  64

typedef struct tl_world {
    int n;
    _Atomic int barrier_count;
    _Atomic int barrier_gen;
    size_t addr_len[TLW_MAX];
    unsigned char addr[TLW_MAX][TLW_ADDR_MAX];
    pid_t pids[TLW_MAX];
    _Atomic int expect_kill[TLW_MAX]; /* set by a rank about to be SIGKILLed on purpose */
    _Atomic uint64_t scratch[TLW_SCRATCH];
} tl_world_t;

typedef struct tl_proc {
    tl_world_t *w;
    int rank;
    void *arg; /* from tlw_run */
    const ibex_tl_component_t *comp;
    ibex_tl_t *tl;
    ibex_tl_caps_t caps;
    ibex_tl_ops_t ops; /* comp's ops with stubs filled in */
    ibex_tl_ep_t *ep[TLW_MAX];
    int local_peers[TLW_MAX];
    bool no_connect; /* tlw_open publishes and waits but creates no endpoint */
    int failed_peer; /* last rank reported by peer_failed_cb, or -1 */
    ibex_status_t failed_why;
} tl_proc_t;

#define TLW_CHECK(cond)                                                                            \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: check failed: %s (%s:%d)\n", tlw_self_rank, #cond, __FILE__, \
                    __LINE__);                                                                     \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

extern int tlw_self_rank;

/* Forks n ranks running body(p); returns 0 if all exit 0 within timeout_s seconds. */
int tlw_run(int n, int timeout_s, void (*body)(tl_proc_t *p), void *arg);
void tlw_barrier(tl_proc_t *p);
/* Opens comp as rank p->rank of w->n (all on one node), publishes the address, waits for all
 * others, and connects to every rank (itself included when connect_self). */
void tlw_open(tl_proc_t *p, const ibex_tl_component_t *comp, ibex_tl_recv_cb_t cb, void *cb_arg,
              bool connect_self);
/* Barrier (the job-wide fence close() expects), then destroys the endpoints and closes. */
void tlw_close(tl_proc_t *p);
/* Calls progress until pred(arg) is true; the time limit catches a hang. */
void tlw_progress_until(tl_proc_t *p, bool (*pred)(void *arg), void *arg);
double tlw_now(void);
uint32_t tlw_fnv(const void *buf, size_t len);
/* Mappings of /dev/shm files in this process: a transport that names its segments there could
 * leave them behind when killed. (Counting /dev/shm itself races with other programs.) softib's
 * segments are the RDMA device's, not a transport's, and are not counted. */
int tlw_dev_shm_mappings(void);

#endif
