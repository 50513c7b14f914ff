// Slicing a plan (einsum.h): the network is contracted once per value of
// the sliced labels, along the same path, each operand seen through a view
// that fixes its sliced axes (extent 1 there, which the executor drops as a
// broadcast axis). A slice's result is the output's block at the fixed
// values of the sliced output labels; slices that differ only in sliced
// summed labels add into the same block (bool: OR).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend_impl.h"  // tfr_tensor_alloc: the result on the session's backend
#include "einsum/einsum_impl.h"
#include "einsum/slice.h"
#include "tenferro/ops.h"

static bool tfr_slice_is_output(const tfr_einsum_expr *e, int l) {
  for (int j = 0; j < e->num_out; j++)
    if (e->out_labels[j] == l) return true;
  return false;
}

static int tfr_cmp_int_asc(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Whether sorted label list `ls` (count n) has label l.
static bool tfr_slice_has(const int *ls, int n, int l) {
  for (int i = 0; i < n; i++)
    if (ls[i] == l) return true;
  return false;
}

// The extent product of the labels of `sl` (ns of them) among ls (count n):
// the factor a slice divides a tensor or a step by.
static double tfr_slice_factor(const tfr_einsum_plan *plan, const int *sl, int ns, const int *ls,
                               int n) {
  double f = 1;
  for (int j = 0; j < ns; j++)
    if (tfr_slice_has(ls, n, sl[j])) f *= (double)plan->expr.extent[sl[j]];
  return f;
}

// (tfr_slice_eval: slice.h.)
void tfr_slice_eval(const tfr_einsum_plan *plan, const int *sl, int ns, tfr_slice_figures *f) {
  const tfr_einsum_expr *e = &plan->expr;
  int n = e->n;
  double slices = 1, operands = 0, output = 1;
  for (int j = 0; j < ns; j++) slices *= (double)e->extent[sl[j]];
  // The operands, held whole by the caller, as the path's statistics count them.
  operands = tfr_einsum_operand_elements(e);
  for (int j = 0; j < e->num_out; j++) output *= (double)e->extent[e->out_labels[j]];
  double flops = 0, live = 0;
  f->largest = 0;
  // The output is held apart from the steps when slices add up in it, and
  // when there is no step (one operand: its diagonal / sum is the output).
  bool held_output = ns > 0 || plan->num_steps == 0;
  f->peak = operands + (held_output ? output : 0);
  f->peak_step = -1;
  // size[v]: the sliced size of intermediate v (SSA id n + step).
  for (int step = 0; step < plan->num_steps; step++) {
    const int *in = &plan->step_inputs[2 * step];
    const int m = 2;
    int u[2 * TFR_MAX_RANK + 2], nu = 0;
    for (int q = 0; q < m; q++)
      for (int i = 0; i < plan->node_count[in[q]]; i++)
        if (!tfr_slice_has(u, nu, plan->node_labels[in[q]][i]) && nu < 2 * TFR_MAX_RANK + 2)
          u[nu++] = plan->node_labels[in[q]][i];
    flops += plan->step_flops[step] / tfr_slice_factor(plan, sl, ns, u, nu);
    int r = n + step;
    double size = 1;
    for (int i = 0; i < plan->node_count[r]; i++) size *= (double)e->extent[plan->node_labels[r][i]];
    size /= tfr_slice_factor(plan, sl, ns, plan->node_labels[r], plan->node_count[r]);
    if (size > f->largest) f->largest = size;
    double now = operands + (held_output ? output : 0) + live + size;
    if (now > f->peak) {
      f->peak = now;
      f->peak_step = step;
    }
    // Afterwards the step's intermediate inputs are released.
    for (int q = 0; q < m; q++)
      if (in[q] >= n) {
        double x = 1;
        for (int i = 0; i < plan->node_count[in[q]]; i++)
          x *= (double)e->extent[plan->node_labels[in[q]][i]];
        live -= x / tfr_slice_factor(plan, sl, ns, plan->node_labels[in[q]], plan->node_count[in[q]]);
      }
    live += size;
  }
  f->flops = flops * slices;
}

void tfr_einsum_slice_stats(tfr_einsum_plan *plan) {
  tfr_einsum_path_info *info = &plan->info;
  info->num_slices = tfr_einsum_plan_num_slices(plan);
  info->sliced_flops = info->flops;
  info->sliced_largest_intermediate = info->largest_intermediate;
  info->sliced_peak_live_elements = info->peak_live_elements;
  if (plan->num_sliced == 0 || !plan->node_labels || info->num_slices == 0) return;
  // (Unsliced, tfr_slice_eval gives the path's own peak_live_elements.)
  tfr_slice_figures f;
  tfr_slice_eval(plan, plan->sliced, plan->num_sliced, &f);
  info->sliced_flops = f.flops;
  info->sliced_largest_intermediate = (int64_t)f.largest;
  info->sliced_peak_live_elements = f.peak;
}

bool tfr_slice_extend(const tfr_einsum_plan *plan, double max_elements, const bool *banned,
                      double alpha, int *sl, int *ns, tfr_slice_figures *f) {
  const tfr_einsum_expr *e = &plan->expr;
  tfr_slice_eval(plan, sl, *ns, f);
  // Greedy: while one slice needs too much, slice one more label of the
  // largest intermediate alive at the worst step, the one that adds the
  // fewest flops per memory saved.
  while (f->peak > max_elements) {
    int best = -1;
    tfr_slice_figures bf = {0};
    int n = e->n;
    // The largest intermediate alive at the worst step (its result or one
    // waiting for a later step): slicing one of its labels shrinks it.
    int big = -1;
    double big_size = -1;
    for (int v = n; v <= n + f->peak_step && f->peak_step >= 0; v++) {
      int cons = plan->consumer[v];
      if (v != n + f->peak_step && cons >= 0 && cons < f->peak_step) continue;
      double x = 1;
      for (int i = 0; i < plan->node_count[v]; i++) x *= (double)e->extent[plan->node_labels[v][i]];
      x /= tfr_slice_factor(plan, sl, *ns, plan->node_labels[v], plan->node_count[v]);
      if (x > big_size) {
        big_size = x;
        big = v;
      }
    }
    // Among its labels, the one that adds the fewest flops per memory saved
    // (log(flops after / before) / log(memory before / after)^alpha; ties:
    // the smaller memory); only labels that lower the memory count.
    double best_score = 0;
    for (int c = 0; big >= 0 && c < plan->node_count[big] && *ns < TFR_EINSUM_MAX_SLICED; c++) {
      int l = plan->node_labels[big][c];
      if (e->extent[l] <= 1 || tfr_slice_has(sl, *ns, l) || (banned && banned[l])) continue;
      sl[*ns] = l;
      tfr_slice_figures g;
      tfr_slice_eval(plan, sl, *ns + 1, &g);
      if (!(g.peak < f->peak)) continue;
      double saved = log(f->peak / g.peak);
      double score = log(g.flops / f->flops) / (alpha == 1 ? saved : pow(saved, alpha));
      if (best < 0 || score < best_score || (score == best_score && g.peak < bf.peak)) {
        best = l;
        bf = g;
        best_score = score;
      }
    }
    if (best < 0) return false;
    sl[(*ns)++] = best;
    *f = bf;
  }
  return true;
}

tfr_status tfr_einsum_plan_slice_to_fit(tfr_einsum_plan *plan, double max_elements) {
  if (!plan) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: plan is NULL");
  if (!(max_elements > 0))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice_to_fit: a memory limit of %g "
                     "elements (it must be positive)", max_elements);
  const tfr_einsum_expr *e = &plan->expr;
  int sl[TFR_EINSUM_MAX_SLICED] = {0}, ns = 0;
  tfr_slice_figures f;
  if (!tfr_slice_extend(plan, max_elements, NULL, 1, sl, &ns, &f))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: slice_to_fit: no slicing fits %.4g elements: with %d label(s) "
                     "sliced one slice still needs %.4g (the operands and the output alone: "
                     "they are held whole)", max_elements, ns, f.peak);
  int32_t names[TFR_EINSUM_MAX_SLICED];
  for (int j = 0; j < ns; j++) names[j] = e->names[sl[j]];
  return tfr_einsum_plan_slice_labels(plan, ns, names);
}

tfr_status tfr_einsum_plan_slice_to_count(tfr_einsum_plan *plan, int64_t min_slices) {
  if (!plan) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: plan is NULL");
  if (min_slices < 1)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice_to_count: %" PRId64 " slices (at "
                     "least 1)", min_slices);
  const tfr_einsum_expr *e = &plan->expr;
  int64_t slices = tfr_einsum_plan_num_slices(plan);
  if (slices == 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice_to_count: the plan has no slices "
                     "(a sliced label of extent 0)");
  int sl[TFR_EINSUM_MAX_SLICED], ns = plan->num_sliced;
  for (int j = 0; j < ns; j++) sl[j] = plan->sliced[j];
  tfr_slice_figures f;
  tfr_slice_eval(plan, sl, ns, &f);
  // Greedy: the label that adds the fewest flops per factor of slices
  // gained (the ratio of the logarithms), the factor counted up to what is
  // still missing (a label of extent 1100 gains no more than one of 12 when
  // 8 slices are asked for); ties: the smaller extent, then the lower label.
  // On the way, the cheapest set that one more label completes is kept: the
  // greedy sets' last steps can cost more than one large label would.
  int done[TFR_EINSUM_MAX_SLICED], nd = -1;
  double done_flops = 0;
  while (slices < min_slices) {
    double missing = (double)min_slices / (double)slices;
    int best = -1;
    double best_score = 0;
    tfr_slice_figures bf = {0};
    for (int l = 0; l < e->num_labels && ns < TFR_EINSUM_MAX_SLICED; l++) {
      int64_t x = e->extent[l];
      if (x <= 1 || tfr_slice_has(sl, ns, l) || slices > INT64_MAX / x) continue;
      sl[ns] = l;
      tfr_slice_figures g;
      tfr_slice_eval(plan, sl, ns + 1, &g);
      double gain = log((double)x < missing ? (double)x : missing);
      double score = f.flops > 0 ? log(g.flops / f.flops) / gain : 0;
      if ((double)x >= missing && (nd < 0 || g.flops < done_flops)) {
        nd = ns + 1;
        memcpy(done, sl, sizeof(int) * (size_t)nd);
        done_flops = g.flops;
      }
      if (best < 0 || score < best_score || (score == best_score && x < e->extent[best])) {
        best = l;
        best_score = score;
        bf = g;
      }
    }
    if (best < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice_to_count: the plan cannot be cut "
                       "into %" PRId64 " slices: %" PRId64 " at most (%d label(s) sliced, no "
                       "label left to slice)", min_slices, slices, ns);
    sl[ns++] = best;
    slices *= e->extent[best];
    f = bf;
  }
  if (nd >= 0 && done_flops < f.flops) {
    ns = nd;
    memcpy(sl, done, sizeof(int) * (size_t)nd);
  }
  if (ns == plan->num_sliced) return TFR_OK;
  int32_t names[TFR_EINSUM_MAX_SLICED];
  for (int j = 0; j < ns; j++) names[j] = e->names[sl[j]];
  return tfr_einsum_plan_slice_labels(plan, ns, names);
}

tfr_status tfr_einsum_plan_slice_labels(tfr_einsum_plan *plan, int num, const int32_t *labels) {
  if (!plan) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: plan is NULL");
  if (num < 0 || num > TFR_EINSUM_MAX_SLICED || (num > 0 && !labels))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice: %d labels%s (0 .. %d)", num,
                     num > 0 && !labels ? " but the list is NULL" : "", TFR_EINSUM_MAX_SLICED);
  const tfr_einsum_expr *e = &plan->expr;
  int *ids = tfr_alloc(((size_t)num + 1) * sizeof(int));
  if (!ids) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  tfr_status st = TFR_OK;
  int64_t slices = 1;
  for (int i = 0; !st && i < num; i++) {
    int id = -1;
    for (int l = 0; l < e->num_labels && id < 0; l++)
      if (e->names[l] == labels[i]) id = l;
    if (id < 0) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice: label %d (%" PRId32 ") is not a "
                     "label of the plan", i, labels[i]);
      break;
    }
    for (int q = 0; q < i; q++)
      if (ids[q] == id)
        st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice: label %d (%" PRId32 ") is listed "
                       "twice", i, labels[i]);
    ids[i] = id;
    int64_t x = e->extent[id];
    if (!st && x > 0 && slices > INT64_MAX / x)
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice: more than 2^63 slices");
    slices *= x;
  }
  if (st) {
    tfr_free(ids);
    return st;
  }
  // The output's labels first, then the summed ones, each ascending.
  int open = 0;
  for (int i = 0; i < num; i++)
    if (tfr_slice_is_output(e, ids[i])) {
      int t = ids[open];
      ids[open] = ids[i];
      ids[i] = t;
      open++;
    }
  qsort(ids, (size_t)open, sizeof(int), tfr_cmp_int_asc);
  qsort(ids + open, (size_t)(num - open), sizeof(int), tfr_cmp_int_asc);
  tfr_free(plan->sliced);
  plan->sliced = num ? ids : NULL;
  if (!num) tfr_free(ids);
  plan->num_sliced = num;
  plan->num_sliced_open = open;
  plan->num_slices = slices;
  tfr_einsum_slice_stats(plan);
  return TFR_OK;
}

tfr_status tfr_einsum_plan_slice(tfr_einsum_plan *plan, const char *labels) {
  if (!plan || !labels)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %s is NULL", plan ? "labels" : "plan");
  int32_t *names = NULL;
  int n = 0;
  TFR_RETURN_IF_ERROR(tfr_einsum_parse_label_list(labels, &names, &n));
  tfr_status st = tfr_einsum_plan_slice_labels(plan, n, names);
  tfr_free(names);
  return st;
}

int tfr_einsum_plan_sliced_labels(const tfr_einsum_plan *plan, int32_t *labels) {
  if (!plan || !labels) return 0;
  for (int j = 0; j < plan->num_sliced; j++) labels[j] = plan->expr.names[plan->sliced[j]];
  return plan->num_sliced;
}

int64_t tfr_einsum_plan_num_slices(const tfr_einsum_plan *plan) {
  if (!plan) return 0;
  return plan->num_sliced ? plan->num_slices : 1;
}

int64_t tfr_einsum_plan_num_blocks(const tfr_einsum_plan *plan) {
  if (!plan) return 0;
  if (!plan->num_sliced) return 1;
  if (plan->num_slices == 0) return 0;
  // A factor of num_slices (< 2^63): no overflow.
  int64_t blocks = 1;
  for (int j = 0; j < plan->num_sliced_open; j++) blocks *= plan->expr.extent[plan->sliced[j]];
  return blocks;
}

// The value of each sliced label in slice k (the last label fastest).
static void tfr_slice_digits(const tfr_einsum_plan *plan, int64_t k, int64_t *value) {
  for (int j = plan->num_sliced - 1; j >= 0; j--) {
    int64_t x = plan->expr.extent[plan->sliced[j]];
    value[j] = k % x;
    k /= x;
  }
}

// Where the block of the slice whose sliced labels take `vals` starts: the
// value of each sliced output label on its axis, 0 on the others; and, when
// `shape` is not NULL, the block's shape (extent 1 on those axes).
static void tfr_slice_start(const tfr_einsum_plan *plan, const int64_t *vals, int64_t *out_start,
                            int64_t *shape) {
  const tfr_einsum_expr *e = &plan->expr;
  for (int j = 0; j < e->num_out; j++) {
    out_start[j] = 0;
    if (shape) shape[j] = e->extent[e->out_labels[j]];
    for (int q = 0; q < plan->num_sliced_open; q++)
      if (plan->sliced[q] == e->out_labels[j]) {
        out_start[j] = vals[q];
        if (shape) shape[j] = 1;
      }
  }
}

tfr_status tfr_einsum_plan_slice_block(const tfr_einsum_plan *plan, int64_t k, int64_t *out_start,
                                       int64_t *out_shape) {
  if (!plan || !out_start)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %s is NULL", !plan ? "plan" : "out_start");
  int64_t total = tfr_einsum_plan_num_slices(plan);
  if (k < 0 || k >= total)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: slice %" PRId64 " of a plan of %" PRId64
                     " slice(s)", k, total);
  int64_t vals[TFR_EINSUM_MAX_SLICED];
  tfr_slice_digits(plan, k, vals);
  tfr_slice_start(plan, vals, out_start, out_shape);
  return TFR_OK;
}

// Views of the operands with every sliced axis fixed at `value` (extent 1).
// views[i] is owned by the caller.
static tfr_status tfr_slice_views(const tfr_einsum_plan *plan, const tfr_tensor *const *operands,
                                  const int64_t *value, tfr_tensor **views) {
  const tfr_einsum_expr *e = &plan->expr;
  for (int i = 0; i < e->n; i++) {
    const tfr_tensor *t = operands[i];
    int r = tfr_tensor_rank(t);
    int64_t shape[TFR_MAX_RANK], off = tfr_tensor_offset(t);
    const int64_t *st = tfr_tensor_strides(t);
    for (int k = 0; k < r; k++) {
      shape[k] = tfr_tensor_shape(t)[k];
      for (int j = 0; j < plan->num_sliced; j++)
        if (e->labels[i][k] == plan->sliced[j] && shape[k] != 1) {
          shape[k] = 1;
          off += value[j] * st[k];
        }
    }
    if (tfr_tensor_numel(t) == 0) off = tfr_tensor_offset(t);  // empty on another axis: no element to point at
    TFR_RETURN_IF_ERROR(tfr_tensor_view(t, r, shape, st, off, &views[i]));
  }
  return TFR_OK;
}

tfr_status tfr_slice_run(tfr_session *s, const tfr_einsum_plan *plan,
                         const tfr_tensor *const *operands, int64_t k, const bool *dropped,
                         tfr_tensor **out) {
  int n = plan->expr.n;
  int64_t vals[TFR_EINSUM_MAX_SLICED];
  tfr_tensor **views = tfr_calloc((size_t)n, sizeof(tfr_tensor *));
  tfr_status st = !views ? tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory") : TFR_OK;
  if (!st) {
    tfr_slice_digits(plan, k, vals);
    st = tfr_slice_views(plan, operands, vals, views);
  }
  // Progress is reported per slice (tfr_einsum_execute_sliced), not per step.
  tfr_einsum_plan quiet = *plan;
  quiet.progress = NULL;
  if (!st) st = tfr_einsum_run(s, &quiet, (const tfr_tensor *const *)views, dropped, out);
  for (int i = 0; views && i < n; i++) tfr_tensor_release(views[i]);
  tfr_free(views);
  return st;
}

tfr_status tfr_slice_dropped(const tfr_einsum_plan *plan, bool **out) {
  *out = tfr_calloc((size_t)plan->expr.num_labels + 1, sizeof(bool));
  if (!*out) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  for (int j = 0; j < plan->num_sliced_open; j++) (*out)[plan->sliced[j]] = true;
  return TFR_OK;
}

tfr_status tfr_einsum_plan_execute_slice(tfr_session *session, const tfr_einsum_plan *plan,
                                         const tfr_tensor *const *operands, int64_t k,
                                         int64_t *out_start, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  if (plan && !operands) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: operands is NULL");
  TFR_RETURN_IF_ERROR(tfr_einsum_plan_slice_block(plan, k, out_start, NULL));
  const tfr_einsum_expr *e = &plan->expr;
  TFR_RETURN_IF_ERROR(tfr_einsum_check_operands(session, plan, operands));
  if (plan->num_sliced == 0) return tfr_einsum_run(session, plan, operands, NULL, out);
  bool *dropped = NULL;
  TFR_RETURN_IF_ERROR(tfr_slice_dropped(plan, &dropped));
  tfr_tensor *r = NULL;
  tfr_status st = tfr_slice_run(session, plan, operands, k, dropped, &r);
  if (!st) {
    // The block: extent 1 on the sliced output axes (at out_start), r's
    // axes elsewhere.
    int64_t shape[TFR_MAX_RANK], strides[TFR_MAX_RANK];
    int m = 0;
    for (int j = 0; j < e->num_out; j++) {
      if (dropped[e->out_labels[j]]) {
        shape[j] = 1;
        strides[j] = 0;
      } else {
        shape[j] = tfr_tensor_shape(r)[m];
        strides[j] = tfr_tensor_strides(r)[m];
        m++;
      }
    }
    st = tfr_tensor_view(r, e->num_out, shape, strides, tfr_tensor_offset(r), out);
  }
  tfr_tensor_release(r);
  tfr_free(dropped);
  return st;
}

tfr_status tfr_slice_block(const tfr_einsum_plan *plan, tfr_tensor *res, int64_t k,
                           tfr_tensor **block) {
  const tfr_einsum_expr *e = &plan->expr;
  int64_t vals[TFR_EINSUM_MAX_SLICED];
  tfr_slice_digits(plan, k, vals);
  int64_t bshape[TFR_MAX_RANK], bstrides[TFR_MAX_RANK], off = tfr_tensor_offset(res);
  int m = 0;
  for (int j = 0; j < e->num_out; j++) {
    int l = e->out_labels[j];
    int q = 0;
    while (q < plan->num_sliced_open && plan->sliced[q] != l) q++;
    if (q < plan->num_sliced_open) {
      off += vals[q] * tfr_tensor_strides(res)[j];
      continue;
    }
    bshape[m] = tfr_tensor_shape(res)[j];
    bstrides[m] = tfr_tensor_strides(res)[j];
    m++;
  }
  if (tfr_tensor_numel(res) == 0) off = tfr_tensor_offset(res);  // an empty block of an empty output
  return tfr_tensor_view(res, m, bshape, bstrides, off, block);
}

tfr_status tfr_einsum_execute_sliced(tfr_session *session, const tfr_einsum_plan *plan,
                                     const tfr_tensor *const *operands, tfr_tensor **out) {
  const tfr_einsum_expr *e = &plan->expr;
  tfr_dtype dt = tfr_tensor_dtype(operands[0]);
  if (plan->num_slices == 0)  // an empty sliced label: the plain path, on empty tensors
    return tfr_einsum_run(session, plan, operands, NULL, out);
  int64_t shape[TFR_MAX_RANK], closed = 1;
  for (int j = 0; j < e->num_out; j++) shape[j] = e->extent[e->out_labels[j]];
  for (int j = plan->num_sliced_open; j < plan->num_sliced; j++) closed *= e->extent[plan->sliced[j]];
  bool *dropped = NULL;
  TFR_RETURN_IF_ERROR(tfr_slice_dropped(plan, &dropped));
  tfr_tensor *res = NULL;
  tfr_status st = tfr_tensor_alloc(tfr_session_backend(session), dt, e->num_out, shape, false, &res);
  for (int64_t k = 0; !st && k < plan->num_slices; k++) {
    tfr_tensor *r = NULL, *block = NULL;
    st = tfr_slice_run(session, plan, operands, k, dropped, &r);
    // The block of `res` this slice's open values select, without the
    // sliced output axes (r's axes).
    if (!st) st = tfr_slice_block(plan, res, k, &block);
    // The first summed slice of a block writes it, the others add to it.
    double t0 = plan->recorder ? tfr_path_now() : 0;
    if (!st && k % closed == 0) st = tfr_copy_into(session, r, block);
    else if (!st)
      st = tfr_binary_into(session, dt == TFR_BOOL ? TFR_OR : TFR_ADD, block, r, block);
    st = tfr_recorder_accumulate(plan->recorder, t0, st, r, k % closed == 0 ? 1 : 2);
    tfr_tensor_release(r);
    tfr_tensor_release(block);
    if (!st && plan->progress)
      plan->progress(plan->progress_ctx, (int)(k + 1 < INT32_MAX ? k + 1 : INT32_MAX),
                     (int)(plan->num_slices < INT32_MAX ? plan->num_slices : INT32_MAX),
                     (double)(k + 1) * plan->info.flops / (double)plan->num_slices);
  }
  tfr_free(dropped);
  if (st) {
    tfr_tensor_release(res);
    return st;
  }
  *out = res;
  return TFR_OK;
}
