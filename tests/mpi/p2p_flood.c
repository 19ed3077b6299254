/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A flood: every other rank sends many eager messages to rank 0, which posts nothing for a
 * while. Nothing may be lost or reordered, nothing may deadlock, and rank 0's memory must stay
 * bounded: when MT_MAX_RSS_GROWTH_MB is set, its peak resident size may not grow by more.
 */
#include <unistd.h>

#include "mpitest.h"

#define NMSG 20000
#define MSG  4000

static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char *buf = malloc(MSG);
    if (rank != 0) {
        for (int i = 0; i < NMSG; i++) {
            memset(buf, (char)(i + rank), MSG);
            memcpy(buf, &i, sizeof(i));
            CHECK_RC(MPI_Send(buf, MSG, MPI_BYTE, 0, 1, MPI_COMM_WORLD));
        }
    } else {
        long before = peak_rss_kb();
        sleep(2); /* the senders fill whatever buffering there is */
        int next[64] = {0};
        for (int k = 0; k < NMSG * (size - 1); k++) {
            MPI_Status st;
            CHECK_RC(MPI_Recv(buf, MSG, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
            int i;
            memcpy(&i, buf, sizeof(i));
            CHECK(i == next[st.MPI_SOURCE]++);
            CHECK(buf[MSG - 1] == (char)(i + st.MPI_SOURCE));
        }
        long growth_mb = (peak_rss_kb() - before) / 1024;
        const char *lim = getenv("MT_MAX_RSS_GROWTH_MB");
        printf("p2p_flood: %d messages of %d bytes from %d senders, peak memory growth %ld MiB\n",
               NMSG * (size - 1), MSG, size - 1, growth_mb);
        if (lim)
            CHECK(growth_mb <= atol(lim));
    }
    free(buf);
    mt_barrier(MPI_COMM_WORLD);
    mt_done("p2p_flood");
    MPI_Finalize();
    return 0;
}
