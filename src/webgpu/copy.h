// The copy family (copy.c): strided copies, tiled transposition, convert and
// reduce_precision.
#ifndef TENFERRO_SRC_WEBGPU_COPY_H_
#define TENFERRO_SRC_WEBGPU_COPY_H_

#include "webgpu/wgpu.h"

// Copies/converts `in` into `out` (same shape, any strides): the structural
// op TFR_STRUCT_CONVERT, and the gather step of transfers of views.
tfr_status tfr_wgpu_copy(tfr_wgpu_backend *b, const char *op, const tfr_tensor *in,
                         tfr_tensor *out);
// StableHLO reduce_precision of f32, on the bits (common/reduce_precision.wgsl,
// the cpu's rule of src/core/half.h): a copy through a map.
tfr_status tfr_wgpu_reduce_precision(tfr_wgpu_backend *b, const tfr_structural_desc *d);

#endif  // TENFERRO_SRC_WEBGPU_COPY_H_
