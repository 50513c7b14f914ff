// Which dtypes each webgpu kernel family computes on (capability.c): the one
// place every dtype gate of src/webgpu/ and tfr_backend_supports ask (the callers keep their error messages,
// which name the op, the dtype and the backend). Storage, transfers and
// copies of views move bits and take every dtype.
#ifndef TENFERRO_SRC_WEBGPU_CAPABILITY_H_
#define TENFERRO_SRC_WEBGPU_CAPABILITY_H_

#include <stdbool.h>

#include "core/backend_impl.h"
#include "tenferro/dtype.h"
#include "tenferro/registry.h"

typedef enum tfr_wgpu_family {
  TFR_WGPU_ELEMENTWISE,        // unary, binary, compare, select, clamp; fused plans
  TFR_WGPU_CONVERT,            // convert (both dtypes)
  TFR_WGPU_REDUCE,             // reduce, every combiner
  TFR_WGPU_DOT,                // dot_general
  TFR_WGPU_IOTA,               // iota
  TFR_WGPU_TRIANGLE,           // tril / triu
  TFR_WGPU_REDUCE_PRECISION,   // reduce_precision
  TFR_WGPU_SCATTER_REPLACE,    // scatter, replace (and gather: bits only)
  TFR_WGPU_SCATTER_ARITHMETIC, // scatter, add and multiply
  TFR_WGPU_SCATTER_MINMAX,     // scatter, maximum and minimum
} tfr_wgpu_family;

// Whether `family` has kernels for `dt`.
bool tfr_wgpu_dtype_computes(tfr_wgpu_family family, tfr_dtype dt);

// The backend's `supports` vtable entry: whether registry op `op` runs on
// operands of `dtype` here (the op's kernel family, by the table above).
bool tfr_wgpu_supports(tfr_backend *b, tfr_op_id op, tfr_dtype dtype);

#endif  // TENFERRO_SRC_WEBGPU_CAPABILITY_H_
