/* SPDX-License-Identifier: BSD-3-Clause */
/* The tunables registry (the tables of the "ibex_cfg" section) and its parser. See
 * ibex_config.h. */
#include "ibex_config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ibex_log.h"

/* The base layer's own tunables: logging. */
static int log_level;
static char *log_subsys;

static const ibex_cfg_entry_t base_table[] = {
    {"LOG", IBEX_CFG_LOGLEVEL, "warn", NULL, &log_level,
     "log level: error, warn, info, debug or trace"},
    {"LOG_SUBSYS", IBEX_CFG_STRING, "all", NULL, &log_subsys,
     "subsystems to log: all, or a list of core,boot,tl,proto,coll,launch,mem"},
};
IBEX_CFG_MODULE(base, "base", IBEX_CFG_LAYER_BASE, base_table);

/* The linker defines these around the "ibex_cfg" section of the program or library that holds
 * this file. Weak: a program that links no table at all has no such section and no symbols. */
extern const ibex_cfg_module_t *const __start_ibex_cfg[] __attribute__((weak));
extern const ibex_cfg_module_t *const __stop_ibex_cfg[] __attribute__((weak));

#define MAX_MODULES 64

/* The registered tables in print order (layer, then name; the link order is no order). */
static struct {
    bool ready;
    int nmod, nentries;
    const ibex_cfg_module_t *mod[MAX_MODULES];
    int first[MAX_MODULES + 1]; /* index of each module's first entry; first[nmod] = total */
} reg;

static int module_cmp(const void *a, const void *b)
{
    const ibex_cfg_module_t *x = *(const ibex_cfg_module_t *const *)a;
    const ibex_cfg_module_t *y = *(const ibex_cfg_module_t *const *)b;
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void registry_build(void)
{
    if (reg.ready)
        return;
    size_t n = __start_ibex_cfg ? (size_t)(__stop_ibex_cfg - __start_ibex_cfg) : 0;
    ibex_assert(n <= MAX_MODULES);
    for (size_t i = 0; i < n; i++)
        reg.mod[i] = __start_ibex_cfg[i];
    qsort(reg.mod, n, sizeof(reg.mod[0]), module_cmp);
    reg.nmod = (int)n;
    reg.nentries = 0;
    for (int i = 0; i < reg.nmod; i++) {
        reg.first[i] = reg.nentries;
        reg.nentries += reg.mod[i]->count;
    }
    reg.first[reg.nmod] = reg.nentries;
    reg.ready = true;
}

/* The module holding entry i (0 <= i < nentries). */
static int registry_module_of(int i)
{
    int m = 0;
    while (reg.first[m + 1] <= i)
        m++;
    return m;
}

const ibex_cfg_module_t *ibex_config_entry_module(int i)
{
    registry_build();
    return (i >= 0 && i < reg.nentries) ? reg.mod[registry_module_of(i)] : NULL;
}

const ibex_cfg_entry_t *ibex_config_entry(int i)
{
    registry_build();
    if (i < 0 || i >= reg.nentries)
        return NULL;
    int m = registry_module_of(i);
    return &reg.mod[m]->entries[i - reg.first[m]];
}

const ibex_cfg_entry_t *ibex_config_find(const char *name)
{
    if (strncmp(name, "IBEX_", 5) == 0)
        name += 5;
    const ibex_cfg_entry_t *e;
    for (int i = 0; (e = ibex_config_entry(i)) != NULL; i++)
        if (strcmp(e->name, name) == 0)
            return e;
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
    if (parse_value(entry, value, entry->addr) != 0) {
        ibex_error(CORE, "IBEX_%s='%s' is not valid: expected %s", entry->name, value,
                   type_hint(entry));
        return IBEX_ERR_INVALID;
    }
    return IBEX_OK;
}

static void config_defaults(void)
{
    const ibex_cfg_entry_t *e;
    for (int i = 0; (e = ibex_config_entry(i)) != NULL; i++) {
        int rc = parse_value(e, e->defval, e->addr);
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

static ibex_status_t config_load(bool check_unknown)
{
    ibex_status_t status = IBEX_OK;
    const ibex_cfg_entry_t *e;
    config_defaults();
    for (int i = 0; (e = ibex_config_entry(i)) != NULL; i++) {
        char var[128];
        snprintf(var, sizeof(var), "IBEX_%s", e->name);
        const char *value = getenv(var);
        if (value && ibex_config_set(e, value) != IBEX_OK)
            status = IBEX_ERR_INVALID;
        /* Apply the level at once (LOG sorts first) so that later messages obey it. */
        if (e->addr == &log_level)
            ibex_log_level = log_level;
    }
    ibex_log_level = log_level;
    if (ibex_log_subsys_parse(log_subsys, &ibex_log_subsys_mask) != 0) {
        ibex_error(CORE, "IBEX_LOG_SUBSYS='%s' names an unknown subsystem", log_subsys);
        status = IBEX_ERR_INVALID;
    }
    if (check_unknown)
        config_check_unknown();
    return status;
}

ibex_status_t ibex_config_load(void)
{
    return config_load(true);
}

ibex_status_t ibex_config_load_own(void)
{
    return config_load(false);
}

void ibex_config_format(const ibex_cfg_entry_t *e, char *buf, size_t len)
{
    const void *field = e->addr;
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
    const ibex_cfg_entry_t *e;
    for (int i = 0; (e = ibex_config_entry(i)) != NULL; i++) {
        char value[64];
        ibex_config_format(e, value, sizeof(value));
        fprintf(out, "IBEX_%s=%s (default %s)\n    %s\n", e->name, value, e->defval, e->doc);
    }
}
