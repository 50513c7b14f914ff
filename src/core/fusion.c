// Fusion plans: building and validating the SSA program, and executing it
// through the backend's fusion entry.
#include <stdio.h>
#include <string.h>

#include "core/validate.h"
#include "core/live.h"

tfr_status tfr_fusion_plan_create(int num_inputs, const tfr_dtype *input_dtypes,
                                  tfr_fusion_plan **out) {
  if (!out) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_plan_create: out is NULL");
  *out = NULL;
  if (num_inputs < 1 || num_inputs > TFR_FUSION_MAX_INPUTS)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "fusion_plan_create: %d inputs (must be 1 .. %d)", num_inputs,
                     TFR_FUSION_MAX_INPUTS);
  if (!input_dtypes)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_plan_create: input_dtypes is NULL");
  for (int i = 0; i < num_inputs; i++)
    if (!tfr_dtype_get_info(input_dtypes[i]))
      return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE,
                       "fusion_plan_create: input %d has invalid dtype value %d", i,
                       (int)input_dtypes[i]);
  tfr_fusion_plan *p = tfr_calloc(1, sizeof *p);
  if (!p) return tfr_error(TFR_ERR_OUT_OF_MEMORY, "fusion_plan_create: out of host memory");
  tfr_live_add(TFR_OBJECT_FUSION_PLAN);
  p->num_inputs = num_inputs;
  for (int i = 0; i < num_inputs; i++) p->value_dtype[i] = input_dtypes[i];
  *out = p;
  return TFR_OK;
}

void tfr_fusion_plan_release(tfr_fusion_plan *plan) {
  if (!plan) return;
  tfr_free(plan);
  tfr_live_sub(TFR_OBJECT_FUSION_PLAN);
}

tfr_status tfr_fusion_plan_broadcast_input(tfr_fusion_plan *plan, int input, int num_dims,
                                           const int64_t *broadcast_dimensions) {
  if (!plan) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_plan_broadcast_input: plan is NULL");
  if (input < 0 || input >= plan->num_inputs)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "fusion_plan_broadcast_input: input %d does not exist (the plan has %d)",
                     input, plan->num_inputs);
  if (plan->broadcast[input])
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "fusion_plan_broadcast_input: input %d is already declared", input);
  if (num_dims < 0 || num_dims > TFR_MAX_RANK || (num_dims > 0 && !broadcast_dimensions))
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "fusion_plan_broadcast_input: bad broadcast_dimensions (%d dims)", num_dims);
  for (int k = 0; k < num_dims; k++)
    if (broadcast_dimensions[k] < 0 || broadcast_dimensions[k] >= TFR_MAX_RANK ||
        (k > 0 && broadcast_dimensions[k] <= broadcast_dimensions[k - 1]))
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "fusion_plan_broadcast_input: broadcast_dimensions[%d] = %" PRId64
                       " is negative or not increasing", k, broadcast_dimensions[k]);
  plan->broadcast[input] = true;
  plan->broadcast_ndims[input] = num_dims;
  for (int k = 0; k < num_dims; k++) plan->broadcast_dims[input][k] = broadcast_dimensions[k];
  return TFR_OK;
}

// Appends one instruction after checking its operands with the op's own
// dtype rule.
static tfr_status tfr_fusion_add(tfr_fusion_plan *plan, tfr_ew_kind kind, int op, int n,
                                 const int *operands, int *out_value) {
  if (!plan || !out_value)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_plan: %s is NULL", plan ? "out_value" : "plan");
  int nvalues = plan->num_inputs + plan->num_instructions;
  if (plan->num_instructions == TFR_FUSION_MAX_INSTRUCTIONS)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_plan: more than %d instructions",
                     TFR_FUSION_MAX_INSTRUCTIONS);
  tfr_dtype dtypes[3];
  for (int i = 0; i < n; i++) {
    if (operands[i] < 0 || operands[i] >= nvalues)
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "fusion_plan: operand %d is value %d, but only values 0 .. %d are defined",
                       i, operands[i], nvalues - 1);
    dtypes[i] = plan->value_dtype[operands[i]];
  }
  tfr_dtype out_dtype;
  TFR_RETURN_IF_ERROR(tfr_elementwise_result_dtype(kind, op, n, dtypes, &out_dtype));
  tfr_fusion_instr *in = &plan->instr[plan->num_instructions];
  in->kind = kind;
  in->op = op;
  in->num_operands = n;
  for (int i = 0; i < n; i++) in->operands[i] = operands[i];
  in->dtype = kind == TFR_EW_SELECT ? dtypes[1] : dtypes[0];
  in->out_dtype = out_dtype;
  plan->value_dtype[nvalues] = out_dtype;
  plan->num_instructions++;
  *out_value = nvalues;
  return TFR_OK;
}

tfr_status tfr_fusion_plan_unary(tfr_fusion_plan *plan, tfr_unary_op op, int operand,
                                 int *out_value) {
  return tfr_fusion_add(plan, TFR_EW_UNARY, (int)op, 1, &operand, out_value);
}

tfr_status tfr_fusion_plan_binary(tfr_fusion_plan *plan, tfr_binary_op op, int lhs, int rhs,
                                  int *out_value) {
  return tfr_fusion_add(plan, TFR_EW_BINARY, (int)op, 2, (int[]){lhs, rhs}, out_value);
}

tfr_status tfr_fusion_plan_compare(tfr_fusion_plan *plan, tfr_compare_direction direction,
                                   int lhs, int rhs, int *out_value) {
  return tfr_fusion_add(plan, TFR_EW_COMPARE, (int)direction, 2, (int[]){lhs, rhs}, out_value);
}

tfr_status tfr_fusion_plan_select(tfr_fusion_plan *plan, int pred, int on_true, int on_false,
                                  int *out_value) {
  return tfr_fusion_add(plan, TFR_EW_SELECT, 0, 3, (int[]){pred, on_true, on_false}, out_value);
}

tfr_status tfr_fusion_plan_clamp(tfr_fusion_plan *plan, int min, int operand, int max,
                                 int *out_value) {
  return tfr_fusion_add(plan, TFR_EW_CLAMP, 0, 3, (int[]){min, operand, max}, out_value);
}

tfr_status tfr_fusion_plan_output(tfr_fusion_plan *plan, int value) {
  if (!plan) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_plan_output: plan is NULL");
  int nvalues = plan->num_inputs + plan->num_instructions;
  if (value < 0 || value >= nvalues)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "fusion_plan_output: value %d is not defined (values 0 .. %d)", value,
                     nvalues - 1);
  if (plan->num_outputs == TFR_FUSION_MAX_OUTPUTS)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_plan_output: more than %d outputs",
                     TFR_FUSION_MAX_OUTPUTS);
  plan->outputs[plan->num_outputs++] = value;
  return TFR_OK;
}

int tfr_fusion_plan_num_outputs(const tfr_fusion_plan *plan) { return plan->num_outputs; }

tfr_dtype tfr_fusion_plan_output_dtype(const tfr_fusion_plan *plan, int i) {
  return plan->value_dtype[plan->outputs[i]];
}

tfr_status tfr_fusion_execute(tfr_session *session, const tfr_fusion_plan *plan,
                              const tfr_tensor *const *inputs, tfr_tensor **outputs) {
  if (!plan || !outputs)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_execute: %s is NULL", plan ? "outputs" : "plan");
  for (int o = 0; o < plan->num_outputs; o++) outputs[o] = NULL;
  TFR_RETURN_IF_ERROR(tfr_session_check("fusion_execute", session));
  if (!inputs) return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_execute: inputs is NULL");
  if (plan->num_outputs == 0)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT, "fusion_execute: the plan has no outputs");
  const tfr_tensor *shape_of = NULL;
  char name[32];
  for (int i = 0; i < plan->num_inputs; i++) {
    snprintf(name, sizeof name, "input %d", i);
    TFR_RETURN_IF_ERROR(tfr_check_placement("fusion_execute", name, session, inputs[i]));
    if (inputs[i]->dtype != plan->value_dtype[i])
      return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                       "fusion_execute: input %d has dtype %s, the plan expects %s", i,
                       tfr_dtype_name(inputs[i]->dtype), tfr_dtype_name(plan->value_dtype[i]));
    if (plan->broadcast[i]) {
      if (inputs[i]->rank != plan->broadcast_ndims[i])
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "fusion_execute: input %d has rank %d, its broadcast_dimensions list %d",
                         i, inputs[i]->rank, plan->broadcast_ndims[i]);
      continue;
    }
    if (!shape_of) {
      shape_of = inputs[i];
    } else {
      bool same = shape_of->rank == inputs[i]->rank;
      for (int k = 0; same && k < shape_of->rank; k++) same = shape_of->shape[k] == inputs[i]->shape[k];
      if (!same)
        return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                         "fusion_execute: input %d's shape differs from the shape of the first "
                         "input used as is", i);
    }
  }
  if (!shape_of)
    return tfr_error(TFR_ERR_INVALID_ARGUMENT,
                     "fusion_execute: every input is broadcast; at least one must have the "
                     "result's shape");
  tfr_fusion_desc d = {.plan = plan};
  tfr_tensor *views[TFR_FUSION_MAX_INPUTS] = {0};
  tfr_status st = TFR_OK;
  for (int i = 0; !st && i < plan->num_inputs; i++) {
    if (plan->broadcast[i]) {
      st = tfr_tensor_view_broadcast_in_dim(inputs[i], shape_of->rank, shape_of->shape,
                                            plan->broadcast_dims[i], &views[i]);
      if (st) st = tfr_error_prefix(st, "fusion_execute");
      d.inputs[i] = views[i];
    } else {
      d.inputs[i] = inputs[i];
    }
  }
  for (int o = 0; !st && o < plan->num_outputs; o++) {
    st = tfr_tensor_alloc(session->backend, tfr_fusion_plan_output_dtype(plan, o), shape_of->rank,
                          shape_of->shape, false, &outputs[o]);
    d.outputs[o] = outputs[o];
  }
  if (!st) st = session->backend->vtable->fusion(session->backend, &d);
  for (int i = 0; i < plan->num_inputs; i++) tfr_tensor_release(views[i]);
  if (st)
    for (int o = 0; o < plan->num_outputs; o++) {
      tfr_tensor_release(outputs[o]);
      outputs[o] = NULL;
    }
  return st;
}
