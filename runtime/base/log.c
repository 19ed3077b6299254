/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging and status strings. See ibex_log.h and ibex_status.h. */
#include "ibex_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "ibex_status.h"

int ibex_log_level = IBEX_LOG_WARN;
unsigned ibex_log_subsys_mask = ~0u;

static char log_identity[64] = "ibex";
static char log_host[64];

static const char *level_names[] = {"error", "warn", "info", "debug", "trace"};

#define IBEX_SUBSYS_NAME(name, text) text,
static const char *subsys_names[] = {IBEX_SUBSYS_LIST(IBEX_SUBSYS_NAME)};
#undef IBEX_SUBSYS_NAME

void ibex_log_set_identity(const char *who)
{
    snprintf(log_identity, sizeof(log_identity), "%s", who);
}

int ibex_log_level_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof(level_names) / sizeof(level_names[0])); i++)
        if (strcasecmp(name, level_names[i]) == 0)
            return i;
    return -1;
}

static int subsys_find(const char *name, size_t len)
{
    for (int i = 0; i < IBEX_SUBSYS_COUNT; i++)
        if (strlen(subsys_names[i]) == len && strncasecmp(name, subsys_names[i], len) == 0)
            return i;
    return -1;
}

int ibex_log_subsys_parse(const char *list, unsigned *mask_p)
{
    if (strcasecmp(list, "all") == 0 || *list == '\0') {
        *mask_p = ~0u;
        return 0;
    }
    unsigned mask = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        int id = subsys_find(p, len);
        if (id < 0)
            return -1;
        mask |= 1u << id;
        p += len;
        if (*p == ',')
            p++;
    }
    *mask_p = mask;
    return 0;
}

void ibex_log_emit(ibex_log_level_t level, ibex_subsys_t subsys, const char *file, int line,
                   const char *fmt, ...)
{
    int saved_errno = errno; /* so that %m in fmt still names the caller's error */
    char msg[1024];
    va_list ap;
    if (log_host[0] == '\0' && gethostname(log_host, sizeof(log_host) - 1) != 0)
        snprintf(log_host, sizeof(log_host), "?");
    va_start(ap, fmt);
    errno = saved_errno;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    if (level >= IBEX_LOG_DEBUG)
        fprintf(stderr, "[ibex %s@%s] %s %s: %s (%s:%d)\n", log_identity, log_host,
                level_names[level], subsys_names[subsys], msg, base ? base + 1 : file, line);
    else
        fprintf(stderr, "[ibex %s@%s] %s: %s\n", log_identity, log_host, level_names[level], msg);
}

void ibex_assert_fail(const char *cond, const char *file, int line)
{
    fprintf(stderr, "[ibex %s@%s] internal error: assertion '%s' failed at %s:%d\n", log_identity,
            log_host, cond, file, line);
    abort();
}

#define IBEX_STATUS_CASE(name, value, text)                                                        \
    case name:                                                                                     \
        return text;
const char *ibex_status_str(ibex_status_t status)
{
    switch (status) {
        IBEX_STATUS_LIST(IBEX_STATUS_CASE)
    }
    return "unknown status";
}
#undef IBEX_STATUS_CASE

ibex_status_t ibex_status_from_errno(int err)
{
    switch (err) {
    case 0:
        return IBEX_OK;
    case ENOMEM:
        return IBEX_ERR_NO_MEMORY;
    case EINVAL:
        return IBEX_ERR_INVALID;
    case EAGAIN:
        return IBEX_ERR_AGAIN;
    case ENOSYS:
    case EOPNOTSUPP:
        return IBEX_ERR_UNSUPPORTED;
    case ENODEV:
    case ENOENT:
        return IBEX_ERR_NO_DEVICE;
    case ETIMEDOUT:
        return IBEX_ERR_TIMEOUT;
    case ESRCH:
    case ECONNRESET:
    case EPIPE:
        return IBEX_ERR_PEER_FAILED;
    case EFAULT:
    case EPERM:
    case EACCES:
        return IBEX_ERR_REMOTE;
    default:
        return IBEX_ERR_IO;
    }
}
