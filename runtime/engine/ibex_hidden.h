/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IBEX_ENGINE_HIDDEN marks an engine variable that only libibex itself reads (nothing outside
 * the library links against it: tests and tools use the MPI and MPI_T interfaces). Without it
 * every access from position-independent code first loads the variable's address from the GOT:
 * one instruction more per variable per function on the hot path (callgrind, issue 18), as
 * ibex_blk in runtime/base/ibex_blocked.h already avoids.
 */
#ifndef IBEX_HIDDEN_H
#define IBEX_HIDDEN_H

#define IBEX_ENGINE_HIDDEN __attribute__((visibility("hidden")))

#endif
