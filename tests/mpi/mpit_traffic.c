/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An MPI_T client as a tool would be one: lists every control and performance variable with
 * its info (each found again by its name), writes a control variable, then reads performance
 * variables that move as messages flow. Each rank sends a ring of messages either side of the
 * eager limit (read back as the IBEX_EAGER_LIMIT cvar, which the script sets) and checks:
 * eager and rendezvous send counts by size, messages and bytes on the transport the messages
 * take (MPIT_TL: "shm", "verbs", "self"; default self at 1 rank, else shm) and nothing on the
 * others, rendezvous put / get bytes summed over the ranks, registration-cache counts (verbs;
 * evictions with MPIT_EVICT, when the script makes the cache smaller than a message),
 * and the algorithm the last MPI_Bcast ran (IBEX_COLL_BCAST when the script forces one).
 * The variable names are Ibex's: this program runs under ibexrun only.
 */
#include "mpitest.h"

static int rank, size;

#define NREP 3 /* each size, NREP times (the same buffer: registration-cache hits) */

static void list_cvars(void)
{
    int n;
    CHECK_RC(MPI_T_cvar_get_num(&n));
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope, idx;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_RC(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope));
        CHECK(nlen == (int)strlen(name) + 1 && dlen == (int)strlen(desc) + 1);
        CHECK_RC(MPI_T_cvar_get_index(name, &idx));
        CHECK(idx == i);
    }
}

/* Every item of an enum has a name. */
static void check_enum(MPI_T_enum en)
{
    int items;
    CHECK_RC(MPI_T_enum_get_info(en, &items, NULL, NULL));
    CHECK(items > 0);
    for (int k = 0; k < items; k++) {
        char item[128];
        int len = sizeof(item), value;
        CHECK_RC(MPI_T_enum_get_item(en, k, &value, item, &len));
        CHECK(len > 1);
    }
}

static void list_pvars(void)
{
    int n;
    CHECK_RC(MPI_T_pvar_get_num(&n));
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, cls, bind, ro, cont, atomic, idx;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_RC(MPI_T_pvar_get_info(i, name, &nlen, &verb, &cls, &dt, &en, desc, &dlen, &bind, &ro,
                                     &cont, &atomic));
        CHECK(nlen > 1 && dlen > 1);
        CHECK_RC(MPI_T_pvar_get_index(name, cls, &idx));
        CHECK(idx == i);
        if (cls == MPI_T_PVAR_CLASS_STATE) { /* a state names its values */
            CHECK(en != MPI_T_ENUM_NULL && dt == MPI_INT);
            check_enum(en);
        }
    }
}

static long long cvar_read_ll(const char *name)
{
    int i, count;
    MPI_T_cvar_handle h;
    long long v = 0;
    CHECK_RC(MPI_T_cvar_get_index(name, &i));
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK_RC(MPI_T_cvar_read(h, &v));
    CHECK_RC(MPI_T_cvar_handle_free(&h));
    return v;
}

/* IBEX_SPIN_COUNT is live: written here, read back. */
static void write_cvar(void)
{
    int i, count, v = 4321, back = 0;
    MPI_T_cvar_handle h;
    CHECK_RC(MPI_T_cvar_get_index("IBEX_SPIN_COUNT", &i));
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK_RC(MPI_T_cvar_write(h, &v));
    CHECK_RC(MPI_T_cvar_read(h, &back));
    CHECK(back == 4321);
    CHECK_RC(MPI_T_cvar_handle_free(&h));
}

static MPI_T_pvar_handle open_counter(MPI_T_pvar_session s, const char *name)
{
    int i, count;
    MPI_T_pvar_handle h;
    CHECK_RC(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i));
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    return h;
}

static unsigned long long get(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v;
    CHECK_RC(MPI_T_pvar_read(s, h, &v));
    return v;
}

enum { EAGER, RNDV, MSGS, BYTES, RMA, HITS, MISSES, EVICTIONS, NVARS };

/* The ring: every size NREP times to the next rank, from the previous one. */
static void ring(const size_t *sizes, int nsizes, char *sbuf, char *rbuf)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int k = 0; k < nsizes; k++)
        for (int r = 0; r < NREP; r++) {
            MPI_Request req;
            mt_fill(sbuf, sizes[k], (unsigned)(rank * 100 + k));
            CHECK_RC(MPI_Irecv(rbuf, (int)sizes[k], MPI_BYTE, from, k, MPI_COMM_WORLD, &req));
            CHECK_RC(MPI_Send(sbuf, (int)sizes[k], MPI_BYTE, to, k, MPI_COMM_WORLD));
            CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK(mt_verify(rbuf, sizes[k], (unsigned)(from * 100 + k)) == (size_t)-1);
        }
}

static void traffic(void)
{
    const char *tl = getenv("MPIT_TL") ? getenv("MPIT_TL") : size == 1 ? "self" : "shm";
    long long limit = cvar_read_ll("IBEX_EAGER_LIMIT");
    CHECK(limit > 0); /* the script sets it */
    size_t eager_sizes[] = {0, 1, (size_t)limit}, rndv_sizes[] = {(size_t)limit + 1, 256 << 10};
    char *sbuf = malloc(256 << 10), *rbuf = malloc(256 << 10);
    CHECK(sbuf && rbuf);

    MPI_T_pvar_session s;
    CHECK_RC(MPI_T_pvar_session_create(&s));
    char names[NVARS][64];
    const char *suffix[] = {"msgs",     "bytes",      "rma_bytes",
                            "reg_hits", "reg_misses", "reg_evictions"};
    snprintf(names[EAGER], 64, "ibex_eager_sends");
    snprintf(names[RNDV], 64, "ibex_rndv_sends");
    for (int v = MSGS; v < NVARS; v++)
        snprintf(names[v], 64, "ibex_%s_%s", tl, suffix[v - MSGS]);
    MPI_T_pvar_handle h[NVARS];
    for (int v = 0; v < NVARS; v++)
        h[v] = open_counter(s, names[v]);
    /* the other transports' message counters, to see that they stay still */
    int n, nother = 0, count;
    MPI_T_pvar_handle other[16];
    CHECK_RC(MPI_T_pvar_get_num(&n));
    for (int i = 0; i < n && nother < 16; i++) {
        char name[256];
        int len = sizeof(name), cls;
        CHECK_RC(MPI_T_pvar_get_info(i, name, &len, NULL, &cls, NULL, NULL, NULL, NULL, NULL, NULL,
                                     NULL, NULL));
        size_t l = strlen(name);
        /* counters only: ibex_unexpected_msgs is a level that moves with timing */
        if (cls == MPI_T_PVAR_CLASS_COUNTER && l > 5 && strcmp(name + l - 5, "_msgs") == 0 &&
            strcmp(name, names[MSGS]) != 0)
            CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &other[nother++], &count));
    }

    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    ring(eager_sizes, 3, sbuf, rbuf);
    unsigned long long after_eager[NVARS];
    for (int v = 0; v < NVARS; v++)
        after_eager[v] = get(s, h[v]);
    ring(rndv_sizes, 2, sbuf, rbuf);
    CHECK_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
    unsigned long long d[NVARS];
    for (int v = 0; v < NVARS; v++)
        d[v] = get(s, h[v]);

    /* eager below and at the limit, rendezvous above it: counted by size */
    CHECK(after_eager[EAGER] == 3 * NREP && after_eager[RNDV] == 0);
    CHECK(d[EAGER] == 3 * NREP && d[RNDV] == 2 * NREP);
    /* the messages took tl: at least one transport message each, with their payload */
    CHECK(after_eager[MSGS] >= 3 * NREP);
    CHECK(after_eager[BYTES] >= NREP * (1 + (unsigned long long)limit));
    CHECK(d[MSGS] >= 5 * NREP && d[BYTES] > after_eager[BYTES]);
    CHECK(after_eager[RMA] == 0);
    for (int i = 0; i < nother; i++)
        CHECK(get(s, other[i]) == 0);
    /* every rendezvous byte moved once by a put or a get, at one end or split between both */
    unsigned long long rma_sum = 0;
    CHECK_RC(MPI_Allreduce(&d[RMA], &rma_sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(rma_sum == (unsigned long long)size * NREP * (rndv_sizes[0] + rndv_sizes[1]));
    if (strcmp(tl, "verbs") == 0) /* both ends register; the same buffers again are hits */
        CHECK(d[HITS] + d[MISSES] >= 2 * NREP && d[HITS] >= 1);
    else /* no registration cache */
        CHECK(d[HITS] == 0 && d[MISSES] == 0 && d[EVICTIONS] == 0);
    if (getenv("MPIT_EVICT")) /* the script made the cache smaller than one message */
        CHECK(d[EVICTIONS] >= 1);
    CHECK_RC(MPI_T_pvar_session_free(&s));
    free(sbuf);
    free(rbuf);
}

/* The last MPI_Bcast's algorithm is one of the enum's, not "none" (the forced one if any). */
static void coll_state(void)
{
    int i, count, value = -1, items, len;
    char item[128];
    MPI_T_enum en;
    MPI_Datatype dt;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int x = rank;
    CHECK_RC(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK(x == 0);
    CHECK_RC(MPI_T_pvar_get_index("ibex_coll_bcast_algorithm", MPI_T_PVAR_CLASS_STATE, &i));
    CHECK_RC(MPI_T_pvar_get_info(i, NULL, NULL, NULL, NULL, &dt, &en, NULL, NULL, NULL, NULL, NULL,
                                 NULL));
    CHECK(dt == MPI_INT);
    CHECK_RC(MPI_T_pvar_session_create(&s));
    CHECK_RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    CHECK(MPI_T_pvar_start(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP); /* continuous */
    CHECK_RC(MPI_T_pvar_read(s, h, &value));
    CHECK_RC(MPI_T_enum_get_info(en, &items, NULL, NULL));
    for (int k = 0; k < items; k++) {
        int v;
        len = sizeof(item);
        CHECK_RC(MPI_T_enum_get_item(en, k, &v, item, &len));
        if (v == value)
            break;
        item[0] = '\0';
    }
    CHECK(item[0] != '\0' && strcmp(item, "none") != 0);
    const char *forced = getenv("IBEX_COLL_BCAST");
    if (forced)
        CHECK(strcmp(item, forced) == 0);
    CHECK_RC(MPI_T_pvar_session_free(&s));
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    list_cvars();
    list_pvars();
    write_cvar();
    traffic();
    coll_state();
    CHECK_RC(MPI_T_finalize());
    mt_done("mpit_traffic");
    MPI_Finalize();
    return 0;
}
