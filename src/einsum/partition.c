// Recursive graph bisection: METIS splits the operands top-down, the parts
// of at most `cutoff` operands get their least-cost tree (optimal.c), and
// the trials with different cutoffs, imbalances and seeds run in parallel.
#include "einsum/partition.h"

#include <math.h>
#include <metis.h>
#include <stdlib.h>
#include <string.h>

#include "einsum/greedy.h"
#include "einsum/optimal.h"
#include "einsum/runs.h"
#include "einsum/subtree.h"

// One trial's state while it builds its tree.
typedef struct tfr_part {
  const tfr_net *net;
  tfr_einsum_minimize m;
  double alpha;
  int cutoff, ufactor;
  uint64_t rng;   // METIS's seeds
  int *child;     // the tree: node n + k has child[2k], child[2k + 1]
  int next;       // the next internal node's id
  int *local;     // int[n]: an operand's index in the marked set, -1 outside it
  int *held;      // int[L]: the label's holders in the marked set
  int *lid;       // int[L]: the label's id in a part's sub-network, -1 none
  int *labs;      // int[L]: the marked set's labels
} tfr_part;

// Marks the set `ops` (m operands): their indices and the holders of their
// labels, whose list goes to p->labs; returns its length.
static int tfr_part_mark(tfr_part *p, const int *ops, int m) {
  const tfr_net *net = p->net;
  int nl = 0;
  for (int i = 0; i < m; i++) {
    p->local[ops[i]] = i;
    for (int k = net->leaf_off[ops[i]]; k < net->leaf_off[ops[i] + 1]; k++) {
      int l = net->leaf_lab[k];
      if (p->held[l]++ == 0) p->labs[nl++] = l;
    }
  }
  return nl;
}

static void tfr_part_unmark(tfr_part *p, const int *ops, int m, int nl) {
  for (int i = 0; i < m; i++) p->local[ops[i]] = -1;
  for (int j = 0; j < nl; j++) {
    p->held[p->labs[j]] = 0;
    p->lid[p->labs[j]] = -1;
  }
}

// Contracts the part `ops` (m operands) by its tree of least cost
// (optimal; greedy above TFR_EINSUM_OPTIMAL_MAX operands), its labels held
// outside it or by the output counted as kept; *root = the part's node.
static tfr_status tfr_part_leaf(tfr_part *p, const int *ops, int m, int *root) {
  const tfr_net *net = p->net;
  if (m == 1) {
    *root = ops[0];
    return TFR_OK;
  }
  int nl = tfr_part_mark(p, ops, m);
  size_t axes = 0;
  for (int i = 0; i < m; i++) axes += (size_t)(net->leaf_off[ops[i] + 1] - net->leaf_off[ops[i]]);
  int *ranks = tfr_alloc((size_t)m * sizeof(int));
  int **labels = tfr_alloc((size_t)m * sizeof(int *));
  int *flat = tfr_alloc((axes + 1) * sizeof(int));
  int64_t *extent = tfr_alloc(((size_t)nl + 1) * sizeof(int64_t));
  int *out = tfr_alloc(((size_t)nl + 1) * sizeof(int));
  int *ssa = tfr_alloc(2 * (size_t)m * sizeof(int));
  int *made = tfr_alloc((size_t)m * sizeof(int));
  tfr_status st = TFR_OK;
  if (!ranks || !labels || !flat || !extent || !out || !ssa || !made)
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (partition path search)");
  tfr_einsum_expr se = {0};
  if (!st) {
    int nout = 0;
    for (int j = 0; j < nl; j++) {
      int l = p->labs[j];
      p->lid[l] = j;
      extent[j] = net->extent[l];
      if (net->total[l] > p->held[l]) out[nout++] = j;  // leaves the part
    }
    size_t off = 0;
    for (int i = 0; i < m; i++) {
      labels[i] = flat + off;
      ranks[i] = net->leaf_off[ops[i] + 1] - net->leaf_off[ops[i]];
      for (int k = net->leaf_off[ops[i]]; k < net->leaf_off[ops[i] + 1]; k++)
        flat[off++] = p->lid[net->leaf_lab[k]];
    }
    se = (tfr_einsum_expr){.n = m, .ranks = ranks, .labels = labels, .num_out = nout,
                           .out_labels = out, .num_labels = nl, .extent = extent};
  }
  tfr_part_unmark(p, ops, m, nl);
  tfr_net sub;
  memset(&sub, 0, sizeof sub);
  if (!st) st = tfr_net_init(&sub, &se);
  if (!st)
    st = m <= TFR_EINSUM_OPTIMAL_MAX
             ? tfr_optimal(&sub, p->m, p->alpha, ssa)
             : tfr_greedy_run(&sub, &(tfr_greedy_params){1, 0, NULL, false}, ssa, NULL);
  tfr_net_free(&sub);
  int n = net->n;
  for (int k = 0; !st && k < m - 1; k++) {
    int g = p->next++;
    for (int s = 0; s < 2; s++) {
      int a = ssa[2 * k + s];
      p->child[2 * (g - n) + s] = a < m ? ops[a] : made[a - m];
    }
    made[k] = g;
  }
  if (!st) *root = made[m - 2];
  tfr_free(ranks);
  tfr_free(labels);
  tfr_free(flat);
  tfr_free(extent);
  tfr_free(out);
  tfr_free(ssa);
  tfr_free(made);
  return st;
}

// A directed edge of the bisection graph.
typedef struct tfr_part_edge {
  int u, v, w;
} tfr_part_edge;

static int tfr_part_edge_cmp(const void *x, const void *y) {
  const tfr_part_edge *a = x, *b = y;
  if (a->u != b->u) return (a->u > b->u) - (a->u < b->u);
  return (a->v > b->v) - (a->v < b->v);
}

static void tfr_part_add(tfr_part_edge *e, size_t *ne, int u, int v, int w) {
  e[(*ne)++] = (tfr_part_edge){u, v, w};
  e[(*ne)++] = (tfr_part_edge){v, u, w};
}

// Bisects the set `ops` (m operands) by METIS, reordering it so that the
// first *na are one side; *na is 0 when METIS cannot split it (no edge, an
// input it refuses, an empty side).
static tfr_status tfr_part_bisect(tfr_part *p, int *ops, int m, int *na) {
  const tfr_net *net = p->net;
  *na = 0;
  int nl = tfr_part_mark(p, ops, m);
  size_t ne = 0;
  for (int j = 0; j < nl; j++) {
    size_t k = (size_t)p->held[p->labs[j]];
    if (k >= 2) ne += k <= TFR_PARTITION_CLIQUE_MAX ? k * (k - 1) : 2 * k;
  }
  if (ne == 0) {
    tfr_part_unmark(p, ops, m, nl);
    return TFR_OK;
  }
  tfr_part_edge *e = tfr_alloc(ne * sizeof(tfr_part_edge));
  int *hs = tfr_alloc((size_t)m * sizeof(int));
  idx_t *xadj = tfr_alloc(((size_t)m + 1) * sizeof(idx_t));
  idx_t *adjncy = tfr_alloc(ne * sizeof(idx_t));
  idx_t *adjwgt = tfr_alloc(ne * sizeof(idx_t));
  idx_t *part = tfr_alloc(((size_t)m + 1) * sizeof(idx_t));
  int *tmp = tfr_alloc((size_t)m * sizeof(int));
  tfr_status st = TFR_OK;
  if (!e || !hs || !xadj || !adjncy || !adjwgt || !part || !tmp)
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (partition path search)");
  size_t cnt = 0;
  for (int j = 0; !st && j < nl; j++) {
    int l = p->labs[j], k = 0;
    if (p->held[l] < 2) continue;
    for (int h = net->hold_off[l]; h < net->hold_off[l + 1]; h++)
      if (p->local[net->hold[h]] >= 0) hs[k++] = p->local[net->hold[h]];
    int w = (int)lround(log2((double)net->extent[l]) * TFR_PARTITION_WEIGHT_SCALE) + 1;
    if (k <= TFR_PARTITION_CLIQUE_MAX) {
      int wc = w / (k - 1) > 0 ? w / (k - 1) : 1;
      for (int a = 0; a < k; a++)
        for (int b = a + 1; b < k; b++) tfr_part_add(e, &cnt, hs[a], hs[b], wc);
    } else {
      for (int a = 0; a < k; a++) tfr_part_add(e, &cnt, hs[a], hs[(a + 1) % k], w);
    }
  }
  tfr_part_unmark(p, ops, m, nl);
  if (!st) {
    qsort(e, cnt, sizeof *e, tfr_part_edge_cmp);
    size_t c = 0;  // merged edges
    int u = 0;
    xadj[0] = 0;
    for (size_t i = 0; i < cnt; i++) {
      if (c > 0 && e[i].u == e[i - 1].u && e[i].v == e[i - 1].v) {
        adjwgt[c - 1] += e[i].w;
        continue;
      }
      while (u < e[i].u) xadj[++u] = (idx_t)c;
      adjncy[c] = e[i].v;
      adjwgt[c++] = e[i].w;
    }
    while (u < m) xadj[++u] = (idx_t)c;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = (idx_t)(tfr_greedy_rand(&p->rng) >> 34);
    options[METIS_OPTION_UFACTOR] = p->ufactor;
    idx_t nv = m, ncon = 1, nparts = 2, objval = 0;
    int rc;
    // METIS's generator is process-wide state: one call at a time.
#pragma omp critical(tfr_metis)
    rc = METIS_PartGraphRecursive(&nv, &ncon, xadj, adjncy, NULL, NULL, adjwgt, &nparts, NULL,
                                  NULL, options, &objval, part);
    if (rc == METIS_ERROR_MEMORY)
      st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (METIS, partition path "
                     "search)");
    else if (rc == METIS_OK) {
      int a = 0, b = 0;
      for (int i = 0; i < m; i++)
        if (part[i] == 0) ops[a++] = ops[i];  // a <= i: in place for side 0
        else tmp[b++] = ops[i];
      memcpy(ops + a, tmp, (size_t)b * sizeof(int));
      *na = a;
    }
  }
  tfr_free(e);
  tfr_free(hs);
  tfr_free(xadj);
  tfr_free(adjncy);
  tfr_free(adjwgt);
  tfr_free(part);
  tfr_free(tmp);
  return st;
}

// Builds the subtree over `ops` (m >= 1 operands, reordered); *root = its node.
static tfr_status tfr_part_build(tfr_part *p, int *ops, int m, int *root) {
  if (m <= p->cutoff) return tfr_part_leaf(p, ops, m, root);
  int na;
  TFR_RETURN_IF_ERROR(tfr_part_bisect(p, ops, m, &na));
  if (na <= 0 || na >= m) return tfr_part_leaf(p, ops, m, root);  // greedy
  int a, b;
  TFR_RETURN_IF_ERROR(tfr_part_build(p, ops, na, &a));
  TFR_RETURN_IF_ERROR(tfr_part_build(p, ops + na, m - na, &b));
  int g = p->next++, n = p->net->n;
  p->child[2 * (g - n)] = a;
  p->child[2 * (g - n) + 1] = b;
  *root = g;
  return TFR_OK;
}

typedef struct tfr_part_ctx {
  const tfr_net *net;
  const tfr_einsum_options *o;
} tfr_part_ctx;

// Trial t (tfr_run_fn): its tree's SSA steps to out, its cost to *score.
static bool tfr_part_trial(void *ctx, int t, int *out, double *score) {
  const tfr_net *net = ((tfr_part_ctx *)ctx)->net;
  const tfr_einsum_options *o = ((tfr_part_ctx *)ctx)->o;
  int n = net->n, L = net->num_labels;
  tfr_part p = {net, o->minimize, o->combo_alpha, TFR_PARTITION_CUTOFF, TFR_PARTITION_UFACTOR,
                0, NULL, n, NULL, NULL, NULL, NULL};
  uint64_t s = o->seed;
  p.rng = tfr_greedy_rand(&s) ^ ((uint64_t)t * 0xd1b54a32d192ed03ULL);
  tfr_greedy_rand(&p.rng);
  if (t > 0) {
    p.cutoff = TFR_PARTITION_CUTOFF_MIN +
               (int)(tfr_greedy_rand(&p.rng) %
                     (uint64_t)(TFR_PARTITION_CUTOFF_MAX - TFR_PARTITION_CUTOFF_MIN + 1));
    p.ufactor = (int)lround(TFR_PARTITION_UFACTOR_MIN *
                            exp(tfr_greedy_uniform(&p.rng) *
                                log((double)TFR_PARTITION_UFACTOR_MAX / TFR_PARTITION_UFACTOR_MIN)));
  }
  p.child = tfr_alloc(2 * (size_t)n * sizeof(int));
  p.local = tfr_alloc((size_t)n * sizeof(int));
  p.held = tfr_calloc((size_t)L + 1, sizeof(int));
  p.lid = tfr_alloc(((size_t)L + 1) * sizeof(int));
  p.labs = tfr_alloc(((size_t)L + 1) * sizeof(int));
  int *ops = tfr_alloc((size_t)n * sizeof(int));
  bool ok = p.child && p.local && p.held && p.lid && p.labs && ops;
  if (ok) {
    for (int i = 0; i < n; i++) p.local[i] = -1, ops[i] = i;
    for (int l = 0; l < L; l++) p.lid[l] = -1;
    int root;
    tfr_tree tree = {n, p.child};
    tfr_tree_cost c;
    ok = tfr_part_build(&p, ops, n, &root) == TFR_OK && tfr_tree_to_ssa(&tree, out) == TFR_OK &&
         tfr_ssa_cost(net->expr, out, &c) == TFR_OK;
    if (ok) *score = tfr_cost_score(o->minimize, o->combo_alpha, &c);
  }
  tfr_free(p.child);
  tfr_free(p.local);
  tfr_free(p.held);
  tfr_free(p.lid);
  tfr_free(p.labs);
  tfr_free(ops);
  return ok;
}

tfr_status tfr_partition(const tfr_net *net, const tfr_einsum_options *o, int *ssa) {
  int n = net->n;
  double t0 = tfr_path_now();
  tfr_part_ctx ctx = {net, o};
  // Up to the smallest cutoff every trial is the one least-cost tree.
  int runs = n <= TFR_PARTITION_CUTOFF_MIN ? 1 : o->trials;
  TFR_RETURN_IF_ERROR(tfr_best_of_runs(runs, 2 * (size_t)(n > 1 ? n - 1 : 1), t0, o->max_time,
                                       tfr_part_trial, &ctx, ssa, "partition"));
  if (n <= TFR_PARTITION_CUTOFF_MIN) return TFR_OK;
  TFR_RETURN_IF_ERROR(tfr_subtree_refine(
      net, o->minimize, o->combo_alpha,
      o->subtree_size > 0 ? o->subtree_size : TFR_EINSUM_DEFAULT_SUBTREE, t0, o->max_time, ssa));
  // Bisection can lose to greedy (a batch label held by every operand,
  // long strips): greedy's tree is kept when it costs less.
  size_t steps = 2 * (size_t)(n - 1);
  int *g = tfr_alloc(steps * sizeof(int));
  if (!g) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (partition path search)");
  tfr_tree_cost cg, cp;
  tfr_status st = tfr_greedy_run(net, &(tfr_greedy_params){1, 0, NULL, false}, g, &cg);
  if (!st) st = tfr_ssa_cost(net->expr, ssa, &cp);
  if (!st && tfr_cost_score(o->minimize, o->combo_alpha, &cg) <
                 tfr_cost_score(o->minimize, o->combo_alpha, &cp))
    memcpy(ssa, g, steps * sizeof(int));
  tfr_free(g);
  return st;
}
