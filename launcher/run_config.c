/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun's table of tunables (see ibex_config.h for how tables register). libibex links this
 * file too: ranks inherit ibexrun's environment, so they must know the name (no "not an Ibex
 * variable" warning for it), and ibex_info, which reads libibex's tables, lists it.
 */
#include "run_config.h"

#include "ibex_config.h"

int ibex_run_abort_grace_ms;
int ibex_run_daemon_timeout_ms;
int ibex_run_daemon_fanout;

static const ibex_cfg_entry_t launcher_table[] = {
    {"ABORT_GRACE_MS", IBEX_CFG_INT, "1000", NULL, &ibex_run_abort_grace_ms,
     "ibexrun: milliseconds between SIGTERM and SIGKILL when stopping ranks"},
    /* hosts area */
    {"DAEMON_TIMEOUT_MS", IBEX_CFG_INT, "30000", NULL, &ibex_run_daemon_timeout_ms,
     "ibexrun: milliseconds a remote host's daemon has to connect back and authenticate"},
    {"DAEMON_FANOUT", IBEX_CFG_INT, "16", NULL, &ibex_run_daemon_fanout,
     "ibexrun: children per node in the tree of daemons of a multi-host job (1..64): each "
     "daemon starts and serves that many hosts, fences and direct-modex gets take about "
     "log_fanout(hosts) hops"},
};
IBEX_CFG_MODULE(launcher, "launcher", IBEX_CFG_LAYER_LAUNCHER, launcher_table);
