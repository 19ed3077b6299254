/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host files, Open MPI's format: one host per line, optional "slots=N" and "max_slots=N",
 * '#' starts a comment, blank lines are ignored, a host listed twice adds its slots.
 *     node01 slots=4
 *     node02 slots=2 max_slots=8   # a comment
 * Pure: parses text, so every malformed line is unit-tested; errors name the line.
 * Host lists (-H host1:4,host2) are parsed here too, into the same structure: each entry is a
 * host with an optional slot count (1 without one), and a host named twice adds its slots, as
 * in Open MPI.
 */
#include "ibex_launch.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define HOSTFILE_MAX_HOSTS 4096

static bool hf_host_valid(const char *h, size_t n)
{
    if (n == 0 || n > 255)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)h[i]) && !strchr(".-_:[]", h[i]))
            return false;
    return true;
}

static bool hf_count(const char *v, int *out)
{
    char *end;
    if (!isdigit((unsigned char)*v))
        return false;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*end != '\0' || errno || n < 1 || n > INT_MAX)
        return false;
    *out = (int)n;
    return true;
}

/* One "key=value" word after the host name. */
static ibex_status_t hf_attr(char *word, ibex_run_host_t *h, const char *name, int line, char *err,
                             size_t len)
{
    char *eq = strchr(word, '=');
    int v;
    if (!eq) {
        snprintf(err, len, "%s:%d: '%s' is not key=value", name, line, word);
        return IBEX_ERR_INVALID;
    }
    *eq = '\0';
    bool slots = strcmp(word, "slots") == 0 || strcmp(word, "cpu") == 0;
    if (!slots && strcmp(word, "max_slots") != 0) {
        snprintf(err, len, "%s:%d: unknown keyword '%s' (expected slots or max_slots)", name, line,
                 word);
        return IBEX_ERR_INVALID;
    }
    if (!hf_count(eq + 1, &v)) {
        snprintf(err, len, "%s:%d: %s must be a whole number >= 1, not '%s'", name, line, word,
                 eq + 1);
        return IBEX_ERR_INVALID;
    }
    if (slots)
        h->slots = v;
    else
        h->max_slots = v;
    return IBEX_OK;
}

static int hf_find(const ibex_run_hostfile_t *hf, const char *host)
{
    for (int i = 0; i < hf->nhosts; i++)
        if (strcmp(hf->hosts[i].name, host) == 0)
            return i;
    return -1;
}

/* Adds a repeated host's slots; the smaller max_slots holds, and must hold for the sum (found by
 * tests/fuzz/fuzz_hostfile: the per-line check alone let "h max_slots=2" then "h slots=2" by). */
static ibex_status_t hf_merge(ibex_run_host_t *o, const ibex_run_host_t *h, const char *name,
                              int line, char *err, size_t len)
{
    if (h->max_slots && (!o->max_slots || h->max_slots < o->max_slots))
        o->max_slots = h->max_slots;
    if (o->slots > INT_MAX - h->slots) {
        snprintf(err, len, "%s:%d: more than %d slots for %s in all", name, line, INT_MAX, o->name);
        return IBEX_ERR_INVALID;
    }
    o->slots += h->slots;
    if (o->max_slots && o->slots > o->max_slots) {
        snprintf(err, len, "%s:%d: %d slots for %s in all is more than max_slots=%d", name, line,
                 o->slots, o->name, o->max_slots);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

static ibex_status_t hf_add(ibex_run_hostfile_t *hf, const ibex_run_host_t *h, const char *name,
                            int line, char *err, size_t len)
{
    int i = hf_find(hf, h->name);
    if (i >= 0) /* listed again: its slots add up, as in Open MPI */
        return hf_merge(&hf->hosts[i], h, name, line, err, len);
    if (hf->nhosts == HOSTFILE_MAX_HOSTS) {
        snprintf(err, len, "%s:%d: more than %d hosts", name, line, HOSTFILE_MAX_HOSTS);
        return IBEX_ERR_INVALID;
    }
    ibex_run_host_t *grown = realloc(hf->hosts, (size_t)(hf->nhosts + 1) * sizeof(*grown));
    if (!grown) {
        snprintf(err, len, "out of memory");
        return IBEX_ERR_NO_MEMORY;
    }
    hf->hosts = grown;
    hf->hosts[hf->nhosts++] = *h;
    return IBEX_OK;
}

/* Parses one line (modified in place); blank and comment lines add nothing. */
static ibex_status_t hf_line(ibex_run_hostfile_t *hf, char *text, const char *name, int line,
                             char *err, size_t len)
{
    char *hash = strchr(text, '#'), *save = NULL;
    if (hash)
        *hash = '\0';
    char *word = strtok_r(text, " \t\r", &save);
    if (!word)
        return IBEX_OK;
    ibex_run_host_t h = {.slots = 1};
    if (!hf_host_valid(word, strlen(word))) {
        snprintf(err, len, "%s:%d: '%.64s' is not a host name", name, line, word);
        return IBEX_ERR_INVALID;
    }
    snprintf(h.name, sizeof(h.name), "%s", word);
    while ((word = strtok_r(NULL, " \t\r", &save)))
        if (hf_attr(word, &h, name, line, err, len) != IBEX_OK)
            return IBEX_ERR_INVALID;
    if (h.max_slots && h.slots > h.max_slots) {
        snprintf(err, len, "%s:%d: slots=%d is more than max_slots=%d", name, line, h.slots,
                 h.max_slots);
        return IBEX_ERR_INVALID;
    }
    return hf_add(hf, &h, name, line, err, len);
}

ibex_status_t ibex_run_hostfile_parse(const char *text, const char *name, ibex_run_hostfile_t *hf_p,
                                      char *err, size_t errlen)
{
    ibex_run_hostfile_t hf = {0};
    char *copy = strdup(text);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return IBEX_ERR_NO_MEMORY;
    }
    ibex_status_t st = IBEX_OK;
    int line = 1;
    /* strsep, not strtok: empty lines must still count for the line numbers. */
    for (char *rest = copy, *l; st == IBEX_OK && (l = strsep(&rest, "\n")); line++)
        st = hf_line(&hf, l, name, line, err, errlen);
    free(copy);
    if (st == IBEX_OK && hf.nhosts == 0) {
        snprintf(err, errlen, "%s: no host in the file", name);
        st = IBEX_ERR_INVALID;
    }
    if (st != IBEX_OK) {
        ibex_run_hostfile_free(&hf);
        return st;
    }
    *hf_p = hf;
    return IBEX_OK;
}

void ibex_run_hostfile_free(ibex_run_hostfile_t *hf)
{
    free(hf->hosts);
    hf->hosts = NULL;
    hf->nhosts = 0;
}

/* ---- host lists: "host1:4,host2,host1:2" ---- */

/* One entry "host[:slots]" of a host list. */
static ibex_status_t hl_entry(ibex_run_hostfile_t *hf, const char *e, size_t n, char *err,
                              size_t len)
{
    ibex_run_host_t h = {.slots = 1};
    const char *colon = memchr(e, ':', n);
    size_t hn = colon ? (size_t)(colon - e) : n;
    if (!hf_host_valid(e, hn) || memchr(e, '[', hn)) {
        snprintf(err, len, "-H: '%.*s' is not a host name", (int)(n > 64 ? 64 : n), e);
        return IBEX_ERR_INVALID;
    }
    snprintf(h.name, sizeof(h.name), "%.*s", (int)hn, e);
    if (colon) {
        char count[32];
        snprintf(count, sizeof(count), "%.*s", (int)(n - hn - 1), colon + 1);
        if (n - hn - 1 >= sizeof(count) || !hf_count(count, &h.slots)) {
            snprintf(err, len, "-H: the slots of '%s' must be a whole number >= 1, not '%.*s'",
                     h.name, (int)(n - hn - 1 > 32 ? 32 : n - hn - 1), colon + 1);
            return IBEX_ERR_INVALID;
        }
    }
    return hf_add(hf, &h, "-H", 0, err, len);
}

ibex_status_t ibex_run_hostlist_parse(const char *list, ibex_run_hostfile_t *hf, char *err,
                                      size_t errlen)
{
    for (const char *p = list;;) {
        size_t n = strcspn(p, ",");
        if (n == 0) {
            snprintf(err, errlen, "-H: empty host name in '%.64s'", list);
            return IBEX_ERR_INVALID;
        }
        ibex_status_t st = hl_entry(hf, p, n, err, errlen);
        if (st != IBEX_OK)
            return st;
        if (p[n] == '\0')
            return IBEX_OK;
        p += n + 1;
    }
}

/* ---- a Slurm allocation: SLURM_JOB_NODELIST "n[1-3,5],gpu07", SLURM_TASKS_PER_NODE "2(x3),1" ----
 */

/* Adds prefix + each number of "1-3,05" + suffix; widths kept ("05" -> 2 digits). */
static ibex_status_t sl_ranges(ibex_run_hostfile_t *hf, const char *pre, size_t plen,
                               const char *ranges, const char *suf, char *err, size_t len)
{
    for (const char *p = ranges; *p;) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        int width = (int)(end - p);
        if (end == p || a < 0)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        if (b < a || b - a > HOSTFILE_MAX_HOSTS)
            break;
        for (long v = a; v <= b; v++) {
            ibex_run_host_t h = {.slots = 1};
            snprintf(h.name, sizeof(h.name), "%.*s%0*ld%s", (int)plen, pre, width, v, suf);
            if (hf_add(hf, &h, "SLURM_JOB_NODELIST", 0, err, len) != IBEX_OK)
                return IBEX_ERR_INVALID;
        }
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            break;
        if (!*end)
            return IBEX_OK;
    }
    snprintf(err, len, "SLURM_JOB_NODELIST: cannot read the ranges '%.64s'", ranges);
    return IBEX_ERR_INVALID;
}

/* One item of the node list: "name" or "prefix[ranges]suffix". */
static ibex_status_t sl_item(ibex_run_hostfile_t *hf, const char *item, char *err, size_t len)
{
    const char *open = strchr(item, '['), *close = open ? strchr(open, ']') : NULL;
    if (!open) {
        ibex_run_host_t h = {.slots = 1};
        snprintf(h.name, sizeof(h.name), "%s", item);
        return hf_add(hf, &h, "SLURM_JOB_NODELIST", 0, err, len);
    }
    if (!close) {
        snprintf(err, len, "SLURM_JOB_NODELIST: no ']' in '%.64s'", item);
        return IBEX_ERR_INVALID;
    }
    char ranges[256];
    snprintf(ranges, sizeof(ranges), "%.*s", (int)(close - open - 1), open + 1);
    return sl_ranges(hf, item, (size_t)(open - item), ranges, close + 1, err, len);
}

/* Slots from "2(x3),1": each count, repeated. */
static ibex_status_t sl_tasks(ibex_run_hostfile_t *hf, const char *tasks, char *err, size_t len)
{
    int h = 0;
    for (const char *p = tasks; *p && h < hf->nhosts;) {
        char *end;
        long n = strtol(p, &end, 10), rep = 1;
        if (end == p || n < 1)
            break;
        if (strncmp(end, "(x", 2) == 0) {
            rep = strtol(end + 2, &end, 10);
            end += *end == ')';
        }
        for (long k = 0; k < rep && h < hf->nhosts; k++)
            hf->hosts[h++].slots = (int)n;
        p = *end == ',' ? end + 1 : end;
    }
    if (h != hf->nhosts) {
        snprintf(err, len, "SLURM_TASKS_PER_NODE: '%.64s' does not give %d hosts their slots",
                 tasks, hf->nhosts);
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

ibex_status_t ibex_run_hostlist_slurm(const char *nodelist, const char *tasks,
                                      ibex_run_hostfile_t *hf, char *err, size_t errlen)
{
    char *copy = strdup(nodelist);
    ibex_status_t st = copy ? IBEX_OK : IBEX_ERR_NO_MEMORY;
    /* items are separated by commas outside brackets */
    for (char *p = copy; st == IBEX_OK && p && *p;) {
        char *q = p;
        int depth = 0;
        while (*q && (depth || *q != ',')) {
            depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
            q++;
        }
        char *next = *q ? q + 1 : NULL;
        *q = '\0';
        st = sl_item(hf, p, err, errlen);
        p = next;
    }
    free(copy);
    if (st == IBEX_OK && tasks && *tasks)
        st = sl_tasks(hf, tasks, err, errlen);
    return st;
}
