// The public plan functions of einsum.h: a plan is parsed (parse.c), given
// a path (path.c), optionally sliced (slice.c) and executed (execute.c).
#include <stdlib.h>
#include <string.h>

#include "core/live.h"
#include "einsum/einsum_impl.h"

tfr_status tfr_einsum_plan_execute(tfr_session *session, const tfr_einsum_plan *plan,
                                   const tfr_tensor *const *operands, tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  if (!plan || !operands)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: %s is NULL", plan ? "operands" : "plan");
  TFR_RETURN_IF_ERROR(tfr_einsum_check_operands(session, plan, operands));
  // (On a cpu backend the slices run in fixed groups, on several threads
  // when small; elsewhere one after another: slice_parallel.c.)
  if (plan->num_sliced > 0) return tfr_einsum_execute_grouped(session, plan, operands, out);
  return tfr_einsum_run(session, plan, operands, NULL, out);
}

int tfr_einsum_plan_view_axes(const tfr_einsum_plan *plan, int32_t *axis_out) {
  return plan ? tfr_einsum_view_axes(&plan->expr, axis_out) : -1;
}

tfr_status tfr_einsum_plan_view(const tfr_einsum_plan *plan, const tfr_tensor *operand,
                                tfr_tensor **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: view: out is NULL");
  *out = NULL;
  if (!plan || !operand)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: view: %s is NULL",
                     plan ? "operand" : "plan");
  if (tfr_einsum_view_axes(&plan->expr, NULL) < 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "einsum: view: the plan is not a rearrangement of one operand (it has %d "
                     "operands or sums a label); run it with tfr_einsum_plan_execute",
                     plan->expr.n);
  TFR_RETURN_IF_ERROR(tfr_einsum_check_shapes(plan, &operand));
  return tfr_einsum_view(plan, operand, out);
}

tfr_status tfr_einsum_plan_profile(tfr_session *session, const tfr_einsum_plan *plan,
                                   const tfr_tensor *const *operands, tfr_einsum_profile **profile,
                                   tfr_tensor **out) {
  if (profile) *profile = NULL;
  if (out) *out = NULL;
  if (!out || !profile)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: profile: %s is NULL", out ? "profile" : "out");
  if (!plan || !operands)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: profile: %s is NULL",
                     plan ? "operands" : "plan");
  TFR_RETURN_IF_ERROR(tfr_einsum_check_operands(session, plan, operands));
  tfr_einsum_recorder rec;
  const tfr_tensor *first = plan->expr.n > 0 ? operands[0] : NULL;
  TFR_RETURN_IF_ERROR(tfr_recorder_init(&rec, session, plan, first ? tfr_tensor_dtype(first) : TFR_F64));
  // The executor records into `rec` through a copy of the plan.
  tfr_einsum_plan p = *plan;
  p.recorder = &rec;
  tfr_status st = rec.sync ? tfr_session_synchronize(session) : TFR_OK;
  double t0 = tfr_path_now();
  if (!st && plan->num_sliced > 0) st = tfr_einsum_execute_grouped(session, &p, operands, out);
  else if (!st) st = tfr_einsum_run(session, &p, operands, NULL, out);
  if (!st && rec.sync) st = tfr_session_synchronize(session);
  rec.profile->seconds = tfr_path_now() - t0;
  rec.profile->num_slices = tfr_einsum_plan_num_slices(plan);
  if (st) {
    tfr_tensor_release(*out);
    *out = NULL;
  } else {
    *profile = rec.profile;
    rec.profile = NULL;
  }
  tfr_recorder_free(&rec);
  return st;
}

// The rest of a plan's making once its expression is read (status `st`):
// the path and its statistics; on error the plan is released.
static tfr_status tfr_plan_finish(tfr_einsum_plan *p, tfr_status st,
                                  const tfr_einsum_options *options, tfr_einsum_plan **out) {
  if (!st) st = tfr_einsum_find_path(p, options);
  if (!st) tfr_einsum_slice_stats(p);
  if (st) {
    tfr_einsum_plan_release(p);
    return st;
  }
  *out = p;
  return TFR_OK;
}

tfr_status tfr_einsum_plan_create(const char *subscripts, int n, const int *ranks,
                                  const int64_t *const *shapes, const tfr_einsum_options *options,
                                  tfr_einsum_plan **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  tfr_einsum_plan *p = tfr_calloc(1, sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  tfr_live_add(TFR_OBJECT_EINSUM_PLAN);
  return tfr_plan_finish(p, tfr_einsum_parse(subscripts, n, ranks, shapes, &p->expr), options, out);
}

tfr_status tfr_einsum_plan_create_labels(int n, const int *ranks, const int64_t *const *shapes,
                                         const int32_t *const *labels, int num_out,
                                         const int32_t *out_labels,
                                         const tfr_einsum_options *options, tfr_einsum_plan **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "einsum: out is NULL");
  *out = NULL;
  tfr_einsum_plan *p = tfr_calloc(1, sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "einsum: out of host memory");
  tfr_live_add(TFR_OBJECT_EINSUM_PLAN);
  return tfr_plan_finish(
      p, tfr_einsum_from_labels(n, ranks, shapes, labels, num_out, out_labels, &p->expr), options,
      out);
}

const tfr_einsum_path_info *tfr_einsum_plan_info(const tfr_einsum_plan *plan) { return &plan->info; }

const int32_t *tfr_einsum_plan_path(const tfr_einsum_plan *plan) { return plan->path; }

int tfr_einsum_plan_output_shape(const tfr_einsum_plan *plan, int64_t *shape) {
  if (!plan) return -1;
  for (int k = 0; shape && k < plan->expr.num_out; k++)
    shape[k] = plan->expr.extent[plan->expr.out_labels[k]];
  return plan->expr.num_out;
}

void tfr_einsum_plan_release(tfr_einsum_plan *plan) {
  if (!plan) return;
  tfr_einsum_expr_free(&plan->expr);
  tfr_free(plan->path);
  tfr_free(plan->step_flops);
  for (int i = 0; plan->node_labels && i < plan->num_nodes; i++) tfr_free(plan->node_labels[i]);
  tfr_free(plan->node_labels);
  tfr_free(plan->node_count);
  tfr_free(plan->consumer);
  tfr_free(plan->partner);
  tfr_free(plan->step_inputs);
  tfr_free(plan->sliced);
  tfr_free(plan);
  tfr_live_sub(TFR_OBJECT_EINSUM_PLAN);
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
