/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: ibexrun's command line parser (launcher/run_options.c). The input is split
 * at NUL bytes into argv[1..]. Checks: no crash or out-of-bounds access; on success the program
 * and its arguments lie inside argv, in order, NULL-terminated; on failure the message is set.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibexrun.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[MAX_ARGS + 2], err[256] = "";
    ibex_run_opts_t opts;
    int argc = 1;

    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = 0;
    argv[0] = "ibexrun";
    for (char *p = buf; p <= buf + size && argc < MAX_ARGS; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    memset(&opts, 0, sizeof(opts));
    if (ibex_run_opts_parse(argc, argv, &opts, err, sizeof(err)) == IBEX_OK) {
        if (opts.prog_argv) {
            for (int i = 0; i < opts.prog_argc; i++)
                if (!opts.prog_argv[i])
                    abort();
            if (opts.prog_argv[opts.prog_argc])
                abort();
        }
        if (opts.nranks_set && opts.nranks < 1)
            abort();
    } else if (!err[0]) {
        abort();
    }
    ibex_run_opts_free(&opts);
    free(buf);
    return 0;
}
