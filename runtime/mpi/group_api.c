/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI group entry points: Group_size, rank, incl, excl, range_incl, range_excl,
 * translate_ranks, compare, union, intersection, difference, free. Groups are built as lists of
 * world ranks; membership tests go through a world-rank index (world size ints), so every operation
 * is linear.
 */
#include <stdlib.h>
#include <string.h>

#include "comm_impl.h"
#include "ibex_err.h"
#include "ibex_runtime.h"
#include "ibex_entry.h"

/* index[w] = rank of world rank w in g, or MPI_UNDEFINED; NULL when out of memory. */
static int *group_world_index(const ibex_group_t *g)
{
    int n = ibex_rt.boot.size > 0 ? ibex_rt.boot.size : 1;
    int *index = malloc((size_t)n * sizeof(int));
    if (!index)
        return NULL;
    for (int w = 0; w < n; w++)
        index[w] = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        index[g->world_ranks[i]] = i;
    return index;
}

/* Called after IBEX_ENTER (MPI is running). */
static int group_lookup(MPI_Group handle, const char *call, ibex_group_t **g_p)
{
    ibex_group_t *g = ibex_group_get(handle);
    if (!g)
        return ibex_mpi_error(NULL, MPI_ERR_GROUP, call, "invalid group handle 0x%x", handle);
    *g_p = g;
    return MPI_SUCCESS;
}

/* Hands a new group (reference owned by the caller) to the program as *newgroup. */
static int group_publish(ibex_group_t *g, const char *call, MPI_Group *newgroup)
{
    if (!g)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory for a new group");
    MPI_Group h = ibex_group_handle_new(g);
    ibex_group_release(g);
    if (h == MPI_GROUP_NULL)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of group handles");
    *newgroup = h;
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    IBEX_ENTER(Group_size);
    ibex_group_t *g = NULL;
    IBEX_CHECK(group_lookup(group, call, &g));
    IBEX_ARGS(Group_size, size);
    *size = g->size;
    return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    IBEX_ENTER(Group_rank);
    ibex_group_t *g = NULL;
    IBEX_CHECK(group_lookup(group, call, &g));
    IBEX_ARGS(Group_rank, rank);
    *rank = g->my_rank;
    return MPI_SUCCESS;
}

/* Every ranks[i] is a rank of g and none repeats; otherwise raises MPI_ERR_RANK. */
static int group_check_ranks(const ibex_group_t *g, int n, const int *ranks, const char *call)
{
    if (n < 0 || n > g->size)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "n = %d with a group of %d", n, g->size);
    if (n > 0 && !ranks)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "ranks is NULL with n = %d", n);
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!seen)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            rc = ibex_mpi_error(NULL, MPI_ERR_RANK, call, "ranks[%d] = %d is not in a group of %d",
                                i, ranks[i], g->size);
        else if (seen[ranks[i]]++)
            rc = ibex_mpi_error(NULL, MPI_ERR_RANK, call, "ranks[%d] = %d appears twice", i,
                                ranks[i]);
    }
    free(seen);
    return rc;
}

static int group_incl(const ibex_group_t *g, int n, const int *ranks, const char *call,
                      MPI_Group *newgroup)
{
    ibex_group_t *ng = ibex_group_new(n);
    if (ng && n > 0) {
        for (int i = 0; i < n; i++)
            ng->world_ranks[i] = g->world_ranks[ranks[i]];
        ng->my_rank = ibex_group_rank_of(ng, ibex_rt.boot.rank);
    }
    return group_publish(ng, call, newgroup);
}

static int group_excl(const ibex_group_t *g, int n, const int *ranks, const char *call,
                      MPI_Group *newgroup)
{
    char *drop = calloc((size_t)g->size + 1, 1);
    ibex_group_t *ng = drop ? ibex_group_new(g->size - n) : NULL;
    if (ng && ng->size > 0) {
        for (int i = 0; i < n; i++)
            drop[ranks[i]] = 1;
        for (int i = 0, j = 0; i < g->size; i++)
            if (!drop[i])
                ng->world_ranks[j++] = g->world_ranks[i];
        ng->my_rank = ibex_group_rank_of(ng, ibex_rt.boot.rank);
    }
    free(drop);
    return group_publish(ng, call, newgroup);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    IBEX_ENTER(Group_incl);
    ibex_group_t *g = NULL;
    IBEX_CHECK(group_lookup(group, call, &g));
    IBEX_CHECK(group_check_ranks(g, n, ranks, call));
    IBEX_ARGS(Group_incl, newgroup);
    return group_incl(g, n, ranks, call, newgroup);
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    IBEX_ENTER(Group_excl);
    ibex_group_t *g = NULL;
    IBEX_CHECK(group_lookup(group, call, &g));
    IBEX_CHECK(group_check_ranks(g, n, ranks, call));
    IBEX_ARGS(Group_excl, newgroup);
    return group_excl(g, n, ranks, call, newgroup);
}

/* The ranks of n (first, last, stride) triplets into *out_p (malloc'd, *m_p of them): a
 * stride of 0 is MPI_ERR_ARG, a first or last outside g MPI_ERR_RANK; the list is then
 * checked as Group_incl's (a rank named twice is MPI_ERR_RANK). */
static int group_ranges(const ibex_group_t *g, int n, int ranges[][3], const char *call,
                        int **out_p, int *m_p)
{
    if (n < 0 || (n > 0 && !ranges))
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "n = %d or ranges is NULL", n);
    int *out = malloc((size_t)g->size * sizeof(int) + 1), m = 0;
    if (!out)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            rc = ibex_mpi_error(NULL, MPI_ERR_ARG, call, "ranges[%d] has stride 0", i);
        else if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            rc = ibex_mpi_error(NULL, MPI_ERR_RANK, call,
                                "ranges[%d] = (%d, %d, %d) leaves a group of %d", i, first, last,
                                stride, g->size);
        for (long r = first; rc == MPI_SUCCESS && (stride > 0 ? r <= last : r >= last);
             r += stride) {
            if (m == g->size)
                rc = ibex_mpi_error(NULL, MPI_ERR_RANK, call,
                                    "the ranges name more ranks than the group has (%d)", g->size);
            else
                out[m++] = (int)r;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = group_check_ranks(g, m, out, call);
    if (rc != MPI_SUCCESS) {
        free(out);
        return rc;
    }
    *out_p = out;
    *m_p = m;
    return MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    IBEX_ENTER(Group_range_incl);
    ibex_group_t *g = NULL;
    int *ranks = NULL, m = 0;
    IBEX_CHECK(group_lookup(group, call, &g));
    IBEX_ARGS(Group_range_incl, newgroup);
    IBEX_CHECK(group_ranges(g, n, ranges, call, &ranks, &m));
    int rc = group_incl(g, m, ranks, call, newgroup);
    free(ranks);
    return rc;
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    IBEX_ENTER(Group_range_excl);
    ibex_group_t *g = NULL;
    int *ranks = NULL, m = 0;
    IBEX_CHECK(group_lookup(group, call, &g));
    IBEX_ARGS(Group_range_excl, newgroup);
    IBEX_CHECK(group_ranges(g, n, ranges, call, &ranks, &m));
    int rc = group_excl(g, m, ranks, call, newgroup);
    free(ranks);
    return rc;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    IBEX_ENTER(Group_translate_ranks);
    ibex_group_t *g1 = NULL, *g2 = NULL;
    IBEX_CHECK(group_lookup(group1, call, &g1));
    IBEX_CHECK(group_lookup(group2, call, &g2));
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "n = %d or a NULL rank array", n);
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return ibex_mpi_error(NULL, MPI_ERR_RANK, call,
                                  "ranks1[%d] = %d is not in a group of %d", i, ranks1[i],
                                  g1->size);
    int *index = group_world_index(g2);
    if (!index)
        return ibex_mpi_error(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL : index[g1->world_ranks[ranks1[i]]];
    free(index);
    return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    IBEX_ENTER(Group_compare);
    ibex_group_t *g1 = NULL, *g2 = NULL;
    IBEX_CHECK(group_lookup(group1, call, &g1));
    IBEX_CHECK(group_lookup(group2, call, &g2));
    IBEX_ARGS(Group_compare, result);
    *result = ibex_group_compare(g1, g2);
    return MPI_SUCCESS;
}

typedef enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE } set_op_t;

/* The members of a (in a's order) kept by op, then for a union those of b not in a. */
static ibex_group_t *group_set_op(const ibex_group_t *a, const ibex_group_t *b, set_op_t op)
{
    int *in_b = group_world_index(b);
    int *in_a = group_world_index(a);
    int *list = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof(int));
    ibex_group_t *ng = NULL;
    if (!in_a || !in_b || !list)
        goto out;
    int n = 0;
    for (int i = 0; i < a->size; i++) {
        bool member = in_b[a->world_ranks[i]] != MPI_UNDEFINED;
        if (op == SET_UNION || (op == SET_INTERSECTION) == member)
            list[n++] = a->world_ranks[i];
    }
    for (int i = 0; op == SET_UNION && i < b->size; i++)
        if (in_a[b->world_ranks[i]] == MPI_UNDEFINED)
            list[n++] = b->world_ranks[i];
    ng = ibex_group_from_world(list, n);
out:
    free(list);
    free(in_a);
    free(in_b);
    return ng;
}

/* The body of Group_union / intersection / difference, after their entry and checks. */
static int group_set_api(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, set_op_t op,
                         const char *call)
{
    ibex_group_t *g1 = NULL, *g2 = NULL;
    IBEX_CHECK(group_lookup(group1, call, &g1));
    IBEX_CHECK(group_lookup(group2, call, &g2));
    if (!newgroup)
        return ibex_mpi_error(NULL, MPI_ERR_ARG, call, "newgroup is NULL");
    return group_publish(group_set_op(g1, g2, op), call, newgroup);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    IBEX_ENTER(Group_union);
    return group_set_api(group1, group2, newgroup, SET_UNION, call);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    IBEX_ENTER(Group_intersection);
    return group_set_api(group1, group2, newgroup, SET_INTERSECTION, call);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    IBEX_ENTER(Group_difference);
    return group_set_api(group1, group2, newgroup, SET_DIFFERENCE, call);
}

/* Freeing MPI_GROUP_EMPTY is allowed (Group_incl with n = 0 returns it) and only nulls the
 * handle; the object is predefined. */
int PMPI_Group_free(MPI_Group *group)
{
    IBEX_ENTER(Group_free);
    IBEX_ARGS(Group_free, group);
    ibex_group_t *g = NULL;
    IBEX_CHECK(group_lookup(*group, call, &g));
    ibex_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

IBEX_MPI_ALIASES(group_api)
