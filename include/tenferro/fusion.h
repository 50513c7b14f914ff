// tenferro/fusion.h: elementwise fusion plans.
//
// A fusion plan is a straight-line (SSA) program of elementwise ops
// (ops.h: unary, binary, compare, select, clamp) over N inputs, with one or
// more outputs. tfr_fusion_execute runs it in one pass over memory: each
// input element is read once, each output element written once, and no
// intermediate tensor is made (the cpu backend evaluates blocks of a few
// hundred elements in cache-resident scratch; a device backend generates one
// kernel per plan).
//
//   tfr_fusion_plan *p;                      // y = exp(a * b + c), z = y > c
//   tfr_fusion_plan_create(3, (tfr_dtype[]){TFR_F32, TFR_F32, TFR_F32}, &p);
//   int ab, abc, y, z;
//   tfr_fusion_plan_binary(p, TFR_MULTIPLY, 0, 1, &ab);
//   tfr_fusion_plan_binary(p, TFR_ADD, ab, 2, &abc);
//   tfr_fusion_plan_unary(p, TFR_EXP, abc, &y);
//   tfr_fusion_plan_compare(p, TFR_GT, y, 2, &z);
//   tfr_fusion_plan_output(p, y);  tfr_fusion_plan_output(p, z);
//   tfr_fusion_execute(session, p, inputs, outputs);   // outputs[0] f32, [1] bool
//
// Values are numbered as StableHLO SSA values: inputs are 0 .. N-1, the k-th
// instruction defines value N + k. Every instruction follows the dtype rules
// of its op in ops.h (operands of one dtype, the op's result dtype), checked
// when it is added, with the same messages as the op itself.
//
// Each input is used either as is (it then has the result's shape) or
// through StableHLO `broadcast_in_dim` into the result's shape
// (tfr_fusion_plan_broadcast_input): e.g. a bias vector added to every row.
#ifndef TENFERRO_FUSION_H_
#define TENFERRO_FUSION_H_

#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/ops.h"
#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// The most inputs, instructions and outputs of one plan.
#define TFR_FUSION_MAX_INPUTS 16
#define TFR_FUSION_MAX_INSTRUCTIONS 64
#define TFR_FUSION_MAX_OUTPUTS 8

typedef struct tfr_fusion_plan tfr_fusion_plan;

// Creates an empty plan.
//   num_inputs    1 .. TFR_FUSION_MAX_INPUTS.
//   input_dtypes  tfr_dtype[num_inputs]: the dtype of each input.
//   out           receives the plan; release with tfr_fusion_plan_release.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, num_inputs out of range),
//         TFR_ERR_UNSUPPORTED_DTYPE (an invalid dtype), TFR_ERR_OUT_OF_MEMORY.
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_create(int num_inputs,
                                                        const tfr_dtype *input_dtypes,
                                                        tfr_fusion_plan **out);

// Frees a plan. NULL is ignored.
TFR_API void tfr_fusion_plan_release(tfr_fusion_plan *plan);

// Uses input `input` through broadcast_in_dim: its axis k becomes result
// axis broadcast_dimensions[k] (strictly increasing); its extents must be 1
// or the result's. Checked against the result shape at execution.
//   num_dims  the input's rank (0 for a scalar broadcast to everything).
// Errors: TFR_ERR_INVALID_ARGUMENT (bad input index, num_dims outside
//         [0, TFR_MAX_RANK], NULL or non-increasing dimensions, the input
//         already declared).
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_broadcast_input(
    tfr_fusion_plan *plan, int input, int num_dims, const int64_t *broadcast_dimensions);

// Adds an instruction; *out_value receives its value id.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, a value id not defined
//         yet, an invalid op, too many instructions, operand dtypes that
//         differ), TFR_ERR_UNSUPPORTED_DTYPE (the op is not defined for the
//         dtype, as in ops.h). On error the plan is unchanged.
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_unary(tfr_fusion_plan *plan, tfr_unary_op op,
                                                       int operand, int *out_value);
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_binary(tfr_fusion_plan *plan, tfr_binary_op op,
                                                        int lhs, int rhs, int *out_value);
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_compare(tfr_fusion_plan *plan,
                                                         tfr_compare_direction direction,
                                                         int lhs, int rhs, int *out_value);
// pred must be a bool value; on_true and on_false of one dtype.
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_select(tfr_fusion_plan *plan, int pred,
                                                        int on_true, int on_false,
                                                        int *out_value);
// min, operand, max of one dtype (bool, int, float).
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_clamp(tfr_fusion_plan *plan, int min,
                                                       int operand, int max, int *out_value);

// Appends `value` to the plan's outputs (an input may be an output too: it is
// copied). At most TFR_FUSION_MAX_OUTPUTS.
// Errors: TFR_ERR_INVALID_ARGUMENT (undefined value, too many outputs).
TFR_API TFR_NODISCARD tfr_status tfr_fusion_plan_output(tfr_fusion_plan *plan, int value);

// Number of outputs and the dtype of output `i` (valid i; no checks).
TFR_API int tfr_fusion_plan_num_outputs(const tfr_fusion_plan *plan);
TFR_API tfr_dtype tfr_fusion_plan_output_dtype(const tfr_fusion_plan *plan, int i);

// Runs the plan in one pass.
//   inputs   tensor[num_inputs] on the session's backend, each of the plan's
//            dtype for it; those used as is share one shape, which is the
//            result shape; broadcast ones must fit it. At least one input
//            must be used as is. Any strides.
//   outputs  tfr_tensor*[num_outputs]: each receives a new compact tensor of
//            the result shape and the output's dtype; the caller releases
//            them. On error every outputs[i] is NULL.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, a plan without outputs or
//         without an input used as is, dtype or shape mismatch; the message
//         names the input), TFR_ERR_NO_SESSION, TFR_ERR_WRONG_BACKEND,
//         TFR_ERR_OUT_OF_MEMORY, TFR_ERR_DEVICE_LOST.
TFR_API TFR_NODISCARD tfr_status tfr_fusion_execute(tfr_session *session,
                                                    const tfr_fusion_plan *plan,
                                                    const tfr_tensor *const *inputs,
                                                    tfr_tensor **outputs);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_FUSION_H_
