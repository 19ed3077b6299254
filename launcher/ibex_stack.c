/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex_stack PID: the hang report of the job a running ibexrun (process PID) supervises, on
 * stdout, without stopping or disturbing it: the blocked-call record is read from the memfd
 * ibexrun holds (through /proc/PID/fd, so the same user only), not asked of the ranks.
 * `kill -USR1 PID` prints the same report on ibexrun's stderr instead. See launcher/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_launch.h"
#include "ibex_log.h"

static int stack_usage(FILE *out, int code)
{
    fprintf(out, "usage: ibex_stack PID\n  prints what each rank of the job run by ibexrun "
                 "process PID waits in, and who waits for whom\n");
    return code;
}

int main(int argc, char **argv)
{
    ibex_log_set_identity("ibex_stack");
    ibex_run_say_set_name("ibex_stack");
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
        return stack_usage(stdout, 0);
    char *end = NULL;
    long pid = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || !end || *end || pid <= 0 || pid > 0x7fffffffL)
        return stack_usage(stderr, IBEX_RUN_EXIT_USAGE);
    ibex_run_hang_t *h;
    char err[512];
    if (ibex_run_hang_attach((int)pid, &h, err, sizeof(err)) != IBEX_OK) {
        ibex_run_say("%s", err);
        return 1;
    }
    ibex_run_hang_report(h, NULL, 1, "ibex_stack", "ibex_stack");
    ibex_run_hang_destroy(h);
    return 0;
}
