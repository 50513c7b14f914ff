// tenferro/dot_plan.h: a cached dot_general for repeated contractions.
//
// A plan fixes, once, everything a dot_general decides from the operands'
// dtype, shapes, strides and dimension numbers: the validation, the result
// shape, the order in which the contracting axes are walked, and which
// operand the backend reads in place and which it must pack (copy into a
// compact layout first). Executing the plan reuses those decisions; it
// computes exactly what tfr_dot_general / tfr_dot_general_accumulate
// compute with the same arguments (StableHLO `dot_general`, see ops.h).
//
// An operand that stays the same across many calls (a weight, or a tensor of
// a network that is contracted repeatedly) can be packed once with
// tfr_dot_plan_pack; later executions given that very tensor object use the
// packed copy instead of packing again. einsum uses plans this way.
//
//   tfr_dot_plan *plan;
//   if (tfr_dot_plan_create_like(s, a, w, &cfg, &plan) == TFR_OK) {
//     if (tfr_dot_plan_pack(s, plan, TFR_DOT_RHS, w) == TFR_OK) {
//       for (...) { tfr_dot_plan_execute(s, plan, a_i, w, &y_i); ... }
//     }
//     tfr_dot_plan_release(plan);
//   }
//
// Invalidation rule for packed operands. Tensors are immutable through this
// API except for the `_into` and accumulate forms of ops, which write a
// caller-provided tensor (and for host memory the caller writes through
// tfr_tensor_host_data or a wrapped buffer). tfr_dot_plan_pack takes a
// snapshot: it copies the operand's elements at that moment and holds a
// reference to the tensor object. An execution whose operand is that same
// object (pointer equality) reads the snapshot, whatever happened to the
// tensor's memory since. So after writing into a packed tensor, or into
// any other view of its storage, call tfr_dot_plan_pack again (new snapshot)
// or tfr_dot_plan_unpack (back to reading the tensor). Passing any other
// tensor object, even a view of the same memory, reads that tensor.
// Because the plan holds a reference, the packed tensor object cannot be
// freed and its address reused by another tensor while it is packed.
//
// Threads: a plan belongs to the backend of the session it was created in
// and may be used only in sessions of that backend, by one thread at a time
// (on the cpu backend sessions are exclusive, which gives that for free).
#ifndef TENFERRO_DOT_PLAN_H_
#define TENFERRO_DOT_PLAN_H_

#include <stdbool.h>
#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/dtype.h"
#include "tenferro/ops.h"
#include "tenferro/status.h"
#include "tenferro/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfr_dot_plan tfr_dot_plan;

// The two operands of a plan.
typedef enum tfr_dot_operand {
  TFR_DOT_LHS = 0,
  TFR_DOT_RHS = 1,
} tfr_dot_operand;

// Creates a plan for dot_general(lhs, rhs, config) on the session's backend
// for operands of the given dtype, shapes and strides. Nothing is read or
// packed yet.
//   session      the calling thread's active session; the plan keeps a
//                reference to its backend and works only on that backend.
//   dtype        the operands' dtype: i32, i64, f32, f64, c64 or c128.
//   lhs_rank     0 .. TFR_MAX_RANK.   lhs_shape  int64[lhs_rank], each >= 0
//                (NULL when the rank is 0).
//   lhs_strides  int64[lhs_rank] in elements, the strides the lhs tensors
//                will have (any sign, 0 allowed); NULL means compact
//                row-major. They steer the layout decisions only: executing
//                with other strides is allowed and correct.
//   rhs_rank, rhs_shape, rhs_strides  the same for rhs.
//   config       StableHLO dot_general dimension numbers and conj flags, as
//                for tfr_dot_general; copied, so it may be freed afterwards.
//   out          receives the plan; release it with tfr_dot_plan_release.
//                NULL on error.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL out or config; a rank out of range
//         or a negative extent; NULL shape for rank > 0; and every
//         dimension-number error of tfr_dot_general, with the same
//         message); TFR_ERR_UNSUPPORTED_DTYPE (bool or an invalid dtype);
//         TFR_ERR_NO_SESSION; TFR_ERR_OUT_OF_MEMORY.
TFR_API TFR_NODISCARD tfr_status tfr_dot_plan_create(
    tfr_session *session, tfr_dtype dtype, int lhs_rank, const int64_t *lhs_shape,
    const int64_t *lhs_strides, int rhs_rank, const int64_t *rhs_shape,
    const int64_t *rhs_strides, const tfr_dot_config *config, tfr_dot_plan **out);

// tfr_dot_plan_create with the dtype, shapes and strides of two example
// tensors (they are not read, and not retained).
//   lhs, rhs  tensors on the session's backend, of one dtype.
// Errors: as tfr_dot_plan_create, plus TFR_ERR_WRONG_BACKEND for a tensor of
//         another backend and TFR_ERR_INVALID_ARGUMENT for a NULL tensor or
//         dtypes that differ.
TFR_API TFR_NODISCARD tfr_status tfr_dot_plan_create_like(tfr_session *session,
                                                          const tfr_tensor *lhs,
                                                          const tfr_tensor *rhs,
                                                          const tfr_dot_config *config,
                                                          tfr_dot_plan **out);

// Releases the plan, its packed copies and its references (to the backend
// and to packed tensors). Needs no session. NULL is ignored.
TFR_API void tfr_dot_plan_release(tfr_dot_plan *plan);

// The result's rank and extents: [batch..., lhs free..., rhs free...]
// (StableHLO dot_general). `plan` must not be NULL; the shape is borrowed,
// valid while the plan lives, NULL for rank 0.
TFR_API int tfr_dot_plan_result_rank(const tfr_dot_plan *plan);
TFR_API const int64_t *tfr_dot_plan_result_shape(const tfr_dot_plan *plan);

// The operands' (and the result's) dtype. `plan` must not be NULL.
TFR_API tfr_dtype tfr_dot_plan_dtype(const tfr_dot_plan *plan);

// Whether the backend reads operand `which`, with the strides the plan was
// made for, in place; false means each execution copies it into a packed
// layout first, unless it is packed in the plan (tfr_dot_plan_pack), which
// then pays off. Packing an operand that is read in place gains nothing.
// Very small problems (a few hundred multiply-adds per batch element) are
// always read in place, and so are both operands of a looped product on the
// cpu: f32/f64 contracting axes that merge into one stride in no order but
// whose innermost ones merge in both operands, summed as one small GEMM per
// index of the outer ones (docs/design.md). `plan` must not be NULL; false
// for an invalid `which`.
TFR_API bool tfr_dot_plan_reads_in_place(const tfr_dot_plan *plan, tfr_dot_operand which);

// Runs the planned dot_general: out = dot_general(lhs, rhs, config).
//   session  the calling thread's active session, on the plan's backend.
//   plan     from tfr_dot_plan_create*; not modified.
//   lhs, rhs tensors of the plan's dtype and of exactly the plan's shapes, on
//            the session's backend, any strides. An operand that is the very
//            tensor object packed in the plan is read from the packed copy
//            (see the invalidation rule at the top).
//   out      receives a new compact tensor of the plan's result shape and
//            dtype; the caller releases it. NULL on error.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument; an operand whose dtype,
//         rank or extents differ from the plan's: the message gives both
//         shapes); TFR_ERR_NO_SESSION; TFR_ERR_WRONG_BACKEND (the session or
//         a tensor is of another backend than the plan's);
//         TFR_ERR_OUT_OF_MEMORY.
TFR_API TFR_NODISCARD tfr_status tfr_dot_plan_execute(tfr_session *session,
                                                      const tfr_dot_plan *plan,
                                                      const tfr_tensor *lhs,
                                                      const tfr_tensor *rhs, tfr_tensor **out);

// The accumulating form: out = alpha * dot_general(lhs, rhs) + beta * out,
// as tfr_dot_general_accumulate.
//   alpha, beta  pointers to one value of the plan's dtype each (a `double`
//                for f64, two floats re, im for c64, an int32_t for i32).
//                With beta zero `out` is never read (NaN in it does not
//                propagate). With alpha zero lhs and rhs are not read and
//                out = beta * out (the BLAS gemm convention).
//   out          a tensor of the plan's result shape and dtype on the
//                session's backend, any strides without self-overlap,
//                sharing no memory with lhs or rhs. Unchanged on error.
// Errors: as tfr_dot_plan_execute, plus TFR_ERR_INVALID_ARGUMENT for NULL
//         alpha/beta/out, an out of another shape or dtype, an out whose
//         elements overlap each other or an operand.
TFR_API TFR_NODISCARD tfr_status tfr_dot_plan_execute_accumulate(
    tfr_session *session, const tfr_dot_plan *plan, const tfr_tensor *lhs,
    const tfr_tensor *rhs, const void *alpha, const void *beta, tfr_tensor *out);

// Packs `operand` as operand `which` of the plan: copies it now into the
// layout the backend reads in place, keeps the copy and a reference to the
// tensor object. Executions given that tensor object as operand `which` then
// read the copy. Replaces an earlier packed copy of the same side (packing
// the same tensor again refreshes the snapshot).
//   session  the calling thread's active session, on the plan's backend.
//   plan     the plan; modified.
//   which    TFR_DOT_LHS or TFR_DOT_RHS.
//   operand  a tensor of the plan's dtype and shape for that side, on the
//            session's backend, any strides.
// Errors: TFR_ERR_INVALID_ARGUMENT (NULL argument, invalid `which`, dtype or
//         shape differing from the plan's); TFR_ERR_NO_SESSION;
//         TFR_ERR_WRONG_BACKEND; TFR_ERR_OUT_OF_MEMORY. On error the plan is
//         unchanged (an earlier packed copy is kept).
TFR_API TFR_NODISCARD tfr_status tfr_dot_plan_pack(tfr_session *session, tfr_dot_plan *plan,
                                                   tfr_dot_operand which,
                                                   const tfr_tensor *operand);

// Drops the packed copy of side `which` and the reference to its tensor;
// later executions read that operand from the tensors they are given. Needs
// no session. A NULL plan, an invalid `which` or a side with nothing packed
// is ignored.
TFR_API void tfr_dot_plan_unpack(tfr_dot_plan *plan, tfr_dot_operand which);

#ifdef __cplusplus
}
#endif

#endif  // TENFERRO_DOT_PLAN_H_
