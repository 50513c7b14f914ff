// Public dot_general, its accumulating form and the cached plan
// (include/tenferro/dot_plan.h): validate, allocate, dispatch.
#include <stdio.h>
#include <string.h>

#include "core/validate.h"
#include "core/live.h"
#include "tenferro/dot_plan.h"

// ---------------------------------------------------------------------------
// One-shot forms
// ---------------------------------------------------------------------------

tfr_status tfr_dot_general_shape(tfr_session *s, const tfr_tensor *lhs, const tfr_tensor *rhs,
                                 const tfr_dot_config *config, int *out_rank,
                                 int64_t *out_shape) {
  if (!out_rank || !out_shape)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "dot_general: out_rank or out_shape is NULL");
  tfr_dot_desc d;
  return tfr_validate_dot("dot_general", s, lhs, rhs, config, &d, out_rank, out_shape);
}

tfr_status tfr_dot_general(tfr_session *s, const tfr_tensor *lhs, const tfr_tensor *rhs,
                           const tfr_dot_config *config, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "dot_general: out is NULL");
  *out = NULL;
  tfr_dot_desc d;
  int rank;
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_dot("dot_general", s, lhs, rhs, config, &d, &rank, shape));
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(tfr_tensor_alloc(s->backend, d.dtype, rank, shape, false, &t));
  d.out = t;
  tfr_status st = s->backend->vtable->dot_general(s->backend, &d);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}

tfr_status tfr_dot_general_accumulate(tfr_session *s, const tfr_tensor *lhs,
                                      const tfr_tensor *rhs, const tfr_dot_config *config,
                                      const void *alpha, const void *beta, tfr_tensor *out) {
  const char *op = "dot_general_accumulate";
  tfr_dot_desc d;
  int rank;
  int64_t shape[TFR_MAX_RANK];
  TFR_RETURN_IF_ERROR(tfr_validate_dot(op, s, lhs, rhs, config, &d, &rank, shape));
  TFR_RETURN_IF_ERROR(
      tfr_validate_dot_accumulate(op, s, &d, lhs, rhs, alpha, beta, out, rank, shape));
  return s->backend->vtable->dot_general(s->backend, &d);
}

// ---------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------

struct tfr_dot_plan {
  tfr_backend *backend;  // retained
  // Dtype, axis lists (contracting pairs in the planned order), conj flags;
  // lhs, rhs and out NULL.
  tfr_dot_desc tmpl;
  int rank[2];
  int64_t shape[2][TFR_MAX_RANK];
  int64_t strides[2][TFR_MAX_RANK];
  int out_rank;
  int64_t out_shape[TFR_MAX_RANK];
  bool in_place[2];
  // Packed side i: the tensor object it was made from (retained: the
  // identity key) and the compact copy.
  tfr_tensor *source[2];
  tfr_tensor *packed[2];
};

static tfr_status tfr_plan_check_geometry(const char *op, const char *side, int rank,
                                          const int64_t *shape) {
  if (rank < 0 || rank > TFR_MAX_RANK)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s rank %d is out of range [0, %d]", op,
                     side, rank, TFR_MAX_RANK);
  if (rank > 0 && !shape)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s shape is NULL for rank %d", op, side,
                     rank);
  for (int k = 0; k < rank; k++)
    if (shape[k] < 0)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "%s: %s extent %d is %" PRId64 ", must be >= 0", op, side, k, shape[k]);
  int64_t n;
  return tfr_shape_numel(op, rank, shape, &n);
}

// Compact row-major strides; saturating, since an empty tensor's other
// extents are unbounded (the strides then only steer layout decisions).
static void tfr_plan_compact_strides(int rank, const int64_t *shape, int64_t *strides) {
  int64_t step = 1;
  for (int k = rank - 1; k >= 0; k--) {
    strides[k] = step;
    if (!tfr_mul_i64(step, shape[k] > 0 ? shape[k] : 1, &step)) step = INT64_MAX;
  }
}

tfr_status tfr_dot_plan_create(tfr_session *s, tfr_dtype dtype, int lhs_rank,
                               const int64_t *lhs_shape, const int64_t *lhs_strides,
                               int rhs_rank, const int64_t *rhs_shape,
                               const int64_t *rhs_strides, const tfr_dot_config *config,
                               tfr_dot_plan **out) {
  const char *op = "dot_plan_create";
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", op);
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_plan_check_geometry(op, "lhs", lhs_rank, lhs_shape));
  TFR_RETURN_IF_ERROR(tfr_plan_check_geometry(op, "rhs", rhs_rank, rhs_shape));
  tfr_dot_plan *p = tfr_calloc(1, sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
  tfr_status st = tfr_validate_dot_dims(op, dtype, lhs_rank, lhs_shape, dtype, rhs_rank,
                                        rhs_shape, config, &p->tmpl, &p->out_rank, p->out_shape);
  if (st) {
    tfr_free(p);
    return st;
  }
  const int64_t *shapes[2] = {lhs_shape, rhs_shape}, *strides[2] = {lhs_strides, rhs_strides};
  int ranks[2] = {lhs_rank, rhs_rank};
  for (int i = 0; i < 2; i++) {
    p->rank[i] = ranks[i];
    if (ranks[i] > 0) memcpy(p->shape[i], shapes[i], (size_t)ranks[i] * sizeof(int64_t));
    if (strides[i] && ranks[i] > 0)
      memcpy(p->strides[i], strides[i], (size_t)ranks[i] * sizeof(int64_t));
    else
      tfr_plan_compact_strides(ranks[i], p->shape[i], p->strides[i]);
  }
  tfr_dot_order_contracting(&p->tmpl, p->shape[0], p->strides[0], p->shape[1], p->strides[1]);
  bool small = tfr_dot_mnk(&p->tmpl, p->shape[0], p->shape[1]) <= TFR_DOT_SMALL_MNK;
  // A looped product reads both operands in place (validate.h).
  tfr_dot_desc probe = p->tmpl;
  bool looped = tfr_dot_loop_contracting(&probe, p->shape[0], p->strides[0], p->shape[1],
                                         p->strides[1]) > 0;
  for (int i = 0; i < 2; i++)
    p->in_place[i] =
        small || looped || tfr_dot_operand_direct(&p->tmpl, i, p->shape[i], p->strides[i]);
  p->backend = s->backend;
  tfr_backend_retain(p->backend);
  tfr_live_add(TFR_OBJECT_DOT_PLAN);
  *out = p;
  return TFR_OK;
}

tfr_status tfr_dot_plan_create_like(tfr_session *s, const tfr_tensor *lhs, const tfr_tensor *rhs,
                                    const tfr_dot_config *config, tfr_dot_plan **out) {
  const char *op = "dot_plan_create";
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", op);
  *out = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "lhs", s, lhs));
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, "rhs", s, rhs));
  if (lhs->dtype != rhs->dtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "%s: lhs has dtype %s, rhs has dtype %s (no implicit promotion: use "
                     "tfr_convert)",
                     op, tfr_dtype_name(lhs->dtype), tfr_dtype_name(rhs->dtype));
  return tfr_dot_plan_create(s, lhs->dtype, lhs->rank, lhs->shape, lhs->strides, rhs->rank,
                             rhs->shape, rhs->strides, config, out);
}

void tfr_dot_plan_unpack(tfr_dot_plan *plan, tfr_dot_operand which) {
  if (!plan || (which != TFR_DOT_LHS && which != TFR_DOT_RHS)) return;
  tfr_tensor_release(plan->packed[which]);
  tfr_tensor_release(plan->source[which]);
  plan->packed[which] = NULL;
  plan->source[which] = NULL;
}

void tfr_dot_plan_release(tfr_dot_plan *plan) {
  if (!plan) return;
  tfr_dot_plan_unpack(plan, TFR_DOT_LHS);
  tfr_dot_plan_unpack(plan, TFR_DOT_RHS);
  tfr_backend_release(plan->backend);
  tfr_free(plan);
  tfr_live_sub(TFR_OBJECT_DOT_PLAN);
}

int tfr_dot_plan_result_rank(const tfr_dot_plan *plan) { return plan->out_rank; }

const int64_t *tfr_dot_plan_result_shape(const tfr_dot_plan *plan) {
  return plan->out_rank > 0 ? plan->out_shape : NULL;
}

tfr_dtype tfr_dot_plan_dtype(const tfr_dot_plan *plan) { return plan->tmpl.dtype; }

bool tfr_dot_plan_reads_in_place(const tfr_dot_plan *plan, tfr_dot_operand which) {
  if (which != TFR_DOT_LHS && which != TFR_DOT_RHS) return false;
  return plan->in_place[which];
}

// "[2, 3]" into buf.
static const char *tfr_plan_shape_str(char *buf, size_t size, int rank, const int64_t *shape) {
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int k = 0; k < rank && n < size; k++)
    n += (size_t)snprintf(buf + n, size - n, k ? ", %" PRId64 : "%" PRId64, shape[k]);
  if (n < size) snprintf(buf + n, size - n, "]");
  return buf;
}

// Session, backend, placement, dtype and shape of operand `which` against
// the plan.
static tfr_status tfr_plan_check_operand(const char *op, tfr_session *s, const tfr_dot_plan *p,
                                         int which, const tfr_tensor *t) {
  const char *side = which == TFR_DOT_LHS ? "lhs" : "rhs";
  TFR_RETURN_IF_ERROR(tfr_check_placement(op, side, s, t));
  if (t->dtype != p->tmpl.dtype)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s has dtype %s, the plan was made for %s",
                     op, side, tfr_dtype_name(t->dtype), tfr_dtype_name(p->tmpl.dtype));
  bool same = t->rank == p->rank[which];
  for (int k = 0; same && k < t->rank; k++) same = t->shape[k] == p->shape[which][k];
  if (!same) {
    char a[256], b[256];
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: %s has shape %s, the plan was made for %s",
                     op, side, tfr_plan_shape_str(a, sizeof a, t->rank, t->shape),
                     tfr_plan_shape_str(b, sizeof b, p->rank[which], p->shape[which]));
  }
  return TFR_OK;
}

static tfr_status tfr_plan_check_session(const char *op, tfr_session *s, const tfr_dot_plan *p) {
  TFR_RETURN_IF_ERROR(tfr_session_check(op, s));
  if (!p) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: plan is NULL", op);
  if (s->backend != p->backend)
    return tfr_error(TFR_ERR_WRONG_BACKEND,
                     "%s: the plan was made for another backend instance (%s) than the "
                     "session's (%s)",
                     op, p->backend->name, s->backend->name);
  return TFR_OK;
}

static bool tfr_same_strides(const tfr_tensor *t, const int64_t *strides) {
  for (int k = 0; k < t->rank; k++)
    if (t->shape[k] > 1 && t->strides[k] != strides[k]) return false;
  return true;
}

// Fills `d` for one execution: the plan's decisions, the packed copies for
// operands that are the packed tensor objects, a fresh contracting order
// only when an unpacked operand's strides differ from the planned ones.
static tfr_status tfr_plan_prepare(const char *op, tfr_session *s, const tfr_dot_plan *p,
                                   const tfr_tensor *lhs, const tfr_tensor *rhs,
                                   tfr_dot_desc *d) {
  TFR_RETURN_IF_ERROR(tfr_plan_check_session(op, s, p));
  TFR_RETURN_IF_ERROR(tfr_plan_check_operand(op, s, p, TFR_DOT_LHS, lhs));
  TFR_RETURN_IF_ERROR(tfr_plan_check_operand(op, s, p, TFR_DOT_RHS, rhs));
  *d = p->tmpl;
  d->lhs = lhs;
  d->rhs = rhs;
  const tfr_tensor *given[2] = {lhs, rhs};
  bool replan = false;
  for (int i = 0; i < 2; i++) {
    if (p->packed[i] && given[i] == p->source[i]) tfr_dot_use_packed(d, i, p->packed[i]);
    else if (!tfr_same_strides(given[i], p->strides[i])) replan = true;
  }
  if (replan)
    tfr_dot_order_contracting(d, d->lhs->shape, d->lhs->strides, d->rhs->shape,
                              d->rhs->strides);
  return TFR_OK;
}

tfr_status tfr_dot_plan_execute(tfr_session *s, const tfr_dot_plan *plan, const tfr_tensor *lhs,
                                const tfr_tensor *rhs, tfr_tensor **out) {
  const char *op = "dot_plan_execute";
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: out is NULL", op);
  *out = NULL;
  tfr_dot_desc d;
  TFR_RETURN_IF_ERROR(tfr_plan_prepare(op, s, plan, lhs, rhs, &d));
  tfr_tensor *t = NULL;
  TFR_RETURN_IF_ERROR(
      tfr_tensor_alloc(s->backend, d.dtype, plan->out_rank, plan->out_shape, false, &t));
  d.out = t;
  tfr_status st = s->backend->vtable->dot_general(s->backend, &d);
  if (st) tfr_tensor_release(t);
  else *out = t;
  return st;
}

tfr_status tfr_dot_plan_execute_accumulate(tfr_session *s, const tfr_dot_plan *plan,
                                           const tfr_tensor *lhs, const tfr_tensor *rhs,
                                           const void *alpha, const void *beta,
                                           tfr_tensor *out) {
  const char *op = "dot_plan_execute_accumulate";
  tfr_dot_desc d;
  TFR_RETURN_IF_ERROR(tfr_plan_prepare(op, s, plan, lhs, rhs, &d));
  TFR_RETURN_IF_ERROR(tfr_validate_dot_accumulate(op, s, &d, lhs, rhs, alpha, beta, out,
                                                  plan->out_rank, plan->out_shape));
  return s->backend->vtable->dot_general(s->backend, &d);
}

tfr_status tfr_dot_plan_pack(tfr_session *s, tfr_dot_plan *plan, tfr_dot_operand which,
                             const tfr_tensor *operand) {
  const char *op = "dot_plan_pack";
  TFR_RETURN_IF_ERROR(tfr_plan_check_session(op, s, plan));
  if (which != TFR_DOT_LHS && which != TFR_DOT_RHS)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "%s: invalid operand value %d", op, (int)which);
  TFR_RETURN_IF_ERROR(tfr_plan_check_operand(op, s, plan, which, operand));
  tfr_dot_desc d = plan->tmpl;
  if (which == TFR_DOT_LHS) d.lhs = operand;
  else d.rhs = operand;
  tfr_tensor *packed = NULL;
  TFR_RETURN_IF_ERROR(tfr_dot_pack(s->backend, &d, which, &packed));
  // Retain before unpacking: re-packing the packed object must not drop
  // its last reference.
  tfr_tensor_retain((tfr_tensor *)operand);
  tfr_dot_plan_unpack(plan, which);
  plan->source[which] = (tfr_tensor *)operand;
  plan->packed[which] = packed;
  return TFR_OK;
}
