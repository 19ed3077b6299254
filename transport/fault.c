/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection for any transport: a decorator that wraps the ops table of the component
 * IBEX_TL_FAULT names (the chaos matrix uses it on shared memory, which has no fault injection
 * of its own; softib has its own for verbs). It knows no backend: it forwards every op to the
 * wrapped one and injects only what the transport contract (transport.h) allows a transport to
 * do, so that a correct runtime must still deliver every byte, in order per pair:
 *   - delays: a send refused with IBEX_ERR_AGAIN ("no room": the runtime keeps it in the peer's
 *     backlog and retries), a delivery refused by answering IBEX_ERR_AGAIN to the transport (it
 *     keeps the message and everything behind it from that peer, and offers it again). A peer hit
 *     is held for 1 to IBEX_TL_FAULT_HOLD attempts while the other peers' traffic goes on: the
 *     order across peers changes, never within a pair;
 *   - stalls: a progress call that first sleeps IBEX_TL_FAULT_STALL_US;
 *   - a process killed mid-transfer: rank IBEX_TL_FAULT_KILL_RANK SIGKILLs itself at its
 *     IBEX_TL_FAULT_KILL_AFTER-th put or get (a rendezvous under way), which the job must end
 *     with the launcher's line naming the killed rank.
 * Seeded (IBEX_TL_FAULT_SEED, and the rank): a failing run can be repeated.
 */
#include "ibex_tl_fault.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_config.h"
#include "ibex_log.h"

static char *cfg_name;
static int cfg_seed, cfg_delay, cfg_hold, cfg_stall, cfg_stall_us, cfg_kill_after, cfg_kill_rank;

static const ibex_cfg_entry_t fault_table[] = {
    {"TL_FAULT", IBEX_CFG_STRING, "none", NULL, &cfg_name,
     "tests only: the transport (a name of IBEX_TRANSPORTS) whose operations get the faults "
     "below injected (delays, stalls, a process killed mid-transfer); none: no injection"},
    {"TL_FAULT_SEED", IBEX_CFG_INT, "1", NULL, &cfg_seed,
     "seed of the injected faults (mixed with the rank): the same seed, the same faults"},
    {"TL_FAULT_DELAY", IBEX_CFG_INT, "0", NULL, &cfg_delay,
     "percent (0-100) of sends and deliveries refused for now (as a full ring is), holding that "
     "peer while the others go on"},
    {"TL_FAULT_HOLD", IBEX_CFG_INT, "8", NULL, &cfg_hold,
     "attempts (1 or more) a delayed peer is held at most"},
    {"TL_FAULT_STALL", IBEX_CFG_INT, "0", NULL, &cfg_stall,
     "percent (0-100) of progress calls that first stall for IBEX_TL_FAULT_STALL_US"},
    {"TL_FAULT_STALL_US", IBEX_CFG_INT, "200", NULL, &cfg_stall_us,
     "microseconds of one stall (0 to 1000000)"},
    {"TL_FAULT_KILL_AFTER", IBEX_CFG_INT, "0", NULL, &cfg_kill_after,
     "rank IBEX_TL_FAULT_KILL_RANK kills itself (SIGKILL) at this put or get of the transport, "
     "in the middle of a rendezvous; 0: never"},
    {"TL_FAULT_KILL_RANK", IBEX_CFG_INT, "1", NULL, &cfg_kill_rank,
     "the rank IBEX_TL_FAULT_KILL_AFTER kills"},
};
IBEX_CFG_MODULE(tl_fault, "fault", IBEX_CFG_LAYER_TRANSPORT, fault_table);

/* An endpoint of the wrapped transport and the peer it reaches (for the per-peer holds). */
typedef struct fault_ep {
    ibex_tl_ep_t *inner;
    int peer;
} fault_ep_t;

static ibex_tl_ops_t inner;       /* the wrapped component's own ops */
static ibex_tl_recv_cb_t up_recv; /* the runtime's receive callback */
static void *up_arg;
static int f_rank, f_size;
static uint64_t f_rng;
static int *hold_send, *hold_recv; /* per peer: attempts still refused */
static long f_rma;
static long n_send, n_recv, n_stall; /* faults injected, said at close (the chaos matrix checks) */

static uint64_t fault_rand(void)
{
    f_rng ^= f_rng << 13; /* xorshift64 */
    f_rng ^= f_rng >> 7;
    f_rng ^= f_rng << 17;
    return f_rng;
}

static bool fault_chance(int pct)
{
    return pct > 0 && (int)(fault_rand() % 100) < pct;
}

/* True when this attempt for peer is refused: the peer is held, or a new hold starts. */
static bool fault_held(int *hold, int peer)
{
    if (!hold || peer < 0 || peer >= f_size)
        return false;
    if (hold[peer] > 0) {
        hold[peer]--;
        return true;
    }
    if (!fault_chance(cfg_delay))
        return false;
    hold[peer] = (int)(fault_rand() % (uint64_t)cfg_hold);
    return true;
}

static ibex_status_t fault_recv(void *arg, int src, const void *data, size_t len)
{
    (void)arg;
    if (fault_held(hold_recv, src)) {
        n_recv++;
        return IBEX_ERR_AGAIN; /* the transport keeps it, and what follows from src */
    }
    return up_recv(up_arg, src, data, len);
}

static ibex_status_t fault_open(const ibex_tl_params_t *params, ibex_tl_t **tl_p,
                                ibex_tl_caps_t *caps_p)
{
    ibex_tl_params_t mine = *params;
    up_recv = params->recv_cb;
    up_arg = params->cb_arg;
    mine.recv_cb = fault_recv;
    f_rank = params->rank;
    f_size = params->size;
    f_rng = 0x9e3779b97f4a7c15ull * (uint64_t)(cfg_seed + 1) ^ (uint64_t)(f_rank + 1) << 32;
    f_rma = n_send = n_recv = n_stall = 0;
    hold_send = calloc((size_t)f_size, sizeof(int));
    hold_recv = calloc((size_t)f_size, sizeof(int));
    if (!hold_send || !hold_recv)
        return IBEX_ERR_NO_MEMORY;
    return inner.open(&mine, tl_p, caps_p);
}

static void fault_close(ibex_tl_t *tl)
{
    ibex_warn(TL, "fault injection: refused %ld sends and %ld deliveries, %ld stalls", n_send,
              n_recv, n_stall);
    inner.close(tl);
    free(hold_send);
    free(hold_recv);
    hold_send = hold_recv = NULL;
}

static ibex_status_t fault_ep_create(ibex_tl_t *tl, int peer, const void *addr, size_t addr_len,
                                     ibex_tl_ep_t **ep_p)
{
    fault_ep_t *fe = calloc(1, sizeof(*fe));
    if (!fe)
        return IBEX_ERR_NO_MEMORY;
    ibex_status_t st = inner.ep_create(tl, peer, addr, addr_len, &fe->inner);
    if (st != IBEX_OK) {
        free(fe);
        return st;
    }
    fe->peer = peer;
    *ep_p = (ibex_tl_ep_t *)fe;
    return IBEX_OK;
}

static void fault_ep_destroy(ibex_tl_ep_t *ep)
{
    fault_ep_t *fe = (fault_ep_t *)ep;
    inner.ep_destroy(fe->inner);
    free(fe);
}

static ibex_status_t fault_send(ibex_tl_ep_t *ep, const void *hdr, size_t hdr_len,
                                const void *payload, size_t len)
{
    fault_ep_t *fe = (fault_ep_t *)ep;
    if (fault_held(hold_send, fe->peer)) {
        n_send++;
        return IBEX_ERR_AGAIN; /* "no room": the runtime keeps it in the peer's backlog */
    }
    return inner.send(fe->inner, hdr, hdr_len, payload, len);
}

/* The put / get that IBEX_TL_FAULT_KILL_AFTER names ends this process, mid-rendezvous. */
static void fault_maybe_die(void)
{
    if (cfg_kill_after > 0 && f_rank == cfg_kill_rank && ++f_rma == cfg_kill_after) {
        ibex_warn(TL, "IBEX_TL_FAULT_KILL_AFTER: rank %d kills itself at transfer %d (injected)",
                  f_rank, cfg_kill_after);
        raise(SIGKILL);
    }
}

static ibex_status_t fault_put(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    fault_maybe_die();
    return inner.put(((fault_ep_t *)ep)->inner, desc);
}

static ibex_status_t fault_get(ibex_tl_ep_t *ep, const ibex_tl_rma_t *desc)
{
    fault_maybe_die();
    return inner.get(((fault_ep_t *)ep)->inner, desc);
}

static ibex_status_t fault_atomic(ibex_tl_ep_t *ep, const ibex_tl_atomic_t *desc)
{
    return inner.atomic(((fault_ep_t *)ep)->inner, desc);
}

static int fault_progress(ibex_tl_t *tl)
{
    if (fault_chance(cfg_stall)) {
        n_stall++;
        usleep((useconds_t)cfg_stall_us);
    }
    return inner.progress(tl);
}

static ibex_status_t fault_check(void)
{
    const char *bad = cfg_delay < 0 || cfg_delay > 100             ? "IBEX_TL_FAULT_DELAY"
                      : cfg_stall < 0 || cfg_stall > 100           ? "IBEX_TL_FAULT_STALL"
                      : cfg_hold < 1                               ? "IBEX_TL_FAULT_HOLD"
                      : cfg_stall_us < 0 || cfg_stall_us > 1000000 ? "IBEX_TL_FAULT_STALL_US"
                      : cfg_kill_after < 0                         ? "IBEX_TL_FAULT_KILL_AFTER"
                                                                   : NULL;
    if (!bad)
        return IBEX_OK;
    ibex_error(TL, "%s is out of range (see ibex_info)", bad);
    return IBEX_ERR_INVALID;
}

ibex_status_t ibex_tl_fault_install(void)
{
    if (!cfg_name || !cfg_name[0] || strcmp(cfg_name, "none") == 0)
        return IBEX_OK;
    ibex_tl_component_t *comp = ibex_tl_component_find(cfg_name);
    if (!comp) {
        char known[256];
        ibex_tl_component_names(known, sizeof(known));
        ibex_error(TL, "IBEX_TL_FAULT='%s': unknown transport (known: %s)", cfg_name, known);
        return IBEX_ERR_INVALID;
    }
    if (fault_check() != IBEX_OK)
        return IBEX_ERR_INVALID;
    if (comp->ops.open == fault_open) /* a second MPI_Init (sessions): wrapped already */
        return IBEX_OK;
    ibex_tl_fill_stubs(&comp->ops);
    inner = comp->ops;
    comp->ops.open = fault_open;
    comp->ops.close = fault_close;
    comp->ops.ep_create = fault_ep_create;
    comp->ops.ep_destroy = fault_ep_destroy;
    comp->ops.send = fault_send;
    comp->ops.put = fault_put;
    comp->ops.get = fault_get;
    comp->ops.atomic = fault_atomic;
    comp->ops.progress = fault_progress;
    ibex_warn(TL,
              "fault injection on transport %s (IBEX_TL_FAULT, seed %d): delay %d%%, stall %d%%",
              comp->name, cfg_seed, cfg_delay, cfg_stall);
    return IBEX_OK;
}
