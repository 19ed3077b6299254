/* SPDX-License-Identifier: BSD-3-Clause */
/* Bootstrap helpers without PMIx. See ibex_boot_util.h. */
#include "ibex_boot_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parses one decimal rank at *p; advances *p past it. */
static int parse_rank(const char **p, int size, int *rank_p)
{
    char *end;
    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    long v = strtol(*p, &end, 10);
    if (errno != 0 || v < 0 || v >= size)
        return -1;
    *p = end;
    *rank_p = (int)v;
    return 0;
}

/* Parses "a" or "a-b" and marks the ranks in seen[]; returns the number marked or -1. */
static int parse_item(const char **p, int size, char *seen)
{
    int lo, hi;
    if (parse_rank(p, size, &lo) != 0)
        return -1;
    hi = lo;
    if (**p == '-') {
        (*p)++;
        if (parse_rank(p, size, &hi) != 0 || hi < lo)
            return -1;
    }
    for (int r = lo; r <= hi; r++) {
        if (seen[r])
            return -1;
        seen[r] = 1;
    }
    return hi - lo + 1;
}

ibex_status_t ibex_boot_parse_peers(const char *list, int size, int **peers_p, int *n_p)
{
    if (!list || size <= 0 || *list == '\0')
        return IBEX_ERR_INVALID;
    char *seen = calloc((size_t)size, 1);
    if (!seen)
        return IBEX_ERR_NO_MEMORY;
    int n = 0;
    for (const char *p = list;;) {
        int k = parse_item(&p, size, seen);
        if (k < 0 || (*p != ',' && *p != '\0'))
            goto err_parse;
        n += k;
        if (*p == '\0')
            break;
        p++;
    }
    int *peers = malloc((size_t)n * sizeof(*peers));
    if (!peers) {
        free(seen);
        return IBEX_ERR_NO_MEMORY;
    }
    for (int r = 0, i = 0; r < size; r++)
        if (seen[r])
            peers[i++] = r;
    free(seen);
    *peers_p = peers;
    *n_p = n;
    return IBEX_OK;
err_parse:
    free(seen);
    return IBEX_ERR_INVALID;
}

int ibex_boot_nodes_from_hosts(const char *const *hosts, int n, int *node_of)
{
    int nodes = 0;
    for (int i = 0; i < n; i++) {
        int id = -1;
        /* Quadratic, but only on the fallback path and over distinct names seen so far. */
        for (int j = 0; j < i && id < 0; j++)
            if (strcmp(hosts[j], hosts[i]) == 0)
                id = node_of[j];
        node_of[i] = id >= 0 ? id : nodes++;
    }
    return nodes;
}

bool ibex_boot_env_is_singleton(char *const *envp)
{
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "PMIX_NAMESPACE=", 15) == 0 || strncmp(*e, "PMIX_SERVER_URI", 15) == 0)
            return false;
    }
    return true;
}

struct ibex_boot_kvs {
    struct ibex_boot_kvs *next;
    char *key;
    void *data;
    size_t len;
};

static ibex_boot_kvs_t *kvs_find(ibex_boot_kvs_t *kvs, const char *key)
{
    for (; kvs; kvs = kvs->next)
        if (strcmp(kvs->key, key) == 0)
            return kvs;
    return NULL;
}

ibex_status_t ibex_boot_kvs_put(ibex_boot_kvs_t **kvs, const char *key, const void *data,
                                size_t len)
{
    void *copy = malloc(len ? len : 1);
    if (!copy)
        return IBEX_ERR_NO_MEMORY;
    memcpy(copy, data, len);
    ibex_boot_kvs_t *e = kvs_find(*kvs, key);
    if (e) {
        /* Like PMIx_Put, a second put of a key replaces its value. */
        free(e->data);
        e->data = copy;
        e->len = len;
        return IBEX_OK;
    }
    e = calloc(1, sizeof(*e));
    if (!e || !(e->key = strdup(key))) {
        free(e);
        free(copy);
        return IBEX_ERR_NO_MEMORY;
    }
    e->data = copy;
    e->len = len;
    e->next = *kvs;
    *kvs = e;
    return IBEX_OK;
}

ibex_status_t ibex_boot_kvs_get(ibex_boot_kvs_t *kvs, const char *key, void **data_p, size_t *len_p)
{
    ibex_boot_kvs_t *e = kvs_find(kvs, key);
    if (!e)
        return IBEX_ERR_INVALID;
    void *copy = malloc(e->len ? e->len : 1);
    if (!copy)
        return IBEX_ERR_NO_MEMORY;
    memcpy(copy, e->data, e->len);
    *data_p = copy;
    *len_p = e->len;
    return IBEX_OK;
}

void ibex_boot_kvs_free(ibex_boot_kvs_t **kvs)
{
    while (*kvs) {
        ibex_boot_kvs_t *e = *kvs;
        *kvs = e->next;
        free(e->key);
        free(e->data);
        free(e);
    }
}
