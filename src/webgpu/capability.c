// The webgpu capability table: which ops of the registry
// (src/core/op_registry.def) this backend runs on which dtypes. It encodes
// the TFR_ERR_UNSUPPORTED_DTYPE gates of the kernels, one answer per op
// family (tests/unit/test_webgpu_registry.c runs every op x dtype and checks
// that the answers agree):
//   * elementwise (elementwise.c, fusion.c), convert (copy.c), iota
//     (structural.c), reductions (reduce.c), and the window ops (composed
//     of elementwise ops by the core): bool, i32, f32 and c64, the dtypes
//     WGSL computes on (no 64-bit or narrow types yet);
//   * dot_general (dot.c): f32, i32, c64;
//   * reduce_precision (copy.c): f32;
//   * data movement (copy, transpose, slice, pad, ..., tril/triu by element
//     size in structural.c), gather and scatter with `replace`
//     (gather_scatter.c): every dtype, since they move bits.
#include "core/backend_impl.h"
#include "core/op_registry.h"

#define TFR_WGPU_COMPUTE (TFR_DT(TFR_BOOL) | TFR_DT(TFR_I32) | TFR_DT(TFR_F32) | TFR_DT(TFR_C64))
#define TFR_WGPU_DOT (TFR_DT(TFR_I32) | TFR_DT(TFR_F32) | TFR_DT(TFR_C64))

static uint32_t tfr_wgpu_op_dtypes(tfr_op_id op) {
  const tfr_op_info *info = tfr_op_info_of(op);
  if (!info) return 0;
  switch (info->family) {
    case TFR_FAMILY_UNARY:
    case TFR_FAMILY_BINARY:
    case TFR_FAMILY_COMPARE:
    case TFR_FAMILY_SELECT:
    case TFR_FAMILY_CLAMP:
    case TFR_FAMILY_CONVERT:
    case TFR_FAMILY_REDUCE:
    case TFR_FAMILY_WINDOW:
      return TFR_WGPU_COMPUTE;
    case TFR_FAMILY_DOT:
      return TFR_WGPU_DOT;
    case TFR_FAMILY_STRUCTURAL:
      if (op == TFR_OPID_REDUCE_PRECISION) return TFR_DT(TFR_F32);
      if (op == TFR_OPID_IOTA) return TFR_WGPU_COMPUTE;
      return TFR_DT_ALL;
    case TFR_FAMILY_GATHER:
    case TFR_FAMILY_SCATTER:
      return TFR_DT_ALL;
  }
  return 0;
}

bool tfr_wgpu_supports(tfr_backend *b, uint32_t op, tfr_dtype dtype) {
  (void)b;
  const tfr_op_info *info = tfr_op_info_of(op);
  return info && (info->dtypes & tfr_wgpu_op_dtypes(op) & TFR_DT(dtype)) != 0;
}
