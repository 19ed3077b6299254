/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mapping and binding plan: a pure function of (ranks, cores, policy). Rank i goes to core
 * i % cores. The default binds while every rank has a core of its own, and on an oversubscribed
 * node when the ranks divide evenly over the cores (4 or 8 ranks on 2 cores): every core then
 * holds the same number of ranks, and a rank that yields hands its core to a rank of its own
 * core at once instead of the scheduler migrating ranks between cores (measured with
 * examples/pollring at 4 and 8 ranks on 2 cores: about 20% less time per step, README Speed).
 * When they do not divide (3 ranks on 2 cores), binding would leave one core with more busy
 * ranks than another while that one idles, so they are left to the scheduler. An explicit
 * --bind-to core binds round-robin in every case, because the user asked for it.
 *
 * Placement on hosts (ibex_run_map_hosts) comes first, also pure: by slot (and by core, which
 * places the same way across hosts) fills each host's slots in list order; by node deals ranks
 * one per host in turn; --npernode N puts ranks N at a time on the hosts in order. Slots are a
 * hard limit unless oversubscribing is allowed; then each further pass gives every host its
 * slots again, up to max_slots.
 */
#include "ibex_launch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ibex_status_t ibex_run_map_plan(int nranks, int ncores, ibex_run_bind_t bind, int *core_of)
{
    if (nranks < 1 || ncores < 0)
        return IBEX_ERR_INVALID;
    bool even = ncores > 0 && (nranks <= ncores || nranks % ncores == 0);
    bool do_bind =
        ncores > 0 && (bind == IBEX_RUN_BIND_CORE || (bind == IBEX_RUN_BIND_DEFAULT && even));
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

/* ---- placement on hosts ---- */

typedef struct map_state {
    const ibex_run_hostfile_t *hf;
    int *count; /* ranks placed on each host */
    int *host_of;
    int next; /* next rank to place */
    int nranks;
} map_state_t;

static int map_limit(const ibex_run_host_t *h, bool oversubscribe)
{
    if (!oversubscribe)
        return h->slots;
    return h->max_slots ? h->max_slots : INT_MAX;
}

/* One pass: every host may hold up to `pass + 1` times its slots (within its limit). Returns
 * the number of ranks placed. */
static int map_pass(map_state_t *m, ibex_run_mapby_t by, int pass, bool oversubscribe)
{
    int placed = 0;
    bool again = true;
    while (again && m->next < m->nranks) {
        again = false;
        for (int h = 0; h < m->hf->nhosts && m->next < m->nranks; h++) {
            const ibex_run_host_t *host = &m->hf->hosts[h];
            long long quota = (long long)host->slots * (pass + 1);
            int limit = map_limit(host, oversubscribe);
            quota = quota < limit ? quota : limit;
            /* by node: one rank per host per round; by slot: fill the host's quota */
            int take = by == IBEX_RUN_MAP_NODE ? 1 : (int)(quota - m->count[h]);
            for (int k = 0; k < take && m->count[h] < quota && m->next < m->nranks; k++) {
                m->host_of[m->next++] = h;
                m->count[h]++;
                placed++;
                again = by == IBEX_RUN_MAP_NODE;
            }
        }
    }
    return placed;
}

static ibex_status_t map_npernode(map_state_t *m, int npernode, bool oversubscribe, char *err,
                                  size_t len)
{
    if ((long long)npernode * m->hf->nhosts < m->nranks) {
        snprintf(err, len, "--npernode %d on %d host%s places at most %lld ranks, not %d", npernode,
                 m->hf->nhosts, m->hf->nhosts == 1 ? "" : "s", (long long)npernode * m->hf->nhosts,
                 m->nranks);
        return IBEX_ERR_INVALID;
    }
    for (int r = 0; r < m->nranks; r++) {
        int h = r / npernode;
        const ibex_run_host_t *host = &m->hf->hosts[h];
        if (r % npernode == 0 && npernode > map_limit(host, oversubscribe)) {
            snprintf(err, len, "--npernode %d: host %s has only %d slot%s (%s)", npernode,
                     host->name, map_limit(host, oversubscribe),
                     map_limit(host, oversubscribe) == 1 ? "" : "s",
                     oversubscribe ? "max_slots" : "or use --oversubscribe");
            return IBEX_ERR_INVALID;
        }
        m->host_of[r] = h;
    }
    return IBEX_OK;
}

ibex_status_t ibex_run_map_hosts(const ibex_run_hostfile_t *hf, int nranks, ibex_run_mapby_t by,
                                 int npernode, bool oversubscribe, int *host_of, char *err,
                                 size_t len)
{
    if (nranks < 1 || !hf || hf->nhosts < 1) {
        snprintf(err, len, "no ranks or no hosts to place them on");
        return IBEX_ERR_INVALID;
    }
    int *count = calloc((size_t)hf->nhosts, sizeof(*count));
    if (!count) {
        snprintf(err, len, "out of memory");
        return IBEX_ERR_NO_MEMORY;
    }
    map_state_t m = {.hf = hf, .count = count, .host_of = host_of, .nranks = nranks};
    ibex_status_t st = IBEX_OK;
    if (npernode > 0)
        st = map_npernode(&m, npernode, oversubscribe, err, len);
    else
        for (int pass = 0; m.next < nranks; pass++)
            if (map_pass(&m, by, pass, oversubscribe) == 0 && (pass > 0 || !oversubscribe))
                break;
    if (st == IBEX_OK && npernode <= 0 && m.next < nranks) {
        long long slots = 0;
        for (int h = 0; h < hf->nhosts; h++)
            slots += oversubscribe ? map_limit(&hf->hosts[h], true) : hf->hosts[h].slots;
        snprintf(err, len, "not enough slots: %d ranks, %lld %son %d host%s (%s)", nranks, slots,
                 oversubscribe ? "max_slots " : "slots ", hf->nhosts, hf->nhosts == 1 ? "" : "s",
                 oversubscribe ? "raise max_slots" : "give more slots, or --oversubscribe");
        st = IBEX_ERR_INVALID;
    }
    free(count);
    return st;
}
