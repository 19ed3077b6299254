/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory hooks of the verbs transport (verbs_memhooks.c), in the spirit of UCX's ucm: the one
 * place that changes how the process manages memory so that cached registrations stay right.
 *
 * - At load time, in processes where verbs can be used (IBEX_TRANSPORTS unset, "auto", or a list
 *   naming verbs), malloc is told never to give memory back to the kernel.
 * - libibex exports munmap, mremap, madvise and mmap. In those processes they tell the registered
 *   client (the registration cache) which range is about to be unmapped or replaced, then make
 *   the system call; in every other process they only make the system call.
 */
#ifndef IBEX_VERBS_MEMHOOKS_H
#define IBEX_VERBS_MEMHOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ibex_status.h"

/* Called before [addr, addr + len) (len > 0) is unmapped or its pages are replaced, on whatever
 * thread made the call. Unmapping calls it makes itself come back here: it must tolerate being
 * re-entered. */
typedef void (*ibex_verbs_memhooks_cb_t)(void *arg, uintptr_t addr, size_t len);

/* Whether the hooks are active in this process (decided once, at load time). */
bool ibex_verbs_memhooks_active(void);

/* Whether an IBEX_TRANSPORTS value (NULL: unset) lets verbs open, parsed as the tunables table
 * and the transport selection do. Exposed for the tests. */
bool ibex_verbs_memhooks_wanted(const char *transports);

/* Registers the one client told about unmapped ranges. IBEX_ERR_UNSUPPORTED when the hooks are
 * not active (nothing would be reported), IBEX_ERR_INVALID when a client is already registered. */
ibex_status_t ibex_verbs_memhooks_register(ibex_verbs_memhooks_cb_t cb, void *arg);

/* Unregisters the client; returns once no hook is still calling it on another thread. */
void ibex_verbs_memhooks_unregister(void);

/* The system page size, read once. */
size_t ibex_verbs_page_size(void);

#endif
