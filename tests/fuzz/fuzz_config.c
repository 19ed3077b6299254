/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the tunables' value parser (runtime/base/config.c), which reads IBEX_*
 * environment variables. Input: one byte choosing the entry (every type of the registry), then
 * the value. Checks, beyond "no crash, no out-of-bounds access": a value that parses formats
 * back to a string that parses to the same value (ibex_config_format round trip).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_config.h"

static int v_int, v_bool, v_enum, v_level;
static long long v_size, v_auto;
static char *v_str;

static const ibex_cfg_entry_t fz_table[] = {
    {"FZ_INT", IBEX_CFG_INT, "0", NULL, &v_int, "int", 0},
    {"FZ_BOOL", IBEX_CFG_BOOL, "0", NULL, &v_bool, "bool", 0},
    {"FZ_SIZE", IBEX_CFG_SIZE, "0", NULL, &v_size, "size", 0},
    {"FZ_AUTO", IBEX_CFG_SIZE_AUTO, "auto", NULL, &v_auto, "size or auto", 0},
    {"FZ_STR", IBEX_CFG_STRING, "", NULL, &v_str, "string", 0},
    {"FZ_ENUM", IBEX_CFG_ENUM, "auto", "auto|read|write", &v_enum, "enum", 0},
    {"FZ_LEVEL", IBEX_CFG_LOGLEVEL, "warn", NULL, &v_level, "log level", 0},
};
IBEX_CFG_MODULE(fuzz, "fuzz", IBEX_CFG_LAYER_BASE, fz_table);

#define NENT (sizeof(fz_table) / sizeof(fz_table[0]))

/* The variable's current value as bytes, to compare across a round trip. */
static size_t value_of(const ibex_cfg_entry_t *e, char *buf, size_t len)
{
    ibex_config_format(e, buf, len);
    return strlen(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char before[512], after[512];
    long long ll;

    if (size < 1 || size > 4096)
        return 0;
    const ibex_cfg_entry_t *e = &fz_table[data[0] % NENT];
    char *val = malloc(size); /* exactly the value and its NUL: overreads show */
    memcpy(val, data + 1, size - 1);
    val[size - 1] = 0;
    (void)ibex_parse_size(val, &ll);
    if (ibex_config_set(e, val) == IBEX_OK) {
        value_of(e, before, sizeof(before));
        if (e->type != IBEX_CFG_STRING || !strchr(before, '"')) {
            if (ibex_config_set(e, before) != IBEX_OK)
                abort(); /* what we print must parse */
            value_of(e, after, sizeof(after));
            if (strcmp(before, after) != 0)
                abort(); /* and mean the same */
        }
    }
    free(val);
    return 0;
}
