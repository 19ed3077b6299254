/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib device: the device list, contexts, device / port / GID / P_Key
 * queries and the string helpers. One device, softib0, with one port.
 */
#include "softib.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ibv_device g_dev = {
    .node_type = IBV_NODE_CA,
    .transport_type = IBV_TRANSPORT_IB,
    .name = "softib0",
    .dev_name = "usoftib0",
    .dev_path = "/dev/infiniband/usoftib0",
    .ibdev_path = "/sys/class/infiniband/softib0",
};

struct ibv_device **ibv_get_device_list(int *num_devices)
{
    struct ibv_device **l = calloc(2, sizeof(*l));

    sib_config_load();
    if (!l) {
        errno = ENOMEM;
        return NULL;
    }
    l[0] = &g_dev;
    if (num_devices)
        *num_devices = 1;
    return l;
}

void ibv_free_device_list(struct ibv_device **list)
{
    free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
    return device->name;
}

int ibv_get_device_index(struct ibv_device *device)
{
    return device == &g_dev ? 0 : -1;
}

static uint64_t guid_of(uint32_t lid)
{
    return SIB_GUID_BASE | lid;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
    uint32_t lid = 0;

    (void)device;
    sib_config_load();
    if (sib_host_lid(&lid) != 0)
        return 0;
    return htobe64(guid_of(lid));
}

static int ctx_init_sync(struct sib_ctx *c)
{
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->tlock, NULL);
    pthread_cond_init(&c->cond, NULL);
    pthread_mutex_init(&c->vctx.context.mutex, NULL);
    return 0;
}

static int sib_query_port_op(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
                             size_t len);
static int sib_dealloc_mw(struct ibv_mw *mw)
{
    (void)mw;
    return EOPNOTSUPP;
}

static int sib_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *b)
{
    (void)qp;
    (void)mw;
    (void)b;
    return EOPNOTSUPP;
}

static void ctx_set_ops(struct sib_ctx *c)
{
    struct ibv_context_ops *o = &c->vctx.context.ops;

    o->poll_cq = sib_poll_cq;
    o->req_notify_cq = sib_req_notify_cq;
    o->post_send = sib_post_send;
    o->post_recv = sib_post_recv;
    o->post_srq_recv = sib_post_srq_recv;
    o->dealloc_mw = sib_dealloc_mw;
    o->bind_mw = sib_bind_mw;
    c->vctx.query_port = sib_query_port_op;
    c->vctx.sz = sizeof(struct verbs_context);
    c->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
}

static int ctx_async_fifo(struct sib_ctx *c)
{
    char path[SIB_NAME_LEN + 32];
    int fd;

    sib_chan_fifo_path(c->self, 0, path, sizeof(path));
    if (mkfifo(path, 0600) != 0)
        return -1;
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd >= 0)
        atomic_store(&c->seg->chan[0].gen, 1);
    return fd;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
    struct sib_ctx *c;
    int rc;

    sib_config_load();
    if (device != &g_dev) {
        errno = ENODEV;
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    ctx_init_sync(c);
    rc = sib_seg_create(c);
    if (rc) {
        free(c);
        errno = rc;
        return NULL;
    }
    ctx_set_ops(c);
    c->vctx.context.device = device;
    c->vctx.context.cmd_fd = -1;
    c->vctx.context.num_comp_vectors = 1;
    c->vctx.context.async_fd = ctx_async_fifo(c);
    sib_log("opened softib0: lid %u segment %s", c->seg->lid, c->self->name);
    return &c->vctx.context;
}

int ibv_close_device(struct ibv_context *context)
{
    struct sib_ctx *c = sib_ctx_of(context);

    sib_thread_stop(c);
    if (context->async_fd >= 0)
        close(context->async_fd);
    sib_seg_destroy(c);
    sib_log("closed context lid %u", c->seg->lid);
    /* The segment mapping stays: our rctx cache entry still names it. */
    free(c);
    return 0;
}

static void dev_attr_fill(struct sib_ctx *c, struct ibv_device_attr *a)
{
    memset(a, 0, sizeof(*a));
    snprintf(a->fw_ver, sizeof(a->fw_ver), "softib 1.0");
    a->node_guid = htobe64(guid_of(c->seg->lid));
    a->sys_image_guid = a->node_guid;
    a->max_mr_size = 1ull << 40;
    a->page_size_cap = 0xfffff000;
    a->vendor_id = SIB_VENDOR_ID;
    a->vendor_part_id = 0x5e1b;
    a->hw_ver = 1;
    a->max_qp = SIB_MAX_QP;
    a->max_qp_wr = SIB_MAX_QP_WR;
    a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_CURR_QP_STATE_MOD |
                          IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SYS_IMAGE_GUID;
    a->max_sge = SIB_MAX_SGE;
    a->max_sge_rd = SIB_MAX_SGE;
    a->max_cq = 16384;
    a->max_cqe = SIB_MAX_CQE;
    a->max_mr = SIB_MAX_MR;
    a->max_pd = 1 << 16;
    a->max_ah = 1 << 16;
    a->max_qp_rd_atom = SIB_MAX_RD_ATOM;
    a->max_res_rd_atom = SIB_MAX_RD_ATOM * SIB_MAX_QP;
    a->max_qp_init_rd_atom = SIB_MAX_RD_ATOM;
    a->atomic_cap = IBV_ATOMIC_HCA;
    a->max_srq = 4096;
    a->max_srq_wr = SIB_MAX_QP_WR;
    a->max_srq_sge = SIB_MAX_SGE;
    a->max_pkeys = 1;
    a->local_ca_ack_delay = 15;
    a->phys_port_cnt = 1;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
    dev_attr_fill(sib_ctx_of(context), device_attr);
    return 0;
}

static void port_attr_fill(struct sib_ctx *c, struct ibv_port_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->state = IBV_PORT_ACTIVE;
    a->max_mtu = SIB_PORT_MTU;
    a->active_mtu = SIB_PORT_MTU;
    a->gid_tbl_len = sib_cfg.roce ? 2 : 1;
    a->port_cap_flags = sib_cfg.roce ? 0 : IBV_PORT_SM;
    a->max_msg_sz = 0x80000000;
    a->pkey_tbl_len = 1;
    a->lid = sib_cfg.roce ? 0 : (uint16_t)c->seg->lid;
    a->sm_lid = sib_cfg.roce ? 0 : 1;
    a->max_vl_num = 1;
    a->subnet_timeout = 18;
    a->active_width = 2;  /* 4X */
    a->active_speed = 32; /* 25 Gb/s per lane: EDR */
    a->phys_state = 5;    /* LinkUp */
    a->link_layer = sib_cfg.roce ? IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
}

static int sib_query_port_op(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
                             size_t len)
{
    struct ibv_port_attr a;

    if (port != 1)
        return EINVAL;
    port_attr_fill(sib_ctx_of(ctx), &a);
    memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
    return 0;
}

/* The exported compat entry takes the smaller _compat_ibv_port_attr. */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
                   struct _compat_ibv_port_attr *port_attr)
{
    return sib_query_port_op(context, port_num, (struct ibv_port_attr *)port_attr,
                             offsetof(struct ibv_port_attr, port_cap_flags2));
}

/* Entries of the GID table: one on InfiniBand, RoCE v1 and v2 in RoCE mode. */
int sib_gid_count(void)
{
    return sib_cfg.roce ? 2 : 1;
}

/* GIDs end with the host's LID so a GRH destination resolves to a host. */
void sib_gid_of(uint32_t lid, int index, union ibv_gid *gid)
{
    memset(gid, 0, sizeof(*gid));
    if (sib_cfg.roce) {
        gid->raw[10] = 0xff;
        gid->raw[11] = 0xff;
        gid->raw[12] = 127;
        gid->raw[13] = (uint8_t)index;
        gid->raw[14] = (uint8_t)(lid >> 8);
        gid->raw[15] = (uint8_t)lid;
        return;
    }
    gid->global.subnet_prefix = htobe64(0xfe80000000000000ull);
    gid->global.interface_id = htobe64(guid_of(lid));
}

/* The index of gid in the GID table of host lid, or -1 if it is none of them. */
int sib_gid_find(uint32_t lid, const union ibv_gid *gid)
{
    union ibv_gid g;
    int i;

    for (i = 0; lid && i < sib_gid_count(); i++) {
        sib_gid_of(lid, i, &g);
        if (!memcmp(&g, gid, sizeof(g)))
            return i;
    }
    return -1;
}

static void gid_fill(struct sib_ctx *c, int index, union ibv_gid *gid)
{
    sib_gid_of(c->seg->lid, index, gid);
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
    if (port_num != 1 || index < 0 || index >= sib_gid_count())
        return EINVAL;
    gid_fill(sib_ctx_of(context), index, gid);
    return 0;
}

/* rdma-core's private helper used by ibv_devinfo; index 1 is RoCE v2 in RoCE mode. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index, int *type)
{
    (void)context;
    if (port_num != 1 || index >= (sib_cfg.roce ? 2u : 1u))
        return EINVAL;
    *type = sib_cfg.roce && index == 1 ? 1 : 0;
    return 0;
}

static void gid_entry_fill(struct ibv_context *context, uint32_t index, struct ibv_gid_entry *e)
{
    memset(e, 0, sizeof(*e));
    gid_fill(sib_ctx_of(context), (int)index, &e->gid);
    e->gid_index = index;
    e->port_num = 1;
    if (!sib_cfg.roce)
        e->gid_type = IBV_GID_TYPE_IB;
    else
        e->gid_type = index == 1 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
                      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
    if (flags || entry_size < sizeof(*entry))
        return EINVAL;
    if (port_num != 1 || gid_index >= (sib_cfg.roce ? 2u : 1u))
        return ENODATA;
    gid_entry_fill(context, gid_index, entry);
    return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
                             size_t max_entries, uint32_t flags, size_t entry_size)
{
    size_t n = sib_cfg.roce ? 2 : 1, i;

    if (flags || entry_size < sizeof(*entries))
        return -EINVAL;
    if (max_entries < n)
        return -EINVAL;
    for (i = 0; i < n; i++)
        gid_entry_fill(context, (uint32_t)i, &entries[i]);
    return (ssize_t)n;
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
    (void)context;
    if (port_num != 1 || index != 0)
        return EINVAL;
    *pkey = htobe16(0xffff);
    return 0;
}

int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
    (void)context;
    if (port_num != 1 || (be16toh(pkey) & 0x7fff) != 0x7fff)
        return -1;
    return 0;
}

/*
 * softib moves data by pid, never by DMA to pinned pages, so fork needs no
 * madvise(MADV_DONTFORK) protection: report it as unneeded.
 */
int ibv_fork_init(void)
{
    return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
    return IBV_FORK_UNNEEDED;
}

int ibv_dontfork_range(void *base, size_t size)
{
    (void)base;
    (void)size;
    return 0;
}

int ibv_dofork_range(void *base, size_t size)
{
    (void)base;
    (void)size;
    return 0;
}
