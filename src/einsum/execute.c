// Executing an einsum plan through the public op API: views for diagonals
// and broadcast axes, reduce_sum for labels only one operand still needs,
// one dot_general per path step, one transpose at the end.
#include <stdlib.h>
#include <string.h>

#include "einsum/einsum_impl.h"
#include "tenferro/ops.h"

// A tensor in the working list with the label of each axis (distinct).
typedef struct tfr_item {
  tfr_tensor *t;
  int rank;
  int labels[TFR_MAX_RANK];
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
  tfr_tensor *v = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_view(t, n, nshape, nstrides, tfr_tensor_offset(t), &v));
  tfr_tensor_release(it->t);
  it->t = v;
  return TFR_OK;
}

// Sums the axes of `it` whose labels no other tensor nor the output needs
// (refs[l] == 1: only this item holds it).
static tfr_status tfr_item_sum_local(tfr_session *s, tfr_item *it, int *refs) {
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
  TFR_RETURN_IF_ERROR(tfr_reduce_sum(s, it->t, na, axes, &r));
  tfr_tensor_release(it->t);
  it->t = r;
  it->rank = keep;
  return TFR_OK;
}

static int tfr_find_label(const tfr_item *it, int l) {
  for (int k = 0; k < it->rank; k++)
    if (it->labels[k] == l) return k;
  return -1;
}

// One path step: out = contraction of a and b (both consumed).
static tfr_status tfr_contract_pair(tfr_session *s, tfr_item *a, tfr_item *b, int *refs,
                                    tfr_item *out) {
  TFR_RETURN_IF_ERROR(tfr_item_sum_local(s, a, refs));
  TFR_RETURN_IF_ERROR(tfr_item_sum_local(s, b, refs));
  int64_t lb[TFR_MAX_RANK], rb[TFR_MAX_RANK], lc[TFR_MAX_RANK], rc[TFR_MAX_RANK];
  int nb = 0, nc = 0, nr = 0;
  int batch_labels[TFR_MAX_RANK];
  for (int k = 0; k < a->rank; k++) {
    int l = a->labels[k];
    int kb = tfr_find_label(b, l);
    if (kb < 0) continue;
    if (refs[l] > 2) {  // someone else (or the output) still needs it
      lb[nb] = k;
      rb[nb] = kb;
      batch_labels[nb++] = l;
    } else {
      lc[nc] = k;
      rc[nc++] = kb;
    }
  }
  // Result labels: batch, then a's free, then b's free (dot_general's order).
  for (int q = 0; q < nb; q++) out->labels[nr++] = batch_labels[q];
  for (int k = 0; k < a->rank; k++)
    if (tfr_find_label(b, a->labels[k]) < 0) out->labels[nr++] = a->labels[k];
  for (int k = 0; k < b->rank; k++)
    if (tfr_find_label(a, b->labels[k]) < 0) out->labels[nr++] = b->labels[k];
  if (nr > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: an intermediate would have rank %d (max %d)",
                     nr, TFR_MAX_RANK);
  out->rank = nr;
  tfr_dot_config cfg = {nb, lb, rb, nc, lc, rc, false, false};
  TFR_RETURN_IF_ERROR(tfr_dot_general(s, a->t, b->t, &cfg, &out->t));
  for (int k = 0; k < a->rank; k++) refs[a->labels[k]]--;
  for (int k = 0; k < b->rank; k++) refs[b->labels[k]]--;
  for (int k = 0; k < nr; k++) refs[out->labels[k]]++;
  return TFR_OK;
}

tfr_status tfr_einsum_plan_execute(tfr_session *session, const tfr_einsum_plan *plan,
                                   const tfr_tensor *const *operands, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  if (!plan || !operands)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %s is NULL", plan ? "operands" : "plan");
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
  if (tfr_tensor_dtype(operands[0]) == TFR_BOOL)
    return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE, "einsum: not defined for dtype bool (convert first)");
  if (!tfr_session_backend(session))
    return tfr_error(TFR_ERR_NO_SESSION, "einsum: the session is not active on this thread");

  int n = e->n;
  tfr_item *items = tfr_calloc((size_t)n, sizeof(tfr_item));
  int *refs = tfr_calloc((size_t)e->num_labels + 1, sizeof(int));
  if (!items || !refs) {
    tfr_free(items);
    tfr_free(refs);
    return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  }
  tfr_status st = TFR_OK;
  for (int i = 0; i < n; i++) {
    tfr_tensor_retain((tfr_tensor *)operands[i]);
    items[i].t = (tfr_tensor *)operands[i];
  }
  for (int i = 0; !st && i < n; i++) st = tfr_item_normalise(&items[i], e->labels[i], e);
  for (int i = 0; !st && i < n; i++)
    for (int k = 0; k < items[i].rank; k++) refs[items[i].labels[k]]++;
  for (int j = 0; j < e->num_out; j++) refs[e->out_labels[j]]++;

  int len = n;
  double flops_done = 0;
  for (int step = 0; !st && step < plan->num_steps; step++) {
    int pa = plan->path[2 * step], pb = plan->path[2 * step + 1];
    tfr_item r = {0};
    st = tfr_contract_pair(session, &items[pa], &items[pb], refs, &r);
    if (st) break;
    tfr_tensor_release(items[pa].t);
    tfr_tensor_release(items[pb].t);
    int lo = pa < pb ? pa : pb, hi = pa < pb ? pb : pa;
    memmove(&items[hi], &items[hi + 1], (size_t)(len - hi - 1) * sizeof(tfr_item));
    len--;
    memmove(&items[lo], &items[lo + 1], (size_t)(len - lo - 1) * sizeof(tfr_item));
    len--;
    items[len++] = r;
    flops_done += plan->step_flops[step];
    if (plan->progress) plan->progress(plan->progress_ctx, step + 1, plan->num_steps, flops_done);
  }
  if (!st) {
    // The last tensor: sum what the output lacks, then order the axes.
    tfr_item *it = &items[0];
    st = tfr_item_sum_local(session, it, refs);
    int64_t perm[TFR_MAX_RANK];
    bool identity = true;
    for (int j = 0; !st && j < e->num_out; j++) {
      perm[j] = tfr_find_label(it, e->out_labels[j]);
      if (perm[j] != j) identity = false;
    }
    if (!st) {
      // Operands are the caller's: a result that still is one (or a view of
      // one) gets copied, so `out` is always a new compact tensor.
      bool is_input_view = n == 1 && plan->num_steps == 0;
      if (identity && !is_input_view && tfr_tensor_is_contiguous(it->t)) {
        tfr_tensor_retain(it->t);
        *out = it->t;
      } else {
        st = tfr_transpose(session, it->t, perm, out);
      }
    }
  }
  for (int i = 0; i < len; i++) tfr_tensor_release(items[i].t);
  tfr_free(items);
  tfr_free(refs);
  return st;
}

tfr_status tfr_einsum_plan_create(const char *subscripts, int n, const int *ranks,
                                  const int64_t *const *shapes, const tfr_einsum_options *options,
                                  tfr_einsum_plan **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  tfr_einsum_plan *p = tfr_calloc(1, sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  tfr_status st = tfr_einsum_parse(subscripts, n, ranks, shapes, &p->expr);
  if (!st) st = tfr_einsum_find_path(p, options);
  if (st) {
    tfr_einsum_plan_release(p);
    return st;
  }
  *out = p;
  return TFR_OK;
}

tfr_status tfr_einsum_plan_create_labels(int n, const int *ranks, const int64_t *const *shapes,
                                         const int32_t *const *labels, int num_out,
                                         const int32_t *out_labels,
                                         const tfr_einsum_options *options, tfr_einsum_plan **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  tfr_einsum_plan *p = tfr_calloc(1, sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  tfr_status st = tfr_einsum_from_labels(n, ranks, shapes, labels, num_out, out_labels, &p->expr);
  if (!st) st = tfr_einsum_find_path(p, options);
  if (st) {
    tfr_einsum_plan_release(p);
    return st;
  }
  *out = p;
  return TFR_OK;
}

const tfr_einsum_path_info *tfr_einsum_plan_info(const tfr_einsum_plan *plan) { return &plan->info; }

const int32_t *tfr_einsum_plan_path(const tfr_einsum_plan *plan) { return plan->path; }

void tfr_einsum_plan_release(tfr_einsum_plan *plan) {
  if (!plan) return;
  tfr_einsum_expr_free(&plan->expr);
  tfr_free(plan->path);
  tfr_free(plan->step_flops);
  tfr_free(plan);
}

tfr_status tfr_einsum(tfr_session *session, const char *subscripts, int n,
                      const tfr_tensor *const *operands, const tfr_einsum_options *options,
                      tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  if (n < 1 || !operands)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %d operands (need at least 1)", n);
  int *ranks = tfr_calloc((size_t)n, sizeof(int));
  const int64_t **shapes = tfr_calloc((size_t)n, sizeof(int64_t *));
  tfr_status st = (!ranks || !shapes) ? tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory")
                                      : TFR_OK;
  for (int i = 0; !st && i < n; i++) {
    if (!operands[i]) {
      st = tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: operand %d is NULL", i);
      break;
    }
    ranks[i] = tfr_tensor_rank(operands[i]);
    shapes[i] = tfr_tensor_shape(operands[i]);
  }
  tfr_einsum_plan *plan = NULL;
  if (!st) st = tfr_einsum_plan_create(subscripts, n, ranks, shapes, options, &plan);
  if (!st) st = tfr_einsum_plan_execute(session, plan, operands, out);
  tfr_einsum_plan_release(plan);
  tfr_free(ranks);
  tfr_free(shapes);
  return st;
}
