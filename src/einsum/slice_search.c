// The joint search of a contraction tree and its sliced labels for a memory
// budget (slice_search.h). Candidates are (tree, labels) pairs that fit;
// the one of least sliced flops (all slices together) wins:
//   1. the optimiser's tree with tfr_einsum_plan_slice_to_fit's labels (the
//      answer without this search: never beaten by a worse one), and with
//      labels of the greedy picker's other rule (the fewest flops added);
//      the same tree with its steps reordered for memory (tfr_ss_order),
//      when that lowers it (so do the trees of 3);
//   2. each candidate's labels improved by local moves: drop a label that is
//      not needed, or drop one and let the greedy picker refill (with it
//      banned), or swap one for a label of a large intermediate;
//   3. rounds over a pool of the best tree of each of the
//      TFR_SLICE_SEARCH_POOL cheapest label sets found, each entry in turn
//      and four kinds of rounds in turn: its tree is annealed by treesa (a)
//      on the network of one slice (the entry's labels' extents set to 1)
//      minimising its flops, (b) on the whole network minimising the
//      largest intermediate, (c) as (a) but from random-greedy's tree, (d)
//      as (b) minimising combo (flops + 64 x the intermediates' sizes); the
//      new tree's labels are picked anew (extending the entry's, and from
//      none) and improved as in 2.
// Rounds stop after TFR_SLICE_SEARCH_ROUNDS, after TFR_SLICE_SEARCH_STALE
// rounds per pool entry without improvement, or when the time budget is
// spent (max_time, or else TFR_EINSUM_AUTO_DEFAULT_TIME, and auto's early stop:
// the best sliced flops would contract in less time than the search has
// taken).
#include "einsum/slice_search.h"

#include <math.h>
#include <string.h>

#include "einsum/slice.h"
#include "einsum/tree.h"
#include "einsum/treesa.h"

// Rounds of re-optimisation at most, and without improvement at most.
#define TFR_SLICE_SEARCH_ROUNDS 16
#define TFR_SLICE_SEARCH_STALE 4
// Label sets whose trees the rounds re-optimise in turn.
#define TFR_SLICE_SEARCH_POOL 3
// TreeSA runs per round.
#define TFR_SLICE_SEARCH_RUNS 4
// Local-move passes over one candidate's labels at most.
#define TFR_SLICE_SEARCH_PASSES 8
// The contraction rate auto's early stop assumes (auto.c): 10 GFLOP/s.
#define TFR_SLICE_SEARCH_FLOP_RATE 1e10

// A tree as a skeleton plan (the fields tfr_slice_eval reads).
typedef struct tfr_ss_tree {
  tfr_einsum_plan p;
  int *ssa;
  bool usable;  // every intermediate within TFR_MAX_RANK labels and the size limits
} tfr_ss_tree;

static void tfr_ss_tree_free(tfr_ss_tree *t) {
  for (int i = 0; t->p.node_labels && i < t->p.num_nodes; i++) tfr_free(t->p.node_labels[i]);
  tfr_free(t->p.node_labels);
  tfr_free(t->p.node_count);
  tfr_free(t->p.consumer);
  tfr_free(t->p.step_flops);
  tfr_free(t->ssa);
  memset(t, 0, sizeof *t);
}

// Builds the skeleton of the SSA steps `ssa` over e's operands; *t is valid
// to free after a failure.
static tfr_status tfr_ss_tree_build(const tfr_einsum_expr *e, const int *ssa, int64_t max_inter,
                                    tfr_ss_tree *t) {
  memset(t, 0, sizeof *t);
  int n = e->n, nodes = 2 * n - 1;
  t->p.expr = *e;  // borrowed: never freed through t
  t->p.num_steps = n - 1;
  t->p.num_nodes = nodes;
  t->p.node_labels = tfr_calloc((size_t)nodes, sizeof(int *));
  t->p.node_count = tfr_calloc((size_t)nodes, sizeof(int));
  t->p.consumer = tfr_alloc((size_t)nodes * sizeof(int));
  t->p.step_flops = tfr_calloc((size_t)n, sizeof(double));
  t->ssa = tfr_alloc(2 * (size_t)n * sizeof(int));
  double *size = tfr_calloc((size_t)nodes, sizeof(double));
  double *flops = tfr_calloc(2 * (size_t)n, sizeof(double));
  tfr_status st = TFR_OK;
  if (!t->p.node_labels || !t->p.node_count || !t->p.consumer || !t->p.step_flops || !t->ssa ||
      !size || !flops)
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (slicing search)");
  if (!st) st = tfr_ssa_labels(e, ssa, t->p.node_labels, t->p.node_count, size, flops);
  if (!st) {
    memcpy(t->ssa, ssa, 2 * (size_t)(n - 1) * sizeof(int));
    t->p.step_inputs = t->ssa;  // SSA ids: each step's two inputs
    t->usable = true;
    for (int i = 0; i < nodes; i++) t->p.consumer[i] = -1;
    for (int k = 0; k < n - 1; k++) {
      t->p.consumer[ssa[2 * k]] = t->p.consumer[ssa[2 * k + 1]] = k;
      t->p.step_flops[k] = flops[n + k];
    }
    for (int i = n; i < nodes; i++)
      if (t->p.node_count[i] > TFR_MAX_RANK || size[i] > (double)TFR_MAX_NUMEL ||
          (max_inter > 0 && size[i] > (double)max_inter))
        t->usable = false;
  }
  tfr_free(size);
  tfr_free(flops);
  return st;
}

// The same tree with its steps in the order of least memory: at each step
// the child whose subtree needs more memory (its intermediates alive at
// its worst step, operands aside) is contracted first, the other's result
// waiting less (the flops do not change). Writes SSA steps to out.
static tfr_status tfr_ss_order(const tfr_ss_tree *t, int *out) {
  const tfr_einsum_expr *e = &t->p.expr;
  int n = e->n, nodes = 2 * n - 1;
  double *size = tfr_calloc((size_t)nodes, sizeof(double));
  double *need = tfr_calloc((size_t)nodes, sizeof(double));
  tfr_tree tree = {n, tfr_alloc(2 * (size_t)n * sizeof(int))};
  tfr_status st = TFR_OK;
  if (!size || !need || !tree.child)
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (slicing search)");
  for (int k = 0; !st && k < n - 1; k++) {
    int v = n + k, a = t->ssa[2 * k], b = t->ssa[2 * k + 1];
    size[v] = 1;
    for (int i = 0; i < t->p.node_count[v]; i++) size[v] *= (double)e->extent[t->p.node_labels[v][i]];
    double all = size[a] + size[b] + size[v];  // operands count 0: held anyway
    double ab = fmax(fmax(need[a], size[a] + need[b]), all);
    double ba = fmax(fmax(need[b], size[b] + need[a]), all);
    need[v] = fmin(ab, ba);
    tree.child[2 * k] = ba < ab ? b : a;
    tree.child[2 * k + 1] = ba < ab ? a : b;
  }
  if (!st) st = tfr_tree_to_ssa(&tree, out);
  tfr_free(size);
  tfr_free(need);
  tfr_tree_free(&tree);
  return st;
}

// As tfr_ss_tree_build, then the steps reordered by tfr_ss_order when that
// lowers the unsliced memory.
static tfr_status tfr_ss_tree_build_ordered(const tfr_einsum_expr *e, const int *ssa,
                                            int64_t max_inter, tfr_ss_tree *t) {
  TFR_RETURN_IF_ERROR(tfr_ss_tree_build(e, ssa, max_inter, t));
  int n = e->n;
  if (n < 3) return TFR_OK;
  int *order = tfr_alloc(2 * (size_t)n * sizeof(int));
  if (!order) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (slicing search)");
  tfr_ss_tree u;
  memset(&u, 0, sizeof u);
  tfr_status st = tfr_ss_order(t, order);
  if (!st) st = tfr_ss_tree_build(e, order, max_inter, &u);
  if (!st) {
    tfr_slice_figures a, b;
    tfr_slice_eval(&t->p, NULL, 0, &a);
    tfr_slice_eval(&u.p, NULL, 0, &b);
    if (b.peak < a.peak) {
      tfr_ss_tree x = *t;
      *t = u;
      u = x;
    }
  }
  tfr_ss_tree_free(&u);
  tfr_free(order);
  return st;
}

// The search's state: the budget, the clock and the best candidate.
typedef struct tfr_ss {
  const tfr_einsum_expr *e;
  const tfr_einsum_options *o;
  double budget;         // elements
  double start, limit;   // tfr_path_now at the start; seconds (0: no limit)
  bool early_stop;       // auto's: stop once the best would contract faster than the search took
  bool have;
  // The candidates kept: the best tree of each of a few label sets (the
  // rounds re-optimise each in turn), pool[best] the least sliced flops.
  struct {
    int *ssa;
    int sl[TFR_EINSUM_MAX_SLICED], ns;
    double flops;
  } pool[TFR_SLICE_SEARCH_POOL];
  int pool_n, best;
  double best_flops;
  bool *mark;            // bool[num_labels], scratch: banned or candidate labels
} tfr_ss;

static bool tfr_ss_out_of_time(const tfr_ss *s) {
  if (s->limit <= 0 && !s->early_stop) return false;
  double spent = tfr_path_now() - s->start;
  if (s->limit > 0 && spent >= s->limit) return true;
  return s->early_stop && s->have && s->best_flops / TFR_SLICE_SEARCH_FLOP_RATE < spent;
}

static bool tfr_ss_member(const int *sl, int ns, int l);

// Keeps (t, sl) when it fits: in place of the pool's entry of the same
// labels when cheaper, else as a new entry (in place of the costliest when
// the pool is full and it is cheaper).
static void tfr_ss_offer(tfr_ss *s, const tfr_ss_tree *t, const int *sl, int ns,
                         const tfr_slice_figures *f) {
  if (!t->usable || !(f->peak <= s->budget)) return;
  int at = -1, worst = 0;
  for (int i = 0; i < s->pool_n && at < 0; i++) {
    bool same = s->pool[i].ns == ns;
    for (int j = 0; same && j < ns; j++) same = tfr_ss_member(s->pool[i].sl, ns, sl[j]);
    if (same) at = i;
    if (s->pool[i].flops > s->pool[worst].flops) worst = i;
  }
  if (at >= 0 && !(f->flops < s->pool[at].flops)) return;
  if (at < 0 && s->pool_n < TFR_SLICE_SEARCH_POOL) at = s->pool_n++;
  if (at < 0 && f->flops < s->pool[worst].flops) at = worst;
  if (at < 0) return;
  int n = s->e->n;
  memcpy(s->pool[at].ssa, t->ssa, 2 * (size_t)(n > 1 ? n - 1 : 0) * sizeof(int));
  memcpy(s->pool[at].sl, sl, (size_t)ns * sizeof(int));
  s->pool[at].ns = ns;
  s->pool[at].flops = f->flops;
  s->have = true;
  s->best = 0;
  for (int i = 1; i < s->pool_n; i++)
    if (s->pool[i].flops < s->pool[s->best].flops) s->best = i;
  s->best_flops = s->pool[s->best].flops;
}

static bool tfr_ss_member(const int *sl, int ns, int l) {
  for (int j = 0; j < ns; j++)
    if (sl[j] == l) return true;
  return false;
}

// Improves the fitting labels sl[0 .. *ns) of tree t by local moves (drop,
// drop and refill, swap), each kept when it fits with fewer flops (a drop:
// no more flops); *f holds their figures.
static void tfr_ss_improve(tfr_ss *s, const tfr_ss_tree *t, int *sl, int *ns,
                           tfr_slice_figures *f) {
  const tfr_einsum_expr *e = s->e;
  int L = e->num_labels, n = e->n;
  int trial[TFR_EINSUM_MAX_SLICED], tn;
  tfr_slice_figures g;
  for (int pass = 0; pass < TFR_SLICE_SEARCH_PASSES && !tfr_ss_out_of_time(s); pass++) {
    bool better = false;
    // Drops.
    for (int j = 0; j < *ns; j++) {
      tn = 0;
      for (int q = 0; q < *ns; q++)
        if (q != j) trial[tn++] = sl[q];
      tfr_slice_eval(&t->p, trial, tn, &g);
      if (g.peak <= s->budget && g.flops <= f->flops) {
        memcpy(sl, trial, (size_t)tn * sizeof(int));
        *ns = tn;
        *f = g;
        better = true;
        j--;
      }
    }
    // Drop one and refill greedily without it (both picking rules).
    for (int j = 0; j < *ns && !tfr_ss_out_of_time(s); j++)
      for (int rule = 0; rule < 2; rule++) {
        tn = 0;
        for (int q = 0; q < *ns; q++)
          if (q != j) trial[tn++] = sl[q];
        memset(s->mark, 0, (size_t)L * sizeof(bool));
        s->mark[sl[j]] = true;
        if (tfr_slice_extend(&t->p, s->budget, s->mark, rule == 0 ? 1.0 : 0.0, trial, &tn, &g) &&
            g.flops < f->flops) {
          memcpy(sl, trial, (size_t)tn * sizeof(int));
          *ns = tn;
          *f = g;
          better = true;
          break;
        }
      }
    // Swaps: a sliced label for one of an intermediate larger than the budget
    // allows unsliced.
    memset(s->mark, 0, (size_t)L * sizeof(bool));  // here: the candidates
    for (int v = n; v < 2 * n - 1; v++) {
      double x = 1;
      for (int i = 0; i < t->p.node_count[v]; i++) x *= (double)e->extent[t->p.node_labels[v][i]];
      if (x * 2 > s->budget)
        for (int i = 0; i < t->p.node_count[v]; i++) s->mark[t->p.node_labels[v][i]] = true;
    }
    for (int j = 0; j < *ns && !tfr_ss_out_of_time(s); j++)
      for (int c = 0; c < L; c++) {
        if (!s->mark[c] || e->extent[c] <= 1 || tfr_ss_member(sl, *ns, c)) continue;
        memcpy(trial, sl, (size_t)*ns * sizeof(int));
        trial[j] = c;
        tfr_slice_eval(&t->p, trial, *ns, &g);
        if (g.peak <= s->budget && g.flops < f->flops) {
          sl[j] = c;
          *f = g;
          better = true;
        }
      }
    if (!better) break;
  }
}

// Picks labels for tree t: extending start[0 .. start_n) with both rules and
// from none with both, each improved and offered. Returns whether any fit.
static bool tfr_ss_try_tree(tfr_ss *s, const tfr_ss_tree *t, const int *start, int start_n) {
  bool any = false;
  for (int from = 0; from < (start_n > 0 ? 2 : 1); from++)
    for (int rule = 0; rule < 2; rule++) {
      int sl[TFR_EINSUM_MAX_SLICED], ns = from == 0 ? 0 : start_n;
      if (ns) memcpy(sl, start, (size_t)ns * sizeof(int));
      tfr_slice_figures f;
      if (!tfr_slice_extend(&t->p, s->budget, NULL, rule == 0 ? 1.0 : 0.0, sl, &ns, &f)) continue;
      any = true;
      // The first candidate is tfr_einsum_plan_slice_to_fit's own answer:
      // offered before any improvement, so that nothing worse can win.
      tfr_ss_offer(s, t, sl, ns, &f);
      tfr_ss_improve(s, t, sl, &ns, &f);
      tfr_ss_offer(s, t, sl, ns, &f);
    }
  return any;
}

// One round: a new tree for the network of one slice of the best candidate.
static tfr_status tfr_ss_round(tfr_ss *s, int round, bool *improved) {
  const tfr_einsum_expr *e = s->e;
  int n = e->n;
  *improved = false;
  int from = round % s->pool_n, kind = (round / s->pool_n) % 4;
  tfr_einsum_expr one = *e;  // borrowed arrays but the extents
  int64_t *ext = tfr_alloc(((size_t)e->num_labels + 1) * sizeof(int64_t));
  int *cand = tfr_alloc(2 * (size_t)n * sizeof(int));
  int cur[TFR_EINSUM_MAX_SLICED], cur_n = s->pool[from].ns;
  memcpy(cur, s->pool[from].sl, (size_t)cur_n * sizeof(int));
  tfr_net net;
  memset(&net, 0, sizeof net);
  tfr_ss_tree t;
  memset(&t, 0, sizeof t);
  tfr_status st = TFR_OK;
  if (!ext || !cand) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (slicing search)");
  if (!st) {
    memcpy(ext, e->extent, (size_t)e->num_labels * sizeof(int64_t));
    if (kind != 1 && kind != 3)
      for (int j = 0; j < cur_n; j++) ext[cur[j]] = 1;
    one.extent = ext;
    st = tfr_net_init(&net, &one);
  }
  if (!st) {
    tfr_einsum_options r = *s->o;
    r.minimize = kind == 1 ? TFR_EINSUM_MINIMIZE_SIZE
                 : kind == 3 ? TFR_EINSUM_MINIMIZE_COMBO : TFR_EINSUM_MINIMIZE_FLOPS;
    r.combo_alpha = TFR_EINSUM_DEFAULT_COMBO_ALPHA;
    r.trials = TFR_SLICE_SEARCH_RUNS;
    r.subtree_size = 0;
    r.seed = s->o->seed + (uint64_t)(round + 1) * 0x9e3779b97f4a7c15ULL;
    r.max_time = 0;
    if (s->limit > 0) {
      r.max_time = s->limit - (tfr_path_now() - s->start);
      if (r.max_time <= 0) r.max_time = 1e-9;
    }
    memcpy(cand, s->pool[from].ssa, 2 * (size_t)(n - 1) * sizeof(int));
    st = kind == 2 ? tfr_treesa(&net, &r, cand) : tfr_treesa_anneal(&net, &r, tfr_path_now(), cand);
  }
  if (!st) st = tfr_ss_tree_build_ordered(e, cand, s->o->max_intermediate_elements, &t);
  if (!st && t.usable) {
    double before = s->best_flops;
    tfr_ss_try_tree(s, &t, cur, cur_n);
    *improved = s->best_flops < before;
  }
  tfr_ss_tree_free(&t);
  tfr_net_free(&net);
  tfr_free(ext);
  tfr_free(cand);
  return st;
}

tfr_status tfr_slice_search(const tfr_einsum_expr *e, const tfr_einsum_options *o, int *ssa,
                            int *sl, int *ns) {
  *ns = 0;
  int n = e->n;
  tfr_ss s;
  memset(&s, 0, sizeof s);
  s.e = e;
  s.o = o;
  s.budget = o->max_slice_elements;
  s.start = tfr_path_now();
  // Every optimiser's search is bounded: without max_time the rounds of a
  // network of thousands of operands took many minutes.
  s.limit = o->max_time > 0 ? o->max_time : TFR_EINSUM_AUTO_DEFAULT_TIME;
  s.early_stop = o->path_kind == TFR_EINSUM_PATH_AUTO;
  tfr_ss_tree t0;
  tfr_status st = tfr_ss_tree_build(e, ssa, 0, &t0);
  tfr_slice_figures f;
  if (!st) {
    tfr_slice_eval(&t0.p, NULL, 0, &f);
    if (f.peak <= s.budget) {  // fits unsliced: the optimiser's tree stays
      tfr_ss_tree_free(&t0);
      return TFR_OK;
    }
  }
  bool pool_ok = true;
  for (int i = 0; i < TFR_SLICE_SEARCH_POOL; i++) {
    s.pool[i].ssa = tfr_alloc(2 * (size_t)n * sizeof(int));
    pool_ok = pool_ok && s.pool[i].ssa;
  }
  s.mark = tfr_calloc((size_t)e->num_labels + 1, sizeof(bool));
  if (!st && (!pool_ok || !s.mark))
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (slicing search)");
  if (!st) {
    // The operands and the output are held whole by every slice.
    double held = 0, out = 1;
    for (int i = 0; i < n; i++) {
      double x = 1;
      for (int k = 0; k < t0.p.node_count[i]; k++) x *= (double)e->extent[t0.p.node_labels[i][k]];
      held += x;
    }
    for (int j = 0; j < e->num_out; j++) out *= (double)e->extent[e->out_labels[j]];
    if (held + out > s.budget)
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: no slicing fits %.4g elements: the operands and the output alone "
                     "need %.4g (every slice holds them whole)", s.budget, held + out);
  }
  if (!st) tfr_ss_try_tree(&s, &t0, NULL, 0);
  if (!st) {  // the optimiser's tree in the order of least memory
    tfr_ss_tree t2;
    st = tfr_ss_tree_build_ordered(e, ssa, o->max_intermediate_elements, &t2);
    if (!st && t2.usable) tfr_ss_try_tree(&s, &t2, NULL, 0);
    tfr_ss_tree_free(&t2);
  }
  if (!st && !s.have) {
    // The optimiser's tree cannot be sliced to fit; one minimising the
    // largest intermediate may be.
    tfr_net net;
    st = tfr_net_init(&net, e);
    int *cand = tfr_alloc(2 * (size_t)n * sizeof(int));
    if (!st && !cand) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (slicing search)");
    if (!st) {
      tfr_einsum_options r = *o;
      r.minimize = TFR_EINSUM_MINIMIZE_SIZE;
      r.trials = TFR_SLICE_SEARCH_RUNS;
      r.subtree_size = 0;
      r.max_time = s.limit;
      memcpy(cand, ssa, 2 * (size_t)(n - 1) * sizeof(int));
      st = tfr_treesa_anneal(&net, &r, tfr_path_now(), cand);
    }
    tfr_ss_tree t1;
    memset(&t1, 0, sizeof t1);
    if (!st) st = tfr_ss_tree_build_ordered(e, cand, o->max_intermediate_elements, &t1);
    if (!st && t1.usable) tfr_ss_try_tree(&s, &t1, NULL, 0);
    tfr_ss_tree_free(&t1);
    tfr_free(cand);
    tfr_net_free(&net);
    if (!st && !s.have) {
      int tl[TFR_EINSUM_MAX_SLICED], tn = 0;
      tfr_slice_extend(&t0.p, s.budget, NULL, 1, tl, &tn, &f);
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: no slicing fits %.4g elements: with %d label(s) sliced one slice "
                     "still needs %.4g elements, and no label lowers it further", s.budget, tn,
                     f.peak);
    }
  }
  tfr_ss_tree_free(&t0);
  int stale = 0;
  for (int round = 0; !st && n > 2 && round < TFR_SLICE_SEARCH_ROUNDS &&
                      stale < TFR_SLICE_SEARCH_STALE * s.pool_n && !tfr_ss_out_of_time(&s);
       round++) {
    bool improved = false;
    st = tfr_ss_round(&s, round, &improved);
    stale = improved ? 0 : stale + 1;
  }
  if (!st) {
    memcpy(ssa, s.pool[s.best].ssa, 2 * (size_t)(n > 1 ? n - 1 : 0) * sizeof(int));
    memcpy(sl, s.pool[s.best].sl, (size_t)s.pool[s.best].ns * sizeof(int));
    *ns = s.pool[s.best].ns;
  }
  for (int i = 0; i < TFR_SLICE_SEARCH_POOL; i++) tfr_free(s.pool[i].ssa);
  tfr_free(s.mark);
  return st;
}
