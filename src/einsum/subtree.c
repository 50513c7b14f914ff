// Subtree reconfiguration: every subtree of up to k frontier tensors
// re-contracted by tfr_optimal over a small network of its own.
#include "einsum/subtree.h"

#include <stdlib.h>
#include <string.h>

#include "einsum/optimal.h"

// The tree being refined: children per internal node, the label set and
// size of every node (as a replay of the tree computes them).
typedef struct tfr_st_state {
  const tfr_net *net;
  tfr_tree t;
  int **labels;   // [2n - 1] sorted global label ids (owned)
  int *count;
  double *size;
  // Scratch for one subtree (k frontier tensors, k - 1 inner nodes).
  int *fr, *in;          // frontier and inner node ids; in[0] is the subtree's root
  int *lmap, *lglob;     // global label -> local (-1: none), local -> global
  int64_t *lext;         // local extents
  int *sranks, *sbuf, *sout, *cur, *nw;
  int **slabels;
} tfr_st_state;

static void tfr_st_free(tfr_st_state *s) {
  for (int i = 0; s->labels && i < 2 * s->net->n - 1; i++) tfr_free(s->labels[i]);
  tfr_free(s->labels);
  tfr_free(s->count);
  tfr_free(s->size);
  tfr_tree_free(&s->t);
  tfr_free(s->fr);
  tfr_free(s->in);
  tfr_free(s->lmap);
  tfr_free(s->lglob);
  tfr_free(s->lext);
  tfr_free(s->sranks);
  tfr_free(s->sbuf);
  tfr_free(s->sout);
  tfr_free(s->cur);
  tfr_free(s->nw);
  tfr_free(s->slabels);
}

// The labels of every node of the tree of `ssa`, by a replay over the
// network's own expression view.
static tfr_status tfr_st_init(tfr_st_state *s, const tfr_einsum_expr *e, int k, const int *ssa) {
  int n = e->n, L = e->num_labels, nodes = 2 * n - 1;
  s->labels = tfr_calloc((size_t)nodes, sizeof(int *));
  s->count = tfr_calloc((size_t)nodes, sizeof(int));
  s->size = tfr_calloc((size_t)nodes, sizeof(double));
  s->fr = tfr_calloc((size_t)k + 1, sizeof(int));
  s->in = tfr_calloc((size_t)k + 1, sizeof(int));
  s->lmap = tfr_alloc(((size_t)L + 1) * sizeof(int));
  s->lglob = tfr_calloc((size_t)L + 1, sizeof(int));
  s->lext = tfr_calloc((size_t)L + 1, sizeof(int64_t));
  s->sranks = tfr_calloc((size_t)k + 1, sizeof(int));
  s->sbuf = tfr_calloc((size_t)L * (size_t)k + 1, sizeof(int));
  s->sout = tfr_calloc((size_t)L + 1, sizeof(int));
  s->cur = tfr_calloc(2 * (size_t)k, sizeof(int));
  s->nw = tfr_calloc(2 * (size_t)k, sizeof(int));
  s->slabels = tfr_calloc((size_t)k + 1, sizeof(int *));
  if (!s->labels || !s->count || !s->size || !s->fr || !s->in || !s->lmap || !s->lglob ||
      !s->lext || !s->sranks || !s->sbuf || !s->sout || !s->cur || !s->nw || !s->slabels)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (subtree refinement)");
  for (int l = 0; l < L; l++) s->lmap[l] = -1;
  TFR_RETURN_IF_ERROR(tfr_tree_from_ssa(n, ssa, &s->t));
  return tfr_ssa_labels(e, ssa, s->labels, s->count, s->size, NULL);
}

static int tfr_st_cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Index of node id in the subtree's numbering: frontier i -> i, inner j -> nf + j.
static int tfr_st_local(const tfr_st_state *s, int nf, int id) {
  for (int i = 0; i < nf; i++)
    if (s->fr[i] == id) return i;
  for (int j = 0; j < nf - 1; j++)
    if (s->in[j] == id) return nf + j;
  return -1;
}

// Re-optimises the subtree below v; *improved is set when it was replaced.
static tfr_status tfr_st_node(tfr_st_state *s, int v, int k, tfr_einsum_minimize m, double alpha,
                              bool *improved) {
  int n = s->net->n;
  const int *ch = &s->t.child[2 * (v - n)];
  int nf = 2, ni = 1;
  s->fr[0] = ch[0];
  s->fr[1] = ch[1];
  s->in[0] = v;
  while (nf < k) {  // expand the largest intermediate of the frontier
    int pick = -1;
    for (int i = 0; i < nf; i++)
      if (s->fr[i] >= n && (pick < 0 || s->size[s->fr[i]] > s->size[s->fr[pick]])) pick = i;
    if (pick < 0) break;
    int x = s->fr[pick];
    s->in[ni++] = x;
    s->fr[pick] = s->t.child[2 * (x - n)];
    s->fr[nf++] = s->t.child[2 * (x - n) + 1];
  }
  if (nf < 3) return TFR_OK;
  // The subtree as a network: its frontier tensors, with v's labels as the
  // output, over local label ids.
  // (local ids increase with the global ones, so sorted sets stay sorted)
  int nl = 0, off = 0;
  for (int i = 0; i < nf; i++)
    for (int c = 0; c < s->count[s->fr[i]]; c++) {
      int g = s->labels[s->fr[i]][c];
      if (s->lmap[g] < 0) {
        s->lmap[g] = 0;
        s->lglob[nl++] = g;
      }
    }
  qsort(s->lglob, (size_t)nl, sizeof(int), tfr_st_cmp);
  for (int l = 0; l < nl; l++) {
    s->lmap[s->lglob[l]] = l;
    s->lext[l] = s->net->extent[s->lglob[l]];
  }
  for (int i = 0; i < nf; i++) {
    int f = s->fr[i];
    s->slabels[i] = s->sbuf + off;
    for (int c = 0; c < s->count[f]; c++) s->sbuf[off++] = s->lmap[s->labels[f][c]];
    s->sranks[i] = s->count[f];
  }
  for (int c = 0; c < s->count[v]; c++) s->sout[c] = s->lmap[s->labels[v][c]];
  tfr_einsum_expr sub = {.n = nf, .ranks = s->sranks, .labels = s->slabels,
                         .num_out = s->count[v], .out_labels = s->sout, .num_labels = nl,
                         .extent = s->lext};
  tfr_tree cur = {nf, NULL};
  tfr_net snet;
  tfr_replay r = {0};
  tfr_status st = tfr_net_init(&snet, &sub);
  cur.child = tfr_alloc(2 * (size_t)nf * sizeof(int));
  if (!st && !cur.child)
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (subtree refinement)");
  for (int j = 0; !st && j < nf - 1; j++)
    for (int c = 0; c < 2; c++)
      cur.child[2 * j + c] = tfr_st_local(s, nf, s->t.child[2 * (s->in[j] - n) + c]);
  if (!st) st = tfr_tree_to_ssa(&cur, s->cur);
  if (!st) st = tfr_optimal(&snet, m, alpha, s->nw);
  tfr_tree_cost cc, cn;
  if (!st) st = tfr_ssa_cost(&sub, s->cur, &cc);
  if (!st) st = tfr_ssa_cost(&sub, s->nw, &cn);
  double old_score = tfr_cost_score(m, alpha, &cc), new_score = tfr_cost_score(m, alpha, &cn);
  if (!st && new_score < old_score * (1 - 1e-9)) {
    // The new subtree reuses the inner node ids, v (its root) for the last step.
    st = tfr_replay_init(&r, &sub);
    for (int step = 0; !st && step < nf - 1; step++) {
      int id, gid = step == nf - 2 ? v : s->in[step + 1];
      double size, flops;
      st = tfr_replay_contract(&r, step, s->nw[2 * step], s->nw[2 * step + 1], &id, &size, &flops);
      if (st) break;
      for (int c = 0; c < 2; c++) {
        int x = s->nw[2 * step + c];
        s->t.child[2 * (gid - n) + c] = x < nf ? s->fr[x] : (x - nf == nf - 2 ? v : s->in[x - nf + 1]);
      }
      int *lab = tfr_alloc(((size_t)r.nodes[id].count + 1) * sizeof(int));
      if (!lab) {
        st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (subtree refinement)");
        break;
      }
      for (int c = 0; c < r.nodes[id].count; c++) lab[c] = s->lglob[r.nodes[id].labels[c]];
      tfr_free(s->labels[gid]);
      s->labels[gid] = lab;
      s->count[gid] = r.nodes[id].count;
      s->size[gid] = size;
    }
    *improved = !st;
  }
  for (int l = 0; l < nl; l++) s->lmap[s->lglob[l]] = -1;
  tfr_replay_free(&r);
  tfr_net_free(&snet);
  tfr_tree_free(&cur);
  return st;
}

tfr_status tfr_subtree_refine(const tfr_net *net, tfr_einsum_minimize m, double alpha, int k,
                              double start, double max_time, int *ssa) {
  int n = net->n;
  if (n < 3 || k < 3) return TFR_OK;
  if (k > TFR_EINSUM_SUBTREE_MAX) k = TFR_EINSUM_SUBTREE_MAX;
  const tfr_einsum_expr *e = net->expr;
  int *res = tfr_calloc(2 * (size_t)n, sizeof(int));
  if (!res) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (subtree refinement)");
  tfr_st_state s = {.net = net};
  tfr_status st = tfr_st_init(&s, e, k, ssa);
  bool improved = true, out_of_time = false;
  for (int pass = 0; !st && improved && !out_of_time && pass < 64; pass++) {
    improved = false;
    for (int v = n; !st && v < 2 * n - 1; v++) {
      if (max_time > 0 && tfr_path_now() - start > max_time) {
        out_of_time = true;
        break;
      }
      st = tfr_st_node(&s, v, k, m, alpha, &improved);
    }
  }
  if (!st) st = tfr_tree_to_ssa(&s.t, res);
  tfr_tree_cost c0, c1;
  if (!st) st = tfr_ssa_cost(e, ssa, &c0);
  if (!st) st = tfr_ssa_cost(e, res, &c1);
  if (!st && tfr_cost_score(m, alpha, &c1) <= tfr_cost_score(m, alpha, &c0))
    memcpy(ssa, res, 2 * (size_t)(n - 1) * sizeof(int));
  tfr_st_free(&s);
  tfr_free(res);
  return st;
}
