/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib: string helpers and every exported entry point softib does not
 * emulate. Each one answers as a device without the feature would, so no call
 * falls through to libibverbs with softib's objects.
 */
#include "softib.h"

#include <errno.h>

const char *ibv_wc_status_str(enum ibv_wc_status status)
{
    static const char *const s[] = {
        [IBV_WC_SUCCESS] = "success",
        [IBV_WC_LOC_LEN_ERR] = "local length error",
        [IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
        [IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
        [IBV_WC_LOC_PROT_ERR] = "local protection error",
        [IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
        [IBV_WC_MW_BIND_ERR] = "memory management operation error",
        [IBV_WC_BAD_RESP_ERR] = "bad response error",
        [IBV_WC_LOC_ACCESS_ERR] = "local access error",
        [IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
        [IBV_WC_REM_ACCESS_ERR] = "remote access error",
        [IBV_WC_REM_OP_ERR] = "remote operation error",
        [IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
        [IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
        [IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
        [IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
        [IBV_WC_REM_ABORT_ERR] = "aborted error",
        [IBV_WC_INV_EECN_ERR] = "invalid EE context number",
        [IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
        [IBV_WC_FATAL_ERR] = "fatal error",
        [IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
        [IBV_WC_GENERAL_ERR] = "general error",
        [IBV_WC_TM_ERR] = "TM error",
        [IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
    };

    if ((unsigned)status >= sizeof(s) / sizeof(s[0]) || !s[status])
        return "unknown";
    return s[status];
}

const char *ibv_node_type_str(enum ibv_node_type node_type)
{
    static const char *const s[] = {"unknown",           "InfiniBand channel adapter",
                                    "InfiniBand switch", "InfiniBand router",
                                    "iWARP NIC",         "usNIC",
                                    "usNIC UDP",         "unspecified"};

    if (node_type < IBV_NODE_CA || node_type > IBV_NODE_UNSPECIFIED)
        return s[0];
    return s[node_type];
}

const char *ibv_port_state_str(enum ibv_port_state port_state)
{
    static const char *const s[] = {"no state change (NOP)", "down", "init", "armed", "active",
                                    "active deferred"};

    if ((unsigned)port_state > IBV_PORT_ACTIVE_DEFER)
        return "unknown";
    return s[port_state];
}

const char *ibv_event_type_str(enum ibv_event_type event)
{
    static const char *const s[] = {
        [IBV_EVENT_CQ_ERR] = "CQ error",
        [IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
        [IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
        [IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
        [IBV_EVENT_COMM_EST] = "communication established",
        [IBV_EVENT_SQ_DRAINED] = "send queue drained",
        [IBV_EVENT_PATH_MIG] = "path migrated",
        [IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
        [IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
        [IBV_EVENT_PORT_ACTIVE] = "port active",
        [IBV_EVENT_PORT_ERR] = "port error",
        [IBV_EVENT_LID_CHANGE] = "LID change",
        [IBV_EVENT_PKEY_CHANGE] = "P_Key change",
        [IBV_EVENT_SM_CHANGE] = "SM change",
        [IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
        [IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
        [IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
        [IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
        [IBV_EVENT_GID_CHANGE] = "GID table change",
        [IBV_EVENT_WQ_FATAL] = "WQ fatal",
    };

    if ((unsigned)event >= sizeof(s) / sizeof(s[0]) || !s[event])
        return "unknown";
    return s[event];
}

/* Multicast groups are not emulated. */
int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
    (void)qp;
    (void)gid;
    (void)lid;
    return EOPNOTSUPP;
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
    (void)qp;
    (void)gid;
    (void)lid;
    return EOPNOTSUPP;
}

int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
                                uint8_t eth_mac[6], uint16_t *vid)
{
    (void)context;
    (void)attr;
    (void)eth_mac;
    (void)vid;
    return EOPNOTSUPP;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
    (void)qp;
    errno = EOPNOTSUPP;
    return NULL;
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
                                 int fd, int access)
{
    (void)pd;
    (void)offset;
    (void)length;
    (void)iova;
    (void)fd;
    (void)access;
    errno = EOPNOTSUPP;
    return NULL;
}

/* Shared objects between processes (ibv_import_*) need a kernel: not emulated. */
struct ibv_context *ibv_import_device(int cmd_fd)
{
    (void)cmd_fd;
    errno = EOPNOTSUPP;
    return NULL;
}

struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
    (void)context;
    (void)pd_handle;
    errno = EOPNOTSUPP;
    return NULL;
}

void ibv_unimport_pd(struct ibv_pd *pd)
{
    (void)pd;
}

struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
    (void)pd;
    (void)mr_handle;
    errno = EOPNOTSUPP;
    return NULL;
}

void ibv_unimport_mr(struct ibv_mr *mr)
{
    (void)mr;
}

struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
    (void)context;
    (void)dm_handle;
    errno = EOPNOTSUPP;
    return NULL;
}

void ibv_unimport_dm(struct ibv_dm *dm)
{
    (void)dm;
}

int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
    (void)qp;
    (void)ece;
    return EOPNOTSUPP;
}

int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
    (void)qp;
    (void)ece;
    return EOPNOTSUPP;
}

/* Data lands with one process_vm_writev in address order, but promise nothing. */
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
    (void)qp;
    (void)op;
    (void)flags;
    return 0;
}

const char *ibv_get_sysfs_path(void)
{
    return "/sys";
}
