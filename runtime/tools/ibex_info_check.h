/* SPDX-License-Identifier: BSD-3-Clause */
/* ibex_info --check (info_check.c): the preflight checks of this node and what to fix. */
#ifndef IBEX_INFO_CHECK_H
#define IBEX_INFO_CHECK_H

/* Prints one line per check on stdout; returns 0 when none failed, else 1. */
int ibex_info_check(void);

#endif
