// Greedy contraction paths with a priority queue of candidate pairs.
//
// A pair's cost never changes while both tensors are alive: contracting
// other tensors only lowers the count of holders of a label shared by both
// inputs of that step, and such a label still has two holders besides the
// pair (the new tensor and another) whenever it mattered to the pair. So
// each pair is evaluated once, when its younger tensor appears, and pairs
// of consumed tensors are dropped when they reach the top of the queue.
#include "einsum/greedy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t tfr_greedy_rand(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double tfr_greedy_uniform(uint64_t *state) {
  return (double)(tfr_greedy_rand(state) >> 11) * 0x1.0p-53;
}

// A candidate pair a < b (or, in the outer-product phase, a tensor a with
// cost = its size).
typedef struct tfr_cand {
  double cost, flops;
  int a, b;
} tfr_cand;

static bool tfr_cand_less(const tfr_cand *x, const tfr_cand *y) {
  if (x->cost != y->cost) return x->cost < y->cost;
  if (x->flops != y->flops) return x->flops < y->flops;
  if (x->a != y->a) return x->a < y->a;
  return x->b < y->b;
}

// The state of one greedy run.
typedef struct tfr_gws {
  const tfr_net *net;
  const tfr_greedy_params *p;
  int *off, *cnt;        // node v's labels: pool[off[v] .. off[v] + cnt[v]]
  int *pool;
  size_t pool_len, pool_cap;
  double *size;
  bool *alive;
  int *refs;             // alive nodes holding l, +1 for an output label
  int *hold, *hold_n;    // holders of l: hold[net->hold_off[l] ..], hold_n[l] of them
  tfr_cand *heap;
  size_t heap_len, heap_cap;
  int *stamp;            // stamp[v] == gen: v is already a partner of the new node
  int gen;
  int *tmp;              // int[num_labels]
  tfr_tree_cost cost;    // of the steps so far
} tfr_gws;

static tfr_status tfr_gws_oom(void) {
  return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (greedy path search)");
}

static tfr_status tfr_heap_push(tfr_gws *w, tfr_cand c) {
  if (w->heap_len == w->heap_cap) {
    size_t cap = w->heap_cap ? 2 * w->heap_cap : 64;
    tfr_cand *h = tfr_realloc(w->heap, cap * sizeof *h);
    if (!h) return tfr_gws_oom();
    w->heap = h;
    w->heap_cap = cap;
  }
  size_t i = w->heap_len++;
  while (i > 0) {
    size_t up = (i - 1) / 2;
    if (!tfr_cand_less(&c, &w->heap[up])) break;
    w->heap[i] = w->heap[up];
    i = up;
  }
  w->heap[i] = c;
  return TFR_OK;
}

static tfr_cand tfr_heap_pop(tfr_gws *w) {
  tfr_cand top = w->heap[0], last = w->heap[--w->heap_len];
  size_t i = 0, len = w->heap_len;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= len) break;
    if (c + 1 < len && tfr_cand_less(&w->heap[c + 1], &w->heap[c])) c++;
    if (!tfr_cand_less(&w->heap[c], &last)) break;
    w->heap[i] = w->heap[c];
    i = c;
  }
  if (len > 0) w->heap[i] = last;
  return top;
}

// Evaluates the pair (a, b), a < b, and queues it.
static tfr_status tfr_gws_offer(tfr_gws *w, int a, int b) {
  double size, flops;
  tfr_labels_pair(w->pool + w->off[a], w->cnt[a], w->pool + w->off[b], w->cnt[b], w->refs,
                  w->net->extent, w->tmp, &size, &flops);
  double cm = w->p->costmod;
  tfr_cand c = {size - cm * w->size[a] - cm * w->size[b], flops, a, b};
  if (isnan(c.cost)) c.cost = INFINITY;
  return tfr_heap_push(w, c);
}

// Queues the pairs of node v with every alive node sharing a label (only
// those younger than v when `younger`, for the operands' first pass), and
// enters v into its labels' holder lists.
static tfr_status tfr_gws_partners(tfr_gws *w, int v, bool younger) {
  w->gen++;
  w->stamp[v] = w->gen;
  for (int k = 0; k < w->cnt[v]; k++) {
    int l = w->pool[w->off[v] + k];
    if (w->p->outputs_apart && w->net->is_out[l]) continue;  // its holder list is unused
    int *h = w->hold + w->net->hold_off[l];
    int m = 0;
    for (int i = 0; i < w->hold_n[l]; i++) {
      int c = h[i];
      if (!w->alive[c]) continue;
      h[m++] = c;
      if (w->stamp[c] == w->gen || (younger && c < v)) continue;
      w->stamp[c] = w->gen;
      tfr_status st = c < v ? tfr_gws_offer(w, c, v) : tfr_gws_offer(w, v, c);
      if (st) return st;
    }
    w->hold_n[l] = m;
    if (!younger) h[w->hold_n[l]++] = v;  // operands are in their lists already
  }
  return TFR_OK;
}

// Contracts alive nodes a and b into node r.
static tfr_status tfr_gws_contract(tfr_gws *w, int a, int b, int r) {
  double size, flops;
  int count = tfr_labels_pair(w->pool + w->off[a], w->cnt[a], w->pool + w->off[b], w->cnt[b],
                              w->refs, w->net->extent, w->tmp, &size, &flops);
  if (w->pool_len + (size_t)count > w->pool_cap) {
    size_t cap = 2 * w->pool_cap + (size_t)count;
    int *g = tfr_realloc(w->pool, cap * sizeof(int));
    if (!g) return tfr_gws_oom();
    w->pool = g;
    w->pool_cap = cap;
  }
  w->off[r] = (int)w->pool_len;
  w->cnt[r] = count;
  memcpy(w->pool + w->pool_len, w->tmp, (size_t)count * sizeof(int));
  w->pool_len += (size_t)count;
  for (int k = 0; k < w->cnt[a]; k++) w->refs[w->pool[w->off[a] + k]]--;
  for (int k = 0; k < w->cnt[b]; k++) w->refs[w->pool[w->off[b] + k]]--;
  for (int k = 0; k < count; k++) w->refs[w->tmp[k]]++;
  w->alive[a] = w->alive[b] = false;
  w->alive[r] = true;
  w->size[r] = size;
  w->cost.flops += flops;
  w->cost.write += size;
  if (size > w->cost.size) w->cost.size = size;
  return TFR_OK;
}

// Takes the next pair off the queue: the best one, or a Boltzmann choice
// among the best few. *found = false when no pair of alive nodes is left.
static tfr_status tfr_gws_pick(tfr_gws *w, tfr_cand *out, bool *found) {
  tfr_cand best[TFR_GREEDY_CHOICES];
  int nb = 0, want = w->p->temperature > 0 ? TFR_GREEDY_CHOICES : 1;
  while (nb < want && w->heap_len > 0) {
    tfr_cand c = tfr_heap_pop(w);
    if (w->alive[c.a] && w->alive[c.b]) best[nb++] = c;
  }
  *found = nb > 0;
  if (nb == 0) return TFR_OK;
  int pick = 0;
  if (nb > 1) {
    double scale = w->p->temperature * fmax(fabs(best[0].cost), 1.0), wsum = 0, wt[TFR_GREEDY_CHOICES];
    for (int i = 0; i < nb; i++) {
      double d = best[i].cost - best[0].cost;
      wt[i] = isfinite(d) ? exp(-d / scale) : 0.0;
      wsum += wt[i];
    }
    double u = tfr_greedy_uniform(w->p->rng) * wsum;
    for (pick = 0; pick < nb - 1; pick++) {
      u -= wt[pick];
      if (u < 0) break;
    }
  }
  for (int i = 0; i < nb; i++)
    if (i != pick) TFR_RETURN_IF_ERROR(tfr_heap_push(w, best[i]));
  *out = best[pick];
  return TFR_OK;
}

static tfr_status tfr_greedy_steps(tfr_gws *w, int *ssa) {
  const tfr_net *net = w->net;
  int n = net->n;
  for (int v = 0; v < n; v++) TFR_RETURN_IF_ERROR(tfr_gws_partners(w, v, true));
  int step = 0;
  for (; step < n - 1; step++) {
    tfr_cand c;
    bool found;
    TFR_RETURN_IF_ERROR(tfr_gws_pick(w, &c, &found));
    if (!found) break;
    TFR_RETURN_IF_ERROR(tfr_gws_contract(w, c.a, c.b, n + step));
    ssa[2 * step] = c.a;
    ssa[2 * step + 1] = c.b;
    TFR_RETURN_IF_ERROR(tfr_gws_partners(w, n + step, false));
  }
  // The rest share no label: outer products, the two smallest first.
  w->heap_len = 0;
  for (int v = 0; v < n + step; v++)
    if (w->alive[v]) TFR_RETURN_IF_ERROR(tfr_heap_push(w, (tfr_cand){w->size[v], 0, v, 0}));
  for (; step < n - 1; step++) {
    tfr_cand x = tfr_heap_pop(w), y = tfr_heap_pop(w);
    int a = x.a < y.a ? x.a : y.a, b = x.a < y.a ? y.a : x.a;
    TFR_RETURN_IF_ERROR(tfr_gws_contract(w, a, b, n + step));
    ssa[2 * step] = a;
    ssa[2 * step + 1] = b;
    TFR_RETURN_IF_ERROR(tfr_heap_push(w, (tfr_cand){w->size[n + step], 0, n + step, 0}));
  }
  return TFR_OK;
}

tfr_status tfr_greedy_run(const tfr_net *net, const tfr_greedy_params *p, int *ssa,
                          tfr_tree_cost *cost) {
  int n = net->n, L = net->num_labels;
  size_t nodes = 2 * (size_t)n;
  tfr_gws w = {.net = net, .p = p};
  w.off = tfr_alloc(nodes * sizeof(int));
  w.cnt = tfr_alloc(nodes * sizeof(int));
  w.size = tfr_alloc(nodes * sizeof(double));
  w.alive = tfr_calloc(nodes, sizeof(bool));
  w.stamp = tfr_calloc(nodes, sizeof(int));
  w.refs = tfr_alloc(((size_t)L + 1) * sizeof(int));
  w.hold_n = tfr_alloc(((size_t)L + 1) * sizeof(int));
  w.hold = tfr_alloc(((size_t)net->hold_off[L] + 1) * sizeof(int));
  w.tmp = tfr_alloc(((size_t)L + 1) * sizeof(int));
  w.pool_cap = 2 * (size_t)net->leaf_off[n] + 16;
  w.pool = tfr_alloc(w.pool_cap * sizeof(int));
  tfr_status st = TFR_OK;
  if (!w.off || !w.cnt || !w.size || !w.alive || !w.stamp || !w.refs || !w.hold_n || !w.hold ||
      !w.tmp || !w.pool) {
    st = tfr_gws_oom();
    goto done;
  }
  memcpy(w.pool, net->leaf_lab, (size_t)net->leaf_off[n] * sizeof(int));
  w.pool_len = (size_t)net->leaf_off[n];
  for (int v = 0; v < n; v++) {
    w.off[v] = net->leaf_off[v];
    w.cnt[v] = net->leaf_off[v + 1] - net->leaf_off[v];
    w.size[v] = net->leaf_size[v];
    w.alive[v] = true;
  }
  memcpy(w.refs, net->total, (size_t)L * sizeof(int));
  memcpy(w.hold, net->hold, (size_t)net->hold_off[L] * sizeof(int));
  for (int l = 0; l < L; l++) w.hold_n[l] = net->hold_off[l + 1] - net->hold_off[l];
  st = tfr_greedy_steps(&w, ssa);
  if (cost) *cost = w.cost;
done:
  tfr_free(w.off);
  tfr_free(w.cnt);
  tfr_free(w.size);
  tfr_free(w.alive);
  tfr_free(w.stamp);
  tfr_free(w.refs);
  tfr_free(w.hold_n);
  tfr_free(w.hold);
  tfr_free(w.tmp);
  tfr_free(w.pool);
  tfr_free(w.heap);
  return st;
}
