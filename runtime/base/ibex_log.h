/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging by level and subsystem. The level is checked before the message is formatted, so a
 * disabled debug line costs one load and one compare. Messages are lowercase and name the object:
 * "peer 3 qp 0x1a". Every line carries the rank (once known) and the host.
 */
#ifndef IBEX_LOG_H
#define IBEX_LOG_H

#include <stdarg.h>

typedef enum {
    IBEX_LOG_ERROR,
    IBEX_LOG_WARN,
    IBEX_LOG_INFO,
    IBEX_LOG_DEBUG,
    IBEX_LOG_TRACE,
} ibex_log_level_t;

/* Subsystems, selected with IBEX_LOG_SUBSYS=tl,proto,... (default: all). */
#define IBEX_SUBSYS_LIST(X)                                                                        \
    X(CORE, "core")                                                                                \
    X(BOOT, "boot")                                                                                \
    X(TL, "tl")                                                                                    \
    X(PROTO, "proto")                                                                              \
    X(COLL, "coll")                                                                                \
    X(LAUNCH, "launch")                                                                            \
    X(MEM, "mem")

#define IBEX_SUBSYS_ENUM(name, text) IBEX_SUBSYS_##name,
typedef enum { IBEX_SUBSYS_LIST(IBEX_SUBSYS_ENUM) IBEX_SUBSYS_COUNT } ibex_subsys_t;
#undef IBEX_SUBSYS_ENUM

extern int ibex_log_level;            /* current level, from IBEX_LOG */
extern unsigned ibex_log_subsys_mask; /* bit per subsystem, from IBEX_LOG_SUBSYS */

/* Who is speaking: "rank 3" or the program name; set once rank is known. */
void ibex_log_set_identity(const char *who);
/* Parses a level name; returns -1 if unknown. */
int ibex_log_level_parse(const char *name);
/* Parses a comma-separated subsystem list ("all" or "tl,proto"); returns 0 or -1. */
int ibex_log_subsys_parse(const char *list, unsigned *mask_p);

void ibex_log_emit(ibex_log_level_t level, ibex_subsys_t subsys, const char *file, int line,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#define ibex_log(_lvl, _sub, ...)                                                                  \
    do {                                                                                           \
        if ((int)(_lvl) <= ibex_log_level && (ibex_log_subsys_mask & (1u << (_sub))))              \
            ibex_log_emit(_lvl, _sub, __FILE__, __LINE__, __VA_ARGS__);                            \
    } while (0)

#define ibex_error(_sub, ...) ibex_log(IBEX_LOG_ERROR, IBEX_SUBSYS_##_sub, __VA_ARGS__)
#define ibex_warn(_sub, ...)  ibex_log(IBEX_LOG_WARN, IBEX_SUBSYS_##_sub, __VA_ARGS__)
#define ibex_info(_sub, ...)  ibex_log(IBEX_LOG_INFO, IBEX_SUBSYS_##_sub, __VA_ARGS__)
#define ibex_debug(_sub, ...) ibex_log(IBEX_LOG_DEBUG, IBEX_SUBSYS_##_sub, __VA_ARGS__)
#define ibex_trace(_sub, ...) ibex_log(IBEX_LOG_TRACE, IBEX_SUBSYS_##_sub, __VA_ARGS__)

/* Invariants only, never user input. */
#define ibex_assert(_cond)                                                                         \
    do {                                                                                           \
        if (!(_cond))                                                                              \
            ibex_assert_fail(#_cond, __FILE__, __LINE__);                                          \
    } while (0)
void ibex_assert_fail(const char *cond, const char *file, int line) __attribute__((noreturn));

#endif
