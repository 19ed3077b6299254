/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI matching (runtime/engine/match.c): per context id, a queue of posted receives in the order
 * they were posted and a queue of unexpected messages in the order they arrived. An arriving
 * message takes the first posted receive that matches it; a new receive takes the first unexpected
 * message that matches it. One unexpected queue per context for all peers and transports is what
 * makes MPI_ANY_SOURCE see messages in arrival order.
 *
 * Entries are embedded (first member) in requests and unexpected messages; this file knows only
 * (source, tag) and list links, so it is unit-tested on its own.
 */
#ifndef IBEX_MATCH_H
#define IBEX_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

typedef struct ibex_match_entry {
    struct ibex_match_entry *next, *prev;
    int src; /* a rank, or MPI_ANY_SOURCE for a posted receive */
    int tag; /* a tag, or MPI_ANY_TAG for a posted receive */
} ibex_match_entry_t;

/* A list's head has no predecessor and its prev is not read (it may name an entry taken
 * since): taking the head writes only the head's line and the list, not the next entry's
 * (the posted receive an eager message takes, issue 18). */
typedef struct ibex_match_list {
    ibex_match_entry_t *head, *tail;
    size_t length;
} ibex_match_list_t;

typedef struct ibex_match_queue {
    ibex_match_list_t posted;
    ibex_match_list_t unexpected;
} ibex_match_queue_t;

void ibex_match_list_append(ibex_match_list_t *list, ibex_match_entry_t *entry);
/* The same, inline (a receive posted on the short path). */
static inline void ibex_match_list_append_inline(ibex_match_list_t *list, ibex_match_entry_t *entry)
{
    entry->next = NULL;
    entry->prev = list->tail;
    if (list->tail)
        list->tail->next = entry;
    else
        list->head = entry;
    list->tail = entry;
    list->length++;
}
void ibex_match_list_remove(ibex_match_list_t *list, ibex_match_entry_t *entry);
/* True when a receive (src, tag) — wildcards allowed — takes a message (msg_src, msg_tag). */
static inline bool ibex_match_fits(int src, int tag, int msg_src, int msg_tag)
{
    return (src == msg_src || src == MPI_ANY_SOURCE) && (tag == msg_tag || tag == MPI_ANY_TAG);
}
/* Takes the head of the posted queue (not empty), as ibex_match_take_posted_inline does when
 * the head takes the message. */
static inline void ibex_match_take_head(ibex_match_queue_t *q)
{
    ibex_match_entry_t *e = q->posted.head;
    q->posted.head = e->next; /* its prev is left: a head's is not read */
    if (!e->next)
        q->posted.tail = NULL;
    q->posted.length--;
    e->next = e->prev = NULL;
}
/* First posted receive that takes message (src, tag); removed from the queue. */
ibex_match_entry_t *ibex_match_take_posted(ibex_match_queue_t *q, int src, int tag);
/* ibex_match_take_posted with its common case inline: the oldest posted receive takes the
 * message (then it is the first that does); otherwise the search of match.c. */
static inline ibex_match_entry_t *ibex_match_take_posted_inline(ibex_match_queue_t *q, int src,
                                                                int tag)
{
    ibex_match_entry_t *e = q->posted.head;
    if (!e || !ibex_match_fits(e->src, e->tag, src, tag))
        return e ? ibex_match_take_posted(q, src, tag) : NULL;
    ibex_match_take_head(q);
    return e;
}
/* First unexpected message that receive (src, tag) takes; removed if remove is true. */
ibex_match_entry_t *ibex_match_find_unexpected(ibex_match_queue_t *q, int src, int tag,
                                               bool remove);

#endif
