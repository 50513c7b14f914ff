// The dtype gates of the webgpu kernel families (capability.h).
#include "webgpu/capability.h"

// f32, i32, bool and c64: the value types of the elementwise kernels.
static bool tfr_wgpu_is_word_type(tfr_dtype dt) {
  return dt == TFR_F32 || dt == TFR_I32 || dt == TFR_BOOL || dt == TFR_C64;
}

bool tfr_wgpu_dtype_computes(tfr_wgpu_family family, tfr_dtype dt) {
  if ((unsigned)dt >= TFR_DTYPE_COUNT) return false;
  switch (family) {
    case TFR_WGPU_ELEMENTWISE:
    case TFR_WGPU_CONVERT:
    case TFR_WGPU_REDUCE:
    case TFR_WGPU_IOTA: return tfr_wgpu_is_word_type(dt);
    case TFR_WGPU_DOT: return dt == TFR_F32 || dt == TFR_I32 || dt == TFR_C64;
    case TFR_WGPU_REDUCE_PRECISION: return dt == TFR_F32;
    case TFR_WGPU_TRIANGLE:
    case TFR_WGPU_SCATTER_REPLACE: return true;  // bits, by element size
    // i64 is emulated with 32-bit words; f64 maximum/minimum compare bits.
    case TFR_WGPU_SCATTER_ARITHMETIC: return tfr_wgpu_is_word_type(dt) || dt == TFR_I64;
    case TFR_WGPU_SCATTER_MINMAX:
      return tfr_wgpu_is_word_type(dt) || dt == TFR_I64 || dt == TFR_F64;
  }
  return false;
}
