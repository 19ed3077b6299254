/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibexrun's host plan: the hosts of --hostfile and -H (or this host alone), the number of
 * ranks of each MPMD application, and the host of every rank (ibex_run_map_hosts). Every problem
 * here is a usage error (exit 2) with one message. Ranks are numbered application by
 * application (app 0's ranks first), whatever host they land on.
 *
 * A plan with ranks on other hosts is run by the head (run_head.c) with one daemon per host.
 * Names of this host: localhost, 127.0.0.1, ::1, its host name and its short host name; they all
 * mean one node, so "-H localhost:2,myname:2" gives 4 slots here.
 */
#include "ibexrun.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool ibex_run_host_is_local(const char *h)
{
    char me[256] = "";
    gethostname(me, sizeof(me) - 1);
    size_t short_len = strcspn(me, ".");
    return strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 || strcmp(h, "::1") == 0 ||
           strcmp(h, me) == 0 || (strlen(h) == short_len && strncmp(h, me, short_len) == 0);
}

/* The whole file as a string (host files are small: 1 MiB at most). */
static char *hosts_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        ibex_run_say("--hostfile: cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20;
    char *text = malloc(cap + 1);
    size_t n = text ? fread(text, 1, cap, f) : 0;
    bool too_big = text && n == cap && fgetc(f) != EOF;
    fclose(f);
    if (!text || too_big) {
        ibex_run_say("--hostfile: %s is too large", path);
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

/* No host given inside a Slurm allocation: its nodes and slots (the resource manager's
 * environment, not tunables), as mpirun does there. */
static ibex_status_t hosts_slurm(ibex_run_hostfile_t *hf)
{
    const char *job = getenv("SLURM_JOB_ID"), *nodes = getenv("SLURM_JOB_NODELIST");
    char err[512];
    if (!job || !nodes || !*nodes)
        return IBEX_OK;
    if (ibex_run_hostlist_slurm(nodes, getenv("SLURM_TASKS_PER_NODE"), hf, err, sizeof(err)) !=
        IBEX_OK) {
        ibex_run_say("the Slurm allocation: %s", err);
        ibex_run_hostfile_free(hf);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

/* The host file, then every -H list, into one host table (a host named again adds slots). */
static ibex_status_t hosts_gather(const ibex_run_opts_t *o, ibex_run_hostfile_t *hf)
{
    char err[512];
    memset(hf, 0, sizeof(*hf));
    if (o->hostfile) {
        char *text = hosts_read_file(o->hostfile);
        if (!text)
            return IBEX_ERR_INVALID;
        ibex_status_t st = ibex_run_hostfile_parse(text, o->hostfile, hf, err, sizeof(err));
        free(text);
        if (st != IBEX_OK) {
            ibex_run_say("--hostfile: %s", err);
            return st;
        }
    }
    for (int i = 0; i < o->nhostlists; i++) {
        if (ibex_run_hostlist_parse(o->hostlists[i], hf, err, sizeof(err)) != IBEX_OK) {
            ibex_run_say("%s", err);
            ibex_run_hostfile_free(hf);
            return IBEX_ERR_INVALID;
        }
    }
    return hf->nhosts ? IBEX_OK : hosts_slurm(hf);
}

/* No host given: this host, with room for every rank (one node always allows oversubscribing). */
static ibex_status_t hosts_default(ibex_run_hostfile_t *hf, int nranks)
{
    hf->hosts = calloc(1, sizeof(*hf->hosts));
    if (!hf->hosts)
        return IBEX_ERR_NO_MEMORY;
    hf->nhosts = 1;
    snprintf(hf->hosts[0].name, sizeof(hf->hosts[0].name), "localhost");
    hf->hosts[0].slots = nranks;
    return IBEX_OK;
}

/* The ranks of each application: -n, or, for a single application without -n, every slot
 * (or --npernode per host). Returns the total, or -1 after a message. */
static int hosts_count_ranks(ibex_run_opts_t *o, const ibex_run_hostfile_t *hf, bool given)
{
    long long total = 0;
    if (o->napps == 1 && !o->apps[0].nranks_set && (given || o->npernode)) {
        long long slots = 0;
        for (int h = 0; h < hf->nhosts; h++)
            slots += hf->hosts[h].slots;
        long long n = o->npernode ? (long long)o->npernode * (given ? hf->nhosts : 1) : slots;
        o->apps[0].nranks = (int)(n < IBEX_RUN_MAX_RANKS ? n : IBEX_RUN_MAX_RANKS);
    }
    for (int a = 0; a < o->napps; a++)
        total += o->apps[a].nranks;
    if (total > IBEX_RUN_MAX_RANKS) {
        ibex_run_say("%lld ranks in all: at most %d", total, IBEX_RUN_MAX_RANKS);
        return -1;
    }
    o->nranks = o->apps[0].nranks;
    return (int)total;
}

bool ibex_run_plan_is_local(const ibex_run_plan_t *p)
{
    for (int r = 0; r < p->nranks; r++)
        if (!ibex_run_host_is_local(p->hosts.hosts[p->host_of[r]].name))
            return false;
    return true;
}

static ibex_status_t hosts_place(ibex_run_opts_t *o, ibex_run_plan_t *p, bool given)
{
    char err[512];
    p->host_of = calloc((size_t)p->nranks, sizeof(*p->host_of));
    p->app_of = calloc((size_t)p->nranks, sizeof(*p->app_of));
    if (!p->host_of || !p->app_of)
        return IBEX_ERR_NO_MEMORY;
    for (int a = 0, r = 0; a < o->napps; a++)
        for (int k = 0; k < o->apps[a].nranks; k++)
            p->app_of[r++] = a;
    /* Without a host list the one node always allows oversubscribing (as before). */
    bool over = o->oversubscribe || !given;
    if (ibex_run_map_hosts(&p->hosts, p->nranks, o->map_by, o->npernode, over, p->host_of, err,
                           sizeof(err)) != IBEX_OK) {
        ibex_run_say("%s", err);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

int ibex_run_hosts_plan(ibex_run_opts_t *o, ibex_run_plan_t *p)
{
    memset(p, 0, sizeof(*p));
    if (hosts_gather(o, &p->hosts) != IBEX_OK)
        return IBEX_RUN_EXIT_USAGE;
    bool given = p->hosts.nhosts > 0;
    int total = hosts_count_ranks(o, &p->hosts, given);
    if (total < 0)
        return IBEX_RUN_EXIT_USAGE;
    p->nranks = total;
    if (!given && hosts_default(&p->hosts, total) != IBEX_OK)
        return IBEX_RUN_EXIT_INTERNAL;
    ibex_status_t st = hosts_place(o, p, given);
    if (st == IBEX_ERR_NO_MEMORY)
        return IBEX_RUN_EXIT_INTERNAL;
    return st == IBEX_OK ? -1 : IBEX_RUN_EXIT_USAGE;
}

void ibex_run_hosts_plan_free(ibex_run_plan_t *p)
{
    ibex_run_hostfile_free(&p->hosts);
    free(p->host_of);
    free(p->app_of);
    p->host_of = p->app_of = NULL;
}
