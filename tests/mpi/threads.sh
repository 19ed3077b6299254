#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_THREAD_MULTIPLE (tests/mpi/thread_multi.c): 2 to 4 ranks with 2 to 8 threads each, every
# phase (point-to-point per thread, MPI_ANY_SOURCE with Mprobe / Mrecv, collectives and
# communicator duplication on per-thread communicators, persistent requests, a wait completed
# by another thread), over shared memory and over verbs on softib, oversubscribed as well.
. "$top_srcdir/tests/mpi/lib.sh"
mt_require_ibexrun
SOFTIB="$top_builddir/softib/.libs/libsoftib.so"
CASE_TIMEOUT=120
# one rank, spinning: its threads run at once on both cores and meet in the same queues
MT_ARGS="8 self,dup,coll,wait" run_case 1 thread_multi IBEX_WAIT_POLICY=spin
MT_ARGS=4 run_case 2 thread_multi
MT_ARGS=2 run_case 4 thread_multi
MT_ARGS=3 run_case 3 thread_multi
MT_ARGS=8 run_case 2 thread_multi
# concurrent context-id agreements with MPI_COMM_SELF dups between them (comm_ctx.c)
MT_ARGS="2 ctxmix" run_case 4 thread_multi
MT_ARGS="3 ctxmix" run_case 3 thread_multi
MT_ARGS="2 p2p,anysrc,coll,dup" run_case 4 thread_multi IBEX_TRANSPORTS=self,shm IBEX_EAGER_LIMIT=1k
if [ -f "$SOFTIB" ]; then
    MT_ARGS=4 run_case 2 thread_multi IBEX_TRANSPORTS=self,verbs LD_PRELOAD="$SOFTIB"
    MT_ARGS="2 p2p,anysrc,coll" run_case 3 thread_multi IBEX_TRANSPORTS=self,verbs LD_PRELOAD="$SOFTIB"
    softib_sweep "$SOFTIB"
fi
# the asynchronous progress thread moves a write rendezvous and a non-blocking barrier while
# the sender computes; without it (the control) they wait for the sender's MPI_Wait
MT_ARGS=expect-async run_case 2 thread_async IBEX_ASYNC_PROGRESS=1 IBEX_RNDV_SCHEME=write
MT_ARGS=expect-stall run_case 2 thread_async IBEX_RNDV_SCHEME=write
mt_finish
