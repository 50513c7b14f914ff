// The elementwise entries of the webgpu backend: single ops (unary, binary,
// compare, select, clamp) and fused plans on f32, i32, bool, c64, f64 and c128
// (the exact ops only: common/f64.wgsl, common/c128.wgsl), i64 and u64
// (common/u64.wgsl), u32, i8, i16, u8, u16, f16 and bf16 (wgsl_types.h), with
// the cpu backend's semantics
// (src/cpu/scalar_math.h). Both run through the one kernel generator
// (ew_kernel.c): a single op is a plan of one instruction, whose kernel is
// the op table's expression (ew_table.c) between the loads and the stores.
#include <stdio.h>
#include <string.h>

#include "webgpu/capability.h"
#include "webgpu/ew_kernel.h"
#include "webgpu/ew_table.h"
#include "webgpu/wgpu.h"

// The refusal of a dtype without kernels (every dtype has them now; kept for
// a dtype the table may lack). `what` names the op, `which` the operand.
static tfr_status tfr_ew_refuse_dtype(const char *what, tfr_dtype dt, const char *which) {
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE, "%s: dtype %s%s is not supported on the webgpu "
                   "backend", what, tfr_dtype_name(dt), which);
}

// The refusal of an op the op table lacks on a dtype that has kernels
// (f64's and c128's analytic functions not written yet). Which ops run is
// the op table's fact (ew_table.c), listed by `tenferro info --ops`, not
// repeated here.
static tfr_status tfr_ew_refuse_op(const char *what, tfr_dtype dt, const char *which) {
  return tfr_error(TFR_ERR_UNSUPPORTED_DTYPE, "%s: dtype %s%s is not supported on the webgpu "
                   "backend (no kernel of this analytic function for %s there yet; "
                   "`tenferro info --ops` lists the ops that run)", what, tfr_dtype_name(dt),
                   which, tfr_dtype_name(dt));
}

tfr_status tfr_wgpu_elementwise(tfr_backend *base, const tfr_elementwise_desc *d) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  const char *op = tfr_ew_op_name(d->kind, d->op);
  tfr_dtype dts[2 + 3] = {d->dtype, d->out_dtype};
  int ndts = 2;
  for (int i = 0; i < d->ninputs; i++) dts[ndts++] = d->inputs[i]->dtype;
  for (int i = 0; i < ndts; i++)
    if (!tfr_wgpu_dtype_computes(TFR_WGPU_ELEMENTWISE, dts[i]))
      return tfr_ew_refuse_dtype(op, dts[i], "");
  if (!tfr_ew_expr_of(d->kind, d->op, tfr_ew_type_of(d->dtype)))
    return tfr_ew_refuse_op(op, d->dtype, "");
  // The plan of one instruction: inputs 0 .. ninputs-1, value ninputs the
  // result. Only the fields the generator reads are set (the broadcast ones
  // are the core's).
  tfr_fusion_plan p;
  p.num_inputs = d->ninputs;
  p.num_instructions = 1;
  p.num_outputs = 1;
  tfr_fusion_instr *in = &p.instr[0];
  in->kind = d->kind;
  in->op = d->op;
  in->num_operands = d->ninputs;
  in->dtype = d->dtype;
  in->out_dtype = d->out_dtype;
  for (int i = 0; i < d->ninputs; i++) {
    p.value_dtype[i] = d->inputs[i]->dtype;
    in->operands[i] = i;
  }
  p.value_dtype[d->ninputs] = d->out_dtype;
  p.outputs[0] = d->ninputs;
  tfr_tensor *outputs[1] = {d->out};
  return tfr_wgpu_ew_run(b, op, &p, d->inputs, outputs);
}

tfr_status tfr_wgpu_fusion(tfr_backend *base, const tfr_fusion_desc *d) {
  tfr_wgpu_backend *b = tfr_wgpu_cast(base);
  const tfr_fusion_plan *p = d->plan;
  int nvalues = p->num_inputs + p->num_instructions;
  for (int v = 0; v < nvalues; v++) {
    tfr_dtype dt = p->value_dtype[v];
    if (tfr_wgpu_dtype_computes(TFR_WGPU_ELEMENTWISE, dt)) continue;
    char which[48];
    if (v < p->num_inputs) snprintf(which, sizeof which, " (input %d)", v);
    else snprintf(which, sizeof which, " (the result of instruction %d)", v - p->num_inputs);
    return tfr_ew_refuse_dtype("fusion", dt, which);
  }
  for (int k = 0; k < p->num_instructions; k++) {
    const tfr_fusion_instr *in = &p->instr[k];
    if (tfr_ew_expr_of(in->kind, in->op, tfr_ew_type_of(in->dtype))) continue;
    char which[64];
    snprintf(which, sizeof which, " (instruction %d, %s)", k, tfr_ew_op_name(in->kind, in->op));
    return tfr_ew_refuse_op("fusion", in->dtype, which);
  }
  return tfr_wgpu_ew_run(b, "fusion", p, d->inputs, d->outputs);
}
