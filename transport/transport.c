/* SPDX-License-Identifier: BSD-3-Clause */
/* The transport registry (the components of the "ibex_tl" section, in priority order) and the
 * typed "not supported" stubs for ops a backend leaves unset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

/* Defined by the linker around the "ibex_tl" section of the program or library holding this
 * file; weak, since a program that links no backend has no such section. */
extern ibex_tl_component_t *const __start_ibex_tl[] __attribute__((weak));
extern ibex_tl_component_t *const __stop_ibex_tl[] __attribute__((weak));

#define MAX_COMPONENTS 16

static ibex_tl_component_t *sorted[MAX_COMPONENTS];
static int sorted_count = -1; /* -1: not built yet */

static int component_cmp(const void *a, const void *b)
{
    const ibex_tl_component_t *x = *(ibex_tl_component_t *const *)a;
    const ibex_tl_component_t *y = *(ibex_tl_component_t *const *)b;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The section is in link order, which means nothing: sort it once by priority. */
static void registry_build(void)
{
    if (sorted_count >= 0)
        return;
    int n = __start_ibex_tl ? (int)(__stop_ibex_tl - __start_ibex_tl) : 0;
    if (n > MAX_COMPONENTS)
        n = MAX_COMPONENTS; /* MAX_COMPONENTS is far above any build: not worth an error path */
    for (int i = 0; i < n; i++)
        sorted[i] = __start_ibex_tl[i];
    qsort(sorted, (size_t)n, sizeof(sorted[0]), component_cmp);
    sorted_count = n;
}

int ibex_tl_component_count(void)
{
    registry_build();
    return sorted_count;
}

ibex_tl_component_t *ibex_tl_component(int i)
{
    registry_build();
    return (i >= 0 && i < sorted_count) ? sorted[i] : NULL;
}

ibex_tl_component_t *ibex_tl_component_find(const char *name)
{
    ibex_tl_component_t *comp;
    for (int i = 0; (comp = ibex_tl_component(i)) != NULL; i++)
        if (strcmp(comp->name, name) == 0)
            return comp;
    return NULL;
}

void ibex_tl_component_names(char *buf, size_t len)
{
    ibex_tl_component_t *comp;
    size_t used = 0;
    if (len > 0)
        buf[0] = '\0';
    for (int i = 0; (comp = ibex_tl_component(i)) != NULL && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s", i ? "," : "", comp->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

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
static ibex_status_t stub_send_fill(ibex_tl_ep_t *ep, const void *h, size_t hl, size_t l,
                                    ibex_tl_fill_cb_t fill, void *ctx)
{
    (void)ep, (void)h, (void)hl, (void)l, (void)fill, (void)ctx;
    return IBEX_ERR_UNSUPPORTED;
}
static ibex_status_t stub_rma(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    (void)ep, (void)desc;
    return IBEX_ERR_UNSUPPORTED;
}
static ibex_status_t stub_atomic(ibex_tl_ep_t *ep, const ibex_tl_atomic_t *desc)
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
static void stub_stats(ibex_tl_t *tl, ibex_tl_stats_t *st_p)
{
    (void)tl;
    *st_p = (ibex_tl_stats_t){0};
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
    FILL(send_fill, stub_send_fill);
    FILL(put, stub_rma);
    FILL(get, stub_rma);
    FILL(atomic, stub_atomic);
    FILL(mem_reg, stub_mem_reg);
    FILL(mem_dereg, stub_mem_dereg);
    FILL(mem_pack_rkey, stub_pack_rkey);
    FILL(mem_alloc, stub_mem_alloc);
    FILL(mem_free, stub_mem_free);
    FILL(progress, stub_progress);
    FILL(info, stub_info);
    FILL(stats, stub_stats);
}
#undef FILL
