/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's table of tunables (see ibex_config.h for how tables register). */
#include "ibex_config.h"
#include "ibex_engine_cfg.h"

ibex_engine_cfg_t ibex_engine_cfg;

static const ibex_cfg_entry_t engine_table[] = {
    {"TRANSPORTS", IBEX_CFG_STRING, "auto", NULL, &ibex_engine_cfg.transports,
     "transports to use: auto (every registered transport that opens), or a comma-separated "
     "list of registered transport names (ibex_info lists them, in the order they are tried)"},
    {"EAGER_LIMIT", IBEX_CFG_SIZE_AUTO, "auto", NULL, &ibex_engine_cfg.eager_limit,
     "largest payload sent eagerly; larger messages use rendezvous (auto: from the transport)"},
    {"RNDV_SCHEME", IBEX_CFG_ENUM, "auto", "auto|read|write", &ibex_engine_cfg.rndv_scheme,
     "rendezvous scheme: read (receiver pulls), write (sender pushes after CTS), auto"},
    {"RNDV_FRAG_SIZE", IBEX_CFG_SIZE, "4m", NULL, &ibex_engine_cfg.rndv_frag_size,
     "rendezvous transfers are split into fragments of this size"},
    {"RNDV_SPLIT_MIN", IBEX_CFG_SIZE, "32k", NULL, &ibex_engine_cfg.rndv_split_min,
     "auto scheme, on transports whose put / get are CPU copies (shared memory): from this size "
     "the "
     "receiver reads the first half while the sender writes the second, so both sides copy "
     "(set it above any message size to turn it off)"},
    {"RNDV_IOV_MIN", IBEX_CFG_SIZE, "2k", NULL, &ibex_engine_cfg.rndv_iov_min,
     "non-contiguous rendezvous receives on transports that take piece lists (shared memory): "
     "when the receive buffer's blocks average this many bytes or more they are read straight "
     "into place, else the data lands in a staging buffer and is unpacked"},
    {"RNDV_PIPE_MAX", IBEX_CFG_SIZE, "256k", NULL, &ibex_engine_cfg.rndv_pipe_max,
     "auto scheme, on transports whose put / get are CPU copies (shared memory): rendezvous "
     "messages up to this size go as fragments through the transport's sends after the "
     "receiver's CTS (sender and receiver copy at once), larger ones READ / SPLIT (0: never); "
     "for a contiguous send buffer IBEX_RNDV_PIPE_CONTIG_MAX decides instead"},
    {"RNDV_PIPE_CONTIG_MAX", IBEX_CFG_SIZE, "16k", NULL, &ibex_engine_cfg.rndv_pipe_contig_max,
     "IBEX_RNDV_PIPE_MAX for a contiguous send buffer: PIPE up to this size, READ / SPLIT past "
     "it (one cross-memory copy per side instead of two copies through the ring)"},
    {"RNDV_PIPE_FRAG", IBEX_CFG_SIZE, "16448", NULL, &ibex_engine_cfg.rndv_pipe_frag,
     "PIPE: bytes per fragment, header included, capped by what one send of the transport "
     "takes (16448: a whole shared-memory slot, 16,440 bytes; was 4k, then 16k): each fragment "
     "costs both sides a message's fixed work, and 256 KiB in 4 KiB fragments overfilled a "
     "64-slot box"},
    {"DT_VECTOR", IBEX_CFG_BOOL, "1", NULL, &ibex_engine_cfg.dt_vector,
     "1: datatypes whose blocks form a regular vector (nested at most once) pack and unpack "
     "with loops specialised on the block length; 0: every type walks its block list",
     IBEX_CFG_LIVE},
    {"PACK_IN_SLOT", IBEX_CFG_BOOL, "1", NULL, &ibex_engine_cfg.pack_in_slot,
     "1: non-contiguous eager messages and PIPE fragments are packed straight into the "
     "transport's send slot where it offers that (shared memory), one copy fewer; 0: packed "
     "into a buffer that the transport's send copies (as on every other transport)"},
    {"UNEXPECTED_MAX", IBEX_CFG_SIZE, "256m", NULL, &ibex_engine_cfg.unexpected_max,
     "bytes of unexpected eager data buffered per process before senders are held back"},
    {"WAIT_POLICY", IBEX_CFG_ENUM, "auto", "auto|spin|yield", &ibex_engine_cfg.wait_policy,
     "blocking waits and polling calls (MPI_Test*, Iprobe): auto spins IBEX_SPIN_COUNT empty "
     "polls then yields the core, and yields at once on an oversubscribed node (more local ranks "
     "than hwloc's core count); spin never yields; yield yields after every empty poll",
     IBEX_CFG_LIVE},
    {"SPIN_COUNT", IBEX_CFG_INT, "10000", NULL, &ibex_engine_cfg.spin_count,
     "empty progress polls in a row before a waiting or polling rank starts to yield the core",
     IBEX_CFG_LIVE},
    /* the asynchronous progress thread (progress_thread.c) */
    {"ASYNC_PROGRESS", IBEX_CFG_BOOL, "0", NULL, &ibex_engine_cfg.async_progress,
     "1: a thread per rank advances rendezvous, non-blocking collectives and one-sided "
     "operations while the program computes (turns the MPI_THREAD_MULTIPLE lock on; never on "
     "an oversubscribed node)"},
    {"ASYNC_PROGRESS_SLEEP", IBEX_CFG_INT, "20", NULL, &ibex_engine_cfg.async_sleep_us,
     "microseconds the asynchronous progress thread sleeps after a poll that found nothing"},
};
IBEX_CFG_MODULE(engine, "engine", IBEX_CFG_LAYER_ENGINE, engine_table);
