/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Communicators and groups (runtime/engine/comm.c, runtime/engine/group.c).
 *
 * Every communicator owns two context ids: context_id for point-to-point and context_id + 1
 * for collectives, so collective traffic never matches a user receive. Ids are allocated in
 * pairs and agreed collectively over the parent (a bitmap AND-reduced over the parent's
 * collective context), so no two live communicators share one.
 */
#ifndef IBEX_COMM_H
#define IBEX_COMM_H

#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include "ibex_handle.h"
#include "ibex_status.h"

#define IBEX_MAX_CONTEXT_IDS 8192

typedef struct ibex_group {
    int handle;
    int refcount;
    int size;
    int my_rank;      /* rank of this process in the group, or MPI_UNDEFINED */
    int *world_ranks; /* group rank -> world rank */
    int session;      /* MPI_Session of MPI_Group_from_session_pset, 0 for none */
} ibex_group_t;

struct ibex_match_queue; /* runtime/engine/ibex_match.h */

typedef struct ibex_comm {
    int handle;
    int refcount;
    uint32_t context_id; /* even; context_id + 1 is the collective context */
    int rank, size;
    ibex_group_t *group;
    /* Whom point-to-point ranks name: group itself, or an intercommunicator's remote group. */
    ibex_group_t *peers;
    int peer_size;
    /* An intercommunicator's internal intracommunicator over its local group (its own context
     * pair, no handle): the local half of the intercommunicator's constructors. NULL: intra. */
    struct ibex_comm *local;
    int errhandler;                 /* MPI_Errhandler handle */
    bool errhandler_set;            /* set explicitly by the program */
    struct ibex_match_queue *pt2pt; /* matching state of context_id */
    struct ibex_match_queue *coll;  /* matching state of context_id + 1 */
    int coll_tag;                   /* sequence for internal collective tags */
    /* The shared-memory collectives' state (collectives/base/coll_shm.c), made at the first
     * collective that needs it; the engine only calls its destructor when the communicator
     * goes, so it never needs to know what is inside. */
    void *coll_shm;
    void (*coll_shm_free)(void *state);
    char name[MPI_MAX_OBJECT_NAME];
    void *topo;  /* process topology (runtime/comm/ibex_topo.h): one block, freed with the comm */
    int session; /* MPI_Session it derives from (runtime/mpi sets it), 0 for none */
} ibex_comm_t;

extern ibex_comm_t *ibex_comm_world;
extern ibex_comm_t *ibex_comm_self;

/* The communicator of a handle, or NULL if it is not a live communicator. */
ibex_comm_t *ibex_comm_get(MPI_Comm handle);
/* The communicator handle table behind ibex_comm_get, read inline by the p2p fast path. */
extern ibex_handle_table_t ibex_comm_handles;
ibex_group_t *ibex_group_get(MPI_Group handle);

static inline bool ibex_comm_is_inter(const ibex_comm_t *comm)
{
    return comm->local != NULL;
}

/* World rank of the peer that point-to-point rank `rank` names (remote group if inter). */
static inline int ibex_comm_world_rank(const ibex_comm_t *comm, int rank)
{
    return comm->peers->world_ranks[rank];
}

/* Creates a communicator over `group` with an agreed context id, collectively over `parent`
 * (every member of parent calls it; those not in group pass NULL and get NULL back). */
ibex_status_t ibex_comm_create_from(ibex_comm_t *parent, ibex_group_t *group, ibex_comm_t **comm_p);
/* Frees a communicator whose last reference went (out of line: the release is on the hot path). */
void ibex_comm_destroy(ibex_comm_t *comm);

/* References: the program's handle, and every request on the communicator until released. */
static inline void ibex_comm_retain(ibex_comm_t *comm)
{
    comm->refcount++;
}

static inline void ibex_comm_release(ibex_comm_t *comm)
{
    if (comm && --comm->refcount == 0)
        ibex_comm_destroy(comm);
}

ibex_group_t *ibex_group_new(int size);
void ibex_group_release(ibex_group_t *group);

#endif
