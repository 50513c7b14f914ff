// TreeSA: simulated annealing on the contraction tree by local rotations.
#include "einsum/treesa.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "einsum/greedy.h"
#include "einsum/random_greedy.h"
#include "einsum/runs.h"
#include "einsum/subtree.h"

// One run's tree: children per internal node (node n + k has child[2k],
// child[2k + 1]), the labels each node keeps, its size and its step's flops.
typedef struct tfr_sa_tree {
  int n;
  int *child;
  int **lab;       // [2n - 1] sorted label ids (leaves: borrowed from the start state)
  int *cnt, *cap;  // counts; capacities of the owned arrays (internal nodes)
  double *size, *flops;
} tfr_sa_tree;

static void tfr_sa_free(tfr_sa_tree *t) {
  for (int i = t->n; t->lab && i < 2 * t->n - 1; i++) tfr_free(t->lab[i]);
  tfr_free(t->child);
  tfr_free(t->lab);
  tfr_free(t->cnt);
  tfr_free(t->cap);
  tfr_free(t->size);
  tfr_free(t->flops);
  memset(t, 0, sizeof *t);
}

// A copy of `src` (its leaf label sets shared); *t is valid to free after a failure.
static bool tfr_sa_copy(tfr_sa_tree *t, const tfr_sa_tree *src) {
  int n = src->n, nodes = 2 * n - 1;
  t->n = n;
  t->child = tfr_alloc(2 * (size_t)n * sizeof(int));
  t->lab = tfr_calloc((size_t)nodes, sizeof(int *));
  t->cnt = tfr_alloc((size_t)nodes * sizeof(int));
  t->cap = tfr_calloc((size_t)nodes, sizeof(int));
  t->size = tfr_alloc((size_t)nodes * sizeof(double));
  t->flops = tfr_alloc((size_t)nodes * sizeof(double));
  if (!t->child || !t->lab || !t->cnt || !t->cap || !t->size || !t->flops) return false;
  memcpy(t->child, src->child, 2 * (size_t)(n - 1) * sizeof(int));
  memcpy(t->cnt, src->cnt, (size_t)nodes * sizeof(int));
  memcpy(t->size, src->size, (size_t)nodes * sizeof(double));
  memcpy(t->flops, src->flops, (size_t)nodes * sizeof(double));
  for (int i = 0; i < nodes; i++) {
    if (i < n) {
      t->lab[i] = src->lab[i];
      continue;
    }
    t->cap[i] = src->cnt[i] + 4;
    t->lab[i] = tfr_alloc((size_t)t->cap[i] * sizeof(int));
    if (!t->lab[i]) return false;
    memcpy(t->lab[i], src->lab[i], (size_t)src->cnt[i] * sizeof(int));
  }
  return true;
}

// The start state from the SSA steps of the start tree (a replay).
static tfr_status tfr_sa_from_ssa(const tfr_net *net, const int *ssa, tfr_sa_tree *t) {
  int n = net->n, nodes = 2 * n - 1;
  t->n = n;
  t->child = tfr_alloc(2 * (size_t)n * sizeof(int));
  t->lab = tfr_calloc((size_t)nodes, sizeof(int *));
  t->cnt = tfr_calloc((size_t)nodes, sizeof(int));
  t->cap = tfr_calloc((size_t)nodes, sizeof(int));
  t->size = tfr_calloc((size_t)nodes, sizeof(double));
  t->flops = tfr_calloc((size_t)nodes, sizeof(double));
  if (!t->child || !t->lab || !t->cnt || !t->cap || !t->size || !t->flops)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (treesa path search)");
  memcpy(t->child, ssa, 2 * (size_t)(n - 1) * sizeof(int));
  return tfr_ssa_labels(net->expr, ssa, t->lab, t->cnt, t->size, t->flops);
}

// Frees the start state: it owns its leaves' label sets too.
static void tfr_sa_free_start(tfr_sa_tree *t) {
  for (int i = 0; t->lab && i < t->n; i++) tfr_free(t->lab[i]);
  tfr_sa_free(t);
}

// The tree's cost in `m`, from its nodes.
static double tfr_sa_score(const tfr_sa_tree *t, tfr_einsum_minimize m, double alpha) {
  tfr_tree_cost c = {0, 0, 0};
  for (int i = t->n; i < 2 * t->n - 1; i++) {
    c.flops += t->flops[i];
    c.write += t->size[i];
    c.size = fmax(c.size, t->size[i]);
  }
  double s = tfr_cost_score(m, alpha, &c);
  return isnan(s) ? INFINITY : s;
}

// a ∪ b (sorted) into out; returns its count, *prod the product of its extents.
static int tfr_sa_union(const int *a, int na, const int *b, int nb, const int64_t *extent,
                        int *out, double *prod) {
  int i = 0, j = 0, c = 0;
  double p = 1;
  while (i < na || j < nb) {
    int l;
    if (j >= nb || (i < na && a[i] < b[j])) l = a[i++];
    else if (i >= na || b[j] < a[i]) l = b[j++];
    else {
      l = a[i++];
      j++;
    }
    out[c++] = l;
    p *= (double)extent[l];
  }
  *prod = p;
  return c;
}

// The labels of u also in a or b (all sorted) into out; returns the count,
// *prod the product of their extents.
static int tfr_sa_keep(const int *u, int nu, const int *a, int na, const int *b, int nb,
                       const int64_t *extent, int *out, double *prod) {
  int i = 0, j = 0, c = 0;
  double p = 1;
  for (int k = 0; k < nu; k++) {
    int l = u[k];
    while (i < na && a[i] < l) i++;
    while (j < nb && b[j] < l) j++;
    if ((i < na && a[i] == l) || (j < nb && b[j] == l)) {
      out[c++] = l;
      p *= (double)extent[l];
    }
  }
  *prod = p;
  return c;
}

// With minimize size, the weight of the flops' log2 change in a proposal's dE.
#define TFR_TREESA_SIZE_FLOPS_WEIGHT 0.5

// The local cost of the two steps x (size sx, flops fx) and v (size sv, flops fv).
static double tfr_sa_local(tfr_einsum_minimize m, double alpha, double sx, double fx, double sv,
                           double fv) {
  switch (m) {
    case TFR_EINSUM_MINIMIZE_SIZE: return fmax(sx, sv);
    case TFR_EINSUM_MINIMIZE_WRITE: return sx;
    case TFR_EINSUM_MINIMIZE_COMBO: return fx + fv + alpha * sx;
    default: return fx + fv;
  }
}

// Scratch of one run: label buffers.
typedef struct tfr_sa_scratch {
  int *u, *k, *w;
} tfr_sa_scratch;

// One proposal at a random internal node; false when out of memory.
static bool tfr_sa_propose(tfr_sa_tree *t, const tfr_net *net, tfr_einsum_minimize m,
                           double alpha, double beta, uint64_t *rng, tfr_sa_scratch *sc) {
  int n = t->n;
  uint64_t bits = tfr_greedy_rand(rng);
  int v = n + (int)((bits >> 2) % (uint64_t)(n - 1));
  int *cv = &t->child[2 * (v - n)];
  int s = (int)(bits & 1);
  if (cv[s] < n) s ^= 1;
  if (cv[s] < n) return true;
  int x = cv[s], c = cv[1 - s], g = (int)((bits >> 1) & 1);
  int *cx = &t->child[2 * (x - n)];
  int moved = cx[g], keep = cx[1 - g];
  double fu, sk, fv;
  int nu = tfr_sa_union(t->lab[keep], t->cnt[keep], t->lab[c], t->cnt[c], net->extent, sc->u, &fu);
  int nk = tfr_sa_keep(sc->u, nu, t->lab[v], t->cnt[v], t->lab[moved], t->cnt[moved], net->extent,
                       sc->k, &sk);
  // v's step: the union of x's new labels and the moved child's.
  tfr_sa_union(sc->k, nk, t->lab[moved], t->cnt[moved], net->extent, sc->w, &fv);
  fv *= 2;
  fu *= 2;
  double before = tfr_sa_local(m, alpha, t->size[x], t->flops[x], t->size[v], t->flops[v]);
  double after = tfr_sa_local(m, alpha, sk, fu, t->size[v], fv);
  double de = log2(fmax(after, DBL_MIN)) - log2(fmax(before, DBL_MIN));
  if (m == TFR_EINSUM_MINIMIZE_SIZE)  // flops break the plateaus of the largest size
    de += TFR_TREESA_SIZE_FLOPS_WEIGHT * (log2(fmax(fu + fv, DBL_MIN)) -
                                          log2(fmax(t->flops[x] + t->flops[v], DBL_MIN)));
  if (isnan(de)) return true;
  if (de > 0 && tfr_greedy_uniform(rng) >= exp(-beta * de)) return true;
  if (nk > t->cap[x]) {
    int cap = 2 * nk;
    int *lab = tfr_alloc((size_t)cap * sizeof(int));
    if (!lab) return false;
    tfr_free(t->lab[x]);
    t->lab[x] = lab;
    t->cap[x] = cap;
  }
  memcpy(t->lab[x], sc->k, (size_t)nk * sizeof(int));
  t->cnt[x] = nk;
  t->size[x] = sk;
  t->flops[x] = fu;
  t->flops[v] = fv;
  cx[0] = keep;
  cx[1] = c;
  cv[1 - s] = moved;
  return true;
}

typedef struct tfr_sa_ctx {
  const tfr_net *net;
  const tfr_einsum_options *o;
  const tfr_sa_tree *start;
  double t0;  // when the search started
} tfr_sa_ctx;

// Run r from the start tree (tfr_run_fn): writes its best tree's children
// to best (int[2(n-1)]) and its score to *score_out.
static bool tfr_sa_run(void *ctx, int r, int *best, double *score_out) {
  const tfr_sa_ctx *cx = ctx;
  const tfr_net *net = cx->net;
  const tfr_einsum_options *o = cx->o;
  const tfr_sa_tree *start = cx->start;
  double t0 = cx->t0;
  int n = net->n;
  size_t L = (size_t)net->num_labels + 1;
  tfr_sa_tree t = {0};
  tfr_sa_scratch sc = {tfr_alloc(L * sizeof(int)), tfr_alloc(L * sizeof(int)),
                       tfr_alloc(L * sizeof(int))};
  double best_score = INFINITY;
  bool ok = sc.u && sc.k && sc.w && tfr_sa_copy(&t, start);
  if (ok) {
    best_score = tfr_sa_score(&t, o->minimize, o->combo_alpha);
    memcpy(best, t.child, 2 * (size_t)(n - 1) * sizeof(int));
  }
  // Odd runs anneal on flops whatever the cost (still keeping the best tree
  // in that cost): a tree of few flops often has small intermediates too.
  tfr_einsum_minimize energy = r % 2 == 1 ? TFR_EINSUM_MINIMIZE_FLOPS : o->minimize;
  // The runs start at three temperatures in turn: hot ones explore, cold
  // ones keep more of the start tree.
  double lo = TFR_TREESA_BETA_LO * (r % 3 == 0 ? 1 : r % 3 == 1 ? 4 : 16);
  uint64_t seed = o->seed, rng = tfr_greedy_rand(&seed) ^ ((uint64_t)(r + 1) * 0x9e3779b97f4a7c15ULL);
  tfr_greedy_rand(&rng);
  for (int sweep = 0; ok && sweep < TFR_TREESA_SWEEPS; sweep++) {
    double beta = lo + (TFR_TREESA_BETA_HI - lo) * sweep / (TFR_TREESA_SWEEPS - 1);
    for (int p = 0; ok && p < n - 1; p++)
      ok = tfr_sa_propose(&t, net, energy, o->combo_alpha, beta, &rng, &sc);
    double score = tfr_sa_score(&t, o->minimize, o->combo_alpha);
    if (ok && score < best_score) {
      best_score = score;
      memcpy(best, t.child, 2 * (size_t)(n - 1) * sizeof(int));
    }
    if (o->max_time > 0 && tfr_path_now() - t0 > o->max_time) break;
  }
  tfr_sa_free(&t);
  tfr_free(sc.u);
  tfr_free(sc.k);
  tfr_free(sc.w);
  *score_out = best_score;
  return ok;
}

tfr_status tfr_treesa(const tfr_net *net, const tfr_einsum_options *o, int *ssa) {
  double t0 = tfr_path_now();
  tfr_einsum_options rg = *o;
  rg.trials = TFR_TREESA_START_TRIALS;
  TFR_RETURN_IF_ERROR(tfr_random_greedy(net, &rg, ssa));
  return tfr_treesa_anneal(net, o, t0, ssa);
}

tfr_status tfr_treesa_anneal(const tfr_net *net, const tfr_einsum_options *o, double t0,
                             int *ssa) {
  int n = net->n, runs = o->trials;
  if (n < 3) return TFR_OK;
  size_t steps = 2 * (size_t)(n - 1);
  tfr_sa_tree start = {0};
  int *win = tfr_alloc(steps * sizeof(int));
  int *cand = tfr_alloc(steps * sizeof(int));
  tfr_status st = tfr_sa_from_ssa(net, ssa, &start);
  if (!st && (!win || !cand))
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (treesa path search)");
  tfr_sa_ctx ctx = {net, o, &start, t0};
  if (!st) st = tfr_best_of_runs(runs, steps, t0, o->max_time, tfr_sa_run, &ctx, win, "treesa");
  // The winner in SSA order, refined, kept only if no worse than the start.
  tfr_tree tree = {n, win};
  if (!st) st = tfr_tree_to_ssa(&tree, cand);
  if (!st)
    st = tfr_subtree_refine(net, o->minimize, o->combo_alpha,
                            o->subtree_size > 0 ? o->subtree_size : TFR_EINSUM_DEFAULT_SUBTREE, t0,
                            o->max_time, cand);
  tfr_tree_cost c0, c1;
  if (!st) st = tfr_ssa_cost(net->expr, ssa, &c0);
  if (!st) st = tfr_ssa_cost(net->expr, cand, &c1);
  if (!st && tfr_cost_score(o->minimize, o->combo_alpha, &c1) <=
                 tfr_cost_score(o->minimize, o->combo_alpha, &c0))
    memcpy(ssa, cand, steps * sizeof(int));
  tfr_sa_free_start(&start);
  tfr_free(win);
  tfr_free(cand);
  return st;
}
