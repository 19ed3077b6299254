/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault injection for any transport (transport/fault.c): a decorator of one component's ops. */
#ifndef IBEX_TL_FAULT_H
#define IBEX_TL_FAULT_H

#include "transport.h"

/* Wraps the component IBEX_TL_FAULT names (nothing when it is "none"); before the transports
 * open. IBEX_ERR_INVALID (logged) for an unknown name or a value out of range. */
ibex_status_t ibex_tl_fault_install(void);

#endif
