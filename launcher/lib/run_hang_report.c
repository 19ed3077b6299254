/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hang report: one line per rank (what it waits in and for how long, or how long since
 * its last MPI call), the wait-for edges, and one root-cause sentence from the AND/OR graph
 * (see run_hang.c for the model): mismatched collectives, a deadlock cycle, a wait on a rank
 * that has finished, or the rank at the end of a chain of waits that computes.
 */
#include "run_hang_int.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { R_GONE, R_FINAL, R_NOMPI, R_ACTIVE, R_POLL, R_WAIT } hang_state_t;

typedef struct hang_view {
    const ibex_run_hang_t *h;
    int n;
    ibex_blk_page_t *pg;
    int *st;  /* hang_state_t */
    bool *ok; /* can act, now or once what it waits for has acted */
    long long now;
    int fd;
    const char *prefix;
} hang_view_t;

static void say(const hang_view_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const hang_view_t *v, const char *fmt, ...)
{
    char line[1024];
    int k = snprintf(line, sizeof(line), "%s: ", v->prefix);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + k, sizeof(line) - (size_t)k - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    ibex_run_io_write_all(v->fd, line, len);
}

static double secs(long long ns)
{
    return ns > 0 ? (double)ns / 1e9 : 0.0;
}

static bool pid_alive(int pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static int view_state(const hang_view_t *v, int r, const bool *gone)
{
    const ibex_blk_page_t *pg = &v->pg[r];
    bool has = pg->magic == IBEX_BLK_MAGIC;
    if (gone ? gone[r] : has && !pid_alive(pg->pid))
        return R_GONE;
    if (!has || pg->state == IBEX_BLK_STATE_NONE)
        return R_NOMPI;
    if (pg->state == IBEX_BLK_STATE_FINALIZED)
        return R_FINAL;
    /* A polling rank whose polls said what they look for waits as a blocked one does (an AND or
     * OR over the items, run_hang.c); one that did not can act, for all the record says. */
    if (pg->waiting == 2)
        return pg->nitems > 0 ? R_WAIT : R_POLL;
    return pg->waiting == 1 ? R_WAIT : R_ACTIVE;
}

static bool view_load(hang_view_t *v, const bool *gone)
{
    v->pg = calloc((size_t)v->n, sizeof(*v->pg));
    v->st = calloc((size_t)v->n, sizeof(*v->st));
    v->ok = calloc((size_t)v->n, sizeof(*v->ok));
    if (!v->pg || !v->st || !v->ok)
        return false;
    for (int r = 0; r < v->n; r++) {
        if (!ibex_run_hang_snapshot(v->h, r, &v->pg[r]))
            memset(&v->pg[r], 0, sizeof(v->pg[r]));
        v->st[r] = view_state(v, r, gone);
        /* a page that keeps changing under the reader belongs to a busy rank */
        if (v->st[r] == R_NOMPI && ibex_run_hang_page(v->h, r)->magic == IBEX_BLK_MAGIC)
            v->st[r] = R_ACTIVE;
    }
    return true;
}

static void view_free(hang_view_t *v)
{
    free(v->pg);
    free(v->st);
    free(v->ok);
}

/* ---- the AND/OR graph ---- */

static bool is_member(const ibex_blk_page_t *pg, int w)
{
    return w >= 0 && w < IBEX_BLK_MAX_RANKS && (pg->members[w / 8] >> (w % 8)) & 1;
}

/* m is blocked in the same collective as i (same call on the same communicator). */
static bool same_coll(const hang_view_t *v, int i, int m)
{
    const ibex_blk_page_t *a = &v->pg[i], *b = &v->pg[m];
    return v->st[m] == R_WAIT && a->ctx == b->ctx && strcmp(a->call, b->call) == 0;
}

static bool item_ok(const hang_view_t *v, int i, const ibex_blk_item_t *it)
{
    /* served by the peer's progress engine: only a peer done with MPI cannot */
    if (it->op == IBEX_BLK_OP_RMA && it->kind == IBEX_BLK_PEER)
        return it->peer >= 0 && it->peer < v->n && v->st[it->peer] != R_GONE &&
               v->st[it->peer] != R_FINAL;
    if (it->kind == IBEX_BLK_PEER)
        return it->peer >= 0 && it->peer < v->n && it->peer != i && v->ok[it->peer];
    bool any = it->kind == IBEX_BLK_ANY;
    for (int m = 0; m < v->n; m++) {
        if (m == i || !is_member(&v->pg[i], m))
            continue;
        if (any && v->ok[m])
            return true;
        if (!any && !same_coll(v, i, m) && !v->ok[m])
            return false;
    }
    return !any;
}

static bool wait_ok(const hang_view_t *v, int i)
{
    const ibex_blk_page_t *pg = &v->pg[i];
    if (pg->nitems == 0 || (pg->or_wait && pg->nmore > 0))
        return true; /* waits for something the record does not show: assume it comes */
    for (int k = 0; k < pg->nitems; k++) {
        bool ok = item_ok(v, i, &pg->items[k]);
        if (ok && pg->or_wait)
            return true;
        if (!ok && !pg->or_wait)
            return false;
    }
    return !pg->or_wait;
}

/* Graph reduction; returns how many ranks are left blocked for ever (the knot). */
static int view_reduce(hang_view_t *v)
{
    for (int r = 0; r < v->n; r++)
        v->ok[r] = v->st[r] == R_ACTIVE || v->st[r] == R_NOMPI || v->st[r] == R_POLL;
    bool changed = true;
    while (changed) {
        changed = false;
        for (int r = 0; r < v->n; r++)
            if (v->st[r] == R_WAIT && !v->ok[r] && wait_ok(v, r))
                v->ok[r] = changed = true;
    }
    int left = 0;
    for (int r = 0; r < v->n; r++)
        left += v->st[r] == R_WAIT && !v->ok[r];
    return left;
}

/* ---- words ---- */

static const char *op_word(int op)
{
    switch (op) {
    case IBEX_BLK_OP_SEND:
        return "dest";
    case IBEX_BLK_OP_SYNC:
        return "rank";
    case IBEX_BLK_OP_RMA:
        return "target";
    default:
        return "src";
    }
}

/* "waits in" a blocking call, "polls in" a loop of polling calls without progress */
static const char *wait_verb(const ibex_blk_page_t *pg)
{
    return pg->waiting == 2 ? "polls in" : "waits in";
}

/* bytes: show the item's size (not for a segment set-up's internal messages) */
static void item_words(const ibex_blk_item_t *it, bool coll, bool bytes, char *buf, size_t len)
{
    char tag[32] = "";
    if (!coll && it->tag != IBEX_BLK_NO_TAG)
        snprintf(tag, sizeof(tag), it->tag == -1 ? ", tag MPI_ANY_TAG" : ", tag %d", it->tag);
    if (it->kind == IBEX_BLK_ANY)
        snprintf(buf, len, "%s MPI_ANY_SOURCE%s", op_word(it->op), tag);
    else if (it->kind == IBEX_BLK_COLL)
        snprintf(buf, len, "the other members");
    else
        snprintf(buf, len, "%s %d%s", op_word(it->op), it->rank, tag);
    if (bytes && it->bytes && strlen(buf) + 24 < len)
        snprintf(buf + strlen(buf), len - strlen(buf), ", %llu B", (unsigned long long)it->bytes);
}

/* "MPI_Recv(src 1, tag 7, 8 B, MPI_COMM_WORLD)", a collective with its algorithm's step. */
static void wait_words(const ibex_blk_page_t *pg, char *buf, size_t len)
{
    char items[512] = "", one[96];
    bool coll = pg->coll || (pg->nitems > 0 && pg->items[0].kind == IBEX_BLK_COLL);
    bool setup = strcmp(pg->algo, IBEX_BLK_ALGO_SEG_SETUP) == 0;
    int shown = pg->nitems < 3 ? pg->nitems : 3;
    for (int k = 0; k < shown && !(coll && pg->items[k].kind == IBEX_BLK_COLL); k++) {
        item_words(&pg->items[k], coll, !setup, one, sizeof(one));
        snprintf(items + strlen(items), sizeof(items) - strlen(items), "%s%s",
                 k ? (pg->or_wait ? " or " : " and ") : "", one);
    }
    int more = pg->nitems - shown + pg->nmore;
    if (more > 0)
        snprintf(items + strlen(items), sizeof(items) - strlen(items), " and %d more", more);
    if (!coll) {
        snprintf(buf, len, "%s(%s%s%s)", pg->call, items, items[0] ? ", " : "", pg->comm_name);
        return;
    }
    char algo[96] = "";
    if (setup) /* the first collective that needs it: internal messages, steps of their own */
        snprintf(algo, sizeof(algo), "; setting up the communicator's shared segment");
    else if (pg->algo[0])
        snprintf(algo, sizeof(algo), "; %s, wait %d", pg->algo, pg->step > 0 ? pg->step : 1);
    snprintf(buf, len, "%s(%s%s%s%s)", pg->call, pg->comm_name, algo, items[0] ? ": " : "", items);
}

static double idle_s(const hang_view_t *v, int r)
{
    return secs(v->now - v->h->head->changed_ns[r]);
}

/* What rank r is doing, for the sentences: "is in compute, last MPI call 42.0 s ago". */
static void state_words(const hang_view_t *v, int r, char *buf, size_t len)
{
    switch (v->st[r]) {
    case R_GONE:
        snprintf(buf, len, "has exited");
        break;
    case R_FINAL:
        snprintf(buf, len, "has finished MPI_Finalize");
        break;
    case R_NOMPI:
        snprintf(buf, len, "has not called MPI_Init (started %.1f s ago)",
                 secs(v->now - v->h->head->start_ns));
        break;
    case R_ACTIVE:
        snprintf(buf, len, "is in compute, last MPI call %.1f s ago", idle_s(v, r));
        break;
    case R_POLL:
        snprintf(buf, len, "polls in %s without progress for %.1f s", v->pg[r].call,
                 secs(v->now - v->pg[r].since_ns));
        break;
    default: {
        char w[640];
        wait_words(&v->pg[r], w, sizeof(w));
        snprintf(buf, len, "%s %s%s for %.1f s", wait_verb(&v->pg[r]), w,
                 v->pg[r].waiting == 2 ? " without progress" : "",
                 secs(v->now - v->pg[r].since_ns));
    }
    }
}

static void rank_lines(const hang_view_t *v)
{
    for (int r = 0; r < v->n; r++) {
        char w[768];
        state_words(v, r, w, sizeof(w));
        if (v->pg[r].pid > 0)
            say(v, "  rank %d (pid %d) %s", r, v->pg[r].pid, w);
        else
            say(v, "  rank %d %s", r, w);
    }
}

/* "0 -> 1; 1 -> 0,2 (any)" over the blocked ranks' known peers. */
static void edge_line(const hang_view_t *v)
{
    char buf[900] = "";
    for (int r = 0; r < v->n && strlen(buf) < sizeof(buf) - 64; r++) {
        const ibex_blk_page_t *pg = &v->pg[r];
        if (v->st[r] != R_WAIT)
            continue;
        size_t k = strlen(buf);
        snprintf(buf + k, sizeof(buf) - k, "%s%d ->", k ? "; " : "", r);
        for (int m = 0; m < v->n; m++) {
            bool to = false;
            for (int i = 0; i < pg->nitems && !to; i++) {
                const ibex_blk_item_t *it = &pg->items[i];
                to = it->kind == IBEX_BLK_PEER
                         ? it->peer == m
                         : m != r && is_member(pg, m) &&
                               (it->kind == IBEX_BLK_ANY || !same_coll(v, r, m));
            }
            if (to && strlen(buf) < sizeof(buf) - 16)
                snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %d", m);
        }
        if (pg->or_wait || (pg->nitems && pg->items[0].kind == IBEX_BLK_ANY))
            snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " (any one)");
    }
    if (buf[0])
        say(v, "wait-for graph: %s", buf);
}

/* ---- the root cause ---- */

static bool in_coll(const hang_view_t *v, int r)
{
    const ibex_blk_page_t *pg = &v->pg[r];
    return v->st[r] == R_WAIT && (pg->coll || (pg->nitems && pg->items[0].kind == IBEX_BLK_COLL));
}

static void list_words(const int *list, int n, char *buf, size_t len)
{
    char ranks[256];
    ibex_run_map_format_ranks(list, n, ranks, sizeof(ranks));
    snprintf(buf, len, "%s %s %s", n == 1 ? "rank" : "ranks", ranks, n == 1 ? "is" : "are");
}

/* Ranks of the knot blocked in different collectives on one communicator. */
static bool cause_mismatch(const hang_view_t *v)
{
    int *a = calloc((size_t)v->n, sizeof(int)), *b = calloc((size_t)v->n, sizeof(int));
    bool found = false;
    for (int r = 0; a && b && r < v->n && !found; r++) {
        if (!in_coll(v, r) || v->ok[r])
            continue;
        int na = 0, nb = 0, other = -1;
        for (int m = 0; m < v->n; m++) {
            if (!in_coll(v, m) || v->ok[m] || v->pg[m].ctx != v->pg[r].ctx)
                continue;
            if (strcmp(v->pg[m].call, v->pg[r].call) == 0)
                a[na++] = m;
            else if (other < 0 || strcmp(v->pg[m].call, v->pg[other].call) == 0)
                b[nb++] = other = m;
        }
        if (nb == 0)
            continue;
        char wa[300], wb[300];
        list_words(a, na, wa, sizeof(wa));
        list_words(b, nb, wb, sizeof(wb));
        say(v, "cause: %s in %s on %s, %s in %s on the same communicator: mismatched collectives",
            wa, v->pg[r].call, v->pg[r].comm_name, wb, v->pg[other].call);
        found = true;
    }
    free(a);
    free(b);
    return found;
}

/* A knot rank waiting for one that is done with MPI (or waits only in MPI_Finalize). */
static bool cause_finished(const hang_view_t *v)
{
    for (int r = 0; r < v->n; r++) {
        const ibex_blk_page_t *pg = &v->pg[r];
        if (v->st[r] != R_WAIT || v->ok[r] || in_coll(v, r))
            continue;
        for (int k = 0; k < pg->nitems; k++) {
            int p = pg->items[k].kind == IBEX_BLK_PEER ? pg->items[k].peer : -1;
            bool fin = p >= 0 && p < v->n &&
                       (v->st[p] == R_GONE || v->st[p] == R_FINAL ||
                        (v->st[p] == R_WAIT && strcmp(v->pg[p].call, "MPI_Finalize") == 0));
            if (!fin)
                continue;
            char w[640], s[768];
            wait_words(pg, w, sizeof(w));
            state_words(v, p, s, sizeof(s));
            const char *miss = pg->items[k].op == IBEX_BLK_OP_SEND    ? "receive"
                               : pg->items[k].op <= IBEX_BLK_OP_PROBE ? "send"
                                                                      : "synchronisation call";
            say(v,
                "cause: rank %d %s %s for %.1f s; rank %d %s: the matching %s was never "
                "posted",
                r, wait_verb(pg), w, secs(v->now - pg->since_ns), p, s, miss);
            return true;
        }
    }
    return false;
}

/* Whom rank r waits for, by what they can do: NEXT_STUCK cannot act, NEXT_FREE can act and is not
 * blocked, NEXT_OK can act (maybe once its own wait ends). */
enum { NEXT_STUCK, NEXT_FREE, NEXT_OK };

static bool next_fits(const hang_view_t *v, int m, int want)
{
    if (want == NEXT_STUCK)
        return !v->ok[m];
    return v->ok[m] && (want == NEXT_OK || v->st[m] != R_WAIT);
}

/* The first rank r waits for that fits `want`, or -1. */
static int next_of(const hang_view_t *v, int r, int want)
{
    const ibex_blk_page_t *pg = &v->pg[r];
    for (int k = 0; k < pg->nitems; k++) {
        const ibex_blk_item_t *it = &pg->items[k];
        if (want == NEXT_STUCK && it->op == IBEX_BLK_OP_RMA)
            continue; /* a live peer's progress serves it: not what holds this rank */
        if (it->kind == IBEX_BLK_PEER) {
            if (it->peer >= 0 && it->peer < v->n && it->peer != r && next_fits(v, it->peer, want))
                return it->peer;
            continue;
        }
        for (int m = 0; m < v->n; m++)
            if (m != r && is_member(pg, m) && (it->kind == IBEX_BLK_ANY || !same_coll(v, r, m)) &&
                next_fits(v, m, want))
                return m;
    }
    return -1;
}

static void cause_cycle(const hang_view_t *v)
{
    int *seen = calloc((size_t)v->n, sizeof(int)), *path = calloc((size_t)v->n, sizeof(int));
    int r = 0, len = 0;
    while (r < v->n && (v->st[r] != R_WAIT || v->ok[r]))
        r++;
    while (seen && path && r >= 0 && r < v->n && !seen[r]) {
        seen[r] = len + 1;
        path[len++] = r;
        r = next_of(v, r, NEXT_STUCK);
    }
    if (!seen || !path || r < 0 || r >= v->n) {
        say(v, "cause: deadlock: these ranks wait for each other and none can continue");
    } else {
        char buf[1000] = "", w[640];
        for (int i = seen[r] - 1; i < len && strlen(buf) < sizeof(buf) - 100; i++) {
            int a = path[i], b = i + 1 < len ? path[i + 1] : r;
            wait_words(&v->pg[a], w, sizeof(w));
            snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%srank %d %s %s for rank %d",
                     buf[0] ? "; " : "", a, wait_verb(&v->pg[a]), w, b);
        }
        say(v, "cause: deadlock (a cycle of waits): %s", buf);
    }
    free(seen);
    free(path);
}

static void cause_none(const hang_view_t *v)
{
    for (int r = 0; r < v->n; r++) {
        if (v->st[r] != R_POLL)
            continue;
        say(v,
            "cause: no rank is blocked in a wait; rank %d polls in %s without progress for %.1f s",
            r, v->pg[r].call, secs(v->now - v->pg[r].since_ns));
        return;
    }
    say(v, "cause: no rank is blocked in MPI; the last MPI call was %.1f s ago",
        (double)ibex_run_hang_idle_ms(v->h) / 1000);
}

static bool has_rma(const ibex_blk_page_t *pg)
{
    for (int k = 0; k < pg->nitems; k++)
        if (pg->items[k].op == IBEX_BLK_OP_RMA)
            return true;
    return false;
}

/* No knot: the longest wait, followed to the rank at its end that can act; the sentence names
 * the last wait of that chain and that rank. */
static void cause_chain(const hang_view_t *v)
{
    int r = -1;
    for (int i = 0; i < v->n; i++)
        if (v->st[i] == R_WAIT && (r < 0 || v->pg[i].since_ns < v->pg[r].since_ns))
            r = i;
    if (r < 0) {
        cause_none(v);
        return;
    }
    int end = r, prev = r;
    for (int steps = 0; steps < v->n && v->st[end] == R_WAIT; steps++) {
        int nx = next_of(v, end, NEXT_FREE);
        if (nx < 0)
            nx = next_of(v, end, NEXT_OK);
        if (nx < 0)
            break;
        prev = end;
        end = nx;
    }
    r = v->st[end] == R_WAIT ? end : prev; /* the wait at the end of the chain: the cause */
    char w[640], s[768];
    wait_words(&v->pg[r], w, sizeof(w));
    if (end == r && has_rma(&v->pg[r])) {
        say(v,
            "cause: rank %d %s %s for %.1f s (one-sided: a lock, or the target's progress; a "
            "lock held by a rank that never releases it is not detected as a deadlock)",
            r, wait_verb(&v->pg[r]), w, secs(v->now - v->pg[r].since_ns));
        return;
    }
    if (end == r) {
        say(v,
            "cause: rank %d %s %s for %.1f s (no deadlock: what it waits for can still "
            "come)",
            r, wait_verb(&v->pg[r]), w, secs(v->now - v->pg[r].since_ns));
        return;
    }
    state_words(v, end, s, sizeof(s));
    say(v, "cause: rank %d %s %s for %.1f s; rank %d %s", r, wait_verb(&v->pg[r]), w,
        secs(v->now - v->pg[r].since_ns), end, s);
}

static void hang_cause(const hang_view_t *v, int knot)
{
    if (knot == 0) {
        cause_chain(v);
        return;
    }
    if (!cause_mismatch(v) && !cause_finished(v))
        cause_cycle(v);
}

void ibex_run_hang_report(const ibex_run_hang_t *h, const bool *gone, int fd, const char *prefix,
                          const char *why)
{
    hang_view_t v = {.h = h, .n = h->n, .now = ibex_run_hang_now_ns(), .fd = fd, .prefix = prefix};
    if (!view_load(&v, gone)) {
        say(&v, "hang report: out of memory");
        view_free(&v);
        return;
    }
    int knot = view_reduce(&v);
    say(&v, "hang report (%s; job running %.1f s, %d rank%s):", why,
        secs(v.now - h->head->start_ns), v.n, v.n == 1 ? "" : "s");
    rank_lines(&v);
    edge_line(&v);
    hang_cause(&v, knot);
    view_free(&v);
}
