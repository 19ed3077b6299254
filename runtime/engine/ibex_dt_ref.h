/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Datatype lifetime (runtime/engine/datatype.c). MPI_Type_free invalidates the handle at once, but
 * a request still using the type keeps the object alive: the p2p engine retains the type when a
 * request starts and releases it when the request completes. Predefined types are never freed.
 */
#ifndef IBEX_DT_REF_H
#define IBEX_DT_REF_H

#include "ibex_datatype.h"

void ibex_dt_retain(ibex_dt_t *dt);
/* Drops one reference; the last one frees the type. */
void ibex_dt_release(ibex_dt_t *dt);

#endif
