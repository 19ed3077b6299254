/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Dims_create: fills the zero entries of dims so that the product of all entries is
 * nnodes, the filled ones as close to each other as possible and in non-increasing order (MPI
 * 4.1 section 8.5.2). "As close as possible" is taken as the smallest spread (largest minus
 * smallest filled entry); among those of the same spread the one with the largest smallest
 * entry (38 x 37 x 21 x 20 rather than 37 x 30 x 28 x 19 for 590520), then the smallest sum
 * (13 x 9 x 8 x 6 rather than 13 x 12 x 6 x 6 for 5616), then the first in descending order:
 * the choices MPICH makes (its test topo/dims5); found by an exhaustive search over non-increasing
 * factorizations: entries are taken from the divisors of the product (at most 1,600 for an int),
 * and each branch is cut as soon as its entries cannot reach the remaining product.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "ibex_err.h"
#include "ibex_entry.h"

typedef struct dims_search {
    int *divs; /* the divisors of the product to reach, largest first */
    int ndivs;
    int k;        /* entries to fill */
    int cur[32];  /* the factorization being built */
    int best[32]; /* the best one so far */
    int spread;   /* its spread, or -1 */
    int least;    /* its smallest entry */
    long sum;     /* its sum */
} dims_search_t;

/* True when d^k < n (d may not be the largest of k entries whose product is n). */
static bool too_small(long d, int k, long n)
{
    long p = 1;
    for (int i = 0; i < k; i++) {
        p *= d;
        if (p >= n)
            return false;
    }
    return true;
}

/* True when a factorization of that spread, smallest entry and sum beats the best so far. */
static bool dims_better(const dims_search_t *s, int spread, int least, long sum)
{
    if (s->spread < 0 || spread != s->spread)
        return s->spread < 0 || spread < s->spread;
    if (least != s->least)
        return least > s->least;
    return sum < s->sum;
}

/* Entries i.. of a factorization of n, each at most max. */
static void dims_fill(dims_search_t *s, int i, int n, int max)
{
    if (i == s->k - 1) {
        if (n > max)
            return;
        s->cur[i] = n;
        int spread = s->cur[0] - n;
        long sum = 0;
        for (int j = 0; j < s->k; j++)
            sum += s->cur[j];
        if (dims_better(s, spread, n, sum)) {
            s->spread = spread;
            s->least = n;
            s->sum = sum;
            for (int j = 0; j < s->k; j++)
                s->best[j] = s->cur[j];
        }
        return;
    }
    for (int j = 0; j < s->ndivs; j++) {
        int d = s->divs[j];
        if (d > max || d > n)
            continue;
        if (too_small(d, s->k - i, n))
            break;
        if (n % d == 0 && (s->spread < 0 || i == 0 || s->cur[0] - d <= s->spread)) {
            s->cur[i] = d;
            dims_fill(s, i + 1, n / d, d);
        }
    }
}

/* The divisors of n, largest first; NULL when out of memory. */
static int *dims_divisors(int n, int *count_p)
{
    int small = 0, *d = malloc(2 * 1600 * sizeof(int) + 2 * sizeof(int)), m = 0;
    if (!d)
        return NULL;
    for (long e = 1; e * e <= n; e++)
        if (n % e == 0)
            d[small++] = (int)e;    /* ascending small divisors */
    for (int i = 0; i < small; i++) /* their cofactors, descending */
        d[small + i] = n / d[i];
    /* descending list: cofactors (descending), then small divisors reversed, no repeat */
    int *out = malloc((size_t)(2 * small + 1) * sizeof(int));
    if (!out) {
        free(d);
        return NULL;
    }
    for (int i = 0; i < small; i++)
        out[m++] = d[small + i];
    for (int i = small - 1; i >= 0; i--)
        if (d[i] != out[m - 1])
            out[m++] = d[i];
    free(d);
    *count_p = m;
    return out;
}

static int dims_check(const char *call, int nnodes, int ndims, const int dims[], int *rest_p,
                      int *free_p)
{
    if (nnodes <= 0)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "nnodes %d is not positive", nnodes);
    if (ndims < 0)
        return ibex_mpi_error(NULL, MPI_ERR_DIMS, call, "ndims %d is negative", ndims);
    if (ndims > 0 && !dims)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "dims is NULL");
    int rest = nnodes, nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return ibex_mpi_error(NULL, MPI_ERR_DIMS, call, "dims[%d] = %d is negative", i,
                                  dims[i]);
        if (dims[i] == 0)
            nfree++;
        else if (rest % dims[i] != 0)
            return ibex_mpi_error(NULL, MPI_ERR_DIMS, call,
                                  "the set dims do not divide nnodes %d (dims[%d] = %d)", nnodes, i,
                                  dims[i]);
        else
            rest /= dims[i];
    }
    if (nfree == 0 && rest != 1)
        return ibex_mpi_error(NULL, MPI_ERR_DIMS, call,
                              "the product of dims is not nnodes %d and no entry is free", nnodes);
    if (nfree > 32)
        return ibex_mpi_error(NULL, MPI_ERR_DIMS, call, "more than 32 free dims (%d)", nfree);
    *rest_p = rest;
    *free_p = nfree;
    return MPI_SUCCESS;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    IBEX_ENTER_ANYTIME(Dims_create);
    int rest = 1, nfree = 0;
    IBEX_CHECK(dims_check(call, nnodes, ndims, dims, &rest, &nfree));
    if (nfree == 0)
        return MPI_SUCCESS;
    dims_search_t s = {.k = nfree, .spread = -1};
    s.divs = dims_divisors(rest, &s.ndivs);
    if (!s.divs)
        return IBEX_ERROR(MPI_ERR_NO_MEM, "out of memory");
    dims_fill(&s, 0, rest, rest);
    free(s.divs);
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = s.best[j++];
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(topo_dims)
