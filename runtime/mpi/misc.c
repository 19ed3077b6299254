/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small environment calls: timers, names and versions, MPI_Alloc_mem / Free_mem and address
 * arithmetic.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ibex_err.h"
#include "ibex_p2p.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* CLOCK_MONOTONIC: never steps backwards with NTP; not synchronised between nodes
 * (MPI_WTIME_IS_GLOBAL is false). */
double PMPI_Wtime(void)
{
    IBEX_ENTER_ANYTIME(Wtime);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double PMPI_Wtick(void)
{
    IBEX_ENTER_ANYTIME(Wtick);
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}

static int misc_copy_string(char *dst, int max, const char *src)
{
    int len = (int)strlen(src);
    if (len > max - 1)
        len = max - 1;
    memcpy(dst, src, (size_t)len);
    dst[len] = '\0';
    return len;
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    IBEX_ENTER(Get_processor_name);
    if (!name || !resultlen)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL", name ? "resultlen" : "name");
    /* The host name PMIx gave this rank (the launcher's name for the node). */
    *resultlen = misc_copy_string(name, MPI_MAX_PROCESSOR_NAME, ibex_rt.boot.hostname);
    return MPI_SUCCESS;
}

/* May be called at any time, also before MPI_Init (MPI-4 8.1.1). */
int PMPI_Get_version(int *version, int *subversion)
{
    IBEX_ENTER_ANYTIME(Get_version);
    if (!version || !subversion)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL",
                              version ? "subversion" : "version");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    IBEX_ENTER_ANYTIME(Get_library_version);
    if (!version || !resultlen)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "%s is NULL",
                              version ? "resultlen" : "version");
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    snprintf(text, sizeof(text), "Ibex %s (MPI %d.%d subset), built %s %s", IBEX_VERSION_STRING,
             MPI_VERSION, MPI_SUBVERSION, __DATE__, __TIME__);
    *resultlen = misc_copy_string(version, MPI_MAX_LIBRARY_VERSION_STRING, text);
    return MPI_SUCCESS;
}

/* Errors here are not tied to a communicator: MPI_COMM_SELF's or MPI_COMM_WORLD's handler. */
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    IBEX_ENTER(Alloc_mem);
    if (size < 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "invalid size %ld (negative)", (long)size);
    IBEX_ARGS(Alloc_mem, baseptr);
    void *ptr;
    ibex_status_t st = ibex_p2p_mem_alloc((size_t)size, &ptr);
    if (st != IBEX_OK)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "cannot allocate %ld bytes: %s",
                              (long)size, ibex_status_str(st));
    memcpy(baseptr, &ptr, sizeof(ptr)); /* baseptr is really a void ** */
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    IBEX_ENTER(Free_mem);
    if (!base)
        return MPI_SUCCESS; /* like free(NULL), so a zero-size MPI_Alloc_mem may be freed */
    ibex_status_t st = ibex_p2p_mem_free(base);
    if (st != IBEX_OK)
        return ibex_mpi_error(NULL, MPI_ERR_BASE, call, "%p was not allocated by MPI_Alloc_mem: %s",
                              base, ibex_status_str(st));
    return MPI_SUCCESS;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    IBEX_ENTER_ANYTIME(Get_address);
    IBEX_ARGS(Get_address, address);
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* Address arithmetic in unsigned integers: defined on wrap-around, unlike pointer arithmetic. */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    IBEX_ENTER_ANYTIME(Aint_add);
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    IBEX_ENTER_ANYTIME(Aint_diff);
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* Profiling control: Ibex has no profiling levels of its own, so every level (tools hooked in
 * through PMPI see the call) is accepted and does nothing. */
int PMPI_Pcontrol(int level, ...)
{
    IBEX_ENTER_ANYTIME(Pcontrol);
    (void)level;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(misc)
