/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tunables registry. Every IBEX_* variable is a row (name, type, default, doc, and where its
 * value lives) in a table owned by the module that reads it, next to its code; a module
 * registers its table with IBEX_CFG_MODULE, which puts a pointer to it in the "ibex_cfg" ELF
 * section. There is no central list: the registry walks the section, so a program (libibex,
 * ibexrun, a unit test) sees exactly the tables it links. The tables are parsed once at start-up
 * (ibex_config_load) and nothing else in Ibex calls getenv() for a tunable. ibex_info prints
 * them, grouped by module in IBEX_CFG_LAYER_* order, then by module name.
 */
#ifndef IBEX_CONFIG_H
#define IBEX_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "ibex_status.h"

/* A size that may be "auto": IBEX_SIZE_AUTO means "derive from capabilities". */
#define IBEX_SIZE_AUTO ((long long)-1)

typedef enum {
    IBEX_CFG_INT,       /* int */
    IBEX_CFG_BOOL,      /* int, 0 or 1 */
    IBEX_CFG_SIZE,      /* long long bytes, with k/m/g suffixes */
    IBEX_CFG_SIZE_AUTO, /* long long bytes or IBEX_SIZE_AUTO */
    IBEX_CFG_STRING,    /* char *, owned by the registry */
    IBEX_CFG_ENUM,      /* int: index of one of the '|'-separated choices */
    IBEX_CFG_LOGLEVEL,  /* int */
} ibex_cfg_type_t;

typedef struct ibex_cfg_entry {
    const char *name; /* without the IBEX_ prefix */
    ibex_cfg_type_t type;
    const char *defval;
    const char *choices; /* IBEX_CFG_ENUM only: "auto|read|write" */
    void *addr;          /* the module's own variable, of the type's C type */
    const char *doc;
    unsigned flags; /* IBEX_CFG_LIVE */
} ibex_cfg_entry_t;

/* The variable is read where it is used, not copied at start-up, so a change at run time (the
 * tools interface's MPI_T_cvar_write) takes effect. Entries without it are fixed after init. */
#define IBEX_CFG_LIVE 1u

/* Where a module's tables sort: lower layers first (the layers of the README). */
enum {
    IBEX_CFG_LAYER_BASE = 0,
    IBEX_CFG_LAYER_ENGINE = 10,
    IBEX_CFG_LAYER_TRANSPORT = 20,
    IBEX_CFG_LAYER_COLL = 30,
    IBEX_CFG_LAYER_LAUNCHER = 40,
};

typedef struct ibex_cfg_module {
    const char *name; /* "engine", a backend's name, ...: orders tables of the same layer */
    int layer;        /* IBEX_CFG_LAYER_* */
    const ibex_cfg_entry_t *entries;
    int count;
} ibex_cfg_module_t;

/* Registers a table (an array of ibex_cfg_entry_t) from a .c file: a descriptor and a pointer
 * to it in the "ibex_cfg" section. Pointers, not descriptors, go into the section so that every
 * element has the same size and alignment whatever the compiler does with larger objects. */
#define IBEX_CFG_MODULE(id, modname, modlayer, table)                                              \
    static const ibex_cfg_module_t ibex_cfg_module_##id = {                                        \
        modname, modlayer, table, (int)(sizeof(table) / sizeof((table)[0]))};                      \
    static const ibex_cfg_module_t *ibex_cfg_module_ptr_##id                                       \
        __attribute__((used, section("ibex_cfg"), aligned(sizeof(void *)))) =                      \
            &ibex_cfg_module_##id

/* Loads defaults then the environment, for every registered table. Returns IBEX_ERR_INVALID
 * (after logging which variable and why) if a value does not parse; an IBEX_* variable that no
 * table knows draws a warning. */
ibex_status_t ibex_config_load(void);
/* The same without the unknown-variable warning: for a program (ibexrun) whose environment also
 * carries the variables of tables it does not link (the ranks'), which warn for themselves. */
ibex_status_t ibex_config_load_own(void);
/* Parses one value of a given entry into its variable (exposed for tests). */
ibex_status_t ibex_config_set(const ibex_cfg_entry_t *entry, const char *value);
/* By name, with or without the IBEX_ prefix; NULL if no linked table has it. */
const ibex_cfg_entry_t *ibex_config_find(const char *name);
/* Iterates every registered entry: returns the i-th or NULL past the end. */
const ibex_cfg_entry_t *ibex_config_entry(int i);
/* The module whose table holds the i-th entry (ibex_config_entry's order), or NULL. */
const ibex_cfg_module_t *ibex_config_entry_module(int i);
/* Formats the current value of an entry. */
void ibex_config_format(const ibex_cfg_entry_t *entry, char *buf, size_t len);
void ibex_config_print(FILE *out);
/* Parses "64k", "1m", "4096": returns 0 and sets *val_p, or -1. */
int ibex_parse_size(const char *str, long long *val_p);

#endif
