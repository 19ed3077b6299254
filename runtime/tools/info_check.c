/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibex_info --check: the preflight checks of this node, each with what to fix. One line per
 * check, "ok", "WARN" (works, but something will fail or be slow) or "FAIL" (a job will fail),
 * then its fix. Exit code 0 when nothing failed, 1 otherwise.
 *   memlock limit     registering buffers with an RDMA device pins them: RLIMIT_MEMLOCK
 *   ptrace            cross-memory attach (process_vm_readv) between two sibling processes,
 *                     tried for real, and Yama's ptrace_scope that decides it
 *   /dev/shm          the shared-memory collectives' segments live there
 *   rdma devices      what the transports see (ports and their state)
 *   NUMA              the distance of each RDMA device to each core (hwloc)
 */
#define _GNU_SOURCE 1 /* process_vm_readv */
#include "ibex_info_check.h"

#include <errno.h>
#include <hwloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transport.h"

typedef struct check {
    int fails, warns;
} check_t;

enum { CK_OK, CK_WARN, CK_FAIL, CK_NOTE };

static void say(check_t *c, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(check_t *c, int level, const char *fmt, ...)
{
    static const char *tags[] = {"ok", "WARN", "FAIL", "--"};
    va_list ap;
    printf("%-5s ", tags[level]);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    c->warns += level == CK_WARN;
    c->fails += level == CK_FAIL;
}

/* ---- memlock ---- */

#define CHECK_MEMLOCK_MIN (64ULL << 20) /* pinned buffers of a few ranks' rings and messages */

static void check_memlock(check_t *c)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
        say(c, CK_WARN, "memlock limit: cannot read it: %s", strerror(errno));
        return;
    }
    if (rl.rlim_cur == RLIM_INFINITY) {
        say(c, CK_OK, "memlock limit: unlimited");
        return;
    }
    unsigned long long kib = (unsigned long long)rl.rlim_cur / 1024;
    say(c, rl.rlim_cur >= CHECK_MEMLOCK_MIN ? CK_OK : CK_WARN, "memlock limit: %llu KiB%s", kib,
        rl.rlim_cur >= CHECK_MEMLOCK_MIN
            ? ""
            : ": registering buffers with an RDMA device fails past it (\"cannot register ... "
              "locked-memory limit?\"). Fix: ulimit -l unlimited, or \"* - memlock unlimited\" "
              "in /etc/security/limits.conf, LimitMEMLOCK=infinity for a systemd service");
}

/* ---- ptrace / cross-memory attach ---- */

static int read_int_file(const char *path, int *v)
{
    FILE *f = fopen(path, "r");
    int ok = f && fscanf(f, "%d", v) == 1;
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

/* Two children, as two ranks are: the first names any process as its tracer (as Ibex's ranks
 * do under Yama scope 1) and waits; the second reads a word of it. */
static int cma_try(int *err_p)
{
    static volatile unsigned long word = 0x1b3e;
    int go[2];
    if (pipe(go) != 0)
        return -1;
    pid_t a = fork();
    if (a == 0) {
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
        close(go[0]);
        (void)!write(go[1], "x", 1);
        pause();
        _exit(0);
    }
    close(go[1]);
    char x;
    int ok = a > 0 && read(go[0], &x, 1) == 1;
    close(go[0]);
    pid_t b = ok ? fork() : -1;
    if (b == 0) {
        unsigned long got = 0;
        struct iovec l = {&got, sizeof(got)}, r = {(void *)&word, sizeof(word)};
        ssize_t n = process_vm_readv(a, &l, 1, &r, 1, 0);
        _exit(n == (ssize_t)sizeof(got) && got == word ? 0 : n < 0 ? (errno & 0x7f) : 127);
    }
    int st = 0;
    if (b > 0)
        waitpid(b, &st, 0);
    if (a > 0) {
        kill(a, SIGKILL);
        waitpid(a, NULL, 0);
    }
    *err_p = b > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return b > 0 ? 0 : -1;
}

static void check_ptrace(check_t *c)
{
    int scope = -1, err = -1;
    bool yama = read_int_file("/proc/sys/kernel/yama/ptrace_scope", &scope) == 0;
    char what[64];
    snprintf(what, sizeof(what), yama ? "kernel.yama.ptrace_scope %d" : "no Yama", scope);
    if (cma_try(&err) != 0) {
        say(c, CK_WARN, "ptrace (%s): could not try cross-memory attach (fork failed)", what);
    } else if (err == 0) {
        say(c, CK_OK, "ptrace (%s): cross-memory attach between two processes works", what);
    } else {
        say(c, CK_WARN,
            "ptrace (%s): cross-memory attach between two processes fails (%s): large "
            "shared-memory messages and collectives fall back to slower copies or fail. Fix: "
            "sysctl kernel.yama.ptrace_scope=1 (0 in a container that forbids PR_SET_PTRACER), "
            "or allow process_vm_readv in the container's seccomp profile",
            what, err > 0 && err < 127 ? strerror(err) : "wrong data");
    }
}

/* ---- /dev/shm ---- */

#define CHECK_SHM_MIN (64ULL << 20)

static void check_shm(check_t *c)
{
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) != 0) {
        say(c, CK_WARN,
            "/dev/shm: %s: the shared-memory collectives fall back to "
            "point-to-point. Fix: mount a tmpfs there",
            strerror(errno));
        return;
    }
    unsigned long long fr = (unsigned long long)sv.f_bavail * sv.f_frsize;
    unsigned long long all = (unsigned long long)sv.f_blocks * sv.f_frsize;
    bool w = access("/dev/shm", W_OK) == 0;
    int level = !w || fr < CHECK_SHM_MIN ? CK_WARN : CK_OK;
    say(c, level, "/dev/shm: %llu MiB free of %llu MiB%s%s", fr >> 20, all >> 20,
        w ? "" : ", not writable",
        level == CK_OK ? ""
                       : ": the shared-memory collectives fall back to point-to-point (a "
                         "warning per communicator). Fix: free or enlarge it (mount -o "
                         "remount,size=1G /dev/shm; docker run --shm-size=1g)");
}

/* ---- devices, through the transports' own descriptions ---- */

/* Lines such as "  dev0 port 1: active, infiniband, lid 1, active mtu 4096". */
static int port_lines(check_t *c, const char *text)
{
    int ports = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        char dev[64], state[32];
        unsigned port;
        if (sscanf(l, " %63s port %u: %31[^,]", dev, &port, state) != 3)
            continue;
        ports++;
        bool up = strcmp(state, "active") == 0;
        say(c, up ? CK_OK : CK_FAIL, "rdma devices: %s port %u: %s%s", dev, port, state,
            up ? ""
               : ": this port cannot carry traffic. Fix: check the cable and the switch, that a "
                 "subnet manager runs (InfiniBand: ibstat, opensm), or the link (RoCE: ip link)");
    }
    return ports;
}

static void check_devices(check_t *c)
{
    int ports = 0;
    const ibex_tl_component_t *tl;
    for (int i = 0; (tl = ibex_tl_component(i)) != NULL; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = tl->ops.info ? open_memstream(&text, &len) : NULL;
        if (!m)
            continue;
        tl->ops.info(m);
        fclose(m);
        ports += port_lines(c, text);
        free(text);
    }
    if (ports == 0)
        say(c, CK_WARN,
            "rdma devices: none found: jobs within this node use shared memory; "
            "between nodes Ibex needs an RDMA device. Fix: load the device's driver "
            "(ibv_devices lists them), or run with --softib to test the RDMA path");
}

/* ---- NUMA: each RDMA device against the cores ranks are bound to ---- */

/* The distance between NUMA nodes a and b from the OS's matrix, or -1. */
static int numa_distance(hwloc_topology_t topo, unsigned a, unsigned b)
{
    unsigned nr = 1;
    struct hwloc_distances_s *d = NULL;
    if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &d, 0, 0) != 0 || nr == 0)
        return -1;
    int v = -1;
    if (a < d->nbobjs && b < d->nbobjs)
        v = (int)d->values[a * d->nbobjs + b];
    hwloc_distances_release(topo, d);
    return v;
}

/* One device: how many cores are on its NUMA node(s), and how far the others are. */
static void numa_device(check_t *c, hwloc_topology_t topo, hwloc_obj_t os)
{
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, os);
    int dev_node = anc ? hwloc_bitmap_first(anc->nodeset) : -1;
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), local = 0, far = -1;
    for (int i = 0; i < ncores; i++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)i);
        if (anc && hwloc_bitmap_intersects(core->cpuset, anc->cpuset)) {
            local++;
            continue;
        }
        int d =
            numa_distance(topo, (unsigned)dev_node, (unsigned)hwloc_bitmap_first(core->nodeset));
        far = d > far ? d : far;
    }
    if (local == ncores) {
        say(c, CK_OK, "NUMA: %s is local to every core (NUMA node %d)", os->name, dev_node);
        return;
    }
    say(c, CK_WARN,
        "NUMA: %s is on NUMA node %d, local to %d of %d cores; ranks bound to the others reach "
        "it across the interconnect (distance %d, local %d). Fix: bind the ranks that talk "
        "over it to its node's cores, or use the device of their own node",
        os->name, dev_node, local, ncores, far,
        numa_distance(topo, (unsigned)dev_node, (unsigned)dev_node));
}

static void check_numa(check_t *c)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    int found = 0;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_obj_t os = NULL;
        while ((os = hwloc_get_next_osdev(topo, os)) != NULL)
            if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && ++found)
                numa_device(c, topo, os);
    }
    if (!found)
        say(c, CK_NOTE,
            "NUMA: no RDMA device in the hardware topology (hwloc), nothing to "
            "place (a software device such as softib has no place)");
    hwloc_topology_destroy(topo);
}

int ibex_info_check(void)
{
    check_t c = {0};
    printf("ibex_info --check: preflight checks of this node\n");
    check_memlock(&c);
    check_ptrace(&c);
    check_shm(&c);
    check_devices(&c);
    check_numa(&c);
    printf("%d problem%s, %d warning%s\n", c.fails, c.fails == 1 ? "" : "s", c.warns,
           c.warns == 1 ? "" : "s");
    return c.fails ? 1 : 0;
}
