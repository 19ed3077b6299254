/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Intercommunicator construction (runtime/comm/comm_inter.c) and Comm_create_group
 * (comm_group.c). Each call is collective over
 * both groups (Intercomm_create: over local_comm here and the remote side's local_comm);
 * results carry a handle and the error handler of the communicator they come from; a process
 * that gets no communicator (split colour MPI_UNDEFINED or without partners, not in Comm_create's
 * group) gets *comm_p = NULL and IBEX_OK.
 */
#ifndef IBEX_COMM_INTER_H
#define IBEX_COMM_INTER_H

#include <stdbool.h>

#include "ibex_comm.h"
#include "ibex_status.h"

/* Tag of the leaders' exchanges on an intercommunicator's collective context (the collectives
 * reserve 1..63 there). */
#define IBEX_COMM_INTER_TAG 64

/* MPI_Comm_create_group (comm_group.c): collective over group's members only (each a member
 * of parent), told apart from concurrent ones by tag; tags on parent's collective context from
 * IBEX_COMM_GROUP_TAG up (above MPI_TAG_UB). */
#define IBEX_COMM_GROUP_TAG (1 << 30)
ibex_status_t ibex_comm_create_group(ibex_comm_t *parent, ibex_group_t *group, int tag,
                                     ibex_comm_t **comm_p);
/* The same with the tag on parent's collective context given as is (sessions: MPI_Comm_create_
 * from_group agrees over MPI_COMM_WORLD's engine communicator with negative tags). */
ibex_status_t ibex_comm_create_tagged(ibex_comm_t *parent, ibex_group_t *group, int raw_tag,
                                      ibex_comm_t **comm_p);

/* Hardware levels (comm_hw.c): this process's colour at a level named as hwloc does
 * ("Package", "NUMANode", "L3Cache", "Core", "PU", ...) or "mpi_shared_memory" (the node);
 * -1 for a name not known, MPI_UNDEFINED when the process is not inside one object of it. */
int ibex_comm_hw_colour(const char *name);
/* The levels MPI_COMM_TYPE_HW_UNGUIDED tries, coarse to fine. */
#define IBEX_COMM_HW_NLEVELS 8
extern const char *const ibex_comm_hw_levels[IBEX_COMM_HW_NLEVELS];

/* How the two leaders reach each other: rank `peer` of `comm`, with `tag`, on its collective
 * context when coll (else its point-to-point context). */
typedef struct ibex_inter_link {
    ibex_comm_t *comm;
    int peer;
    int tag;
    bool coll;
} ibex_inter_link_t;

/* MPI_Intercomm_create: local_comm's group against the group behind the link's remote leader;
 * IBEX_ERR_INVALID when the groups overlap. */
ibex_status_t ibex_comm_inter_create(ibex_comm_t *local_comm, int local_leader,
                                     const ibex_inter_link_t *link, ibex_comm_t **inter_p);
/* MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create (group: a subset of the local group, the
 * same on every member of a side) of an intercommunicator. */
ibex_status_t ibex_comm_inter_dup(ibex_comm_t *inter, ibex_comm_t **inter_p);
ibex_status_t ibex_comm_inter_split(ibex_comm_t *inter, int colour, int key, ibex_comm_t **inter_p);
ibex_status_t ibex_comm_inter_subset(ibex_comm_t *inter, ibex_group_t *group,
                                     ibex_comm_t **inter_p);
/* The intercommunicator over (local's group, remote) on the reserved pair ctx, with from's
 * error handler; takes the reference on local, and gives it back (with ctx) on failure. */
ibex_status_t ibex_comm_inter_make(ibex_comm_t *local, ibex_group_t *remote, uint32_t ctx,
                                   const ibex_comm_t *from, ibex_comm_t **inter_p);
/* MPI_Intercomm_merge: an intracommunicator over both groups, the side with high = false
 * first (equal: the side whose leader has the lower world rank). */
ibex_status_t ibex_comm_inter_merge(ibex_comm_t *inter, bool high, ibex_comm_t **comm_p);

#endif
