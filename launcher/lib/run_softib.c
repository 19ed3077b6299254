/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * After a job whose ranks ran over softib (LD_PRELOAD names libsoftib.so: `ibexrun --softib`, a
 * daemon's copy of that environment, or a user's own preload), the launcher that supervised
 * them removes what dead ranks left in softib's fabric directory. A rank SIGKILLed runs no
 * cleanup, and softib itself sweeps dead processes' files only when a later process opens the
 * device. softib does the sweep (softib_sweep.h): the launcher loads the ranks' libsoftib.so
 * and calls it with their SOFTIB_NAMESPACE and SOFTIB_FABRIC_DIR. Only contexts of dead
 * processes go, so another live job on the same fabric keeps its files (softib/README.md).
 */
#include "ibex_launch.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ibex_log.h"

/* softib/softib_sweep.h's contract, restated: the launcher includes nothing but runtime/base
 * (tests/layering.sh), and finds the function in the ranks' library by name. */
typedef int (*softib_sweep_fn)(const char *ns, const char *fabric_dir);

/* The first word of LD_PRELOAD (blanks or colons between) whose file name is libsoftib.so. */
static bool run_softib_lib(const char *preload, char *path, size_t len)
{
    while (preload && *preload) {
        size_t n = strcspn(preload, " :");
        const char *slash = memrchr(preload, '/', n);
        const char *base = slash ? slash + 1 : preload;
        if ((size_t)(preload + n - base) == strlen("libsoftib.so") &&
            strncmp(base, "libsoftib.so", strlen("libsoftib.so")) == 0 && n < len) {
            snprintf(path, len, "%.*s", (int)n, preload);
            return true;
        }
        preload += n + strspn(preload + n, " :");
    }
    return false;
}

void ibex_run_softib_sweep(char **env)
{
    char lib[4096];
    if (!run_softib_lib(ibex_run_env_get(env, "LD_PRELOAD"), lib, sizeof(lib)))
        return;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    softib_sweep_fn sweep = h ? (softib_sweep_fn)dlsym(h, "softib_sweep") : NULL;
    int rc = sweep ? sweep(ibex_run_env_get(env, "SOFTIB_NAMESPACE"),
                           ibex_run_env_get(env, "SOFTIB_FABRIC_DIR"))
                   : -1;
    if (rc != 0)
        ibex_debug(LAUNCH, "softib sweep of %s: %s", lib,
                   rc < 0 ? (h ? "no softib_sweep" : dlerror()) : strerror(rc));
    if (h)
        dlclose(h);
}
