/* SPDX-License-Identifier: BSD-3-Clause */
/* The windows' table of tunables (see ibex_config.h for how tables register). */
#include "ibex_config.h"
#include "ibex_win.h"

int ibex_win_cfg_direct = 1;
int ibex_win_cfg_rdma = 1;
int ibex_win_cfg_am_piece = 1 << 30;
int ibex_win_cfg_am_poll = 1;
long long ibex_win_cfg_rdma_piece = 64ll << 20;

static const ibex_cfg_entry_t win_table[] = {
    {"WIN_DIRECT", IBEX_CFG_BOOL, "1", NULL, &ibex_win_cfg_direct,
     "windows whose members are all on this node work without the target's CPU: "
     "MPI_Win_allocate(_shared) on a shared mapping, MPI_Win_create by cross-memory attach, lock "
     "words in shared memory; 0 sends every operation (but the loads and stores of "
     "MPI_Win_allocate_shared) through the target's active-message path"},
    {"WIN_RDMA", IBEX_CFG_BOOL, "1", NULL, &ibex_win_cfg_rdma,
     "created and allocated windows that no node-local path serves (members on several nodes, "
     "or IBEX_WIN_DIRECT=0), when a transport with remote atomics reaches every member: "
     "contiguous put / get as RDMA WRITE / READ, locks and 8-byte atomics by remote atomics, "
     "no target CPU; 0 keeps them on the active-message path"},
    {"WIN_AM_PIECE", IBEX_CFG_INT, "1073741824", NULL, &ibex_win_cfg_am_piece,
     "an operation on the active-message path of more data bytes than this (1 to 2^30) travels as "
     "several requests of whole target elements (the port counts its bodies in int); set small it "
     "exercises the splitting"},
    {"WIN_RDMA_PIECE", IBEX_CFG_SIZE, "64m", NULL, &ibex_win_cfg_rdma_piece,
     "an accumulate on the network direct path of more data bytes than this runs as pieces of "
     "whole target elements, each through one reused, registered scratch buffer, so one "
     "operation's memory stays bounded (0: one piece)"},
    {"WIN_AM_POLL", IBEX_CFG_BOOL, "1", NULL, &ibex_win_cfg_am_poll,
     "an operation sent on the active-message path polls the progress engine once, so an "
     "origin issuing many operations answers the rendezvous handshakes of their replies (and "
     "sends the requests that wait for transport room) as it goes, and a target that issues "
     "operations of its own serves requests meanwhile; 0 leaves all of it to the next wait"},
};
IBEX_CFG_MODULE(win, "win", IBEX_CFG_LAYER_COLL, win_table);
