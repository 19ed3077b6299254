/* SPDX-License-Identifier: BSD-3-Clause */
/* Posted and unexpected queues, and the MPI matching rule. See ibex_match.h. */
#include "ibex_match.h"

#include <mpi.h>
#include <stdbool.h>

void ibex_match_list_append(ibex_match_list_t *list, ibex_match_entry_t *entry)
{
    ibex_match_list_append_inline(list, entry);
}

/* Static, so that the searches below inline it (exported functions cannot be, in a library). */
static inline void list_unlink(ibex_match_list_t *list, ibex_match_entry_t *entry)
{
    bool head = entry == list->head; /* then its prev may be stale: ibex_match_list_t */
    ibex_match_entry_t *prev = head ? NULL : entry->prev;
    if (head)
        list->head = entry->next;
    else
        prev->next = entry->next;
    if (entry->next)
        entry->next->prev = prev;
    else
        list->tail = prev;
    entry->next = entry->prev = NULL;
    list->length--;
}

void ibex_match_list_remove(ibex_match_list_t *list, ibex_match_entry_t *entry)
{
    list_unlink(list, entry);
}

ibex_match_entry_t *ibex_match_take_posted(ibex_match_queue_t *q, int src, int tag)
{
    for (ibex_match_entry_t *e = q->posted.head; e; e = e->next) {
        if (ibex_match_fits(e->src, e->tag, src, tag)) {
            list_unlink(&q->posted, e);
            return e;
        }
    }
    return NULL;
}

ibex_match_entry_t *ibex_match_find_unexpected(ibex_match_queue_t *q, int src, int tag, bool remove)
{
    for (ibex_match_entry_t *e = q->unexpected.head; e; e = e->next) {
        if (ibex_match_fits(src, tag, e->src, e->tag)) {
            if (remove)
                list_unlink(&q->unexpected, e);
            return e;
        }
    }
    return NULL;
}
