/* Typed "not supported" stubs for ops a backend leaves unset. */
#include "transport.h"

static ibex_status_t stub_open(const ibex_tl_params_t *p, ibex_tl_t **t, ibex_tl_caps_t *c)
{
    (void)p, (void)t, (void)c;
    return IBEX_ERR_UNSUPPORTED;
}
static void stub_close(ibex_tl_t *tl)
{
    (void)tl;
}
static ibex_status_t stub_addr_pack(ibex_tl_t *tl, void *buf, size_t *len_p)
{
    (void)tl, (void)buf;
    *len_p = 0;
    return IBEX_OK;
}
static bool stub_reachable(ibex_tl_t *tl, int peer)
{
    (void)tl, (void)peer;
    return true;
}
static ibex_status_t stub_ep_create(ibex_tl_t *tl, int peer, const void *a, size_t l,
                                    ibex_tl_ep_t **ep_p)
{
    (void)tl, (void)peer, (void)a, (void)l, (void)ep_p;
    return IBEX_ERR_UNSUPPORTED;
}
static void stub_ep_destroy(ibex_tl_ep_t *ep)
{
    (void)ep;
}
static ibex_status_t stub_send(ibex_tl_ep_t *ep, const void *h, size_t hl, const void *p, size_t l)
{
    (void)ep, (void)h, (void)hl, (void)p, (void)l;
    return IBEX_ERR_UNSUPPORTED;
}
static ibex_status_t stub_rma(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    (void)ep, (void)desc;
    return IBEX_ERR_UNSUPPORTED;
}
static ibex_status_t stub_mem_reg(ibex_tl_t *tl, void *addr, size_t len, ibex_tl_mem_t **mem_p)
{
    (void)tl, (void)addr, (void)len;
    *mem_p = NULL;
    return IBEX_OK; /* transports without registration accept any memory */
}
static void stub_mem_dereg(ibex_tl_t *tl, ibex_tl_mem_t *mem)
{
    (void)tl, (void)mem;
}
static ibex_status_t stub_pack_rkey(ibex_tl_t *tl, ibex_tl_mem_t *mem, void *buf)
{
    (void)tl, (void)mem, (void)buf;
    return IBEX_OK;
}
static ibex_status_t stub_mem_alloc(ibex_tl_t *tl, size_t len, void **ptr_p)
{
    (void)tl, (void)len, (void)ptr_p;
    return IBEX_ERR_UNSUPPORTED;
}
static ibex_status_t stub_mem_free(ibex_tl_t *tl, void *ptr)
{
    (void)tl, (void)ptr;
    return IBEX_ERR_UNSUPPORTED;
}
static int stub_progress(ibex_tl_t *tl)
{
    (void)tl;
    return 0;
}
static void stub_info(void *out)
{
    (void)out;
}

#define FILL(op, stub)                                                                             \
    if (!ops->op)                                                                                  \
    ops->op = stub
void ibex_tl_fill_stubs(ibex_tl_ops_t *ops)
{
    FILL(open, stub_open);
    FILL(close, stub_close);
    FILL(addr_pack, stub_addr_pack);
    FILL(reachable, stub_reachable);
    FILL(ep_create, stub_ep_create);
    FILL(ep_destroy, stub_ep_destroy);
    FILL(send, stub_send);
    FILL(put, stub_rma);
    FILL(get, stub_rma);
    FILL(mem_reg, stub_mem_reg);
    FILL(mem_dereg, stub_mem_dereg);
    FILL(mem_pack_rkey, stub_pack_rkey);
    FILL(mem_alloc, stub_mem_alloc);
    FILL(mem_free, stub_mem_free);
    FILL(progress, stub_progress);
    FILL(info, stub_info);
}
#undef FILL
