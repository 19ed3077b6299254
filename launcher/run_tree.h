/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tree of daemons of a multi-host job (run_tree.c), shared by the head (run_head.c, the
 * root, node 0) and the daemons (run_daemon.c). Nodes are numbered as in the job's node map;
 * node n's children are n*k+1 .. n*k+k (k = the fanout, IBEX_DAEMON_FANOUT), its parent
 * (n-1)/k. Each node starts its children's daemons with the launch agent (the token on the
 * agent's stdin), accepts and authenticates their connections and sends each the job; from
 * then on every frame between two nodes travels along the tree's edges:
 *   - fences go up (a node sends its parent the contributions of its whole subtree, once its
 *     own ranks and every child have given theirs) and come down from the root;
 *   - a direct-modex request for a rank of another host goes up until the subtree holding the
 *     rank's node, then down to it; the answer returns the same way;
 *   - a failure goes up to the root, which reports it and sends STOP down the tree;
 *   - EXIT goes up once a node's ranks and all of its children are gone.
 * A node whose child's connection closes before the child's EXIT reports that host as lost; a
 * node whose parent goes away stops its ranks and its subtree. Every callback runs on the
 * job's thread.
 */
#ifndef IBEX_LAUNCHER_RUN_TREE_H
#define IBEX_LAUNCHER_RUN_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ibexrun.h"

#define IBEX_TREE_MAX_FANOUT 64 /* 3 poll slots per child within the job's 256 */

/* ---- the shape (pure) ---- */
int ibex_tree_parent(int node, int fanout); /* -1 for the root */
/* The child of `node` whose subtree holds `dest`, -1 if none (dest is node or outside). */
int ibex_tree_child_toward(int node, int dest, int fanout, int nnodes);
/* Edges from the root to the deepest node: ceil(log_k) of the nodes, 0 for one node. */
int ibex_tree_depth(int nnodes, int fanout);

/* ---- a node of the tree ---- */
typedef enum { TREE_KID_STARTING, TREE_KID_RUNNING, TREE_KID_DONE } ibex_tree_kid_state_t;

typedef struct ibex_tree_kid {
    int node;
    const char *name;
    pid_t agent;
    ibex_run_stream_t out, err; /* the agent's stdout / stderr */
    ibex_wire_conn_t conn;      /* fd -1 until authenticated */
    ibex_tree_kid_state_t state;
    ibex_wire_buf_t held; /* frames routed to it before it connected (whole frames) */
    bool fenced;          /* its subtree contributed to the current fence */
    char *fence;
    size_t fence_len;
} ibex_tree_kid_t;

typedef struct ibex_tree {
    int me, nnodes, fanout;
    char *const *names;  /* every node's host name */
    const int *node_of;  /* node of every rank */
    int size;            /* ranks in the job */
    bool local_ranks;    /* this node runs ranks */
    ibex_wire_conn_t up; /* to the parent; fd -1 at the root */
    const char *agent;   /* the launch agent's command line, NULL: ssh -o BatchMode=yes */
    bool slurm;          /* start children with srun */
    char token[IBEX_WIRE_TOKEN_LEN + 1];
    int listen_fd;
    char addr[128]; /* where children connect: IP:PORT */
    ibex_wire_conn_t pend[16];
    ibex_tree_kid_t kids[IBEX_TREE_MAX_FANOUT];
    int nkids;
    ibex_wire_buf_t common; /* the job as every node gets it (after the per-node header) */
    bool local_fenced;
    char *local_fence;
    size_t local_fence_len;
    long long connect_by_ms, give_up_ms;
    bool fail_sent;  /* a daemon reports one failure up */
    int remote_code; /* a child's non-zero exit without a failure before */
    ibex_run_job_t *job;
} ibex_tree_t;

/* Sets up the node: its children from the shape, a listening socket (its address: ip and the
 * port chosen), nothing started yet. */
ibex_status_t ibex_tree_init(ibex_tree_t *t, const char *ip);
/* Starts the children's launch agents (after the job exists: its signals are blocked). */
void ibex_tree_start(ibex_tree_t *t, ibex_run_job_t *job);
/* The job's hooks for this node; on_fail is the caller's. */
void ibex_tree_hooks(ibex_tree_t *t, ibex_run_hooks_t *hooks);
/* Stops every child (STOP down the tree) and gives them until the grace to be gone. */
void ibex_tree_stop_kids(ibex_tree_t *t, int code);
/* A failure to report: the root stops the job with it, a daemon sends it up once. */
void ibex_tree_fail(ibex_tree_t *t, int code, const char *msg);
void ibex_tree_free(ibex_tree_t *t);

#endif
