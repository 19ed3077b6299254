/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device and port choice. IBEX_VERBS_DEVICE=name[:port] picks one; "auto" takes the first active
 * port of a device near this rank's cores (hwloc: the OPENFABRICS OS device's non-I/O ancestor
 * intersects our binding), else the first active port of any device. InfiniBand ports are
 * addressed by LID, RoCE ports by a GID (the first non-zero entry of the port's table).
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibex_log.h"
#include "verbs.h"

typedef struct verbs_pick {
    struct ibv_device *dev;
    uint8_t port;
    char reason[160];
} verbs_pick_t;

static const char *port_state_str(enum ibv_port_state s)
{
    switch (s) {
    case IBV_PORT_DOWN:
        return "down";
    case IBV_PORT_INIT:
        return "init";
    case IBV_PORT_ARMED:
        return "armed";
    case IBV_PORT_ACTIVE:
        return "active";
    case IBV_PORT_ACTIVE_DEFER:
        return "active-defer";
    default:
        return "no-state";
    }
}

/* Devices near our cores, as a bitmask over the device list (all 0 if hwloc cannot tell). */
static unsigned long near_mask(struct ibv_device **list, int n)
{
    unsigned long mask = 0;
    hwloc_topology_t topo;
    if (n < 2 || hwloc_topology_init(&topo))
        return 0;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (hwloc_topology_load(topo) || hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS))
        goto out;
    for (hwloc_obj_t os = NULL; (os = hwloc_get_next_osdev(topo, os));) {
        if (os->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS)
            continue;
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, os);
        if (!anc || !hwloc_bitmap_intersects(anc->cpuset, mine))
            continue;
        for (int i = 0; i < n && i < 64; i++)
            if (strcmp(ibv_get_device_name(list[i]), os->name) == 0)
                mask |= 1ul << i;
    }
out:
    hwloc_bitmap_free(mine);
    hwloc_topology_destroy(topo);
    return mask;
}

/* First active port of a device (0 if none). */
static uint8_t first_active(struct ibv_device *dev)
{
    struct ibv_context *ctx = ibv_open_device(dev);
    if (!ctx)
        return 0;
    struct ibv_device_attr da;
    uint8_t port = 0;
    if (ibv_query_device(ctx, &da) == 0)
        for (uint8_t p = 1; p <= da.phys_port_cnt && !port; p++) {
            struct ibv_port_attr pa;
            if (ibv_query_port(ctx, p, &pa) == 0 && pa.state == IBV_PORT_ACTIVE)
                port = p;
        }
    ibv_close_device(ctx);
    return port;
}

static int pick_auto(struct ibv_device **list, int n, verbs_pick_t *pick)
{
    unsigned long near = near_mask(list, n);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            if (pass == 0 && !(near & (1ul << i)))
                continue;
            uint8_t port = first_active(list[i]);
            if (!port)
                continue;
            pick->dev = list[i];
            pick->port = port;
            snprintf(pick->reason, sizeof(pick->reason), "%s",
                     pass == 0 ? "first active port near this rank's cores (hwloc)"
                     : n == 1  ? "the only device, first active port"
                               : "first active port (no device known near this rank's cores)");
            return 0;
        }
    }
    snprintf(pick->reason, sizeof(pick->reason), "no active port on any of %d device(s)", n);
    return -1;
}

static int pick_named(struct ibv_device **list, int n, const char *spec, verbs_pick_t *pick)
{
    char name[64];
    snprintf(name, sizeof(name), "%s", spec);
    char *colon = strchr(name, ':');
    int port = colon ? atoi(colon + 1) : 0;
    if (colon)
        *colon = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(ibv_get_device_name(list[i]), name) != 0)
            continue;
        pick->dev = list[i];
        pick->port = port > 0 ? (uint8_t)port : first_active(list[i]);
        snprintf(pick->reason, sizeof(pick->reason), "IBEX_VERBS_DEVICE=%s", spec);
        if (!pick->port)
            snprintf(pick->reason, sizeof(pick->reason), "device %s has no active port", name);
        return pick->port ? 0 : -1;
    }
    snprintf(pick->reason, sizeof(pick->reason), "IBEX_VERBS_DEVICE=%s: no device named %s", spec,
             name);
    return -1;
}

static int pick_port(struct ibv_device **list, int n, verbs_pick_t *pick)
{
    const char *spec = ibex_verbs_cfg.device ? ibex_verbs_cfg.device : "auto";
    if (strcmp(spec, "auto") == 0 || spec[0] == '\0')
        return pick_auto(list, n, pick);
    return pick_named(list, n, spec, pick);
}

/* RoCE: the first non-zero GID of the port. */
static int gid_choose(ibex_tl_t *tl, union ibv_gid *gid, uint8_t *index_p)
{
    int len = tl->port_attr.gid_tbl_len;
    for (int i = 0; i < len && i < 256; i++) {
        if (ibv_query_gid(tl->ctx, tl->port, i, gid))
            break;
        if (gid->global.interface_id || gid->global.subnet_prefix) {
            *index_p = (uint8_t)i;
            return 0;
        }
    }
    return -1;
}

static ibex_status_t port_setup(ibex_tl_t *tl)
{
    union ibv_gid gid = {0};
    verbs_addr_t *a = &tl->addr;
    if (ibv_query_port(tl->ctx, tl->port, &tl->port_attr)) {
        ibex_error(TL, "cannot query port %u of %s: %m", tl->port, tl->dev_name);
        return IBEX_ERR_NO_DEVICE;
    }
    if (tl->port_attr.state != IBV_PORT_ACTIVE) {
        ibex_error(TL, "port %u of %s is %s, not active", tl->port, tl->dev_name,
                   port_state_str(tl->port_attr.state));
        return IBEX_ERR_NO_DEVICE;
    }
    a->is_roce = tl->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
    if (a->is_roce && gid_choose(tl, &gid, &a->gid_index)) {
        ibex_error(TL, "roce port %u of %s has no usable gid", tl->port, tl->dev_name);
        return IBEX_ERR_NO_DEVICE;
    }
    if (!a->is_roce)
        ibv_query_gid(tl->ctx, tl->port, 0, &gid);
    memcpy(a->gid, gid.raw, 16);
    a->magic = VERBS_ADDR_MAGIC;
    a->lid = tl->port_attr.lid;
    a->port = tl->port;
    a->mtu = (uint8_t)tl->port_attr.active_mtu;
    return IBEX_OK;
}

ibex_status_t ibex_verbs_dev_open(ibex_tl_t *tl, bool explicit)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    verbs_pick_t pick = {0};
    int rc = list && n > 0 ? pick_port(list, n, &pick) : -1;
    if (!list || n == 0)
        snprintf(pick.reason, sizeof(pick.reason), "no rdma device found (%m)");
    if (rc) {
        if (explicit)
            ibex_error(TL, "verbs transport requested but unusable: %s", pick.reason);
        else
            ibex_debug(TL, "verbs transport not used: %s", pick.reason);
        if (list)
            ibv_free_device_list(list);
        return IBEX_ERR_NO_DEVICE;
    }
    snprintf(tl->dev_name, sizeof(tl->dev_name), "%s", ibv_get_device_name(pick.dev));
    tl->port = pick.port;
    tl->ctx = ibv_open_device(pick.dev);
    ibv_free_device_list(list);
    if (!tl->ctx) {
        ibex_error(TL, "cannot open rdma device %s: %m", tl->dev_name);
        return IBEX_ERR_NO_DEVICE;
    }
    if (ibv_query_device(tl->ctx, &tl->dev_attr)) {
        ibex_error(TL, "cannot query rdma device %s: %m", tl->dev_name);
        return IBEX_ERR_NO_DEVICE;
    }
    ibex_status_t st = port_setup(tl);
    if (st == IBEX_OK)
        ibex_info(TL, "verbs: using %s port %u (%s, lid %u, mtu %s): %s", tl->dev_name, tl->port,
                  tl->addr.is_roce ? "roce" : "infiniband", tl->addr.lid,
                  ibex_verbs_mtu_str(tl->port_attr.active_mtu), pick.reason);
    return st;
}

static void info_device(FILE *out, struct ibv_device *dev)
{
    struct ibv_context *ctx = ibv_open_device(dev);
    struct ibv_device_attr da;
    if (!ctx || ibv_query_device(ctx, &da)) {
        fprintf(out, "  %s: cannot open\n", ibv_get_device_name(dev));
        if (ctx)
            ibv_close_device(ctx);
        return;
    }
    for (uint8_t p = 1; p <= da.phys_port_cnt; p++) {
        struct ibv_port_attr pa;
        if (ibv_query_port(ctx, p, &pa))
            continue;
        fprintf(out, "  %s port %u: %s, %s, lid %u, active mtu %s\n", ibv_get_device_name(dev), p,
                port_state_str(pa.state),
                pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "ethernet (roce)" : "infiniband", pa.lid,
                ibex_verbs_mtu_str(pa.active_mtu));
    }
    ibv_close_device(ctx);
}

void ibex_verbs_dev_info(void *out_file)
{
    FILE *out = out_file;
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    fprintf(out, "verbs devices: %d\n", list ? n : 0);
    for (int i = 0; list && i < n; i++)
        info_device(out, list[i]);
    verbs_pick_t pick = {0};
    if (list && n > 0 && pick_port(list, n, &pick) == 0)
        fprintf(out, "verbs would use %s port %u: %s\n", ibv_get_device_name(pick.dev), pick.port,
                pick.reason);
    else
        fprintf(out, "verbs would not open: %s\n", n ? pick.reason : "no rdma device found");
    if (list)
        ibv_free_device_list(list);
}
