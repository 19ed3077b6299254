/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mapping and binding plan: a pure function of (ranks, cores, policy). Rank i goes to core
 * i % cores. The default binds only while every rank has a core of its own: once the node is
 * oversubscribed, binding would pin two busy ranks to one core while another core idles, so
 * they are left to the scheduler (and Ibex's waits yield). An explicit --bind-to core binds
 * round-robin even then, because the user asked for it.
 */
#include "ibex_launch.h"

#include <stdio.h>
#include <string.h>

ibex_status_t ibex_run_map_plan(int nranks, int ncores, ibex_run_bind_t bind, int *core_of)
{
    if (nranks < 1 || ncores < 0)
        return IBEX_ERR_INVALID;
    bool do_bind = ncores > 0 && (bind == IBEX_RUN_BIND_CORE ||
                                  (bind == IBEX_RUN_BIND_DEFAULT && nranks <= ncores));
    for (int i = 0; i < nranks; i++)
        core_of[i] = do_bind ? i % ncores : -1;
    return IBEX_OK;
}

void ibex_run_map_format_ranks(const int *ranks, int n, char *buf, size_t len)
{
    size_t pos = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < n && pos < len;) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        const char *sep = i == 0 ? "" : ",";
        int w = ranks[i] == ranks[j]
                    ? snprintf(buf + pos, len - pos, "%s%d", sep, ranks[i])
                    : snprintf(buf + pos, len - pos, "%s%d-%d", sep, ranks[i], ranks[j]);
        pos += w > 0 ? (size_t)w : 0;
        i = j + 1;
    }
    /* Truncated: say so rather than print a misleading short list. */
    if (pos >= len && len > 4)
        strcpy(buf + len - 4, "...");
}
