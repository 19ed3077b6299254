/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex_info: what this Ibex build is and what it would do on this machine. It never calls
 * MPI_Init, so it runs without a launcher and without any RDMA device.
 */
#include <ctype.h>
#include <getopt.h>
#include <hwloc.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "coll.h"
#include "ibex_config.h"
#include "ibex_config_auto.h"
#include "ibex_engine_cfg.h"
#include "ibex_info_check.h"
#include "ibex_log.h"
#include "transport.h"

static void info_usage(FILE *out)
{
    fprintf(out, "Usage: ibex_info [options]\n"
                 "Prints the Ibex version, build configuration, transports and the devices they\n"
                 "find, the waiting policy, every IBEX_* tunable with its default and doc, and\n"
                 "every MPI_T performance variable with its class, type and doc.\n\n"
                 "  -a, --all         also print the node (host, cores) and the PMIx library\n"
                 "  -c, --check       run the preflight checks of this node (memlock limit,\n"
                 "                    ptrace scope, /dev/shm, RDMA ports, NUMA placement) and\n"
                 "                    say what to fix; exit 1 if one failed\n"
                 "  -p, --param NAME  print only the tunable NAME (with or without IBEX_)\n"
                 "  -h, --help        print this help\n");
}

static void info_version(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    printf("%s\n", version);
    printf("build configuration: %s\n", IBEX_BUILD_CONFIG);
}

/* Every transport the library registers, in its priority order: only those compiled in exist. */
static void info_transport(const ibex_tl_component_t *tl)
{
    printf("transport %s: compiled in\n", tl->name);
    fflush(stdout);
    if (tl->ops.info)
        tl->ops.info(stdout);
    else
        printf("    (no details)\n");
    fflush(stdout);
}

static int info_cores(void)
{
    hwloc_topology_t topo;
    int n = -1;
    if (hwloc_topology_init(&topo) != 0)
        return -1;
    if (hwloc_topology_load(topo) == 0)
        n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    hwloc_topology_destroy(topo);
    return n;
}

static void info_waiting(void)
{
    static const char *policies[] = {"auto", "spin", "yield"};
    int p = ibex_engine_cfg.wait_policy;
    printf("waiting policy: %s", p >= 0 && p < 3 ? policies[p] : "?");
    if (p == IBEX_WAIT_AUTO)
        printf(" (blocking waits and polling calls such as MPI_Test and MPI_Iprobe spin for %d "
               "empty progress polls, then yield the core; they yield at once when a node runs "
               "more ranks than its %d cores)\n",
               ibex_engine_cfg.spin_count, info_cores());
    else if (p == IBEX_WAIT_SPIN)
        printf(" (waits and polls never yield the core)\n");
    else
        printf(" (waits and polls yield the core after every empty progress poll)\n");
}

/* Every collective's algorithms, which IBEX_COLL_<KIND> may force. */
static void info_coll(void)
{
    printf("collective algorithms (IBEX_COLL_<KIND>=auto or one of them):\n");
    for (int k = 0; k < IBEX_COLL_KIND_COUNT; k++) {
        char names[256];
        ibex_coll_algo_names((ibex_coll_kind_t)k, names, sizeof(names));
        printf("    %-21s %s\n", ibex_coll_kind_name((ibex_coll_kind_t)k), names);
    }
}

static const char *pvar_class_name(int c)
{
    static const char *names[] = {"state",         "level",        "size",    "percentage",
                                  "highwatermark", "lowwatermark", "counter", "aggregate",
                                  "timer",         "generic"};
    return c >= 0 && c < (int)(sizeof(names) / sizeof(names[0])) ? names[c] : "?";
}

/* An enum's items as "a|b|c" (a state variable's values). */
static void info_enum(MPI_T_enum e)
{
    int n = 0;
    MPI_T_enum_get_info(e, &n, NULL, NULL);
    printf("        values:");
    for (int i = 0; i < n; i++) {
        char item[64];
        int len = sizeof(item), value;
        if (MPI_T_enum_get_item(e, i, &value, item, &len) == MPI_SUCCESS)
            printf(" %d=%s", value, item);
    }
    printf("\n");
}

/* Through MPI_T itself, so a tool sees exactly these (MPI_T needs no MPI_Init). */
static void info_pvars(void)
{
    int provided, n = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
        MPI_T_pvar_get_num(&n) != MPI_SUCCESS) {
        printf("performance variables: MPI_T does not start\n");
        return;
    }
    printf("performance variables (MPI_T, bound to no object; name, class, type):\n");
    for (int i = 0; i < n; i++) {
        char name[128], desc[256];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum e;
        if (MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &e, desc, &dlen, &bind, &ro,
                                &cont, &atomic) != MPI_SUCCESS)
            continue;
        printf("    %-30s %-13s %s\n        %s\n", name, pvar_class_name(cls),
               dt == MPI_INT ? "int" : "unsigned long long", desc);
        if (e != MPI_T_ENUM_NULL)
            info_enum(e);
    }
    MPI_T_finalize();
}

static void info_node(void)
{
    char host[256] = "?";
    gethostname(host, sizeof(host) - 1);
    printf("node: %s, %d cores\n", host, info_cores());
    printf("PMIx library: %s\n", PMIx_Get_version());
}

static int info_param(const char *name)
{
    char upper[128];
    size_t i;
    /* Accept "eager_limit" as well as "IBEX_EAGER_LIMIT". */
    for (i = 0; name[i] && i < sizeof(upper) - 1; i++)
        upper[i] = (char)toupper((unsigned char)name[i]);
    upper[i] = '\0';
    const ibex_cfg_entry_t *e = ibex_config_find(upper);
    if (!e) {
        fprintf(stderr, "ibex_info: no tunable named %s (ibex_info lists them all)\n", name);
        return 1;
    }
    char value[256];
    ibex_config_format(e, value, sizeof(value));
    printf("IBEX_%s=%s (default %s)\n    %s\n", e->name, value, e->defval, e->doc);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"all", no_argument, NULL, 'a'},
        {"check", no_argument, NULL, 'c'},
        {"param", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int all = 0, check = 0, c;
    const char *param = NULL;
    while ((c = getopt_long(argc, argv, "acp:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            all = 1;
            break;
        case 'c':
            check = 1;
            break;
        case 'p':
            param = optarg;
            break;
        case 'h':
            info_usage(stdout);
            return 0;
        default:
            info_usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "ibex_info: unexpected argument '%s'\n", argv[optind]);
        info_usage(stderr);
        return 2;
    }
    /* Shows the values in effect: a bad IBEX_* value is reported, then the defaults used. */
    if (ibex_config_load() != IBEX_OK)
        fprintf(stderr, "ibex_info: some IBEX_* variables are invalid (see above)\n");
    if (param)
        return info_param(param);
    if (check)
        return ibex_info_check();
    info_version();
    if (all)
        info_node();
    printf("\n");
    const ibex_tl_component_t *tl;
    for (int i = 0; (tl = ibex_tl_component(i)) != NULL; i++)
        info_transport(tl);
    printf("\n");
    info_waiting();
    printf("\n");
    info_coll();
    printf("\ntunables (set in the environment as IBEX_NAME=value):\n");
    ibex_config_print(stdout);
    printf("\n");
    info_pvars();
    return 0;
}
