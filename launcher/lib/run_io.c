/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * I/O forwarding. Every rank's stdout and stderr is a pipe; the launcher reads whatever is
 * there, keeps the unfinished tail of a line, and writes each complete line to its own
 * stdout / stderr with one write() call, so a line of one rank is never cut by a line of
 * another. A line longer than IO_LINE_MAX is written in pieces (nothing else can be done
 * without unbounded memory); the tail left at EOF is written as it is.
 *
 * stdin goes to rank 0 only, through a non-blocking pipe with a small buffer: while rank 0 does
 * not read, the launcher stops reading its own stdin instead of blocking. When rank 0 has gone
 * (EPIPE; SIGPIPE is ignored) what is left is dropped.
 */
#include "ibex_launch.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibex_log.h"

#define IO_LINE_MAX  (64 * 1024)
#define IO_READ_SIZE (16 * 1024)

static bool io_tag_output;
static bool io_dest_dead[3]; /* our stdout / stderr is gone: keep draining, stop writing */
static const char *io_say_name = "ibexrun"; /* ibex_run_say's prefix */

void ibex_run_io_setup(bool tag_output)
{
    io_tag_output = tag_output;
}

bool ibex_run_io_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        buf += w;
        len -= (size_t)w;
    }
    return true;
}

void ibex_run_say_set_name(const char *name)
{
    io_say_name = name;
}

/* The same room for the text as ibexrun always had (1022 bytes), after the name. */
#define SAY_NAME_MAX 64
#define SAY_TEXT_MAX 1024

void ibex_run_say(const char *fmt, ...)
{
    char buf[SAY_NAME_MAX + SAY_TEXT_MAX];
    int head = snprintf(buf, SAY_NAME_MAX, "%s: ", io_say_name);
    head = head > 0 && head < SAY_NAME_MAX ? head : 0;
    char *msg = buf + head;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(msg, SAY_TEXT_MAX - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        return;
    len = len > SAY_TEXT_MAX - 2 ? SAY_TEXT_MAX - 2 : len;
    msg[len++] = '\n';
    ibex_run_io_write_all(2, buf, (size_t)(head + len)); /* one write: lines never mix */
}

/* One line (or piece) of a rank, tagged if asked, in one write. */
static void io_emit(const ibex_run_stream_t *s, const char *line, size_t len)
{
    if (io_dest_dead[s->dest])
        return;
    bool ok;
    if (!io_tag_output || s->rank < 0) {
        ok = ibex_run_io_write_all(s->dest, line, len);
    } else {
        char head[48];
        int hlen = snprintf(head, sizeof(head), "[1,%d]<%s>:", s->rank,
                            s->dest == 1 ? "stdout" : "stderr");
        char *out = malloc((size_t)hlen + len);
        if (!out)
            return;
        memcpy(out, head, (size_t)hlen);
        memcpy(out + hlen, line, len);
        ok = ibex_run_io_write_all(s->dest, out, (size_t)hlen + len);
        free(out);
    }
    if (!ok)
        io_dest_dead[s->dest] = true;
}

void ibex_run_io_stream_init(ibex_run_stream_t *s, int fd, int rank, int dest)
{
    memset(s, 0, sizeof(*s));
    s->fd = fd;
    s->rank = rank;
    s->dest = dest;
}

static bool io_buf_append(ibex_run_stream_t *s, const char *data, size_t len)
{
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + len)
            cap *= 2;
        char *grown = realloc(s->buf, cap);
        if (!grown)
            return false;
        s->buf = grown;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, len);
    s->len += len;
    return true;
}

/* Writes out every complete line in the buffer and keeps the rest. */
static void io_flush_lines(ibex_run_stream_t *s)
{
    size_t start = 0;
    for (;;) {
        char *nl = memchr(s->buf + start, '\n', s->len - start);
        if (!nl)
            break;
        size_t end = (size_t)(nl - s->buf) + 1;
        io_emit(s, s->buf + start, end - start);
        start = end;
    }
    if (s->len - start >= IO_LINE_MAX) { /* no newline in sight: give up on keeping it whole */
        io_emit(s, s->buf + start, s->len - start);
        start = s->len;
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

static void io_stream_close(ibex_run_stream_t *s)
{
    if (s->len > 0)
        io_emit(s, s->buf, s->len);
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

bool ibex_run_io_stream_read(ibex_run_stream_t *s)
{
    char chunk[IO_READ_SIZE];
    /* A few reads per wake-up at most, so one chatty rank cannot starve the others. */
    for (int i = 0; i < 4; i++) {
        ssize_t r = read(s->fd, chunk, sizeof(chunk));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN)
            return true;
        if (r <= 0 || !io_buf_append(s, chunk, (size_t)r)) {
            io_stream_close(s);
            return false;
        }
        io_flush_lines(s);
    }
    return true;
}

void ibex_run_io_stream_drain(ibex_run_stream_t *s)
{
    while (s->fd >= 0) {
        char chunk[IO_READ_SIZE];
        ssize_t r = read(s->fd, chunk, sizeof(chunk));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || !io_buf_append(s, chunk, (size_t)r))
            break;
        io_flush_lines(s);
    }
    if (s->fd >= 0)
        io_stream_close(s);
}

/* ---- stdin to rank 0 ---- */

void ibex_run_io_stdin_init(ibex_run_stdin_t *in, int src, int dst)
{
    in->src = src;
    in->dst = dst;
    in->off = in->len = 0;
    if (src < 0 || dst < 0)
        ibex_run_io_stdin_close(in);
}

short ibex_run_io_stdin_src_events(const ibex_run_stdin_t *in)
{
    return in->src >= 0 && in->dst >= 0 && in->len == 0 ? POLLIN : 0;
}

short ibex_run_io_stdin_dst_events(const ibex_run_stdin_t *in)
{
    return in->dst >= 0 && in->len > 0 ? POLLOUT : 0;
}

void ibex_run_io_stdin_close(ibex_run_stdin_t *in)
{
    if (in->dst >= 0)
        close(in->dst);
    in->dst = -1;
    in->src = -1; /* our stdin itself stays open: it is not ours to close */
    in->len = in->off = 0;
}

void ibex_run_io_stdin_on_src(ibex_run_stdin_t *in)
{
    ssize_t r;
    do {
        r = read(in->src, in->buf, sizeof(in->buf));
    } while (r < 0 && errno == EINTR);
    if (r < 0 && errno == EAGAIN)
        return;
    if (r <= 0) { /* EOF: rank 0 sees EOF too */
        ibex_run_io_stdin_close(in);
        return;
    }
    in->off = 0;
    in->len = (size_t)r;
    ibex_run_io_stdin_on_dst(in);
}

void ibex_run_io_stdin_on_dst(ibex_run_stdin_t *in)
{
    while (in->len > 0) {
        ssize_t w = write(in->dst, in->buf + in->off, in->len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return;
        if (w <= 0) { /* EPIPE: rank 0 has gone or closed its stdin */
            ibex_debug(LAUNCH, "stdin of rank 0 closed: %m");
            ibex_run_io_stdin_close(in);
            return;
        }
        in->off += (size_t)w;
        in->len -= (size_t)w;
    }
}
