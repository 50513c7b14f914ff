// The one validation layer. Every op's argument checks live here, run before
// any output is allocated or written, and infer the result dtype and shape;
// backends receive the filled descriptors and never re-check them.
#ifndef TENFERRO_SRC_CORE_VALIDATE_H_
#define TENFERRO_SRC_CORE_VALIDATE_H_

#include "core/backend_impl.h"

// Elementwise descriptors. On success `d` is filled except `out`; call
// tfr_elementwise_desc_cleanup once done (also after a later failure).
tfr_status tfr_validate_unary(tfr_session *s, tfr_unary_op op, const tfr_tensor *x,
                              tfr_elementwise_desc *d);
tfr_status tfr_validate_binary(tfr_session *s, tfr_binary_op op, const tfr_tensor *lhs,
                               const tfr_tensor *rhs, tfr_elementwise_desc *d);
tfr_status tfr_validate_compare(tfr_session *s, tfr_compare_direction dir, const tfr_tensor *lhs,
                                const tfr_tensor *rhs, tfr_elementwise_desc *d);
tfr_status tfr_validate_select(tfr_session *s, const tfr_tensor *pred, const tfr_tensor *on_true,
                               const tfr_tensor *on_false, tfr_elementwise_desc *d);
tfr_status tfr_validate_clamp(tfr_session *s, const tfr_tensor *min, const tfr_tensor *operand,
                              const tfr_tensor *max, tfr_elementwise_desc *d);
void tfr_elementwise_desc_cleanup(tfr_elementwise_desc *d);

// Checks a caller-provided output of an `_into` op: placement, `dtype`,
// `rank`/`shape`, no self-overlap, and no overlap with the `ninputs` inputs
// other than being one of them exactly.
tfr_status tfr_validate_output(const char *op, const tfr_session *s, const tfr_tensor *out,
                               tfr_dtype dtype, int rank, const int64_t *shape,
                               const tfr_tensor *const *inputs, int ninputs);

// Checks an axis list: each in [0, rank), distinct. Writes them sorted to
// `sorted` (int64[naxes]).
tfr_status tfr_validate_axes(const char *op, int rank, int naxes, const int64_t *axes,
                             int64_t *sorted);

// Checks that `dtype` is in the `mask` (TFR_DT_* bits) of op `op`.
tfr_status tfr_validate_dtype(const char *op, tfr_dtype dtype, uint32_t mask);

// Reductions: fills `d` (except out) and the result shape.
tfr_status tfr_validate_reduce(tfr_session *s, const tfr_tensor *x, const tfr_tensor *init,
                               tfr_reduce_combiner combiner, int naxes, const int64_t *axes,
                               tfr_reduce_desc *d, int *out_rank, int64_t *out_shape);

#endif  // TENFERRO_SRC_CORE_VALIDATE_H_
