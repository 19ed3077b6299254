/* SPDX-License-Identifier: BSD-3-Clause */
/* ibexrun's tunables, filled by ibex_config_load from the table in run_config.c. */
#ifndef IBEX_RUN_CONFIG_H
#define IBEX_RUN_CONFIG_H

extern int ibex_run_abort_grace_ms;    /* SIGTERM -> SIGKILL grace when stopping ranks */
extern int ibex_run_daemon_timeout_ms; /* a remote daemon must connect back within this */
extern int ibex_run_daemon_fanout;     /* children per node of the tree of daemons */

#endif
