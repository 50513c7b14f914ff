// Executing an einsum plan through the public op API: views for diagonals
// and broadcast axes, reduce_sum for labels only one operand still needs,
// one dot_general per path step, one transpose at the end. Bool operands
// follow numpy's logical einsum: a sum is an OR (reduce_max on bool), a
// product an AND, and a dot_general step counts in integers (exact: a count
// never exceeds the step's contracted size) and converts back with x != 0,
// so no count carries over from one step to the next.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/validate.h"
#include "einsum/einsum_impl.h"
#include "tenferro/ops.h"

// A tensor in the working list with the label of each axis (distinct).
typedef struct tfr_item {
  tfr_tensor *t;
  int rank;
  int labels[TFR_MAX_RANK];
  int node;  // its tensor in the plan's SSA numbering
} tfr_item;

// Replaces it->t by a view without broadcast axes (extent 1 where the label
// is longer elsewhere) and with repeated labels merged into one diagonal axis.
static tfr_status tfr_item_normalise(tfr_item *it, const int *labels, const tfr_einsum_expr *e) {
  const tfr_tensor *t = it->t;
  int r = tfr_tensor_rank(t);
  const int64_t *shape = tfr_tensor_shape(t), *strides = tfr_tensor_strides(t);
  int64_t nshape[TFR_MAX_RANK], nstrides[TFR_MAX_RANK];
  int n = 0;
  bool changed = false;
  for (int k = 0; k < r; k++) {
    int l = labels[k];
    if (shape[k] == 1 && e->extent[l] != 1) {
      changed = true;  // a broadcast axis: contributes nothing
      continue;
    }
    int seen = -1;
    for (int q = 0; q < n; q++)
      if (it->labels[q] == l) seen = q;
    if (seen >= 0) {  // the diagonal: step along both axes at once
      nstrides[seen] += strides[k];
      changed = true;
      continue;
    }
    it->labels[n] = l;
    nshape[n] = shape[k];
    nstrides[n] = strides[k];
    n++;
  }
  it->rank = n;
  if (!changed) return TFR_OK;
  // An empty tensor has no element to reach: its strides (compact ones
  // saturate) summed along a diagonal could pass the view's limit, so the
  // view gets zero strides (fuzz_einsum: corpus/einsum/crash-dc9616d1...).
  if (tfr_tensor_numel(t) == 0)
    for (int k = 0; k < n; k++) nstrides[k] = 0;
  tfr_tensor *v = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_view(t, n, nshape, nstrides, tfr_tensor_offset(t), &v));
  tfr_tensor_release(it->t);
  it->t = v;
  return TFR_OK;
}

// Sums the axes of `it` whose labels no other tensor nor the output needs
// (refs[l] == 1: only this item holds it). `rec`: the profile's recorder
// (NULL: none), as for the functions below.
static tfr_status tfr_item_sum_local(tfr_session *s, tfr_item *it, int *refs,
                                     tfr_einsum_recorder *rec) {
  int64_t axes[TFR_MAX_RANK];
  int na = 0, keep = 0;
  for (int k = 0; k < it->rank; k++) {
    if (refs[it->labels[k]] == 1) {
      axes[na++] = k;
      refs[it->labels[k]]--;
    } else {
      it->labels[keep++] = it->labels[k];
    }
  }
  if (na == 0) return TFR_OK;
  tfr_tensor *r = NULL;
  double t0 = rec ? tfr_path_now() : 0;
  if (tfr_tensor_dtype(it->t) == TFR_BOOL)  // or: maximum of bools
    TFR_RETURN_IF_ERROR(tfr_reduce_max(s, it->t, na, axes, &r));
  else
    TFR_RETURN_IF_ERROR(tfr_reduce_sum(s, it->t, na, axes, &r));
  int64_t in = tfr_tensor_numel(it->t);
  tfr_tensor_release(it->t);
  it->t = r;
  it->rank = keep;
  if (rec)
    return tfr_recorder_add(rec, t0, TFR_EINSUM_OP_REDUCE, 1, 1, 1, 1, in, tfr_tensor_numel(r));
  return TFR_OK;
}

static int tfr_find_label(const tfr_item *it, int l) {
  for (int k = 0; k < it->rank; k++)
    if (it->labels[k] == l) return k;
  return -1;
}

// A view of `it` with the axes of `labels` (nr of them, a superset of the
// item's labels): stride 0 along the labels the item does not have.
static tfr_status tfr_item_broadcast_view(const tfr_item *it, int nr, const int *labels,
                                          const int64_t *shape, tfr_tensor **out) {
  int64_t strides[TFR_MAX_RANK];
  const int64_t *st = tfr_tensor_strides(it->t);
  for (int j = 0; j < nr; j++) {
    int k = tfr_find_label(it, labels[j]);
    strides[j] = k < 0 ? 0 : st[k];
  }
  return tfr_tensor_view(it->t, nr, shape, strides, tfr_tensor_offset(it->t), out);
}

// ---------------------------------------------------------------------------
// Layouts of the dot_general steps
//
// dot_general reads an operand in place (a strided BLAS matrix, batch axes
// anywhere) when its free axes merge into one stride, its contracting axes
// into another, and one of the two is the unit stride; any other operand it
// packs into a compact copy first. A step's result comes out as [batch,
// lhs free, rhs free]. So the layout a step gives its result decides whether
// the step that consumes it must copy it again. Here each step chooses, from
// the plan (which step consumes the result, with which tensor):
//   * the order of the batch labels and which operand is lhs (free), and
//   * for an operand that needs a copy anyway, the order of that copy (the
//     same work as dot_general's packing),
// so that the result is read in place by its consumer where possible; an
// operand far smaller than the result is also copied when that is what it
// takes. The last result is aimed at the output's order (no final
// transpose). On long chains this removes most copies (and with them most
// OpenMP regions, whose spinning threads slow OpenBLAS's down).
// ---------------------------------------------------------------------------

// Key of a result label: its role at the consumer (batch, free, or
// contracting, the last ordered like the partner tensor when it exists).
#define TFR_KEY_FREE 1000000
#define TFR_KEY_CON 2000000

static bool tfr_sorted_has(const int *v, int n, int x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && v[lo] == x;
}

// Axes of `it` outside axis k (larger |stride|): k's place in memory order.
static int tfr_memory_rank(const tfr_item *it, int k) {
  const int64_t *sh = tfr_tensor_shape(it->t), *st = tfr_tensor_strides(it->t);
  int r = 0;
  for (int q = 0; q < it->rank; q++)
    if (q != k && sh[q] > 1 &&
        (llabs(st[q]) > llabs(st[k]) || (llabs(st[q]) == llabs(st[k]) && q < k)))
      r++;
  return r;
}

typedef struct tfr_consumer {
  const tfr_einsum_plan *plan;
  int node, step, partner, result;  // step < 0: node is the einsum's result
  // The partner when it exists already and will be read in place there:
  // then the contracting labels must follow its order.
  const tfr_item *partner_item;
  const tfr_item *partner_any;  // the partner when it exists, read in place or not
} tfr_consumer;

static int tfr_consumer_key(const tfr_consumer *c, int l) {
  const tfr_einsum_plan *p = c->plan;
  if (c->step < 0) {  // the output's position
    for (int j = 0; j < p->expr.num_out; j++)
      if (p->expr.out_labels[j] == l) return j;
    return TFR_KEY_CON;
  }
  if (!tfr_sorted_has(p->node_labels[c->partner], p->node_count[c->partner], l)) return TFR_KEY_FREE;
  if (tfr_sorted_has(p->node_labels[c->result], p->node_count[c->result], l)) return 0;
  int k = c->partner_item ? tfr_find_label(c->partner_item, l) : -1;
  return TFR_KEY_CON + (k < 0 ? 0 : tfr_memory_rank(c->partner_item, k));
}

// Whether the consumer step multiplies without summing (its result keeps
// every label of both inputs) and `node` (of `numel` elements in this slice)
// is at least as large as the partner there: that multiply then runs in
// node's order whatever it is, so node needs no order of its own.
static bool tfr_consumer_streams(const tfr_consumer *c, int64_t numel) {
  const tfr_einsum_plan *p = c->plan;
  if (c->step < 0) return false;
  int np = p->node_count[c->partner], nn = p->node_count[c->node], uni = np;
  const int *pl = p->node_labels[c->partner], *nl = p->node_labels[c->node];
  for (int j = 0; j < nn; j++) uni += !tfr_sorted_has(pl, np, nl[j]);
  if (p->node_count[c->result] != uni) return false;
  double partner = 1;
  for (int j = 0; j < np; j++) {
    bool sliced = false;
    for (int q = 0; q < p->num_sliced && !sliced; q++) sliced = p->sliced[q] == pl[j];
    if (!sliced) partner *= (double)p->expr.extent[pl[j]];
  }
  return (double)numel >= partner;
}

// Stable insertion sort of labels by key.
static void tfr_sort_by_key(int n, int *labels, const int *keys_in) {
  int keys[TFR_MAX_RANK];
  memcpy(keys, keys_in, (size_t)n * sizeof(int));
  for (int i = 1; i < n; i++) {
    int l = labels[i], k = keys[i], j = i;
    for (; j > 0 && keys[j - 1] > k; j--) {
      labels[j] = labels[j - 1];
      keys[j] = keys[j - 1];
    }
    labels[j] = l;
    keys[j] = k;
  }
}

// Whether a compact tensor with these keys per axis (outer to inner) is read
// in place by its consumer: the free labels one run, the contracting ones
// another in increasing key order, one of the runs innermost. The result of
// the einsum: in the output's order.
static bool tfr_keys_direct(int n, const int *keys, const int64_t *ext, bool result) {
  int cls[TFR_MAX_RANK], kk[TFR_MAX_RANK], m = 0;
  for (int j = 0; j < n; j++) {
    if (ext[j] == 1) continue;
    cls[m] = keys[j] >= TFR_KEY_CON ? 2 : keys[j] >= TFR_KEY_FREE ? 1 : 0;
    kk[m++] = keys[j];
  }
  if (result) {
    for (int j = 1; j < m; j++)
      if (kk[j] <= kk[j - 1]) return false;
    return true;
  }
  bool any = false;
  for (int c = 1; c <= 2; c++) {
    int first = -1, last = -1;
    for (int j = 0; j < m; j++)
      if (cls[j] == c) {
        if (first < 0) first = j;
        last = j;
      }
    if (first < 0) continue;
    any = true;
    for (int j = first; j <= last; j++)
      if (cls[j] != c || (j > first && kk[j] < kk[j - 1])) return false;
  }
  return !any || cls[m - 1] != 0;
}

// Whether labels ls[0..n) of `x`, outer to inner, merge into one stride.
static bool tfr_item_merge(const tfr_item *x, int n, const int *ls, int64_t *extent,
                           int64_t *stride) {
  const int64_t *sh = tfr_tensor_shape(x->t), *st = tfr_tensor_strides(x->t);
  int64_t e = 1, s = 1;
  bool any = false;
  for (int i = n - 1; i >= 0; i--) {
    int k = tfr_find_label(x, ls[i]);
    if (sh[k] == 1) continue;
    if (!any) s = st[k];
    else if (st[k] != s * e) return false;
    any = true;
    e *= sh[k];
  }
  *extent = e;
  *stride = s;
  return true;
}

// Whether dot_general reads x in place with these free and contracting
// labels (tfr_dot_blas_matrix's rule: one unit stride, the other a leading
// dimension at least the extent it spans).
static bool tfr_item_direct(const tfr_item *x, int nf, const int *fr, int nc, const int *con) {
  int64_t M, K, fs, cs;
  if (!tfr_item_merge(x, nf, fr, &M, &fs) || !tfr_item_merge(x, nc, con, &K, &cs)) return false;
  if (M <= 1 && K <= 1) return true;
  if (K <= 1) return fs >= 1;
  if (M <= 1) return cs >= 1;
  return (cs == 1 && fs >= K) || (fs == 1 && cs >= M);
}

// The contracting labels ordered as they lie in x's memory, outer first.
static void tfr_order_by_memory(const tfr_item *x, int nc, const int *con, int *out) {
  int keys[TFR_MAX_RANK];
  for (int q = 0; q < nc; q++) {
    out[q] = con[q];
    keys[q] = tfr_memory_rank(x, tfr_find_label(x, con[q]));
  }
  tfr_sort_by_key(nc, out, keys);
}

static void tfr_consumer_init(tfr_consumer *c, const tfr_einsum_plan *plan, int node,
                              const tfr_item *items) {
  c->plan = plan;
  c->node = node;
  c->step = plan->consumer[node];
  c->partner = plan->partner[node];
  c->result = plan->expr.n + c->step;
  c->partner_item = c->partner_any = NULL;
  // items[k] holds node k (tfr_einsum_run): the partner is there once made
  // (an operand, or an earlier step's result) and until its step, which is
  // `node`'s too.
  if (c->step >= 0 && c->partner >= 0 && c->partner < node && items[c->partner].t)
    c->partner_item = &items[c->partner];
  const tfr_item *p = c->partner_item;
  c->partner_any = p;
  if (!p) return;
  // The partner's roles there: labels it shares with `node` that the
  // consumer's result keeps are batch, the other shared ones contracting;
  // of its own labels those the result keeps are free (the others it sums
  // first, keeping the order of the rest).
  int fr[TFR_MAX_RANK], con[TFR_MAX_RANK], nf = 0, nc = 0;
  for (int k = 0; k < p->rank; k++) {
    int l = p->labels[k];
    bool shared = tfr_sorted_has(plan->node_labels[node], plan->node_count[node], l);
    bool kept = tfr_sorted_has(plan->node_labels[c->result], plan->node_count[c->result], l);
    if (!shared && kept) fr[nf++] = l;
    else if (shared && !kept) con[nc++] = l;
  }
  int order[TFR_MAX_RANK];
  tfr_order_by_memory(p, nc, con, order);
  if (!tfr_item_direct(p, nf, fr, nc, order)) c->partner_item = NULL;
}

// Replaces x by a compact copy with labels in the order `labels`.
static tfr_status tfr_item_transpose(tfr_session *s, tfr_item *x, const int *labels,
                                     tfr_einsum_recorder *rec) {
  int64_t perm[TFR_MAX_RANK];
  for (int j = 0; j < x->rank; j++) perm[j] = tfr_find_label(x, labels[j]);
  tfr_tensor *t = NULL;
  double t0 = rec ? tfr_path_now() : 0;
  TFR_RETURN_IF_ERROR(tfr_transpose(s, x->t, perm, &t));
  tfr_tensor_release(x->t);
  x->t = t;
  memcpy(x->labels, labels, (size_t)x->rank * sizeof(int));
  if (rec) {
    int64_t numel = tfr_tensor_numel(t);
    return tfr_recorder_add(rec, t0, TFR_EINSUM_OP_TRANSPOSE, 1, 1, 1, 1, numel, numel);
  }
  return TFR_OK;
}

// A step that sums over nothing (every shared label is kept: Hadamard,
// outer and batched outer products, common in networks with hyperedges) is
// one elementwise multiply of two broadcast views. dot_general would see
// M = N = K = 1 per batch element (its strided loop, walking up to 25 batch
// axes element by element) or K = 1 GEMMs, both far slower than a multiply.
// The result's order is free: the larger operand's order (it streams through
// memory, the other operand's own labels outermost), stably sorted for the
// consumer: labels the partner there lacks first, then the shared ones in
// the partner's memory order when it exists (so a following multiply streams
// both), those it sums over last (a run dot_general reads in place); the
// einsum's result in the output's order. When the consumer is a multiply
// too and this result is the larger operand there, the order is left as it
// is (tfr_consumer_streams): sorting it for that multiply bought nothing and
// turned this one into a transpose with runs of a few elements
// (gm_queen5_5_3's chains of 3^11-element products with 3 x 3 factors:
// their multiplies 983 -> 887 ms of a 1.4 s contraction on one core; 1.1 s
// -> 0.76 s at 4 threads on the GPU machine). On the cpu only (below).
// Elements of x that a walk of the result's labels (outer to inner) reads
// as one contiguous run from the innermost: the product of the innermost
// extents while x has those labels at the strides of a compact run (`as_is`),
// or would have them once transposed into that order (!as_is).
static int64_t tfr_item_inner_run(const tfr_item *x, int nr, const int *labels, bool as_is) {
  const int64_t *sh = tfr_tensor_shape(x->t), *st = tfr_tensor_strides(x->t);
  int64_t run = 1;
  for (int j = nr - 1; j >= 0; j--) {
    int k = tfr_find_label(x, labels[j]);
    if (k >= 0 && sh[k] == 1) continue;
    if (k < 0 || (as_is && st[k] != run)) break;
    run *= sh[k];
  }
  return run;
}

// Short inner runs below which a multiply first transposes a large operand
// that is not in the result's order (see tfr_multiply_pair).
#define TFR_MULTIPLY_MIN_RUN 16

static tfr_status tfr_multiply_pair(tfr_session *s, const tfr_consumer *cons, tfr_item *a,
                                    tfr_item *b, tfr_item *out) {
  const tfr_item *big = a, *small = b;
  if (tfr_tensor_numel(b->t) > tfr_tensor_numel(a->t)) {
    big = b;
    small = a;
  }
  int nr = big->rank;
  for (int k = 0; k < small->rank; k++) nr += tfr_find_label(big, small->labels[k]) < 0;
  if (nr > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: an intermediate would have rank %d (max %d)",
                     nr, TFR_MAX_RANK);
  nr = 0;
  int64_t numel = tfr_tensor_numel(big->t);  // the result's
  for (int k = 0; k < small->rank; k++)
    if (tfr_find_label(big, small->labels[k]) < 0) {
      out->labels[nr++] = small->labels[k];
      numel *= tfr_tensor_shape(small->t)[k];
    }
  for (int k = 0; k < big->rank; k++) out->labels[nr++] = big->labels[k];
  out->rank = nr;
  int keys[TFR_MAX_RANK];
  const tfr_einsum_plan *p = cons->plan;
  // Both layout rules below (keeping the order; transposing an operand
  // first) are the cpu's: on webgpu the first alone made gm_queen5_5_3
  // slower (H200: 10.0 -> 12.3 ms), a GPU's threads reading short runs well.
  bool cpu = tfr_backend_get_kind(tfr_session_backend(s)) == TFR_BACKEND_CPU;
  bool streams = cpu && tfr_consumer_streams(cons, numel);
  for (int j = 0; j < nr; j++) {
    int l = out->labels[j];
    if (streams) {
      keys[j] = 0;
    } else if (cons->step < 0) {
      keys[j] = tfr_consumer_key(cons, l);
    } else if (!tfr_sorted_has(p->node_labels[cons->partner], p->node_count[cons->partner], l)) {
      keys[j] = 0;
    } else {
      int k = cons->partner_any ? tfr_find_label(cons->partner_any, l) : -1;
      int rank = k < 0 ? 0 : 1 + tfr_memory_rank(cons->partner_any, k);
      bool kept = tfr_sorted_has(p->node_labels[cons->result], p->node_count[cons->result], l);
      keys[j] = (kept ? TFR_KEY_FREE : TFR_KEY_CON) + rank;
    }
  }
  tfr_sort_by_key(nr, out->labels, keys);
  int64_t shape[TFR_MAX_RANK];
  for (int j = 0; j < nr; j++) {
    int k = tfr_find_label(a, out->labels[j]);
    shape[j] = k >= 0 ? tfr_tensor_shape(a->t)[k]
                      : tfr_tensor_shape(b->t)[tfr_find_label(b, out->labels[j])];
  }
  tfr_einsum_recorder *rec = p->recorder;
  // A large operand (a quarter of the result or more) that the walk in the
  // result's order reads in runs of a few elements is transposed into that
  // order first: the blocked copy and a multiply of long runs beat one pass
  // that gathers element by element (gm_queen5_5_3's products of 3^11
  // elements in different orders: 7 GB/s in one pass).
  tfr_item *in[2] = {a, b};
  for (int i = 0; cpu && i < 2; i++) {
    tfr_item *x = in[i];
    if (tfr_tensor_numel(x->t) * 4 < numel || numel < 4096 ||
        tfr_item_inner_run(x, nr, out->labels, true) >= TFR_MULTIPLY_MIN_RUN ||
        tfr_item_inner_run(x, nr, out->labels, false) < TFR_MULTIPLY_MIN_RUN)
      continue;
    int order[TFR_MAX_RANK], m = 0;
    for (int j = 0; j < nr; j++)
      if (tfr_find_label(x, out->labels[j]) >= 0) order[m++] = out->labels[j];
    TFR_RETURN_IF_ERROR(tfr_item_transpose(s, x, order, rec));
  }
  tfr_tensor *va = NULL, *vb = NULL;
  double t0 = rec ? tfr_path_now() : 0;
  tfr_status st = tfr_item_broadcast_view(a, nr, out->labels, shape, &va);
  if (!st) st = tfr_item_broadcast_view(b, nr, out->labels, shape, &vb);
  if (!st)
    st = tfr_tensor_dtype(va) == TFR_BOOL ? tfr_binary(s, TFR_AND, va, vb, &out->t)
                                          : tfr_multiply(s, va, vb, &out->t);
  tfr_tensor_release(va);
  tfr_tensor_release(vb);
  if (!st && rec) {
    // An outer product: no shared label (nr is the sum of the ranks).
    bool outer = a->rank > 0 && b->rank > 0 && nr == a->rank + b->rank;
    st = tfr_recorder_add(rec, t0, outer ? TFR_EINSUM_OP_OUTER_PRODUCT : TFR_EINSUM_OP_MULTIPLY, 1,
                          1, 1, 1, tfr_tensor_numel(a->t) + tfr_tensor_numel(b->t),
                          tfr_tensor_numel(out->t));
    if (st) {
      tfr_tensor_release(out->t);
      out->t = NULL;
    }
  }
  return st;
}

// dot_general of bool operands: the number of true products per result
// element, in i32 when the contracted size stays below 2^31 (i64 beyond),
// then x != 0.
static tfr_status tfr_dot_logical(tfr_session *s, const tfr_tensor *lhs, const tfr_tensor *rhs,
                                  const tfr_dot_config *cfg, tfr_tensor **out) {
  double contracted = 1;
  for (int q = 0; q < cfg->num_contracting_dims; q++)
    contracted *= (double)tfr_tensor_shape(lhs)[cfg->lhs_contracting_dimensions[q]];
  tfr_dtype count = contracted < 2147483648.0 ? TFR_I32 : TFR_I64;
  tfr_tensor *l = NULL, *r = NULL, *c = NULL;
  tfr_status st = tfr_convert(s, lhs, count, &l);
  if (!st) st = tfr_convert(s, rhs, count, &r);
  if (!st) st = tfr_dot_general(s, l, r, cfg, &c);
  if (!st) st = tfr_convert(s, c, TFR_BOOL, out);
  tfr_tensor_release(l);
  tfr_tensor_release(r);
  tfr_tensor_release(c);
  return st;
}

// Records a dot_general step begun at t0 (its kind from B, M, N, K: einsum.h).
static tfr_status tfr_dot_record(tfr_einsum_recorder *rec, double t0, const tfr_item *lhs,
                                 const tfr_item *rhs, const tfr_dot_config *cfg,
                                 const tfr_tensor *out) {
  const int64_t *ls = tfr_tensor_shape(lhs->t);
  int64_t B = 1, K = 1;
  for (int q = 0; q < cfg->num_batching_dims; q++) B *= ls[cfg->lhs_batching_dimensions[q]];
  for (int q = 0; q < cfg->num_contracting_dims; q++) K *= ls[cfg->lhs_contracting_dimensions[q]];
  // The free extents: the labels the other operand lacks.
  int64_t M = 1, N = 1;
  for (int k = 0; k < lhs->rank; k++)
    if (tfr_find_label(rhs, lhs->labels[k]) < 0) M *= ls[k];
  for (int k = 0; k < rhs->rank; k++)
    if (tfr_find_label(lhs, rhs->labels[k]) < 0) N *= tfr_tensor_shape(rhs->t)[k];
  tfr_einsum_op_kind kind = M == 1 && N == 1 ? TFR_EINSUM_OP_DOT
                            : M == 1 || N == 1 ? TFR_EINSUM_OP_GEMV
                                               : TFR_EINSUM_OP_GEMM;
  if (B > 1) kind = (tfr_einsum_op_kind)(kind + 1);  // its BATCHED_ kind
  return tfr_recorder_add(rec, t0, kind, B, M, N, K,
                          tfr_tensor_numel(lhs->t) + tfr_tensor_numel(rhs->t), tfr_tensor_numel(out));
}

// Whether the cpu runs the step a . b as a looped product (core/validate.h:
// one small GEMM per index of the outer contracting labels, both operands
// read in place): the same question its dot_general asks, on the same
// geometry (which reads no batch axis). fr: each operand's free labels in
// its axis order; con: the contracting labels.
static bool tfr_pair_looped(const tfr_item *a, const tfr_item *b, const int *nf,
                            int fr[2][TFR_MAX_RANK], int nc, const int *con) {
  tfr_dot_desc d;
  memset(&d, 0, sizeof d);
  d.dtype = tfr_tensor_dtype(a->t);
  d.ncontract = nc;
  d.nlhs_free = nf[0];
  d.nrhs_free = nf[1];
  for (int q = 0; q < nc; q++) {
    d.lhs_contract[q] = tfr_find_label(a, con[q]);
    d.rhs_contract[q] = tfr_find_label(b, con[q]);
  }
  for (int q = 0; q < nf[0]; q++) d.lhs_free[q] = tfr_find_label(a, fr[0][q]);
  for (int q = 0; q < nf[1]; q++) d.rhs_free[q] = tfr_find_label(b, fr[1][q]);
  return tfr_dot_loop_contracting(&d, tfr_tensor_shape(a->t), tfr_tensor_strides(a->t),
                                   tfr_tensor_shape(b->t), tfr_tensor_strides(b->t)) > 0;
}

// One dot_general step (it sums over at least one shared label).
static tfr_status tfr_dot_pair(tfr_session *s, const tfr_consumer *cons, tfr_item *a, tfr_item *b,
                               const int *refs, tfr_item *out) {
  int bat[TFR_MAX_RANK], con[TFR_MAX_RANK], fr[2][TFR_MAX_RANK], nf[2] = {0, 0};
  int nb = 0, nc = 0;
  for (int k = 0; k < a->rank; k++) {
    int l = a->labels[k];
    if (tfr_find_label(b, l) < 0) fr[0][nf[0]++] = l;
    else if (refs[l] > 2) bat[nb++] = l;  // someone else (or the output) still needs it
    else con[nc++] = l;
  }
  for (int k = 0; k < b->rank; k++)
    if (tfr_find_label(a, b->labels[k]) < 0) fr[1][nf[1]++] = b->labels[k];
  int nr = nb + nf[0] + nf[1];
  if (nr > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: an intermediate would have rank %d (max %d)",
                     nr, TFR_MAX_RANK);
  tfr_item *x[2] = {a, b};
  // Keys and extents of the result's labels, by label.
  int bkey[TFR_MAX_RANK], fkey[2][TFR_MAX_RANK];
  int64_t bext[TFR_MAX_RANK], fext[2][TFR_MAX_RANK];
  for (int q = 0; q < nb; q++) {
    bkey[q] = tfr_consumer_key(cons, bat[q]);
    bext[q] = tfr_tensor_shape(a->t)[tfr_find_label(a, bat[q])];
  }
  tfr_sort_by_key(nb, bat, bkey);
  for (int q = 0; q < nb; q++) {
    bkey[q] = tfr_consumer_key(cons, bat[q]);
    bext[q] = tfr_tensor_shape(a->t)[tfr_find_label(a, bat[q])];
  }
  // The contracting order: the bigger operand's memory order when it can be
  // read in place, else the smaller one's.
  int big = tfr_tensor_numel(b->t) > tfr_tensor_numel(a->t) ? 1 : 0;
  int order[TFR_MAX_RANK];
  tfr_order_by_memory(x[big], nc, con, order);
  bool direct[2];
  direct[big] = tfr_item_direct(x[big], nf[big], fr[big], nc, order);
  if (!direct[big]) {
    int other[TFR_MAX_RANK];
    tfr_order_by_memory(x[1 - big], nc, con, other);
    if (tfr_item_direct(x[1 - big], nf[1 - big], fr[1 - big], nc, other))
      memcpy(order, other, (size_t)nc * sizeof(int));
  }
  direct[1 - big] = tfr_item_direct(x[1 - big], nf[1 - big], fr[1 - big], nc, order);
  // The cpu reads both operands of a looped product in place.
  if ((!direct[0] || !direct[1]) &&
      tfr_backend_get_kind(tfr_session_backend(s)) == TFR_BACKEND_CPU &&
      tfr_pair_looped(a, b, nf, fr, nc, con))
    direct[0] = direct[1] = true;
  // A copied operand's free labels go in the consumer's order.
  int sorted[2][TFR_MAX_RANK];
  for (int i = 0; i < 2; i++) {
    memcpy(sorted[i], fr[i], (size_t)nf[i] * sizeof(int));
    for (int q = 0; q < nf[i]; q++) {
      fkey[i][q] = tfr_consumer_key(cons, fr[i][q]);
      fext[i][q] = tfr_tensor_shape(x[i]->t)[tfr_find_label(x[i], fr[i][q])];
    }
  }
  // Candidates: which operands are copied (those that must be, then also the
  // small ones), which is lhs; the first whose result suits the consumer.
  int64_t rnumel = 1;
  for (int q = 0; q < nb; q++) rnumel *= bext[q];
  for (int i = 0; i < 2; i++)
    for (int q = 0; q < nf[i]; q++) rnumel *= fext[i][q];
  // Cost: the elements copied now, plus the result's when its consumer (or
  // the final transpose) must copy it.
  bool copy[2] = {!direct[0], !direct[1]}, best_copy[2] = {copy[0], copy[1]};
  int best_swap = 0;
  double best_cost = INFINITY;
  for (int extra = 0; extra < 4; extra++) {
    bool c[2] = {copy[0] || (extra & 1), copy[1] || (extra & 2)};
    if (extra && c[0] == copy[0] && c[1] == copy[1]) continue;
    double copied = (c[0] ? (double)tfr_tensor_numel(a->t) : 0) + (c[1] ? (double)tfr_tensor_numel(b->t) : 0);
    for (int swap = 0; swap < 2; swap++) {
      int keys[TFR_MAX_RANK], m = 0;
      int64_t ext[TFR_MAX_RANK];
      for (int q = 0; q < nb; q++) {
        keys[m] = bkey[q];
        ext[m++] = bext[q];
      }
      for (int side = 0; side < 2; side++) {
        int i = side ^ swap;
        int fk[TFR_MAX_RANK];
        int64_t fe[TFR_MAX_RANK];
        memcpy(fk, fkey[i], (size_t)nf[i] * sizeof(int));
        memcpy(fe, fext[i], (size_t)nf[i] * sizeof(int64_t));
        if (c[i]) {  // sorted by key (insertion sort of key/extent pairs)
          for (int p = 1; p < nf[i]; p++)
            for (int q = p; q > 0 && fk[q - 1] > fk[q]; q--) {
              int tk = fk[q];
              fk[q] = fk[q - 1];
              fk[q - 1] = tk;
              int64_t te = fe[q];
              fe[q] = fe[q - 1];
              fe[q - 1] = te;
            }
        }
        for (int q = 0; q < nf[i]; q++) {
          keys[m] = fk[q];
          ext[m++] = fe[q];
        }
      }
      bool ok = tfr_keys_direct(m, keys, ext, cons->step < 0);
      double cost = copied + (ok ? 0 : (double)rnumel);
      if (cost < best_cost) {
        best_cost = cost;
        best_swap = swap;
        best_copy[0] = c[0];
        best_copy[1] = c[1];
      }
    }
  }
  for (int i = 0; i < 2; i++) {
    if (!best_copy[i]) continue;
    tfr_sort_by_key(nf[i], sorted[i], fkey[i]);
    int labels[TFR_MAX_RANK], m = 0;
    for (int q = 0; q < nb; q++) labels[m++] = bat[q];
    for (int q = 0; q < nf[i]; q++) labels[m++] = sorted[i][q];
    for (int q = 0; q < nc; q++) labels[m++] = order[q];
    TFR_RETURN_IF_ERROR(tfr_item_transpose(s, x[i], labels, cons->plan->recorder));
  }
  const tfr_item *lhs = x[best_swap], *rhs = x[1 - best_swap];
  int64_t lb[TFR_MAX_RANK], rb[TFR_MAX_RANK], lc[TFR_MAX_RANK], rc[TFR_MAX_RANK];
  for (int q = 0; q < nb; q++) {
    lb[q] = tfr_find_label(lhs, bat[q]);
    rb[q] = tfr_find_label(rhs, bat[q]);
  }
  for (int q = 0; q < nc; q++) {
    lc[q] = tfr_find_label(lhs, order[q]);
    rc[q] = tfr_find_label(rhs, order[q]);
  }
  // Result labels: batch, then lhs's free, then rhs's free (dot_general's order).
  nr = 0;
  for (int q = 0; q < nb; q++) out->labels[nr++] = bat[q];
  for (int k = 0; k < lhs->rank; k++)
    if (tfr_find_label(rhs, lhs->labels[k]) < 0) out->labels[nr++] = lhs->labels[k];
  for (int k = 0; k < rhs->rank; k++)
    if (tfr_find_label(lhs, rhs->labels[k]) < 0) out->labels[nr++] = rhs->labels[k];
  out->rank = nr;
  tfr_dot_config cfg = {nb, lb, rb, nc, lc, rc, false, false};
  tfr_einsum_recorder *rec = cons->plan->recorder;
  double t0 = rec ? tfr_path_now() : 0;
  tfr_status st = tfr_tensor_dtype(lhs->t) == TFR_BOOL
                      ? tfr_dot_logical(s, lhs->t, rhs->t, &cfg, &out->t)
                      : tfr_dot_general(s, lhs->t, rhs->t, &cfg, &out->t);
  if (!st && rec && (st = tfr_dot_record(rec, t0, lhs, rhs, &cfg, out->t)) != TFR_OK) {
    tfr_tensor_release(out->t);
    out->t = NULL;
  }
  return st;
}

// One path step: out = contraction of a and b (both consumed).
static tfr_status tfr_contract_pair(tfr_session *s, const tfr_consumer *cons, tfr_item *a,
                                    tfr_item *b, int *refs, tfr_item *out) {
  TFR_RETURN_IF_ERROR(tfr_item_sum_local(s, a, refs, cons->plan->recorder));
  TFR_RETURN_IF_ERROR(tfr_item_sum_local(s, b, refs, cons->plan->recorder));
  bool sums = false;
  for (int k = 0; k < a->rank && !sums; k++)
    sums = refs[a->labels[k]] <= 2 && tfr_find_label(b, a->labels[k]) >= 0;
  if (sums) TFR_RETURN_IF_ERROR(tfr_dot_pair(s, cons, a, b, refs, out));
  else TFR_RETURN_IF_ERROR(tfr_multiply_pair(s, cons, a, b, out));
  for (int k = 0; k < a->rank; k++) refs[a->labels[k]]--;
  for (int k = 0; k < b->rank; k++) refs[b->labels[k]]--;
  for (int k = 0; k < out->rank; k++) refs[out->labels[k]]++;
  return TFR_OK;
}

int tfr_einsum_view_axes(const tfr_einsum_expr *e, int32_t *axis_out) {
  if (e->n != 1) return -1;
  int distinct = 0;
  for (int k = 0; k < e->ranks[0]; k++) {
    int l = e->labels[0][k];
    bool seen = false;
    for (int q = 0; q < k && !seen; q++) seen = e->labels[0][q] == l;
    distinct += !seen;
    // A broadcast axis (extent 1, the label longer on another axis) steps
    // along nothing, as in tfr_item_normalise.
    int j = -1;
    if (!(e->shapes[0][k] == 1 && e->extent[l] != 1))
      for (int q = 0; q < e->num_out && j < 0; q++)
        if (e->out_labels[q] == l) j = q;
    if (axis_out) axis_out[k] = j;
  }
  return distinct == e->num_out ? e->num_out : -1;
}

tfr_status tfr_einsum_view(const tfr_einsum_plan *plan, const tfr_tensor *operand,
                           tfr_tensor **out) {
  const tfr_einsum_expr *e = &plan->expr;
  int32_t axis_out[TFR_MAX_RANK];
  int nr = tfr_einsum_view_axes(e, axis_out);
  int64_t shape[TFR_MAX_RANK], strides[TFR_MAX_RANK];
  for (int j = 0; j < nr; j++) {
    shape[j] = e->extent[e->out_labels[j]];
    strides[j] = 0;
  }
  // Strides within +-2^50 (the view's limit) each: their sums do not
  // overflow. An empty operand reaches no element: zero strides, as the
  // executor's diagonals of empty operands (tfr_item_normalise).
  if (tfr_tensor_numel(operand) > 0)
    for (int k = 0; k < e->ranks[0]; k++)
      if (axis_out[k] >= 0) strides[axis_out[k]] += tfr_tensor_strides(operand)[k];
  return tfr_tensor_view(operand, nr, shape, strides, tfr_tensor_offset(operand), out);
}

tfr_status tfr_einsum_check_operands(tfr_session *session, const tfr_einsum_plan *plan,
                                     const tfr_tensor *const *operands) {
  TFR_RETURN_IF_ERROR(tfr_einsum_check_shapes(plan, operands));
  if (!tfr_session_backend(session))
    return tfr_error(TFR_ERR_NO_SESSION, "einsum: the session is not active on this thread");
  return TFR_OK;
}

tfr_status tfr_einsum_check_shapes(const tfr_einsum_plan *plan, const tfr_tensor *const *operands) {
  const tfr_einsum_expr *e = &plan->expr;
  for (int i = 0; i < e->n; i++) {
    const tfr_tensor *t = operands[i];
    if (!t) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: operand %d is NULL", i);
    if (tfr_tensor_dtype(t) != tfr_tensor_dtype(operands[0]))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: operand %d has dtype %s, operand 0 has %s (convert first)", i,
                       tfr_dtype_name(tfr_tensor_dtype(t)), tfr_dtype_name(tfr_tensor_dtype(operands[0])));
    bool same = tfr_tensor_rank(t) == e->ranks[i];
    for (int k = 0; same && k < e->ranks[i]; k++) same = tfr_tensor_shape(t)[k] == e->shapes[i][k];
    if (!same)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "einsum: operand %d's shape differs from the one the plan was made for", i);
  }
  return TFR_OK;
}

tfr_status tfr_einsum_run(tfr_session *session, const tfr_einsum_plan *plan,
                          const tfr_tensor *const *operands, const bool *dropped,
                          tfr_tensor **out) {
  if (!dropped) {  // a tiny network: one loop, not its steps
    tfr_status direct = tfr_einsum_sum_of_products(session, plan, operands, out);
    if (direct != TFR_ERR_UNSUPPORTED_DTYPE) return direct;
  }
  const tfr_einsum_expr *e = &plan->expr;
  int n = e->n;
  // Every tensor of the path has its slot (n operands, then one per step);
  // the working list holds slot numbers, so that dropping two and appending
  // one moves ints rather than items (a network of 400 tensors moved 100 KB
  // per step, most of the time of a run of small slices).
  // One block for the three (a small network's on the stack: a tiny
  // contraction's run would otherwise spend a good part of its time in the
  // allocator).
  size_t n_items = (size_t)(n + plan->num_steps), n_refs = (size_t)e->num_labels + 1;
  size_t bytes = n_items * sizeof(tfr_item) + ((size_t)n + n_refs) * sizeof(int);
  _Alignas(tfr_item) unsigned char local[8 * sizeof(tfr_item) + 64 * sizeof(int)];
  void *block = bytes <= sizeof local ? memset(local, 0, bytes) : tfr_calloc(1, bytes);
  if (!block) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  tfr_item *items = block;
  int *list = (int *)(items + n_items);
  int *refs = list + n;
  tfr_status st = TFR_OK;
  for (int i = 0; i < n; i++) {
    tfr_tensor_retain((tfr_tensor *)operands[i]);
    items[i].t = (tfr_tensor *)operands[i];
    items[i].node = i;
    list[i] = i;
  }
  for (int i = 0; !st && i < n; i++) st = tfr_item_normalise(&items[i], e->labels[i], e);
  for (int i = 0; !st && i < n; i++)
    for (int k = 0; k < items[i].rank; k++) refs[items[i].labels[k]]++;
  for (int j = 0; j < e->num_out; j++)
    if (!dropped || !dropped[e->out_labels[j]]) refs[e->out_labels[j]]++;

  int len = n;
  double flops_done = 0;
  for (int step = 0; !st && step < plan->num_steps; step++) {
    int pa = plan->path[2 * step], pb = plan->path[2 * step + 1];
    tfr_item r = {.node = n + step};
    tfr_consumer cons;
    tfr_consumer_init(&cons, plan, n + step, items);
    if (plan->recorder) plan->recorder->step = step;
    tfr_item *a = &items[list[pa]], *b = &items[list[pb]];
    st = tfr_contract_pair(session, &cons, a, b, refs, &r);
    if (st) break;
    tfr_tensor_release(a->t);
    tfr_tensor_release(b->t);
    a->t = b->t = NULL;
    int lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
    memmove(&list[hi], &list[hi + 1], (size_t)(len - hi - 1) * sizeof(int));
    len--;
    memmove(&list[lo], &list[lo + 1], (size_t)(len - lo - 1) * sizeof(int));
    len--;
    items[n + step] = r;
    list[len++] = n + step;
    flops_done += plan->step_flops[step];
    if (plan->progress) plan->progress(plan->progress_ctx, step + 1, plan->num_steps, flops_done);
  }
  if (!st) {
    // The last tensor: sum what the output lacks, then order the axes.
    tfr_item *it = &items[list[0]];
    tfr_einsum_recorder *rec = plan->recorder;
    if (rec) rec->step = -1;
    st = tfr_item_sum_local(session, it, refs, rec);
    int64_t perm[TFR_MAX_RANK];
    int nperm = 0;
    bool identity = true;
    for (int j = 0; !st && j < e->num_out; j++) {
      if (dropped && dropped[e->out_labels[j]]) continue;
      perm[nperm] = tfr_find_label(it, e->out_labels[j]);
      if (perm[nperm] != nperm) identity = false;
      nperm++;
    }
    if (!st) {
      // Operands are the caller's: a result that still is one (or a view of
      // one) gets copied, so `out` is always a new compact tensor.
      bool is_input_view = n == 1 && plan->num_steps == 0;
      if (identity && !is_input_view && tfr_tensor_is_contiguous(it->t)) {
        tfr_tensor_retain(it->t);
        *out = it->t;
      } else {
        double t0 = rec ? tfr_path_now() : 0;
        st = tfr_transpose(session, it->t, perm, out);
        if (!st && rec) {
          int64_t numel = tfr_tensor_numel(*out);
          st = tfr_recorder_add(rec, t0, TFR_EINSUM_OP_TRANSPOSE, 1, 1, 1, 1, numel, numel);
          if (st) {
            tfr_tensor_release(*out);
            *out = NULL;
          }
        }
      }
    }
  }
  for (int i = 0; i < len; i++) tfr_tensor_release(items[list[i]].t);
  if (block != local) tfr_free(block);
  return st;
}

