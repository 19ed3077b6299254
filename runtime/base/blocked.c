/* SPDX-License-Identifier: BSD-3-Clause */
/* The blocked-call record's fast-path state (ibex_blocked.h). Here, in base, because every MPI
 * entry writes it, also in the unit tests that link the datatype entry points without the
 * engine; the engine maps the shared page in MPI_Init (runtime/engine/blocked.c). */
#include "ibex_blocked.h"

static ibex_blk_page_t blk_private;

__attribute__((visibility("hidden"))) ibex_blk_t ibex_blk = {.call = "", .page = &blk_private};
