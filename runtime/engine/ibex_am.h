/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active messages (runtime/engine/am.c): the one path by which a process asks another to act
 * on its behalf (one-sided communication falls back to it), written once on the engine's
 * point-to-point machinery, so it runs over every transport unchanged.
 *
 * A port is bound to a private communicator (one the program has no handle to, so no user
 * receive can match its traffic). It keeps one receive posted for requests (tag 0, any
 * source). A request is a header and an optional body; one that does not fit the posted
 * receive (IBEX_AM_MAX) goes as its header, then the body as a second message on a tag of its
 * own. The port hands each request, whole and contiguous, to its handler, in the order each
 * source sent them, from ibex_progress() (never from inside a transport callback): a handler
 * may start sends and receives but must not wait.
 *
 *   origin: ibex_am_send(hdr, body) ........ target: handler(src, hdr + body)
 *   reply:  ibex_am_recv(tag, buf) posted first ......... ibex_am_reply(tag, data)
 *
 * Transfers the port owns (request bodies, replies) complete through callbacks that also run
 * from ibex_progress().
 */
#ifndef IBEX_AM_H
#define IBEX_AM_H

#include <stddef.h>

#include "ibex_hidden.h"
#include "ibex_comm.h"
#include "ibex_datatype.h"
#include "ibex_status.h"

/* Largest request delivered in one message (header + body + the port's own framing). */
#define IBEX_AM_MAX 8192

typedef struct ibex_am_port ibex_am_port_t;
/* A whole request from rank src (of the port's communicator); msg is valid during the call. */
typedef void (*ibex_am_handler_cb_t)(void *arg, int src, void *msg, size_t len);
/* A transfer started by ibex_am_recv finished (st: IBEX_OK, IBEX_ERR_TRUNCATE, ...). */
typedef void (*ibex_am_done_cb_t)(void *arg, ibex_status_t st);

/* Opens a port on comm (the caller keeps comm alive until ibex_am_port_close). */
ibex_status_t ibex_am_port_open(ibex_comm_t *comm, ibex_am_handler_cb_t cb, void *arg,
                                ibex_am_port_t **port_p);
/* Withdraws the posted receive and frees the port; requests not yet handled are dropped. */
void ibex_am_port_close(ibex_am_port_t *port);
/* Sends a request: hdr (at most IBEX_AM_MAX - 16 bytes) is copied; body (may be NULL) must come
 * from malloc and belongs to the port from now on, whatever the result. */
ibex_status_t ibex_am_send(ibex_am_port_t *port, int dest, const void *hdr, size_t hdr_len,
                           void *body, size_t body_len);
/* A tag for one reply (never 0, the requests' tag). */
int ibex_am_tag(ibex_am_port_t *port);
/* Posts the receive of a reply from src on tag into (buf, count, dt); cb (may be NULL) runs
 * from progress when it completes. */
ibex_status_t ibex_am_recv(ibex_am_port_t *port, void *buf, int count, ibex_dt_t *dt, int src,
                           int tag, ibex_am_done_cb_t cb, void *arg);
/* Sends a reply of len bytes on tag; data must come from malloc and belongs to the port. */
ibex_status_t ibex_am_reply(ibex_am_port_t *port, int dest, int tag, void *data, size_t len);
/* Runs handlers and completions that are due (called by ibex_progress). */
extern int ibex_am_work IBEX_ENGINE_HIDDEN;
int ibex_am_progress(void);

#endif
