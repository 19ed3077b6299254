/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib's operation counters: the work requests this process's queue pairs executed
 * successfully since softib was loaded, by kind. Tests read them to prove how an operation
 * travelled (a put was one RDMA WRITE, the target posted nothing). softib is preloaded, so a
 * program that does not link it finds the function with dlsym(RTLD_DEFAULT,
 * "softib_counters_get"); it is absent when the program runs without softib.
 */
#ifndef SOFTIB_COUNTERS_H
#define SOFTIB_COUNTERS_H

#include <stdint.h>

struct softib_counters {
    uint64_t rdma_write; /* RDMA WRITE and WRITE_WITH_IMM */
    uint64_t rdma_read;
    uint64_t atomic;  /* fetch-and-add and compare-and-swap */
    uint64_t send;    /* RC SEND and SEND_WITH_IMM */
    uint64_t ud_send; /* UD SENDs (connection handshakes) */
};

typedef void (*softib_counters_get_fn)(struct softib_counters *c);
void softib_counters_get(struct softib_counters *c);

#endif
