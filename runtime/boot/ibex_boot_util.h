/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bootstrap helpers with no PMIx in them (runtime/boot/boot_util.c), kept apart from boot.c so that
 * unit tests exercise them without a launcher: parsing PMIx's string values, deriving node ids
 * from host names, the singleton's in-process key store, and the singleton test itself.
 */
#ifndef IBEX_BOOT_UTIL_H
#define IBEX_BOOT_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "ibex_status.h"

/* Parses PMIX_LOCAL_PEERS ("0,1,2" or ranges "0-3,8"), every rank in [0, size). On success
 * *peers_p is a malloc'd ascending array of *n_p ranks; IBEX_ERR_INVALID on any bad token or a
 * duplicate. */
ibex_status_t ibex_boot_parse_peers(const char *list, int size, int **peers_p, int *n_p);

/* Gives every distinct host name a node id, in order of first appearance (hosts[0] gets 0).
 * Fills node_of[i] for i in [0, n) and returns the number of distinct names. */
int ibex_boot_nodes_from_hosts(const char *const *hosts, int n, int *node_of);

/* True when the environment holds no sign of a PMIx server (PMIX_NAMESPACE or any
 * PMIX_SERVER_URI* variable): the process then runs as a 1-rank job. envp is NULL-terminated. */
bool ibex_boot_env_is_singleton(char *const *envp);

/* A tiny key-value store: the singleton's stand-in for the PMIx server. */
typedef struct ibex_boot_kvs ibex_boot_kvs_t;
ibex_status_t ibex_boot_kvs_put(ibex_boot_kvs_t **kvs, const char *key, const void *data,
                                size_t len);
/* A malloc'd copy of the value, or IBEX_ERR_INVALID when the key is absent. */
ibex_status_t ibex_boot_kvs_get(ibex_boot_kvs_t *kvs, const char *key, void **data_p,
                                size_t *len_p);
void ibex_boot_kvs_free(ibex_boot_kvs_t **kvs);

#endif
