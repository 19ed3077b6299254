/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soak: rounds of random point-to-point traffic between all ranks, every payload checksummed.
 * Each round, every rank draws the same list of messages from (seed, round): source,
 * destination (itself included), size from 0 B to 4 MiB (mostly small), tag, send mode
 * (MPI_Send, Ssend, Rsend, Bsend, Isend, Issend, Irsend, Ibsend, Send_init, Ssend_init) and
 * receive form (Irecv or Recv_init, from the source or from MPI_ANY_SOURCE). Receives are
 * posted before a barrier, so ready mode is legal; the tag is unique in the round, so an
 * ANY_SOURCE receive matches exactly one message, whose source, tag, count and bytes are checked.
 * The resident set is sampled as it goes and must stay flat after warm-up.
 * Standard MPI only. Usage: soak MESSAGES [SEED]; prints "soak: ok".
 */
#include "mpitest.h"

#include <unistd.h>

#define MAX_MSGS      24           /* per round */
#define MAX_SIZE      (4u << 20)   /* one message */
#define ROUND_BYTES   (10u << 20)  /* all messages of a round, so the arenas stay bounded */
#define BSEND_MAX     (64u << 10)  /* buffered messages are at most this big */
#define RSS_SLACK_KIB (24u * 1024) /* allowed growth after warm-up */

enum {
    M_SEND,
    M_SSEND,
    M_RSEND,
    M_BSEND,
    M_ISEND,
    M_ISSEND,
    M_IRSEND,
    M_IBSEND,
    M_PSEND,
    M_PSSEND,
    M_NMODES
};

typedef struct msg {
    int src, dst, tag, mode, anysrc, precv;
    size_t len, off;
} msg_t;

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Mostly small, sometimes rendezvous-sized, rarely up to 4 MiB, and the boundaries themselves. */
static size_t draw_size(uint64_t *s)
{
    unsigned r = (unsigned)(rnd(s) % 1000);
    if (r < 20)
        return (size_t)(rnd(s) % 64 == 0 ? 0 : rnd(s) % 16);
    if (r < 650)
        return (size_t)(rnd(s) % 1024);
    if (r < 900)
        return (size_t)(rnd(s) % (32u << 10));
    if (r < 990)
        return (size_t)(rnd(s) % (512u << 10));
    return r < 993 ? MAX_SIZE : (size_t)(rnd(s) % (MAX_SIZE + 1));
}

static int draw_round(uint64_t seed, long round, int size, msg_t *m)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + (uint64_t)round * 0xBF58476D1CE4E5B9ull + 1;
    size_t used = 0;
    int n = 4 + (int)(rnd(&s) % (MAX_MSGS - 3));

    for (int i = 0; i < n; i++) {
        m[i].src = (int)(rnd(&s) % (uint64_t)size);
        m[i].dst = (int)(rnd(&s) % (uint64_t)size);
        m[i].tag = i + 1 + (int)(round % 1000) * MAX_MSGS;
        m[i].mode = (int)(rnd(&s) % M_NMODES);
        m[i].anysrc = rnd(&s) % 3 == 0;
        m[i].precv = rnd(&s) % 4 == 0;
        m[i].len = draw_size(&s);
        if ((m[i].mode == M_BSEND || m[i].mode == M_IBSEND) && m[i].len > BSEND_MAX)
            m[i].len %= BSEND_MAX;
        if (used + m[i].len > ROUND_BYTES)
            m[i].len = 0;
        m[i].off = used;
        used += m[i].len;
    }
    return n;
}

/* FNV-1a over 8-byte words, then the tail. */
static uint64_t hash(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* A header (id, length, checksum of the rest) when it fits, else the pattern of the id. */
static void fill(unsigned char *p, size_t n, uint64_t id)
{
    uint64_t s = id | 1, w, hdr[3];
    size_t i = n >= sizeof(hdr) ? sizeof(hdr) : 0;

    for (; i + 8 <= n; i += 8) {
        w = rnd(&s);
        memcpy(p + i, &w, 8);
    }
    for (; i < n; i++)
        p[i] = (unsigned char)rnd(&s);
    if (n < sizeof(hdr))
        return;
    hdr[0] = id;
    hdr[1] = n;
    hdr[2] = hash(p + sizeof(hdr), n - sizeof(hdr));
    memcpy(p, hdr, sizeof(hdr));
}

static int check(const unsigned char *p, size_t n, uint64_t id)
{
    uint64_t hdr[3];
    unsigned char want[sizeof(hdr)];

    if (n < sizeof(hdr)) {
        fill(want, n, id);
        return memcmp(p, want, n) == 0;
    }
    memcpy(hdr, p, sizeof(hdr));
    return hdr[0] == id && hdr[1] == n && hdr[2] == hash(p + sizeof(hdr), n - sizeof(hdr));
}

static uint64_t msg_id(long round, int i)
{
    return ((uint64_t)round << 8 | (uint64_t)i) * 0x9E3779B97F4A7C15ull;
}

static long rss_kib(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static void post_recvs(const msg_t *m, int n, int rank, unsigned char *rarena, MPI_Request *rq)
{
    for (int i = 0; i < n; i++) {
        rq[i] = MPI_REQUEST_NULL;
        if (m[i].dst != rank)
            continue;
        int src = m[i].anysrc ? MPI_ANY_SOURCE : m[i].src;
        void *b = rarena + m[i].off;
        if (m[i].precv) {
            CHECK_RC(
                MPI_Recv_init(b, (int)m[i].len, MPI_BYTE, src, m[i].tag, MPI_COMM_WORLD, &rq[i]));
            CHECK_RC(MPI_Start(&rq[i]));
        } else {
            CHECK_RC(MPI_Irecv(b, (int)m[i].len, MPI_BYTE, src, m[i].tag, MPI_COMM_WORLD, &rq[i]));
        }
    }
}

static void send_one(const msg_t *m, unsigned char *b, MPI_Request *rq)
{
    int c = (int)m->len, d = m->dst, t = m->tag;
    MPI_Comm w = MPI_COMM_WORLD;

    *rq = MPI_REQUEST_NULL;
    switch (m->mode) {
    case M_SEND:
        CHECK_RC(MPI_Send(b, c, MPI_BYTE, d, t, w));
        break;
    case M_SSEND:
        CHECK_RC(MPI_Ssend(b, c, MPI_BYTE, d, t, w));
        break;
    case M_RSEND:
        CHECK_RC(MPI_Rsend(b, c, MPI_BYTE, d, t, w));
        break;
    case M_BSEND:
        CHECK_RC(MPI_Bsend(b, c, MPI_BYTE, d, t, w));
        break;
    case M_ISEND:
        CHECK_RC(MPI_Isend(b, c, MPI_BYTE, d, t, w, rq));
        break;
    case M_ISSEND:
        CHECK_RC(MPI_Issend(b, c, MPI_BYTE, d, t, w, rq));
        break;
    case M_IRSEND:
        CHECK_RC(MPI_Irsend(b, c, MPI_BYTE, d, t, w, rq));
        break;
    case M_IBSEND:
        CHECK_RC(MPI_Ibsend(b, c, MPI_BYTE, d, t, w, rq));
        break;
    case M_PSEND:
        CHECK_RC(MPI_Send_init(b, c, MPI_BYTE, d, t, w, rq));
        CHECK_RC(MPI_Start(rq));
        break;
    default:
        CHECK_RC(MPI_Ssend_init(b, c, MPI_BYTE, d, t, w, rq));
        CHECK_RC(MPI_Start(rq));
        break;
    }
}

static void verify(const msg_t *m, long round, int i, const unsigned char *b, MPI_Status *st)
{
    int count = -1, rank;

    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE == m->src && st->MPI_TAG == m->tag && (size_t)count == m->len &&
        check(b, m->len, msg_id(round, i)))
        return;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr,
            "CORRUPT rank %d: round %ld msg %d (%zu bytes from %d, tag %d, mode %d): got source "
            "%d tag %d count %d\n",
            rank, round, i, m->len, m->src, m->tag, m->mode, st->MPI_SOURCE, st->MPI_TAG, count);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void free_persistent(const msg_t *m, int n, int rank, MPI_Request *rq, MPI_Request *sq)
{
    for (int i = 0; i < n; i++) {
        if (m[i].dst == rank && m[i].precv)
            CHECK_RC(MPI_Request_free(&rq[i]));
        if (m[i].src == rank && (m[i].mode == M_PSEND || m[i].mode == M_PSSEND))
            CHECK_RC(MPI_Request_free(&sq[i]));
    }
}

/* One round; returns the number of bytes this rank received. */
static size_t soak_round(uint64_t seed, long round, int rank, int size, unsigned char *sa,
                         unsigned char *ra, int *nmsg)
{
    msg_t m[MAX_MSGS];
    MPI_Request rq[MAX_MSGS], sq[MAX_MSGS];
    MPI_Status st[MAX_MSGS];
    size_t bytes = 0;
    int n = draw_round(seed, round, size, m);

    post_recvs(m, n, rank, ra, rq);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < n; i++) {
        sq[i] = MPI_REQUEST_NULL;
        if (m[i].src != rank)
            continue;
        fill(sa + m[i].off, m[i].len, msg_id(round, i));
        send_one(&m[i], sa + m[i].off, &sq[i]);
    }
    CHECK_RC(MPI_Waitall(n, rq, st));
    CHECK_RC(MPI_Waitall(n, sq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        if (m[i].dst == rank) {
            verify(&m[i], round, i, ra + m[i].off, &st[i]);
            bytes += m[i].len;
        }
    free_persistent(m, n, rank, rq, sq);
    *nmsg = n;
    return bytes;
}

int main(int argc, char **argv)
{
    int rank, size;
    long total = argc > 1 ? atol(argv[1]) : 10000, sent = 0, round = 0;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    long rss_warm = 0, rss_max = 0, rss_first;
    double bytes = 0, t0;
    int bsize = MAX_MSGS * (BSEND_MAX + MPI_BSEND_OVERHEAD);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *sa = malloc(ROUND_BYTES), *ra = malloc(ROUND_BYTES), *bbuf = malloc(bsize);
    CHECK(sa && ra && bbuf);
    memset(sa, 0, ROUND_BYTES);
    memset(ra, 0, ROUND_BYTES);
    CHECK_RC(MPI_Buffer_attach(bbuf, bsize));
    rss_first = rss_kib();
    t0 = MPI_Wtime();
    while (sent < total) {
        int n;
        bytes += (double)soak_round(seed, round, rank, size, sa, ra, &n);
        sent += n;
        round++;
        if (rank == 0 && sent / 100000 != (sent - n) / 100000) {
            printf("soak: %ld messages, %.1f s, rss %ld KiB\n", sent, MPI_Wtime() - t0, rss_kib());
            fflush(stdout);
        }
        if (round % 64 == 0) {
            long r = rss_kib();
            if (!rss_warm && sent >= total / 5)
                rss_warm = r;
            else if (rss_warm && r > rss_max)
                rss_max = r;
        }
    }
    CHECK_RC(MPI_Buffer_detach(&bbuf, &bsize));
    long last = rss_kib();
    if (!rss_warm)
        rss_warm = last;
    if (last > rss_max)
        rss_max = last;
    double all = 0;
    CHECK_RC(MPI_Reduce(&bytes, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    printf("soak: rank %d rss at start %ld KiB, after warm-up %ld KiB, max later %ld KiB\n", rank,
           rss_first, rss_warm, rss_max);
    fflush(stdout);
    if (rss_max > rss_warm + (long)RSS_SLACK_KIB) {
        fprintf(stderr, "FAIL rank %d: resident set grew from %ld to %ld KiB after warm-up\n", rank,
                rss_warm, rss_max);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    mt_barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("soak: %ld messages in %ld rounds, %.1f MiB, %.1f s, seed %llu\n", sent, round,
               all / 1048576.0, MPI_Wtime() - t0, (unsigned long long)seed);
    free(sa);
    free(ra);
    free(bbuf);
    mt_done("soak");
    MPI_Finalize();
    return 0;
}
