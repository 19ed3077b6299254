/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host files, Open MPI's format: one host per line, optional "slots=N" and "max_slots=N",
 * '#' starts a comment, blank lines are ignored, a host listed twice adds its slots.
 *     node01 slots=4
 *     node02 slots=2 max_slots=8   # a comment
 * Pure: parses text, so every malformed line is unit-tested; errors name the line.
 * ibexrun does not start ranks on other hosts yet: its run_prepare.c accepts a host file that names
 * only this node and rejects any other host with a clear message.
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
