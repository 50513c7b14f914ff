// Contraction trees: network label sets, SSA replays, tree <-> SSA and costs.
#include "einsum/tree.h"

#include <stdlib.h>
#include <string.h>

static int tfr_cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Writes the distinct labels of one operand, sorted, to `out`; returns the count.
static int tfr_sorted_distinct(const int *labels, int rank, int *out) {
  memcpy(out, labels, (size_t)rank * sizeof(int));
  qsort(out, (size_t)rank, sizeof(int), tfr_cmp_int);
  int c = 0;
  for (int k = 0; k < rank; k++)
    if (c == 0 || out[c - 1] != out[k]) out[c++] = out[k];
  return c;
}

tfr_status tfr_net_init(tfr_net *net, const tfr_einsum_expr *e) {
  memset(net, 0, sizeof *net);
  int n = e->n, L = e->num_labels;
  size_t axes = 0;
  for (int i = 0; i < n; i++) axes += (size_t)e->ranks[i];
  net->expr = e;
  net->n = n;
  net->num_labels = L;
  net->extent = e->extent;
  net->leaf_off = tfr_calloc((size_t)n + 1, sizeof(int));
  net->leaf_lab = tfr_calloc(axes + 1, sizeof(int));
  net->leaf_size = tfr_calloc((size_t)n + 1, sizeof(double));
  net->total = tfr_calloc((size_t)L + 1, sizeof(int));
  net->is_out = tfr_calloc((size_t)L + 1, sizeof(bool));
  net->hold_off = tfr_calloc((size_t)L + 2, sizeof(int));
  net->hold = tfr_calloc(axes + 1, sizeof(int));
  if (!net->leaf_off || !net->leaf_lab || !net->leaf_size || !net->total || !net->is_out ||
      !net->hold_off || !net->hold)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (path search)");
  int off = 0;
  for (int i = 0; i < n; i++) {
    net->leaf_off[i] = off;
    int c = tfr_sorted_distinct(e->labels[i], e->ranks[i], net->leaf_lab + off);
    double size = 1;
    for (int k = 0; k < c; k++) {
      int l = net->leaf_lab[off + k];
      size *= (double)e->extent[l];
      net->total[l]++;
      net->hold_off[l + 1]++;
    }
    net->leaf_size[i] = size;
    off += c;
  }
  net->leaf_off[n] = off;
  for (int j = 0; j < e->num_out; j++) {
    net->total[e->out_labels[j]]++;
    net->is_out[e->out_labels[j]] = true;
  }
  for (int l = 0; l < L; l++) net->hold_off[l + 1] += net->hold_off[l];
  int *fill = tfr_calloc((size_t)L + 1, sizeof(int));
  if (!fill) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (path search)");
  for (int i = 0; i < n; i++)  // operands in order: each holder list increases
    for (int k = net->leaf_off[i]; k < net->leaf_off[i + 1]; k++) {
      int l = net->leaf_lab[k];
      net->hold[net->hold_off[l] + fill[l]++] = i;
    }
  tfr_free(fill);
  return TFR_OK;
}

void tfr_net_free(tfr_net *net) {
  tfr_free(net->leaf_off);
  tfr_free(net->leaf_lab);
  tfr_free(net->leaf_size);
  tfr_free(net->total);
  tfr_free(net->is_out);
  tfr_free(net->hold_off);
  tfr_free(net->hold);
  memset(net, 0, sizeof *net);
}

int tfr_labels_pair(const int *a, int na, const int *b, int nb, const int *refs,
                    const int64_t *extent, int *out, double *size, double *flops) {
  int i = 0, j = 0, n = 0;
  double kept = 1, all = 1;
  while (i < na || j < nb) {
    int l, holders;
    if (j >= nb || (i < na && a[i] < b[j])) {
      l = a[i++];
      holders = 1;
    } else if (i >= na || b[j] < a[i]) {
      l = b[j++];
      holders = 1;
    } else {
      l = a[i++];
      j++;
      holders = 2;
    }
    double d = (double)extent[l];
    all *= d;
    if (refs[l] - holders > 0) {
      out[n++] = l;
      kept *= d;
    }
  }
  *size = kept;
  *flops = 2 * all;
  return n;
}

tfr_status tfr_replay_init(tfr_replay *r, const tfr_einsum_expr *e) {
  memset(r, 0, sizeof *r);
  r->e = e;
  r->nodes = tfr_calloc(2 * (size_t)e->n, sizeof(tfr_tnode));
  r->refs = tfr_calloc((size_t)e->num_labels + 1, sizeof(int));
  r->scratch = tfr_calloc((size_t)e->num_labels + 1, sizeof(int));
  if (!r->nodes || !r->refs || !r->scratch)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int i = 0; i < e->n; i++) {
    tfr_tnode *nd = &r->nodes[i];
    nd->labels = tfr_alloc(((size_t)e->ranks[i] + 1) * sizeof(int));
    if (!nd->labels) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
    r->num_nodes = i + 1;
    nd->count = tfr_sorted_distinct(e->labels[i], e->ranks[i], nd->labels);
    nd->size = 1;
    for (int k = 0; k < nd->count; k++) {
      nd->size *= (double)e->extent[nd->labels[k]];
      r->refs[nd->labels[k]]++;
    }
    nd->alive = true;
  }
  for (int j = 0; j < e->num_out; j++) r->refs[e->out_labels[j]]++;
  r->num_nodes = e->n;
  return TFR_OK;
}

void tfr_replay_free(tfr_replay *r) {
  for (int i = 0; r->nodes && i < r->num_nodes; i++) tfr_free(r->nodes[i].labels);
  tfr_free(r->nodes);
  tfr_free(r->refs);
  tfr_free(r->scratch);
  memset(r, 0, sizeof *r);
}

tfr_status tfr_replay_contract(tfr_replay *r, int step, int a, int b, int *out_id, double *size,
                               double *flops) {
  if (a < 0 || b < 0 || a >= r->num_nodes || b >= r->num_nodes || a == b || !r->nodes[a].alive ||
      !r->nodes[b].alive || r->num_nodes >= 2 * r->e->n - 1)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: path step %d contracts tensors %d and %d, which are not two "
                     "distinct tensors alive then (ids 0..%d)", step, a, b, r->num_nodes - 1);
  tfr_tnode *na = &r->nodes[a], *nb = &r->nodes[b];
  int count = tfr_labels_pair(na->labels, na->count, nb->labels, nb->count, r->refs,
                              r->e->extent, r->scratch, size, flops);
  tfr_tnode *nr = &r->nodes[r->num_nodes];
  nr->labels = tfr_alloc(((size_t)count + 1) * sizeof(int));
  if (!nr->labels) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  memcpy(nr->labels, r->scratch, (size_t)count * sizeof(int));
  nr->count = count;
  nr->size = *size;
  nr->alive = true;
  for (int k = 0; k < na->count; k++) r->refs[na->labels[k]]--;
  for (int k = 0; k < nb->count; k++) r->refs[nb->labels[k]]--;
  for (int k = 0; k < count; k++) r->refs[nr->labels[k]]++;
  na->alive = nb->alive = false;
  *out_id = r->num_nodes++;
  return TFR_OK;
}

tfr_status tfr_tree_from_ssa(int n, const int *ssa, tfr_tree *t) {
  t->n = n;
  t->child = tfr_calloc(2 * (size_t)n, sizeof(int));
  bool *used = tfr_calloc(2 * (size_t)n, sizeof(bool));
  tfr_status st = TFR_OK;
  if (!t->child || !used) st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int k = 0; !st && k < n - 1; k++)
    for (int c = 0; c < 2 && !st; c++) {
      int id = ssa[2 * k + c];
      if (id < 0 || id >= n + k || used[id] || (c == 1 && id == ssa[2 * k]))
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: path step %d contracts tensors %d and %d, which are not two "
                       "distinct tensors alive then (ids 0..%d)", k, ssa[2 * k], ssa[2 * k + 1],
                       n + k - 1);
      else {
        used[id] = true;
        t->child[2 * k + c] = id;
      }
    }
  tfr_free(used);
  return st;
}

tfr_status tfr_tree_to_ssa(const tfr_tree *t, int *ssa) {
  int n = t->n;
  if (n <= 1) return TFR_OK;
  int nodes = 2 * n - 1;
  int *parent = tfr_alloc((size_t)nodes * sizeof(int));
  int *renum = tfr_alloc((size_t)nodes * sizeof(int));
  int *stack = tfr_alloc(2 * (size_t)nodes * sizeof(int));
  tfr_status st = TFR_OK;
  if (!parent || !renum || !stack) {
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
    goto done;
  }
  for (int i = 0; i < nodes; i++) parent[i] = -1;
  for (int k = 0; k < 2 * (n - 1) && !st; k++) {
    int c = t->child[k];
    if (c < 0 || c >= nodes || c == n + k / 2 || parent[c] >= 0)
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: the contraction tree is not one tree over the %d operands (node %d "
                     "has child %d)", n, n + k / 2, c);
    else parent[c] = n + k / 2;
  }
  int root = -1;
  for (int i = 0; i < nodes && !st; i++)
    if (parent[i] < 0) {
      if (root >= 0 || i < n)
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: the contraction tree is not one tree over the %d operands "
                       "(tensor %d is consumed by no step)", n, i);
      root = i;
    }
  if (st) goto done;
  // Iterative post-order: a node is pushed as id * 2 (children still to
  // visit) and then id * 2 + 1 (emit).
  int top = 0, step = 0;
  for (int i = 0; i < n; i++) renum[i] = i;
  stack[top++] = root * 2;
  while (top > 0) {
    int item = stack[--top], v = item / 2;
    if (v < n) continue;
    const int *ch = &t->child[2 * (v - n)];
    if (!(item & 1)) {
      stack[top++] = v * 2 + 1;
      stack[top++] = ch[1] * 2;
      stack[top++] = ch[0] * 2;
      continue;
    }
    ssa[2 * step] = renum[ch[0]];
    ssa[2 * step + 1] = renum[ch[1]];
    renum[v] = n + step++;
  }
  if (step != n - 1)  // a cycle would have left the tree disconnected
    st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                   "einsum: the contraction tree is not one tree over the %d operands", n);
done:
  tfr_free(parent);
  tfr_free(renum);
  tfr_free(stack);
  return st;
}

void tfr_tree_free(tfr_tree *t) {
  tfr_free(t->child);
  t->child = NULL;
}

tfr_status tfr_ssa_to_positions(int n, const int *ssa, int32_t *path) {
  int *list = tfr_alloc(((size_t)n + 1) * sizeof(int));
  if (!list) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  int len = n;
  for (int i = 0; i < n; i++) list[i] = i;
  for (int step = 0; step < n - 1; step++) {
    int pa = -1, pb = -1;
    for (int p = 0; p < len; p++) {
      if (list[p] == ssa[2 * step]) pa = p;
      if (list[p] == ssa[2 * step + 1]) pb = p;
    }
    int lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
    path[2 * step] = lo;
    path[2 * step + 1] = hi;
    memmove(&list[hi], &list[hi + 1], (size_t)(len - hi - 1) * sizeof(int));
    len--;
    memmove(&list[lo], &list[lo + 1], (size_t)(len - lo - 1) * sizeof(int));
    len--;
    list[len++] = n + step;
  }
  tfr_free(list);
  return TFR_OK;
}

tfr_status tfr_ssa_cost(const tfr_einsum_expr *e, const int *ssa, tfr_tree_cost *out) {
  tfr_replay r;
  tfr_tree_cost c = {0, 0, 0};
  tfr_status st = tfr_replay_init(&r, e);
  for (int k = 0; !st && k < e->n - 1; k++) {
    int id;
    double size, flops;
    st = tfr_replay_contract(&r, k, ssa[2 * k], ssa[2 * k + 1], &id, &size, &flops);
    if (st) break;
    c.flops += flops;
    c.write += size;
    if (size > c.size) c.size = size;
  }
  tfr_replay_free(&r);
  *out = c;
  return st;
}

tfr_status tfr_ssa_labels(const tfr_einsum_expr *e, const int *ssa, int **labels, int *count,
                          double *size, double *flops) {
  int n = e->n;
  tfr_replay r;
  tfr_status st = tfr_replay_init(&r, e);
  for (int k = 0; !st && k < n - 1; k++) {
    int id;
    double sz, fl;
    st = tfr_replay_contract(&r, k, ssa[2 * k], ssa[2 * k + 1], &id, &sz, &fl);
    if (!st && flops) flops[n + k] = fl;
  }
  for (int i = 0; !st && i < 2 * n - 1; i++) {
    labels[i] = r.nodes[i].labels;
    count[i] = r.nodes[i].count;
    size[i] = r.nodes[i].size;
    r.nodes[i].labels = NULL;
  }
  tfr_replay_free(&r);
  return st;
}
