// An internal entry of the webgpu backend for tests and the accuracy tool
// (tests/unit/test_webgpu_math.c, bench/webgpu_accuracy.c): applies one
// function of the WGSL math library (kernels/common/math_f32.wgsl,
// math_special_f32.wgsl, math_c64.wgsl) to device tensors,
// out[i] = fn(x[i]) or fn(x[i], y[i]).
// Not part of the public API; the callers link the static library.
#ifndef TENFERRO_SRC_WEBGPU_MATH_EVAL_H_
#define TENFERRO_SRC_WEBGPU_MATH_EVAL_H_

#include <stdint.h>

#include "tenferro/backend.h"
#include "tenferro/dtype.h"
#include "tenferro/status.h"
#include "tenferro/tensor.h"

// One function of the library: its WGSL name without the tfr_ prefix
// ("exp_f32", "pow_c64", "abs_c64"), arity, and element types.
typedef struct tfr_wgpu_math_fn {
  const char *name;
  int arity;          // 1 or 2
  tfr_dtype in;       // TFR_F32 or TFR_C64 (both operands)
  tfr_dtype out;      // TFR_F32 or TFR_C64
  // The WGSL expression of `a` (and `b`), or NULL for tfr_<name>(a[, b]).
  // Entries named wgsl_<f>_f32 are WGSL's own built-ins, kept to measure
  // them (docs/accuracy.md); their reference is <f>'s.
  const char *expr;
} tfr_wgpu_math_fn;

// The table of every function (`*count` entries).
const tfr_wgpu_math_fn *tfr_wgpu_math_functions(int *count);
// The entry named `name`, or NULL.
const tfr_wgpu_math_fn *tfr_wgpu_math_find(const char *name);

// out = fn(x) (arity 1; y must be NULL) or fn(x, y) (arity 2). x, y and out
// are compact device tensors of `backend` with the same element count, of
// the function's dtypes (any shape). Records one dispatch per 2^22 elements
// in the session open on the calling thread (it must be one of `backend`);
// the caller downloads `out`. Errors: TFR_ERR_INVALID_ARGUMENT (unknown
// function, wrong dtype, arity, placement or size), those of the kernel's
// compilation and dispatch.
tfr_status tfr_wgpu_math_eval(tfr_backend *backend, const char *name, const tfr_tensor *x,
                              const tfr_tensor *y, tfr_tensor *out);

// The host reference of `fn` in double precision: libm's double functions
// for the f32 ones, the cpu backend's f64 special functions for lgamma,
// digamma, erf_inv, bessel_i1e (src/cpu/special_math.h, <= 2 ulps of a
// double) (rounded to f32 by the caller: correctly rounded but for rare
// double-rounding cases), the cpu backend's c128 element functions
// (src/cpu/scalar_math.h, C99 complex) for the c64 ones. x and y hold one
// value (f32) or re, im (c64); out receives 1 or 2 values.
void tfr_wgpu_math_reference(const tfr_wgpu_math_fn *fn, const double *x, const double *y,
                             double *out);

#endif  // TENFERRO_SRC_WEBGPU_MATH_EVAL_H_
