// A tiny einsum in one loop: the backend's sum_of_products (backend_impl.h)
// instead of the plan's pairwise steps, as numpy.einsum does without a path.
// Each pairwise step costs about 0.6 us of validation, intermediate tensors
// and layout choice, which a loop of a few hundred terms does not: the
// 3-operand `ij,jk,kl->il` of 2x3, 3x4, 4x2 operands (the Python module's
// per-call benchmark) takes 0.23 us in one loop, 1.19 us in two steps.
#include "core/backend_impl.h"
#include "einsum/einsum_impl.h"

tfr_status tfr_einsum_sum_of_products(tfr_session *session, const tfr_einsum_plan *plan,
                                      const tfr_tensor *const *operands, tfr_tensor **out) {
  const tfr_einsum_expr *e = &plan->expr;
  int n = e->n;
  // Not with a progress callback (it counts steps) nor for a sliced plan (its
  // operands are views of one slice). A profile records the loop as one op.
  if (n < 2 || n > TFR_SOP_MAX_OPERANDS || e->num_labels > TFR_SOP_MAX_LABELS || plan->progress ||
      plan->num_sliced > 0 || plan->follow_path)
    return TFR_ERR_UNSUPPORTED_DTYPE;
  tfr_dtype dtype = tfr_tensor_dtype(operands[0]);
  if (dtype != TFR_F32 && dtype != TFR_F64 && dtype != TFR_C64 && dtype != TFR_C128)
    return TFR_ERR_UNSUPPORTED_DTYPE;
  // The loop's iterations: the product of every label's extent (an empty
  // label counted as 1, so that the output's size stays bounded too).
  int64_t work = 1;
  for (int l = 0; l < e->num_labels; l++) {
    int64_t x = e->extent[l] > 0 ? e->extent[l] : 1;
    if (x > TFR_EINSUM_SOP_MAX_WORK) return TFR_ERR_UNSUPPORTED_DTYPE;
    work *= x;
    if (work > TFR_EINSUM_SOP_MAX_WORK) return TFR_ERR_UNSUPPORTED_DTYPE;
  }
  // The loop's cost against the steps': measured on one core of the
  // development machine (an AVX-512 AMD EPYC), a pairwise step costs about
  // 0.6 us whatever its size here, the loop about 0.27 ns per iteration and
  // operand (0.4 ns complex). In units of 0.27 ns x 2: work x n x 2 (x 3
  // complex) against 2048 per step replaced (f64 `ij,jk->ik` 8x8x8: 0.59 us
  // against 0.64; 6x6x6: 0.37 against 0.62).
  bool complex = dtype == TFR_C64 || dtype == TFR_C128;
  if (work * n * (complex ? 3 : 2) > TFR_EINSUM_SOP_STEP_UNITS * (int64_t)(n - 1))
    return TFR_ERR_UNSUPPORTED_DTYPE;
  tfr_backend *b = tfr_session_backend(session);
  if (!b || !b->host_memory) return TFR_ERR_UNSUPPORTED_DTYPE;
  for (int i = 0; i < n; i++)
    if (!tfr_tensor_is_host(operands[i])) return TFR_ERR_UNSUPPORTED_DTYPE;

  tfr_sum_of_products_desc d;
  d.dtype = dtype;
  d.n = n;
  d.num_out = e->num_out;
  d.num_sum = 0;
  // Each label's place: output axis j, or summed label num_sum.
  int out_pos[TFR_SOP_MAX_LABELS], sum_pos[TFR_SOP_MAX_LABELS];
  for (int l = 0; l < e->num_labels; l++) out_pos[l] = sum_pos[l] = -1;
  for (int j = 0; j < e->num_out; j++) {
    out_pos[e->out_labels[j]] = j;
    d.out_extent[j] = e->extent[e->out_labels[j]];
  }
  for (int l = 0; l < e->num_labels; l++)
    if (out_pos[l] < 0) {
      sum_pos[l] = d.num_sum;
      d.sum_extent[d.num_sum++] = e->extent[l];
    }
  for (int i = 0; i < n; i++) {
    const tfr_tensor *t = operands[i];
    d.operands[i] = t;
    for (int j = 0; j < d.num_out; j++) d.out_strides[i][j] = 0;
    for (int j = 0; j < d.num_sum; j++) d.sum_strides[i][j] = 0;
    const int64_t *shape = tfr_tensor_shape(t), *strides = tfr_tensor_strides(t);
    // An empty operand is never read (an empty label leaves no output or no
    // term); its saturated strides are left out.
    for (int k = 0; tfr_tensor_numel(t) > 0 && k < e->ranks[i]; k++) {
      int l = e->labels[i][k];
      if (shape[k] == 1 && e->extent[l] != 1) continue;  // broadcast: stride 0
      // A repeated label (a diagonal) steps along all its axes at once.
      if (out_pos[l] >= 0) d.out_strides[i][out_pos[l]] += strides[k];
      else d.sum_strides[i][sum_pos[l]] += strides[k];
    }
  }
  tfr_einsum_recorder *rec = plan->recorder;
  double t0 = rec ? tfr_path_now() : 0;
  tfr_tensor *r = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(b, dtype, d.num_out, d.out_extent, false, &r));
  d.out = r;
  tfr_status st = b->vtable->sum_of_products(b, &d);
  if (st == TFR_OK && rec) {
    int64_t nout = tfr_tensor_numel(r), nsum = 1, in = 0;
    for (int j = 0; j < d.num_sum; j++) nsum *= d.sum_extent[j];
    for (int i = 0; i < n; i++) in += tfr_tensor_numel(operands[i]);
    rec->step = -1;
    st = tfr_recorder_add(rec, t0, TFR_EINSUM_OP_SUM_OF_PRODUCTS, 1, nout, n, nsum, in, nout);
  }
  if (st != TFR_OK) {
    tfr_tensor_release(r);
    return st;
  }
  *out = r;
  return TFR_OK;
}
