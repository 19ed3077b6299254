/*
 * The one table of tunables. Every IBEX_* variable is a row in config.c (name, type, default,
 * doc) and a field of ibex_config_t; the table is parsed once at start-up (ibex_config_load) and
 * nothing else in Ibex calls getenv() for a tunable. ibex_info prints the table.
 */
#ifndef IBEX_CONFIG_H
#define IBEX_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "ibex_status.h"

/* A size that may be "auto": IBEX_SIZE_AUTO means "derive from capabilities". */
#define IBEX_SIZE_AUTO ((long long)-1)

typedef enum { IBEX_RNDV_AUTO, IBEX_RNDV_READ, IBEX_RNDV_WRITE } ibex_rndv_scheme_t;
typedef enum { IBEX_WAIT_AUTO, IBEX_WAIT_SPIN, IBEX_WAIT_YIELD } ibex_wait_policy_t;

typedef struct ibex_config {
    /* logging */
    int log_level;
    char *log_subsys;
    /* transports and protocols */
    char *transports;         /* "auto" or a list: self,shm,verbs */
    long long eager_limit;    /* bytes of payload sent eagerly, or IBEX_SIZE_AUTO */
    int rndv_scheme;          /* ibex_rndv_scheme_t */
    long long rndv_frag_size; /* rendezvous pipeline fragment */
    long long rndv_split_min; /* auto scheme: SPLIT from this size on CPU-copy transports */
    long long unexpected_max; /* bytes of buffered unexpected eager data per process */
    /* waiting */
    int wait_policy; /* ibex_wait_policy_t */
    int spin_count;  /* progress polls before yielding */
    /* shared memory */
    int shm_ring_slots;       /* slots per sender->receiver ring */
    long long shm_slot_size;  /* bytes per slot, header included */
    long long shm_stream_min; /* payload bytes from which ring copies stream, 0: never */
    /* verbs */
    char *verbs_device;         /* "device[:port]" or "auto" */
    int verbs_srq_size;         /* receive buffers in the shared receive queue */
    long long verbs_buf_size;   /* bytes per eager receive buffer */
    int verbs_credits;          /* eager sends in flight per peer */
    int verbs_rc_timeout;       /* IB local ack timeout exponent (4.096 us * 2^n) */
    int verbs_retry_count;      /* transport retries before a peer is declared dead */
    long long verbs_rcache_max; /* registration cache limit in bytes */
    int verbs_connect_timeout;  /* seconds a connection request may go unanswered, 0: no limit */
    int verbs_fork;             /* call ibv_fork_init() at start-up */
    /* collectives: an algorithm name per collective, or "auto" (order of IBEX_COLL_KIND_LIST) */
    char *coll_algo[8];
    /* misc */
    int abort_grace_ms; /* launcher: SIGTERM -> SIGKILL grace */
} ibex_config_t;

extern ibex_config_t ibex_config;

typedef enum {
    IBEX_CFG_INT,
    IBEX_CFG_BOOL,
    IBEX_CFG_SIZE,      /* bytes, with k/m/g suffixes */
    IBEX_CFG_SIZE_AUTO, /* bytes or "auto" */
    IBEX_CFG_STRING,
    IBEX_CFG_ENUM, /* one of the '|'-separated choices, stored as its index */
    IBEX_CFG_LOGLEVEL,
} ibex_cfg_type_t;

typedef struct ibex_cfg_entry {
    const char *name; /* without the IBEX_ prefix */
    ibex_cfg_type_t type;
    const char *defval;
    const char *choices; /* IBEX_CFG_ENUM only: "auto|read|write" */
    size_t offset;       /* into ibex_config_t */
    const char *doc;
} ibex_cfg_entry_t;

/* Loads defaults then the environment. Returns IBEX_ERR_INVALID (after logging which variable
 * and why) if a value does not parse. */
ibex_status_t ibex_config_load(void);
/* Parses one value of a given entry into ibex_config (exposed for tests). */
ibex_status_t ibex_config_set(const ibex_cfg_entry_t *entry, const char *value);
const ibex_cfg_entry_t *ibex_config_find(const char *name);
/* Iterates the table: returns the i-th entry or NULL past the end. */
const ibex_cfg_entry_t *ibex_config_entry(int i);
/* Formats the current value of an entry. */
void ibex_config_format(const ibex_cfg_entry_t *entry, char *buf, size_t len);
void ibex_config_print(FILE *out);
/* Parses "64k", "1m", "4096": returns 0 and sets *val_p, or -1. */
int ibex_parse_size(const char *str, long long *val_p);

#endif
