/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * softib_sweep: what every open does first, for a supervisor whose processes used softib and are
 * gone (ibexrun after its ranks, however they ended: a SIGKILLed rank runs no cleanup). In the
 * fabric of namespace NS in directory FABRIC_DIR (the values of SOFTIB_NAMESPACE and
 * SOFTIB_FABRIC_DIR the processes had; NULL or "" for none and /dev/shm), the contexts of dead
 * processes lose their names (segment, channel FIFOs, QP numbers), so do segment files of ours
 * that no context names (a process killed while creating one), and the registry goes when no
 * context is left. Live processes' contexts, of this job or another, are untouched. Returns 0,
 * EBUSY in a process that uses softib itself, or the registry's errno. A launcher that does not
 * link softib finds it with dlopen + dlsym("softib_sweep").
 */
#ifndef SOFTIB_SWEEP_H
#define SOFTIB_SWEEP_H

typedef int (*softib_sweep_fn)(const char *ns, const char *fabric_dir);
int softib_sweep(const char *ns, const char *fabric_dir);

#endif
