/* The tunables table and its parser. See ibex_config.h. */
#include "ibex_config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ibex_log.h"

ibex_config_t ibex_config;

#define OFF(field) offsetof(ibex_config_t, field)

static const ibex_cfg_entry_t config_table[] = {
    {"LOG", IBEX_CFG_LOGLEVEL, "warn", NULL, OFF(log_level),
     "log level: error, warn, info, debug or trace"},
    {"LOG_SUBSYS", IBEX_CFG_STRING, "all", NULL, OFF(log_subsys),
     "subsystems to log: all, or a list of core,boot,tl,proto,coll,launch,mem"},
    {"TRANSPORTS", IBEX_CFG_STRING, "auto", NULL, OFF(transports),
     "transports to use: auto, or a list of self,shm,verbs (self and shm inside a node, verbs "
     "between nodes; auto uses every one that opens)"},
    {"EAGER_LIMIT", IBEX_CFG_SIZE_AUTO, "auto", NULL, OFF(eager_limit),
     "largest payload sent eagerly; larger messages use rendezvous (auto: from the transport)"},
    {"RNDV_SCHEME", IBEX_CFG_ENUM, "auto", "auto|read|write", OFF(rndv_scheme),
     "rendezvous scheme: read (receiver pulls), write (sender pushes after CTS), auto"},
    {"RNDV_FRAG_SIZE", IBEX_CFG_SIZE, "4m", NULL, OFF(rndv_frag_size),
     "rendezvous transfers are split into fragments of this size"},
    {"RNDV_SPLIT_MIN", IBEX_CFG_SIZE, "128k", NULL, OFF(rndv_split_min),
     "auto scheme, on transports whose put / get are CPU copies (shm): from this size the "
     "receiver reads the first half while the sender writes the second, so both sides copy "
     "(set it above any message size to turn it off)"},
    {"UNEXPECTED_MAX", IBEX_CFG_SIZE, "256m", NULL, OFF(unexpected_max),
     "bytes of unexpected eager data buffered per process before senders are held back"},
    {"WAIT_POLICY", IBEX_CFG_ENUM, "auto", "auto|spin|yield", OFF(wait_policy),
     "blocking waits and polling calls (MPI_Test*, Iprobe): auto spins IBEX_SPIN_COUNT empty "
     "polls then yields the core, and yields at once on an oversubscribed node (more local ranks "
     "than hwloc's core count); spin never yields; yield yields after every empty poll"},
    {"SPIN_COUNT", IBEX_CFG_INT, "10000", NULL, OFF(spin_count),
     "empty progress polls in a row before a waiting or polling rank starts to yield the core"},
    {"SHM_RING_SLOTS", IBEX_CFG_INT, "64", NULL, OFF(shm_ring_slots),
     "slots in each shared-memory ring (one ring per sender and receiver pair); a power of two"},
    {"SHM_SLOT_SIZE", IBEX_CFG_SIZE, "8k", NULL, OFF(shm_slot_size),
     "bytes per shared-memory ring slot, header included; a multiple of 64"},
    {"SHM_STREAM_MIN", IBEX_CFG_SIZE, "4k", NULL, OFF(shm_stream_min),
     "eager payloads of at least this many bytes go into the shared-memory ring with "
     "non-temporal stores (0: never); faster when sender and receiver share no cache"},
    {"VERBS_DEVICE", IBEX_CFG_STRING, "auto", NULL, OFF(verbs_device),
     "RDMA device and port, as device[:port]; auto picks the active port nearest the rank"},
    {"VERBS_SRQ_SIZE", IBEX_CFG_INT, "512", NULL, OFF(verbs_srq_size),
     "eager receive buffers posted to the shared receive queue"},
    {"VERBS_BUF_SIZE", IBEX_CFG_SIZE, "8k", NULL, OFF(verbs_buf_size),
     "bytes per eager receive buffer, header included"},
    {"VERBS_CREDITS", IBEX_CFG_INT, "32", NULL, OFF(verbs_credits),
     "eager messages in flight to one peer before the sender waits for credits"},
    {"VERBS_RC_TIMEOUT", IBEX_CFG_INT, "14", NULL, OFF(verbs_rc_timeout),
     "RC local ack timeout exponent: 4.096 us * 2^n"},
    {"VERBS_RETRY_COUNT", IBEX_CFG_INT, "7", NULL, OFF(verbs_retry_count),
     "RC transport retries before a peer is declared unreachable"},
    {"VERBS_RCACHE_MAX", IBEX_CFG_SIZE, "1g", NULL, OFF(verbs_rcache_max),
     "bytes kept registered by the registration cache (least recently used evicted)"},
    {"VERBS_CONNECT_TIMEOUT", IBEX_CFG_INT, "0", NULL, OFF(verbs_connect_timeout),
     "seconds a peer may leave a connection request unanswered before it is declared unreachable "
     "(0: wait, warning from 10 s on)"},
    {"VERBS_FORK", IBEX_CFG_BOOL, "0", NULL, OFF(verbs_fork),
     "call ibv_fork_init() at start-up so the program may fork() safely"},
    {"COLL_BARRIER", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[0]),
     "barrier algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"COLL_BCAST", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[1]),
     "bcast algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"COLL_REDUCE", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[2]),
     "reduce algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"COLL_ALLREDUCE", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[3]),
     "allreduce algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"COLL_GATHER", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[4]),
     "gather algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"COLL_SCATTER", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[5]),
     "scatter algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"COLL_ALLGATHER", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[6]),
     "allgather algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"COLL_ALLTOALL", IBEX_CFG_STRING, "auto", NULL, OFF(coll_algo[7]),
     "alltoall algorithm: auto (chosen by communicator size and bytes) or a name from ibex_info"},
    {"ABORT_GRACE_MS", IBEX_CFG_INT, "1000", NULL, OFF(abort_grace_ms),
     "ibexrun: milliseconds between SIGTERM and SIGKILL when stopping ranks"},
};

#define CONFIG_COUNT ((int)(sizeof(config_table) / sizeof(config_table[0])))

const ibex_cfg_entry_t *ibex_config_entry(int i)
{
    return (i >= 0 && i < CONFIG_COUNT) ? &config_table[i] : NULL;
}

const ibex_cfg_entry_t *ibex_config_find(const char *name)
{
    if (strncmp(name, "IBEX_", 5) == 0)
        name += 5;
    for (int i = 0; i < CONFIG_COUNT; i++)
        if (strcmp(config_table[i].name, name) == 0)
            return &config_table[i];
    return NULL;
}

int ibex_parse_size(const char *str, long long *val_p)
{
    char *end;
    errno = 0;
    long long v = strtoll(str, &end, 10);
    if (end == str || errno != 0 || v < 0)
        return -1;
    int shift = 0;
    switch (tolower((unsigned char)*end)) {
    case 'k':
        shift = 10;
        end++;
        break;
    case 'm':
        shift = 20;
        end++;
        break;
    case 'g':
        shift = 30;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || v > (LLONG_MAX >> shift))
        return -1;
    *val_p = v << shift;
    return 0;
}

static int parse_enum(const char *choices, const char *value)
{
    size_t vlen = strlen(value);
    int index = 0;
    for (const char *p = choices; *p; index++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vlen && strncasecmp(p, value, len) == 0)
            return index;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

static int parse_bool(const char *value)
{
    static const char *yes[] = {"1", "y", "yes", "true", "on"};
    static const char *no[] = {"0", "n", "no", "false", "off"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(value, yes[i]) == 0)
            return 1;
        if (strcasecmp(value, no[i]) == 0)
            return 0;
    }
    return -1;
}

static int parse_int(const char *value, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (end == value || *end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_value(const ibex_cfg_entry_t *e, const char *value, void *field)
{
    int iv;
    long long sv;
    switch (e->type) {
    case IBEX_CFG_INT:
        if (parse_int(value, &iv) != 0)
            return -1;
        *(int *)field = iv;
        return 0;
    case IBEX_CFG_BOOL:
        iv = parse_bool(value);
        break;
    case IBEX_CFG_ENUM:
        iv = parse_enum(e->choices, value);
        break;
    case IBEX_CFG_LOGLEVEL:
        iv = ibex_log_level_parse(value);
        break;
    case IBEX_CFG_SIZE_AUTO:
        if (strcasecmp(value, "auto") == 0) {
            *(long long *)field = IBEX_SIZE_AUTO;
            return 0;
        }
        /* fall through */
    case IBEX_CFG_SIZE:
        if (ibex_parse_size(value, &sv) != 0)
            return -1;
        *(long long *)field = sv;
        return 0;
    case IBEX_CFG_STRING: {
        char *copy = strdup(value);
        if (!copy)
            return -1;
        free(*(char **)field);
        *(char **)field = copy;
        return 0;
    }
    default:
        return -1;
    }
    if (iv < 0)
        return -1;
    *(int *)field = iv;
    return 0;
}

static const char *type_hint(const ibex_cfg_entry_t *e)
{
    switch (e->type) {
    case IBEX_CFG_INT:
        return "an integer";
    case IBEX_CFG_BOOL:
        return "0 or 1";
    case IBEX_CFG_SIZE:
        return "a size such as 4096, 64k or 1m";
    case IBEX_CFG_SIZE_AUTO:
        return "auto or a size such as 4096, 64k or 1m";
    case IBEX_CFG_ENUM:
        return e->choices;
    case IBEX_CFG_LOGLEVEL:
        return "error|warn|info|debug|trace";
    default:
        return "a string";
    }
}

ibex_status_t ibex_config_set(const ibex_cfg_entry_t *entry, const char *value)
{
    void *field = (char *)&ibex_config + entry->offset;
    if (parse_value(entry, value, field) != 0) {
        ibex_error(CORE, "IBEX_%s='%s' is not valid: expected %s", entry->name, value,
                   type_hint(entry));
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

static void config_defaults(void)
{
    for (int i = 0; i < CONFIG_COUNT; i++) {
        void *field = (char *)&ibex_config + config_table[i].offset;
        int rc = parse_value(&config_table[i], config_table[i].defval, field);
        ibex_assert(rc == 0);
    }
}

/* Warn about IBEX_* variables that are not in the table: usually a typo. */
static void config_check_unknown(void)
{
    extern char **environ;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "IBEX_", 5) != 0)
            continue;
        char name[128];
        size_t len = strcspn(*e, "=");
        if (len >= sizeof(name))
            continue;
        memcpy(name, *e, len);
        name[len] = '\0';
        if (!ibex_config_find(name))
            ibex_warn(CORE, "%s is not an Ibex variable (see ibex_info)", name);
    }
}

ibex_status_t ibex_config_load(void)
{
    ibex_status_t status = IBEX_OK;
    config_defaults();
    for (int i = 0; i < CONFIG_COUNT; i++) {
        char var[128];
        snprintf(var, sizeof(var), "IBEX_%s", config_table[i].name);
        const char *value = getenv(var);
        if (value && ibex_config_set(&config_table[i], value) != IBEX_OK)
            status = IBEX_ERR_INVALID;
        /* Apply logging at once so that later messages obey it. */
        if (i == 0)
            ibex_log_level = ibex_config.log_level;
    }
    ibex_log_level = ibex_config.log_level;
    if (ibex_log_subsys_parse(ibex_config.log_subsys, &ibex_log_subsys_mask) != 0) {
        ibex_error(CORE, "IBEX_LOG_SUBSYS='%s' names an unknown subsystem", ibex_config.log_subsys);
        status = IBEX_ERR_INVALID;
    }
    config_check_unknown();
    return status;
}

void ibex_config_format(const ibex_cfg_entry_t *e, char *buf, size_t len)
{
    const void *field = (const char *)&ibex_config + e->offset;
    static const char *levels[] = {"error", "warn", "info", "debug", "trace"};
    long long sv;
    switch (e->type) {
    case IBEX_CFG_INT:
    case IBEX_CFG_BOOL:
        snprintf(buf, len, "%d", *(const int *)field);
        break;
    case IBEX_CFG_LOGLEVEL:
        snprintf(buf, len, "%s", levels[*(const int *)field]);
        break;
    case IBEX_CFG_SIZE_AUTO:
    case IBEX_CFG_SIZE:
        sv = *(const long long *)field;
        if (sv == IBEX_SIZE_AUTO)
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%lld", sv);
        break;
    case IBEX_CFG_ENUM: {
        int idx = *(const int *)field;
        const char *p = e->choices;
        for (int i = 0; i < idx && p; i++) {
            p = strchr(p, '|');
            p = p ? p + 1 : NULL;
        }
        snprintf(buf, len, "%.*s", p ? (int)strcspn(p, "|") : 0, p ? p : "");
        break;
    }
    default:
        snprintf(buf, len, "%s", *(char *const *)field ? *(char *const *)field : "");
        break;
    }
}

void ibex_config_print(FILE *out)
{
    for (int i = 0; i < CONFIG_COUNT; i++) {
        char value[64];
        ibex_config_format(&config_table[i], value, sizeof(value));
        fprintf(out, "IBEX_%s=%s (default %s)\n    %s\n", config_table[i].name, value,
                config_table[i].defval, config_table[i].doc);
    }
}
