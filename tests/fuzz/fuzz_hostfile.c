/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: ibexrun's host file parser (launcher/lib/run_hostfile.c). The text is
 * outside input (a user's file). Checks: no crash or out-of-bounds access; on success every
 * host has a NUL-terminated name and sane counts; on failure the message is set.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ibex_run_hostfile_t hf = {0};
    char err[256] = "";

    if (size > 65536)
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    if (ibex_run_hostfile_parse(text, "fuzz", &hf, err, sizeof(err)) == IBEX_OK) {
        for (int i = 0; i < hf.nhosts; i++)
            if (!memchr(hf.hosts[i].name, 0, sizeof(hf.hosts[i].name)) || !hf.hosts[i].name[0] ||
                hf.hosts[i].slots < 1 || hf.hosts[i].max_slots < 0 ||
                (hf.hosts[i].max_slots && hf.hosts[i].max_slots < hf.hosts[i].slots))
                abort();
        ibex_run_hostfile_free(&hf);
    } else if (!err[0]) {
        abort(); /* a refusal must say why */
    }
    free(text);
    return 0;
}
