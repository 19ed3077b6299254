/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reorder: which process of a new Cartesian or graph topology takes which vertex (its new
 * rank), so that topology neighbours share a node and, inside a node, caches.
 *
 * The members are parent ranks 0 .. n-1 (as without reorder). The hierarchy is levels of
 * colours per member: its node (ibex_coll_node_of: the job's node map, or the blocks of
 * IBEX_COLL_NODE_SIZE that fake nodes on one machine), then, inside a node, the Package,
 * L3 and L2 cache holding its core. The core of a process is where ibexrun binds it: local rank
 * i on core i % cores while the node has no more ranks than cores (else no cache level is
 * used). The hardware is hwloc's view of this machine, or IBEX_TOPO_SYNTHETIC (an hwloc
 * synthetic description) for tests.
 *
 * At each level the vertices of a group are split into parts of the sizes of its sub-groups
 * (greedy graph growing from a vertex of few free neighbours, adding the vertex with most
 * edges into the part, then pairwise swaps that lower the cut while they do, on groups of at
 * most SWAP_MAX vertices); the split is kept only if it cuts less than the identity split
 * (vertex i where member i is), so reorder never cuts more edges than keeping the ranks, at
 * the node level first, then at each cache level inside a node.
 *
 * The node split depends only on the node map, which every process knows alike; the split
 * inside a node only on that node's hardware. So all processes of a node agree on their part,
 * and Cart_map / Graph_map (local) answer what Cart_create / Graph_create (collective) do.
 */
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "coll_shm.h"
#include "ibex_config.h"
#include "ibex_runtime.h"
#include "ibex_topo.h"

static char *synthetic;

static const ibex_cfg_entry_t topo_table[] = {
    {"TOPO_SYNTHETIC", IBEX_CFG_STRING, "", NULL, &synthetic,
     "topology reorder: an hwloc synthetic topology (\"pack:1 l3:2 l2:2 core:2 pu:1\") whose "
     "caches are used instead of this machine's (for tests); empty: this machine's"},
};
IBEX_CFG_MODULE(topo, "topo", IBEX_CFG_LAYER_COLL, topo_table);

#define LEVELS      4    /* node, Package, L3, L2 */
#define SWAP_MAX    1024 /* groups larger than this skip the swap passes (quadratic) */
#define SWAP_PASSES 8
#define GROW_MAX    8192 /* groups larger than this keep their order (quadratic) */
#define SCRATCH     5    /* arrays of n ints per level (place_t.scratch) */

/* ---- the hardware: cache colours of a core ---- */

static hwloc_topology_t hw;
static bool hw_tried;

static hwloc_topology_t hw_get(void)
{
    if (hw_tried)
        return hw;
    hw_tried = true;
    if (hwloc_topology_init(&hw) != 0)
        return hw = NULL;
    if ((synthetic && synthetic[0] && hwloc_topology_set_synthetic(hw, synthetic) != 0) ||
        hwloc_topology_load(hw) != 0) {
        hwloc_topology_destroy(hw);
        hw = NULL;
    }
    return hw;
}

/* Logical index of the object of type t above core c, or -1. */
static int core_colour(int c, hwloc_obj_type_t t)
{
    hwloc_topology_t topo = hw_get();
    hwloc_obj_t core = topo ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c) : NULL;
    hwloc_obj_t o = core ? hwloc_get_ancestor_obj_by_type(topo, t, core) : NULL;
    return o ? (int)o->logical_index : -1;
}

static int hw_cores(void)
{
    hwloc_topology_t topo = hw_get();
    return topo ? hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) : 0;
}

/* colour[l * n + i]: member i's colour at level l (same colour: same group). */
static void member_colours(ibex_comm_t *parent, int n, int *colour)
{
    static const hwloc_obj_type_t types[LEVELS - 1] = {HWLOC_OBJ_PACKAGE, HWLOC_OBJ_L3CACHE,
                                                       HWLOC_OBJ_L2CACHE};
    const ibex_boot_info_t *b = &ibex_rt.boot;
    /* oversubscribed: several ranks share each core, so no cache level (and no hwloc to load) */
    int cores = synthetic && synthetic[0] ? hw_cores() : ibex_rt.oversubscribed ? 0 : hw_cores();
    for (int i = 0; i < n; i++) {
        colour[i] = ibex_coll_node_of(parent, i);
        int w = ibex_comm_world_rank(parent, i), real = b->node_of ? b->node_of[w] : 0;
        int local = 0, local_size = 0;
        for (int r = 0; r < b->size; r++)
            if ((b->node_of ? b->node_of[r] : 0) == real) {
                local += r < w;
                local_size++;
            }
        for (int l = 1; l < LEVELS; l++) /* unbound: one group per node */
            colour[l * n + i] = local_size <= cores ? core_colour(local % cores, types[l - 1]) : -1;
    }
}

/* ---- the graph ---- */

void ibex_topo_graph_free(ibex_topo_graph_t *g)
{
    if (g) {
        free(g->xadj);
        free(g->adj);
        free(g);
    }
}

ibex_topo_graph_t *ibex_topo_graph_from_pairs(int n, const int *pairs, int npairs)
{
    ibex_topo_graph_t *g = calloc(1, sizeof(*g));
    if (!g || !(g->xadj = calloc((size_t)n + 1, sizeof(int))))
        goto err;
    g->n = n;
    for (int e = 0; e < npairs; e++)
        for (int s = 0; s < 2; s++)
            g->xadj[pairs[2 * e + s] + 1]++;
    for (int v = 0; v < n; v++)
        g->xadj[v + 1] += g->xadj[v];
    if (!(g->adj = malloc((size_t)(g->xadj[n] > 0 ? g->xadj[n] : 1) * sizeof(int))))
        goto err;
    int *fill = calloc((size_t)n + 1, sizeof(int));
    if (!fill)
        goto err;
    for (int e = 0; e < npairs; e++) {
        int u = pairs[2 * e], v = pairs[2 * e + 1];
        g->adj[g->xadj[u] + fill[u]++] = v;
        g->adj[g->xadj[v] + fill[v]++] = u;
    }
    free(fill);
    return g;
err:
    ibex_topo_graph_free(g);
    return NULL;
}

/* Edges to vertices whose state is p. */
static int ext(const ibex_topo_graph_t *g, int v, const int *state, int p)
{
    int k = 0;
    for (int e = g->xadj[v]; e < g->xadj[v + 1]; e++)
        k += state[g->adj[e]] == p;
    return k;
}

static int edges_between(const ibex_topo_graph_t *g, int a, int b)
{
    int k = 0;
    for (int e = g->xadj[a]; e < g->xadj[a + 1]; e++)
        k += g->adj[e] == b;
    return k;
}

/* Edges inside verts[0..k) whose ends have different states. */
static long cut_of(const ibex_topo_graph_t *g, const int *verts, int k, const int *state)
{
    long cut = 0;
    for (int i = 0; i < k; i++) {
        int v = verts[i];
        for (int e = g->xadj[v]; e < g->xadj[v + 1]; e++) {
            int u = g->adj[e];
            cut += u > v && state[u] >= 0 && state[u] != state[v];
        }
    }
    return cut;
}

/* ---- splitting one group's vertices into parts of given sizes ---- */

typedef struct split {
    const ibex_topo_graph_t *g;
    const int *verts; /* the group's vertices */
    int k;
    int *state; /* per vertex: -2 outside the group, -1 free, else its part */
    int *gain;  /* per vertex: edges into the part being grown */
} split_t;

/* The free vertex with the fewest free neighbours (a corner of a grid). */
static int grow_seed(const split_t *s)
{
    int best = -1, best_free = 0;
    for (int i = 0; i < s->k; i++) {
        int v = s->verts[i];
        if (s->state[v] != -1)
            continue;
        int f = ext(s->g, v, s->state, -1);
        if (best < 0 || f < best_free)
            best = v, best_free = f;
    }
    return best;
}

static void grow_add(split_t *s, int v, int part)
{
    s->state[v] = part;
    for (int e = s->g->xadj[v]; e < s->g->xadj[v + 1]; e++)
        s->gain[s->g->adj[e]]++;
}

/* The free vertex with most edges into the part; among those, the one with the fewest free
 * neighbours (the part stays compact: a block of a grid rather than a row), then the lowest. */
static int grow_next(const split_t *s)
{
    int best = -1, best_free = 0;
    for (int i = 0; i < s->k; i++) {
        int v = s->verts[i];
        if (s->state[v] != -1 || (best >= 0 && s->gain[v] < s->gain[best]))
            continue;
        int f = ext(s->g, v, s->state, -1);
        if (best < 0 || s->gain[v] > s->gain[best] || f < best_free)
            best = v, best_free = f;
    }
    return best >= 0 && s->gain[best] == 0 ? grow_seed(s) : best;
}

static void grow(split_t *s, const int *cap, int nparts)
{
    for (int p = 0; p < nparts; p++) {
        for (int i = 0; i < s->k; i++)
            s->gain[s->verts[i]] = 0;
        for (int m = 0; m < cap[p]; m++)
            grow_add(s, m == 0 ? grow_seed(s) : grow_next(s), p);
    }
}

/* Swaps two vertices of different parts while that lowers the cut. */
static void refine(split_t *s)
{
    if (s->k > SWAP_MAX)
        return;
    for (int pass = 0, improved = 1; pass < SWAP_PASSES && improved; pass++) {
        improved = 0;
        for (int i = 0; i < s->k; i++)
            for (int j = i + 1; j < s->k; j++) {
                int a = s->verts[i], b = s->verts[j], pa = s->state[a], pb = s->state[b];
                if (pa == pb)
                    continue;
                int gain = ext(s->g, a, s->state, pb) - ext(s->g, a, s->state, pa) +
                           ext(s->g, b, s->state, pa) - ext(s->g, b, s->state, pb) -
                           2 * edges_between(s->g, a, b);
                if (gain > 0) {
                    s->state[a] = pb;
                    s->state[b] = pa;
                    improved = 1;
                }
            }
    }
}

/* ---- the hierarchy ---- */

typedef struct place {
    const ibex_topo_graph_t *g;
    int n;
    int *colour;    /* member_colours */
    int *vertex_of; /* out: per member */
    int *state, *gain, *ident;
    int *scratch; /* per level: sub-group members, vertices, vertex parts, part_of, cap */
} place_t;

static int *scratch(const place_t *pl, int l, int which)
{
    return pl->scratch + ((size_t)l * SCRATCH + (size_t)which) * (size_t)pl->n;
}

/* The sub-groups of members[0..k) at level l: part_of[i] for member i, the count of each
 * part in cap (in order of first appearance); returns the number of parts. */
static int subgroups(const place_t *pl, int l, const int *members, int k, int *part_of, int *cap)
{
    int np = 0;
    for (int i = 0; i < k; i++) {
        int c = pl->colour[l * pl->n + members[i]], p = 0;
        while (p < i && pl->colour[l * pl->n + members[p]] != c)
            p++;
        part_of[i] = p < i ? part_of[p] : np++;
        cap[part_of[i]] = p < i ? cap[part_of[i]] + 1 : 1;
    }
    return np;
}

static void place_group(place_t *pl, int l, const int *members, const int *verts, int k);

/* Splits verts over the sub-groups of members at level l (kept only if it cuts less than
 * the identity split), then places each sub-group at the next level. */
static void place_split(place_t *pl, int l, const int *members, const int *verts, int k,
                        const int *part_of, const int *cap, int np)
{
    split_t s = {pl->g, verts, k, pl->state, pl->gain};
    for (int i = 0; i < k; i++)
        pl->state[verts[i]] = -1;
    grow(&s, cap, np);
    refine(&s);
    for (int i = 0; i < k; i++) /* the identity: the vertex of the i-th member's own rank */
        pl->ident[verts[i]] = part_of[i];
    long cut = cut_of(pl->g, verts, k, pl->state), cut_ident = cut_of(pl->g, verts, k, pl->ident);
    int *which = cut < cut_ident ? pl->state : pl->ident;
    int *part_v = scratch(pl, l, 2); /* which[] is reset below, before the recursion uses it */
    for (int i = 0; i < k; i++)
        part_v[i] = which[verts[i]];
    for (int i = 0; i < k; i++)
        pl->state[verts[i]] = pl->ident[verts[i]] = -2;
    int *sub_m = scratch(pl, l, 0), *sub_v = scratch(pl, l, 1);
    for (int p = 0; p < np; p++) {
        int km = 0, kv = 0;
        for (int i = 0; i < k; i++) {
            if (part_of[i] == p)
                sub_m[km++] = members[i];
            if (part_v[i] == p)
                sub_v[kv++] = verts[i];
        }
        place_group(pl, l + 1, sub_m, sub_v, km);
    }
}

/* members and verts ascending; k of each. */
static void place_group(place_t *pl, int l, const int *members, const int *verts, int k)
{
    int *part_of = l < LEVELS ? scratch(pl, l, 3) : NULL,
        *cap = l < LEVELS ? scratch(pl, l, 4) : NULL;
    int np = l < LEVELS && k <= GROW_MAX ? subgroups(pl, l, members, k, part_of, cap) : 1;
    if (np <= 1 && l < LEVELS && k <= GROW_MAX) {
        place_group(pl, l + 1, members, verts, k);
        return;
    }
    if (np <= 1) { /* a leaf (or too large to split): in order */
        for (int i = 0; i < k; i++)
            pl->vertex_of[members[i]] = verts[i];
        return;
    }
    place_split(pl, l, members, verts, k, part_of, cap, np);
}

ibex_status_t ibex_topo_place(ibex_comm_t *parent, const ibex_topo_graph_t *g, int *vertex_of)
{
    int n = g->n;
    size_t n1 = (size_t)n + 1;
    place_t pl = {g,
                  n,
                  malloc(LEVELS * n1 * sizeof(int)),
                  vertex_of,
                  malloc(n1 * sizeof(int)),
                  malloc(n1 * sizeof(int)),
                  malloc(n1 * sizeof(int)),
                  malloc(LEVELS * SCRATCH * n1 * sizeof(int))};
    int *ids = malloc(n1 * sizeof(int));
    ibex_status_t st = IBEX_ERR_NO_MEMORY;
    if (pl.colour && pl.state && pl.gain && pl.ident && pl.scratch && ids) {
        member_colours(parent, n, pl.colour);
        for (int i = 0; i < n; i++) {
            ids[i] = i;
            pl.state[i] = pl.ident[i] = -2;
        }
        place_group(&pl, 0, ids, ids, n);
        st = IBEX_OK;
    }
    free(pl.colour);
    free(pl.scratch);
    free(pl.state);
    free(pl.gain);
    free(pl.ident);
    free(ids);
    return st;
}

/* ---- the graphs of the topologies ---- */

ibex_topo_graph_t *ibex_topo_graph_of_cart(int ndims, const int *dims, const int *periods)
{
    int n = (int)ibex_topo_cart_size(ndims, dims), np = 0;
    ibex_topo_t *t = ibex_topo_cart_new(ndims, dims, periods, 0);
    int *pairs = malloc(((size_t)n * (size_t)(ndims > 0 ? ndims : 1) + 1) * 2 * sizeof(int));
    ibex_topo_graph_t *g = NULL;
    if (t && pairs) {
        int c[ndims > 0 ? ndims : 1];
        for (int v = 0; v < n; v++) /* the +1 neighbour in each dimension: each edge once */
            for (int d = 0; d < ndims; d++) {
                ibex_topo_cart_coords(t, v, c);
                c[d]++;
                int u = ibex_topo_cart_rank(t, c);
                if (u >= 0 && u != v && !(dims[d] == 2 && c[d] == 2)) {
                    pairs[2 * np] = v;
                    pairs[2 * np++ + 1] = u;
                }
            }
        g = ibex_topo_graph_from_pairs(n, pairs, np);
    }
    free(t);
    free(pairs);
    return g;
}

ibex_topo_graph_t *ibex_topo_graph_of_edges(int nnodes, const int *index, const int *edges)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0, np = 0;
    int *pairs = malloc(((size_t)nedges + 1) * 2 * sizeof(int));
    if (!pairs)
        return NULL;
    for (int v = 0; v < nnodes; v++) /* each edge as its lower end lists it */
        for (int e = v > 0 ? index[v - 1] : 0; e < index[v]; e++)
            if (edges[e] > v) {
                pairs[2 * np] = v;
                pairs[2 * np++ + 1] = edges[e];
            }
    ibex_topo_graph_t *g = ibex_topo_graph_from_pairs(nnodes, pairs, np);
    free(pairs);
    return g;
}
