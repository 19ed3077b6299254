/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bootstrap: this process as a PMIx client (runtime/boot/boot.c). Ranks speak only PMIx, so the
 * same binary starts under ibexrun, Slurm (srun --mpi=pmix) and Open MPI's mpirun. A process
 * started with no PMIx server in its environment is a 1-rank job (MPI singleton) with a local
 * store.
 */
#ifndef IBEX_BOOT_H
#define IBEX_BOOT_H

#include <stdbool.h>
#include <stddef.h>

#include "ibex_status.h"

typedef struct ibex_boot_info {
    int rank, size;
    int local_rank, local_size;
    int *local_peers; /* world ranks on this node, local_size of them, ascending */
    int node_id, num_nodes;
    int *node_of;   /* node id of every world rank (size entries) */
    int num_cores;  /* cores of this node (hwloc), for the oversubscription test */
    int appnum;     /* this rank's application in an MPMD launch (PMIX_APPNUM), else 0 */
    bool singleton; /* no launcher: a 1-rank job */
    char hostname[256];
    char nspace[256];
} ibex_boot_info_t;

ibex_status_t ibex_boot_init(ibex_boot_info_t *info);
void ibex_boot_finalize(void);
/* Publishes a key for peers (visible after commit + fence, or to a lazy get). */
ibex_status_t ibex_boot_put(const char *key, const void *data, size_t len);
ibex_status_t ibex_boot_commit(void);
/* Collective over all ranks of the job; with collect_data, every put is then readable. */
ibex_status_t ibex_boot_fence(bool collect_data);
/* Reads a peer's key; waits for it if the peer has not committed yet. *data_p is malloc'd. */
ibex_status_t ibex_boot_get(int rank, const char *key, void **data_p, size_t *len_p);
/* The host name of a world rank, for error messages ("peer rank 3 on node2"). Never NULL. */
const char *ibex_boot_peer_host(int rank);
/* Ends the whole job through the launcher with this exit code; does not return. */
void ibex_boot_abort(int code, const char *msg) __attribute__((noreturn));

#endif
