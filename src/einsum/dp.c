// Dynamic programming over connected subsets with a growing cost cap.
//
// Within one component, a subset S of operands is an entry with the least
// cost found for contracting S, its labels (a bitset over the component's
// labels) and its split. Subsets are built by increasing size from two
// disjoint smaller ones that share a label other than an output label (any
// two when outer products are allowed; as opt_einsum's, a shared batch label
// alone does not link two subsets: counting it as a link found 0.987x the
// flops on lm_batch_likelihood_brackets_4_4d, but in 27 s instead of 0.3 s); a candidate costing more than the cap is dropped. When a pass
// ends without the whole component, the cap grows and the pass is redone
// (the entries found stay). The costs are monotone (a tree costs at least
// as much as each subtree), so every subtree of a best tree fits under any
// cap its root fits under: the first pass that reaches the whole component
// finds a best tree.
#include "einsum/dp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct tfr_dp_entry {
  uint64_t set;      // operands of the component (bit i: its i-th)
  uint64_t next;     // operands outside set sharing a non-output label with it
  double cost, size;
  int left, right;   // entries split into; -1 for an operand
} tfr_dp_entry;

// An entry in a list: a copy of its set and cost, for a scan that stays in
// the list's memory.
typedef struct tfr_dp_item {
  uint64_t set;
  double cost;
  int e;
} tfr_dp_item;

typedef struct tfr_dp_state {
  const tfr_net *net;
  tfr_einsum_minimize m;
  double alpha;
  bool outer;           // pairs need not share a label
  double deadline;      // CLOCK_MONOTONIC seconds to give up at (0: never)
  double max_time;
  int count;            // operands of the component
  const int *leaves;    // their ids
  int nl, words;        // labels of the component, 64-bit words per label set
  double *ext;          // double[nl]
  uint64_t *holders;    // uint64[nl]: the operands holding each label
  bool *out;            // bool[nl]: an output label
  tfr_dp_entry *ent;
  size_t nent, cap;
  uint64_t *kept;       // words per entry: the entry's labels
  int *table;           // open addressing: entry index or -1
  size_t tcap;
  // Entry lists: list k * (count + 1) + count holds the entries of k
  // operands, list k * (count + 1) + o those of them that contain operand o.
  tfr_dp_item **lists;
  size_t *ln, *lcap;
  uint64_t *tmp;        // 2 * words
} tfr_dp_state;

static tfr_status tfr_dp_oom(void) {
  return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory (dp path search)");
}

static size_t tfr_dp_hash(uint64_t x, size_t mask) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x & mask;
}

static int tfr_dp_find(const tfr_dp_state *d, uint64_t set) {
  for (size_t h = tfr_dp_hash(set, d->tcap - 1);; h = (h + 1) & (d->tcap - 1)) {
    int e = d->table[h];
    if (e < 0 || d->ent[e].set == set) return e;
  }
}

static tfr_status tfr_dp_list_push(tfr_dp_state *d, size_t li, tfr_dp_item item) {
  if (d->ln[li] == d->lcap[li]) {
    size_t cap = d->lcap[li] ? 2 * d->lcap[li] : 16;
    tfr_dp_item *b = tfr_realloc(d->lists[li], cap * sizeof *b);
    if (!b) return tfr_dp_oom();
    d->lists[li] = b;
    d->lcap[li] = cap;
  }
  d->lists[li][d->ln[li]++] = item;
  return TFR_OK;
}

static tfr_status tfr_dp_add(tfr_dp_state *d, uint64_t set, double cost, double size, int left,
                             int right, const uint64_t *kept) {
  if (d->nent >= TFR_DP_MAX_SUBSETS)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: the dp path search passed %d subsets on a component of %d "
                     "operands (use random-greedy)", TFR_DP_MAX_SUBSETS, d->count);
  if (d->nent == d->cap) {
    size_t cap = d->cap ? 2 * d->cap : 256;
    tfr_dp_entry *e = tfr_realloc(d->ent, cap * sizeof *e);
    if (!e) return tfr_dp_oom();
    d->ent = e;
    uint64_t *k = tfr_realloc(d->kept, cap * (size_t)d->words * sizeof(uint64_t));
    if (!k) return tfr_dp_oom();
    d->kept = k;
    d->cap = cap;
  }
  if (2 * (d->nent + 1) > d->tcap) {  // keep the table at most half full
    size_t tcap = d->tcap ? 2 * d->tcap : 1024;
    int *t = tfr_alloc(tcap * sizeof(int));
    if (!t) return tfr_dp_oom();
    tfr_free(d->table);
    d->table = t;
    d->tcap = tcap;
    for (size_t i = 0; i < tcap; i++) t[i] = -1;
    for (size_t e = 0; e < d->nent; e++) {
      size_t h = tfr_dp_hash(d->ent[e].set, tcap - 1);
      while (t[h] >= 0) h = (h + 1) & (tcap - 1);
      t[h] = (int)e;
    }
  }
  size_t e = d->nent;
  size_t base = (size_t)__builtin_popcountll(set) * (size_t)(d->count + 1);
  tfr_dp_item item = {set, cost, (int)e};
  TFR_RETURN_IF_ERROR(tfr_dp_list_push(d, base + (size_t)d->count, item));
  for (uint64_t x = set; x; x &= x - 1)
    TFR_RETURN_IF_ERROR(tfr_dp_list_push(d, base + (size_t)__builtin_ctzll(x), item));
  d->nent++;
  uint64_t next = 0;
  for (int w = 0; w < d->words; w++)
    for (uint64_t x = kept[w]; x; x &= x - 1) {
      int l = w * 64 + __builtin_ctzll(x);
      if (!d->out[l]) next |= d->holders[l];
    }
  d->ent[e] = (tfr_dp_entry){set, next & ~set, cost, size, left, right};
  memcpy(d->kept + e * (size_t)d->words, kept, (size_t)d->words * sizeof(uint64_t));
  size_t h = tfr_dp_hash(set, d->tcap - 1);
  while (d->table[h] >= 0) h = (h + 1) & (d->tcap - 1);
  d->table[h] = (int)e;
  return TFR_OK;
}

// The product of the extents of a label set.
static double tfr_dp_prod(const tfr_dp_state *d, const uint64_t *bits) {
  double p = 1;
  for (int w = 0; w < d->words; w++)
    for (uint64_t x = bits[w]; x; x &= x - 1) p *= d->ext[w * 64 + __builtin_ctzll(x)];
  return p;
}

// Offers the union of entries i and j (disjoint) under the cap.
static tfr_status tfr_dp_join(tfr_dp_state *d, int i, int j, double cap) {
  const tfr_dp_entry *a = &d->ent[i], *b = &d->ent[j];
  double lower = d->m == TFR_EINSUM_MINIMIZE_SIZE ? fmax(a->cost, b->cost) : a->cost + b->cost;
  if (lower > cap) return TFR_OK;
  const uint64_t *ka = d->kept + (size_t)i * (size_t)d->words;
  const uint64_t *kb = d->kept + (size_t)j * (size_t)d->words;
  uint64_t *u = d->tmp, *k = d->tmp + d->words;
  for (int w = 0; w < d->words; w++) u[w] = ka[w] | kb[w];
  uint64_t set = a->set | b->set;
  for (int w = 0; w < d->words; w++) {
    k[w] = u[w];
    for (uint64_t x = u[w]; x; x &= x - 1) {
      int l = w * 64 + __builtin_ctzll(x);
      if (!d->out[l] && !(d->holders[l] & ~set)) k[w] &= ~(x & -x);  // consumed within set
    }
  }
  double flops = 2 * tfr_dp_prod(d, u), size = tfr_dp_prod(d, k);
  double cost = tfr_cost_join(d->m, d->alpha, a->cost, b->cost, flops, size);
  if (isnan(cost) || cost > cap) return TFR_OK;
  int e = tfr_dp_find(d, set);
  if (e >= 0) {
    if (cost < d->ent[e].cost) {
      d->ent[e].cost = cost;
      d->ent[e].left = i;
      d->ent[e].right = j;
    }
    return TFR_OK;
  }
  return tfr_dp_add(d, set, cost, size, i, j, k);
}

static int tfr_dp_item_cmp(const void *x, const void *y) {
  const tfr_dp_item *a = x, *b = y;
  if (a->cost != b->cost) return a->cost < b->cost ? -1 : 1;
  return (a->e > b->e) - (a->e < b->e);
}

// Refreshes the costs in the lists of entries of k operands (final for the
// pass once size k is done) and sorts them by increasing cost.
static void tfr_dp_sort_lists(tfr_dp_state *d, int k) {
  size_t stride = (size_t)d->count + 1;
  for (size_t o = 0; o < stride; o++) {
    size_t li = (size_t)k * stride + o;
    for (size_t y = 0; y < d->ln[li]; y++) d->lists[li][y].cost = d->ent[d->lists[li][y].e].cost;
    if (d->ln[li] > 1) qsort(d->lists[li], d->ln[li], sizeof(tfr_dp_item), tfr_dp_item_cmp);
  }
}

// One pass over every subset size under `cap`. With outer products every
// disjoint pair is tried; without, entry i meets only the entries that
// contain an operand of i.next (each once: through the lowest such operand).
// The lists of smaller sizes are final for the pass and sorted by cost, so
// the scan of a list stops at the first entry whose cost with i's is above
// the cap (the join's cost is at least that).
static tfr_status tfr_dp_pass(tfr_dp_state *d, double cap) {
  size_t stride = (size_t)d->count + 1;
  bool add = d->m != TFR_EINSUM_MINIMIZE_SIZE;
  for (int size = 2; size <= d->count; size++) {
    tfr_dp_sort_lists(d, size - 1);
    for (int ka = 1; ka <= size / 2; ka++) {
      int kb = size - ka;
      size_t all_a = (size_t)ka * stride + (size_t)d->count, all_b = (size_t)kb * stride + (size_t)d->count;
      // i from the larger size: the smaller sets next to it overlap it less.
      for (size_t x = 0; x < d->ln[all_b]; x++) {
        const tfr_dp_item *a = &d->lists[all_b][x];
        int i = a->e;
        uint64_t si = a->set, next = d->ent[i].next;
        double ci = a->cost;
        if ((add ? ci : 0) > cap) break;  // the rest of all_b costs more still
        if (d->deadline > 0 && (x & 255) == 0 && tfr_path_now() > d->deadline)
          return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                           "einsum: the dp path search passed its time budget of %g s on a "
                           "component of %d operands (use random-greedy or a larger budget)",
                           d->max_time, d->count);
        if (d->outer) {
          for (size_t y = 0; y < d->ln[all_a]; y++) {
            const tfr_dp_item *b = &d->lists[all_a][y];
            if ((add ? ci + b->cost : fmax(ci, b->cost)) > cap) break;
            if ((ka == kb && b->e <= i) || (si & b->set)) continue;
            TFR_RETURN_IF_ERROR(tfr_dp_join(d, i, b->e, cap));
          }
          continue;
        }
        for (uint64_t ops = next; ops; ops &= ops - 1) {
          int o = __builtin_ctzll(ops);
          size_t li = (size_t)ka * stride + (size_t)o;
          const tfr_dp_item *list = d->lists[li];
          for (size_t y = 0, len = d->ln[li]; y < len; y++) {
            const tfr_dp_item *b = &list[y];
            if ((add ? ci + b->cost : fmax(ci, b->cost)) > cap) break;
            if ((si & b->set) || (ka == kb && b->e <= i) || __builtin_ctzll(b->set & next) != o)
              continue;
            TFR_RETURN_IF_ERROR(tfr_dp_join(d, i, b->e, cap));
          }
        }
      }
    }
  }
  return TFR_OK;
}

// Writes the subtree of entry e into t (new internal ids from *next);
// returns its node id.
static int tfr_dp_build(const tfr_dp_state *d, int e, tfr_tree *t, int *next) {
  const tfr_dp_entry *x = &d->ent[e];
  if (x->left < 0) return d->leaves[__builtin_ctzll(x->set)];
  int a = tfr_dp_build(d, x->left, t, next), b = tfr_dp_build(d, x->right, t, next);
  int id = (*next)++;
  t->child[2 * (id - t->n)] = a;
  t->child[2 * (id - t->n) + 1] = b;
  return id;
}

static void tfr_dp_state_free(tfr_dp_state *d) {
  tfr_free(d->ext);
  tfr_free(d->holders);
  tfr_free(d->out);
  tfr_free(d->ent);
  tfr_free(d->kept);
  tfr_free(d->table);
  size_t nlists = ((size_t)d->count + 1) * ((size_t)d->count + 1);
  for (size_t k = 0; d->lists && k < nlists; k++) tfr_free(d->lists[k]);
  tfr_free(d->lists);
  tfr_free(d->ln);
  tfr_free(d->lcap);
  tfr_free(d->tmp);
}

// Searches one component (operands leaves[0..count-1]); writes its subtree
// into t, *root its node id and *size its result's elements. loc is
// int[num_labels] of -1, left so.
static tfr_status tfr_dp_component(const tfr_net *net, tfr_einsum_minimize m, double alpha,
                                   double max_time, double deadline, bool outer,
                                   const int *leaves, int count, int *loc, tfr_tree *t, int *next,
                                   int *root, double *size) {
  tfr_dp_state d = {.net = net, .m = m, .alpha = alpha, .outer = outer, .count = count,
                    .leaves = leaves, .max_time = max_time, .deadline = deadline};
  tfr_status st = TFR_OK;
  int nl = 0;
  for (int i = 0; i < count; i++)
    for (int k = net->leaf_off[leaves[i]]; k < net->leaf_off[leaves[i] + 1]; k++)
      if (loc[net->leaf_lab[k]] < 0) loc[net->leaf_lab[k]] = nl++;
  d.nl = nl;
  d.words = (nl + 63) / 64 > 0 ? (nl + 63) / 64 : 1;
  d.ext = tfr_calloc((size_t)nl + 1, sizeof(double));
  d.holders = tfr_calloc((size_t)nl + 1, sizeof(uint64_t));
  d.out = tfr_calloc((size_t)nl + 1, sizeof(bool));
  size_t nlists = ((size_t)count + 1) * ((size_t)count + 1);
  d.lists = tfr_calloc(nlists, sizeof(tfr_dp_item *));
  d.ln = tfr_calloc(nlists, sizeof(size_t));
  d.lcap = tfr_calloc(nlists, sizeof(size_t));
  d.tmp = tfr_calloc(2 * (size_t)d.words, sizeof(uint64_t));
  uint64_t *bits = tfr_calloc((size_t)d.words, sizeof(uint64_t));
  if (!d.ext || !d.holders || !d.out || !d.lists || !d.ln || !d.lcap || !d.tmp || !bits) {
    st = tfr_dp_oom();
    goto done;
  }
  double smallest = INFINITY;
  for (int i = 0; i < count; i++)
    for (int k = net->leaf_off[leaves[i]]; k < net->leaf_off[leaves[i] + 1]; k++) {
      int l = net->leaf_lab[k], x = loc[l];
      d.ext[x] = (double)net->extent[l];
      d.holders[x] |= 1ull << i;
      d.out[x] = net->is_out[l];
      if (d.ext[x] < smallest) smallest = d.ext[x];
    }
  for (int i = 0; i < count && !st; i++) {
    memset(bits, 0, (size_t)d.words * sizeof(uint64_t));
    for (int k = net->leaf_off[leaves[i]]; k < net->leaf_off[leaves[i] + 1]; k++) {
      int x = loc[net->leaf_lab[k]];
      bits[x / 64] |= 1ull << (x % 64);
    }
    st = tfr_dp_add(&d, 1ull << i, 0, net->leaf_size[leaves[i]], -1, -1, bits);
  }
  // The whole component's result: its output labels.
  double result = 1;
  for (int x = 0; x < nl; x++)
    if (d.out[x]) result *= d.ext[x];
  uint64_t full = count == 64 ? ~0ull : (1ull << count) - 1;
  double cap = fmax(result, 1), grow = fmax(smallest, 2);
  int best = count == 1 ? 0 : -1;
  while (!st && best < 0) {
    st = tfr_dp_pass(&d, cap);
    if (st) break;
    best = tfr_dp_find(&d, full);
    if (best < 0 && isinf(cap)) {  // everything was allowed (never: a component is connected)
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: the dp path search found no tree");
      break;
    }
    cap = cap * grow;
  }
  if (!st) {
    *root = tfr_dp_build(&d, best, t, next);
    *size = d.ent[best].size;
  }
done:
  for (int i = 0; i < count; i++)
    for (int k = net->leaf_off[leaves[i]]; k < net->leaf_off[leaves[i] + 1]; k++)
      loc[net->leaf_lab[k]] = -1;
  tfr_free(bits);
  tfr_dp_state_free(&d);
  return st;
}

static int tfr_dp_find_root(int *uf, int x) {
  while (uf[x] != x) x = uf[x] = uf[uf[x]];
  return x;
}

// A component's result, for joining them.
typedef struct tfr_dp_part {
  double size;
  int node, first;  // its tree node, its lowest operand
} tfr_dp_part;

static int tfr_dp_part_cmp(const void *x, const void *y) {
  const tfr_dp_part *a = x, *b = y;
  if (a->size != b->size) return a->size < b->size ? -1 : 1;
  return (a->first > b->first) - (a->first < b->first);
}

tfr_status tfr_dp(const tfr_net *net, tfr_einsum_minimize m, double alpha, double max_time,
                  int *ssa) {
  int n = net->n, L = net->num_labels;
  double deadline = max_time > 0 ? tfr_path_now() + max_time : 0;
  if (n <= 1) return TFR_OK;
  bool outer = n <= TFR_EINSUM_DP_OUTER_MAX;
  int *uf = tfr_alloc((size_t)n * sizeof(int));
  int *order = tfr_alloc((size_t)n * sizeof(int));   // operands grouped by component
  int *start = tfr_calloc((size_t)n + 2, sizeof(int));
  int *loc = tfr_alloc(((size_t)L + 1) * sizeof(int));
  tfr_dp_part *parts = tfr_alloc((size_t)n * sizeof(tfr_dp_part));
  tfr_tree t = {n, tfr_calloc(2 * (size_t)n, sizeof(int))};
  tfr_status st = TFR_OK;
  if (!uf || !order || !start || !loc || !parts || !t.child) {
    st = tfr_dp_oom();
    goto done;
  }
  for (int i = 0; i < n; i++) uf[i] = outer ? 0 : i;
  for (int l = 0; l < L; l++) loc[l] = -1;
  for (int l = 0; !outer && l < L; l++) {
    if (net->is_out[l]) continue;
    for (int k = net->hold_off[l] + 1; k < net->hold_off[l + 1]; k++) {
      int a = tfr_dp_find_root(uf, net->hold[net->hold_off[l]]), b = tfr_dp_find_root(uf, net->hold[k]);
      if (a != b) uf[a > b ? a : b] = a < b ? a : b;  // the lowest operand is the root
    }
  }
  // Every operand straight to its root (the lowest operand of its
  // component, so increasing order sees each root settled first), then a
  // counting sort by root: start[r + 1] counts, then offsets.
  for (int i = 0; i < n; i++) uf[i] = tfr_dp_find_root(uf, i);
  for (int i = 0; i < n; i++) start[uf[i] + 1]++;
  for (int r = 0; r < n; r++) start[r + 1] += start[r];
  for (int i = 0; i < n; i++) order[start[uf[i]]++] = i;
  for (int r = n; r > 0; r--) start[r] = start[r - 1];
  start[0] = 0;
  int next = n, nparts = 0;
  for (int r = 0; r < n && !st; r++) {
    int count = start[r + 1] - start[r];
    if (count == 0) continue;
    if (count > TFR_EINSUM_DP_MAX) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: the dp path search takes connected components of at most %d "
                     "operands; operand %d is in one of %d (use random-greedy)",
                     TFR_EINSUM_DP_MAX, r, count);
      break;
    }
    tfr_dp_part *p = &parts[nparts++];
    p->first = r;
    st = tfr_dp_component(net, m, alpha, max_time, deadline, outer, order + start[r], count, loc,
                          &t, &next, &p->node, &p->size);
  }
  if (!st) {
    qsort(parts, (size_t)nparts, sizeof *parts, tfr_dp_part_cmp);
    int cur = parts[0].node;
    for (int i = 1; i < nparts; i++) {
      int id = next++;
      t.child[2 * (id - n)] = cur;
      t.child[2 * (id - n) + 1] = parts[i].node;
      cur = id;
    }
    st = tfr_tree_to_ssa(&t, ssa);
  }
done:
  tfr_free(uf);
  tfr_free(order);
  tfr_free(start);
  tfr_free(loc);
  tfr_free(parts);
  tfr_tree_free(&t);
  return st;
}
