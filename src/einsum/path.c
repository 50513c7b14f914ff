// Contraction paths: greedy, optimal (subset dynamic programming) and
// caller-given, with their flop and size statistics.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "einsum/einsum_impl.h"

// A tensor during path search: its distinct labels (sorted ids).
typedef struct tfr_node {
  int *labels;
  int count;
  double size;  // elements
  bool alive;
} tfr_node;

// Search state shared by the path finders and the statistics pass.
typedef struct tfr_search {
  const tfr_einsum_expr *e;
  tfr_node *nodes;   // SSA: n inputs, then one per step
  int num_nodes;
  int *refs;         // refs[l]: alive nodes holding label l, +1 if l is an output label
  int *scratch;      // int[num_labels]
} tfr_search;

static int tfr_cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static tfr_status tfr_search_init(tfr_search *s, const tfr_einsum_expr *e) {
  memset(s, 0, sizeof *s);
  s->e = e;
  s->nodes = tfr_calloc(2 * (size_t)e->n, sizeof(tfr_node));
  s->refs = tfr_calloc((size_t)e->num_labels + 1, sizeof(int));
  s->scratch = tfr_calloc((size_t)e->num_labels + 1, sizeof(int));
  if (!s->nodes || !s->refs || !s->scratch)
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int i = 0; i < e->n; i++) {
    tfr_node *nd = &s->nodes[i];
    nd->labels = tfr_alloc(((size_t)e->ranks[i] + 1) * sizeof(int));
    if (!nd->labels) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
    memcpy(nd->labels, e->labels[i], (size_t)e->ranks[i] * sizeof(int));
    qsort(nd->labels, (size_t)e->ranks[i], sizeof(int), tfr_cmp_int);
    int c = 0;
    for (int k = 0; k < e->ranks[i]; k++)
      if (c == 0 || nd->labels[c - 1] != nd->labels[k]) nd->labels[c++] = nd->labels[k];
    nd->count = c;
    nd->size = 1;
    for (int k = 0; k < c; k++) {
      nd->size *= (double)e->extent[nd->labels[k]];
      s->refs[nd->labels[k]]++;
    }
    nd->alive = true;
  }
  for (int j = 0; j < e->num_out; j++) s->refs[e->out_labels[j]]++;
  s->num_nodes = e->n;
  return TFR_OK;
}

static void tfr_search_free(tfr_search *s) {
  for (int i = 0; s->nodes && i < s->num_nodes; i++) tfr_free(s->nodes[i].labels);
  tfr_free(s->nodes);
  tfr_free(s->refs);
  tfr_free(s->scratch);
}

// The labels of contracting a and b: those of a or b still needed by another
// alive node or the output. Writes them sorted to `out`; returns the count.
// *size_out = result elements, *flops_out = 2 * product over a ∪ b.
static int tfr_pair_result(const tfr_search *s, const tfr_node *a, const tfr_node *b, int *out,
                           double *size_out, double *flops_out) {
  int i = 0, j = 0, n = 0;
  double size = 1, all = 1;
  while (i < a->count || j < b->count) {
    int l, holders;
    if (j >= b->count || (i < a->count && a->labels[i] < b->labels[j])) {
      l = a->labels[i++];
      holders = 1;
    } else if (i >= a->count || b->labels[j] < a->labels[i]) {
      l = b->labels[j++];
      holders = 1;
    } else {
      l = a->labels[i++];
      j++;
      holders = 2;
    }
    double d = (double)s->e->extent[l];
    all *= d;
    if (s->refs[l] - holders > 0) {
      out[n++] = l;
      size *= d;
    }
  }
  *size_out = size;
  *flops_out = 2 * all;
  return n;
}

// Contracts alive nodes a and b into a new node; returns its id.
static tfr_status tfr_search_contract(tfr_search *s, int a, int b, int *out_id, double *size,
                                      double *flops) {
  tfr_node *na = &s->nodes[a], *nb = &s->nodes[b];
  int count = tfr_pair_result(s, na, nb, s->scratch, size, flops);
  tfr_node *nr = &s->nodes[s->num_nodes];
  nr->labels = tfr_alloc(((size_t)count + 1) * sizeof(int));
  if (!nr->labels) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  memcpy(nr->labels, s->scratch, (size_t)count * sizeof(int));
  nr->count = count;
  nr->size = *size;
  nr->alive = true;
  for (int k = 0; k < na->count; k++) s->refs[na->labels[k]]--;
  for (int k = 0; k < nb->count; k++) s->refs[nb->labels[k]]--;
  for (int k = 0; k < count; k++) s->refs[nr->labels[k]]++;
  na->alive = nb->alive = false;
  *out_id = s->num_nodes++;
  return TFR_OK;
}

// Greedy: the pair with the least (result - inputs) size, ties by flops then
// by the order the pair was found. Pairs without a shared label are only
// taken when no connected pair is left (smallest sizes first).
static tfr_status tfr_greedy(tfr_search *s, int *ssa) {
  const tfr_einsum_expr *e = s->e;
  int *tmp = tfr_alloc(((size_t)e->num_labels + 1) * sizeof(int));
  if (!tmp) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int step = 0; step < e->n - 1; step++) {
    int best_a = -1, best_b = -1;
    double best_cost = INFINITY, best_flops = INFINITY;
    bool best_connected = false;
    for (int a = 0; a < s->num_nodes; a++) {
      if (!s->nodes[a].alive) continue;
      for (int b = a + 1; b < s->num_nodes; b++) {
        if (!s->nodes[b].alive) continue;
        const tfr_node *na = &s->nodes[a], *nb = &s->nodes[b];
        bool connected = false;
        for (int i = 0, j = 0; i < na->count && j < nb->count && !connected;) {
          if (na->labels[i] == nb->labels[j]) connected = true;
          else if (na->labels[i] < nb->labels[j]) i++;
          else j++;
        }
        if (best_connected && !connected) continue;
        double size, flops;
        tfr_pair_result(s, na, nb, tmp, &size, &flops);
        double cost = connected ? size - na->size - nb->size : na->size * nb->size;
        if ((connected && !best_connected) || cost < best_cost ||
            (cost == best_cost && flops < best_flops)) {
          best_a = a;
          best_b = b;
          best_cost = cost;
          best_flops = flops;
          best_connected = connected;
        }
      }
    }
    int id;
    double size, flops;
    tfr_status st = tfr_search_contract(s, best_a, best_b, &id, &size, &flops);
    if (st) {
      tfr_free(tmp);
      return st;
    }
    ssa[2 * step] = best_a;
    ssa[2 * step + 1] = best_b;
  }
  tfr_free(tmp);
  return TFR_OK;
}

// Optimal in flops over all binary contraction trees: dynamic programming
// over subsets (3^n / 2 splits), label sets as bitsets.
static tfr_status tfr_optimal(tfr_search *s, int *ssa) {
  const tfr_einsum_expr *e = s->e;
  int n = e->n;
  int words = (e->num_labels + 63) / 64;
  size_t nsub = (size_t)1 << n;
  uint64_t *uni = tfr_calloc(nsub * (size_t)words, sizeof(uint64_t));   // labels of S's members
  uint64_t *lab = tfr_calloc(nsub * (size_t)words, sizeof(uint64_t));   // labels kept by S
  uint64_t *outm = tfr_calloc((size_t)words + 1, sizeof(uint64_t));
  double *logext = tfr_calloc((size_t)e->num_labels + 1, sizeof(double));
  double *cost = tfr_alloc(nsub * sizeof(double));
  uint32_t *split = tfr_calloc(nsub, sizeof(uint32_t));
  tfr_status st = TFR_OK;
  if (!uni || !lab || !outm || !logext || !cost || !split) {
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (optimal path search)");
    goto done;
  }
  for (int l = 0; l < e->num_labels; l++) logext[l] = log2((double)(e->extent[l] > 0 ? e->extent[l] : 1));
  for (int j = 0; j < e->num_out; j++) outm[e->out_labels[j] / 64] |= 1ull << (e->out_labels[j] % 64);
  for (size_t S = 1; S < nsub; S++) {
    int low = __builtin_ctzll(S);
    uint64_t *u = uni + S * (size_t)words, *prev = uni + (S & (S - 1)) * (size_t)words;
    memcpy(u, prev, (size_t)words * sizeof(uint64_t));
    for (int k = 0; k < s->nodes[low].count; k++) {
      int l = s->nodes[low].labels[k];
      u[l / 64] |= 1ull << (l % 64);
    }
  }
  for (size_t S = 1; S < nsub; S++) {
    const uint64_t *u = uni + S * (size_t)words, *rest = uni + ((nsub - 1) ^ S) * (size_t)words;
    uint64_t *k = lab + S * (size_t)words;
    // A leaf keeps all its labels: its first contraction iterates over the
    // ones only it has too (the replay in tfr_einsum_find_path counts them).
    bool leaf = !(S & (S - 1));
    for (int w = 0; w < words; w++) k[w] = leaf ? u[w] : u[w] & (outm[w] | rest[w]);
    cost[S] = (S & (S - 1)) ? INFINITY : 0;
  }
  // Subsets in increasing order: every proper subset is done before S.
  for (size_t S = 1; S < nsub; S++) {
    if (!(S & (S - 1))) continue;
    size_t low = S & (~S + 1);
    // A ranges over subsets of S containing S's lowest member, A != S.
    for (size_t A = (S - 1) & S; A; A = (A - 1) & S) {
      if (!(A & low)) continue;
      size_t B = S ^ A;
      if (cost[A] + cost[B] >= cost[S]) continue;
      const uint64_t *ka = lab + A * (size_t)words, *kb = lab + B * (size_t)words;
      double lg = 0;
      for (int w = 0; w < words; w++) {
        uint64_t m = ka[w] | kb[w];
        while (m) {
          lg += logext[w * 64 + __builtin_ctzll(m)];
          m &= m - 1;
        }
      }
      double c = cost[A] + cost[B] + 2 * exp2(lg);
      if (c < cost[S]) {
        cost[S] = c;
        split[S] = (uint32_t)A;
      }
    }
  }
  {
    // Post-order walk of the split tree; each internal node is one step.
    size_t *todo = tfr_alloc(4 * (size_t)n * sizeof(size_t));
    int *ids = tfr_alloc(4 * (size_t)n * sizeof(int));
    if (!todo || !ids) {
      tfr_free(todo);
      tfr_free(ids);
      st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
      goto done;
    }
    // Iterative post-order: push (S, visited flag).
    int top = 0, vtop = 0, step = 0;
    todo[top++] = (nsub - 1) << 1;
    while (top > 0) {
      size_t item = todo[--top];
      size_t S = item >> 1;
      if (!(S & (S - 1))) {
        ids[vtop++] = __builtin_ctzll(S);
        continue;
      }
      if (!(item & 1)) {
        todo[top++] = item | 1;
        todo[top++] = (size_t)(S ^ split[S]) << 1;
        todo[top++] = (size_t)split[S] << 1;
        continue;
      }
      int b = ids[--vtop], a = ids[--vtop];
      int id;
      double size, flops;
      st = tfr_search_contract(s, a, b, &id, &size, &flops);
      if (st) break;
      ssa[2 * step] = a;
      ssa[2 * step + 1] = b;
      step++;
      ids[vtop++] = id;
    }
    tfr_free(todo);
    tfr_free(ids);
  }
done:
  tfr_free(uni);
  tfr_free(lab);
  tfr_free(outm);
  tfr_free(logext);
  tfr_free(cost);
  tfr_free(split);
  return st;
}

// Converts SSA pairs to numpy positions (and back for a given path).
static void tfr_ssa_to_positions(int n, const int *ssa, int32_t *path) {
  int *list = tfr_alloc(((size_t)n + 1) * sizeof(int));
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
}

tfr_status tfr_einsum_find_path(tfr_einsum_plan *plan, const tfr_einsum_options *options) {
  const tfr_einsum_expr *e = &plan->expr;
  tfr_einsum_options opts = {0};
  if (options) opts = *options;
  int n = e->n;
  plan->num_steps = n - 1;
  plan->path = tfr_calloc(2 * (size_t)n, sizeof(int32_t));
  plan->step_flops = tfr_calloc((size_t)n, sizeof(double));
  plan->progress = opts.progress;
  plan->progress_ctx = opts.progress_ctx;
  int *ssa = tfr_calloc(2 * (size_t)n, sizeof(int));
  if (!plan->path || !plan->step_flops || !ssa) {
    tfr_free(ssa);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  }
  tfr_search s;
  tfr_status st = tfr_search_init(&s, e);
  if (!st) {
    switch (opts.path_kind) {
      case TFR_EINSUM_PATH_GREEDY:
        st = tfr_greedy(&s, ssa);
        if (!st) tfr_ssa_to_positions(n, ssa, plan->path);
        break;
      case TFR_EINSUM_PATH_OPTIMAL:
        if (n > TFR_EINSUM_OPTIMAL_MAX) {
          st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "einsum: the optimal path search takes at most %d operands, got %d "
                         "(use the greedy path)", TFR_EINSUM_OPTIMAL_MAX, n);
          break;
        }
        st = tfr_optimal(&s, ssa);
        if (!st) tfr_ssa_to_positions(n, ssa, plan->path);
        break;
      case TFR_EINSUM_PATH_GIVEN:
        if (opts.path_len != n - 1 || (opts.path_len > 0 && !opts.path)) {
          st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "einsum: the path has %d step(s); %d operands need %d", opts.path_len, n,
                         n - 1);
          break;
        }
        memcpy(plan->path, opts.path, 2 * (size_t)(n - 1) * sizeof(int32_t));
        break;
      default:
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: invalid path kind %d", (int)opts.path_kind);
    }
  }
  tfr_search_free(&s);
  tfr_free(ssa);
  if (st) return st;

  // Statistics (and validation of a given path) by replaying the positions;
  // the replay's nodes (label sets, who consumes them) stay with the plan
  // for the layout choices of tfr_einsum_plan_execute.
  st = tfr_search_init(&s, e);
  int *list = tfr_alloc(((size_t)n + 1) * sizeof(int));
  plan->num_nodes = 2 * n - 1;
  plan->consumer = tfr_alloc(2 * (size_t)n * sizeof(int));
  plan->partner = tfr_alloc(2 * (size_t)n * sizeof(int));
  plan->node_labels = tfr_calloc(2 * (size_t)n, sizeof(int *));
  plan->node_count = tfr_calloc(2 * (size_t)n, sizeof(int));
  if (!st && (!list || !plan->consumer || !plan->partner || !plan->node_labels || !plan->node_count))
    st = tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int i = 0; !st && i < 2 * n; i++) plan->consumer[i] = plan->partner[i] = -1;
  int len = n;
  for (int i = 0; !st && i < n; i++) list[i] = i;
  tfr_einsum_path_info info = {0};
  info.num_steps = n - 1;
  double operand_elems = 0, live_inter = 0;
  for (int i = 0; !st && i < n; i++) operand_elems += s.nodes[i].size;
  info.peak_live_elements = operand_elems;
  for (int step = 0; !st && step < n - 1; step++) {
    int32_t pa = plan->path[2 * step], pb = plan->path[2 * step + 1];
    if (pa < 0 || pb < 0 || pa >= len || pb >= len || pa == pb) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: path step %d names positions (%d, %d) of a list of %d operands",
                     step, (int)pa, (int)pb, len);
      break;
    }
    int id;
    double size, flops;
    st = tfr_search_contract(&s, list[pa], list[pb], &id, &size, &flops);
    if (st) break;
    info.flops += flops;
    plan->step_flops[step] = flops;
    if (size > (double)TFR_MAX_NUMEL) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: step %d would make an intermediate of %.3g elements (more than "
                     "2^50)", step, size);
      break;
    }
    if ((int64_t)size > info.largest_intermediate) info.largest_intermediate = (int64_t)size;
    // Live during the step: operands, unconsumed intermediates, the result;
    // afterwards the step's intermediate inputs are released.
    if (operand_elems + live_inter + size > info.peak_live_elements)
      info.peak_live_elements = operand_elems + live_inter + size;
    if (list[pa] >= n) live_inter -= s.nodes[list[pa]].size;
    if (list[pb] >= n) live_inter -= s.nodes[list[pb]].size;
    live_inter += size;
    plan->consumer[list[pa]] = plan->consumer[list[pb]] = step;
    plan->partner[list[pa]] = list[pb];
    plan->partner[list[pb]] = list[pa];
    int lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
    memmove(&list[hi], &list[hi + 1], (size_t)(len - hi - 1) * sizeof(int));
    len--;
    memmove(&list[lo], &list[lo + 1], (size_t)(len - lo - 1) * sizeof(int));
    len--;
    list[len++] = id;
  }
  if (!st && opts.max_intermediate_elements > 0 &&
      info.largest_intermediate > opts.max_intermediate_elements)
    st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                   "einsum: the path's largest intermediate has %" PRId64
                   " elements, above the limit of %" PRId64,
                   info.largest_intermediate, opts.max_intermediate_elements);
  info.log10_flops = info.flops > 0 ? log10(info.flops) : 0;
  info.log2_largest = info.largest_intermediate > 0 ? log2((double)info.largest_intermediate) : 0;
  plan->info = info;
  if (!st)
    for (int i = 0; i < s.num_nodes; i++) {  // the plan takes the label sets over
      plan->node_labels[i] = s.nodes[i].labels;
      plan->node_count[i] = s.nodes[i].count;
      s.nodes[i].labels = NULL;
    }
  tfr_free(list);
  tfr_search_free(&s);
  return st;
}
