/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The head <-> daemon wire (multi-host jobs): frames of (type u32, length u32, payload) in
 * network order over TCP; payloads are sequences of u32 and length-prefixed byte strings.
 * Writes are blocking (frames are small but for fence data, and the peer always reads); reads
 * are non-blocking into a per-connection buffer, from which whole frames are taken. A frame
 * larger than IBEX_WIRE_MAX or a payload that does not parse marks the peer as broken.
 */
#include "ibexrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define IBEX_WIRE_MAX (64u << 20)

static void wire_grow(ibex_wire_buf_t *b, size_t more)
{
    if (b->bad || b->len + more <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        b->bad = true;
        return;
    }
    b->data = d;
    b->cap = cap;
}

void ibex_wire_put_u32(ibex_wire_buf_t *b, uint32_t v)
{
    uint32_t n = htonl(v);
    wire_grow(b, 4);
    if (!b->bad)
        memcpy(b->data + b->len, &n, 4), b->len += 4;
}

void ibex_wire_put_bytes(ibex_wire_buf_t *b, const void *p, size_t n)
{
    ibex_wire_put_u32(b, (uint32_t)n);
    wire_grow(b, n + 1);
    if (b->bad)
        return;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0'; /* not counted: lets get_str hand out the bytes in place */
}

void ibex_wire_put_raw(ibex_wire_buf_t *b, const void *p, size_t n)
{
    wire_grow(b, n);
    if (!b->bad && n)
        memcpy(b->data + b->len, p, n), b->len += n;
}

void ibex_wire_put_str(ibex_wire_buf_t *b, const char *s)
{
    ibex_wire_put_bytes(b, s, strlen(s));
}

uint32_t ibex_wire_get_u32(ibex_wire_buf_t *b)
{
    uint32_t n = 0;
    if (b->bad || b->off + 4 > b->len) {
        b->bad = true;
        return 0;
    }
    memcpy(&n, b->data + b->off, 4);
    b->off += 4;
    return ntohl(n);
}

/* The bytes in place (valid while the buffer lives). */
const char *ibex_wire_get_bytes(ibex_wire_buf_t *b, size_t *len_p)
{
    uint32_t n = ibex_wire_get_u32(b);
    if (b->bad || n > b->len - b->off) {
        b->bad = true;
        *len_p = 0;
        return "";
    }
    const char *p = b->data + b->off;
    b->off += n;
    *len_p = n;
    return p;
}

/* A string: copied, so that it is NUL-terminated whatever follows (caller frees). */
char *ibex_wire_get_str(ibex_wire_buf_t *b)
{
    size_t n;
    const char *p = ibex_wire_get_bytes(b, &n);
    char *s = b->bad ? NULL : strndup(p, n);
    if (!s)
        b->bad = true;
    return s;
}

void ibex_wire_buf_free(ibex_wire_buf_t *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

bool ibex_wire_send(int fd, uint32_t type, const ibex_wire_buf_t *b)
{
    uint32_t head[2] = {htonl(type), htonl(b ? (uint32_t)b->len : 0)};
    if (b && b->bad)
        return false;
    return ibex_run_io_write_all(fd, (const char *)head, sizeof(head)) &&
           (!b || !b->len || ibex_run_io_write_all(fd, b->data, b->len));
}

/* Reads what is there; false at EOF or on an error (the connection is then dead). */
bool ibex_wire_read(ibex_wire_conn_t *c)
{
    for (;;) {
        if (c->rcap - c->rlen < 65536) {
            char *d = realloc(c->rx, c->rcap + 65536);
            if (!d)
                return false;
            c->rx = d;
            c->rcap += 65536;
        }
        /* MSG_DONTWAIT: the socket stays blocking for the writes */
        ssize_t n = recv(c->fd, c->rx + c->rlen, c->rcap - c->rlen, MSG_DONTWAIT);
        if (n > 0) {
            c->rlen += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
}

/* Takes one whole frame out of the buffer: 1 if there was one, 0 if not yet, -1 if broken. */
int ibex_wire_next(ibex_wire_conn_t *c, uint32_t *type_p, ibex_wire_buf_t *payload)
{
    uint32_t head[2];
    if (c->rlen < sizeof(head))
        return 0;
    memcpy(head, c->rx, sizeof(head));
    uint32_t len = ntohl(head[1]);
    if (len > IBEX_WIRE_MAX)
        return -1;
    if (c->rlen < sizeof(head) + len)
        return 0;
    memset(payload, 0, sizeof(*payload));
    payload->data = malloc(len + 1);
    if (!payload->data)
        return -1;
    memcpy(payload->data, c->rx + sizeof(head), len);
    payload->data[len] = '\0';
    payload->len = payload->cap = len;
    *type_p = ntohl(head[0]);
    c->rlen -= sizeof(head) + len;
    memmove(c->rx, c->rx + sizeof(head) + len, c->rlen);
    return 1;
}

void ibex_wire_conn_close(ibex_wire_conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->rx);
    memset(c, 0, sizeof(*c));
    c->fd = -1;
}
