/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shape of the tree of daemons (pure, unit-tested in tests/launcher/test_run_tree_shape.c):
 * node n's children are n*k+1 .. n*k+k, its parent (n-1)/k, the root 0 (the head).
 */
#include "run_tree.h"

int ibex_tree_parent(int node, int fanout)
{
    return node <= 0 || fanout < 1 ? -1 : (node - 1) / fanout;
}

int ibex_tree_child_toward(int node, int dest, int fanout, int nnodes)
{
    if (fanout < 1 || dest <= node || dest >= nnodes)
        return -1;
    for (int p = ibex_tree_parent(dest, fanout); p >= 0; dest = p, p = ibex_tree_parent(p, fanout))
        if (p == node)
            return dest;
    return -1;
}

int ibex_tree_depth(int nnodes, int fanout)
{
    int depth = 0;
    for (int n = nnodes - 1; n > 0; n = ibex_tree_parent(n, fanout))
        depth++;
    return depth;
}
